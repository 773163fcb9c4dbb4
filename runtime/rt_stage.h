/*
 * Device buffers that this UCX cannot reach, moved through host memory. A message large
 * enough to gain from it goes through a few pinned host bounce buffers in chunks
 * (rt_stage_plan.h), so that the device-to-host copy of one chunk, UCX's transfer of the
 * one before and, on the far side, the host-to-device copy of the one before that overlap.
 *
 * UCX drives the pipeline: the message is sent and received with a generic datatype whose
 * pack and unpack read and fill the bounce buffers, and queue the device copies on gdc's
 * copy stream as chunks empty and fill. On the wire it is an ordinary message, so any
 * receive matches it, host or device, staged or not, and the order and truncation rules
 * of UCX's tag matching stay as they are. A fragment that comes out of order (UCX's lanes)
 * is copied synchronously, straight between the device and UCX's buffer: slower, never
 * wrong. A smaller message is staged whole: one synchronous copy each way.
 */
#ifndef GDC_RT_STAGE_H
#define GDC_RT_STAGE_H

#include <stddef.h>

#include <ucp/api/ucp.h>

#include <gdc.h>

#include "rt_memtype.h"

/* Bounce buffers: a message's chunks go through GDC_RT_STAGE_BUFFERS_PER_MESSAGE slots
 * (double buffering and then some: a chunk's copy, its transfer and the next copy at once),
 * carved from buffers of a pool of at most GDC_RT_STAGE_MAX_BUFFERS per process, pinned
 * once and kept to gdc_finalize; past those, unpinned buffers for one message each. */
#define GDC_RT_STAGE_BUFFER_SIZE         ((size_t)2 << 20)
#define GDC_RT_STAGE_BUFFERS_PER_MESSAGE 4
#define GDC_RT_STAGE_MAX_BUFFERS         32 /* GDC_STAGING_BUFFERS's default */

typedef enum {
    GDC_RT_STAGE_PIPELINE = 0, /* chunks through pinned bounce buffers (default) */
    GDC_RT_STAGE_WHOLE         /* every staged message whole: one copy each way (to compare) */
} gdc_rt_stage_mode_t;

/* GDC_STAGING, GDC_STAGING_BUFFERS (the pool's size) and GDC_STAGING_HOST_TEST (host
 * buffers staged too, with host copies standing in for the device's: the staging path
 * where there is no GPU, for the tests), read at gdc_init. */
extern gdc_rt_stage_mode_t gdc_rt_stage_mode;
extern unsigned            gdc_rt_stage_max_buffers;
extern int                 gdc_rt_stage_host_test;
int gdc_rt_stage_parse_mode(const char *value, void *dest, const char **why);
int gdc_rt_stage_parse_buffers(const char *value, void *dest, const char **why);

typedef struct gdc_rt_stage gdc_rt_stage_t;

/* Whether a buffer of this memory type goes through host memory (UCX cannot reach it);
 * warns once per job when it first says yes for device memory. */
int gdc_rt_stage_wanted(gdc_rt_memtype_t memtype);

/* The pipeline of one message to or from world rank peer over the buffer (len bytes: the
 * message, or the receive's capacity), or NULL: the message goes whole (too small to gain,
 * GDC_STAGING=whole, or no memory). A send's first chunks are queued at once. */
gdc_rt_stage_t *gdc_rt_stage_start(int is_recv, void *buf, size_t len, gdc_rt_memtype_t memtype, int peer);

/* The datatype to give UCX with the stage as the buffer (valid after a stage started). */
ucp_datatype_t gdc_rt_stage_datatype(void);

/* After UCX ended the message: for a receive that succeeded with `received` bytes, queue
 * the last host-to-device copies; then 1 once every copy of the stage is done, 0 while one
 * runs (never blocks). A failed copy sets *status. */
int gdc_rt_stage_test(gdc_rt_stage_t *stage, int received_ok, size_t received, gdc_status_t *status);

/* Wait for the stage's copies still queued, give its bounce buffers back and free it. */
void gdc_rt_stage_end(gdc_rt_stage_t *stage);

/* A message UCX has ended, cancelled before its copies were seen done: queue the last
 * ones as gdc_rt_stage_test would, wait for all and end the stage; the first failure. */
gdc_status_t gdc_rt_stage_finish(gdc_rt_stage_t *stage, int received_ok, size_t received);

/* A message left in UCX's hands on a cancel: wait for the copies queued, give the bounce
 * buffers back, and from then on let pack and unpack touch neither them nor the user's
 * buffer. The stage stays allocated (UCX may still call them): leaked, on an error path. */
void gdc_rt_stage_abandon(gdc_rt_stage_t *stage);

/* Host memory for a message staged whole: from the pool's pinned buffers up to a buffer's
 * size (malloc'd past it, or when the pool is spent); NULL when there is none. near: the
 * device buffer, whose context pins a new buffer of the pool. */
void *gdc_rt_stage_whole_alloc(size_t len, const void *near);
void  gdc_rt_stage_whole_free(void *buf, size_t len);

/* A synchronous copy between a buffer of memtype and host memory (memcpy for a host
 * buffer: the host test), for messages staged whole. */
gdc_status_t gdc_rt_stage_copy(void *dst, const void *src, size_t n, gdc_rt_memtype_t memtype);

/* The process's staging so far: messages pipelined, their chunks, the bytes that went
 * through the bounce buffers and those that came out of the pipeline's order and were
 * copied directly, messages staged whole. */
typedef struct gdc_rt_stage_counts {
    unsigned long pipelined, chunks, whole;
    unsigned long overflow;  /* slots of bounce memory allocated past the pool, unpinned */
    unsigned long abandoned; /* given up to UCX on a cancel */
    size_t        bounced_bytes, direct_bytes;
} gdc_rt_stage_counts_t;
void gdc_rt_stage_counts(gdc_rt_stage_counts_t *out);

/* The generic datatype's operations, for tests/unit/test_stage.c, which drives a stage as
 * UCX does, fragments in any order. */
const ucp_generic_dt_ops_t *gdc_rt_stage_ops(void);

/* At gdc_finalize, after UCX's end (no pack or unpack can come): the pool's buffers and
 * the datatype go; the job's staging counts at info. */
void gdc_rt_stage_finalize(void);

#endif
