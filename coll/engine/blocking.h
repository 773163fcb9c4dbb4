/* Fast paths for small blocking calls inside a node (see coll_fast.c). */
#ifndef GDC_COLL_FAST_H
#define GDC_COLL_FAST_H

#include "coll.h"
#include "engine/run.h"

struct gdc_comm;

/* Run the blocking call if algo is one of the shapes the fast path knows; 1 when it did
 * (*status is the call's), 0 when the engine must run it. The communicator must have no
 * shared-memory run in flight. */
int gdc_coll_fast_run(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_algo_t *algo,
                      const gdc_coll_buffers_t *bufs, int *status);

#endif
