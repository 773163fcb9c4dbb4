/*
 * A collective in flight in a real job: a schedule run by the executor over UCX, the
 * request that the application waits on, and the per-communicator state the runs share
 * (their cache, and the queue of shared-memory runs: one at a time per communicator).
 * Internal to the engine.
 */
#ifndef GDC_COLL_RUN_H
#define GDC_COLL_RUN_H

#include "engine/cache.h"
#include "engine/check.h"
#include "engine/exec.h"
#include "gdc_rt.h"
#include "select/price.h"

typedef struct gdc_coll_comm {
    gdc_coll_cache_t     cache;
    gdc_coll_layout_t    layout;       /* where the ranks are, for the prices */
    int                  layout_ready;
    /* Shared-memory runs reuse the same segments: one at a time per communicator, the
     * others wait in call order (the same order on every rank). */
    struct gdc_coll_run *shm_running;
    struct gdc_coll_run *shm_queue_head, *shm_queue_tail;
} gdc_coll_comm_t;

/* One schedule of a run: the call's own, or, with GDC_CHECK, the signatures' allgather that
 * runs before it. Each has its own messages, scratch and sequence number. */
typedef struct gdc_coll_stage {
    gdc_coll_exec_t      exec;
    gdc_coll_sched_t    *sched;
    gdc_coll_entry_t    *entry;     /* the cache entry that owns sched; NULL: the stage owns it */
    gdc_rt_msg_t        *msgs;      /* [sched->num_msgs] */
    void                *scratch;
    int                  on_device;
    uint32_t             seq;
    struct gdc_coll_run *run;
} gdc_coll_stage_t;

typedef struct gdc_coll_run {
    gdc_coll_stage_t     main;
    gdc_coll_stage_t    *check;       /* GDC_CHECK's stage, or NULL */
    gdc_coll_sig_t      *sigs;        /* check: [comm size] gathered, then mine */
    int                  checking;    /* the check stage is the one running */
    struct gdc_request  *req;
    struct gdc_comm     *comm;
    struct gdc_coll_run *prev, *next; /* active runs */
    struct gdc_coll_run *shm_next;    /* waiting for the communicator's shared memory */
} gdc_coll_run_t;

/* The executor's messages as UCX tagged messages (engine/transport_ucx.c). */
extern const gdc_coll_transport_t gdc_coll_ucx_transport;

/* The world rank of local rank i of the run's shared memory. */
int gdc_coll_run_local_world_rank(const gdc_coll_run_t *run, int i);

/* A run of sched (its cache entry's, or its own when entry is NULL) with its messages,
 * scratch (next to `near` on the device) and executor. */
gdc_status_t gdc_coll_run_alloc(gdc_coll_run_t **out, gdc_coll_sched_t *sched, gdc_coll_entry_t *entry,
                                int on_device, const void *near);
/* Free it (and the schedules it owns). */
void gdc_coll_run_free(gdc_coll_run_t *run);

/* GDC_CHECK: give run a check stage that gathers everyone's signature (mine) with sched
 * (the check's schedule, from entry) before its own schedule runs. */
gdc_status_t gdc_coll_run_add_check(gdc_coll_run_t *run, gdc_coll_sched_t *sched, gdc_coll_entry_t *entry,
                                    const gdc_coll_sig_t *mine);

/* Give run a request and start it on comm with buffers base[] (or queue it behind the
 * communicator's shared-memory run in progress). */
gdc_status_t gdc_coll_run_launch(gdc_coll_run_t *run, struct gdc_comm *comm, char *const base[GDC_COLL_NUM_BUFS],
                                 struct gdc_request **out);

/* Progress every active run (the runtime's progress hook). */
int gdc_coll_run_progress_all(void);
/* Forget the active runs (gdc_finalize aborted them). */
void gdc_coll_run_forget_all(void);

#endif
