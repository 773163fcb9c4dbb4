/*
 * The staging pipeline: chunks of a device message through pinned bounce buffers, driven
 * by UCX's pack and unpack of a generic datatype (rt_stage.h).
 *
 * Chunk c of a message lives in slot c mod depth. A send queues the device-to-host copies
 * of the first `depth` chunks at once; pack waits for a chunk's copy, hands its bytes to
 * UCX, and when the chunk has gone whole queues the copy of chunk c + depth into its slot.
 * A receive's unpack fills chunk c's slot, and when the chunk is whole queues its
 * host-to-device copy; the slot is taken again by chunk c + depth after that copy ended.
 */
#include "rt_stage.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda.h"
#include "rt_log.h"
#include "rt_stage_plan.h"
#include "rt_ucx.h"

gdc_rt_stage_mode_t gdc_rt_stage_mode;
int                 gdc_rt_stage_host_test;

#define NO_CHUNK SIZE_MAX

/* A pinned buffer of the pool, lent in segments: a slot takes as many contiguous ones as
 * its chunk needs, so that a message of small chunks holds little. */
#define SEGMENT              GDC_RT_STAGE_MIN_CHUNK
#define SEGMENTS_PER_BUFFER  (GDC_RT_STAGE_BUFFER_SIZE / SEGMENT)
_Static_assert(SEGMENTS_PER_BUFFER == 32, "a buffer's segments are the bits of a uint32_t");

typedef struct stage_buffer {
    struct stage_buffer *next;
    char                *bytes;
    uint32_t             used; /* a bit per segment */
    int                  pinned;
} stage_buffer_t;

/* A copy queued on the device, or in the host test a copy made when first asked about (so
 * that the pipeline meets copies still running, as on a GPU). */
typedef struct stage_copy {
    gdc_rt_cu_event_t event;
    void             *dst;
    const void       *src;
    size_t            n;
    int               queued;
    int               on_host; /* the host test's copy */
} stage_copy_t;

typedef struct stage_slot {
    char           *bounce; /* chunk bytes of a bounce buffer */
    stage_buffer_t *owner;  /* the pool's buffer they are in; NULL: malloc'd past the pool */
    size_t          chunk;  /* the chunk it holds, NO_CHUNK */
    size_t          bytes; /* of that chunk: handed to UCX (send), or come from it (receive) */
    stage_copy_t    copy;
} stage_slot_t;

/* What a receive's chunk has become. */
enum { CHUNK_NEW = 0, CHUNK_IN_SLOT, CHUNK_DIRECT, CHUNK_QUEUED };

struct gdc_rt_stage {
    int                 is_recv;
    int                 on_host;   /* a host buffer (GDC_STAGING_HOST_TEST): host copies */
    int                 abandoned; /* given up to UCX: pack and unpack touch nothing */
    char               *user;
    size_t              length;
    int                 peer;
    gdc_rt_stage_plan_t plan;
    int                 have_bounce; /* 1, 0 not yet (a receive's come with its bytes), -1 none to be had */
    stage_slot_t        slots[GDC_RT_STAGE_BUFFERS_PER_MESSAGE];
    unsigned char      *chunk_state; /* receive: per chunk */
    int                 flushed;     /* receive: its last copies queued */
    gdc_status_t        status;      /* the first copy that failed */
};

static struct {
    stage_buffer_t *buffers;
    unsigned        allocated;
    ucp_datatype_t  datatype;
    int             datatype_made;
    gdc_rt_stage_counts_t counts; /* said at gdc_finalize */
} pool;

int gdc_rt_stage_parse_mode(const char *value, void *dest, const char **why)
{
    static const char *const names[] = {"pipeline", "whole"};

    for (int i = 0; i < 2; i++) {
        if (strcmp(value, names[i]) == 0) {
            *(gdc_rt_stage_mode_t *)dest = (gdc_rt_stage_mode_t)i;
            return 0;
        }
    }
    *why = "pipeline or whole";
    return -1;
}

unsigned gdc_rt_stage_max_buffers = GDC_RT_STAGE_MAX_BUFFERS;

int gdc_rt_stage_parse_buffers(const char *value, void *dest, const char **why)
{
    char         *end;
    unsigned long n = strtoul(value, &end, 10);

    *why = "a number of buffers from 0 to 4096";
    if (end == value || *end != '\0' || value[0] == '-' || n > 4096) {
        return -1;
    }
    *(unsigned *)dest = (unsigned)n;
    return 0;
}

int gdc_rt_stage_wanted(gdc_rt_memtype_t memtype)
{
    if (memtype == GDC_RT_MEM_HOST) {
        return gdc_rt_stage_host_test;
    }
    if (memtype != GDC_RT_MEM_CUDA || gdc_rt_ucx_handles_cuda()) {
        return 0;
    }
    GDC_LOG_WARN_ONCE("UCX has no CUDA transport: device buffers to other processes over UCX are staged through "
                      "host memory, pipelined from %zu KiB (slow path; fix: a UCX built with CUDA, for GPUDirect)",
                      2 * GDC_RT_STAGE_MIN_CHUNK >> 10);
    return 1;
}

gdc_status_t gdc_rt_stage_copy(void *dst, const void *src, size_t n, gdc_rt_memtype_t memtype)
{
    if (memtype == GDC_RT_MEM_HOST) {
        memcpy(dst, src, n);
        return GDC_SUCCESS;
    }
    return gdc_rt_cuda_copy(dst, src, n);
}

/* ---------------------------------------------------------------------------------------
 * Copies
 */

static gdc_status_t copy_queue(gdc_rt_stage_t *stage, stage_copy_t *copy, void *dst, const void *src, size_t n)
{
    gdc_status_t status = GDC_SUCCESS;

    copy->on_host = stage->on_host;
    if (copy->on_host) {
        copy->dst = dst;
        copy->src = src;
        copy->n   = n;
    } else {
        status = gdc_rt_cuda_copy_async(dst, src, n, stage->user, &copy->event);
    }
    copy->queued = status == GDC_SUCCESS;
    return status;
}

/* The host test's copy, made the first time it is asked about; 1 when it was made now. */
static int host_copy_now(stage_copy_t *copy)
{
    if (copy->dst == NULL) {
        return 0;
    }
    memcpy(copy->dst, copy->src, copy->n);
    copy->dst = NULL;
    return 1;
}

static int copy_done(stage_copy_t *copy, gdc_status_t *status)
{
    if (!copy->queued) {
        return 1;
    }
    if (copy->on_host) {
        if (host_copy_now(copy)) {
            return 0; /* seen running once, as a device copy may be */
        }
    } else if (!gdc_rt_cuda_event_done(copy->event, status)) {
        return 0;
    }
    copy->queued = 0;
    return 1;
}

static gdc_status_t copy_wait(stage_copy_t *copy)
{
    if (!copy->queued) {
        return GDC_SUCCESS;
    }
    copy->queued = 0;
    if (copy->on_host) {
        (void)host_copy_now(copy);
        return GDC_SUCCESS;
    }
    return gdc_rt_cuda_event_wait(copy->event);
}

static gdc_rt_memtype_t memtype_of(const gdc_rt_stage_t *stage)
{
    return stage->on_host ? GDC_RT_MEM_HOST : GDC_RT_MEM_CUDA;
}

static void note_failure(gdc_rt_stage_t *stage, gdc_status_t status)
{
    if (stage->status == GDC_SUCCESS) {
        stage->status = status;
    }
}

/* Bytes outside the pipeline: straight between the device and UCX's buffer. */
static void copy_direct(gdc_rt_stage_t *stage, void *dst, const void *src, size_t n)
{
    gdc_status_t status = gdc_rt_stage_copy(dst, src, n, memtype_of(stage));

    pool.counts.direct_bytes += n;
    GDC_LOG_DEBUG("staging: %zu bytes %s rank %d out of the pipeline's order, copied directly", n,
                  stage->is_recv ? "from" : "to", stage->peer);
    if (status != GDC_SUCCESS) {
        note_failure(stage, status);
    }
}

/* ---------------------------------------------------------------------------------------
 * The pool of bounce buffers
 */

/* A new buffer of the pool, pinned for every context (from the context of near, a device
 * buffer, when the thread has none current). */
static stage_buffer_t *buffer_new(const void *near)
{
    stage_buffer_t *buffer = calloc(1, sizeof(*buffer));
    void           *bytes;

    if (buffer == NULL || posix_memalign(&bytes, GDC_RT_STAGE_ALIGN, GDC_RT_STAGE_BUFFER_SIZE) != 0) {
        free(buffer);
        return NULL;
    }
    buffer->bytes  = bytes;
    buffer->pinned = gdc_rt_cuda_pin(bytes, GDC_RT_STAGE_BUFFER_SIZE, near);
    buffer->next   = pool.buffers;
    pool.buffers   = buffer;
    pool.allocated++;
    return buffer;
}

/* The segments that bytes take: their count, and their bits from bit 0. */
static unsigned segments_of(size_t bytes, uint32_t *run)
{
    unsigned n = (unsigned)((bytes + SEGMENT - 1) / SEGMENT);

    *run = n == SEGMENTS_PER_BUFFER ? ~(uint32_t)0 : ((uint32_t)1 << n) - 1;
    return n;
}

/* The first run of free segments for bytes in buffer, taken; NULL when there is none. */
static char *segments_take(stage_buffer_t *buffer, size_t bytes)
{
    uint32_t run;
    unsigned n = segments_of(bytes, &run);

    for (unsigned at = 0; at + n <= SEGMENTS_PER_BUFFER; at++) {
        if ((buffer->used & (run << at)) == 0) {
            buffer->used |= run << at;
            return buffer->bytes + at * SEGMENT;
        }
    }
    return NULL;
}

/* bytes (at most a buffer) of bounce memory for a slot: from the pool, a new buffer while
 * the pool may grow, and past it malloc'd memory for this slot only (unpinned: the device
 * copies from it are slower, but the pipeline goes on). */
static char *bounce_get(size_t bytes, const void *near, stage_buffer_t **owner)
{
    char *at;
    void *own;

    for (stage_buffer_t *buffer = pool.buffers; buffer != NULL; buffer = buffer->next) {
        if ((at = segments_take(buffer, bytes)) != NULL) {
            *owner = buffer;
            return at;
        }
    }
    if (pool.allocated < gdc_rt_stage_max_buffers && buffer_new(near) != NULL) {
        *owner = pool.buffers;
        return segments_take(pool.buffers, bytes);
    }
    GDC_LOG_WARN_ONCE("staging: all %u pinned bounce buffers of %zu KiB (GDC_STAGING_BUFFERS) are taken by "
                      "messages in flight: the messages beyond them get unpinned memory of their own (slower device "
                      "copies)",
                      gdc_rt_stage_max_buffers, GDC_RT_STAGE_BUFFER_SIZE >> 10);
    pool.counts.overflow++;
    *owner = NULL;
    return posix_memalign(&own, GDC_RT_STAGE_ALIGN, bytes) == 0 ? own : NULL;
}

static stage_buffer_t *owner_of(const char *at)
{
    for (stage_buffer_t *buffer = pool.buffers; buffer != NULL; buffer = buffer->next) {
        if (at >= buffer->bytes && at < buffer->bytes + GDC_RT_STAGE_BUFFER_SIZE) {
            return buffer;
        }
    }
    return NULL;
}

static void bounce_put(stage_buffer_t *owner, char *at, size_t bytes)
{
    uint32_t run;

    if (owner == NULL) {
        free(at);
        return;
    }
    (void)segments_of(bytes, &run);
    owner->used &= ~(run << ((size_t)(at - owner->bytes) / SEGMENT));
}

void *gdc_rt_stage_whole_alloc(size_t len, const void *near)
{
    stage_buffer_t *owner;

    return len <= GDC_RT_STAGE_BUFFER_SIZE ? bounce_get(len, near, &owner) : malloc(len);
}

void gdc_rt_stage_whole_free(void *buf, size_t len)
{
    if (buf != NULL) {
        bounce_put(len <= GDC_RT_STAGE_BUFFER_SIZE ? owner_of(buf) : NULL, buf, len);
    }
}

/* ---------------------------------------------------------------------------------------
 * Chunks
 */

static size_t chunk_bytes(const gdc_rt_stage_t *stage, size_t chunk)
{
    return chunk + 1 < stage->plan.num_chunks ? stage->plan.chunk : stage->plan.last_chunk;
}

static stage_slot_t *slot_of(gdc_rt_stage_t *stage, size_t chunk)
{
    return &stage->slots[chunk % stage->plan.depth];
}

/* Send: queue chunk's device-to-host copy into slot. */
static void load(gdc_rt_stage_t *stage, stage_slot_t *slot, size_t chunk)
{
    gdc_status_t status = copy_queue(stage, &slot->copy, slot->bounce, stage->user + chunk * stage->plan.chunk,
                                     chunk_bytes(stage, chunk));

    slot->chunk = status == GDC_SUCCESS ? chunk : NO_CHUNK;
    slot->bytes = 0;
    if (status != GDC_SUCCESS) {
        note_failure(stage, status);
    }
}

/* Receive: queue the host-to-device copy of a slot's n bytes of chunk. */
static void unload(gdc_rt_stage_t *stage, stage_slot_t *slot, size_t chunk, size_t n)
{
    void        *dst    = stage->user + chunk * stage->plan.chunk;
    gdc_status_t status = copy_queue(stage, &slot->copy, dst, slot->bounce, n);

    if (status != GDC_SUCCESS) { /* logged; the bytes are in the slot: try them synchronously */
        status = gdc_rt_stage_copy(dst, slot->bounce, n, memtype_of(stage));
    }
    if (status != GDC_SUCCESS) {
        note_failure(stage, status);
    }
    stage->chunk_state[chunk] = CHUNK_QUEUED;
}

static void give_back_bounce(gdc_rt_stage_t *stage)
{
    for (size_t s = 0; s < GDC_RT_STAGE_BUFFERS_PER_MESSAGE; s++) {
        stage_slot_t *slot = &stage->slots[s];

        if (slot->bounce != NULL) {
            bounce_put(slot->owner, slot->bounce, stage->plan.chunk);
            slot->bounce = NULL;
        }
    }
}

/* The message's bounce memory: a slot of a chunk's size for each of depth chunks. 0 when
 * not even unpinned memory could be had (logged). */
static int take_bounce(gdc_rt_stage_t *stage)
{
    if (stage->have_bounce != 0) {
        return stage->have_bounce > 0;
    }
    for (size_t s = 0; s < stage->plan.depth; s++) {
        stage_slot_t *slot = &stage->slots[s];

        slot->bounce = bounce_get(stage->plan.chunk, stage->user, &slot->owner);
        if (slot->bounce == NULL) {
            GDC_LOG_WARN_ONCE("staging: no memory for a bounce buffer: a message's bytes are copied directly "
                              "as they come (slow)");
            give_back_bounce(stage);
            stage->have_bounce = -1;
            return 0;
        }
    }
    stage->have_bounce = 1;
    return 1;
}


/* Receive: the slot for chunk's bytes, NULL when they go directly (its slot still holds an
 * earlier chunk that is not whole: out of order). */
static stage_slot_t *slot_to_fill(gdc_rt_stage_t *stage, size_t chunk)
{
    stage_slot_t *slot = slot_of(stage, chunk);
    gdc_status_t  status;

    if (stage->chunk_state[chunk] == CHUNK_IN_SLOT) {
        return slot;
    }
    if (stage->chunk_state[chunk] != CHUNK_NEW) {
        return NULL;
    }
    if (slot->chunk != NO_CHUNK && stage->chunk_state[slot->chunk] != CHUNK_QUEUED) {
        stage->chunk_state[chunk] = CHUNK_DIRECT;
        return NULL;
    }
    if (!take_bounce(stage)) {
        stage->chunk_state[chunk] = CHUNK_DIRECT;
        return NULL;
    }
    status = copy_wait(&slot->copy);
    if (status != GDC_SUCCESS) {
        note_failure(stage, status);
        stage->chunk_state[chunk] = CHUNK_DIRECT;
        return NULL;
    }
    slot->chunk               = chunk;
    slot->bytes               = 0;
    stage->chunk_state[chunk] = CHUNK_IN_SLOT;
    return slot;
}

/* ---------------------------------------------------------------------------------------
 * The generic datatype: UCX hands us the stage as the buffer
 */

static void *start_pack(void *context, const void *buffer, size_t count)
{
    (void)context;
    (void)count;
    return (void *)buffer;
}

static void *start_unpack(void *context, void *buffer, size_t count)
{
    (void)context;
    (void)count;
    return buffer;
}

static size_t packed_size(void *state)
{
    return ((gdc_rt_stage_t *)state)->length;
}

static size_t pack(void *state, size_t offset, void *dest, size_t max_length)
{
    gdc_rt_stage_t *stage = state;
    size_t          n     = offset < stage->length ? stage->length - offset : 0, done = 0;

    n = n < max_length ? n : max_length;
    if (stage->abandoned) { /* its sender's buffer is no longer ours to read */
        memset(dest, 0, n);
        return n;
    }
    while (done < n) {
        size_t        at = offset + done, chunk = at / stage->plan.chunk, in = at - chunk * stage->plan.chunk;
        size_t        piece = chunk_bytes(stage, chunk) - in;
        stage_slot_t *slot  = slot_of(stage, chunk);
        gdc_status_t  status;

        piece = piece < n - done ? piece : n - done;
        if (slot->chunk != chunk) {
            copy_direct(stage, (char *)dest + done, stage->user + at, piece);
        } else if ((status = copy_wait(&slot->copy)) != GDC_SUCCESS) {
            note_failure(stage, status);
            slot->chunk = NO_CHUNK;
            copy_direct(stage, (char *)dest + done, stage->user + at, piece);
        } else {
            memcpy((char *)dest + done, slot->bounce + in, piece);
            slot->bytes += piece;
            pool.counts.bounced_bytes += piece;
            if (slot->bytes == chunk_bytes(stage, chunk) && chunk + stage->plan.depth < stage->plan.num_chunks) {
                load(stage, slot, chunk + stage->plan.depth);
            }
        }
        done += piece;
    }
    return n;
}

static ucs_status_t unpack(void *state, size_t offset, const void *src, size_t length)
{
    gdc_rt_stage_t *stage = state;
    size_t          done  = 0;

    if (offset > stage->length || length > stage->length - offset) {
        return UCS_ERR_MESSAGE_TRUNCATED;
    }
    if (stage->abandoned) { /* its receiver's buffer is no longer ours to write */
        return UCS_OK;
    }
    while (done < length) {
        size_t        at = offset + done, chunk = at / stage->plan.chunk, in = at - chunk * stage->plan.chunk;
        size_t        piece = chunk_bytes(stage, chunk) - in;
        stage_slot_t *slot  = slot_to_fill(stage, chunk);

        piece = piece < length - done ? piece : length - done;
        if (slot == NULL) {
            copy_direct(stage, stage->user + at, (const char *)src + done, piece);
        } else {
            memcpy(slot->bounce + in, (const char *)src + done, piece);
            slot->bytes += piece;
            pool.counts.bounced_bytes += piece;
            if (slot->bytes == chunk_bytes(stage, chunk)) {
                unload(stage, slot, chunk, slot->bytes);
            }
        }
        done += piece;
    }
    return UCS_OK;
}

static void finish(void *state)
{
    (void)state; /* the stage is the message's, ended by gdc_rt_stage_end */
}

static const ucp_generic_dt_ops_t stage_ops = {start_pack, start_unpack, packed_size, pack, unpack, finish};

const ucp_generic_dt_ops_t *gdc_rt_stage_ops(void)
{
    return &stage_ops;
}

void gdc_rt_stage_counts(gdc_rt_stage_counts_t *out)
{
    *out = pool.counts;
}

ucp_datatype_t gdc_rt_stage_datatype(void)
{
    return pool.datatype;
}

static int datatype_ready(void)
{
    ucs_status_t status;

    if (pool.datatype_made) {
        return 1;
    }
    status = ucp_dt_create_generic(&stage_ops, NULL, &pool.datatype);
    if (status != UCS_OK) {
        GDC_LOG_WARN_ONCE("staging: UCX refused a generic datatype (%s): device messages are staged whole, "
                          "without overlap", ucs_status_string(status));
        return 0;
    }
    pool.datatype_made = 1;
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * A message's pipeline
 */

static void say_first(const gdc_rt_stage_t *stage)
{
    static int said;

    if (said) {
        return;
    }
    said = 1;
    GDC_LOG_INFO("staging: the first pipelined message (%zu bytes %s rank %d): %zu chunks of %zu bytes, %zu in "
                 "flight through bounce slots of pinned host memory",
                 stage->length, stage->is_recv ? "from" : "to", stage->peer, stage->plan.num_chunks, stage->plan.chunk,
                 stage->plan.depth);
}

/* A send takes its bounce buffers now, to start its first copies; a receive as its bytes
 * come, so that receives posted long before their messages hold none idle. */
gdc_rt_stage_t *gdc_rt_stage_start(int is_recv, void *buf, size_t len, gdc_rt_memtype_t memtype, int peer)
{
    gdc_rt_stage_t *stage;

    if (gdc_rt_stage_mode == GDC_RT_STAGE_WHOLE || len < 2 * GDC_RT_STAGE_MIN_CHUNK || !datatype_ready() ||
        (stage = calloc(1, sizeof(*stage))) == NULL) {
        pool.counts.whole++;
        return NULL;
    }
    stage->is_recv = is_recv;
    stage->on_host = memtype == GDC_RT_MEM_HOST;
    stage->user    = buf;
    stage->length  = len;
    stage->peer    = peer;
    for (size_t s = 0; s < GDC_RT_STAGE_BUFFERS_PER_MESSAGE; s++) {
        stage->slots[s].chunk = NO_CHUNK;
    }
    if (gdc_rt_stage_plan(len, GDC_RT_STAGE_BUFFER_SIZE, GDC_RT_STAGE_BUFFERS_PER_MESSAGE, &stage->plan) !=
            GDC_SUCCESS ||
        (is_recv && (stage->chunk_state = calloc(stage->plan.num_chunks, 1)) == NULL) ||
        (!is_recv && !take_bounce(stage))) {
        give_back_bounce(stage);
        free(stage->chunk_state);
        free(stage);
        pool.counts.whole++;
        return NULL;
    }
    say_first(stage);
    pool.counts.pipelined++;
    pool.counts.chunks += stage->plan.num_chunks;
    for (size_t s = 0; !is_recv && s < stage->plan.depth; s++) {
        load(stage, &stage->slots[s], s);
    }
    return stage;
}

/* The receive's chunks still in their slots at its end: the last, short of its full size
 * when the message was shorter than the buffer. */
static void flush(gdc_rt_stage_t *stage, size_t received)
{
    for (size_t s = 0; s < stage->plan.depth; s++) {
        stage_slot_t *slot  = &stage->slots[s];
        size_t        chunk = slot->chunk, start, expected;

        if (chunk == NO_CHUNK || stage->chunk_state[chunk] != CHUNK_IN_SLOT) {
            continue;
        }
        start    = chunk * stage->plan.chunk;
        expected = received > start ? received - start : 0;
        expected = expected < chunk_bytes(stage, chunk) ? expected : chunk_bytes(stage, chunk);
        if (slot->bytes != expected) {
            GDC_LOG_ERROR("staging: a message from rank %d ended with %zu of the %zu bytes of its chunk %zu",
                          stage->peer, slot->bytes, expected, chunk);
            note_failure(stage, GDC_ERR_TRANSPORT);
        } else if (expected > 0) {
            unload(stage, slot, chunk, expected);
        }
    }
}

/* Every copy of the stage waited for; the first failure. */
static gdc_status_t wait_copies(gdc_rt_stage_t *stage)
{
    gdc_status_t first = GDC_SUCCESS;

    for (size_t s = 0; s < stage->plan.depth; s++) {
        gdc_status_t status = copy_wait(&stage->slots[s].copy);

        first = first != GDC_SUCCESS ? first : status;
    }
    return first;
}

int gdc_rt_stage_test(gdc_rt_stage_t *stage, int received_ok, size_t received, gdc_status_t *status)
{
    int done = 1;

    if (stage->is_recv && received_ok && !stage->flushed) {
        flush(stage, received);
    }
    stage->flushed = 1;
    for (size_t s = 0; s < stage->plan.depth; s++) {
        done &= copy_done(&stage->slots[s].copy, &stage->status);
    }
    if (done && stage->status != GDC_SUCCESS && *status == GDC_SUCCESS) {
        *status = stage->status;
    }
    return done;
}

void gdc_rt_stage_end(gdc_rt_stage_t *stage)
{
    (void)wait_copies(stage);
    for (size_t s = 0; s < stage->plan.depth; s++) {
        gdc_rt_cuda_event_destroy(stage->slots[s].copy.event);
    }
    give_back_bounce(stage);
    free(stage->chunk_state);
    free(stage);
}

gdc_status_t gdc_rt_stage_finish(gdc_rt_stage_t *stage, int received_ok, size_t received)
{
    gdc_status_t status = GDC_SUCCESS;

    (void)gdc_rt_stage_test(stage, received_ok, received, &status);
    if (status == GDC_SUCCESS) {
        status = wait_copies(stage);
    }
    gdc_rt_stage_end(stage);
    return status;
}

void gdc_rt_stage_abandon(gdc_rt_stage_t *stage)
{
    (void)wait_copies(stage);
    give_back_bounce(stage);
    stage->abandoned = 1;
    pool.counts.abandoned++;
}

void gdc_rt_stage_finalize(void)
{
    if (pool.counts.pipelined > 0 || pool.counts.whole > 0) {
        GDC_LOG_INFO("staging: %lu messages pipelined in %lu chunks, %zu bytes through the bounce buffers (%zu out "
                     "of order, copied directly; %lu slots in unpinned memory past the pool; %lu given up to UCX "
                     "on a cancel), %lu staged whole",
                     pool.counts.pipelined, pool.counts.chunks, pool.counts.bounced_bytes, pool.counts.direct_bytes,
                     pool.counts.overflow, pool.counts.abandoned, pool.counts.whole);
    }
    while (pool.buffers != NULL) {
        stage_buffer_t *buffer = pool.buffers;

        pool.buffers = buffer->next;
        if (buffer->pinned) {
            gdc_rt_cuda_unpin(buffer->bytes);
        }
        free(buffer->bytes);
        free(buffer);
    }
    if (pool.datatype_made) {
        ucp_dt_destroy(pool.datatype);
    }
    memset(&pool, 0, sizeof(pool));
}
