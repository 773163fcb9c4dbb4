/* The independent scalar reference of the reduction kernels; see reference.h. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- fp16 and bfloat16 ------------------------------------------------------------------ */

/* A 16-bit binary format: `mant_bits` stored mantissa bits, exponent bias = emax. */
typedef struct {
    int      mant_bits;
    int      emax;
    uint16_t nan_bits;
} ref_format_t;

static const ref_format_t half_format = {10, 15, REF_HALF_NAN};
static const ref_format_t bf16_format = {7, 127, REF_BF16_NAN};

static double format_value(uint16_t bits, const ref_format_t *format)
{
    int      all_ones = 2 * format->emax + 1;
    int      exponent = (bits & 0x7fff) >> format->mant_bits;
    uint32_t mantissa = bits & ((1u << format->mant_bits) - 1);
    double   value;

    if (exponent == all_ones) {
        value = mantissa ? NAN : INFINITY;
    } else if (exponent == 0) { /* subnormal: 0.mantissa * 2^emin */
        value = ldexp(mantissa, 1 - format->emax - format->mant_bits);
    } else {                    /* normal: 1.mantissa * 2^(exponent - bias) */
        value = ldexp(mantissa + (1u << format->mant_bits),
                      exponent - format->emax - format->mant_bits);
    }
    return (bits & 0x8000) ? -value : value;
}

/*
 * Round x to the format: scale it so that the unit in the last place of the result is 1,
 * round that to an integer by hand (ties to even), and rebuild the fields. The scale is a
 * power of two, so every step before the rounding is exact in double.
 */
static uint16_t format_round(double x, const ref_format_t *format)
{
    int      emin     = 1 - format->emax;
    uint16_t sign     = signbit(x) ? 0x8000 : 0;
    uint16_t inf      = (uint16_t)((2 * format->emax + 1) << format->mant_bits);
    uint64_t implicit = (uint64_t)1 << format->mant_bits;
    double   magnitude = fabs(x), scaled, whole, fraction;
    int      e, ulp_exponent, exponent;
    uint64_t mantissa;

    if (isnan(x)) {
        return format->nan_bits;
    }
    if (isinf(x)) {
        return sign | inf;
    }
    if (magnitude == 0) {
        return sign;
    }
    frexp(magnitude, &e); /* magnitude's leading bit is 2^(e - 1) */
    ulp_exponent = (e - 1 > emin ? e - 1 : emin) - format->mant_bits;
    scaled       = ldexp(magnitude, -ulp_exponent);
    whole        = floor(scaled);
    fraction     = scaled - whole;
    mantissa     = (uint64_t)whole;
    if (fraction > 0.5 || (fraction == 0.5 && (mantissa & 1))) {
        mantissa++;
    }
    if (mantissa == 2 * implicit) { /* rounded up into the next binade */
        mantissa /= 2;
        ulp_exponent++;
    }
    if (mantissa < implicit) { /* subnormal (or rounded to zero) */
        return sign | (uint16_t)mantissa;
    }
    exponent = ulp_exponent + format->mant_bits;
    if (exponent > format->emax) {
        return sign | inf;
    }
    return sign | (uint16_t)(((uint64_t)(exponent + format->emax) << format->mant_bits) |
                             (mantissa - implicit));
}

double ref_half_value(uint16_t bits)
{
    return format_value(bits, &half_format);
}

double ref_bf16_value(uint16_t bits)
{
    return format_value(bits, &bf16_format);
}

uint16_t ref_round_half(double x)
{
    return format_round(x, &half_format);
}

uint16_t ref_round_bf16(double x)
{
    return format_round(x, &bf16_format);
}

/* ---- operations in double ---------------------------------------------------------------- */

double ref_min(double a, double b)
{
    if (isnan(a)) {
        return b;
    }
    if (isnan(b)) {
        return a;
    }
    if (a != b) {
        return a < b ? a : b;
    }
    return signbit(a) ? a : b; /* equal: only +0 / -0 differ, and -0 is the smaller */
}

double ref_max(double a, double b)
{
    if (isnan(a)) {
        return b;
    }
    if (isnan(b)) {
        return a;
    }
    if (a != b) {
        return a > b ? a : b;
    }
    return signbit(a) ? b : a;
}

static double apply_double(double a, double b, gdc_op_t op)
{
    switch (op) {
    case GDC_SUM:
    case GDC_AVG: return a + b;
    case GDC_PROD: return a * b;
    case GDC_MIN: return ref_min(a, b);
    case GDC_MAX: return ref_max(a, b);
    default: return NAN;
    }
}

/* ---- element access ---------------------------------------------------------------------- */

static int is_signed_int(gdc_dtype_t dtype)
{
    return dtype == GDC_INT8 || dtype == GDC_INT16 || dtype == GDC_INT32 || dtype == GDC_INT64;
}

static size_t element_size(gdc_dtype_t dtype)
{
    switch (dtype) {
    case GDC_INT8:
    case GDC_UINT8: return 1;
    case GDC_INT16:
    case GDC_UINT16:
    case GDC_FLOAT16:
    case GDC_BFLOAT16: return 2;
    case GDC_INT32:
    case GDC_UINT32:
    case GDC_FLOAT32: return 4;
    default: return 8;
    }
}

/* The element's bits, zero-extended (for signed types: the two's complement bits). */
static uint64_t load_bits(const void *buf, size_t i, gdc_dtype_t dtype)
{
    const unsigned char *p = (const unsigned char *)buf + i * element_size(dtype);

    switch (element_size(dtype)) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Store the low bits of `bits` (arithmetic modulo 2^width). */
static void store_bits(void *buf, size_t i, gdc_dtype_t dtype, uint64_t bits)
{
    unsigned char *p = (unsigned char *)buf + i * element_size(dtype);

    switch (element_size(dtype)) {
    case 1: *p = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

/* A signed element's value, sign-extended from its width. */
static int64_t load_signed(const void *buf, size_t i, gdc_dtype_t dtype)
{
    int      width = (int)element_size(dtype) * 8;
    uint64_t bits  = load_bits(buf, i, dtype);

    if (width < 64 && (bits >> (width - 1)) & 1) {
        bits |= ~(uint64_t)0 << width;
    }
    return (int64_t)bits;
}

static float f32_of(uint64_t bits)
{
    uint32_t u = (uint32_t)bits;
    float    f;

    memcpy(&f, &u, 4);
    return f;
}

static uint64_t bits_of_f32(float f)
{
    uint32_t u;

    if (isnan(f)) {
        return REF_F32_NAN;
    }
    memcpy(&u, &f, 4);
    return u;
}

static double f64_of(uint64_t bits)
{
    double d;

    memcpy(&d, &bits, 8);
    return d;
}

static uint64_t bits_of_f64(double d)
{
    uint64_t u;

    if (isnan(d)) {
        return REF_F64_NAN;
    }
    memcpy(&u, &d, 8);
    return u;
}

/* ---- reference reduction ------------------------------------------------------------------ */

static uint64_t reduce_int(uint64_t x, uint64_t y, int64_t sx, int64_t sy, int is_signed,
                           gdc_op_t op)
{
    switch (op) {
    case GDC_SUM:
    case GDC_AVG: return x + y;
    case GDC_PROD: return x * y; /* the low bits of a product do not depend on signedness */
    case GDC_MIN: return is_signed ? (uint64_t)(sx < sy ? sx : sy) : (x < y ? x : y);
    case GDC_MAX: return is_signed ? (uint64_t)(sx > sy ? sx : sy) : (x > y ? x : y);
    case GDC_BAND: return x & y;
    case GDC_BOR: return x | y;
    case GDC_BXOR: return x ^ y;
    }
    return 0;
}

static uint64_t reduce_element(uint64_t x, uint64_t y, const void *a, const void *b, size_t i,
                               gdc_dtype_t dtype, gdc_op_t op)
{
    switch (dtype) {
    case GDC_FLOAT16:
        return ref_round_half(apply_double(ref_half_value((uint16_t)x), ref_half_value((uint16_t)y), op));
    case GDC_BFLOAT16:
        return ref_round_bf16(apply_double(ref_bf16_value((uint16_t)x), ref_bf16_value((uint16_t)y), op));
    case GDC_FLOAT32:
        /* the exact sum or product rounded to double, then to float: double has more than
         * twice float's precision, so this is the correctly rounded float result */
        return bits_of_f32((float)apply_double(f32_of(x), f32_of(y), op));
    case GDC_FLOAT64:
        return bits_of_f64(apply_double(f64_of(x), f64_of(y), op));
    default:
        return reduce_int(x, y, is_signed_int(dtype) ? load_signed(a, i, dtype) : 0,
                          is_signed_int(dtype) ? load_signed(b, i, dtype) : 0,
                          is_signed_int(dtype), op);
    }
}

void ref_reduce(void *dst, const void *a, const void *b, size_t count, gdc_dtype_t dtype,
                gdc_op_t op)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t x = load_bits(a, i, dtype), y = load_bits(b, i, dtype);

        store_bits(dst, i, dtype, reduce_element(x, y, a, b, i, dtype, op));
    }
}

/* Truncation toward zero written out: divide the magnitude, then put the sign back. */
static uint64_t avg_int(const void *buf, size_t i, gdc_dtype_t dtype, int n)
{
    if (is_signed_int(dtype)) {
        int64_t  v         = load_signed(buf, i, dtype);
        uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        uint64_t quotient  = magnitude / (uint64_t)n;

        return v < 0 ? (uint64_t)0 - quotient : quotient;
    }
    return load_bits(buf, i, dtype) / (uint64_t)n;
}

void ref_avg_finish(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t x = load_bits(buf, i, dtype), r;

        switch (dtype) {
        case GDC_FLOAT16: r = ref_round_half(ref_half_value((uint16_t)x) / n); break;
        case GDC_BFLOAT16: r = ref_round_bf16(ref_bf16_value((uint16_t)x) / n); break;
        case GDC_FLOAT32: r = bits_of_f32((float)((double)f32_of(x) / n)); break;
        case GDC_FLOAT64: r = bits_of_f64(f64_of(x) / n); break;
        default: r = avg_int(buf, i, dtype, n); break;
        }
        store_bits(buf, i, dtype, r);
    }
}

/* ---- inputs ------------------------------------------------------------------------------- */

uint64_t ref_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Zeros, infinities, NaNs (quiet, signalling, negative), the subnormal and normal limits,
 * the largest finite values, one. */
static const uint64_t half_specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe00,
                                         0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00,
                                         0xbc00};
static const uint64_t bf16_specials[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7fa1, 0xffc0,
                                         0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80,
                                         0xbf80};
static const uint64_t f32_specials[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
                                        0x7fc00000, 0x7fa00001, 0xffc00123, 0x00000001,
                                        0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff,
                                        0xff7fffff, 0x3f800000, 0xbf800000};
static const uint64_t f64_specials[] = {0x0000000000000000ull, 0x8000000000000000ull,
                                        0x7ff0000000000000ull, 0xfff0000000000000ull,
                                        0x7ff8000000000000ull, 0x7ff4000000000001ull,
                                        0xfff8000000000123ull, 0x0000000000000001ull,
                                        0x8000000000000001ull, 0x000fffffffffffffull,
                                        0x0010000000000000ull, 0x7fefffffffffffffull,
                                        0xffefffffffffffffull, 0x3ff0000000000000ull,
                                        0xbff0000000000000ull};
/* 0, 1, all ones (-1), the signed maximum and minimum of each width are made below. */

#define NUM_SPECIALS(_table) (sizeof(_table) / sizeof((_table)[0]))

/* A value near 1 (exponent within +-4 of the bias), random sign and mantissa. */
static uint64_t moderate_float(uint64_t r, int mant_bits, int bias)
{
    uint64_t mantissa = r & (((uint64_t)1 << mant_bits) - 1);
    uint64_t exponent = (uint64_t)(bias - 4 + (int)((r >> 56) % 9));
    uint64_t sign     = (r >> 63) & 1;
    int      exp_bits = bias == 15 ? 5 : bias == 127 ? 8 : 11;

    return (sign << (mant_bits + exp_bits)) | (exponent << mant_bits) | mantissa;
}

static uint64_t special_int(uint64_t r, gdc_dtype_t dtype)
{
    int      width = (int)element_size(dtype) * 8;
    uint64_t top   = (uint64_t)1 << (width - 1);

    switch (r % 5) {
    case 0: return 0;
    case 1: return 1;
    case 2: return ~(uint64_t)0; /* -1 or the unsigned maximum */
    case 3: return top - 1;      /* signed maximum */
    default: return top;         /* signed minimum */
    }
}

static uint64_t random_element(uint64_t r, uint64_t kind, gdc_dtype_t dtype)
{
    const uint64_t *specials = NULL;
    size_t          num      = 0;
    int             mant_bits = 0, bias = 0;

    switch (dtype) {
    case GDC_FLOAT16: specials = half_specials; num = NUM_SPECIALS(half_specials);
        mant_bits = 10; bias = 15; break;
    case GDC_BFLOAT16: specials = bf16_specials; num = NUM_SPECIALS(bf16_specials);
        mant_bits = 7; bias = 127; break;
    case GDC_FLOAT32: specials = f32_specials; num = NUM_SPECIALS(f32_specials);
        mant_bits = 23; bias = 127; break;
    case GDC_FLOAT64: specials = f64_specials; num = NUM_SPECIALS(f64_specials);
        mant_bits = 52; bias = 1023; break;
    default:
        return kind == 0 ? special_int(r, dtype) : r;
    }
    switch (kind) {
    case 0: return specials[r % num];
    case 1: return r; /* any bits: huge, tiny, NaN payloads, ... */
    default: return moderate_float(r, mant_bits, bias);
    }
}

void ref_fill(void *buf, size_t count, gdc_dtype_t dtype, uint64_t *state)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t r    = ref_random(state);
        uint64_t kind = ref_random(state) % 8;

        store_bits(buf, i, dtype, random_element(r, kind, dtype));
    }
}

/* ---- comparison ---------------------------------------------------------------------------- */

size_t ref_compare(const char *what, const void *expected, const void *actual, const void *a,
                   const void *b, size_t count, gdc_dtype_t dtype)
{
    int digits = (int)element_size(dtype) * 2;

    for (size_t i = 0; i < count; i++) {
        uint64_t want = load_bits(expected, i, dtype), got = load_bits(actual, i, dtype);

        if (want != got) {
            printf("# %s: %s element %zu of %zu: expected 0x%0*llx, got 0x%0*llx", what,
                   ref_dtype_name(dtype), i, count, digits, (unsigned long long)want, digits,
                   (unsigned long long)got);
            if (a != NULL && b != NULL) {
                printf(" (operands 0x%0*llx, 0x%0*llx)", digits,
                       (unsigned long long)load_bits(a, i, dtype), digits,
                       (unsigned long long)load_bits(b, i, dtype));
            }
            printf("\n");
            return i;
        }
    }
    return count;
}

/* ---- names -------------------------------------------------------------------------------- */

const char *ref_dtype_name(gdc_dtype_t dtype)
{
    static const char *const names[] = {"int8",  "uint8",   "int16",    "uint16", "int32",
                                        "uint32", "int64",  "uint64",   "float16", "bfloat16",
                                        "float32", "float64", "byte"};

    return (unsigned)dtype < sizeof(names) / sizeof(names[0]) ? names[dtype] : "unknown";
}

const char *ref_op_name(gdc_op_t op)
{
    static const char *const names[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};

    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "unknown";
}

int ref_is_float(gdc_dtype_t dtype)
{
    return dtype == GDC_FLOAT16 || dtype == GDC_BFLOAT16 || dtype == GDC_FLOAT32 ||
           dtype == GDC_FLOAT64;
}
