/*
 * Fast paths for small blocking calls inside a node. A blocking allreduce of a few bytes
 * spends most of its time in the executor's bookkeeping, not in the one cache-line hop it
 * needs; for the shapes below (the schedules allreduce shm_direct, barrier shm, and bcast,
 * allgather and alltoall shm of one chunk) this file runs the same protocol straight: the same segment offsets,
 * counters and values, so a rank that takes the fast path and a rank that runs the
 * schedule (because it has a nonblocking shared-memory call in flight) work together.
 * Waiting goes through gdc_rt_spin_wait: stalls, GDC_TIMEOUT and dead peers are handled
 * as for any request.
 */
#include "engine/blocking.h"

#include <stdio.h>
#include <string.h>

#include "builder.h"
#include "gdc_rt.h"
#include "kernels/reduce.h"
#include "rt_shm.h"
#include "phase/shm.h"

typedef struct fast_wait {
    struct gdc_comm       *comm;
    const gdc_rt_shm_t    *shm;
    const gdc_coll_algo_t *algo;
    int                    counter;
    uint64_t               target;
    int                    only;  /* one peer (bcast's root), or -1: every other rank */
    int                    next;  /* the peer not there yet */
    uint32_t               seq;
} fast_wait_t;

static int reached(const fast_wait_t *w, int p)
{
    return gdc_rt_shm_read(gdc_rt_shm_counter(w->shm, p, w->counter)) >= w->target;
}

static int fast_ready(void *arg)
{
    fast_wait_t *w = arg;

    if (w->only >= 0) {
        return reached(w, w->only);
    }
    for (; w->next < w->shm->local_size; w->next++) {
        if (w->next != w->shm->local_index && !reached(w, w->next)) {
            return 0;
        }
    }
    return 1;
}

static int fast_peer(void *arg)
{
    fast_wait_t *w = arg;
    int          p = w->only >= 0 ? w->only : w->next;

    return gdc_rt_comm_world_rank(w->comm, w->shm->local_ranks[p < w->shm->local_size ? p : 0]);
}

static void fast_describe(void *arg, char *buf, size_t len)
{
    fast_wait_t *w = arg;

    snprintf(buf, len, "%s(%s) seq %u: rank %d waits for rank %d's shared-memory signal",
             gdc_coll_type_name(w->algo->coll), w->algo->name, w->seq, gdc_rt_boot.rank, fast_peer(arg));
}

static int wait_for(fast_wait_t *w, int counter, uint64_t target, int only)
{
    gdc_rt_spin_t spin = {fast_ready, fast_describe, fast_peer, w};

    w->counter = counter;
    w->target  = target;
    w->only    = only;
    w->next    = 0;
    return fast_ready(w) ? GDC_SUCCESS : gdc_rt_spin_wait(&spin);
}

/* The end of a shared-memory call, as the executor does it: every counter to the last value. */
static void finish(const gdc_rt_shm_t *shm, uint64_t end)
{
    for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
        volatile uint64_t *counter = gdc_rt_shm_counter(shm, shm->local_index, c);
        if (gdc_rt_shm_read(counter) < end) {
            gdc_rt_shm_raise(counter, end);
        }
    }
}

/* allreduce shm_direct: publish the vector, wait for everyone's, reduce in rank order. */
static int allreduce(fast_wait_t *w, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, uint64_t base)
{
    const gdc_rt_shm_t *shm   = w->shm;
    int                 me    = shm->local_index, n = shm->local_size, status;
    size_t              bytes = args->count * args->dsize;

    if ((status = wait_for(w, GDC_COLL_SHM_DONE, base, -1)) != GDC_SUCCESS) {
        return status;
    }
    memcpy(gdc_rt_shm_data(shm, me), bufs->input, bytes);
    gdc_rt_shm_raise(gdc_rt_shm_counter(shm, me, GDC_COLL_SHM_COPIED), base + 1);
    if ((status = wait_for(w, GDC_COLL_SHM_COPIED, base + 1, -1)) != GDC_SUCCESS) {
        return status;
    }
    gdc_coll_reduce_host(bufs->output, gdc_rt_shm_data(shm, 0), gdc_rt_shm_data(shm, 1), args->count, args->dtype,
                         args->op);
    for (int p = 2; p < n; p++) {
        gdc_coll_reduce_host(bufs->output, bufs->output, gdc_rt_shm_data(shm, p), args->count, args->dtype, args->op);
    }
    if (args->op == GDC_AVG) {
        gdc_coll_avg_finish_host(bufs->output, args->count, args->dtype, args->size);
    }
    return GDC_SUCCESS;
}

/* barrier shm: raise, wait for everyone. */
static int barrier(fast_wait_t *w, uint64_t base)
{
    gdc_rt_shm_raise(gdc_rt_shm_counter(w->shm, w->shm->local_index, GDC_COLL_SHM_COPIED), base + 1);
    return wait_for(w, GDC_COLL_SHM_COPIED, base + 1, -1);
}

/* bcast shm of one chunk: the root publishes once its readers are done with the last call. */
static int bcast(fast_wait_t *w, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, uint64_t base)
{
    const gdc_rt_shm_t *shm   = w->shm;
    int                 me    = shm->local_index, root = args->root, status;
    size_t              bytes = args->count * args->dsize;

    if (me == root) {
        if ((status = wait_for(w, GDC_COLL_SHM_DONE, base, -1)) != GDC_SUCCESS) {
            return status;
        }
        memcpy(gdc_rt_shm_data(shm, me), bufs->output, bytes);
        gdc_rt_shm_raise(gdc_rt_shm_counter(shm, me, GDC_COLL_SHM_COPIED), base + 1);
        return GDC_SUCCESS;
    }
    if ((status = wait_for(w, GDC_COLL_SHM_COPIED, base + 1, root)) != GDC_SUCCESS) {
        return status;
    }
    memcpy(bufs->output, gdc_rt_shm_data(shm, root), bytes);
    return GDC_SUCCESS;
}

/* Copy, from every other rank's segment at `at(p)`, one block into my output at `to(p)`,
 * each once that rank's COPIED says it is there. */
typedef size_t (*fast_place_t)(const gdc_coll_args_t *args, int p);

static int collect(fast_wait_t *w, const gdc_coll_args_t *args, void *output, uint64_t base, fast_place_t from,
                   fast_place_t to)
{
    const gdc_rt_shm_t *shm   = w->shm;
    size_t              bytes = args->count * args->dsize;
    int                 status;

    for (int p = 0; p < shm->local_size; p++) {
        if (p == shm->local_index) {
            continue;
        }
        if ((status = wait_for(w, GDC_COLL_SHM_COPIED, base + 1, p)) != GDC_SUCCESS) {
            return status;
        }
        memcpy((char *)output + to(args, p), (char *)gdc_rt_shm_data(shm, p) + from(args, p), bytes);
    }
    return GDC_SUCCESS;
}

static size_t slot_start(const gdc_coll_args_t *args, int p)
{
    return 0;
}

static size_t block_of(const gdc_coll_args_t *args, int p)
{
    return args->count * args->dsize * (size_t)p;
}

/* alltoall's segment holds my block for p at p * chunk */
static size_t a2a_slot_for_me(const gdc_coll_args_t *args, int p)
{
    return gdc_coll_shm_chunk_elems(args, (size_t)args->size) * args->dsize * (size_t)args->rank;
}

/* allgather shm of one chunk: my block in my segment, everyone's out of theirs. */
static int allgather(fast_wait_t *w, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, uint64_t base)
{
    const gdc_rt_shm_t *shm   = w->shm;
    int                 me    = shm->local_index, status;
    size_t              bytes = args->count * args->dsize;

    if (!args->in_place) {
        memcpy((char *)bufs->output + block_of(args, me), bufs->input, bytes);
    }
    if ((status = wait_for(w, GDC_COLL_SHM_DONE, base, -1)) != GDC_SUCCESS) {
        return status;
    }
    memcpy(gdc_rt_shm_data(shm, me), bufs->input, bytes);
    gdc_rt_shm_raise(gdc_rt_shm_counter(shm, me, GDC_COLL_SHM_COPIED), base + 1);
    return collect(w, args, bufs->output, base, slot_start, block_of);
}

/* alltoall shm of one chunk: my block for p in my segment at p's place, mine out of theirs
 * (in place, every block goes into my segment before any place is overwritten). */
static int alltoall(fast_wait_t *w, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, uint64_t base)
{
    const gdc_rt_shm_t *shm   = w->shm;
    int                 me    = shm->local_index, status;
    size_t              bytes = args->count * args->dsize;
    size_t              chunk = gdc_coll_shm_chunk_elems(args, (size_t)args->size) * args->dsize;

    if (!args->in_place) {
        memcpy((char *)bufs->output + block_of(args, me), (const char *)bufs->input + block_of(args, me), bytes);
    }
    if ((status = wait_for(w, GDC_COLL_SHM_DONE, base, -1)) != GDC_SUCCESS) {
        return status;
    }
    for (int p = 0; p < shm->local_size; p++) {
        if (p != me) {
            memcpy((char *)gdc_rt_shm_data(shm, me) + chunk * (size_t)p, (const char *)bufs->input + block_of(args, p),
                   bytes);
        }
    }
    gdc_rt_shm_raise(gdc_rt_shm_counter(shm, me, GDC_COLL_SHM_COPIED), base + 1);
    return collect(w, args, bufs->output, base, a2a_slot_for_me, block_of);
}

/* The shapes this file runs; the local index of a rank is its rank on a one-node call. */
static int fast_shape(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    if (algo->build == gdc_coll_allreduce_shm_direct || algo->build == gdc_coll_barrier_shm) {
        return 1;
    }
    if (algo->build == gdc_coll_bcast_shm || algo->build == gdc_coll_allgather_shm) {
        return args->count <= gdc_coll_shm_chunk_elems(args, 1);
    }
    return algo->build == gdc_coll_alltoall_shm && args->count <= gdc_coll_shm_chunk_elems(args, (size_t)args->size);
}

int gdc_coll_fast_run(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_algo_t *algo,
                      const gdc_coll_buffers_t *bufs, int *status)
{
    gdc_rt_shm_t *shm = comm->shm;
    fast_wait_t   w;
    uint64_t      base;

    if (shm == NULL || args->on_device || !fast_shape(algo, args)) {
        return 0;
    }
    base = shm->epoch;
    shm->epoch += 1; /* the schedule's shm_epochs: each of these shapes uses one value */
    memset(&w, 0, sizeof(w));
    w.comm = comm;
    w.shm  = shm;
    w.algo = algo;
    w.seq  = comm->coll_seq++;
    switch (args->coll) {
    case GDC_COLL_ALLREDUCE: *status = allreduce(&w, args, bufs, base); break;
    case GDC_COLL_BARRIER: *status = barrier(&w, base); break;
    case GDC_COLL_BCAST: *status = bcast(&w, args, bufs, base); break;
    case GDC_COLL_ALLGATHER: *status = allgather(&w, args, bufs, base); break;
    default: *status = alltoall(&w, args, bufs, base); break;
    }
    if (*status == GDC_SUCCESS) {
        finish(shm, base + 1);
    }
    return 1;
}
