/*
 * How a device buffer crosses to a peer through pinned host bounce buffers when no path
 * moves device memory itself: the message is cut into chunks so that the device-to-host
 * copy of one chunk, the send of the one before and the host-to-device copy on the far
 * side overlap. A pure function: the executor takes the plan, the tests check it.
 */
#ifndef GDC_RT_STAGE_PLAN_H
#define GDC_RT_STAGE_PLAN_H

#include <stddef.h>

#include <gdc.h>

/* Below this a chunk's fixed costs (a copy launch, an event, a message: ~10 us together)
 * outweigh the overlap it buys; a smaller message goes as one chunk. */
#define GDC_RT_STAGE_MIN_CHUNK ((size_t)64 << 10)
/* Chunks start at multiples of this, so copies start page-aligned in the bounce buffer. */
#define GDC_RT_STAGE_ALIGN ((size_t)4096)
/* Chunks per bounce buffer the plan aims for: with k chunks in a 3-stage pipeline the
 * stages fill and drain over 2 of k + 2 chunk times, so 4 per buffer (8 with double
 * buffering) keeps that loss near 20% while chunks stay large. */
#define GDC_RT_STAGE_CHUNKS_PER_BUFFER 4

typedef struct gdc_rt_stage_plan {
    size_t chunk;      /* bytes of every chunk but the last; 0 for an empty message */
    size_t num_chunks; /* 0 for an empty message */
    size_t last_chunk; /* bytes of the last chunk: 1..chunk; 0 for an empty message */
    size_t depth;      /* chunks in flight at once: min(bounce buffers, chunks) */
} gdc_rt_stage_plan_t;

/* The plan for bytes through num_buffers bounce buffers of buffer_size bytes each
 * (2: double buffering). A chunk never exceeds buffer_size, and is never below
 * GDC_RT_STAGE_MIN_CHUNK unless the message or the buffer is smaller. GDC_ERR_INVALID_ARG
 * (logged) for no buffer or buffers of 0 bytes. */
gdc_status_t gdc_rt_stage_plan(size_t bytes, size_t buffer_size, unsigned num_buffers, gdc_rt_stage_plan_t *out);

#endif
