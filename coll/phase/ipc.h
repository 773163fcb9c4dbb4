/*
 * What the ipc algorithms share: device buffers of ranks on one node, each rank reaching
 * its peers' buffers directly (CUDA IPC mappings, gdc_rt_shm_peer_map). They are the cma
 * algorithms' device twins, with the same hand-offs through the node's host shared memory
 * (phase/shm.h: publish, COPIED, DONE): the copies are copy-engine copies and the
 * reductions kernels that read the peers' memory where it lies; no kernel waits on
 * another process, so ranks sharing one GPU work without MPS.
 */
#ifndef GDC_COLL_IPC_H
#define GDC_COLL_IPC_H

#include "builder.h"

/* Every rank on one node, device buffers, and every rank there maps its peers' device
 * memory (args->shm_ipc). */
int gdc_coll_ipc_supports(const gdc_coll_args_t *args);
/* ... not in place (alltoall: a rank's buffer is overwritten while the others read it). */
int gdc_coll_ipc_out_of_place_supports(const gdc_coll_args_t *args);

/* Steps that reduce `count` elements at element `at` of every rank's INPUT into out: mine
 * from INPUT, every other's straight from its buffer once it has published (COPIED 1),
 * after dep. In rank order from `first` round (so that where first is 0 every rank gets
 * the same bits; in place, first = my rank reads my part before it is overwritten). No
 * AVG division. Returns the last step. */
int gdc_coll_ipc_reduce_inputs(gdc_coll_sched_t *sched, gdc_coll_region_t out, size_t at, size_t count, int first,
                               int dep);

/* The end of a reduction whose result is in `result` (after dep): AVG's division, DONE,
 * the wait for every peer's DONE (they read my input until then), and, when result is not
 * out (in place, through scratch), the copy into out. Returns the last step. */
int gdc_coll_ipc_finish(gdc_coll_sched_t *sched, gdc_coll_region_t result, gdc_coll_region_t out, int dep);

/* Where a reduction's result goes: OUTPUT, or device scratch in place (the output is an
 * input the peers read until they say DONE); count elements. */
gdc_coll_region_t gdc_coll_ipc_result(gdc_coll_sched_t *sched);

/* A whole reduction into OUTPUT: publish, reduce `count` elements at element `at` of every
 * rank's input in rank order into the result place, finish (gdc_coll_ipc_finish). */
void gdc_coll_ipc_reduce_to_output(gdc_coll_sched_t *sched, size_t at);

/*
 * The ipc_leader algorithms, for ranks that share one GPU (args->shm_one_gpu): a GPU
 * switches between processes' contexts at every operation that comes from another one
 * than the last, which costs 270 us on an H200 (tests/gpu/ipc_probe --calls, bench/
 * RESULTS.md 2026-12-04 18:11), so one rank, the leader, makes every copy and kernel of
 * the call, reading and writing the others' buffers, queued on its stream and waited for
 * once; the others publish their buffers and wait for its DONE. Up to
 * GDC_COLL_CUDA_MANY_MAX ranks.
 */
int gdc_coll_ipc_leader_supports(const gdc_coll_args_t *args);
int gdc_coll_ipc_leader_out_of_place_supports(const gdc_coll_args_t *args);

/* A follower's whole part (publish, wait for leader's DONE): returns 1 where this rank is
 * not the leader and its schedule is built. The leader's schedule gets its publication,
 * its steps queued, and the wait for every follower's publication (*all_published). */
int gdc_coll_ipc_follow(gdc_coll_sched_t *sched, int leader, int *all_published);

/* count elements at element `at` of local rank p's INPUT or OUTPUT, as this rank's
 * schedule names them: its own buffer, or the peer's mapping. */
gdc_coll_region_t gdc_coll_ipc_user(const gdc_coll_sched_t *sched, gdc_coll_buf_t buf, int p, size_t at,
                                    size_t count);

/* The leader's end: DONE once `last` is done (the followers return then). */
void gdc_coll_ipc_lead_done(gdc_coll_sched_t *sched, int last);

/* A whole ipc_leader allgather (alltoall 0) or alltoall (1): the leader copies block
 * `from` of every rank's output from rank from's input, at its start (allgather) or at
 * block `to` of it (alltoall); in place (allgather) each output's own block is there. */
void gdc_coll_ipc_lead_blocks(gdc_coll_sched_t *sched, int alltoall);

/* A whole ipc_leader gather (into_root 1) or scatter (0): the root copies every rank's
 * block between its buffer and that rank's (its own block too, out of place). */
void gdc_coll_ipc_lead_rooted(gdc_coll_sched_t *sched, int into_root);

#endif
