/* TEMPORARY (replaced by the kernels branch): slow generic reference kernels. */
#include <math.h>
#include <string.h>

#include "reduce.h"

float gdc_coll_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float    f;

    if (exp == 0) {
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t gdc_coll_float_to_half(float f)
{
    uint32_t x;
    uint16_t sign;
    float    a;

    memcpy(&x, &f, 4);
    sign = (uint16_t)((x >> 16) & 0x8000);
    a    = fabsf(f);
    if (isnan(f)) {
        return sign | 0x7e00;
    }
    if (a >= 65520.0f) {
        return sign | 0x7c00;
    }
    if (a < ldexpf(1, -14)) {
        return sign | (uint16_t)nearbyintf(ldexpf(a, 24));
    }
    {
        int   e;
        float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5,1) */
        float q = nearbyintf(ldexpf(m, 11));
        if (q == 2048) {
            q = 1024;
            e++;
        }
        return sign | (uint16_t)(((e + 14) << 10) | ((int)q - 1024));
    }
}

float gdc_coll_bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float    f;

    memcpy(&f, &x, 4);
    return f;
}

uint16_t gdc_coll_float_to_bf16(float f)
{
    uint32_t x;

    memcpy(&x, &f, 4);
    if (isnan(f)) {
        return (uint16_t)((x >> 16) | 0x40);
    }
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

#define INT_OPS(T, U)                                                                         \
    static void reduce_##T(T *d, const T *a, const T *b, size_t n, gdc_op_t op)                \
    {                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                      \
            U x = (U)a[i], y = (U)b[i];                                                       \
            switch (op) {                                                                     \
            case GDC_SUM: case GDC_AVG: d[i] = (T)(U)(x + y); break;                          \
            case GDC_PROD: d[i] = (T)(U)(x * y); break;                                       \
            case GDC_MIN: d[i] = a[i] < b[i] ? a[i] : b[i]; break;                            \
            case GDC_MAX: d[i] = a[i] > b[i] ? a[i] : b[i]; break;                            \
            case GDC_BAND: d[i] = (T)(x & y); break;                                          \
            case GDC_BOR: d[i] = (T)(x | y); break;                                           \
            case GDC_BXOR: d[i] = (T)(x ^ y); break;                                          \
            }                                                                                 \
        }                                                                                     \
    }
INT_OPS(int8_t, uint8_t)
INT_OPS(uint8_t, uint8_t)
INT_OPS(int16_t, uint16_t)
INT_OPS(uint16_t, uint16_t)
INT_OPS(int32_t, uint32_t)
INT_OPS(uint32_t, uint32_t)
INT_OPS(int64_t, uint64_t)
INT_OPS(uint64_t, uint64_t)

static double fop(double x, double y, gdc_op_t op)
{
    switch (op) {
    case GDC_SUM: case GDC_AVG: return x + y;
    case GDC_PROD: return x * y;
    case GDC_MIN: return fmin(x, y);
    case GDC_MAX: return fmax(x, y);
    default: return 0;
    }
}

void gdc_coll_reduce_host(void *dst, const void *a, const void *b, size_t n, gdc_dtype_t dtype,
                          gdc_op_t op)
{
    switch (dtype) {
    case GDC_INT8: reduce_int8_t(dst, a, b, n, op); break;
    case GDC_UINT8: case GDC_BYTE: reduce_uint8_t(dst, a, b, n, op); break;
    case GDC_INT16: reduce_int16_t(dst, a, b, n, op); break;
    case GDC_UINT16: reduce_uint16_t(dst, a, b, n, op); break;
    case GDC_INT32: reduce_int32_t(dst, a, b, n, op); break;
    case GDC_UINT32: reduce_uint32_t(dst, a, b, n, op); break;
    case GDC_INT64: reduce_int64_t(dst, a, b, n, op); break;
    case GDC_UINT64: reduce_uint64_t(dst, a, b, n, op); break;
    case GDC_FLOAT32:
        for (size_t i = 0; i < n; i++) {
            ((float *)dst)[i] = (float)fop(((const float *)a)[i], ((const float *)b)[i], op);
        }
        break;
    case GDC_FLOAT64:
        for (size_t i = 0; i < n; i++) {
            ((double *)dst)[i] = fop(((const double *)a)[i], ((const double *)b)[i], op);
        }
        break;
    case GDC_FLOAT16:
        for (size_t i = 0; i < n; i++) {
            ((uint16_t *)dst)[i] = gdc_coll_float_to_half((float)fop(
                gdc_coll_half_to_float(((const uint16_t *)a)[i]), gdc_coll_half_to_float(((const uint16_t *)b)[i]), op));
        }
        break;
    case GDC_BFLOAT16:
        for (size_t i = 0; i < n; i++) {
            ((uint16_t *)dst)[i] = gdc_coll_float_to_bf16((float)fop(
                gdc_coll_bf16_to_float(((const uint16_t *)a)[i]), gdc_coll_bf16_to_float(((const uint16_t *)b)[i]), op));
        }
        break;
    }
}

void gdc_coll_avg_finish_host(void *buf, size_t n, gdc_dtype_t dtype, int size)
{
    for (size_t i = 0; i < n; i++) {
        switch (dtype) {
        case GDC_INT8: ((int8_t *)buf)[i] /= size; break;
        case GDC_UINT8: ((uint8_t *)buf)[i] /= (unsigned)size; break;
        case GDC_INT16: ((int16_t *)buf)[i] /= size; break;
        case GDC_UINT16: ((uint16_t *)buf)[i] /= (unsigned)size; break;
        case GDC_INT32: ((int32_t *)buf)[i] /= size; break;
        case GDC_UINT32: ((uint32_t *)buf)[i] /= (unsigned)size; break;
        case GDC_INT64: ((int64_t *)buf)[i] /= size; break;
        case GDC_UINT64: ((uint64_t *)buf)[i] /= (unsigned)size; break;
        case GDC_FLOAT32: ((float *)buf)[i] /= (float)size; break;
        case GDC_FLOAT64: ((double *)buf)[i] /= size; break;
        case GDC_FLOAT16:
            ((uint16_t *)buf)[i] = gdc_coll_float_to_half(gdc_coll_half_to_float(((uint16_t *)buf)[i]) / (float)size);
            break;
        case GDC_BFLOAT16:
            ((uint16_t *)buf)[i] = gdc_coll_float_to_bf16(gdc_coll_bf16_to_float(((uint16_t *)buf)[i]) / (float)size);
            break;
        case GDC_BYTE: break;
        }
    }
}

int gdc_coll_reduce_cuda(void *dst, const void *a, const void *b, size_t count, gdc_dtype_t dtype,
                         gdc_op_t op)
{
    return GDC_ERR_UNSUPPORTED;
}

int gdc_coll_avg_finish_cuda(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    return GDC_ERR_UNSUPPORTED;
}
