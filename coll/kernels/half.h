/*
 * fp16 (IEEE binary16) and bfloat16 conversions, and the few portability helpers the
 * element operations need, as inline functions shared by the host kernels (C) and the
 * CUDA kernels (coll/kernels/reduce_cuda.cu): both compile this same code, so the same inputs
 * give the same bits on the CPU and on the GPU.
 *
 * The conversions are branch-free (every case is computed and the right one selected),
 * so loops that call them vectorize.
 *
 * Rules (what the tests in tests/kernels check):
 * - float -> fp16 / bf16 rounds to nearest, ties to even; a value too large for the format
 *   becomes inf of its sign; values below the smallest subnormal round to (signed) zero.
 * - Any NaN becomes the canonical quiet NaN of the format (fp16 0x7e00, bf16 0x7fc0,
 *   positive, no payload), so results do not depend on which NaN came in.
 * - fp16 / bf16 -> float is exact (subnormals included); a NaN stays a NaN.
 */
#ifndef GDC_COLL_HALF_H
#define GDC_COLL_HALF_H

#include <stdint.h>

/* Qualifier of every element function: host inline code in C, device code in CUDA. */
#ifdef __CUDACC__
#define GDC_COLL_ELEM static __device__ __forceinline__
#else
#define GDC_COLL_ELEM static inline
#endif

/* Canonical quiet NaNs: what every NaN result of a kernel is. */
#define GDC_COLL_HALF_NAN 0x7e00u
#define GDC_COLL_BF16_NAN 0x7fc0u
#define GDC_COLL_F32_NAN  0x7fc00000u
#define GDC_COLL_F64_NAN  0x7ff8000000000000ull

/*
 * IEEE arithmetic, correctly rounded to nearest even. In CUDA the _rn intrinsics are never
 * contracted into an FMA nor approximated, whatever nvcc's flags say.
 */
#ifdef __CUDACC__
#define GDC_COLL_FADD(_a, _b) __fadd_rn(_a, _b)
#define GDC_COLL_FMUL(_a, _b) __fmul_rn(_a, _b)
#define GDC_COLL_FDIV(_a, _b) __fdiv_rn(_a, _b)
#define GDC_COLL_DADD(_a, _b) __dadd_rn(_a, _b)
#define GDC_COLL_DMUL(_a, _b) __dmul_rn(_a, _b)
#define GDC_COLL_DDIV(_a, _b) __ddiv_rn(_a, _b)
#else
#define GDC_COLL_FADD(_a, _b) ((_a) + (_b))
#define GDC_COLL_FMUL(_a, _b) ((_a) * (_b))
#define GDC_COLL_FDIV(_a, _b) ((_a) / (_b))
#define GDC_COLL_DADD(_a, _b) ((_a) + (_b))
#define GDC_COLL_DMUL(_a, _b) ((_a) * (_b))
#define GDC_COLL_DDIV(_a, _b) ((_a) / (_b))
#endif

/* Bit casts between floats and unsigned integers of the same width. */
#ifdef __CUDACC__
GDC_COLL_ELEM uint32_t gdc_coll_f32_bits(float f) { return __float_as_uint(f); }
GDC_COLL_ELEM float gdc_coll_f32_from_bits(uint32_t u) { return __uint_as_float(u); }
GDC_COLL_ELEM uint64_t gdc_coll_f64_bits(double d) { return (uint64_t)__double_as_longlong(d); }
GDC_COLL_ELEM double gdc_coll_f64_from_bits(uint64_t u) { return __longlong_as_double((long long)u); }
#else
GDC_COLL_ELEM uint32_t gdc_coll_f32_bits(float f)
{
    union { float f; uint32_t u; } cast = {.f = f};
    return cast.u;
}
GDC_COLL_ELEM float gdc_coll_f32_from_bits(uint32_t u)
{
    union { uint32_t u; float f; } cast = {.u = u};
    return cast.f;
}
GDC_COLL_ELEM uint64_t gdc_coll_f64_bits(double d)
{
    union { double d; uint64_t u; } cast = {.d = d};
    return cast.u;
}
GDC_COLL_ELEM double gdc_coll_f64_from_bits(uint64_t u)
{
    union { uint64_t u; double d; } cast = {.u = u};
    return cast.d;
}
#endif

/*
 * fp16 -> float, exact. A normal half only needs its exponent rebiased (15 -> 127) and its
 * mantissa widened; inf and NaN keep an all-ones exponent; a subnormal half is its 10-bit
 * mantissa times 2^-24, which float represents exactly.
 */
GDC_COLL_ELEM float gdc_coll_half_decode(uint16_t half)
{
    uint32_t sign      = (uint32_t)(half & 0x8000u) << 16;
    uint32_t magnitude = half & 0x7fffu;
    uint32_t normal    = (magnitude << 13) + ((uint32_t)(127 - 15) << 23);
    uint32_t inf_nan   = (magnitude << 13) | 0x7f800000u;
    uint32_t subnormal = gdc_coll_f32_bits(GDC_COLL_FMUL((float)magnitude, 0x1p-24f));
    uint32_t bits      = magnitude >= 0x7c00u ? inf_nan : normal;

    bits = magnitude < 0x0400u ? subnormal : bits;
    return gdc_coll_f32_from_bits(bits | sign);
}

/*
 * float -> fp16, rounded to nearest even.
 * - Normal range [2^-14, 65520): rebias the exponent and round away the 13 low mantissa
 *   bits by adding 0xfff plus the lowest kept bit (ties go to even); a carry ripples into
 *   the exponent, up to inf for [65520, 65536).
 * - Subnormal range (< 2^-14): adding 0.5 puts the value at 2^-24 resolution into the low
 *   mantissa bits of the float sum, so the FPU's own round-to-nearest-even rounds it; a
 *   value that rounds up to 2^-14 comes out as the smallest normal half, as it should.
 * - At least 65536 (or inf): inf. NaN: the canonical NaN.
 */
GDC_COLL_ELEM uint16_t gdc_coll_half_encode(float value)
{
    uint32_t bits      = gdc_coll_f32_bits(value);
    uint32_t sign      = (bits >> 16) & 0x8000u;
    uint32_t magnitude = bits & 0x7fffffffu;
    uint32_t lowest    = (magnitude >> 13) & 1u;
    uint32_t normal    = (magnitude - ((uint32_t)(127 - 15) << 23) + 0x0fffu + lowest) >> 13;
    float    shifted   = GDC_COLL_FADD(gdc_coll_f32_from_bits(magnitude), 0.5f);
    uint32_t subnormal = gdc_coll_f32_bits(shifted) - 0x3f000000u; /* minus the bits of 0.5 */
    uint32_t result    = magnitude < 0x38800000u ? subnormal : normal; /* 2^-14 */

    result = magnitude >= 0x47800000u ? 0x7c00u : result; /* 65536 and above: inf */
    result |= sign;
    return (uint16_t)(magnitude > 0x7f800000u ? GDC_COLL_HALF_NAN : result);
}

/* bfloat16 -> float: bfloat16 is the upper half of a float, so this is exact. */
GDC_COLL_ELEM float gdc_coll_bf16_decode(uint16_t bf16)
{
    return gdc_coll_f32_from_bits((uint32_t)bf16 << 16);
}

/*
 * float -> bfloat16, rounded to nearest even: add just under half of the dropped 16 bits
 * plus the lowest kept bit, and keep the upper half. Subnormals need nothing special (the
 * formats share their exponent), and the largest floats carry into inf as they should.
 */
GDC_COLL_ELEM uint16_t gdc_coll_bf16_encode(float value)
{
    uint32_t bits    = gdc_coll_f32_bits(value);
    uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;

    return (uint16_t)((bits & 0x7fffffffu) > 0x7f800000u ? GDC_COLL_BF16_NAN : rounded);
}

#endif
