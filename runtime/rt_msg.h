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

/* Where a host message's bytes are, told instead of sent to a rank of the sender's node
 * (GDC_MSG_CMA): its receiver reads them by cross-memory attach, one copy where UCX's
 * shared memory makes two, and answers (rt_msg.c). */
typedef struct gdc_rt_msg_told {
    uint64_t address;
    uint64_t length;
    uint64_t stands; /* the sender's withdrawals so far << 16 | its word for the tale (rt_msg.c) */
    int32_t  pid;    /* the sender's */
    uint32_t seq;    /* the sender's number of it: its word's, and its answer's tag (low 24 bits) */
} gdc_rt_msg_told_t;

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
    void              *buf;        /* the caller's buffer */
    gdc_rt_memtype_t   memtype;    /* ... and its memory */
    /* a send told its receiver where its bytes are, and ends with the answer; a receive
     * from a rank that may tell, long enough to be told, lands the first bytes of what
     * comes in `tale` (a tale or the message's start), the rest in place, so that a tale
     * never touches the buffer; one shorter than a tale lands whole there */
    int                telling;
    int                told;
    int                landed;
    int                heard;        /* a tale came: on the list that progress reads */
    int                tale_word;    /* a telling send's word in its shared memory, + 1 (0: none) */
    struct gdc_rt_msg *heard_prev, *heard_next;
    uint64_t           answer;
    gdc_rt_msg_told_t  tale;
    struct {
        void  *buffer;
        size_t length;
    } iov[2]; /* ucp_dt_iov_t's layout */
} gdc_rt_msg_t;

/* Host messages from this size on to a rank of this node are told, not sent (0: never). */
extern size_t gdc_rt_msg_cma_bytes;

/* The ranks of this node whose memory cross-memory attach reaches (world ranks of the world
 * communicator's shared memory, its cma flag); NULL: none. */
struct gdc_rt_shm;
void gdc_rt_msg_set_cma_peers(const struct gdc_rt_shm *shm);

/* From now on, tell those ranks messages of `from` bytes and more (every rank's size; 0:
 * none), once every rank has its table (receives from them take tales from its setting on). */
void gdc_rt_msg_start_telling(size_t from);

/* Say how many messages this rank read by cross-memory attach (info), at gdc_finalize. */
void gdc_rt_msg_finalize(void);

/* Post a send / receive of len bytes to / from world rank peer. The message is done at
 * once when UCX completes it immediately or when posting fails (check status). */
gdc_status_t gdc_rt_msg_send(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, const void *buf, size_t len,
                             gdc_rt_memtype_t memtype);
gdc_status_t gdc_rt_msg_recv(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, void *buf, size_t len,
                             gdc_rt_memtype_t memtype);

/* 1 when the message is done: for a staged receive, when its bytes are in the device
 * buffer (a staged message's copies are finished here, never blocking). */
int gdc_rt_msg_test(gdc_rt_msg_t *msg);

/* End a message still in flight with status (its UCX request is cancelled). A receive
 * that was told where its bytes are reads them now: the bytes are there, and the sender
 * waits for the answer. */
void gdc_rt_msg_cancel(gdc_rt_msg_t *msg, gdc_status_t status);

/* Read the tales that came to receives nobody is testing now (a rank waiting for its send
 * while the receive its peer's send waits for is told): from the progress rounds, outside
 * UCX's callbacks, so that a posted receive always ends the send it matches. */
int gdc_rt_msg_read_heard(void); /* nonzero when one was read */

#endif
