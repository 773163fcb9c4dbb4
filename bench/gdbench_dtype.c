/* Datatypes and reduction operations of the harness: names, sizes, element access. */
#include "gdbench.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const gdbench_dtype_info_t dtype_table[GDBENCH_DTYPE_COUNT] = {
    [GDBENCH_INT8]     = {"int8", 1, 0, INT8_MAX},
    [GDBENCH_UINT8]    = {"uint8", 1, 0, UINT8_MAX},
    [GDBENCH_INT16]    = {"int16", 2, 0, INT16_MAX},
    [GDBENCH_UINT16]   = {"uint16", 2, 0, UINT16_MAX},
    [GDBENCH_INT32]    = {"int32", 4, 0, INT32_MAX},
    [GDBENCH_UINT32]   = {"uint32", 4, 0, UINT32_MAX},
    [GDBENCH_INT64]    = {"int64", 8, 0, (uint64_t)1 << 62},
    [GDBENCH_UINT64]   = {"uint64", 8, 0, (uint64_t)1 << 62},
    [GDBENCH_FLOAT16]  = {"float16", 2, 1, 2048},           /* 11-bit significand */
    [GDBENCH_BFLOAT16] = {"bfloat16", 2, 1, 256},           /* 8-bit significand */
    [GDBENCH_FLOAT32]  = {"float32", 4, 1, (uint64_t)1 << 24},
    [GDBENCH_FLOAT64]  = {"float64", 8, 1, (uint64_t)1 << 53},
};

static const char *const op_names[GDBENCH_OP_COUNT] = {
    [GDBENCH_SUM] = "sum",   [GDBENCH_PROD] = "prod", [GDBENCH_MIN] = "min",
    [GDBENCH_MAX] = "max",   [GDBENCH_AVG] = "avg",   [GDBENCH_BAND] = "band",
    [GDBENCH_BOR] = "bor",   [GDBENCH_BXOR] = "bxor",
};

const gdbench_dtype_info_t *gdbench_dtype_info(gdbench_dtype_t dtype)
{
    return &dtype_table[dtype];
}

int gdbench_dtype_by_name(const char *name, gdbench_dtype_t *dtype)
{
    /* a few common aliases, so that "-T float" and "-T half" work as in nccl-tests */
    static const struct {
        const char     *alias;
        gdbench_dtype_t dtype;
    } aliases[] = {
        {"char", GDBENCH_INT8},     {"byte", GDBENCH_UINT8},   {"int", GDBENCH_INT32},
        {"float", GDBENCH_FLOAT32}, {"double", GDBENCH_FLOAT64}, {"half", GDBENCH_FLOAT16},
        {"bf16", GDBENCH_BFLOAT16}, {"fp16", GDBENCH_FLOAT16}, {"fp32", GDBENCH_FLOAT32},
        {"fp64", GDBENCH_FLOAT64},
    };

    for (int i = 0; i < GDBENCH_DTYPE_COUNT; i++) {
        if (strcmp(name, dtype_table[i].name) == 0) {
            *dtype = (gdbench_dtype_t)i;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (strcmp(name, aliases[i].alias) == 0) {
            *dtype = aliases[i].dtype;
            return 0;
        }
    }
    return -1;
}

const char *gdbench_op_name(gdbench_op_t op)
{
    return op_names[op];
}

int gdbench_op_by_name(const char *name, gdbench_op_t *op)
{
    for (int i = 0; i < GDBENCH_OP_COUNT; i++) {
        if (strcmp(name, op_names[i]) == 0) {
            *op = (gdbench_op_t)i;
            return 0;
        }
    }
    return -1;
}

int gdbench_op_valid_for(gdbench_op_t op, gdbench_dtype_t dtype)
{
    int bitwise = op == GDBENCH_BAND || op == GDBENCH_BOR || op == GDBENCH_BXOR;

    return !(bitwise && dtype_table[dtype].is_float);
}

/* ---------------------------------------------------------------------------------------
 * binary16 and bfloat16. The patterns only use small integers, but the conversions are
 * complete (subnormals, infinities, NaN) so that a wrong result prints as what it is.
 */
static uint32_t float_bits(float value)
{
    uint32_t bits;

    memcpy(&bits, &value, sizeof(bits));
    return bits;
}

static float bits_float(uint32_t bits)
{
    float value;

    memcpy(&value, &bits, sizeof(value));
    return value;
}

uint16_t gdbench_float_to_half(float value)
{
    uint32_t bits = float_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    int32_t  exp  = (int32_t)((bits >> 23) & 0xffu) - 127 + 15;
    uint32_t mant = bits & 0x7fffffu;

    if (((bits >> 23) & 0xffu) == 0xffu) { /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    }
    if (exp >= 31) {
        return (uint16_t)(sign | 0x7c00u);
    }
    if (exp <= 0) { /* subnormal half, or zero */
        if (exp < -10) {
            return sign;
        }
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half  = mant >> shift;
        uint32_t rest  = mant & ((1u << shift) - 1);
        uint32_t mid   = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u))) {
            half++;
        }
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) {
        half++; /* may carry into the exponent, which is the right rounding */
    }
    return (uint16_t)(sign | half);
}

float gdbench_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp  = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;

    if (exp == 0x1fu) {
        return bits_float(sign | 0x7f800000u | (mant << 13));
    }
    if (exp == 0) {
        float value = ldexpf((float)mant, -24);
        return sign ? -value : value;
    }
    return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t gdbench_float_to_bfloat16(float value)
{
    uint32_t bits = float_bits(value);

    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)) {
        return (uint16_t)((bits >> 16) | 0x40u); /* keep NaN a NaN */
    }
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

float gdbench_bfloat16_to_float(uint16_t bits)
{
    return bits_float((uint32_t)bits << 16);
}

/* ---------------------------------------------------------------------------------------
 * Element access
 */
void gdbench_dtype_store(void *buf, size_t index, gdbench_dtype_t dtype, int64_t value)
{
    char    *dst = (char *)buf + index * dtype_table[dtype].size;
    uint64_t u   = (uint64_t)value; /* integers wrap modulo 2^bits, as stored */

    switch (dtype) {
    case GDBENCH_INT8:
    case GDBENCH_UINT8: {
        uint8_t v = (uint8_t)u;
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_INT16:
    case GDBENCH_UINT16: {
        uint16_t v = (uint16_t)u;
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_INT32:
    case GDBENCH_UINT32: {
        uint32_t v = (uint32_t)u;
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_INT64:
    case GDBENCH_UINT64:
        memcpy(dst, &u, sizeof(u));
        break;
    case GDBENCH_FLOAT16: {
        uint16_t v = gdbench_float_to_half((float)value);
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_BFLOAT16: {
        uint16_t v = gdbench_float_to_bfloat16((float)value);
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_FLOAT32: {
        float v = (float)value;
        memcpy(dst, &v, sizeof(v));
        break;
    }
    case GDBENCH_FLOAT64: {
        double v = (double)value;
        memcpy(dst, &v, sizeof(v));
        break;
    }
    default:
        break;
    }
}

/* The element as a double (floats) or as an integer of its own signedness. */
static double load_float(const char *src, gdbench_dtype_t dtype)
{
    uint16_t h;
    float    f;
    double   d;

    switch (dtype) {
    case GDBENCH_FLOAT16:
        memcpy(&h, src, sizeof(h));
        return gdbench_half_to_float(h);
    case GDBENCH_BFLOAT16:
        memcpy(&h, src, sizeof(h));
        return gdbench_bfloat16_to_float(h);
    case GDBENCH_FLOAT32:
        memcpy(&f, src, sizeof(f));
        return f;
    default:
        memcpy(&d, src, sizeof(d));
        return d;
    }
}

static int64_t load_signed(const char *src, gdbench_dtype_t dtype)
{
    int8_t  i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;

    switch (dtype_table[dtype].size) {
    case 1: memcpy(&i8, src, 1); return i8;
    case 2: memcpy(&i16, src, 2); return i16;
    case 4: memcpy(&i32, src, 4); return i32;
    default: memcpy(&i64, src, 8); return i64;
    }
}

static uint64_t load_unsigned(const char *src, gdbench_dtype_t dtype)
{
    uint8_t  u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;

    switch (dtype_table[dtype].size) {
    case 1: memcpy(&u8, src, 1); return u8;
    case 2: memcpy(&u16, src, 2); return u16;
    case 4: memcpy(&u32, src, 4); return u32;
    default: memcpy(&u64, src, 8); return u64;
    }
}

static int is_signed_int(gdbench_dtype_t dtype)
{
    return dtype == GDBENCH_INT8 || dtype == GDBENCH_INT16 || dtype == GDBENCH_INT32 ||
           dtype == GDBENCH_INT64;
}

void gdbench_dtype_format(const void *buf, size_t index, gdbench_dtype_t dtype, char *out, size_t outlen)
{
    const char *src = (const char *)buf + index * dtype_table[dtype].size;

    if (dtype_table[dtype].is_float) {
        snprintf(out, outlen, "%.17g", load_float(src, dtype));
    } else if (is_signed_int(dtype)) {
        snprintf(out, outlen, "%" PRId64, load_signed(src, dtype));
    } else {
        snprintf(out, outlen, "%" PRIu64, load_unsigned(src, dtype));
    }
}

void gdbench_dtype_divide(void *buf, size_t count, gdbench_dtype_t dtype, int divisor)
{
    char  *p    = buf;
    size_t size = dtype_table[dtype].size;

    for (size_t i = 0; i < count; i++, p += size) {
        switch (dtype) {
        case GDBENCH_FLOAT32: {
            float v;
            memcpy(&v, p, sizeof(v));
            v /= (float)divisor;
            memcpy(p, &v, sizeof(v));
            break;
        }
        case GDBENCH_FLOAT64: {
            double v;
            memcpy(&v, p, sizeof(v));
            v /= divisor;
            memcpy(p, &v, sizeof(v));
            break;
        }
        case GDBENCH_FLOAT16: {
            uint16_t h;
            memcpy(&h, p, sizeof(h));
            h = gdbench_float_to_half(gdbench_half_to_float(h) / (float)divisor);
            memcpy(p, &h, sizeof(h));
            break;
        }
        case GDBENCH_BFLOAT16: {
            uint16_t h;
            memcpy(&h, p, sizeof(h));
            h = gdbench_float_to_bfloat16(gdbench_bfloat16_to_float(h) / (float)divisor);
            memcpy(p, &h, sizeof(h));
            break;
        }
        default:
            if (is_signed_int(dtype)) {
                gdbench_dtype_store(p, 0, dtype, load_signed(p, dtype) / divisor);
            } else {
                gdbench_dtype_store(p, 0, dtype, (int64_t)(load_unsigned(p, dtype) / (uint64_t)divisor));
            }
            break;
        }
    }
}
