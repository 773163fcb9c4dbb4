/*
 * Blocking calls: the chosen algorithm's fast path when it has one for the call (small
 * calls inside a node, see fast.h), else a run started and waited for. Fast paths wait
 * through gdc_rt_spin_wait: stalls, GDC_TIMEOUT and dead peers are reported as for any
 * request.
 */
#include <stdio.h>
#include <string.h>

#include "engine/check.h"
#include "engine/engine.h"
#include "engine/fast.h"
#include "engine/run.h"

typedef struct spin_waiter {
    struct gdc_comm            *comm;
    const gdc_coll_algo_t      *algo;
    uint32_t                    seq;
    const gdc_coll_fast_t      *fast;
    const gdc_coll_fast_want_t *want;
    int                         next; /* the peer not there yet */
    unsigned                    polls;
} spin_waiter_t;

static int reached(spin_waiter_t *w, int p)
{
    return gdc_coll_fast_reached(w->fast, p, w->want, w->polls++);
}

static int spin_ready(void *arg)
{
    spin_waiter_t      *w   = arg;
    const gdc_rt_shm_t *shm = w->fast->shm;

    if (w->want->peer >= 0) {
        return reached(w, w->want->peer);
    }
    for (; w->next < shm->local_size; w->next++) {
        if (w->next != shm->local_index && !reached(w, w->next)) {
            return 0;
        }
    }
    return 1;
}

static int spin_peer(void *arg)
{
    spin_waiter_t      *w   = arg;
    const gdc_rt_shm_t *shm = w->fast->shm;
    int                 p   = w->want->peer >= 0 ? w->want->peer : w->next;

    return gdc_rt_comm_world_rank(w->comm, shm->local_ranks[p < shm->local_size ? p : 0]);
}

static void spin_describe(void *arg, char *buf, size_t len)
{
    spin_waiter_t *w = arg;

    snprintf(buf, len, "%s(%s) seq %u: rank %d waits for rank %d's shared-memory signal",
             gdc_coll_type_name(w->algo->coll), w->algo->name, w->seq, gdc_rt_boot.rank, spin_peer(arg));
}

static gdc_status_t spin_wait(const gdc_coll_fast_t *fast, const gdc_coll_fast_want_t *want)
{
    spin_waiter_t *w    = fast->waiter;
    gdc_rt_spin_t  spin = {spin_ready, spin_describe, spin_peer, w, w->comm};

    w->want  = want;
    w->next  = 0;
    w->polls = 0;
    return spin_ready(w) ? GDC_SUCCESS : gdc_rt_spin_wait(&spin);
}

/* Run the call on algo's fast path; 0 when it has none for the call. */
static int run_fast(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_algo_t *algo,
                    const gdc_coll_buffers_t *bufs, gdc_status_t *status)
{
    gdc_rt_shm_t   *shm = comm->shm;
    spin_waiter_t   waiter;
    gdc_coll_fast_t fast = {shm, shm->epoch, spin_wait, &waiter};

    memset(&waiter, 0, sizeof(waiter));
    waiter.comm = comm;
    waiter.algo = algo;
    waiter.seq  = comm->coll_seq;
    waiter.fast = &fast;
    if (!algo->run_blocking(&fast, args, bufs, status)) {
        return 0;
    }
    comm->coll_seq++;
    shm->epoch += 1; /* the one counter value of every fast path */
    if (*status == GDC_SUCCESS) {
        gdc_coll_fast_finish(&fast);
    }
    return 1;
}

/* A blocking call that a fast path could take: host buffers on a communicator with shared
 * memory and no shared-memory run in flight (which the fast path would overtake). */
static int fast_path_may_run(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs)
{
    gdc_coll_comm_t *cc = comm->coll;

    return comm->shm != NULL && cc->shm_running == NULL && args->coll != GDC_COLL_ALLTOALLV &&
           !gdc_coll_is_empty(args) && gdc_rt_memtype_of(bufs->input) != GDC_RT_MEM_CUDA &&
           gdc_rt_memtype_of(bufs->output) != GDC_RT_MEM_CUDA;
}

gdc_status_t gdc_coll_run_blocking_unchecked(struct gdc_comm *comm, const gdc_coll_args_t *call,
                                             const gdc_coll_buffers_t *bufs)
{
    gdc_coll_comm_t    *cc = comm->coll;
    struct gdc_request *req;
    gdc_status_t        status;

    if (fast_path_may_run(comm, call, bufs)) {
        gdc_coll_args_t        args = *call;
        const gdc_coll_algo_t *algo;

        if ((status = gdc_coll_comm_usable(comm)) != GDC_SUCCESS) {
            return status;
        }
        args.on_device = 0;
        algo           = gdc_coll_cache_algo(&cc->cache, &args);
        if (algo != NULL && algo->run_blocking != NULL && run_fast(comm, &args, algo, bufs, &status)) {
            return status;
        }
    }
    status = gdc_coll_start_unchecked(comm, call, bufs, &req);
    return status == GDC_SUCCESS ? gdc_rt_request_finish(req) : status;
}

gdc_status_t gdc_coll_run_blocking(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs)
{
    if (gdc_coll_check_on(args)) {
        gdc_coll_args_t signed_args = *args;
        gdc_status_t    status;

        signed_args.on_device = gdc_coll_buffers_on_device(bufs);
        status                = gdc_coll_check_blocking(comm, &signed_args, 0);
        if (status != GDC_SUCCESS) {
            return status;
        }
        if (gdc_coll_is_empty(args)) {
            comm->coll_seq++; /* its number, as a nonblocking checked call takes it */
            return GDC_SUCCESS;
        }
    }
    return gdc_coll_run_blocking_unchecked(comm, args, bufs);
}

void gdc_coll_rejected(struct gdc_comm *comm, const gdc_coll_args_t *args)
{
    if (gdc_coll_check_on(args)) {
        (void)gdc_coll_check_blocking(comm, args, 1); /* the caller returns its own error */
    }
}
