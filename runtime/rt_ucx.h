/* The UCX transport: one context and one worker per process, endpoints made on first use. */
#ifndef GDC_RT_UCX_H
#define GDC_RT_UCX_H

#include <gdc.h>

#include <ucp/api/ucp.h>

gdc_status_t gdc_rt_ucx_init(void);
/* Before a UCX context is created: have UCX keep its shared-memory transports on endpoints
 * with peer error handling (UCX_POSIX/SYSV_ERROR_HANDLING=y unless the user set them).
 * 1 when it will: such endpoints may then ask for UCP_ERR_HANDLING_MODE_PEER. */
int gdc_rt_ucx_keep_shm_with_error_handling(void);
/* Deliver what is outstanding, then close every endpoint and the worker. */
gdc_status_t gdc_rt_ucx_flush(void);
/* One round of UCX progress; for waits outside the request engine. */
void gdc_rt_ucx_progress(void);
/* One ucp_worker_progress (its events), marked so that a callback it runs can tell. */
unsigned gdc_rt_ucx_worker_progress(void);
/* Inside a UCX callback: the worker may not be progressed. */
int gdc_rt_ucx_in_callback(void);
void gdc_rt_ucx_finalize(void);

ucp_worker_h gdc_rt_ucx_worker(void);

/* The endpoint to a world rank, connected on first use; NULL with *status set when the
 * peer has failed or cannot be reached. */
ucp_ep_h gdc_rt_ucx_ep(int peer_world, gdc_status_t *status);

/* Has this peer failed (UCX error callback or the launcher's report)? */
int  gdc_rt_ucx_peer_failed(int peer_world);
/* How many peers are known failed so far (it only grows): a cheap look for news. */
unsigned gdc_rt_ucx_failures(void);
/* Mark a peer failed and fail everything pending with it. */
void gdc_rt_ucx_fail_peer(int peer_world, const char *why);
/* While gdc_finalize's closing barrier waits, a peer found gone may have passed the barrier
 * and exited before this rank saw the barrier end: its going is logged as info, and the
 * barrier says whether it was a failure. */
void gdc_rt_ucx_closing(int closing);

/* Check that a peer watched by pid (its pids are this host's) is alive; if not, fail it.
 * Checks each peer once per round. */
void gdc_rt_ucx_watch_peer(int peer_world, unsigned round);
/* Has the peer failed? A peer of this host is looked at by pid now (and reported if it is
 * gone): what an error from UCX about it means. */
int  gdc_rt_ucx_peer_check(int peer_world);

/* Does this UCX move CUDA memory itself (a CUDA transport was found)? */
int gdc_rt_ucx_handles_cuda(void);
/* UCX's run-time version string. */
const char *gdc_rt_ucx_version(void);
/* A short list of the UCX transports used to reach peer_world ("posix/memory cma/memory");
 * "" when not connected yet. */
const char *gdc_rt_ucx_transports(int peer_world);

/* The pending list of in-flight messages (rt_msg.c). */
struct gdc_rt_msg;
void gdc_rt_msg_pending_add(struct gdc_rt_msg *msg);
void gdc_rt_msg_pending_remove(struct gdc_rt_msg *msg);
void gdc_rt_msg_pending_fail_peer(int peer_world);
void gdc_rt_msg_pending_cancel_all(gdc_status_t status);
/* Check the liveness of every watched peer that a pending message waits on. */
void gdc_rt_msg_pending_watch_peers(void);

#endif
