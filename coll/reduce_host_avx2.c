/*
 * The host kernels for x86-64 CPUs with AVX2 and F16C (Intel since 2013, AMD since 2015),
 * chosen at run time by reduce_host.c: the same loops vectorized 256 bits wide, and fp16
 * converted by the F16C instructions (vcvtph2ps is exact; vcvtps2ph with an immediate
 * round-to-nearest-even rounds as half.h does), which makes fp16 reductions about as fast
 * as float32 ones.
 */
#include "reduce_host.h"

#ifdef GDC_COLL_HAVE_ISA_AVX2
#include <immintrin.h>

#include "half.h"

#define GDC_COLL_AVX2_TARGET __attribute__((target("avx2,f16c")))

static GDC_COLL_AVX2_TARGET void half_decode_n(float *restrict dst, const uint16_t *restrict src,
                                                size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        __m128i halves = _mm_loadu_si128((const __m128i *)(src + i));

        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(halves));
    }
    for (; i < n; i++) {
        dst[i] = gdc_coll_half_decode(src[i]);
    }
}

/* Only for results of the float32 operations, whose NaNs are canonical already: the
 * canonical float NaN converts to the canonical fp16 NaN (another one would keep part of
 * its payload). */
static GDC_COLL_AVX2_TARGET void half_encode_n(uint16_t *restrict dst, const float *restrict src,
                                                size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);

        _mm_storeu_si128((__m128i *)(dst + i), halves);
    }
    for (; i < n; i++) {
        dst[i] = gdc_coll_half_encode(src[i]);
    }
}

#define GDC_COLL_ISA                  avx2
#define GDC_COLL_KERNEL_TARGET        GDC_COLL_AVX2_TARGET
#define GDC_COLL_HALF_DECODE_N(...)   half_decode_n(__VA_ARGS__)
#define GDC_COLL_HALF_ENCODE_N(...)   half_encode_n(__VA_ARGS__)
#include "reduce_host_kernels.h"

#else
/* Not x86-64 with GCC or clang: only the generic kernels exist. */
typedef int gdc_coll_no_avx2_kernels_t;
#endif
