/* Point-to-point requests over a communicator, used by the public API and by the runtime's
 * own exchanges (communicator construction). */
#ifndef GDC_RT_P2P_H
#define GDC_RT_P2P_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_request.h"

/* peer is a rank of comm; tag a full 64-bit tag (rt_tag.h). On success *out is an
 * outstanding request (possibly already completed). */
gdc_status_t gdc_rt_p2p_isend(struct gdc_comm *comm, int peer, uint64_t tag, const void *buf, size_t len,
                              struct gdc_request **out);
gdc_status_t gdc_rt_p2p_irecv(struct gdc_comm *comm, int peer, uint64_t tag, void *buf, size_t len,
                              struct gdc_request **out);

#endif
