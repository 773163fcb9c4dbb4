#include "rt_request.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_boot.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_log.h"
#include "rt_ucx.h"

/* Rounds of polling a local-only request alone between two rounds of the whole engine. */
#define GDC_RT_POLL_ALONE 16
/* Idle this long (seconds) and a yielding wait starts to sleep between polls. */
#define GDC_RT_IDLE_SLEEP_AFTER 0.002
#define GDC_RT_IDLE_SLEEP_NS    50000
/* Progress rounds with UCX events between two readings of tales nobody tests (rt_msg.h). */
#define GDC_RT_HEARD_BUSY 64

static struct gdc_request *outstanding;
static struct gdc_request *free_list;
static int (*coll_progress_hook)(void);
static int      yield_when_idle;
static double   next_watch;
static unsigned busy_rounds;

void gdc_rt_progress_set_hook(int (*hook)(void))
{
    coll_progress_hook = hook;
}

/* Cores this process may run on (its affinity mask). */
static int usable_cores(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return 1;
    }
    return CPU_COUNT(&set);
}

void gdc_rt_progress_init(int local_size)
{
    int cores = usable_cores();

    switch (gdc_rt_config.yield) {
    case GDC_RT_YIELD_ALWAYS: yield_when_idle = 1; break;
    case GDC_RT_YIELD_NEVER: yield_when_idle = 0; break;
    case GDC_RT_YIELD_AUTO:
        /* Bound to one core each (or fewer cores than ranks): spinning steals the core
         * from the peer we wait for. */
        yield_when_idle = local_size > cores || (cores == 1 && local_size > 1);
        break;
    }
    GDC_LOG_DEBUG("progress: %d local rank(s), %d usable core(s): %s while waiting", local_size,
                  cores, yield_when_idle ? "yield" : "spin");
    next_watch = 0;
}

struct gdc_request *gdc_rt_request_new(const gdc_rt_request_ops_t *ops)
{
    struct gdc_request *req = free_list;

    if (req != NULL) {
        free_list = req->next;
    } else {
        req = malloc(sizeof(*req));
        if (req == NULL) {
            return NULL;
        }
    }
    memset(req, 0, sizeof(*req));
    req->magic         = GDC_RT_REQUEST_MAGIC;
    req->ops           = ops;
    req->last_progress = 0;
    req->next          = outstanding;
    if (outstanding != NULL) {
        outstanding->prev = req;
    }
    outstanding = req;
    return req;
}

static void unlink_request(struct gdc_request *req)
{
    if (req->prev != NULL) {
        req->prev->next = req->next;
    } else {
        outstanding = req->next;
    }
    if (req->next != NULL) {
        req->next->prev = req->prev;
    }
}

void gdc_rt_request_free(struct gdc_request *req)
{
    if (req->ops->release != NULL) {
        req->ops->release(req);
    }
    unlink_request(req);
    req->magic = 0;
    req->next  = free_list;
    free_list  = req;
}

void gdc_rt_request_touch(struct gdc_request *req)
{
    /* no clock read on the hot path: the watcher, a few times a second, takes "now" */
    req->last_progress  = 0;
    req->stall.interval = 0;
}

int gdc_rt_request_valid(const struct gdc_request *req)
{
    return req != NULL && req->magic == GDC_RT_REQUEST_MAGIC;
}

static void describe(void *arg, char *buf, size_t len)
{
    struct gdc_request *req = arg;

    if (req->ops->describe != NULL) {
        req->ops->describe(req, buf, len);
    } else {
        snprintf(buf, len, "%s", req->ops->name);
    }
}

gdc_status_t gdc_rt_stall_check(gdc_rt_stall_t *stall, double now, double idle,
                                void (*say_what)(void *arg, char *buf, size_t len), void *arg)
{
    char what[256];

    if (gdc_rt_config.timeout > 0 && idle >= gdc_rt_config.timeout) {
        say_what(arg, what, sizeof(what));
        GDC_LOG_ERROR("%s for %.0f s: giving up with GDC_ERR_TIMEOUT (GDC_TIMEOUT=%g)", what, idle,
                      gdc_rt_config.timeout);
        return GDC_ERR_TIMEOUT;
    }
    if (gdc_rt_config.stall_warn <= 0) {
        return GDC_SUCCESS;
    }
    if (stall->interval == 0) {
        stall->interval  = gdc_rt_config.stall_warn;
        stall->next_warn = now - idle + gdc_rt_config.stall_warn;
    }
    if (now >= stall->next_warn) {
        say_what(arg, what, sizeof(what));
        GDC_LOG_WARN("%s for %.0f s", what, idle);
        stall->interval *= 2;
        stall->next_warn = now + stall->interval;
    }
    return GDC_SUCCESS;
}

/* Stall warnings and timeouts of one request. */
static void watch(struct gdc_request *req, double now)
{
    if (!req->completed && req->ops->progress != NULL) {
        req->ops->progress(req); /* done already (a tale read this round, say): no timeout */
    }
    if (req->completed) {
        return;
    }
    if (req->last_progress == 0) {
        req->last_progress = now; /* it moved since the last look */
        return;
    }
    if (gdc_rt_stall_check(&req->stall, now, now - req->last_progress, describe, req) != GDC_SUCCESS) {
        req->ops->abort(req, GDC_ERR_TIMEOUT);
    }
}

/* A request that needs every rank of its communicator, one of which has failed: its wait
 * may be for a live rank that waits in turn for the failed one, for ever. While it stalls
 * (nothing moved since the last watch), one more of its ranks is looked at each time. */
static int lost_a_rank(struct gdc_request *req)
{
    int failed;

    if (req->completed || !req->whole_comm) {
        return 0;
    }
    if (req->last_progress != 0) {
        gdc_rt_comm_watch_member(req->comm);
    }
    if ((failed = gdc_rt_comm_failed_member(req->comm)) < 0) {
        return 0;
    }
    GDC_LOG_DEBUG("%s on a communicator with rank %d failed: GDC_ERR_PEER_FAILED", req->ops->name, failed);
    req->ops->abort(req, GDC_ERR_PEER_FAILED);
    return 1;
}

static void watch_outstanding(void)
{
    double coarse = gdc_rt_coarse_time(), now;

    if (coarse < next_watch) {
        return;
    }
    now        = gdc_wtime();
    next_watch = coarse + GDC_RT_WATCH_INTERVAL;
    /* the peers pending messages wait on, checked for life at every watch: a peer of this
     * host is known dead by its pid alone (UCX's shared memory sees it at its next
     * keepalive, 20 s later), and a failure travels from rank to rank as each one fails on
     * its peer and exits, a watch interval per link */
    gdc_rt_msg_pending_watch_peers();
    for (struct gdc_request *req = outstanding; req != NULL;) {
        struct gdc_request *next = req->next; /* abort may complete it, never unlink it */
        if (!lost_a_rank(req)) {
            watch(req, now);
        }
        req = next;
    }
}

static void check_failure_reports(void)
{
    int failed = gdc_rt_boot_failed_rank();

    if (failed >= 0 && !gdc_rt_ucx_peer_failed(failed)) {
        gdc_rt_ucx_fail_peer(failed, "the launcher reports it terminated");
    }
}

int gdc_rt_progress(void)
{
    int moved = 0;

    while (gdc_rt_ucx_worker_progress() != 0) {
        moved = 1;
    }
    check_failure_reports();
    /* tales that came to receives nobody tests now: read where UCX had nothing to do (read
     * in every round, they cost bibw 10 to 20%), and once in GDC_RT_HEARD_BUSY busy rounds,
     * so that steady traffic cannot hold a waiting sender back */
    if (!moved || ++busy_rounds % GDC_RT_HEARD_BUSY == 0) {
        moved |= gdc_rt_msg_read_heard();
    }
    if (coll_progress_hook != NULL) {
        moved |= coll_progress_hook();
    }
    watch_outstanding();
    return moved;
}

/* An idle round of a wait that yields (GDC_YIELD): give the core away, and once idle for a
 * while sleep between polls. *idle_since is 0 until the wait goes idle (a busy wait reads
 * no clock for it; a yielding one can afford the precise clock beside sched_yield). */
static void idle_pause(double *idle_since)
{
    struct timespec pause = {0, GDC_RT_IDLE_SLEEP_NS};

    if (!yield_when_idle) {
        return;
    }
    if (*idle_since == 0) {
        *idle_since = gdc_wtime();
    }
    if (gdc_wtime() - *idle_since > GDC_RT_IDLE_SLEEP_AFTER) {
        nanosleep(&pause, NULL);
    } else {
        sched_yield();
    }
}

static int advance(struct gdc_request *req)
{
    int moved = gdc_rt_progress();

    if (!req->completed && req->ops->progress != NULL) {
        moved |= req->ops->progress(req);
    }
    return moved;
}

gdc_status_t gdc_rt_request_wait(struct gdc_request *req)
{
    double   idle_since = 0;
    unsigned round      = 0;

    while (!req->completed) {
        /* a shared-memory wait is a load away: poll it alone most of the time (UCX, the
         * other requests and the watcher still get a round every GDC_RT_POLL_ALONE) */
        if (req->poll_alone && ++round % GDC_RT_POLL_ALONE != 0) {
            if (req->ops->progress(req)) {
                idle_since = 0;
            }
            continue;
        }
        if (advance(req)) {
            idle_since = 0;
            continue;
        }
        idle_pause(&idle_since);
    }
    return req->status;
}

void gdc_rt_request_cancel(struct gdc_request *req, gdc_status_t status)
{
    if (!req->completed) {
        req->ops->abort(req, status);
    }
    gdc_rt_request_free(req);
}

/* Spins between two looks at the clock (stalls, timeouts, the peer's life). */
#define GDC_RT_SPIN_CLOCK 1024

gdc_status_t gdc_rt_spin_wait(const gdc_rt_spin_t *spin)
{
    double         start = 0, idle_since = 0;
    unsigned       round = 0, checks = 0;
    gdc_rt_stall_t stall = {0, 0};

    while (!spin->ready(spin->arg)) {
        double       now;
        int          peer;
        gdc_status_t status;

        if (++round % GDC_RT_POLL_ALONE != 0) {
            continue;
        }
        if (gdc_rt_progress()) {
            idle_since = 0;
        } else {
            idle_pause(&idle_since);
        }
        if (round % GDC_RT_SPIN_CLOCK != 0) {
            continue;
        }
        now  = gdc_wtime();
        peer = spin->peer(spin->arg);
        if (start == 0) {
            start = now;
        }
        if (++checks % 16 == 0) {
            gdc_rt_ucx_watch_peer(peer, checks);
            if (spin->comm != NULL) {
                gdc_rt_comm_watch_member(spin->comm);
            }
        }
        if (gdc_rt_ucx_peer_failed(peer) || (spin->comm != NULL && gdc_rt_comm_failed_member(spin->comm) >= 0)) {
            return GDC_ERR_PEER_FAILED;
        }
        if ((status = gdc_rt_stall_check(&stall, now, now - start, spin->describe, spin->arg)) != GDC_SUCCESS) {
            return status;
        }
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_request_finish(struct gdc_request *req)
{
    gdc_status_t status = gdc_rt_request_wait(req);

    gdc_rt_request_free(req);
    return status;
}

int gdc_rt_request_test(struct gdc_request *req)
{
    if (!req->completed) {
        advance(req);
    }
    return req->completed;
}

void gdc_rt_request_abort_all(gdc_status_t status)
{
    for (struct gdc_request *req = outstanding; req != NULL; req = req->next) {
        if (!req->completed) {
            req->ops->abort(req, status);
        }
    }
    while (outstanding != NULL) {
        gdc_rt_request_free(outstanding);
    }
    while (free_list != NULL) {
        struct gdc_request *next = free_list->next;
        free(free_list);
        free_list = next;
    }
}
