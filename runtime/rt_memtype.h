/*
 * Where a buffer lives. The CUDA driver is loaded at run time (dlopen of libcuda.so.1),
 * so the same binary runs on machines without a driver: there every buffer is host memory.
 */
#ifndef GDC_RT_MEMTYPE_H
#define GDC_RT_MEMTYPE_H

#include <stddef.h>

typedef enum {
    GDC_RT_MEM_HOST = 0,
    GDC_RT_MEM_CUDA,         /* device memory: not addressable by the CPU */
    GDC_RT_MEM_CUDA_MANAGED  /* managed memory: addressable by both */
} gdc_rt_memtype_t;

/* Load the driver if present; safe to call more than once. Never fails: without a
 * driver, CUDA support is simply absent. */
void gdc_rt_memtype_init(void);

/* 1 when the CUDA driver was loaded and reports at least one device. */
int gdc_rt_cuda_available(void);
/* The driver's version as 13000 for 13.0, or 0. Number of devices, or 0. */
int gdc_rt_cuda_driver_version(void);
int gdc_rt_cuda_device_count(void);

gdc_rt_memtype_t gdc_rt_memtype_of(const void *ptr);
const char *gdc_rt_memtype_name(gdc_rt_memtype_t type);

/* Copy n bytes between any two of host and device memory (unified addressing).
 * Returns a gdc status. */
int gdc_rt_cuda_copy(void *dst, const void *src, size_t n);

/* Device memory on the device (and in the context) that owns `near`, for scratch space
 * next to a user's device buffer. */
int  gdc_rt_cuda_alloc(const void *near, size_t n, void **out);
void gdc_rt_cuda_free(void *ptr);

#endif
