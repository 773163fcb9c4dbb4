/*
 * The 64-bit UCX tag of every gdc message.
 *
 *   63      62              61 .. 44        43 .. 24         23 .. 0
 *   class   read by cma     context id      source rank      payload
 *   (1 bit) (1 bit)         (18 bits)       (20 bits)        (24 bits)
 *
 * class 0, point-to-point: payload = internal flag (bit 23) | user tag (23 bits). The
 *          internal flag marks the runtime's own messages (communicator construction).
 * class 1, collective:     payload = sequence number of the collective on its communicator
 *          (12 bits) | message slot inside the collective (12 bits).
 *
 * The context id keeps communicators apart, the source rank (in the communicator) lets a
 * receive name its sender, and the class and sequence keep user messages and concurrent
 * collectives apart. A receive matches every bit but "read by cma" (GDC_RT_TAG_RECV_MASK):
 * a message with it set carries where its bytes are, and its receiver reads them from the
 * sender's memory by cross-memory attach and answers with a message of its own, tagged by
 * gdc_rt_tag_cma_done in the context id no communicator gets (rt_msg.c).
 */
#ifndef GDC_RT_TAG_H
#define GDC_RT_TAG_H

#include <stdint.h>

#define GDC_RT_TAG_CLASS_SHIFT   63
#define GDC_RT_TAG_CTX_SHIFT     44
#define GDC_RT_TAG_CTX_BITS      18
#define GDC_RT_TAG_SRC_SHIFT     24
#define GDC_RT_TAG_SRC_BITS      20
#define GDC_RT_TAG_PAYLOAD_BITS  24
#define GDC_RT_TAG_USER_BITS     23
#define GDC_RT_TAG_SEQ_BITS      12
#define GDC_RT_TAG_SLOT_BITS     12

#define GDC_RT_TAG_CMA_CTX       ((1u << GDC_RT_TAG_CTX_BITS) - 1) /* the answers to cma reads */
#define GDC_RT_TAG_MAX_CTX       (GDC_RT_TAG_CMA_CTX - 1)          /* a communicator's highest */
#define GDC_RT_TAG_CMA_FLAG      ((uint64_t)1 << 62)
#define GDC_RT_TAG_RECV_MASK     (~GDC_RT_TAG_CMA_FLAG)
#define GDC_RT_TAG_MAX_RANKS     (1 << GDC_RT_TAG_SRC_BITS)
#define GDC_RT_TAG_MAX_USER      ((1 << GDC_RT_TAG_USER_BITS) - 1)
#define GDC_RT_TAG_SEQ_MASK      ((1u << GDC_RT_TAG_SEQ_BITS) - 1)
#define GDC_RT_TAG_SLOT_MASK     ((1u << GDC_RT_TAG_SLOT_BITS) - 1)
#define GDC_RT_TAG_INTERNAL_FLAG (1u << GDC_RT_TAG_USER_BITS)
#define GDC_RT_TAG_FULL_MASK     (~(uint64_t)0)

static inline uint64_t gdc_rt_tag_make(unsigned cls, uint32_t ctx, uint32_t src, uint32_t payload)
{
    return ((uint64_t)(cls & 1u) << GDC_RT_TAG_CLASS_SHIFT) |
           ((uint64_t)(ctx & GDC_RT_TAG_CMA_CTX) << GDC_RT_TAG_CTX_SHIFT) |
           ((uint64_t)(src & (GDC_RT_TAG_MAX_RANKS - 1)) << GDC_RT_TAG_SRC_SHIFT) |
           ((uint64_t)payload & ((1u << GDC_RT_TAG_PAYLOAD_BITS) - 1));
}

/* A user point-to-point message (tag 0..GDC_RT_TAG_MAX_USER). */
static inline uint64_t gdc_rt_tag_p2p(uint32_t ctx, uint32_t src, int user_tag)
{
    return gdc_rt_tag_make(0, ctx, src, (uint32_t)user_tag & GDC_RT_TAG_MAX_USER);
}

/* A runtime-internal message (communicator construction), never matched by user receives. */
static inline uint64_t gdc_rt_tag_internal(uint32_t ctx, uint32_t src, uint32_t seq)
{
    return gdc_rt_tag_make(0, ctx, src, GDC_RT_TAG_INTERNAL_FLAG | (seq & GDC_RT_TAG_MAX_USER));
}

/* A collective's message: seq is the collective's number on the communicator, slot the
 * message's number among those between this pair of ranks in the collective. */
static inline uint64_t gdc_rt_tag_coll(uint32_t ctx, uint32_t src, uint32_t seq, uint32_t slot)
{
    return gdc_rt_tag_make(1, ctx, src,
                           ((seq & GDC_RT_TAG_SEQ_MASK) << GDC_RT_TAG_SLOT_BITS) |
                               (slot & GDC_RT_TAG_SLOT_MASK));
}

/* The answer of rank `reader` (world) to the read of the sender's message number seq. */
static inline uint64_t gdc_rt_tag_cma_done(uint32_t reader, uint32_t seq)
{
    return gdc_rt_tag_make(0, GDC_RT_TAG_CMA_CTX, reader, seq);
}

static inline unsigned gdc_rt_tag_class(uint64_t tag)
{
    return (unsigned)(tag >> GDC_RT_TAG_CLASS_SHIFT);
}

static inline uint32_t gdc_rt_tag_ctx(uint64_t tag)
{
    return (uint32_t)(tag >> GDC_RT_TAG_CTX_SHIFT) & GDC_RT_TAG_CMA_CTX;
}

static inline uint32_t gdc_rt_tag_src(uint64_t tag)
{
    return (uint32_t)(tag >> GDC_RT_TAG_SRC_SHIFT) & (GDC_RT_TAG_MAX_RANKS - 1);
}

static inline uint32_t gdc_rt_tag_payload(uint64_t tag)
{
    return (uint32_t)tag & ((1u << GDC_RT_TAG_PAYLOAD_BITS) - 1);
}

#endif
