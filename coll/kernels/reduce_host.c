/*
 * Host reductions: pick the kernel set for this CPU (reduce_host_generic.c,
 * reduce_host_avx2.c), check the arguments, handle the aliasing cases, and run the loop
 * of (dtype, op) in the IEEE floating-point environment the results are defined in.
 */
#include <stdint.h>
#include <string.h>

#include "kernels/reduce.h"
#include "kernels/reduce_host.h"
#include "rt_args.h"
#include "rt_log.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#else
#include <fenv.h>
#endif
#ifdef GDC_COLL_HAVE_ISA_AVX2
#include <cpuid.h>
#endif

/* ---- which kernel set -------------------------------------------------------------------- */

static const gdc_coll_host_isa_t *host_isa; /* chosen at first use */

#ifdef GDC_COLL_HAVE_ISA_AVX2
static int cpu_has_avx2_f16c(void)
{
    unsigned int eax, ebx, ecx, edx;

    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) &&
           (ecx & bit_F16C) != 0;
}
#endif

static const gdc_coll_host_isa_t *best_isa(void)
{
#ifdef GDC_COLL_HAVE_ISA_AVX2
    if (cpu_has_avx2_f16c()) {
        return &gdc_coll_host_isa_avx2;
    }
    GDC_LOG_WARN("host reduction kernels: this CPU lacks AVX2 or F16C, so the generic SSE2 "
                 "kernels run (fp16 reductions are about 20x slower)");
#endif
    return &gdc_coll_host_isa_generic;
}

static const gdc_coll_host_isa_t *current_isa(void)
{
    if (host_isa == NULL) {
        host_isa = best_isa();
        GDC_LOG_DEBUG("host reduction kernels: %s", host_isa->name);
    }
    return host_isa;
}

const char *gdc_coll_reduce_host_isa(void)
{
    return current_isa()->name;
}

gdc_status_t gdc_coll_reduce_host_select_isa(const char *name)
{
    if (name == NULL) {
        host_isa = NULL; /* back to the CPU's best, at next use */
        return GDC_SUCCESS;
    }
    if (strcmp(name, gdc_coll_host_isa_generic.name) == 0) {
        host_isa = &gdc_coll_host_isa_generic;
        return GDC_SUCCESS;
    }
#ifdef GDC_COLL_HAVE_ISA_AVX2
    if (strcmp(name, gdc_coll_host_isa_avx2.name) == 0 && cpu_has_avx2_f16c()) {
        host_isa = &gdc_coll_host_isa_avx2;
        return GDC_SUCCESS;
    }
#endif
    return GDC_ERR_UNSUPPORTED;
}

/* ---- the floating-point environment ------------------------------------------------------ */

/*
 * The float kernels are defined with round-to-nearest and subnormals kept. An application
 * may have changed either (fesetround; FTZ / DAZ, which -ffast-math start-up code and some
 * compilers' defaults switch on): set the IEEE defaults for the call, then give the
 * caller's settings back (keeping any exception flags the call raised).
 */
#if defined(__SSE2__)
#define MXCSR_NON_IEEE (0x8000u /* FTZ */ | 0x0040u /* DAZ */ | 0x6000u /* rounding */)
#define MXCSR_FLAGS    0x003fu

typedef unsigned int fp_state_t;

static fp_state_t enter_ieee_mode(void)
{
    fp_state_t saved = _mm_getcsr();

    if (saved & MXCSR_NON_IEEE) {
        _mm_setcsr(saved & ~MXCSR_NON_IEEE);
    }
    return saved;
}

static void leave_ieee_mode(fp_state_t saved)
{
    if (saved & MXCSR_NON_IEEE) {
        _mm_setcsr(saved | (_mm_getcsr() & MXCSR_FLAGS));
    }
}
#else
typedef int fp_state_t;

static fp_state_t enter_ieee_mode(void)
{
    fp_state_t saved = fegetround();

    if (saved != FE_TONEAREST) {
        fesetround(FE_TONEAREST);
    }
    return saved;
}

static void leave_ieee_mode(fp_state_t saved)
{
    if (saved != FE_TONEAREST) {
        fesetround(saved);
    }
}
#endif

/* ---- entry points ------------------------------------------------------------------------ */

int gdc_coll_reduce_supported(gdc_dtype_t dtype, gdc_op_t op)
{
    return gdc_rt_dtype_valid(dtype) && gdc_rt_op_valid(op) &&
           gdc_coll_host_isa_generic.kernels[dtype][op].binary != NULL;
}

/* Do [p, p + bytes) and [q, q + bytes) overlap without being the same buffer? */
static int partially_overlap(const void *p, const void *q, size_t bytes)
{
    uintptr_t x = (uintptr_t)p, y = (uintptr_t)q;

    return x != y && x < y + bytes && y < x + bytes;
}

int gdc_coll_buffers_partially_overlap(const void *dst, const void *a, const void *b,
                                       size_t bytes)
{
    return partially_overlap(dst, a, bytes) || partially_overlap(dst, b, bytes);
}

/*
 * dst = dst OP dst: no restrict-clean loop takes one buffer as both operands, so copy the
 * operand chunk by chunk into a stack buffer and use the binary loop with it as a and b
 * (two restrict pointers may alias when neither is written).
 */
static void reduce_with_itself(const gdc_coll_host_kernel_t *kernel, void *inout,
                               size_t count, size_t size)
{
    _Alignas(64) unsigned char operand[4096];
    size_t per_chunk = sizeof(operand) / size;

    for (size_t done = 0; done < count;) {
        size_t chunk = count - done < per_chunk ? count - done : per_chunk;
        void  *part  = (unsigned char *)inout + done * size;

        memcpy(operand, part, chunk * size);
        kernel->binary(part, operand, operand, chunk);
        done += chunk;
    }
}

void gdc_coll_reduce_host(void *dst, const void *a, const void *b, size_t count,
                          gdc_dtype_t dtype, gdc_op_t op)
{
    const gdc_coll_host_kernel_t *kernel;
    size_t                        bytes;
    fp_state_t                    fp_state;

    if (!gdc_coll_reduce_supported(dtype, op)) {
        GDC_LOG_ERROR("gdc_coll_reduce_host: no kernel for op %s on dtype %s (%d, %d); the "
                      "caller should have rejected it", gdc_rt_op_name(op),
                      gdc_rt_dtype_name(dtype), (int)op, (int)dtype);
        return;
    }
    bytes = count * gdc_dtype_size(dtype);
    if (gdc_coll_buffers_partially_overlap(dst, a, b, bytes)) {
        GDC_LOG_ERROR("gdc_coll_reduce_host: dst %p partially overlaps an operand (%p, %p, "
                      "%zu bytes); nothing reduced", dst, a, b, bytes);
        return;
    }
    if (count == 0) {
        return;
    }
    kernel   = &current_isa()->kernels[dtype][op];
    fp_state = enter_ieee_mode();
    if (dst != a && dst != b) {
        kernel->binary(dst, a, b, count);
    } else if (a != b) {
        kernel->in_place(dst, dst == a ? b : a, count); /* every op is commutative */
    } else {
        reduce_with_itself(kernel, dst, count, gdc_dtype_size(dtype));
    }
    leave_ieee_mode(fp_state);
}

void gdc_coll_avg_finish_host(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    fp_state_t fp_state;

    if (!gdc_coll_reduce_supported(dtype, GDC_AVG)) {
        GDC_LOG_ERROR("gdc_coll_avg_finish_host: no average for dtype %s (%d)",
                      gdc_rt_dtype_name(dtype), (int)dtype);
        return;
    }
    if (n < 1) {
        GDC_LOG_ERROR("gdc_coll_avg_finish_host: cannot average over %d contributions", n);
        return;
    }
    if (count == 0) {
        return;
    }
    fp_state = enter_ieee_mode();
    current_isa()->avg_finish[dtype](buf, count, n);
    leave_ieee_mode(fp_state);
}
