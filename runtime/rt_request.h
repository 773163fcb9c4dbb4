/*
 * Requests: what gdc_wait/gdc_test complete. A request is a point-to-point message or a
 * collective in flight; its ops say how to advance it, describe what it waits for, end it
 * early and free it. The progress engine watches every outstanding request for stalls
 * (GDC_STALL_WARN) and timeouts (GDC_TIMEOUT).
 */
#ifndef GDC_RT_REQUEST_H
#define GDC_RT_REQUEST_H

#include <stddef.h>

#include <gdc.h>

#include "rt_msg.h"

#define GDC_RT_REQUEST_MAGIC 0x67726571u /* "greq" */

typedef struct gdc_rt_request_ops {
    const char *name;
    /* Advance; set req->completed (and req->status) when done. Returns 1 if it moved. */
    int  (*progress)(struct gdc_request *req);
    /* One line saying what it waits for, without the duration. */
    void (*describe)(struct gdc_request *req, char *buf, size_t len);
    /* End it now with status: cancel what is posted, mark it completed. */
    void (*abort)(struct gdc_request *req, gdc_status_t status);
    /* Release what the operation owns (the request itself is freed by the engine). */
    void (*release)(struct gdc_request *req);
} gdc_rt_request_ops_t;

/*
 * Stall warnings and GDC_TIMEOUT of a wait: gdc_rt_stall_check says GDC_ERR_TIMEOUT (with
 * say_what's line, "<what> for N s: giving up ...") once the wait has been idle for
 * GDC_TIMEOUT, else warns "<what> for N s" GDC_STALL_WARN after it began and then at
 * doubling intervals, and returns GDC_SUCCESS. A zeroed record is a wait that just began
 * (or moved again).
 */
typedef struct gdc_rt_stall {
    double next_warn;
    double interval; /* 0: no warning planned yet */
} gdc_rt_stall_t;

gdc_status_t gdc_rt_stall_check(gdc_rt_stall_t *stall, double now, double idle,
                                void (*say_what)(void *arg, char *buf, size_t len), void *arg);

struct gdc_request {
    unsigned                    magic;
    int                         completed;
    gdc_status_t                status;
    const gdc_rt_request_ops_t *ops;
    double                      last_progress; /* gdc_wtime() of the last step forward; 0: just
                                                  now (the watcher reads the clock) */
    int                         poll_alone;    /* nothing of it goes through UCX: a waiter may
                                                  poll it alone between rounds of the engine */
    gdc_rt_stall_t              stall;         /* its warnings since it last moved */
    struct gdc_request         *prev;          /* outstanding list */
    struct gdc_request         *next;
    /* point-to-point */
    gdc_rt_msg_t                msg;
    int                         peer;          /* rank in comm */
    int                         tag;
    struct gdc_comm            *comm;
    int                         whole_comm;    /* needs every rank of comm: ends with
                                                  GDC_ERR_PEER_FAILED once one has failed
                                                  (gdc_rt_comm_failed_member) */
    /* collectives: the executor's state */
    void                       *impl;
};

/* A new outstanding request with ops (zeroed otherwise); NULL when out of memory. */
struct gdc_request *gdc_rt_request_new(const gdc_rt_request_ops_t *ops);
/* Release an outstanding or completed request. */
void gdc_rt_request_free(struct gdc_request *req);

/* Mark a step forward (resets the stall and timeout clocks). */
void gdc_rt_request_touch(struct gdc_request *req);

/* Is this a live request handle? */
int gdc_rt_request_valid(const struct gdc_request *req);

/* Progress everything once: UCX, failure reports, collectives, stall and timeout checks.
 * Returns nonzero when something moved. */
int gdc_rt_progress(void);

/* The collectives layer's progress function, called by gdc_rt_progress. */
void gdc_rt_progress_set_hook(int (*hook)(void));

/* Wait until req completes (progressing everything, yielding the core as configured);
 * returns its status. The request is not freed. */
gdc_status_t gdc_rt_request_wait(struct gdc_request *req);
/* End req now with status (its ops' abort) and free it. */
void gdc_rt_request_cancel(struct gdc_request *req, gdc_status_t status);
/* Wait for req, free it and return its status. */
gdc_status_t gdc_rt_request_finish(struct gdc_request *req);
/* Progress once and report whether req completed. */
int gdc_rt_request_test(struct gdc_request *req);

/* Abort every outstanding request with status (finalize). */
void gdc_rt_request_abort_all(gdc_status_t status);

/*
 * Wait for a condition that no request stands for (a fast path's shared-memory counter),
 * with everything a request wait has: the engine progressed every few rounds, the core
 * yielded as configured, stall warnings and GDC_TIMEOUT with describe()'s line, and the
 * peers the condition depends on (world ranks) watched for failure. Returns GDC_SUCCESS,
 * GDC_ERR_TIMEOUT or GDC_ERR_PEER_FAILED.
 */
typedef struct gdc_rt_spin {
    int  (*ready)(void *arg);                             /* 1 when the wait is over */
    void (*describe)(void *arg, char *buf, size_t len);   /* what it waits for */
    int  (*peer)(void *arg);                              /* the world rank it waits for now */
    void *arg;
    struct gdc_comm *comm; /* a wait of a call that needs every rank of comm, or NULL */
} gdc_rt_spin_t;

gdc_status_t gdc_rt_spin_wait(const gdc_rt_spin_t *spin);

/* How often waits are checked for stalls, timeouts and failed peers (seconds). */
#define GDC_RT_WATCH_INTERVAL 0.05

/* CLOCK_MONOTONIC to the kernel's tick (a few ms), in seconds: what a progress round reads
 * to know whether the watch is due (a precise read cost 26 ns on the development VM, this
 * one 3.3 ns). */
double gdc_rt_coarse_time(void);

/* Set the yield policy from the configuration and the node's shape. */
void gdc_rt_progress_init(int local_size);

#endif
