/*
 * Where a buffer lives. The CUDA driver is loaded at run time (rt_cuda.h), so the same
 * binary runs on machines without a driver: there every buffer is host memory.
 */
#ifndef GDC_RT_MEMTYPE_H
#define GDC_RT_MEMTYPE_H

#include <stddef.h>

/* The driver's wrapper: gdc_rt_cuda_available, gdc_rt_cuda_copy, gdc_rt_cuda_alloc, ... */
#include "rt_cuda.h"

typedef enum {
    GDC_RT_MEM_HOST = 0,
    GDC_RT_MEM_CUDA,         /* device memory: not addressable by the CPU */
    GDC_RT_MEM_CUDA_MANAGED  /* managed memory: addressable by both */
} gdc_rt_memtype_t;

gdc_rt_memtype_t gdc_rt_memtype_of(const void *ptr);
const char *gdc_rt_memtype_name(gdc_rt_memtype_t type);

#endif
