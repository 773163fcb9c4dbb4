/*
 * The collectives layer: what a call is (gdc_coll_args_t), what an algorithm is (a builder
 * of schedules, with a name and a description), and the table of algorithms.
 */
#ifndef GDC_COLL_H
#define GDC_COLL_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

typedef enum {
    GDC_COLL_BARRIER = 0,
    GDC_COLL_BCAST,
    GDC_COLL_REDUCE,
    GDC_COLL_ALLREDUCE,
    GDC_COLL_ALLGATHER,
    GDC_COLL_REDUCE_SCATTER,
    GDC_COLL_ALLTOALL,
    GDC_COLL_ALLTOALLV,
    GDC_COLL_GATHER,
    GDC_COLL_SCATTER,
    GDC_COLL_TYPE_COUNT
} gdc_coll_type_t;

/* One collective call as the algorithms see it: sizes and ranks, never pointers. */
typedef struct gdc_coll_args {
    gdc_coll_type_t coll;
    size_t          count;    /* elements: the whole vector (bcast, reduce, allreduce) or the
                                 block per rank (allgather, reduce_scatter, alltoall, gather,
                                 scatter) */
    gdc_dtype_t     dtype;
    size_t          dsize;    /* bytes per element */
    gdc_op_t        op;
    int             root;
    int             in_place;
    int             size;     /* communicator size */
    int             rank;     /* my rank in the communicator */
    /* where the ranks are: node of each rank (0..num_nodes-1), from the communicator */
    const int      *node_of;
    int             num_nodes;
    size_t          shm_bytes; /* shared memory per local rank for the algorithms (0: none) */
    int             on_device; /* buffers in CUDA device memory */
    /* alltoallv only: per-peer counts and displacements, in elements */
    const size_t   *sendcounts;
    const size_t   *sdispls;
    const size_t   *recvcounts;
    const size_t   *rdispls;
} gdc_coll_args_t;

struct gdc_coll_sched;

typedef struct gdc_coll_algo {
    gdc_coll_type_t coll;
    const char     *name;
    const char     *desc;
    /* Append this rank's steps for args to sched. */
    int (*build)(struct gdc_coll_sched *sched, const gdc_coll_args_t *args);
    /* Can it run this call? NULL: any call of its collective. */
    int (*supports)(const gdc_coll_args_t *args);
} gdc_coll_algo_t;

const char *gdc_coll_type_name(gdc_coll_type_t coll);

/* Every algorithm, grouped by collective. */
extern const gdc_coll_algo_t gdc_coll_algos[];
extern const int             gdc_coll_num_algos;

/* The algorithm of coll named name, or NULL. */
const gdc_coll_algo_t *gdc_coll_algo_find(gdc_coll_type_t coll, const char *name);

/* Is the call in place at this rank (GDC_IN_PLACE where the collective allows it)? */
int gdc_coll_is_in_place(gdc_coll_type_t coll, int rank, int root, const void *sendbuf, const void *recvbuf);

/* The user's sendbuf / recvbuf as the algorithms' INPUT and OUTPUT (args->in_place set). */
void gdc_coll_map_buffers(const gdc_coll_args_t *args, const void *sendbuf, void *recvbuf, const void **input,
                          void **output);

/* Bytes of the INPUT and OUTPUT regions args uses at this rank (for bounds checks). */
size_t gdc_coll_input_bytes(const gdc_coll_args_t *args);
size_t gdc_coll_output_bytes(const gdc_coll_args_t *args);

/* Block i of count elements split into n blocks: the first count % n blocks have one
 * element more. */
static inline size_t gdc_coll_block_offset(size_t count, int n, int i)
{
    size_t base = count / (size_t)n, extra = count % (size_t)n;

    return base * (size_t)i + ((size_t)i < extra ? (size_t)i : extra);
}

static inline size_t gdc_coll_block_count(size_t count, int n, int i)
{
    return count / (size_t)n + ((size_t)i < count % (size_t)n ? 1 : 0);
}

#endif
