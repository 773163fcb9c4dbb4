/*
 * Runs in a real job: their memory, their stages (GDC_CHECK's signature allgather, then the
 * call's own schedule), the request the application holds, the list of active runs the
 * progress engine drives, and the queue that gives a communicator's shared memory to one
 * run at a time.
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

static gdc_status_t alloc_scratch(gdc_coll_stage_t *stage, size_t bytes, const void *near)
{
    if (bytes == 0) {
        return GDC_SUCCESS;
    }
    if (stage->on_device) {
        return gdc_rt_cuda_alloc(near, bytes, &stage->scratch);
    }
    stage->scratch = malloc(bytes);
    return stage->scratch != NULL ? GDC_SUCCESS : GDC_ERR_NO_MEMORY;
}

static gdc_status_t stage_init(gdc_coll_stage_t *stage, gdc_coll_run_t *run, gdc_coll_sched_t *sched,
                               gdc_coll_entry_t *entry, int on_device, const void *near)
{
    char        *none[GDC_COLL_NUM_BUFS] = {NULL, NULL, NULL};
    gdc_status_t status;

    stage->run       = run;
    stage->sched     = sched;
    stage->entry     = entry;
    stage->on_device = on_device;
    stage->msgs      = calloc((size_t)sched->num_msgs + 1, sizeof(gdc_rt_msg_t));
    if (stage->msgs == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    status = alloc_scratch(stage, sched->scratch_bytes, near);
    if (status != GDC_SUCCESS) {
        goto err_free_msgs;
    }
    status = gdc_coll_exec_init(&stage->exec, sched, &gdc_coll_ucx_transport, stage, none, on_device);
    if (status != GDC_SUCCESS) {
        goto err_free_scratch;
    }
    return GDC_SUCCESS;

err_free_scratch:
    free_scratch(stage->scratch, on_device);
err_free_msgs:
    free(stage->msgs);
    return status;
}

static void stage_fini(gdc_coll_stage_t *stage)
{
    free_scratch(stage->scratch, stage->on_device);
    free(stage->msgs);
    gdc_coll_exec_fini(&stage->exec);
    if (stage->entry == NULL) {
        gdc_coll_sched_free(stage->sched);
    }
}

gdc_status_t gdc_coll_run_alloc(gdc_coll_run_t **out, gdc_coll_sched_t *sched, gdc_coll_entry_t *entry,
                                int on_device, const void *near)
{
    gdc_coll_run_t *run = calloc(1, sizeof(*run));
    gdc_status_t    status;

    if (run == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    status = stage_init(&run->main, run, sched, entry, on_device, near);
    if (status != GDC_SUCCESS) {
        free(run);
        return status;
    }
    *out = run;
    return GDC_SUCCESS;
}

static void drop_check(gdc_coll_run_t *run)
{
    if (run->check == NULL) {
        return;
    }
    if (run->check->entry != NULL) {
        run->check->entry->users--;
    }
    stage_fini(run->check);
    free(run->check);
    free(run->sigs);
    run->check    = NULL;
    run->sigs     = NULL;
    run->checking = 0;
}

void gdc_coll_run_free(gdc_coll_run_t *run)
{
    drop_check(run);
    stage_fini(&run->main);
    free(run);
}

gdc_status_t gdc_coll_run_add_check(gdc_coll_run_t *run, gdc_coll_sched_t *sched, gdc_coll_entry_t *entry,
                                    const gdc_coll_sig_t *mine)
{
    int          size = sched->args.size;
    gdc_status_t status;

    run->check = calloc(1, sizeof(*run->check));
    run->sigs  = malloc(((size_t)size + 1) * sizeof(*run->sigs));
    if (run->check == NULL || run->sigs == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto err_free;
    }
    status = stage_init(run->check, run, sched, entry, 0, NULL);
    if (status != GDC_SUCCESS) {
        goto err_free;
    }
    if (entry != NULL) {
        entry->users++; /* the cache keeps the check's schedule while the run uses it */
    }
    run->sigs[size] = *mine;
    run->checking   = 1;
    return GDC_SUCCESS;

err_free:
    free(run->check);
    free(run->sigs);
    run->check = NULL;
    run->sigs  = NULL;
    return status;
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

static gdc_coll_stage_t *current(gdc_coll_run_t *run)
{
    return run->checking ? run->check : &run->main;
}

/* ---------------------------------------------------------------------------------------
 * Shared memory: one run at a time per communicator, for all its stages
 */

static int stage_uses_shm(const gdc_coll_stage_t *stage)
{
    return stage->sched->shm_epochs > 0;
}

static int uses_shm(const gdc_coll_run_t *run)
{
    return stage_uses_shm(&run->main) || (run->check != NULL && stage_uses_shm(run->check));
}

static void finish_if_done(gdc_coll_run_t *run);

/* Start a stage: on shared memory its counter values follow those of everything before it
 * (the run owns the segments then). */
static void start_stage(gdc_coll_stage_t *stage)
{
    gdc_rt_shm_t *shm = stage->run->comm->shm;

    if (stage_uses_shm(stage)) {
        gdc_coll_exec_set_shm(&stage->exec, shm, shm->epoch);
        shm->epoch += stage->sched->shm_epochs;
    }
    gdc_coll_exec_start(&stage->exec);
}

static void start_owning_shm(gdc_coll_comm_t *cc, gdc_coll_run_t *run)
{
    cc->shm_running = run;
    start_stage(current(run));
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
        start_owning_shm(cc, next);
        finish_if_done(next);
    }
}

/* The check stage is over: everyone's signature is here (or it failed). The call runs only
 * if every rank called the same; else it ends with the check's status on every rank,
 * having used no counter value of its own (so the communicator stays in step). */
static void end_check(gdc_coll_run_t *run)
{
    gdc_status_t status = run->check->exec.status;

    if (status == GDC_SUCCESS) {
        status = gdc_coll_check_verify(run->sigs, run->comm->size, run->comm->rank);
    }
    run->checking = 0;
    if (status != GDC_SUCCESS) {
        run->main.exec.status   = status;
        run->main.exec.finished = 1;
        return;
    }
    start_stage(&run->main);
}

static void finish_if_done(gdc_coll_run_t *run)
{
    if (run->checking) {
        if (!run->check->exec.finished) {
            return;
        }
        end_check(run);
    }
    if (run->main.exec.finished && !run->req->completed) {
        run->req->status    = run->main.exec.status;
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
        start_stage(current(run));
    } else if (cc->shm_running == NULL) {
        start_owning_shm(cc, run);
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

static int progress_run(gdc_coll_run_t *run)
{
    int moved = gdc_coll_exec_progress(&current(run)->exec);

    if (moved) {
        gdc_rt_request_touch(run->req);
    }
    finish_if_done(run);
    return moved;
}

static int req_progress(struct gdc_request *req)
{
    return progress_run(req->impl);
}

/* What the oldest step in flight waits for, for stall warnings and timeouts. */
static void describe_wait(const gdc_coll_run_t *run, const gdc_coll_stage_t *stage, int s, char *buf, size_t len)
{
    const gdc_coll_step_t *step = s >= 0 ? &stage->sched->steps[s] : NULL;

    if (step == NULL) {
        const gdc_coll_comm_t *cc = run->comm->coll;
        snprintf(buf, len, "%s",
                 uses_shm(run) && cc->shm_running != run ? "waits for the shared-memory collective before it"
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
    const gdc_coll_stage_t *stage = current(run);
    int                     s     = gdc_coll_exec_oldest_inflight(&stage->exec);
    const gdc_coll_sched_t *sched = run->main.sched;
    int                     n     = snprintf(buf, len, "%s(%s) seq %u%s step %d/%u: rank %d ",
                                             gdc_coll_type_name(sched->args.coll), sched->algo->name, run->main.seq,
                                             run->checking ? " (GDC_CHECK's signature exchange)" : "", s + 1,
                                             stage->sched->num_steps, gdc_rt_boot.rank);

    if (n >= 0 && (size_t)n < len) {
        describe_wait(run, stage, s, buf + n, len - (size_t)n);
    }
}

static void req_abort(struct gdc_request *req, gdc_status_t status)
{
    gdc_coll_run_t *run = req->impl;

    gdc_coll_exec_abort(&current(run)->exec, status);
    if (run->checking) {
        gdc_coll_exec_abort(&run->main.exec, status); /* it never started: nothing in flight */
    }
    finish_if_done(run);
}

static void req_release(struct gdc_request *req)
{
    gdc_coll_run_t   *run   = req->impl;
    gdc_coll_entry_t *entry = run->main.entry;

    deactivate(run);
    drop_check(run); /* the check's schedule may be evicted while the run is kept */
    if (entry != NULL) {
        entry->users--;
        if (entry->spare == NULL && run->main.exec.status == GDC_SUCCESS) {
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

static void set_seq(gdc_coll_run_t *run, struct gdc_comm *comm)
{
    if (run->check != NULL) {
        run->check->seq = comm->coll_seq++; /* the signatures travel first, numbered apart */
    }
    run->main.seq = comm->coll_seq++;
}

gdc_status_t gdc_coll_run_launch(gdc_coll_run_t *run, struct gdc_comm *comm, char *const base[GDC_COLL_NUM_BUFS],
                                 struct gdc_request **out)
{
    struct gdc_request *req = gdc_rt_request_new(&coll_request_ops);

    if (req == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    run->req        = req;
    run->comm       = comm;
    req->impl       = run;
    req->poll_alone = run->main.sched->num_msgs == 0 && (run->check == NULL || run->check->sched->num_msgs == 0);
    req->comm       = comm;
    req->whole_comm = 1;
    if (run->main.entry != NULL) {
        run->main.entry->users++;
    }
    set_seq(run, comm);
    gdc_coll_exec_reset(&run->main.exec, base);
    gdc_coll_exec_set_shm(&run->main.exec, NULL, 0);
    if (run->check != NULL) {
        char *sig_bufs[GDC_COLL_NUM_BUFS] = {(char *)&run->sigs[comm->size], (char *)run->sigs, run->check->scratch};

        gdc_coll_exec_reset(&run->check->exec, sig_bufs);
        gdc_coll_exec_set_shm(&run->check->exec, NULL, 0);
    }
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
        moved |= progress_run(run);
        run = next;
    }
    return moved;
}

void gdc_coll_run_forget_all(void)
{
    active = NULL;
}
