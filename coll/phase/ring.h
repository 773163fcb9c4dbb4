/*
 * The two ring phases that several algorithms are made of: a pipelined ring
 * reduce-scatter (ring allreduce, ring reduce_scatter) and a pipelined ring allgather (ring
 * allreduce, ring allgather, scatter + allgather bcast).
 *
 * The ring runs over a group of ranks (n of them); a vector of `count` elements is cut into n
 * blocks (gdc_coll_block_*), each block into
 * `chunks` pipeline chunks. After the reduce-scatter, rank r holds the reduction of block
 * `owned`; the allgather starts from every rank owning one block and ends with all blocks
 * everywhere.
 */
#ifndef GDC_COLL_RING_H
#define GDC_COLL_RING_H

#include "builder.h"

/* A vector of n blocks laid out in one buffer from element `base`: equal blocks
 * (gdc_coll_block_*), or the blocks [bounds[b], bounds[b+1]) when bounds is set (n + 1
 * element offsets from 0 to count: uneven nodes, allgatherv-like layouts). */
typedef struct gdc_coll_vec {
    gdc_coll_buf_t buf;
    size_t         base;
    size_t         count;
    int            n;
    const size_t  *bounds;
} gdc_coll_vec_t;

/* Block b of vec: its first element and its size. */
size_t gdc_coll_vec_block_offset(const gdc_coll_vec_t *vec, int b);
size_t gdc_coll_vec_block_count(const gdc_coll_vec_t *vec, int b);

/* Chunk c (of chunks) of block b of vec. */
gdc_coll_region_t gdc_coll_vec_chunk(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec,
                                     int block, int c, int chunks);
/* Chunk c of block b of vec when block b is stored elsewhere, from element base of buf. */
gdc_coll_region_t gdc_coll_vec_chunk_at(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec,
                                        int block, int c, int chunks, gdc_coll_buf_t buf, size_t base);

/* Chunks for a ring over vec with `rounds` messages per pair, inside a node or across; the
 * same for blocks of block_bytes (the prices use it too). */
int gdc_coll_ring_chunks(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec, int rounds, int across);
int gdc_coll_ring_chunk_count(const gdc_coll_args_t *args, int across, size_t block_bytes, int rounds);

typedef struct gdc_coll_ring_rs {
    gdc_coll_group_t group;      /* the ring, in group order */
    int            owned;        /* block this rank ends with */
    int            chunks;
    uint32_t       slot_base;
    gdc_coll_vec_t input;        /* this rank's contribution */
    gdc_coll_vec_t partial;      /* where partial reductions of other blocks go */
    gdc_coll_buf_t result_buf;   /* where the owned block's reduction goes: */
    size_t         result_base;  /*   its first element there */
    size_t         scratch_base; /* bytes: receive slots start here */
    int            avg;          /* finish the owned block with GDC_AVG's division */
    /* out: per chunk of the owned block, the step that completes it; per (round, chunk)
     * the send step (readers of partial/input blocks), -1 where none */
    int           *done;         /* [chunks] */
    int           *sends;        /* [(n-1) * chunks] */
} gdc_coll_ring_rs_t;

/* Append the reduce-scatter; returns the scratch bytes it uses from scratch_base. */
size_t gdc_coll_ring_reduce_scatter(gdc_coll_sched_t *sched, gdc_coll_ring_rs_t *rs);

typedef struct gdc_coll_ring_ag {
    gdc_coll_group_t  group;     /* the ring, in group order */
    int               owned;     /* block this rank starts with */
    int               chunks;
    uint32_t          slot_base;
    gdc_coll_vec_t    out;       /* every block ends here */
    gdc_coll_buf_t    first_buf; /* where the owned block is read from for the first send: */
    size_t            first_base; /*   its first element there */
    const int        *first_dep; /* [chunks] or NULL: what the first sends wait for */
    const int        *recv_dep;  /* [(n-1) * chunks] or NULL: what each receive waits for */
} gdc_coll_ring_ag_t;

void gdc_coll_ring_allgather(gdc_coll_sched_t *sched, const gdc_coll_ring_ag_t *ag);

#endif
