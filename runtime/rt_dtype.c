#include <stdint.h>

#include <gdc.h>

#include "rt_args.h"

static const struct {
    const char *name;
    size_t      size;
    int         is_float;
} dtypes[] = {
    [GDC_INT8] = {"int8", 1, 0},        [GDC_UINT8] = {"uint8", 1, 0},
    [GDC_INT16] = {"int16", 2, 0},      [GDC_UINT16] = {"uint16", 2, 0},
    [GDC_INT32] = {"int32", 4, 0},      [GDC_UINT32] = {"uint32", 4, 0},
    [GDC_INT64] = {"int64", 8, 0},      [GDC_UINT64] = {"uint64", 8, 0},
    [GDC_FLOAT16] = {"float16", 2, 1},  [GDC_BFLOAT16] = {"bfloat16", 2, 1},
    [GDC_FLOAT32] = {"float32", 4, 1},  [GDC_FLOAT64] = {"float64", 8, 1},
    [GDC_BYTE] = {"byte", 1, 0},
};

static const char *const op_names[] = {
    [GDC_SUM] = "sum", [GDC_PROD] = "prod", [GDC_MIN] = "min",  [GDC_MAX] = "max",
    [GDC_AVG] = "avg", [GDC_BAND] = "band", [GDC_BOR] = "bor", [GDC_BXOR] = "bxor",
};

int gdc_rt_dtype_valid(gdc_dtype_t dtype)
{
    return (unsigned)dtype < sizeof(dtypes) / sizeof(dtypes[0]);
}

int gdc_rt_op_valid(gdc_op_t op)
{
    return (unsigned)op < sizeof(op_names) / sizeof(op_names[0]);
}

size_t gdc_dtype_size(gdc_dtype_t dtype)
{
    return gdc_rt_dtype_valid(dtype) ? dtypes[dtype].size : 0;
}

int gdc_rt_dtype_is_float(gdc_dtype_t dtype)
{
    return gdc_rt_dtype_valid(dtype) && dtypes[dtype].is_float;
}

const char *gdc_rt_dtype_name(gdc_dtype_t dtype)
{
    return gdc_rt_dtype_valid(dtype) ? dtypes[dtype].name : "unknown";
}

const char *gdc_rt_op_name(gdc_op_t op)
{
    return gdc_rt_op_valid(op) ? op_names[op] : "unknown";
}
