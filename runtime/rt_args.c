#include "rt_args.h"

/* Nothing is ever mapped in the first page: a pointer below it is a sentinel (GDC_IN_PLACE)
 * or a small integer passed by mistake, never memory. */
#define GDC_RT_LOWEST_ADDRESS 4096u

#include <stdint.h>

#include "rt_comm.h"
#include "rt_log.h"

gdc_status_t gdc_rt_check_init(const char *fn)
{
    if (!gdc_rt_is_initialized()) {
        GDC_LOG_ERROR("%s: gdc is not initialized (call gdc_init first)", fn);
        return GDC_ERR_NOT_INITIALIZED;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_check_comm(const char *fn, gdc_comm_t comm)
{
    gdc_status_t status = gdc_rt_check_init(fn);

    if (status != GDC_SUCCESS) {
        return status;
    }
    if (comm == GDC_COMM_NULL) {
        GDC_LOG_ERROR("%s: comm is GDC_COMM_NULL", fn);
        return GDC_ERR_INVALID_ARG;
    }
    if (comm->magic != GDC_RT_COMM_MAGIC) {
        GDC_LOG_ERROR("%s: comm %p is not a live communicator (freed, or not a gdc_comm_t)", fn,
                      (void *)comm);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

int gdc_rt_comm_usable(gdc_comm_t comm)
{
    return gdc_rt_is_initialized() && comm != GDC_COMM_NULL && comm->magic == GDC_RT_COMM_MAGIC;
}

gdc_status_t gdc_rt_check_dtype(const char *fn, gdc_dtype_t dtype)
{
    if (!gdc_rt_dtype_valid(dtype)) {
        GDC_LOG_ERROR("%s: dtype %d is not a gdc_dtype_t", fn, (int)dtype);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_check_op(const char *fn, gdc_op_t op, gdc_dtype_t dtype)
{
    if (!gdc_rt_op_valid(op)) {
        GDC_LOG_ERROR("%s: op %d is not a gdc_op_t", fn, (int)op);
        return GDC_ERR_INVALID_ARG;
    }
    if (dtype == GDC_BYTE) {
        GDC_LOG_ERROR("%s: GDC_BYTE cannot be reduced (op %s); use an integer or float type", fn,
                      gdc_rt_op_name(op));
        return GDC_ERR_INVALID_ARG;
    }
    if ((op == GDC_BAND || op == GDC_BOR || op == GDC_BXOR) && gdc_rt_dtype_is_float(dtype)) {
        GDC_LOG_ERROR("%s: bitwise op %s is not defined for floating-point dtype %s", fn,
                      gdc_rt_op_name(op), gdc_rt_dtype_name(dtype));
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_check_rank(const char *fn, const char *name, int rank, gdc_comm_t comm)
{
    if (rank < 0 || rank >= comm->size) {
        GDC_LOG_ERROR("%s: %s %d is out of range for a communicator of size %d", fn, name, rank,
                      comm->size);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_check_buffer(const char *fn, const char *name, const void *buf, size_t count,
                                 gdc_dtype_t dtype)
{
    size_t size = gdc_dtype_size(dtype), bytes;

    if (buf == GDC_IN_PLACE) {
        GDC_LOG_ERROR("%s: %s is GDC_IN_PLACE, which is not a buffer here", fn, name);
        return GDC_ERR_INVALID_ARG;
    }
    if (count > 0 && buf != NULL && (uintptr_t)buf < GDC_RT_LOWEST_ADDRESS) {
        GDC_LOG_ERROR("%s: %s is %p, not the address of a buffer", fn, name, buf);
        return GDC_ERR_INVALID_ARG;
    }
    if (count > 0 && buf == NULL) {
        GDC_LOG_ERROR("%s: %s is NULL with count %zu", fn, name, count);
        return GDC_ERR_INVALID_ARG;
    }
    /* twice the bytes must fit a size_t; a multiplication, not two divisions: every call
     * checks two buffers, and a 64-bit division costs tens of cycles */
    if (__builtin_mul_overflow(count, 2 * size, &bytes)) {
        GDC_LOG_ERROR("%s: count %zu of %s is too large", fn, count, gdc_rt_dtype_name(dtype));
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_check_pointer(const char *fn, const char *name, const void *ptr)
{
    if (ptr == NULL) {
        GDC_LOG_ERROR("%s: %s is NULL", fn, name);
        return GDC_ERR_INVALID_ARG;
    }
    if ((uintptr_t)ptr < GDC_RT_LOWEST_ADDRESS) {
        GDC_LOG_ERROR("%s: %s is %p (%s), not the address of a variable", fn, name, ptr,
                      ptr == GDC_IN_PLACE ? "GDC_IN_PLACE" : "a small constant");
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}
