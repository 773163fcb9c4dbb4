/*
 * The executor: runs one schedule, nonblocking, over any transport. Message steps go to
 * the transport (UCX in a real job, a mailbox in the simulator); reduce, copy and avg steps
 * run here, on the host or on the GPU according to the buffers' memory type. A step starts
 * when every step it depends on has completed.
 */
#ifndef GDC_COLL_EXEC_H
#define GDC_COLL_EXEC_H

#include "engine/sched.h"
#include "rt_shm.h"

struct gdc_coll_exec;

typedef struct gdc_coll_transport {
    /* Post message step `step` over ptr/len; return 1 when it completed at once (*status
     * set), 0 when in flight. */
    int  (*post)(struct gdc_coll_exec *exec, uint32_t step, void *ptr, size_t len, gdc_status_t *status);
    /* 1 when in-flight step completed (*status set). For a wait step the executor checks
     * the counter itself; the transport says 1 with an error when the peer is gone. */
    int  (*test)(struct gdc_coll_exec *exec, uint32_t step, gdc_status_t *status);
    /* End an in-flight step now. */
    void (*cancel)(struct gdc_coll_exec *exec, uint32_t step, gdc_status_t status);
} gdc_coll_transport_t;

typedef struct gdc_coll_exec {
    const gdc_coll_sched_t     *sched;
    const gdc_coll_transport_t *transport;
    void                       *transport_ctx;
    char                       *base[GDC_COLL_NUM_BUFS];
    int                         on_device;   /* buffers in CUDA memory: GPU kernels, CUDA copies */
    const gdc_rt_shm_t         *shm;         /* shared memory of the node's ranks, when used */
    uint64_t                    shm_base;    /* counter values of the calls before this one */
    int                         stream_output; /* copies into OUTPUT bypass the cache */
    uint32_t                   *waiting;     /* [num_steps] unmet dependencies */
    uint32_t                   *queue;       /* [num_steps] steps ready to start, FIFO */
    uint32_t                    queue_head, queue_tail;
    uint32_t                   *inflight;    /* message and wait steps started, not done */
    uint32_t                    num_inflight;
    uint32_t                    num_done;
    gdc_status_t                status;
    int                         finished;
    /* peers' buffers this run addresses directly (the ipc algorithms): [2 * local size],
     * INPUT and OUTPUT of each, mapped on first use and given back when the run ends */
    void                           **peer_ptr;
    struct gdc_rt_cuda_ipc_entry   **peer_entry;
    int                              gpu_queued; /* kernels or copies queued, not waited for */
    /* device buffers that peers cannot map (cuMemCreate, pools): the run works on copies in
     * gdc's own device memory ([INPUT], [OUTPUT]), kept for the next call */
    char                            *shadow[2];
    size_t                           shadow_bytes[2];
    char                            *user_output; /* where the output shadow goes at the end */
} gdc_coll_exec_t;

/* Prepare exec to run sched over transport; base[] are the input, output and scratch
 * buffers (scratch allocated by the caller, sched->scratch_bytes). */
gdc_status_t gdc_coll_exec_init(gdc_coll_exec_t *exec, const gdc_coll_sched_t *sched,
                                const gdc_coll_transport_t *transport, void *transport_ctx,
                                char *const base[GDC_COLL_NUM_BUFS], int on_device);
/* Make an initialised exec ready to run its schedule again (no allocation). */
void gdc_coll_exec_reset(gdc_coll_exec_t *exec, char *const base[GDC_COLL_NUM_BUFS]);
/* Give a shared-memory schedule its segments; counter values start after shm_base. */
void gdc_coll_exec_set_shm(gdc_coll_exec_t *exec, const gdc_rt_shm_t *shm, uint64_t shm_base);
/* Start the steps without dependencies and everything that follows at once. */
void gdc_coll_exec_start(gdc_coll_exec_t *exec);
/* Test in-flight messages and start what became ready; 1 if anything completed. */
int  gdc_coll_exec_progress(gdc_coll_exec_t *exec);
/* End now with status: cancel in-flight messages. */
void gdc_coll_exec_abort(gdc_coll_exec_t *exec, gdc_status_t status);
void gdc_coll_exec_fini(gdc_coll_exec_t *exec);

/* The in-flight message step the run waits on longest (lowest index), or -1. */
int gdc_coll_exec_oldest_inflight(const gdc_coll_exec_t *exec);

#endif
