/*
 * Internal to the host kernels: a kernel set is the (dtype, op) table of loops compiled
 * for one instruction set. reduce_host_kernels.h instantiates a set; reduce_host.c picks
 * one at load time from the CPU and runs it.
 */
#ifndef GDC_COLL_REDUCE_HOST_H
#define GDC_COLL_REDUCE_HOST_H

#include <stddef.h>

#include "kernels/reduce.h"

typedef void (*gdc_coll_binary_fn_t)(void *dst, const void *a, const void *b, size_t count);
typedef void (*gdc_coll_inplace_fn_t)(void *inout, const void *b, size_t count);
typedef void (*gdc_coll_avg_fn_t)(void *buf, size_t count, int n);

typedef struct {
    gdc_coll_binary_fn_t  binary;   /* dst = a OP b, dst distinct from a and b */
    gdc_coll_inplace_fn_t in_place; /* inout = inout OP b, inout distinct from b */
} gdc_coll_host_kernel_t;

typedef struct {
    const char            *name;
    /* NULL entries: combinations that are not reductions (GDC_BYTE, bitwise on floats) */
    gdc_coll_host_kernel_t kernels[GDC_COLL_NUM_DTYPES][GDC_COLL_NUM_OPS];
    gdc_coll_avg_fn_t      avg_finish[GDC_COLL_NUM_DTYPES];
} gdc_coll_host_isa_t;

/* Plain C, vectorized for the baseline of the target (SSE2 on x86-64). */
extern const gdc_coll_host_isa_t gdc_coll_host_isa_generic;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDC_COLL_HAVE_ISA_AVX2 1
/* The same loops vectorized for AVX2, with fp16 converted by F16C instructions. */
extern const gdc_coll_host_isa_t gdc_coll_host_isa_avx2;
#endif

#endif
