/*
 * One set of host kernels, instantiated by the file that includes this header (once per
 * instruction set): one plain loop per datatype x operation over restrict-qualified
 * pointers, applying the element operations of reduce_ops.h, which the compiler
 * vectorizes; and the gdc_coll_host_isa_t table of them.
 *
 * Each operation has two loops: dst = a OP b for distinct buffers, and inout = inout OP b
 * for the in-place case (dst == a, or dst == b since every operation is commutative), so
 * that restrict is never a lie.
 *
 * The includer defines:
 *   GDC_COLL_ISA             the set's name, a token: the table is gdc_coll_host_isa_<ISA>
 *   GDC_COLL_KERNEL_TARGET   attributes of every kernel function (e.g. a target ISA), or empty
 * and optionally bulk fp16 conversions (hardware ones), with the semantics of half.h
 * (the encoder only ever sees canonical NaNs: float32 operations return no others):
 *   GDC_COLL_HALF_DECODE_N(float *dst, const uint16_t *src, size_t n)
 *   GDC_COLL_HALF_ENCODE_N(uint16_t *dst, const float *src, size_t n)
 * with which fp16 is reduced in chunks: decode both operands, the float32 loop, encode.
 * That gives the same bits as the element operations, which are exactly decode, the
 * float32 operation, encode. And optionally a one-pass fp16 sum (dst may be a or b):
 *   GDC_COLL_HALF_SUM_N(uint16_t *dst, const uint16_t *a, const uint16_t *b, size_t n)
 */
#include <stddef.h>
#include <stdint.h>

#include "kernels/reduce_host.h"
#include "kernels/reduce_ops.h"

#if !defined(GDC_COLL_ISA) || !defined(GDC_COLL_KERNEL_TARGET)
#error "define GDC_COLL_ISA and GDC_COLL_KERNEL_TARGET before including reduce_host_kernels.h"
#endif
#if defined(__FAST_MATH__)
#error "the reduction kernels need IEEE arithmetic: do not build gdc with -ffast-math or -Ofast"
#endif

#define GDC_COLL_KERNEL_FN static GDC_COLL_KERNEL_TARGET

/* The two loops of one operation; _elem_op is the element function of reduce_ops.h. */
#define GDC_COLL_DEFINE_HOST_KERNEL(_name, _type, _elem_op)                                   \
    GDC_COLL_KERNEL_FN void _name(void *restrict dst_v, const void *restrict a_v,             \
                                  const void *restrict b_v, size_t count)                     \
    {                                                                                         \
        _type *dst = dst_v;                                                                   \
        const _type *a = a_v, *b = b_v;                                                       \
                                                                                              \
        for (size_t i = 0; i < count; i++) {                                                  \
            dst[i] = _elem_op(a[i], b[i]);                                                    \
        }                                                                                     \
    }                                                                                         \
    GDC_COLL_KERNEL_FN void _name##_in_place(void *restrict inout_v, const void *restrict b_v, \
                                             size_t count)                                    \
    {                                                                                         \
        _type *inout = inout_v;                                                               \
        const _type *b = b_v;                                                                 \
                                                                                              \
        for (size_t i = 0; i < count; i++) {                                                  \
            inout[i] = _elem_op(inout[i], b[i]);                                              \
        }                                                                                     \
    }

/* reduce_<op>_<suffix>: e.g. reduce_sum_f32, reduce_sum_f32_in_place. */
#define GDC_COLL_DEFINE_OP_KERNEL(_op, _suffix, _type)                                        \
    GDC_COLL_DEFINE_HOST_KERNEL(reduce_##_op##_##_suffix, _type, gdc_coll_##_op##_##_suffix)

/* Unsigned types: every operation (the signed types share SUM, PROD and the bitwise ones). */
#define GDC_COLL_DEFINE_UINT_KERNELS(_suffix, _type)                                          \
    GDC_COLL_DEFINE_OP_KERNEL(sum, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(prod, _suffix, _type)                                           \
    GDC_COLL_DEFINE_OP_KERNEL(min, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(max, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(band, _suffix, _type)                                           \
    GDC_COLL_DEFINE_OP_KERNEL(bor, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(bxor, _suffix, _type)

#define GDC_COLL_DEFINE_SINT_KERNELS(_suffix, _type)                                          \
    GDC_COLL_DEFINE_OP_KERNEL(min, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(max, _suffix, _type)

#define GDC_COLL_DEFINE_FLOAT_KERNELS(_suffix, _type)                                         \
    GDC_COLL_DEFINE_OP_KERNEL(sum, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(prod, _suffix, _type)                                           \
    GDC_COLL_DEFINE_OP_KERNEL(min, _suffix, _type)                                            \
    GDC_COLL_DEFINE_OP_KERNEL(max, _suffix, _type)

GDC_COLL_DEFINE_UINT_KERNELS(u8, uint8_t)
GDC_COLL_DEFINE_UINT_KERNELS(u16, uint16_t)
GDC_COLL_DEFINE_UINT_KERNELS(u32, uint32_t)
GDC_COLL_DEFINE_UINT_KERNELS(u64, uint64_t)
GDC_COLL_DEFINE_SINT_KERNELS(i8, int8_t)
GDC_COLL_DEFINE_SINT_KERNELS(i16, int16_t)
GDC_COLL_DEFINE_SINT_KERNELS(i32, int32_t)
GDC_COLL_DEFINE_SINT_KERNELS(i64, int64_t)
GDC_COLL_DEFINE_FLOAT_KERNELS(bf16, uint16_t)
GDC_COLL_DEFINE_FLOAT_KERNELS(f32, float)
GDC_COLL_DEFINE_FLOAT_KERNELS(f64, double)

/* ---- the GDC_AVG division ------------------------------------------------------------- */

#define GDC_COLL_DEFINE_AVG_KERNEL(_suffix, _type)                                            \
    GDC_COLL_KERNEL_FN void avg_finish_##_suffix(void *restrict buf_v, size_t count, int n)   \
    {                                                                                         \
        _type *buf = buf_v;                                                                   \
                                                                                              \
        for (size_t i = 0; i < count; i++) {                                                  \
            buf[i] = gdc_coll_avg_##_suffix(buf[i], n);                                       \
        }                                                                                     \
    }

GDC_COLL_DEFINE_AVG_KERNEL(i8, int8_t)
GDC_COLL_DEFINE_AVG_KERNEL(u8, uint8_t)
GDC_COLL_DEFINE_AVG_KERNEL(i16, int16_t)
GDC_COLL_DEFINE_AVG_KERNEL(u16, uint16_t)
GDC_COLL_DEFINE_AVG_KERNEL(i32, int32_t)
GDC_COLL_DEFINE_AVG_KERNEL(u32, uint32_t)
GDC_COLL_DEFINE_AVG_KERNEL(i64, int64_t)
GDC_COLL_DEFINE_AVG_KERNEL(u64, uint64_t)
GDC_COLL_DEFINE_AVG_KERNEL(bf16, uint16_t)
GDC_COLL_DEFINE_AVG_KERNEL(f32, float)
GDC_COLL_DEFINE_AVG_KERNEL(f64, double)

/* ---- fp16 ----------------------------------------------------------------------------- */

#ifndef GDC_COLL_HALF_DECODE_N
GDC_COLL_DEFINE_FLOAT_KERNELS(f16, uint16_t)
GDC_COLL_DEFINE_AVG_KERNEL(f16, uint16_t)
#else
/* fp16 elements per chunk: two float buffers of 2 KiB, which stay in L1. */
#define GDC_COLL_HALF_CHUNK 512

/* dst = a OP b through float chunks; dst may be a (each chunk is read before written). */
#define GDC_COLL_DEFINE_CHUNKED_HALF_KERNEL(_op)                                              \
    GDC_COLL_KERNEL_FN void reduce_##_op##_f16_chunked(uint16_t *dst, const uint16_t *a,      \
                                                       const uint16_t *b, size_t count)       \
    {                                                                                         \
        float x[GDC_COLL_HALF_CHUNK], y[GDC_COLL_HALF_CHUNK];                                 \
                                                                                              \
        for (size_t done = 0; done < count; done += GDC_COLL_HALF_CHUNK) {                    \
            size_t n = count - done < GDC_COLL_HALF_CHUNK ? count - done : GDC_COLL_HALF_CHUNK; \
                                                                                              \
            GDC_COLL_HALF_DECODE_N(x, a + done, n);                                           \
            GDC_COLL_HALF_DECODE_N(y, b + done, n);                                           \
            reduce_##_op##_f32_in_place(x, y, n);                                             \
            GDC_COLL_HALF_ENCODE_N(dst + done, x, n);                                         \
        }                                                                                     \
    }                                                                                         \
    GDC_COLL_KERNEL_FN void reduce_##_op##_f16(void *restrict dst, const void *restrict a,    \
                                               const void *restrict b, size_t count)          \
    {                                                                                         \
        reduce_##_op##_f16_chunked(dst, a, b, count);                                         \
    }                                                                                         \
    GDC_COLL_KERNEL_FN void reduce_##_op##_f16_in_place(void *restrict inout,                 \
                                                        const void *restrict b, size_t count) \
    {                                                                                         \
        reduce_##_op##_f16_chunked(inout, inout, b, count);                                   \
    }

#ifdef GDC_COLL_HALF_SUM_N
GDC_COLL_KERNEL_FN void reduce_sum_f16(void *restrict dst, const void *restrict a,
                                       const void *restrict b, size_t count)
{
    GDC_COLL_HALF_SUM_N(dst, a, b, count);
}

GDC_COLL_KERNEL_FN void reduce_sum_f16_in_place(void *restrict inout, const void *restrict b,
                                                size_t count)
{
    GDC_COLL_HALF_SUM_N(inout, inout, b, count);
}
#else
GDC_COLL_DEFINE_CHUNKED_HALF_KERNEL(sum)
#endif
GDC_COLL_DEFINE_CHUNKED_HALF_KERNEL(prod)
GDC_COLL_DEFINE_CHUNKED_HALF_KERNEL(min)
GDC_COLL_DEFINE_CHUNKED_HALF_KERNEL(max)

GDC_COLL_KERNEL_FN void avg_finish_f16(void *restrict buf_v, size_t count, int n)
{
    uint16_t *buf = buf_v;
    float     x[GDC_COLL_HALF_CHUNK];

    for (size_t done = 0; done < count; done += GDC_COLL_HALF_CHUNK) {
        size_t chunk = count - done < GDC_COLL_HALF_CHUNK ? count - done : GDC_COLL_HALF_CHUNK;

        GDC_COLL_HALF_DECODE_N(x, buf + done, chunk);
        avg_finish_f32(x, chunk, n);
        GDC_COLL_HALF_ENCODE_N(buf + done, x, chunk);
    }
}
#endif

/* ---- the (dtype, op) table ------------------------------------------------------------ */

#define GDC_COLL_KERNEL(_op, _suffix)                                                         \
    {reduce_##_op##_##_suffix, reduce_##_op##_##_suffix##_in_place}

/* An integer type: MIN and MAX in its own signedness, the rest on the unsigned bits.
 * GDC_AVG sums; gdc_coll_avg_finish_host divides at the end. */
#define GDC_COLL_INT_ROW(_suffix, _unsigned_suffix)                                           \
    {                                                                                         \
        [GDC_SUM] = GDC_COLL_KERNEL(sum, _unsigned_suffix),                                   \
        [GDC_PROD] = GDC_COLL_KERNEL(prod, _unsigned_suffix),                                 \
        [GDC_MIN] = GDC_COLL_KERNEL(min, _suffix),                                            \
        [GDC_MAX] = GDC_COLL_KERNEL(max, _suffix),                                            \
        [GDC_AVG] = GDC_COLL_KERNEL(sum, _unsigned_suffix),                                   \
        [GDC_BAND] = GDC_COLL_KERNEL(band, _unsigned_suffix),                                 \
        [GDC_BOR] = GDC_COLL_KERNEL(bor, _unsigned_suffix),                                   \
        [GDC_BXOR] = GDC_COLL_KERNEL(bxor, _unsigned_suffix),                                 \
    }

#define GDC_COLL_FLOAT_ROW(_suffix)                                                           \
    {                                                                                         \
        [GDC_SUM] = GDC_COLL_KERNEL(sum, _suffix),                                            \
        [GDC_PROD] = GDC_COLL_KERNEL(prod, _suffix),                                          \
        [GDC_MIN] = GDC_COLL_KERNEL(min, _suffix),                                            \
        [GDC_MAX] = GDC_COLL_KERNEL(max, _suffix),                                            \
        [GDC_AVG] = GDC_COLL_KERNEL(sum, _suffix),                                            \
    }

#define GDC_COLL_ISA_TABLE_(_isa)  gdc_coll_host_isa_##_isa
#define GDC_COLL_ISA_TABLE(_isa)   GDC_COLL_ISA_TABLE_(_isa)
#define GDC_COLL_ISA_STRING_(_isa) #_isa
#define GDC_COLL_ISA_STRING(_isa)  GDC_COLL_ISA_STRING_(_isa)

const gdc_coll_host_isa_t GDC_COLL_ISA_TABLE(GDC_COLL_ISA) = {
    .name = GDC_COLL_ISA_STRING(GDC_COLL_ISA),
    .kernels = {
        [GDC_INT8] = GDC_COLL_INT_ROW(i8, u8),       [GDC_UINT8] = GDC_COLL_INT_ROW(u8, u8),
        [GDC_INT16] = GDC_COLL_INT_ROW(i16, u16),    [GDC_UINT16] = GDC_COLL_INT_ROW(u16, u16),
        [GDC_INT32] = GDC_COLL_INT_ROW(i32, u32),    [GDC_UINT32] = GDC_COLL_INT_ROW(u32, u32),
        [GDC_INT64] = GDC_COLL_INT_ROW(i64, u64),    [GDC_UINT64] = GDC_COLL_INT_ROW(u64, u64),
        [GDC_FLOAT16] = GDC_COLL_FLOAT_ROW(f16),     [GDC_BFLOAT16] = GDC_COLL_FLOAT_ROW(bf16),
        [GDC_FLOAT32] = GDC_COLL_FLOAT_ROW(f32),     [GDC_FLOAT64] = GDC_COLL_FLOAT_ROW(f64),
    },
    .avg_finish = {
        [GDC_INT8] = avg_finish_i8,       [GDC_UINT8] = avg_finish_u8,
        [GDC_INT16] = avg_finish_i16,     [GDC_UINT16] = avg_finish_u16,
        [GDC_INT32] = avg_finish_i32,     [GDC_UINT32] = avg_finish_u32,
        [GDC_INT64] = avg_finish_i64,     [GDC_UINT64] = avg_finish_u64,
        [GDC_FLOAT16] = avg_finish_f16,   [GDC_BFLOAT16] = avg_finish_bf16,
        [GDC_FLOAT32] = avg_finish_f32,   [GDC_FLOAT64] = avg_finish_f64,
    },
};
