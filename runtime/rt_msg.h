/*
 * One tagged message over UCX: the unit the point-to-point requests and the collective
 * executor are built from. A message is embedded in its owner (no allocation), joins the
 * pending list while UCX holds it, and fails with GDC_ERR_PEER_FAILED when its peer dies.
 */
#ifndef GDC_RT_MSG_H
#define GDC_RT_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "rt_memtype.h"

typedef struct gdc_rt_msg {
    void              *ucx_req;    /* UCX's request while in flight */
    int                done;       /* set once complete (UCX callback or immediately) */
    gdc_status_t       status;     /* gdc status once done */
    int                is_recv;
    int                peer_world; /* the world rank on the other side */
    size_t             received;   /* bytes that arrived (receives) */
    uint64_t           tag;
    struct gdc_rt_msg *prev;       /* pending list */
    struct gdc_rt_msg *next;
    void              *staging;    /* host copy of a device buffer UCX cannot reach, staged whole */
    struct gdc_rt_stage *stage;    /* or its pipeline through bounce buffers (rt_stage.h) */
    void              *user_buf;
    gdc_rt_memtype_t   user_memtype; /* of a staged message's buffer */
    size_t             length;
} gdc_rt_msg_t;

/* Post a send / receive of len bytes to / from world rank peer. The message is done at
 * once when UCX completes it immediately or when posting fails (check status). */
gdc_status_t gdc_rt_msg_send(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, const void *buf, size_t len,
                             gdc_rt_memtype_t memtype);
gdc_status_t gdc_rt_msg_recv(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, void *buf, size_t len,
                             gdc_rt_memtype_t memtype);

/* 1 when the message is done: for a staged receive, when its bytes are in the device
 * buffer (a staged message's copies are finished here, never blocking). */
int gdc_rt_msg_test(gdc_rt_msg_t *msg);

/* End a message still in flight with status (its UCX request is cancelled). */
void gdc_rt_msg_cancel(gdc_rt_msg_t *msg, gdc_status_t status);

#endif
