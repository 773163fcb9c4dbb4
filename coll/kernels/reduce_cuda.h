/*
 * CUDA side of the reduction kernels, beyond the two entry points of reduce.h: whether a
 * device can run them, and the device memory the tests (and the executor's scratch
 * buffers) need. Plain C, no CUDA headers. Built without CUDA (coll/kernels/reduce_cuda_stub.c),
 * or with no usable device, every function returns GDC_ERR_UNSUPPORTED.
 *
 * Contract of the device kernels (gdc_coll_reduce_cuda, gdc_coll_avg_finish_cuda):
 * - the buffers are device (or managed) memory of one device, allocated in its primary
 *   context (cudaMalloc in any CUDA runtime of the process); the kernel runs on the
 *   device of dst, which is made current for the call and restored after;
 * - the caller has made the buffers ready (e.g. synchronized the stream that wrote
 *   them), as with CUDA-aware MPI: gdc's internal stream does not wait for other streams;
 * - the results are bit for bit those of the host kernels.
 */
#ifndef GDC_COLL_REDUCE_CUDA_H
#define GDC_COLL_REDUCE_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GDC_SUCCESS when built with CUDA and at least one device is usable, else
 * GDC_ERR_UNSUPPORTED (the reason is logged once, at debug). */
gdc_status_t gdc_coll_cuda_available(void);
/* cudaMalloc on the current device; *ptr is set only on success. */
gdc_status_t gdc_coll_cuda_malloc(void **ptr, size_t bytes);
gdc_status_t gdc_coll_cuda_free(void *ptr);
/* Synchronous copy in any direction (host or device pointers, unified addressing). */
gdc_status_t gdc_coll_cuda_memcpy(void *dst, const void *src, size_t bytes);

/* The kernels and a device copy queued on the internal stream of the buffers' device,
 * without waiting (GDC_DEVICE_QUEUE): they run in the order queued; gdc_coll_cuda_drain
 * waits for everything queued on near's device. */
gdc_status_t gdc_coll_reduce_cuda_queued(void *dst, const void *a, const void *b, size_t count, gdc_dtype_t dtype,
                                         gdc_op_t op);
gdc_status_t gdc_coll_avg_finish_cuda_queued(void *buf, size_t count, gdc_dtype_t dtype, int n);
gdc_status_t gdc_coll_cuda_copy_queued(void *dst, const void *src, size_t bytes);
/* dst[d] = src[0] OP src[1] OP ... OP src[nsrc-1] (in that order; GDC_AVG divided by avg_n)
 * for each of the ndst destinations, in one kernel that reads every source once and writes
 * every destination once, queued. A destination may be a source, not overlap one in part. */
#define GDC_COLL_CUDA_MANY_MAX 16
gdc_status_t gdc_coll_reduce_many_cuda_queued(void *const *dst, int ndst, const void *const *src, int nsrc,
                                              size_t count, gdc_dtype_t dtype, gdc_op_t op, int avg_n);
gdc_status_t gdc_coll_cuda_drain(const void *near);

#ifdef __cplusplus
}
#endif

#endif
