/*
 * The staging pipeline's chunks.
 */
#include "rt_stage_plan.h"

#include "rt_log.h"

gdc_status_t gdc_rt_stage_plan(size_t bytes, size_t buffer_size, unsigned num_buffers, gdc_rt_stage_plan_t *out)
{
    gdc_rt_stage_plan_t plan = {0, 0, 0, 0};
    size_t              target, chunk;

    if (out == NULL || buffer_size == 0 || num_buffers == 0) {
        GDC_LOG_ERROR("staging plan: %s", out == NULL ? "out is NULL" :
                                          num_buffers == 0 ? "no bounce buffer" : "bounce buffers of 0 bytes");
        return GDC_ERR_INVALID_ARG;
    }
    if (bytes == 0) {
        *out = plan;
        return GDC_SUCCESS;
    }
    /* One buffer cannot overlap anything: the fewest chunks then. */
    target = num_buffers == 1 ? 1 : (size_t)num_buffers * GDC_RT_STAGE_CHUNKS_PER_BUFFER;
    chunk  = bytes / target + (bytes % target != 0);
    /* bytes / target <= SIZE_MAX / 2 when target > 1, so rounding up cannot wrap; with
     * target 1 the buffer bounds the chunk just below anyway. */
    if (chunk <= (size_t)-1 - (GDC_RT_STAGE_ALIGN - 1)) {
        chunk = (chunk + GDC_RT_STAGE_ALIGN - 1) / GDC_RT_STAGE_ALIGN * GDC_RT_STAGE_ALIGN;
    }
    if (chunk < GDC_RT_STAGE_MIN_CHUNK) {
        chunk = GDC_RT_STAGE_MIN_CHUNK;
    }
    if (chunk > buffer_size) {
        chunk = buffer_size;
    }
    if (chunk > bytes) {
        chunk = bytes;
    }
    plan.chunk      = chunk;
    plan.num_chunks = bytes / chunk + (bytes % chunk != 0);
    plan.last_chunk = bytes - (plan.num_chunks - 1) * chunk;
    plan.depth      = plan.num_chunks < num_buffers ? plan.num_chunks : num_buffers;
    *out            = plan;
    return GDC_SUCCESS;
}
