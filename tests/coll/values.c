#include "values.h"

#include <math.h>
#include <stdint.h>

#include "kernels/reduce.h"

double test_value(gdc_dtype_t dtype, gdc_op_t op, int r, size_t i)
{
    if (dtype == GDC_FLOAT32 || dtype == GDC_FLOAT64) {
        uint32_t h = (uint32_t)r * 2654435761u ^ (uint32_t)(i * 40503u + 17);
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        return ((double)(h % 20001) - 10000.0) / 7919.0;
    }
    if (op == GDC_PROD) {
        return (double)((r + i) % 3 == 0 ? 2 : 1) * ((r + i) % 5 == 0 ? -1 : 1);
    }
    if (dtype == GDC_UINT8 || dtype == GDC_UINT16 || dtype == GDC_UINT32 || dtype == GDC_UINT64 || dtype == GDC_BYTE) {
        return (double)(((size_t)r * 31 + i * 7 + 3) % 97);
    }
    return (double)((int)(((size_t)r * 31 + i * 7 + 3) % 97) - 48);
}

void test_put(gdc_dtype_t t, void *buf, size_t i, double v)
{
    switch (t) {
    case GDC_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case GDC_UINT8: case GDC_BYTE: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case GDC_INT16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case GDC_UINT16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case GDC_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case GDC_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case GDC_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case GDC_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case GDC_FLOAT16: ((uint16_t *)buf)[i] = gdc_coll_float_to_half((float)v); break;
    case GDC_BFLOAT16: ((uint16_t *)buf)[i] = gdc_coll_float_to_bf16((float)v); break;
    case GDC_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case GDC_FLOAT64: ((double *)buf)[i] = v; break;
    }
}

double test_get(gdc_dtype_t t, const void *buf, size_t i)
{
    switch (t) {
    case GDC_INT8: return ((const int8_t *)buf)[i];
    case GDC_UINT8: case GDC_BYTE: return ((const uint8_t *)buf)[i];
    case GDC_INT16: return ((const int16_t *)buf)[i];
    case GDC_UINT16: return ((const uint16_t *)buf)[i];
    case GDC_INT32: return ((const int32_t *)buf)[i];
    case GDC_UINT32: return ((const uint32_t *)buf)[i];
    case GDC_INT64: return (double)((const int64_t *)buf)[i];
    case GDC_UINT64: return (double)((const uint64_t *)buf)[i];
    case GDC_FLOAT16: return gdc_coll_half_to_float(((const uint16_t *)buf)[i]);
    case GDC_BFLOAT16: return gdc_coll_bf16_to_float(((const uint16_t *)buf)[i]);
    case GDC_FLOAT32: return ((const float *)buf)[i];
    case GDC_FLOAT64: return ((const double *)buf)[i];
    }
    return 0;
}

double test_stored(gdc_dtype_t dtype, gdc_op_t op, int r, size_t i)
{
    char tmp[8];

    test_put(dtype, tmp, 0, test_value(dtype, op, r, i));
    return test_get(dtype, tmp, 0);
}

int test_is_float(gdc_dtype_t t)
{
    return t == GDC_FLOAT16 || t == GDC_BFLOAT16 || t == GDC_FLOAT32 || t == GDC_FLOAT64;
}

double test_reference(gdc_dtype_t dtype, gdc_op_t op, int n, size_t i, double *tol)
{
    double acc = test_stored(dtype, op, 0, i), mag = fabs(acc);

    for (int r = 1; r < n; r++) {
        double x = test_stored(dtype, op, r, i);
        mag += fabs(x);
        switch (op) {
        case GDC_SUM: case GDC_AVG: acc += x; break;
        case GDC_PROD: acc *= x; break;
        case GDC_MIN: acc = x < acc ? x : acc; break;
        case GDC_MAX: acc = x > acc ? x : acc; break;
        case GDC_BAND: acc = (double)((int64_t)acc & (int64_t)x); break;
        case GDC_BOR: acc = (double)((int64_t)acc | (int64_t)x); break;
        case GDC_BXOR: acc = (double)((int64_t)acc ^ (int64_t)x); break;
        }
    }
    if (op == GDC_AVG) {
        acc = test_is_float(dtype) ? acc / n : (double)(int64_t)(acc / n);
    }
    *tol = 0;
    if (test_is_float(dtype) && (op == GDC_SUM || op == GDC_AVG)) {
        /* every partial sum rounds once: n roundings of at most eps times the magnitude */
        double eps = dtype == GDC_FLOAT64 ? 1.2e-16 : dtype == GDC_FLOAT32 ? 6e-8 : dtype == GDC_FLOAT16 ? 4.9e-4 : 3.9e-3;
        *tol       = (double)n * 2 * eps * (mag + 1);
    }
    return acc;
}
