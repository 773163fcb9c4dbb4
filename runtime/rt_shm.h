/*
 * Shared memory between the ranks of a communicator that share a node. Each rank owns one
 * segment per communicator: a header, progress counters its peers read, and a data area
 * they copy and reduce from. Every local rank maps every other's segment.
 *
 * A segment is a memfd, never a name: its peers open it through /proc/<pid>/fd/<fd> while
 * its owner holds the descriptor, which it closes once everyone has mapped it. So nothing
 * is ever left in /dev/shm, whatever kills the job and when (a named segment stayed there
 * when its owner died between creating it and its peers mapping it, which no launcher but
 * gdrun cleans up).
 *
 * A counter is written only by its owner (a release store) and read by peers (an acquire
 * load): a rank says "chunk k of phase p is done" by raising counter p to k + 1.
 */
#ifndef GDC_RT_SHM_H
#define GDC_RT_SHM_H

#include <gdc.h>

#include <stddef.h>
#include <stdint.h>

/* Counters in each segment: as many as the shared-memory algorithms use (coll/phase/shm.h),
 * a line each. The last, DONE, stands for them all: a rank raises it last at every value
 * (the schedules order it after the others', sched.c) and alone at each call's end, and
 * another counter counts as having reached what DONE reached (gdc_rt_shm_reached). So a
 * call's end writes one line, not one per counter (on 2 ranks, an 8-byte allreduce took
 * 0.54 us raising all 3 at each call's end, 0.47 raising one: bench/RESULTS.md 2026-12-05
 * 15:05-16:55, AB15). */
#define GDC_RT_SHM_COUNTERS 3
#define GDC_RT_SHM_DONE     (GDC_RT_SHM_COUNTERS - 1)

typedef struct gdc_rt_shm_segment gdc_rt_shm_segment_t;

typedef struct gdc_rt_shm {
    int                    local_size;  /* ranks of the communicator on this node */
    int                    local_index; /* mine among them */
    int                   *local_ranks; /* [local_size] their communicator ranks */
    size_t                 data_bytes;  /* of each segment's data area */
    gdc_rt_shm_segment_t **segments;    /* [local_size] mapped, mine at local_index */
    int                    fd;          /* my segment until everyone has mapped it, else -1 */
    uint64_t               epoch;       /* counters' value reached by every shm collective so far */
    char                 **data;        /* [local_size] each segment's data area */
    volatile uint64_t    **counters;    /* [local_size] each segment's first counter */
    uint64_t              *seen;        /* [local_size * COUNTERS] the highest value read of each */
    int32_t               *pids;        /* [local_size] their processes */
    int                    cma;         /* cross-memory attach reaches every peer's memory */
    int                    ipc;         /* every local rank maps its peers' device buffers (CUDA IPC) */
    int                    one_gpu;     /* ... and they all use one GPU, not shared through MPS */
    struct gdc_rt_cuda_ipc_cache *ipc_cache; /* those mappings, when ipc */
    const struct gdc_rt_cuda_ipc_ops *ipc_ops; /* the driver calls of exports (NULL: the driver's;
                                                  tests put fakes here and in the cache) */
} gdc_rt_shm_t;

/* After each segment's data area, a ring of slots for small calls: a call publishes in
 * slot (its first counter value mod the ring), so that a writer waits for its readers of
 * the call a ring before, not of the last one. A slot holds 256 KiB: where ranks outnumber
 * the cores, a call in the ring is 0.25 to 0.6 times as long as in the data area (each wait
 * on a peer there may cost a context switch), and on two ranks no slower (bench/RESULTS.md,
 * 2026-12-04 21:05). The ring is 2 MiB of each rank's segment, touched only as far as
 * calls fill its slots.
 * A slot starts with a stamp, its data right after it in the same cache line: a fast path
 * (engine/fast.h) that publishes in the slot writes the call's counter value there after
 * the data, so a reader that polls the stamp has a small call's data with the line it
 * polled: one line from core to core, where a counter and the data are two. */
#define GDC_RT_SHM_RING_SLOTS      8
#define GDC_RT_SHM_RING_SLOT_BYTES 262144 /* of data */
#define GDC_RT_SHM_RING_STAMP      8      /* bytes before a slot's data */
#define GDC_RT_SHM_RING_STRIDE     (GDC_RT_SHM_RING_SLOT_BYTES + 64) /* slots one line apart */
#define GDC_RT_SHM_RING_BYTES      (GDC_RT_SHM_RING_SLOTS * GDC_RT_SHM_RING_STRIDE)
/* Where in a slot's data its first whole cache line starts: a slot's full 256 KiB from there.
 * A copy into a destination 8 bytes off a line runs at two thirds of the aligned one's
 * speed here (the stamp's line shared with the data is for small calls). */
#define GDC_RT_SHM_RING_ALIGNED    (64 - GDC_RT_SHM_RING_STAMP)

/* Where a segment's ring starts: after its data area, on a cache line. */
static inline size_t gdc_rt_shm_ring_offset(size_t data_bytes)
{
    return (data_bytes + 63) & ~(size_t)63;
}

/* Counters sit one cache line apart. */
#define GDC_RT_SHM_COUNTER_STRIDE 8 /* uint64_t */

/* Where a peer finds a segment: its owner's pid and descriptor, and a cookie the owner wrote
 * in it (a pid of another pid namespace, or a descriptor reused, opens something else). */
typedef struct gdc_rt_shm_locator {
    int32_t  pid; /* 0: the owner has no segment */
    int32_t  fd;
    uint64_t cookie;
} gdc_rt_shm_locator_t;

/* Create (map) my segment, labelled `label` in /proc/<pid>/maps; data_bytes from
 * GDC_SHM_SIZE. */
gdc_status_t gdc_rt_shm_create(gdc_rt_shm_t *shm, const char *label);
/* Where my segment is found, while its descriptor is open; pid 0 without one. */
gdc_rt_shm_locator_t gdc_rt_shm_locator(const gdc_rt_shm_t *shm);
/* Map the peers' segments (after they created theirs): local_ranks[i]'s is at where[i].
 * Returns GDC_SUCCESS or the failure (shm is then unusable). */
gdc_status_t gdc_rt_shm_attach(gdc_rt_shm_t *shm, int local_size, int local_index, const int *local_ranks,
                               const gdc_rt_shm_locator_t *where);
/* Everyone has attached: close my segment's descriptor (the mappings stay). */
void gdc_rt_shm_close_handle(gdc_rt_shm_t *shm);
void gdc_rt_shm_destroy(gdc_rt_shm_t *shm);

/* The data area and the counters of local rank i's segment (hot paths: inline). */
static inline void *gdc_rt_shm_data(const gdc_rt_shm_t *shm, int i)
{
    return shm->data[i];
}

/* The stamp of local rank i's ring slot of the call whose counters start after `base`. */
static inline volatile uint64_t *gdc_rt_shm_ring_stamp(const gdc_rt_shm_t *shm, int i, uint64_t base)
{
    return (volatile uint64_t *)(shm->data[i] + gdc_rt_shm_ring_offset(shm->data_bytes) +
                                 (size_t)(base % GDC_RT_SHM_RING_SLOTS) * GDC_RT_SHM_RING_STRIDE);
}

/* That slot's data. */
static inline void *gdc_rt_shm_ring_slot(const gdc_rt_shm_t *shm, int i, uint64_t base)
{
    return (char *)gdc_rt_shm_ring_stamp(shm, i, base) + GDC_RT_SHM_RING_STAMP;
}

static inline volatile uint64_t *gdc_rt_shm_counter(const gdc_rt_shm_t *shm, int i, int which)
{
    return shm->counters[i] + (size_t)which * GDC_RT_SHM_COUNTER_STRIDE;
}

/* Local rank i's progress word, a line after its counters: a call published in pieces
 * (bcast shm's fast path, engine/fast.h) raises it to (the call's value << 8) + the pieces
 * copied in so far, so that a reader copies each piece out while the next is copied in.
 * Call values only rise, so the word does; a later call's value says this call is whole
 * (its owner published it before it went on). */
#define GDC_RT_SHM_PROGRESS    GDC_RT_SHM_COUNTERS
#define GDC_RT_SHM_PIECE_SHIFT 8
static inline volatile uint64_t *gdc_rt_shm_progress(const gdc_rt_shm_t *shm, int i)
{
    return gdc_rt_shm_counter(shm, i, GDC_RT_SHM_PROGRESS);
}

static inline void gdc_rt_shm_raise(volatile uint64_t *counter, uint64_t value)
{
    __atomic_store_n(counter, value, __ATOMIC_RELEASE);
}

static inline uint64_t gdc_rt_shm_read(volatile uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

/* Has local rank i raised its counter `which` to value? Counters only rise, so a value
 * once read is kept: a wait for what a peer reached long ago (a ring slot's readers of K
 * calls back) reads no line of its segment, which its owner has likely written since. */
static inline int gdc_rt_shm_raised(const gdc_rt_shm_t *shm, int i, int which, uint64_t value)
{
    uint64_t *seen = &shm->seen[(size_t)i * GDC_RT_SHM_COUNTERS + (size_t)which];

    if (*seen >= value) {
        return 1;
    }
    *seen = gdc_rt_shm_read(gdc_rt_shm_counter(shm, i, which));
    return *seen >= value;
}

/* ... or has the counter reached value: raised, or DONE raised to value (after it). */
static inline int gdc_rt_shm_reached(const gdc_rt_shm_t *shm, int i, int which, uint64_t value)
{
    return gdc_rt_shm_raised(shm, i, which, value) ||
           (which != GDC_RT_SHM_DONE && gdc_rt_shm_raised(shm, i, GDC_RT_SHM_DONE, value));
}

/* Zero local rank i's ring stamps and progress word: segments reused with their counters
 * back at zero must not keep a stamp or progress a new call could take for its own. */
static inline void gdc_rt_shm_clear_stamps(const gdc_rt_shm_t *shm, int i)
{
    for (uint64_t s = 0; s < GDC_RT_SHM_RING_SLOTS; s++) {
        gdc_rt_shm_raise(gdc_rt_shm_ring_stamp(shm, i, s), 0);
    }
    gdc_rt_shm_raise(gdc_rt_shm_progress(shm, i), 0);
}

/* How a rank says it is done with a call whose last value is `value`: every counter of
 * mine counts as having reached it. A plain store: the ends of calls only rise, and no
 * signal of a call passes its end. */
static inline void gdc_rt_shm_finish(const gdc_rt_shm_t *shm, uint64_t value)
{
    gdc_rt_shm_raise(gdc_rt_shm_counter(shm, shm->local_index, GDC_RT_SHM_DONE), value);
}

/* Cross-memory attach into the peers' user buffers: at a call's start an owner publishes
 * its buffers in its segment (then raises a counter, which orders the two); a peer copies
 * from or into them (process_vm_readv / writev) until it says it is done, and the owner
 * does not return before that. */
enum { GDC_RT_SHM_USER_INPUT = 0, GDC_RT_SHM_USER_OUTPUT = 1 };
void gdc_rt_shm_publish_user(const gdc_rt_shm_t *shm, const void *input, void *output);
/* Copy length bytes between local and remote in process pid (rank `rank`, for the log) by
 * cross-memory attach, into the other's memory when into_peer: GDC_ERR_PEER_FAILED where
 * the process is gone, GDC_ERR_TRANSPORT, logged, where the kernel refuses. */
gdc_status_t gdc_rt_shm_cma_move(int pid, int rank, void *local, void *remote, size_t length, int into_peer);
/* Local rank local_index's words for its told messages (GDC_RT_SHM_TALES of them, in its
 * segment's header): while one holds a tale's mark, that tale stands (rt_msg.c). */
#define GDC_RT_SHM_TALES 256
volatile uint64_t *gdc_rt_shm_tale_words(const gdc_rt_shm_t *shm, int local_index);
/* ... and how many of its told messages it has withdrawn (their sends ended first). */
volatile uint64_t *gdc_rt_shm_tale_withdrawals(const gdc_rt_shm_t *shm, int local_index);
/* gdc_rt_shm_cma_move between local and offset of local rank peer's published buffer
 * `which`. */
gdc_status_t gdc_rt_shm_peer_copy(const gdc_rt_shm_t *shm, int peer, int which, size_t offset, void *local,
                                  size_t length, int into_peer);

/* Device buffers (shm->ipc): my input and output as CUDA IPC exports, for peers that map
 * them (gdc_rt_shm_peer_map); NULL ones publish nothing. An export that fails (memory with
 * no legacy IPC handle: cuMemCreate'd or pool memory) is published as its failure, which
 * a peer that maps it reports; near is a device buffer of mine (its context is used). */
void gdc_rt_shm_publish_user_ipc(const gdc_rt_shm_t *shm, const void *input, const void *output);
/* Local rank peer's published buffer `which` mapped into this process (through
 * shm->ipc_cache, in the context that owns near): *ptr is its first byte, valid until
 * gdc_rt_shm_peer_unmap(*entry). Logged and returned on failure. */
struct gdc_rt_cuda_ipc_entry;
gdc_status_t gdc_rt_shm_peer_map(const gdc_rt_shm_t *shm, int peer, int which, const void *near, void **ptr,
                                 struct gdc_rt_cuda_ipc_entry **entry);
void         gdc_rt_shm_peer_unmap(const gdc_rt_shm_t *shm, struct gdc_rt_cuda_ipc_entry *entry);
/* Local rank peer's published address of `which` (gdc_rt_shm_publish_user), as it is: in
 * this process only where the peer is this process (the simulator's ranks). */
void *gdc_rt_shm_peer_address(const gdc_rt_shm_t *shm, int peer, int which);

/* For tests (the simulator): n process-private segments seen by n ranks as their node's,
 * shms[i] being rank i's view. Free with gdc_rt_shm_free_private. */
gdc_status_t gdc_rt_shm_init_private(gdc_rt_shm_t *shms, int n, size_t data_bytes);
void gdc_rt_shm_free_private(gdc_rt_shm_t *shms, int n);

/* GDC_SHM_SIZE, validated at init. */
extern size_t gdc_rt_shm_bytes;

#endif
