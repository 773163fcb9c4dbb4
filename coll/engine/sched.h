/*
 * A schedule: one rank's part of one collective, as a small DAG of steps over buffer
 * regions. Builders append steps and dependencies; gdc_coll_sched_finish turns the edges
 * into successor lists. A finished schedule is immutable: the executor runs it, the
 * schedule cache keeps it, the simulator runs all ranks' schedules against each other and
 * the cost model walks it.
 */
#ifndef GDC_COLL_SCHED_H
#define GDC_COLL_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "rt_shm.h"

/* Where a region lives. INPUT is the user's send buffer, or the receive buffer when the
 * call is in place (they are then the same memory: builders must read a place of INPUT
 * before they write the same place of OUTPUT). SHM is this rank's shared memory with the
 * ranks on its node, PEER that of local rank `peer` (shared-memory algorithms only). */
typedef enum {
    GDC_COLL_INPUT = 0,
    GDC_COLL_OUTPUT,
    GDC_COLL_SCRATCH,
    GDC_COLL_NUM_BUFS, /* the buffers an executor is given; the shared ones it finds itself */
    GDC_COLL_SHM = GDC_COLL_NUM_BUFS,
    GDC_COLL_PEER,
    /* local rank `peer`'s INPUT and OUTPUT, reached by cross-memory attach (args->shm_cma):
     * only one side of a copy, and only after the peer has raised a counter in this call
     * (it publishes its buffers before its first step) and before it may return (it waits
     * for the copier to say it is done) */
    GDC_COLL_PEER_INPUT,
    GDC_COLL_PEER_OUTPUT
} gdc_coll_buf_t;

typedef struct gdc_coll_region {
    uint8_t  buf;    /* gdc_coll_buf_t */
    uint8_t  ring;   /* SHM, PEER: 0 in the segment's data area, k + 1 in the ring slot of the
                        call's counter value k + 1 (gdc_rt_shm_ring_slot of the call's base + k) */
    uint16_t peer;   /* PEER: the local rank whose shared memory it is */
    size_t   offset; /* bytes */
    size_t   length; /* bytes */
} gdc_coll_region_t;

typedef enum {
    GDC_COLL_STEP_SEND = 0, /* a -> peer */
    GDC_COLL_STEP_RECV,     /* peer -> a */
    GDC_COLL_STEP_REDUCE,   /* a = b OP c */
    GDC_COLL_STEP_COPY,     /* a = b */
    GDC_COLL_STEP_AVG,      /* a = a / communicator size (GDC_AVG's last step) */
    GDC_COLL_STEP_NOP,      /* nothing: joins several dependencies into one */
    GDC_COLL_STEP_SIGNAL,   /* raise my shared-memory counter `counter` to `slot` */
    GDC_COLL_STEP_WAIT,     /* until local rank `peer`'s counter `counter` reaches `slot` */
    GDC_COLL_STEP_REDUCE_ALL /* a = every local rank's INPUT at b's offset reduced in rank order, AVG's
                                division included; with slot 1, every local rank's OUTPUT at a's
                                offset too (device buffers one node: peers addressed directly) */
} gdc_coll_step_kind_t;

typedef struct gdc_coll_step {
    uint8_t           kind;
    uint8_t           counter;    /* signal/wait: which shared-memory counter */
    int32_t           peer;       /* send/recv: rank in the communicator; wait: local rank */
    uint32_t          slot;       /* send/recv: number of the message between this pair;
                                     signal/wait: counter value, counted from the call's start */
    uint32_t          msg;        /* send/recv: index among the schedule's messages; wait: how many
                                     counter values before the call's start `slot` counts from
                                     (a ring's depth: what a ring slot's last readers reached) */
    uint32_t          deps;       /* steps that must complete before this one starts */
    uint32_t          succ_first; /* successors: succ[succ_first .. succ_first+succ_count) */
    uint32_t          succ_count;
    gdc_coll_region_t a, b, c;
} gdc_coll_step_t;

typedef struct gdc_coll_edge {
    uint32_t from, to;
} gdc_coll_edge_t;

typedef struct gdc_coll_sched {
    const gdc_coll_algo_t *algo;
    gdc_coll_args_t        args;       /* the call it was built for (pointers not kept) */
    gdc_coll_step_t       *steps;
    uint32_t               num_steps;
    uint32_t               cap_steps;
    gdc_coll_edge_t       *edges;      /* while building */
    uint32_t               num_edges;
    uint32_t               cap_edges;
    uint32_t              *succ;       /* after finish */
    uint32_t               num_msgs;   /* send + recv steps */
    size_t                 scratch_bytes;
    uint32_t               shm_epochs; /* counter values the call uses (shared memory) */
    int                    peer_user;  /* copies from or into peers' buffers (GDC_COLL_PEER_INPUT...), or
                                          lets them copy from or into mine: publishes them at the start */
    int                    gpu_queue;  /* device steps queued on gdc's stream, waited for once per hand-off
                                          (the ipc_leader algorithms; GDC_DEVICE_QUEUE for the others) */
    int                    last_signal[GDC_RT_SHM_COUNTERS]; /* per counter, while building: signals go in order */
    int                   *last_wait;      /* [GDC_RT_SHM_COUNTERS * size] per counter and peer, while building */
    gdc_status_t           status;     /* first error while building */
} gdc_coll_sched_t;

/* A new empty schedule for args built by algo; NULL when out of memory. */
gdc_coll_sched_t *gdc_coll_sched_new(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args);
/* Build it with algo (new + build + finish); *out set only on success. */
gdc_status_t gdc_coll_sched_build(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                                  gdc_coll_sched_t **out);
gdc_status_t gdc_coll_sched_finish(gdc_coll_sched_t *sched);
void gdc_coll_sched_free(gdc_coll_sched_t *sched);

/* Regions, in elements of the call's dtype. */
static inline gdc_coll_region_t gdc_coll_rgn(const gdc_coll_sched_t *sched, gdc_coll_buf_t buf,
                                             size_t offset, size_t count)
{
    gdc_coll_region_t r = {(uint8_t)buf, 0, 0, offset * sched->args.dsize, count * sched->args.dsize};
    return r;
}

/* In bytes (alltoall-type layouts, byte-sized scratch). */
static inline gdc_coll_region_t gdc_coll_rgn_bytes(gdc_coll_buf_t buf, size_t offset, size_t length)
{
    gdc_coll_region_t r = {(uint8_t)buf, 0, 0, offset, length};
    return r;
}

/* In local rank peer's shared memory (or mine: peer = my local index gives SHM), bytes. */
static inline gdc_coll_region_t gdc_coll_rgn_shm(int peer, int me, size_t offset, size_t length)
{
    gdc_coll_region_t r = {(uint8_t)(peer == me ? GDC_COLL_SHM : GDC_COLL_PEER), 0, (uint16_t)peer, offset, length};
    return r;
}

/* Local rank peer's INPUT or OUTPUT (GDC_COLL_PEER_INPUT / _OUTPUT), bytes. */
static inline gdc_coll_region_t gdc_coll_rgn_peer_user(gdc_coll_buf_t buf, int peer, size_t offset, size_t length)
{
    gdc_coll_region_t r = {(uint8_t)buf, 0, (uint16_t)peer, offset, length};
    return r;
}

static inline int gdc_coll_rgn_is_peer_user(const gdc_coll_region_t *r)
{
    return r->buf == GDC_COLL_PEER_INPUT || r->buf == GDC_COLL_PEER_OUTPUT;
}

/* The same in peer's ring slot of the call's counter value k + 1 (bytes; k 0: the call's
 * slot, which a call of one chunk publishes in). */
static inline gdc_coll_region_t gdc_coll_rgn_ring(int peer, int me, size_t k, size_t offset, size_t length)
{
    gdc_coll_region_t r = gdc_coll_rgn_shm(peer, me, offset, length);

    r.ring = (uint8_t)(1 + k % GDC_RT_SHM_RING_SLOTS);
    return r;
}

/* Append a step; each returns its index, or -1 when out of memory (then the schedule's
 * status says so and finish fails). A dependency argument < 0 means none. */
int gdc_coll_send(gdc_coll_sched_t *sched, int peer, uint32_t slot, gdc_coll_region_t src, int dep);
int gdc_coll_recv(gdc_coll_sched_t *sched, int peer, uint32_t slot, gdc_coll_region_t dst, int dep);
int gdc_coll_reduce(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t a,
                    gdc_coll_region_t b, int dep);
int gdc_coll_copy(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t src, int dep);
int gdc_coll_avg(gdc_coll_sched_t *sched, gdc_coll_region_t region, int dep);
/* dst = the reduction of every local rank's input at src's offset (src: a region of my
 * INPUT), in rank order, AVG's division included; to_every: into every local rank's OUTPUT
 * at dst's offset (dst a region of my OUTPUT) too. */
int gdc_coll_reduce_all(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t src, int to_every, int dep);
/* A step that completes when deps[0..n) have (entries < 0 skipped). */
int gdc_coll_join(gdc_coll_sched_t *sched, const int *deps, int n);
/* Shared memory: raise my counter to value; wait until local rank peer's reaches value
 * (values count from 1 within a call; 0 is "everything of the calls before"). */
int gdc_coll_signal(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep);
int gdc_coll_wait(gdc_coll_sched_t *sched, int peer, int counter, uint32_t value, int dep);
/* The same, value counted from `back` values before the call's start (met at once when
 * the calls before did not reach that far). */
int gdc_coll_wait_back(gdc_coll_sched_t *sched, int peer, int counter, uint32_t value, uint32_t back, int dep);

/* Peers copy from or into my buffers in this call (by cross-memory attach): the executor
 * publishes them before the first step. A builder whose own steps name a peer's buffer
 * need not say so. */
void gdc_coll_share_user(gdc_coll_sched_t *sched);

/* step waits for dep as well (either < 0: nothing). */
void gdc_coll_after(gdc_coll_sched_t *sched, int step, int dep);

/* Make sure the scratch buffer has at least bytes. */
void gdc_coll_scratch(gdc_coll_sched_t *sched, size_t bytes);

/* The algorithm-independent cases every builder shares: size 1 (copy input to output when
 * not in place, and the AVG step) and count 0 (nothing). Returns 1 when it built the
 * schedule, 0 when the algorithm must. */
int gdc_coll_build_trivial(gdc_coll_sched_t *sched, const gdc_coll_args_t *args);

const char *gdc_coll_step_kind_name(gdc_coll_step_kind_t kind);

#endif
