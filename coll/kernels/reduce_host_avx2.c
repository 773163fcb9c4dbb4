/*
 * The host kernels for x86-64 CPUs with AVX2 and F16C (Intel since 2013, AMD since 2015),
 * chosen at run time by reduce_host.c: the same loops vectorized 256 bits wide, and fp16
 * converted by the F16C instructions (vcvtph2ps is exact; vcvtps2ph with an immediate
 * round-to-nearest-even rounds as half.h does), which makes fp16 reductions about as fast
 * as float32 ones.
 */
#include "kernels/reduce_host.h"

#ifdef GDC_COLL_HAVE_ISA_AVX2
#include <immintrin.h>

#include "kernels/half.h"
#include "kernels/reduce_ops.h"

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

/* dst = a + b for fp16 in one pass (the hot operation: no staging through float
 * buffers): gdc_coll_sum_f16's semantics, one float addition rounded once, NaN canonical,
 * 8 elements at a time. dst may be a or b (each vector is loaded before it is stored). */
static GDC_COLL_AVX2_TARGET void half_sum_n(uint16_t *dst, const uint16_t *a, const uint16_t *b,
                                             size_t n)
{
    const __m256 canonical_nan = _mm256_castsi256_ps(_mm256_set1_epi32((int)GDC_COLL_F32_NAN));
    size_t       i             = 0;

    for (; i + 8 <= n; i += 8) {
        __m256 x   = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256 y   = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(b + i)));
        __m256 sum = _mm256_add_ps(x, y);

        sum = _mm256_blendv_ps(sum, canonical_nan, _mm256_cmp_ps(sum, sum, _CMP_UNORD_Q));
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(sum, _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; i++) {
        dst[i] = gdc_coll_sum_f16(a[i], b[i]);
    }
}

#define GDC_COLL_ISA                  avx2
#define GDC_COLL_KERNEL_TARGET        GDC_COLL_AVX2_TARGET
#define GDC_COLL_HALF_DECODE_N(...)   half_decode_n(__VA_ARGS__)
#define GDC_COLL_HALF_ENCODE_N(...)   half_encode_n(__VA_ARGS__)
#define GDC_COLL_HALF_SUM_N(...)      half_sum_n(__VA_ARGS__)
#include "kernels/reduce_host_kernels.h"

#else
/* Not x86-64 with GCC or clang: only the generic kernels exist. */
typedef int gdc_coll_no_avx2_kernels_t;
#endif
