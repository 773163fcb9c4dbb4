/*
 * A collective in flight in a real job: a schedule run by the executor over UCX, the
 * request that the application waits on, and the per-communicator state the runs share
 * (their cache, and the queue of shared-memory runs: one at a time per communicator).
 * Internal to the engine.
 */
#ifndef GDC_COLL_RUN_H
#define GDC_COLL_RUN_H

#include "engine/cache.h"
#include "engine/exec.h"
#include "gdc_rt.h"

typedef struct gdc_coll_comm {
    gdc_coll_cache_t     cache;
    /* Shared-memory runs reuse the same segments: one at a time per communicator, the
     * others wait in call order (the same order on every rank). */
    struct gdc_coll_run *shm_running;
    struct gdc_coll_run *shm_queue_head, *shm_queue_tail;
} gdc_coll_comm_t;

typedef struct gdc_coll_run {
    gdc_coll_exec_t      exec;
    struct gdc_request  *req;
    struct gdc_comm     *comm;
    gdc_coll_sched_t    *sched;
    gdc_coll_entry_t    *entry;       /* NULL: the run owns its schedule */
    gdc_rt_msg_t        *msgs;        /* [sched->num_msgs] */
    void                *scratch;
    int                  on_device;
    uint32_t             seq;
    struct gdc_coll_run *prev, *next; /* active runs */
    struct gdc_coll_run *shm_next;    /* waiting for the communicator's shared memory */
} gdc_coll_run_t;

/* The executor's messages as UCX tagged messages (engine/transport_ucx.c). */
extern const gdc_coll_transport_t gdc_coll_ucx_transport;

/* The world rank of local rank i of the run's shared memory. */
int gdc_coll_run_local_world_rank(const gdc_coll_run_t *run, int i);

/* A run of sched with its messages, scratch (next to `near` on the device) and executor. */
gdc_status_t gdc_coll_run_alloc(gdc_coll_run_t **out, gdc_coll_sched_t *sched, int on_device, const void *near);
/* Free it (and its schedule when it owns it). */
void gdc_coll_run_free(gdc_coll_run_t *run);

/* Give run a request and start it on comm with buffers base[] (or queue it behind the
 * communicator's shared-memory run in progress). */
gdc_status_t gdc_coll_run_launch(gdc_coll_run_t *run, struct gdc_comm *comm, gdc_coll_entry_t *entry,
                                 char *const base[GDC_COLL_NUM_BUFS], struct gdc_request **out);

/* Progress every active run (the runtime's progress hook). */
int gdc_coll_run_progress_all(void);
/* Forget the active runs (gdc_finalize aborted them). */
void gdc_coll_run_forget_all(void);

#endif
