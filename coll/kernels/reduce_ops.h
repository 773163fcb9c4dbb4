/*
 * The element operations of the reduction kernels: r = a OP b for one element, and the
 * division that finishes GDC_AVG. Shared by the host kernels (coll/kernels/reduce_host.c) and the
 * CUDA kernels (coll/kernels/reduce_cuda.cu), so both give the same bits by construction.
 *
 * Semantics
 * - Integers: SUM and PROD wrap modulo 2^bits. They are computed in an unsigned type
 *   (no signed-overflow UB), which also gives the right bits for the signed types: two's
 *   complement sums and products agree with unsigned ones bit for bit, so a signed type
 *   uses the unsigned operation of its width (as do BAND, BOR and BXOR). MIN and MAX
 *   compare in the type's own signedness.
 * - float32 in float32 and float64 in float64, one IEEE rounding per operation.
 *   fp16 and bf16: both operands are decoded exactly to float, the operation is done in
 *   float and the result rounded once to nearest even (float has more than twice the
 *   precision plus two bits of both formats, so this equals the correctly rounded result).
 * - MIN / MAX: IEEE 754-2019 minimumNumber / maximumNumber: a NaN loses to a number; the
 *   result is NaN only when both are; -0 counts as below +0.
 * - A NaN result is always the canonical quiet NaN of the type (see half.h). Together with
 *   the signed-zero rule this makes every operation commutative bit for bit, so ranks that
 *   combine the same values in a different order still get identical bits.
 */
#ifndef GDC_COLL_REDUCE_OPS_H
#define GDC_COLL_REDUCE_OPS_H

#include <stdint.h>

#include "kernels/half.h"

/* ---- integers ------------------------------------------------------------------------
 * WIDE is the type the arithmetic happens in: at least unsigned int, so that uint8_t and
 * uint16_t operands are not promoted to (signed) int, where 65535 * 65535 overflows. */
#define GDC_COLL_DEFINE_UINT_OPS(_suffix, _type, _wide)                                       \
    GDC_COLL_ELEM _type gdc_coll_sum_##_suffix(_type a, _type b)                              \
    {                                                                                         \
        return (_type)((_wide)a + (_wide)b);                                                  \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_prod_##_suffix(_type a, _type b)                             \
    {                                                                                         \
        return (_type)((_wide)a * (_wide)b);                                                  \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_band_##_suffix(_type a, _type b) { return (_type)(a & b); }  \
    GDC_COLL_ELEM _type gdc_coll_bor_##_suffix(_type a, _type b) { return (_type)(a | b); }   \
    GDC_COLL_ELEM _type gdc_coll_bxor_##_suffix(_type a, _type b) { return (_type)(a ^ b); }

GDC_COLL_DEFINE_UINT_OPS(u8, uint8_t, unsigned int)
GDC_COLL_DEFINE_UINT_OPS(u16, uint16_t, unsigned int)
GDC_COLL_DEFINE_UINT_OPS(u32, uint32_t, uint32_t)
GDC_COLL_DEFINE_UINT_OPS(u64, uint64_t, uint64_t)

#define GDC_COLL_DEFINE_MINMAX_OPS(_suffix, _type)                                            \
    GDC_COLL_ELEM _type gdc_coll_min_##_suffix(_type a, _type b) { return b < a ? b : a; }    \
    GDC_COLL_ELEM _type gdc_coll_max_##_suffix(_type a, _type b) { return b > a ? b : a; }

GDC_COLL_DEFINE_MINMAX_OPS(i8, int8_t)
GDC_COLL_DEFINE_MINMAX_OPS(u8, uint8_t)
GDC_COLL_DEFINE_MINMAX_OPS(i16, int16_t)
GDC_COLL_DEFINE_MINMAX_OPS(u16, uint16_t)
GDC_COLL_DEFINE_MINMAX_OPS(i32, int32_t)
GDC_COLL_DEFINE_MINMAX_OPS(u32, uint32_t)
GDC_COLL_DEFINE_MINMAX_OPS(i64, int64_t)
GDC_COLL_DEFINE_MINMAX_OPS(u64, uint64_t)

/* AVG: the wrapped sum divided by the number of contributions, truncated toward zero (C's
 * division). Types narrower than 64 bits divide in 32 bits, which is faster; n >= 1. */
#define GDC_COLL_DEFINE_INT_AVG(_suffix, _type, _div_type)                                    \
    GDC_COLL_ELEM _type gdc_coll_avg_##_suffix(_type sum, int n)                              \
    {                                                                                         \
        return (_type)((_div_type)sum / (_div_type)n);                                        \
    }

GDC_COLL_DEFINE_INT_AVG(i8, int8_t, int32_t)
GDC_COLL_DEFINE_INT_AVG(u8, uint8_t, uint32_t)
GDC_COLL_DEFINE_INT_AVG(i16, int16_t, int32_t)
GDC_COLL_DEFINE_INT_AVG(u16, uint16_t, uint32_t)
GDC_COLL_DEFINE_INT_AVG(i32, int32_t, int32_t)
GDC_COLL_DEFINE_INT_AVG(u32, uint32_t, uint32_t)
GDC_COLL_DEFINE_INT_AVG(i64, int64_t, int64_t)
GDC_COLL_DEFINE_INT_AVG(u64, uint64_t, uint64_t)

/* ---- float32 and float64 ---------------------------------------------------------------
 * _bits_type: the unsigned integer of the same width; _nan: the canonical NaN's bits.
 * MIN and MAX pick bits where a compare cannot decide: when b is NaN the compare is false
 * and keeps a; a NaN a is replaced by b (NaN only if both are); for equal operands (only
 * +0 / -0 differ in bits) OR keeps either's sign bit (-0 for min), AND only a common one
 * (+0 for max). */
#define GDC_COLL_DEFINE_FLOAT_OPS(_suffix, _type, _bits_type, _nan, _add, _mul, _div)         \
    GDC_COLL_ELEM _type gdc_coll_canonical_##_suffix(_type r)                                 \
    {                                                                                         \
        return r != r ? gdc_coll_##_suffix##_from_bits(_nan) : r;                             \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_sum_##_suffix(_type a, _type b)                              \
    {                                                                                         \
        return gdc_coll_canonical_##_suffix(_add(a, b));                                      \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_prod_##_suffix(_type a, _type b)                             \
    {                                                                                         \
        return gdc_coll_canonical_##_suffix(_mul(a, b));                                      \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_min_##_suffix(_type a, _type b)                              \
    {                                                                                         \
        _bits_type a_bits = gdc_coll_##_suffix##_bits(a), b_bits = gdc_coll_##_suffix##_bits(b); \
        _bits_type r_bits = b < a ? b_bits : a_bits;                                          \
                                                                                              \
        r_bits = a == b ? (a_bits | b_bits) : r_bits;                                         \
        r_bits = a != a ? b_bits : r_bits;                                                    \
        return gdc_coll_canonical_##_suffix(gdc_coll_##_suffix##_from_bits(r_bits));          \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_max_##_suffix(_type a, _type b)                              \
    {                                                                                         \
        _bits_type a_bits = gdc_coll_##_suffix##_bits(a), b_bits = gdc_coll_##_suffix##_bits(b); \
        _bits_type r_bits = b > a ? b_bits : a_bits;                                          \
                                                                                              \
        r_bits = a == b ? (a_bits & b_bits) : r_bits;                                         \
        r_bits = a != a ? b_bits : r_bits;                                                    \
        return gdc_coll_canonical_##_suffix(gdc_coll_##_suffix##_from_bits(r_bits));          \
    }                                                                                         \
    GDC_COLL_ELEM _type gdc_coll_avg_##_suffix(_type sum, int n)                              \
    {                                                                                         \
        return gdc_coll_canonical_##_suffix(_div(sum, (_type)n));                             \
    }

GDC_COLL_DEFINE_FLOAT_OPS(f32, float, uint32_t, GDC_COLL_F32_NAN, GDC_COLL_FADD, GDC_COLL_FMUL,
                          GDC_COLL_FDIV)
GDC_COLL_DEFINE_FLOAT_OPS(f64, double, uint64_t, GDC_COLL_F64_NAN, GDC_COLL_DADD, GDC_COLL_DMUL,
                          GDC_COLL_DDIV)

/* ---- fp16 and bfloat16, stored as uint16_t ------------------------------------------------
 * Decode both operands to float, use the float32 operation, encode once. The encoders map
 * every NaN to the canonical one. */
#define GDC_COLL_DEFINE_HALF_OPS(_suffix, _decode, _encode)                                   \
    GDC_COLL_ELEM uint16_t gdc_coll_sum_##_suffix(uint16_t a, uint16_t b)                     \
    {                                                                                         \
        return _encode(GDC_COLL_FADD(_decode(a), _decode(b)));                                \
    }                                                                                         \
    GDC_COLL_ELEM uint16_t gdc_coll_prod_##_suffix(uint16_t a, uint16_t b)                    \
    {                                                                                         \
        return _encode(GDC_COLL_FMUL(_decode(a), _decode(b)));                                \
    }                                                                                         \
    GDC_COLL_ELEM uint16_t gdc_coll_min_##_suffix(uint16_t a, uint16_t b)                     \
    {                                                                                         \
        return _encode(gdc_coll_min_f32(_decode(a), _decode(b)));                             \
    }                                                                                         \
    GDC_COLL_ELEM uint16_t gdc_coll_max_##_suffix(uint16_t a, uint16_t b)                     \
    {                                                                                         \
        return _encode(gdc_coll_max_f32(_decode(a), _decode(b)));                             \
    }                                                                                         \
    GDC_COLL_ELEM uint16_t gdc_coll_avg_##_suffix(uint16_t sum, int n)                        \
    {                                                                                         \
        return _encode(GDC_COLL_FDIV(_decode(sum), (float)n));                                \
    }

GDC_COLL_DEFINE_HALF_OPS(f16, gdc_coll_half_decode, gdc_coll_half_encode)
GDC_COLL_DEFINE_HALF_OPS(bf16, gdc_coll_bf16_decode, gdc_coll_bf16_encode)

#endif
