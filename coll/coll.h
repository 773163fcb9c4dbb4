/*
 * The collectives layer's own types: what a call is (gdc_coll_args_t), the parameters its
 * algorithms read (gdc_coll_config_t), and what an algorithm is (gdc_coll_algo_t: a row of
 * the table in select/table.c, identified by a gdc_coll_algo_id_t).
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

/*
 * The parameters builders and the executor read. The layer owns the live set (coll_init.c,
 * from GDC_* at gdc_init) and hands it to every call in gdc_coll_args_t; tests, gdinfo and
 * the cost model hand their own.
 */
/* The smallest pipelining unit auto sizing picks, and the unit of a call nothing sized. */
#define GDC_COLL_CHUNK_MIN ((size_t)256 * 1024)

typedef struct gdc_coll_config {
    size_t chunk_bytes;      /* pipelining unit of large messages (GDC_CHUNK_SIZE); 0: each link's own
                                (the selection sets gdc_coll_args_t's chunk_in and chunk_out) */
    size_t shm_chunk_bytes;  /* pipelining unit through shared memory, cache-sized (GDC_SHM_CHUNK) */
    size_t stream_bytes;     /* outputs from this size on are written around the cache (GDC_STREAM_SIZE) */
    size_t hier_ring_bytes;  /* group phases of hierarchical algorithms above this size run a
                                ring, smaller ones recursive doubling (GDC_HIER_RING_MIN) */
    int    tree_radix;       /* k of the k-nomial trees (GDC_TREE_RADIX) */
    int    check;            /* compare every rank's signature of each call first (GDC_CHECK) */
    int    device_queue;     /* the ipc algorithms' device steps queued, waited for only before a
                                signal, a message or the call's end (GDC_DEVICE_QUEUE) */
    int    device_fused;     /* the ipc_leader reductions in one kernel over every rank's buffers
                                (GDC_DEVICE_FUSED) */
} gdc_coll_config_t;

/* The built-in values of every parameter (stream_bytes resolved for a 32 MiB cache). */
extern const gdc_coll_config_t gdc_coll_config_defaults;

/* One collective call as the algorithms see it: sizes and ranks, never pointers to data. */
typedef struct gdc_coll_args {
    gdc_coll_type_t          coll;
    size_t                   count;    /* elements: the whole vector (bcast, reduce, allreduce) or the
                                          block per rank (allgather, reduce_scatter, alltoall, gather,
                                          scatter) */
    gdc_dtype_t              dtype;
    size_t                   dsize;    /* bytes per element */
    gdc_op_t                 op;
    int                      root;
    int                      in_place;
    int                      size;     /* communicator size */
    int                      rank;     /* my rank in the communicator */
    /* where the ranks are: node of each rank (0..num_nodes-1), from the communicator */
    const int               *node_of;
    int                      num_nodes;
    const struct gdc_coll_layout *layout; /* the communicator's layout for the prices (NULL: from node_of) */
    size_t                   shm_bytes; /* shared memory per local rank for the algorithms (0: none) */
    int                      shm_cma;   /* the ranks of a node may copy from and into each other's
                                           buffers by cross-memory attach (process_vm_readv) */
    int                      shm_ipc;   /* the ranks of a node map each other's device buffers (CUDA IPC) */
    int                      shm_one_gpu; /* ... and they all use one GPU, not shared through MPS: a GPU
                                             operation from another rank's context than the last
                                             costs a context switch (~270 us on an H200) */
    int                      on_device; /* buffers in CUDA device memory */
    int                      node_cores; /* the cores of the node of a call on one node, the same on
                                            every rank (the cost model's; 0: unknown) */
    size_t                   core_cache; /* bytes of one core's own cache there, the same way */
    const gdc_coll_config_t *config;    /* the parameters the algorithms follow; never NULL */
    size_t                   chunk_in;  /* pipelining unit inside a node and between nodes: long */
    size_t                   chunk_out; /* enough that a chunk's latency is small next to its transfer
                                           (0: config->chunk_bytes) */
    /* alltoallv only: per-peer counts and displacements, in elements */
    const size_t            *sendcounts;
    const size_t            *sdispls;
    const size_t            *recvcounts;
    const size_t            *rdispls;
} gdc_coll_args_t;

/* The user's buffers of a call, as the algorithms' INPUT and OUTPUT. */
typedef struct gdc_coll_buffers {
    const void *input;
    void       *output;
    const void *probe; /* a buffer the memory type is taken from */
} gdc_coll_buffers_t;

/* Every algorithm, by collective; the table's order is the order of this list. */
typedef enum {
    GDC_COLL_ALGO_ALLREDUCE_RING = 0,
    GDC_COLL_ALGO_ALLREDUCE_RECURSIVE_DOUBLING,
    GDC_COLL_ALGO_ALLREDUCE_RABENSEIFNER,
    GDC_COLL_ALGO_ALLREDUCE_KNOMIAL,
    GDC_COLL_ALGO_ALLREDUCE_SHM,
    GDC_COLL_ALGO_ALLREDUCE_SHM_DIRECT,
    GDC_COLL_ALGO_ALLREDUCE_CMA,
    GDC_COLL_ALGO_ALLREDUCE_HIER_LEADER,
    GDC_COLL_ALGO_ALLREDUCE_HIER_RAILS,
    GDC_COLL_ALGO_ALLREDUCE_IPC,
    GDC_COLL_ALGO_ALLREDUCE_IPC_TWO_SHOT,
    GDC_COLL_ALGO_ALLREDUCE_IPC_LEADER,
    GDC_COLL_ALGO_BCAST_BINOMIAL,
    GDC_COLL_ALGO_BCAST_CHAIN,
    GDC_COLL_ALGO_BCAST_SCATTER_ALLGATHER,
    GDC_COLL_ALGO_BCAST_SHM,
    GDC_COLL_ALGO_BCAST_HIER,
    GDC_COLL_ALGO_BCAST_HIER_RAILS,
    GDC_COLL_ALGO_BCAST_CMA,
    GDC_COLL_ALGO_BCAST_IPC,
    GDC_COLL_ALGO_BCAST_IPC_LEADER,
    GDC_COLL_ALGO_REDUCE_BINOMIAL,
    GDC_COLL_ALGO_REDUCE_SCATTER_GATHER,
    GDC_COLL_ALGO_REDUCE_IPC,
    GDC_COLL_ALGO_ALLGATHER_RING,
    GDC_COLL_ALGO_ALLGATHER_RECURSIVE_DOUBLING,
    GDC_COLL_ALGO_ALLGATHER_BRUCK,
    GDC_COLL_ALGO_ALLGATHER_SHM,
    GDC_COLL_ALGO_ALLGATHER_HIER,
    GDC_COLL_ALGO_ALLGATHER_HIER_RAILS,
    GDC_COLL_ALGO_ALLGATHER_CMA,
    GDC_COLL_ALGO_ALLGATHER_IPC,
    GDC_COLL_ALGO_ALLGATHER_IPC_LEADER,
    GDC_COLL_ALGO_REDUCE_SCATTER_RING,
    GDC_COLL_ALGO_REDUCE_SCATTER_RECURSIVE_HALVING,
    GDC_COLL_ALGO_REDUCE_SCATTER_SHM_DIRECT,
    GDC_COLL_ALGO_REDUCE_SCATTER_CMA,
    GDC_COLL_ALGO_REDUCE_SCATTER_IPC,
    GDC_COLL_ALGO_REDUCE_SCATTER_IPC_LEADER,
    GDC_COLL_ALGO_ALLTOALL_PAIRWISE,
    GDC_COLL_ALGO_ALLTOALL_BRUCK,
    GDC_COLL_ALGO_ALLTOALL_SHM,
    GDC_COLL_ALGO_ALLTOALL_HIER,
    GDC_COLL_ALGO_ALLTOALL_CMA,
    GDC_COLL_ALGO_ALLTOALL_IPC,
    GDC_COLL_ALGO_ALLTOALL_IPC_LEADER,
    GDC_COLL_ALGO_ALLTOALLV_PAIRWISE,
    GDC_COLL_ALGO_BARRIER_DISSEMINATION,
    GDC_COLL_ALGO_BARRIER_SHM,
    GDC_COLL_ALGO_BARRIER_HIER,
    GDC_COLL_ALGO_GATHER_BINOMIAL,
    GDC_COLL_ALGO_GATHER_SHM,
    GDC_COLL_ALGO_GATHER_CMA,
    GDC_COLL_ALGO_GATHER_IPC,
    GDC_COLL_ALGO_GATHER_IPC_LEADER,
    GDC_COLL_ALGO_SCATTER_BINOMIAL,
    GDC_COLL_ALGO_SCATTER_SHM,
    GDC_COLL_ALGO_SCATTER_CMA,
    GDC_COLL_ALGO_SCATTER_IPC,
    GDC_COLL_ALGO_SCATTER_IPC_LEADER,
    GDC_COLL_ALGO_COUNT
} gdc_coll_algo_id_t;

/* What an algorithm is made of, for gdinfo and the tests. */
enum {
    GDC_COLL_ALGO_FLAG_SHM  = 1u << 0, /* reads and writes the node's shared memory: one node,
                                          host buffers */
    GDC_COLL_ALGO_FLAG_HIER = 1u << 1, /* node-aware: phases inside nodes and among them; applies
                                          when the ranks span nodes */
    GDC_COLL_ALGO_FLAG_ON_REQUEST = 1u << 2, /* runs only when forced or named by a tuning file: its
                                               price is right against the simulator, but it could not
                                               be shown to win where the model would choose it
                                               (bench/RESULTS.md) */
    GDC_COLL_ALGO_FLAG_IPC = 1u << 3, /* device buffers of one node's ranks, each mapping its peers'
                                         (CUDA IPC); hand-offs through the node's shared memory */
    GDC_COLL_ALGO_FLAG_ONE_GPU = 1u << 4, /* ... all on one GPU: one rank makes the call's every GPU
                                            operation (args->shm_one_gpu) */
    GDC_COLL_ALGO_FLAG_MEASURED = 1u << 5, /* the model's to choose only where the numbers in force
                                              measured cross-memory attach and the copies out of a
                                              peer's shared memory (GDC_CALIBRATION): whether one
                                              kernel copy beats two memcpys differs from host to host
                                              (bench/RESULTS.md), and the built-in numbers cannot tell */
    GDC_COLL_ALGO_FLAG_OWN_CORES = 1u << 6 /* a choice the measured numbers make only where a node's
                                              ranks do not outnumber its cores, or where its
                                              copies outgrow a core's cache while the call's
                                              buffers fit half the last-level one (select.c) */
};

struct gdc_coll_sched;
struct gdc_coll_fast;

typedef struct gdc_coll_algo {
    gdc_coll_algo_id_t id;
    gdc_coll_type_t    coll;
    const char        *name;
    const char        *desc;
    unsigned           flags; /* GDC_COLL_ALGO_FLAG_* */
    /* Can it run this call? NULL: any call of its collective. */
    int (*supports)(const gdc_coll_args_t *args);
    /* Append this rank's steps for args to sched. */
    gdc_status_t (*build)(struct gdc_coll_sched *sched, const gdc_coll_args_t *args);
    /* Optional: run a blocking call straight, without a schedule (engine/fast.h says how);
     * returns 0, touching nothing, when this call is not a shape it knows. */
    int (*run_blocking)(const struct gdc_coll_fast *fast, const gdc_coll_args_t *args,
                        const gdc_coll_buffers_t *bufs, gdc_status_t *status);
} gdc_coll_algo_t;

const char *gdc_coll_type_name(gdc_coll_type_t coll);

/* Does the collective have a root (bcast, reduce, gather, scatter)? */
int gdc_coll_is_rooted(gdc_coll_type_t coll);

/* Is the call in place at this rank (GDC_IN_PLACE where the collective allows it)? */
int gdc_coll_is_in_place(gdc_coll_type_t coll, int rank, int root, const void *sendbuf, const void *recvbuf);

/* The user's sendbuf / recvbuf as the algorithms' INPUT and OUTPUT (args->in_place set). */
void gdc_coll_map_buffers(const gdc_coll_args_t *args, const void *sendbuf, void *recvbuf, const void **input,
                          void **output);

/* A call that moves nothing (count 0; a barrier and an alltoallv never are). */
int gdc_coll_is_empty(const gdc_coll_args_t *args);

/* A call on one node whose ranks outnumber its cores: a wait on a peer may wait for the
 * peer to get a core. The cores are args->node_cores (the algorithms' protocols) or the
 * cost model's (its waits): gdc_coll_outnumbered serves both. */
int gdc_coll_outnumbered(int ranks, int nodes, int cores);
int gdc_coll_oversubscribed(const gdc_coll_args_t *args);

/* Bytes of the INPUT and OUTPUT regions args uses at this rank (for bounds checks). */
size_t gdc_coll_input_bytes(const gdc_coll_args_t *args);
size_t gdc_coll_output_bytes(const gdc_coll_args_t *args);
/* Bytes of user buffers the call's ranks on one node hold (on the fullest node, the root's
 * with the others'): what the call keeps in that node's caches. */
double gdc_coll_node_buffer_bytes(const gdc_coll_args_t *args);

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
