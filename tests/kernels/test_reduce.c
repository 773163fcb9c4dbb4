/*
 * Host reduction kernels of one kernel set (GDC_TEST_KERNEL_SET: "generic" or "avx2"; the
 * build makes one test program per set) against the independent reference (reference.c),
 * bit for bit:
 * every dtype x op on vectors of lengths that hit the vector loops' tails, every aliasing
 * the kernels allow, unaligned starts; then the rules one case at a time: integer
 * wrap-around, fp16 / bf16 rounding, NaN and signed zeros, GDC_AVG.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/reduce.h"
#include "reference.h"

/* Lengths around the vector widths (up to 64 bytes: 64 int8, 8 float64 per vector) and
 * odd large ones. */
static const size_t lengths[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1031, 4099};
#define NUM_LENGTHS (sizeof(lengths) / sizeof(lengths[0]))
#define MAX_LENGTH  4099
/* Elements of slack before the vectors, to start them unaligned. */
#define MAX_OFFSET  3

typedef enum {
    ALIAS_NONE,         /* dst, a, b distinct */
    ALIAS_DST_A,        /* dst == a */
    ALIAS_DST_B,        /* dst == b */
    ALIAS_DST_A_B,      /* dst == a == b */
    ALIAS_A_B,          /* a == b, dst distinct */
    NUM_ALIAS_MODES
} alias_mode_t;

static const char *const alias_names[] = {"distinct", "dst==a", "dst==b", "dst==a==b", "a==b"};

typedef struct {
    gdc_dtype_t dtype;
    gdc_op_t    op;
} combo_t;

/* Run one (dtype, op, length, alias, offset) case; returns 0 when every bit matches and
 * nothing outside dst[0, count) changed. */
static int check_case(gdc_dtype_t dtype, gdc_op_t op, size_t count, alias_mode_t alias,
                      size_t offset, uint64_t *rng)
{
    size_t         size  = gdc_dtype_size(dtype);
    size_t         bytes = (MAX_LENGTH + MAX_OFFSET) * size;
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *dst = malloc(bytes);
    unsigned char *expected = malloc(bytes), *a_in = malloc(bytes), *b_in = malloc(bytes);
    unsigned char *before = malloc(bytes), *base, *pa, *pb, *pdst;
    char           what[128];
    int            mismatch;

    assert_non_null(a && b && dst && expected && a_in && b_in && before);
    ref_fill(a, MAX_LENGTH + MAX_OFFSET, dtype, rng);
    ref_fill(b, MAX_LENGTH + MAX_OFFSET, dtype, rng);
    ref_fill(dst, MAX_LENGTH + MAX_OFFSET, dtype, rng);
    pa   = a + offset * size;
    pb   = (alias == ALIAS_A_B || alias == ALIAS_DST_A_B) ? pa : b + offset * size;
    base = alias == ALIAS_DST_A || alias == ALIAS_DST_A_B ? a : alias == ALIAS_DST_B ? b : dst;
    pdst = base + offset * size;
    memcpy(a_in, pa, count * size);
    memcpy(b_in, pb, count * size);
    memcpy(before, base, bytes);
    ref_reduce(expected, a_in, b_in, count, dtype, op);

    gdc_coll_reduce_host(pdst, pa, pb, count, dtype, op);

    snprintf(what, sizeof(what), "%s %s, %zu elements, %s, offset %zu", ref_dtype_name(dtype),
             ref_op_name(op), count, alias_names[alias], offset);
    mismatch = ref_compare(what, expected, pdst, a_in, b_in, count, dtype) != count;
    if (memcmp(before, base, offset * size) != 0 ||
        memcmp(before + (offset + count) * size, pdst + count * size,
               bytes - (offset + count) * size) != 0) {
        printf("# %s: wrote outside dst\n", what);
        mismatch = 1;
    }
    free(before);
    free(b_in);
    free(a_in);
    free(expected);
    free(dst);
    free(b);
    free(a);
    return mismatch;
}

static void test_combo(void **state)
{
    const combo_t *combo    = *state;
    uint64_t       rng      = 0x1234 + (uint64_t)combo->dtype * 131 + (uint64_t)combo->op;
    int            failures = 0;

    for (size_t l = 0; l < NUM_LENGTHS; l++) {
        for (int alias = 0; alias < NUM_ALIAS_MODES; alias++) {
            failures += check_case(combo->dtype, combo->op, lengths[l], (alias_mode_t)alias, 0, &rng);
        }
        failures += check_case(combo->dtype, combo->op, lengths[l], ALIAS_NONE, 1, &rng);
        failures += check_case(combo->dtype, combo->op, lengths[l], ALIAS_DST_A, MAX_OFFSET, &rng);
    }
    assert_int_equal(failures, 0);
}

/* ---- integers ------------------------------------------------------------------------------ */

static void test_int_wraparound(void **state)
{
    int8_t   i8a = 127, i8b = 1, i8r;
    uint8_t  u8a = 255, u8b = 255, u8r;
    int16_t  i16a = -32768, i16b = -1, i16r;
    uint16_t u16a = 65535, u16b = 65535, u16r;
    int32_t  i32a = INT32_MIN, i32b = -1, i32r;
    uint32_t u32a = UINT32_MAX, u32b = 2, u32r;
    int64_t  i64a = INT64_MAX, i64b = 1, i64r;
    uint64_t u64a = UINT64_MAX, u64b = 1, u64r;

    gdc_coll_reduce_host(&i8r, &i8a, &i8b, 1, GDC_INT8, GDC_SUM);
    assert_int_equal(i8r, -128);
    gdc_coll_reduce_host(&u8r, &u8a, &u8b, 1, GDC_UINT8, GDC_SUM);
    assert_int_equal(u8r, 254);
    gdc_coll_reduce_host(&u8r, &u8a, &u8b, 1, GDC_UINT8, GDC_PROD); /* 65025 mod 256 */
    assert_int_equal(u8r, 1);
    gdc_coll_reduce_host(&i16r, &i16a, &i16b, 1, GDC_INT16, GDC_PROD); /* -(-32768) wraps */
    assert_int_equal(i16r, -32768);
    gdc_coll_reduce_host(&i16r, &i16a, &i16b, 1, GDC_INT16, GDC_SUM);
    assert_int_equal(i16r, 32767);
    /* 65535 * 65535 overflows int if the operands are promoted to int */
    gdc_coll_reduce_host(&u16r, &u16a, &u16b, 1, GDC_UINT16, GDC_PROD);
    assert_int_equal(u16r, 1);
    gdc_coll_reduce_host(&i32r, &i32a, &i32b, 1, GDC_INT32, GDC_PROD);
    assert_int_equal(i32r, INT32_MIN);
    gdc_coll_reduce_host(&u32r, &u32a, &u32b, 1, GDC_UINT32, GDC_PROD);
    assert_int_equal(u32r, UINT32_MAX - 1);
    gdc_coll_reduce_host(&i64r, &i64a, &i64b, 1, GDC_INT64, GDC_SUM);
    assert_true(i64r == INT64_MIN);
    gdc_coll_reduce_host(&u64r, &u64a, &u64b, 1, GDC_UINT64, GDC_SUM);
    assert_true(u64r == 0);
}

static void test_int_min_max_signedness(void **state)
{
    int8_t   ia = -1, ib = 1, ir;
    uint8_t  ua = 0xff, ub = 1, ur;
    int64_t  la = INT64_MIN, lb = INT64_MAX, lr;
    uint64_t ma = 1ull << 63, mb = 1, mr;

    gdc_coll_reduce_host(&ir, &ia, &ib, 1, GDC_INT8, GDC_MIN);
    assert_int_equal(ir, -1);
    gdc_coll_reduce_host(&ur, &ua, &ub, 1, GDC_UINT8, GDC_MIN);
    assert_int_equal(ur, 1);
    gdc_coll_reduce_host(&lr, &la, &lb, 1, GDC_INT64, GDC_MAX);
    assert_true(lr == INT64_MAX);
    gdc_coll_reduce_host(&mr, &ma, &mb, 1, GDC_UINT64, GDC_MAX);
    assert_true(mr == 1ull << 63);
}

static void test_int_bitwise(void **state)
{
    uint32_t a = 0xf0f0a5a5u, b = 0x0ff05a5au, r;
    int16_t  c = -2, d = 3, s;

    gdc_coll_reduce_host(&r, &a, &b, 1, GDC_UINT32, GDC_BAND);
    assert_int_equal(r, 0x00f00000u);
    gdc_coll_reduce_host(&r, &a, &b, 1, GDC_UINT32, GDC_BOR);
    assert_int_equal(r, 0xfff0ffffu);
    gdc_coll_reduce_host(&r, &a, &b, 1, GDC_UINT32, GDC_BXOR);
    assert_int_equal(r, 0xff00ffffu);
    gdc_coll_reduce_host(&s, &c, &d, 1, GDC_INT16, GDC_BAND);
    assert_int_equal(s, 2);
}

/* ---- fp16 and bf16 rounding -------------------------------------------------------------- */

/* r = a OP b on one 16-bit element. */
static uint16_t half_op(uint16_t a, uint16_t b, gdc_dtype_t dtype, gdc_op_t op)
{
    uint16_t r = 0xdead;

    gdc_coll_reduce_host(&r, &a, &b, 1, dtype, op);
    return r;
}

static void test_half_rounding(void **state)
{
    /* 2048 + 1 = 2049 is halfway between 2048 and 2050: ties to even gives 2048 */
    assert_int_equal(half_op(0x6800, 0x3c00, GDC_FLOAT16, GDC_SUM), 0x6800);
    /* 2048 + 3 = 2051, halfway between 2050 (odd mantissa) and 2052: 2052 */
    assert_int_equal(half_op(0x6800, 0x4200, GDC_FLOAT16, GDC_SUM), 0x6802);
    /* just above the tie rounds up: 2048 + 1.0009765625 */
    assert_int_equal(half_op(0x6800, 0x3c01, GDC_FLOAT16, GDC_SUM), 0x6801);
    /* largest finite 65504 + 8 = 65512 rounds back to 65504 ... */
    assert_int_equal(half_op(0x7bff, 0x4800, GDC_FLOAT16, GDC_SUM), 0x7bff);
    /* ... 65504 + 16 = 65520 is the tie with 65536: even, so it overflows to inf */
    assert_int_equal(half_op(0x7bff, 0x4c00, GDC_FLOAT16, GDC_SUM), 0x7c00);
    assert_int_equal(half_op(0xfbff, 0xfbff, GDC_FLOAT16, GDC_SUM), 0xfc00);
    assert_int_equal(half_op(0x7bff, 0x4000, GDC_FLOAT16, GDC_PROD), 0x7c00); /* 65504 * 2 */
    /* subnormals: 2^-24 + 2^-24, 2^-24 * 0.5 (tie with 0: even, 0), 3 * 2^-24 * 0.5 (tie: 2) */
    assert_int_equal(half_op(0x0001, 0x0001, GDC_FLOAT16, GDC_SUM), 0x0002);
    assert_int_equal(half_op(0x0001, 0x3800, GDC_FLOAT16, GDC_PROD), 0x0000);
    assert_int_equal(half_op(0x0003, 0x3800, GDC_FLOAT16, GDC_PROD), 0x0002);
    assert_int_equal(half_op(0x8001, 0x3800, GDC_FLOAT16, GDC_PROD), 0x8000); /* -0 */
    /* largest subnormal + smallest subnormal = smallest normal */
    assert_int_equal(half_op(0x03ff, 0x0001, GDC_FLOAT16, GDC_SUM), 0x0400);
    /* signed zeros: -0 + -0 = -0, -0 + +0 = +0, -1 * 0 = -0 */
    assert_int_equal(half_op(0x8000, 0x8000, GDC_FLOAT16, GDC_SUM), 0x8000);
    assert_int_equal(half_op(0x8000, 0x0000, GDC_FLOAT16, GDC_SUM), 0x0000);
    assert_int_equal(half_op(0xbc00, 0x0000, GDC_FLOAT16, GDC_PROD), 0x8000);
    /* inf - inf is NaN (canonical) */
    assert_int_equal(half_op(0x7c00, 0xfc00, GDC_FLOAT16, GDC_SUM), 0x7e00);
    /* 0.1 + 0.2 in fp16 (0x2e66 + 0x3266 = 0x34cd, correctly rounded) */
    assert_int_equal(half_op(0x2e66, 0x3266, GDC_FLOAT16, GDC_SUM), ref_round_half(ref_half_value(0x2e66) + ref_half_value(0x3266)));
}

static void test_bf16_rounding(void **state)
{
    /* 256 + 1 = 257: tie between 256 and 258, even gives 256; 256 + 3 = 259: 260 */
    assert_int_equal(half_op(0x4380, 0x3f80, GDC_BFLOAT16, GDC_SUM), 0x4380);
    assert_int_equal(half_op(0x4380, 0x4040, GDC_BFLOAT16, GDC_SUM), 0x4382);
    /* largest finite bf16 doubled: inf; plus itself negative: -inf */
    assert_int_equal(half_op(0x7f7f, 0x4000, GDC_BFLOAT16, GDC_PROD), 0x7f80);
    assert_int_equal(half_op(0xff7f, 0xff7f, GDC_BFLOAT16, GDC_SUM), 0xff80);
    /* largest finite + half an ulp of it (2^119): the tie goes to even, i.e. inf */
    assert_int_equal(half_op(0x7f7f, 0x7b00, GDC_BFLOAT16, GDC_SUM), 0x7f80);
    /* subnormals (shared with float's range) */
    assert_int_equal(half_op(0x0001, 0x0001, GDC_BFLOAT16, GDC_SUM), 0x0002);
    assert_int_equal(half_op(0x0001, 0x3f00, GDC_BFLOAT16, GDC_PROD), 0x0000);
    assert_int_equal(half_op(0x0003, 0x3f00, GDC_BFLOAT16, GDC_PROD), 0x0002);
    assert_int_equal(half_op(0x007f, 0x0001, GDC_BFLOAT16, GDC_SUM), 0x0080);
    /* signed zeros */
    assert_int_equal(half_op(0x8000, 0x8000, GDC_BFLOAT16, GDC_SUM), 0x8000);
    assert_int_equal(half_op(0x8000, 0x0000, GDC_BFLOAT16, GDC_SUM), 0x0000);
    assert_int_equal(half_op(0xbf80, 0x0000, GDC_BFLOAT16, GDC_PROD), 0x8000);
}

/* All 65536 patterns of each 16-bit float format through the kernels (the bulk
 * conversions of a kernel set included): x + (-0), x * 1 and max(x, x) give x back, a NaN
 * gives the canonical NaN. */
static void test_half_patterns_through_kernels(void **state)
{
    static const struct {
        gdc_dtype_t dtype;
        uint16_t    one, nan, inf;
    } formats[] = {{GDC_FLOAT16, 0x3c00, 0x7e00, 0x7c00}, {GDC_BFLOAT16, 0x3f80, 0x7fc0, 0x7f80}};
    static uint16_t x[65536], minus_zero[65536], ones[65536], r[65536], want[65536];
    static const gdc_op_t ops[] = {GDC_SUM, GDC_PROD, GDC_MAX};

    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
        for (uint32_t i = 0; i < 65536; i++) {
            x[i]          = (uint16_t)i;
            minus_zero[i] = 0x8000;
            ones[i]       = formats[f].one;
            want[i]       = (i & 0x7fff) > formats[f].inf ? formats[f].nan : (uint16_t)i;
        }
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            const uint16_t *other = ops[o] == GDC_SUM ? minus_zero : ops[o] == GDC_PROD ? ones : x;

            gdc_coll_reduce_host(r, x, other, 65536, formats[f].dtype, ops[o]);
            assert_int_equal(ref_compare(ref_op_name(ops[o]), want, r, x, other, 65536,
                                         formats[f].dtype), 65536);
        }
    }
}

/* ---- NaN and signed zeros in MIN / MAX ----------------------------------------------------- */

typedef struct {
    gdc_dtype_t dtype;
    uint64_t    nan, other_nan, one, minus_one, zero, minus_zero, canonical_nan;
} float_bits_t;

static const float_bits_t float_types[] = {
    {GDC_FLOAT16, 0x7e01, 0xfd00, 0x3c00, 0xbc00, 0x0000, 0x8000, 0x7e00},
    {GDC_BFLOAT16, 0x7fc1, 0xffa0, 0x3f80, 0xbf80, 0x0000, 0x8000, 0x7fc0},
    {GDC_FLOAT32, 0x7fc00001, 0xffa00000, 0x3f800000, 0xbf800000, 0, 0x80000000, 0x7fc00000},
    {GDC_FLOAT64, 0x7ff8000000000001ull, 0xfff4000000000000ull, 0x3ff0000000000000ull,
     0xbff0000000000000ull, 0, 0x8000000000000000ull, 0x7ff8000000000000ull},
};

/* r = a OP b for one element of any float type, as bits. */
static uint64_t float_op(uint64_t a, uint64_t b, gdc_dtype_t dtype, gdc_op_t op)
{
    uint64_t r = 0;

    /* little endian: the low bytes of a uint64_t hold the element */
    gdc_coll_reduce_host(&r, &a, &b, 1, dtype, op);
    return r;
}

static void test_nan_min_max(void **state)
{
    for (size_t t = 0; t < sizeof(float_types) / sizeof(float_types[0]); t++) {
        const float_bits_t *f = &float_types[t];

        /* a NaN loses to a number, whichever side it is on */
        assert_true(float_op(f->nan, f->one, f->dtype, GDC_MIN) == f->one);
        assert_true(float_op(f->one, f->nan, f->dtype, GDC_MIN) == f->one);
        assert_true(float_op(f->nan, f->minus_one, f->dtype, GDC_MAX) == f->minus_one);
        assert_true(float_op(f->minus_one, f->other_nan, f->dtype, GDC_MAX) == f->minus_one);
        /* NaN only when both are; always the canonical one */
        assert_true(float_op(f->nan, f->other_nan, f->dtype, GDC_MIN) == f->canonical_nan);
        assert_true(float_op(f->other_nan, f->nan, f->dtype, GDC_MAX) == f->canonical_nan);
        /* -0 < +0 in both orders */
        assert_true(float_op(f->zero, f->minus_zero, f->dtype, GDC_MIN) == f->minus_zero);
        assert_true(float_op(f->minus_zero, f->zero, f->dtype, GDC_MIN) == f->minus_zero);
        assert_true(float_op(f->zero, f->minus_zero, f->dtype, GDC_MAX) == f->zero);
        assert_true(float_op(f->minus_zero, f->zero, f->dtype, GDC_MAX) == f->zero);
        assert_true(float_op(f->one, f->minus_one, f->dtype, GDC_MIN) == f->minus_one);
        assert_true(float_op(f->one, f->minus_one, f->dtype, GDC_MAX) == f->one);
    }
}

static void test_nan_sum_prod(void **state)
{
    for (size_t t = 0; t < sizeof(float_types) / sizeof(float_types[0]); t++) {
        const float_bits_t *f = &float_types[t];

        /* NaN propagates as the canonical NaN, whatever the payload or the order */
        assert_true(float_op(f->nan, f->one, f->dtype, GDC_SUM) == f->canonical_nan);
        assert_true(float_op(f->one, f->other_nan, f->dtype, GDC_SUM) == f->canonical_nan);
        assert_true(float_op(f->nan, f->other_nan, f->dtype, GDC_SUM) == f->canonical_nan);
        assert_true(float_op(f->other_nan, f->nan, f->dtype, GDC_PROD) == f->canonical_nan);
        assert_true(float_op(f->minus_one, f->nan, f->dtype, GDC_PROD) == f->canonical_nan);
    }
}

/* ---- GDC_AVG ------------------------------------------------------------------------------ */

static void test_avg_int_truncation(void **state)
{
    int32_t  s[] = {-7, 7, -1, 1, INT32_MIN, INT32_MAX, 0};
    int8_t   t[] = {-7, -128, 127};
    uint32_t u[] = {7, UINT32_MAX};
    int64_t  l[] = {-7, INT64_MIN};

    gdc_coll_avg_finish_host(s, 7, GDC_INT32, 2);
    assert_int_equal(s[0], -3); /* toward zero, not -4 */
    assert_int_equal(s[1], 3);
    assert_int_equal(s[2], 0);
    assert_int_equal(s[3], 0);
    assert_int_equal(s[4], INT32_MIN / 2);
    assert_int_equal(s[5], INT32_MAX / 2);
    assert_int_equal(s[6], 0);
    gdc_coll_avg_finish_host(t, 3, GDC_INT8, 200); /* n beyond the type's range */
    assert_int_equal(t[0], 0);
    assert_int_equal(t[1], 0);
    assert_int_equal(t[2], 0);
    gdc_coll_avg_finish_host(u, 2, GDC_UINT32, 2);
    assert_int_equal(u[0], 3);
    assert_int_equal(u[1], UINT32_MAX / 2);
    gdc_coll_avg_finish_host(l, 2, GDC_INT64, 2);
    assert_true(l[0] == -3);
    assert_true(l[1] == INT64_MIN / 2);
}

/* The full GDC_AVG: a wrapping sum, then the division. */
static void test_avg_sum_then_divide(void **state)
{
    int8_t   a[] = {100, -100, -7}, b[] = {100, -100, 0}, r[3];
    uint16_t h[] = {0x3c00, 0x4000}, g[] = {0x3c00, 0x3c00}, q[2]; /* fp16 1, 2 and 1, 1 */
    float    f[] = {1.0f, -7.0f}, e[] = {0.0f, 0.0f}, z[2];

    gdc_coll_reduce_host(r, a, b, 3, GDC_INT8, GDC_AVG);
    gdc_coll_avg_finish_host(r, 3, GDC_INT8, 2);
    assert_int_equal(r[0], -28); /* 200 wraps to -56, / 2 */
    assert_int_equal(r[1], 28);
    assert_int_equal(r[2], -3);
    gdc_coll_reduce_host(q, h, g, 2, GDC_FLOAT16, GDC_AVG);
    gdc_coll_avg_finish_host(q, 2, GDC_FLOAT16, 3);
    assert_int_equal(q[0], 0x3955); /* 2 / 3 = 0.6665 */
    assert_int_equal(q[1], 0x3c00); /* 3 / 3 */
    gdc_coll_reduce_host(z, f, e, 2, GDC_FLOAT32, GDC_AVG);
    gdc_coll_avg_finish_host(z, 2, GDC_FLOAT32, 3);
    assert_true(z[0] == 1.0f / 3.0f);
    assert_true(z[1] == -7.0f / 3.0f);
}

static void test_avg_against_reference(void **state)
{
    static const int counts[] = {1, 2, 3, 7, 64, 1000};
    uint64_t         rng      = 99;
    int              failures = 0;

    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        gdc_dtype_t dtype = (gdc_dtype_t)d;
        size_t      count = 1031, bytes = count * gdc_dtype_size(dtype);

        if (!gdc_coll_reduce_supported(dtype, GDC_AVG)) {
            continue;
        }
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
            unsigned char *buf = malloc(bytes), *expected = malloc(bytes);
            char           what[64];

            assert_non_null(buf && expected);
            ref_fill(buf, count, dtype, &rng);
            memcpy(expected, buf, bytes);
            ref_avg_finish(expected, count, dtype, counts[c]);
            gdc_coll_avg_finish_host(buf, count, dtype, counts[c]);
            snprintf(what, sizeof(what), "avg finish over %d", counts[c]);
            failures += ref_compare(what, expected, buf, NULL, NULL, count, dtype) != count;
            free(expected);
            free(buf);
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- what is supported, and what is refused without harm --------------------------------- */

static void test_supported_table(void **state)
{
    for (int d = 0; d <= GDC_COLL_NUM_DTYPES; d++) {
        for (int o = 0; o <= GDC_COLL_NUM_OPS; o++) {
            int valid_dtype = d < GDC_COLL_NUM_DTYPES && d != GDC_BYTE;
            int valid_op    = o < GDC_COLL_NUM_OPS;
            int bitwise     = o == GDC_BAND || o == GDC_BOR || o == GDC_BXOR;
            int expected    = valid_dtype && valid_op && !(bitwise && ref_is_float((gdc_dtype_t)d));

            assert_int_equal(gdc_coll_reduce_supported((gdc_dtype_t)d, (gdc_op_t)o), expected);
        }
    }
    assert_false(gdc_coll_reduce_supported((gdc_dtype_t)-1, GDC_SUM));
    assert_false(gdc_coll_reduce_supported(GDC_INT32, (gdc_op_t)-1));
}

static void test_refuses_without_harm(void **state)
{
    uint8_t bytes[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
    float   f[4] = {1, 2, 3, 4}, g[4] = {1, 1, 1, 1};
    int32_t i[2] = {-7, 7};

    gdc_coll_reduce_host(out, bytes, bytes, 4, GDC_BYTE, GDC_SUM);
    assert_int_equal(out[0], 9);
    gdc_coll_reduce_host(f, f, g, 4, GDC_FLOAT32, GDC_BAND);
    assert_true(f[0] == 1.0f);
    /* dst overlapping a by one element: refused, dst unchanged */
    gdc_coll_reduce_host(f + 1, f, g, 3, GDC_FLOAT32, GDC_SUM);
    assert_true(f[1] == 2.0f && f[3] == 4.0f);
    gdc_coll_avg_finish_host(i, 2, GDC_INT32, 0);
    assert_int_equal(i[0], -7);
    gdc_coll_avg_finish_host(bytes, 4, GDC_BYTE, 2);
    assert_int_equal(bytes[0], 1);
    /* count 0 touches nothing, even with NULL buffers */
    gdc_coll_reduce_host(NULL, NULL, NULL, 0, GDC_FLOAT64, GDC_SUM);
    gdc_coll_avg_finish_host(NULL, 0, GDC_FLOAT64, 2);
}

/* Same inputs in the other order: the same bits (all operations commute bit for bit). */
static void test_commutative_bits(void **state)
{
    uint64_t rng = 7;

    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        for (int o = 0; o < GDC_COLL_NUM_OPS; o++) {
            gdc_dtype_t    dtype = (gdc_dtype_t)d;
            size_t         count = 777, bytes = count * gdc_dtype_size(dtype);
            unsigned char *a, *b, *ab, *ba;

            if (!gdc_coll_reduce_supported(dtype, (gdc_op_t)o)) {
                continue;
            }
            a = malloc(bytes), b = malloc(bytes), ab = malloc(bytes), ba = malloc(bytes);
            assert_non_null(a && b && ab && ba);
            ref_fill(a, count, dtype, &rng);
            ref_fill(b, count, dtype, &rng);
            gdc_coll_reduce_host(ab, a, b, count, dtype, (gdc_op_t)o);
            gdc_coll_reduce_host(ba, b, a, count, dtype, (gdc_op_t)o);
            assert_int_equal(ref_compare("a OP b vs b OP a", ab, ba, a, b, count, dtype), count);
            free(ba), free(ab), free(b), free(a);
        }
    }
}

/* ---- the floating-point environment ------------------------------------------------------ */

#if defined(__SSE2__)
#include <xmmintrin.h>

/* With flush-to-zero, denormals-are-zero and round-up set by the application, results
 * are those of the IEEE defaults, and the application's settings are back afterwards. */
static void test_ignores_caller_fp_mode(void **state)
{
    const unsigned int non_ieee = 0x8000u | 0x0040u | 0x4000u; /* FTZ, DAZ, round up */
    float              tiny[2] = {0x1p-149f, 0x1p-140f}, one[2] = {0x1p-149f, 1.0f}, r[2];
    uint16_t           h[1] = {0x0001}, g[1] = {0x0001}, q[1];
    unsigned int       saved = _mm_getcsr();

    _mm_setcsr(saved | non_ieee);
    gdc_coll_reduce_host(r, tiny, one, 2, GDC_FLOAT32, GDC_SUM);
    gdc_coll_reduce_host(q, h, g, 1, GDC_FLOAT16, GDC_SUM);
    assert_int_equal(_mm_getcsr() & non_ieee, non_ieee);
    _mm_setcsr(saved);
    assert_true(r[0] == 0x1p-148f);            /* not flushed to zero */
    assert_true(r[1] == 1.0f);                 /* rounded to nearest, not up */
    assert_int_equal(q[0], 0x0002);
}
#endif

typedef struct {
    const char        *name;
    CMUnitTestFunction test;
} fixed_test_t;

static const fixed_test_t fixed_tests[] = {
    {"int_wraparound", test_int_wraparound},
    {"int_min_max_signedness", test_int_min_max_signedness},
    {"int_bitwise", test_int_bitwise},
    {"half_rounding", test_half_rounding},
    {"bf16_rounding", test_bf16_rounding},
    {"half_patterns_through_kernels", test_half_patterns_through_kernels},
    {"nan_min_max", test_nan_min_max},
    {"nan_sum_prod", test_nan_sum_prod},
    {"avg_int_truncation", test_avg_int_truncation},
    {"avg_sum_then_divide", test_avg_sum_then_divide},
    {"avg_against_reference", test_avg_against_reference},
    {"supported_table", test_supported_table},
    {"refuses_without_harm", test_refuses_without_harm},
    {"commutative_bits", test_commutative_bits},
#if defined(__SSE2__)
    {"ignores_caller_fp_mode", test_ignores_caller_fp_mode},
#endif
};
#define NUM_FIXED (sizeof(fixed_tests) / sizeof(fixed_tests[0]))

#define MAX_TESTS (NUM_FIXED + GDC_COLL_NUM_DTYPES * GDC_COLL_NUM_OPS)

int main(void)
{
    static struct CMUnitTest tests[MAX_TESTS];
    static combo_t           combos[MAX_TESTS];
    static char              names[MAX_TESTS][48];
    const char              *best = gdc_coll_reduce_host_isa();
    size_t                   n    = 0;

    if (gdc_coll_reduce_host_select_isa(GDC_TEST_KERNEL_SET) != GDC_SUCCESS) {
        printf("SKIPPED: host kernel set %s is not available on this CPU or build\n"
               "1..0 # SKIP kernel set %s not available\n", GDC_TEST_KERNEL_SET, GDC_TEST_KERNEL_SET);
        return 0;
    }
    printf("# host kernel set %s (this CPU's best: %s)\n", GDC_TEST_KERNEL_SET, best);
    /* one test per supported dtype x op, named "reduce_<dtype>_<op>" */
    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        for (int o = 0; o < GDC_COLL_NUM_OPS; o++) {
            if (!gdc_coll_reduce_supported((gdc_dtype_t)d, (gdc_op_t)o)) {
                continue;
            }
            combos[n] = (combo_t){(gdc_dtype_t)d, (gdc_op_t)o};
            snprintf(names[n], sizeof(names[n]), "reduce_%s_%s", ref_dtype_name((gdc_dtype_t)d),
                     ref_op_name((gdc_op_t)o));
            tests[n] = (struct CMUnitTest){names[n], test_combo, NULL, NULL, &combos[n]};
            n++;
        }
    }
    for (size_t f = 0; f < NUM_FIXED; f++) {
        tests[n++] = (struct CMUnitTest){fixed_tests[f].name, fixed_tests[f].test, NULL, NULL, NULL};
    }
    printf("# the error lines on stderr come from tests of refused arguments\n");
    return _cmocka_run_group_tests("reduce_host_" GDC_TEST_KERNEL_SET, tests, n, NULL, NULL);
}
