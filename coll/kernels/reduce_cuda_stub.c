/*
 * gdc built without CUDA: the CUDA kernels' functions exist and say GDC_ERR_UNSUPPORTED,
 * so callers need no #ifdef. Said once at debug: a build without CUDA is a normal one.
 */
#include "kernels/reduce.h"
#include "kernels/reduce_cuda.h"
#include "rt_log.h"

static gdc_status_t unsupported(const char *fn)
{
    static int said;

    if (!said) {
        said = 1;
        GDC_LOG_DEBUG("%s: gdc was built without CUDA; device kernels are unavailable", fn);
    }
    return GDC_ERR_UNSUPPORTED;
}

gdc_status_t gdc_coll_cuda_available(void)
{
    return unsupported("gdc_coll_cuda_available");
}

gdc_status_t gdc_coll_cuda_malloc(void **ptr, size_t bytes)
{
    return unsupported("gdc_coll_cuda_malloc");
}

gdc_status_t gdc_coll_cuda_free(void *ptr)
{
    return unsupported("gdc_coll_cuda_free");
}

gdc_status_t gdc_coll_cuda_memcpy(void *dst, const void *src, size_t bytes)
{
    return unsupported("gdc_coll_cuda_memcpy");
}

gdc_status_t gdc_coll_reduce_cuda(void *dst, const void *a, const void *b, size_t count,
                                  gdc_dtype_t dtype, gdc_op_t op)
{
    return unsupported("gdc_coll_reduce_cuda");
}

gdc_status_t gdc_coll_avg_finish_cuda(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    return unsupported("gdc_coll_avg_finish_cuda");
}

gdc_status_t gdc_coll_reduce_cuda_queued(void *dst, const void *a, const void *b, size_t count, gdc_dtype_t dtype,
                                         gdc_op_t op)
{
    return unsupported("gdc_coll_reduce_cuda_queued");
}

gdc_status_t gdc_coll_avg_finish_cuda_queued(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    return unsupported("gdc_coll_avg_finish_cuda_queued");
}

gdc_status_t gdc_coll_reduce_many_cuda_queued(void *const *dst, int ndst, const void *const *src, int nsrc,
                                              size_t count, gdc_dtype_t dtype, gdc_op_t op, int avg_n)
{
    return unsupported("gdc_coll_reduce_many_cuda_queued");
}

gdc_status_t gdc_coll_cuda_copy_queued(void *dst, const void *src, size_t bytes)
{
    return unsupported("gdc_coll_cuda_copy_queued");
}

gdc_status_t gdc_coll_cuda_drain(const void *near)
{
    return unsupported("gdc_coll_cuda_drain");
}
