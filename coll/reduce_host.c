/*
 * Host reduction kernels: one plain loop per datatype x operation over restrict-qualified
 * pointers, generated from the element operations of reduce_ops.h, which the compiler
 * vectorizes (this file is built with the vectorizer on and FP contraction off, see
 * coll/Makefile.kernels.inc). A table indexed by (dtype, op) picks the loop.
 *
 * Each operation has two loops: dst = a OP b for distinct buffers, and inout = inout OP b
 * for the in-place case (dst == a, or dst == b since every operation is commutative), so
 * that restrict is never a lie.
 */
#include <stdint.h>
#include <string.h>

#include "reduce.h"
#include "reduce_ops.h"
#include "rt_args.h"
#include "rt_log.h"

#if defined(__FAST_MATH__)
#error "the reduction kernels need IEEE arithmetic: do not build gdc with -ffast-math or -Ofast"
#endif

typedef void (*gdc_coll_binary_fn_t)(void *dst, const void *a, const void *b, size_t count);
typedef void (*gdc_coll_inplace_fn_t)(void *inout, const void *b, size_t count);
typedef void (*gdc_coll_avg_fn_t)(void *buf, size_t count, int n);

typedef struct {
    gdc_coll_binary_fn_t  binary;   /* dst = a OP b, dst distinct from a and b */
    gdc_coll_inplace_fn_t in_place; /* inout = inout OP b, inout distinct from b */
} gdc_coll_host_kernel_t;

/* The two loops of one operation; _elem_op is the element function of reduce_ops.h. */
#define GDC_COLL_DEFINE_HOST_KERNEL(_name, _type, _elem_op)                                   \
    static void _name(void *restrict dst_v, const void *restrict a_v,                         \
                      const void *restrict b_v, size_t count)                                 \
    {                                                                                         \
        _type *dst = dst_v;                                                                   \
        const _type *a = a_v, *b = b_v;                                                       \
                                                                                              \
        for (size_t i = 0; i < count; i++) {                                                  \
            dst[i] = _elem_op(a[i], b[i]);                                                    \
        }                                                                                     \
    }                                                                                         \
    static void _name##_in_place(void *restrict inout_v, const void *restrict b_v,            \
                                 size_t count)                                                \
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
GDC_COLL_DEFINE_FLOAT_KERNELS(f16, uint16_t)
GDC_COLL_DEFINE_FLOAT_KERNELS(bf16, uint16_t)
GDC_COLL_DEFINE_FLOAT_KERNELS(f32, float)
GDC_COLL_DEFINE_FLOAT_KERNELS(f64, double)

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

/* Unsupported combinations (GDC_BYTE, bitwise ops on floats) are the NULL entries. */
static const gdc_coll_host_kernel_t host_kernels[GDC_COLL_NUM_DTYPES][GDC_COLL_NUM_OPS] = {
    [GDC_INT8] = GDC_COLL_INT_ROW(i8, u8),       [GDC_UINT8] = GDC_COLL_INT_ROW(u8, u8),
    [GDC_INT16] = GDC_COLL_INT_ROW(i16, u16),    [GDC_UINT16] = GDC_COLL_INT_ROW(u16, u16),
    [GDC_INT32] = GDC_COLL_INT_ROW(i32, u32),    [GDC_UINT32] = GDC_COLL_INT_ROW(u32, u32),
    [GDC_INT64] = GDC_COLL_INT_ROW(i64, u64),    [GDC_UINT64] = GDC_COLL_INT_ROW(u64, u64),
    [GDC_FLOAT16] = GDC_COLL_FLOAT_ROW(f16),     [GDC_BFLOAT16] = GDC_COLL_FLOAT_ROW(bf16),
    [GDC_FLOAT32] = GDC_COLL_FLOAT_ROW(f32),     [GDC_FLOAT64] = GDC_COLL_FLOAT_ROW(f64),
};

/* ---- the GDC_AVG division ------------------------------------------------------------- */

#define GDC_COLL_DEFINE_AVG_KERNEL(_suffix, _type)                                            \
    static void avg_finish_##_suffix(void *restrict buf_v, size_t count, int n)               \
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
GDC_COLL_DEFINE_AVG_KERNEL(f16, uint16_t)
GDC_COLL_DEFINE_AVG_KERNEL(bf16, uint16_t)
GDC_COLL_DEFINE_AVG_KERNEL(f32, float)
GDC_COLL_DEFINE_AVG_KERNEL(f64, double)

static const gdc_coll_avg_fn_t avg_kernels[GDC_COLL_NUM_DTYPES] = {
    [GDC_INT8] = avg_finish_i8,       [GDC_UINT8] = avg_finish_u8,
    [GDC_INT16] = avg_finish_i16,     [GDC_UINT16] = avg_finish_u16,
    [GDC_INT32] = avg_finish_i32,     [GDC_UINT32] = avg_finish_u32,
    [GDC_INT64] = avg_finish_i64,     [GDC_UINT64] = avg_finish_u64,
    [GDC_FLOAT16] = avg_finish_f16,   [GDC_BFLOAT16] = avg_finish_bf16,
    [GDC_FLOAT32] = avg_finish_f32,   [GDC_FLOAT64] = avg_finish_f64,
};

/* ---- entry points --------------------------------------------------------------------- */

int gdc_coll_reduce_supported(gdc_dtype_t dtype, gdc_op_t op)
{
    return gdc_rt_dtype_valid(dtype) && gdc_rt_op_valid(op) &&
           host_kernels[dtype][op].binary != NULL;
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
    kernel = &host_kernels[dtype][op];
    if (dst != a && dst != b) {
        kernel->binary(dst, a, b, count);
    } else if (a != b) {
        kernel->in_place(dst, dst == a ? b : a, count); /* every op is commutative */
    } else {
        reduce_with_itself(kernel, dst, count, gdc_dtype_size(dtype));
    }
}

void gdc_coll_avg_finish_host(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    if (!gdc_coll_reduce_supported(dtype, GDC_AVG)) {
        GDC_LOG_ERROR("gdc_coll_avg_finish_host: no average for dtype %s (%d)",
                      gdc_rt_dtype_name(dtype), (int)dtype);
        return;
    }
    if (n < 1) {
        GDC_LOG_ERROR("gdc_coll_avg_finish_host: cannot average over %d contributions", n);
        return;
    }
    avg_kernels[dtype](buf, count, n);
}
