/*
 * A collective in flight in a real job: a schedule (from the communicator's cache) run by
 * the executor over UCX messages, wrapped in a request that gdc_wait / gdc_test complete.
 */
#ifndef GDC_COLL_RUN_H
#define GDC_COLL_RUN_H

#include "coll.h"

struct gdc_comm;
struct gdc_request;

/* The user's buffers of a call, as the executor's INPUT and OUTPUT. */
typedef struct gdc_coll_buffers {
    const void *input;
    void       *output;
    const void *probe; /* a buffer the memory type is taken from */
} gdc_coll_buffers_t;

/* Start args on comm and return its request (already completed for count 0). */
int gdc_coll_start(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs,
                   struct gdc_request **out);

/* Run args on comm to completion (a blocking call): small calls inside a node take the
 * fast path, the others start and wait. */
int gdc_coll_run_blocking(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs);

#endif
