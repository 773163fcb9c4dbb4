/*
 * Runs in a real job: their memory, the request the application holds, the list of active
 * runs the progress engine drives, and the queue that gives a communicator's shared memory
 * to one run at a time.
 */
#include "engine/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gdc_coll_run_t *active;

int gdc_coll_run_local_world_rank(const gdc_coll_run_t *run, int i)
{
    return gdc_rt_comm_world_rank(run->comm, run->comm->shm->local_ranks[i]);
}

/* ---------------------------------------------------------------------------------------
 * Memory
 */

static void free_scratch(void *scratch, int on_device)
{
    if (on_device) {
        gdc_rt_cuda_free(scratch);
    } else {
        free(scratch);
    }
}

static gdc_status_t alloc_scratch(gdc_coll_run_t *run, size_t bytes, const void *near)
{
    if (bytes == 0) {
        return GDC_SUCCESS;
    }
    if (run->on_device) {
        return gdc_rt_cuda_alloc(near, bytes, &run->scratch);
    }
    run->scratch = malloc(bytes);
    return run->scratch != NULL ? GDC_SUCCESS : GDC_ERR_NO_MEMORY;
}

gdc_status_t gdc_coll_run_alloc(gdc_coll_run_t **out, gdc_coll_sched_t *sched, int on_device, const void *near)
{
    gdc_coll_run_t *run                     = calloc(1, sizeof(*run));
    char           *none[GDC_COLL_NUM_BUFS] = {NULL, NULL, NULL};
    gdc_status_t    status;

    if (run == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    run->sched     = sched;
    run->on_device = on_device;
    run->msgs      = calloc((size_t)sched->num_msgs + 1, sizeof(gdc_rt_msg_t));
    if (run->msgs == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto err_free_run;
    }
    status = alloc_scratch(run, sched->scratch_bytes, near);
    if (status != GDC_SUCCESS) {
        goto err_free_msgs;
    }
    status = gdc_coll_exec_init(&run->exec, sched, &gdc_coll_ucx_transport, run, none, on_device);
    if (status != GDC_SUCCESS) {
        goto err_free_scratch;
    }
    *out = run;
    return GDC_SUCCESS;

err_free_scratch:
    free_scratch(run->scratch, on_device);
err_free_msgs:
    free(run->msgs);
err_free_run:
    free(run);
    return status;
}

void gdc_coll_run_free(gdc_coll_run_t *run)
{
    free_scratch(run->scratch, run->on_device);
    free(run->msgs);
    gdc_coll_exec_fini(&run->exec);
    if (run->entry == NULL) {
        gdc_coll_sched_free(run->sched);
    }
    free(run);
}

/* ---------------------------------------------------------------------------------------
 * The active runs
 */

static void activate(gdc_coll_run_t *run)
{
    run->prev = NULL;
    run->next = active;
    if (active != NULL) {
        active->prev = run;
    }
    active = run;
}

static void deactivate(gdc_coll_run_t *run)
{
    if (run->prev != NULL) {
        run->prev->next = run->next;
    } else if (active == run) {
        active = run->next;
    }
    if (run->next != NULL) {
        run->next->prev = run->prev;
    }
    run->prev = run->next = NULL;
}

/* ---------------------------------------------------------------------------------------
 * Shared memory: one run at a time per communicator
 */

static int uses_shm(const gdc_coll_run_t *run)
{
    return run->sched->shm_epochs > 0;
}

static void finish_if_done(gdc_coll_run_t *run);

/* Start a shared-memory run: it owns the segments until it finishes, its counter values
 * follow those of the runs before it. */
static void start_shm(gdc_coll_comm_t *cc, gdc_coll_run_t *run)
{
    gdc_rt_shm_t *shm = run->comm->shm;

    cc->shm_running = run;
    gdc_coll_exec_set_shm(&run->exec, shm, shm->epoch);
    shm->epoch += run->sched->shm_epochs;
    gdc_coll_exec_start(&run->exec);
}

static void unqueue(gdc_coll_comm_t *cc, gdc_coll_run_t *run)
{
    for (gdc_coll_run_t **link = &cc->shm_queue_head; *link != NULL; link = &(*link)->shm_next) {
        if (*link == run) {
            *link = run->shm_next;
            break;
        }
    }
    cc->shm_queue_tail = NULL;
    for (gdc_coll_run_t *r = cc->shm_queue_head; r != NULL; r = r->shm_next) {
        cc->shm_queue_tail = r;
    }
}

static void release_shm(gdc_coll_run_t *run)
{
    gdc_coll_comm_t *cc = run->comm->coll;
    gdc_coll_run_t  *next;

    if (cc->shm_running != run) {
        unqueue(cc, run); /* ended before it started (aborted while queued) */
        return;
    }
    cc->shm_running = NULL;
    next            = cc->shm_queue_head;
    if (next != NULL) {
        cc->shm_queue_head = next->shm_next;
        cc->shm_queue_tail = cc->shm_queue_head != NULL ? cc->shm_queue_tail : NULL;
        start_shm(cc, next);
        finish_if_done(next);
    }
}

static void finish_if_done(gdc_coll_run_t *run)
{
    if (run->exec.finished && !run->req->completed) {
        run->req->status    = run->exec.status;
        run->req->completed = 1;
        deactivate(run);
        if (uses_shm(run)) {
            release_shm(run);
        }
    }
}

/* Start run, or queue it behind the shared-memory run in progress. */
static void start_run(gdc_coll_run_t *run)
{
    gdc_coll_comm_t *cc = run->comm->coll;

    run->shm_next = NULL;
    if (!uses_shm(run)) {
        gdc_coll_exec_start(&run->exec);
    } else if (cc->shm_running == NULL) {
        start_shm(cc, run);
    } else if (cc->shm_queue_tail != NULL) {
        cc->shm_queue_tail->shm_next = run;
        cc->shm_queue_tail           = run;
    } else {
        cc->shm_queue_head = cc->shm_queue_tail = run;
    }
    finish_if_done(run);
}

/* ---------------------------------------------------------------------------------------
 * The request
 */

static int req_progress(struct gdc_request *req)
{
    gdc_coll_run_t *run   = req->impl;
    int             moved = gdc_coll_exec_progress(&run->exec);

    if (moved) {
        gdc_rt_request_touch(req);
    }
    finish_if_done(run);
    return moved;
}

/* What the oldest step in flight waits for, for stall warnings and timeouts. */
static void describe_wait(const gdc_coll_run_t *run, int s, char *buf, size_t len)
{
    const gdc_coll_step_t *step = s >= 0 ? &run->sched->steps[s] : NULL;

    if (step == NULL) {
        snprintf(buf, len, "%s",
                 uses_shm(run) && run->exec.shm == NULL ? "waits for the shared-memory collective before it"
                                                        : "has no message in flight");
    } else if (step->kind == GDC_COLL_STEP_WAIT) {
        snprintf(buf, len, "waits for rank %d's shared-memory signal %u",
                 gdc_coll_run_local_world_rank(run, step->peer), step->slot);
    } else if (step->kind == GDC_COLL_STEP_RECV) {
        snprintf(buf, len, "waits for data from rank %d", gdc_rt_comm_world_rank(run->comm, step->peer));
    } else {
        snprintf(buf, len, "waits for rank %d to take its data", gdc_rt_comm_world_rank(run->comm, step->peer));
    }
}

static void req_describe(struct gdc_request *req, char *buf, size_t len)
{
    gdc_coll_run_t         *run   = req->impl;
    int                     s     = gdc_coll_exec_oldest_inflight(&run->exec);
    const gdc_coll_sched_t *sched = run->sched;
    int                     n     = snprintf(buf, len, "%s(%s) seq %u step %d/%u: rank %d ",
                                             gdc_coll_type_name(sched->args.coll), sched->algo->name, run->seq,
                                             s + 1, sched->num_steps, gdc_rt_boot.rank);

    if (n >= 0 && (size_t)n < len) {
        describe_wait(run, s, buf + n, len - (size_t)n);
    }
}

static void req_abort(struct gdc_request *req, gdc_status_t status)
{
    gdc_coll_run_t *run = req->impl;

    gdc_coll_exec_abort(&run->exec, status);
    finish_if_done(run);
}

static void req_release(struct gdc_request *req)
{
    gdc_coll_run_t   *run   = req->impl;
    gdc_coll_entry_t *entry = run->entry;

    deactivate(run);
    if (entry != NULL) {
        entry->users--;
        if (entry->spare == NULL && run->exec.status == GDC_SUCCESS) {
            entry->spare = run; /* the next call of this shape reuses it */
            return;
        }
    }
    gdc_coll_run_free(run);
}

static const gdc_rt_request_ops_t coll_request_ops = {
    .name     = "collective",
    .progress = req_progress,
    .describe = req_describe,
    .abort    = req_abort,
    .release  = req_release,
};

gdc_status_t gdc_coll_run_launch(gdc_coll_run_t *run, struct gdc_comm *comm, gdc_coll_entry_t *entry,
                                 char *const base[GDC_COLL_NUM_BUFS], struct gdc_request **out)
{
    struct gdc_request *req = gdc_rt_request_new(&coll_request_ops);

    if (req == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    run->req        = req;
    run->comm       = comm;
    run->entry      = entry;
    run->seq        = comm->coll_seq++;
    req->impl       = run;
    req->poll_alone = run->sched->num_msgs == 0;
    req->comm       = comm;
    if (entry != NULL) {
        entry->users++;
    }
    gdc_coll_exec_reset(&run->exec, base);
    gdc_coll_exec_set_shm(&run->exec, NULL, 0);
    activate(run);
    start_run(run);
    *out = req;
    return GDC_SUCCESS;
}

int gdc_coll_run_progress_all(void)
{
    int moved = 0;

    for (gdc_coll_run_t *run = active; run != NULL;) {
        gdc_coll_run_t *next = run->next; /* finishing unlinks it */
        if (gdc_coll_exec_progress(&run->exec)) {
            gdc_rt_request_touch(run->req);
            moved = 1;
        }
        finish_if_done(run);
        run = next;
    }
    return moved;
}

void gdc_coll_run_forget_all(void)
{
    active = NULL;
}
