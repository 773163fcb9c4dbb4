/*
 * The engine's face to the rest of the layer: start a collective in a real job (a schedule
 * run by the executor over UCX, wrapped in a request that gdc_wait / gdc_test complete), or
 * run a blocking one to completion; and the engine's life with the runtime (progress and
 * communicator hooks).
 */
#ifndef GDC_COLL_ENGINE_H
#define GDC_COLL_ENGINE_H

#include "coll.h"

struct gdc_comm;
struct gdc_request;

/* Start args on comm and return its request (already completed for count 0); with
 * GDC_CHECK, everyone's signature of the call is compared first (engine/check.h). */
gdc_status_t gdc_coll_start(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs,
                            struct gdc_request **out);

/* Run args on comm to completion (a blocking call): the signatures first with GDC_CHECK,
 * then the algorithm's blocking fast path when it has one for the call (engine/fast.h), else
 * start and wait. */
gdc_status_t gdc_coll_run_blocking(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs);

/* Whether the call's buffers are CUDA device memory (GDC_CHECK's signatures say so). */
int gdc_coll_buffers_on_device(const gdc_coll_buffers_t *bufs);

/* GDC_ERR_PEER_FAILED when a rank of comm has failed (gdc_rt_comm_failed_member): no
 * collective on it can complete, and none starts. */
gdc_status_t gdc_coll_comm_usable(struct gdc_comm *comm);

/* The same without GDC_CHECK's signatures (the check's own allgather). */
gdc_status_t gdc_coll_start_unchecked(struct gdc_comm *comm, const gdc_coll_args_t *args,
                                      const gdc_coll_buffers_t *bufs, struct gdc_request **out);
gdc_status_t gdc_coll_run_blocking_unchecked(struct gdc_comm *comm, const gdc_coll_args_t *args,
                                             const gdc_coll_buffers_t *bufs);

/* This rank refused its own arguments of args's call: with GDC_CHECK it still takes part in
 * the signatures' exchange (saying so), so that the other ranks fail too instead of waiting. */
void gdc_coll_rejected(struct gdc_comm *comm, const gdc_coll_args_t *args);

/* Where comm's ranks are, for the prices: computed at its first call (args describes it),
 * then kept. */
const struct gdc_coll_layout *gdc_coll_comm_layout(struct gdc_comm *comm, const gdc_coll_args_t *args);

/* Hook the engine into the runtime's progress and communicators; unhook it. */
void gdc_coll_engine_init(void);
void gdc_coll_engine_finalize(void);

#endif
