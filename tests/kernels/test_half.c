/*
 * fp16 / bf16 conversions of coll/kernels/half.h (through reduce.h's functions) against the
 * independent reference: every one of the 65536 bit patterns of each format decoded and
 * round-tripped, every rounding midpoint between neighbours (and the floats just around
 * it), special values, and a million random floats.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/reduce.h"
#include "reference.h"

typedef struct {
    const char *name;
    float (*decode)(uint16_t);
    uint16_t (*encode)(float);
    double (*ref_value)(uint16_t);
    uint16_t (*ref_round)(double);
    uint16_t inf;       /* +inf bits */
    uint16_t nan;       /* canonical NaN bits */
} format_t;

static const format_t formats[] = {
    {"float16", gdc_coll_half_to_float, gdc_coll_float_to_half, ref_half_value, ref_round_half,
     0x7c00, REF_HALF_NAN},
    {"bfloat16", gdc_coll_bf16_to_float, gdc_coll_float_to_bf16, ref_bf16_value, ref_round_bf16,
     0x7f80, REF_BF16_NAN},
};

static float float_of(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof(f));
    return f;
}

static int is_nan16(const format_t *format, uint16_t bits)
{
    return (bits & 0x7fff) > format->inf;
}

/* All 65536 patterns: decode exactly (value and sign), and encode(decode(h)) == h. */
static void check_all_patterns(const format_t *format)
{
    int failures = 0;

    for (uint32_t h = 0; h <= 0xffff; h++) {
        float    value = format->decode((uint16_t)h);
        double   want  = format->ref_value((uint16_t)h);
        uint16_t back  = format->encode(value);

        if (is_nan16(format, (uint16_t)h)) {
            if (!isnan(value) || back != format->nan) {
                printf("# %s 0x%04x (NaN): decoded %a, encoded back 0x%04x\n", format->name, h,
                       (double)value, back);
                failures++;
            }
            continue;
        }
        if ((double)value != want || !signbit(value) != !signbit(want) || back != h) {
            printf("# %s 0x%04x: decoded %a (expected %a), encoded back 0x%04x\n", format->name,
                   h, (double)value, want, back);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_half_all_patterns(void **state)
{
    check_all_patterns(&formats[0]);
}

static void test_bf16_all_patterns(void **state)
{
    check_all_patterns(&formats[1]);
}

/*
 * Between each finite h >= 0 and its successor (the next pattern; after the largest finite
 * that is inf), the midpoint is exactly a float (both formats have at most 11 significant
 * bits): it must round to the even one of the two, and the floats just below and above it
 * to h and to its successor. The same with both negated.
 */
static void check_midpoints(const format_t *format)
{
    int failures = 0;

    for (uint32_t h = 0; h < format->inf; h++) {
        uint16_t lo = (uint16_t)h, hi = (uint16_t)(h + 1);
        double   lo_value = format->ref_value(lo);
        double   hi_value = hi == format->inf ? 2 * format->ref_value(lo) - format->ref_value((uint16_t)(lo - 1))
                                              : format->ref_value(hi);
        float    mid = (float)((lo_value + hi_value) / 2);
        uint16_t even = (lo & 1) ? hi : lo;

        if ((double)mid != (lo_value + hi_value) / 2) {
            printf("# %s: midpoint after 0x%04x is not a float\n", format->name, lo);
            failures++;
            continue;
        }
        for (int negative = 0; negative <= 1; negative++) {
            float    sign = negative ? -1.0f : 1.0f;
            uint16_t bit  = negative ? 0x8000 : 0;
            float    below = nextafterf(mid, 0.0f), above = nextafterf(mid, INFINITY);
            uint16_t got_mid = format->encode(sign * mid), got_below = format->encode(sign * below);
            uint16_t got_above = format->encode(sign * above);

            if (got_mid != (even | bit) || got_below != (lo | bit) || got_above != (hi | bit)) {
                printf("# %s: around the midpoint %a of 0x%04x and 0x%04x: got 0x%04x 0x%04x "
                       "0x%04x\n", format->name, (double)(sign * mid), lo | bit, hi | bit,
                       got_below, got_mid, got_above);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

static void test_half_midpoints(void **state)
{
    check_midpoints(&formats[0]);
}

static void test_bf16_midpoints(void **state)
{
    check_midpoints(&formats[1]);
}

static void test_half_specials(void **state)
{
    uint16_t (*encode)(float) = gdc_coll_float_to_half;

    assert_int_equal(encode(0.0f), 0x0000);
    assert_int_equal(encode(-0.0f), 0x8000);
    assert_int_equal(encode(INFINITY), 0x7c00);
    assert_int_equal(encode(-INFINITY), 0xfc00);
    assert_int_equal(encode(NAN), REF_HALF_NAN);
    assert_int_equal(encode(-NAN), REF_HALF_NAN);
    assert_int_equal(encode(float_of(0x7f800001)), REF_HALF_NAN); /* signalling */
    assert_int_equal(encode(65504.0f), 0x7bff);
    assert_int_equal(encode(65519.99f), 0x7bff);
    assert_int_equal(encode(65520.0f), 0x7c00);
    assert_int_equal(encode(1e10f), 0x7c00);
    assert_int_equal(encode(-1e10f), 0xfc00);
    assert_int_equal(encode(FLT_MAX), 0x7c00);
    assert_int_equal(encode(0x1p-24f), 0x0001);       /* smallest subnormal */
    assert_int_equal(encode(0x1p-25f), 0x0000);       /* half of it: tie, to even (zero) */
    assert_int_equal(encode(0x1.000002p-25f), 0x0001); /* just above the tie */
    assert_int_equal(encode(-0x1p-25f), 0x8000);
    assert_int_equal(encode(0x1.8p-24f), 0x0002);     /* 1.5 ulp: tie, to even */
    assert_int_equal(encode(0x1p-14f), 0x0400);       /* smallest normal */
    assert_int_equal(encode(0x1.ff8p-15f), 0x03ff);   /* largest subnormal, exactly */
    assert_int_equal(encode(0x1.ffcp-15f), 0x0400);   /* its tie with 2^-14: even, the normal */
    assert_int_equal(encode(float_of(0x00000001)), 0x0000); /* float subnormals vanish */
    assert_int_equal(encode(float_of(0x80000001)), 0x8000);
    assert_int_equal(encode(1.0f), 0x3c00);
    assert_int_equal(encode(0.1f), 0x2e66);
    assert_true(gdc_coll_half_to_float(0x0001) == 0x1p-24f);
    assert_true(gdc_coll_half_to_float(0x7bff) == 65504.0f);
    assert_true(isinf(gdc_coll_half_to_float(0xfc00)) && gdc_coll_half_to_float(0xfc00) < 0);
    assert_true(isnan(gdc_coll_half_to_float(0x7c01)));
    assert_true(signbit(gdc_coll_half_to_float(0x8000)));
}

static void test_bf16_specials(void **state)
{
    uint16_t (*encode)(float) = gdc_coll_float_to_bf16;

    assert_int_equal(encode(0.0f), 0x0000);
    assert_int_equal(encode(-0.0f), 0x8000);
    assert_int_equal(encode(INFINITY), 0x7f80);
    assert_int_equal(encode(-INFINITY), 0xff80);
    assert_int_equal(encode(NAN), REF_BF16_NAN);
    assert_int_equal(encode(float_of(0xffffffff)), REF_BF16_NAN); /* must not carry into sign */
    assert_int_equal(encode(float_of(0x7f800001)), REF_BF16_NAN); /* NaN with low payload only */
    assert_int_equal(encode(FLT_MAX), 0x7f80);      /* above the last midpoint */
    assert_int_equal(encode(float_of(0x7f7f7fff)), 0x7f7f);
    assert_int_equal(encode(float_of(0x7f7f8000)), 0x7f80);       /* the tie, to even: inf */
    assert_int_equal(encode(float_of(0x00008000)), 0x0000);       /* subnormal tie, to even */
    assert_int_equal(encode(float_of(0x00018000)), 0x0002);
    assert_int_equal(encode(float_of(0x00008001)), 0x0001);
    assert_int_equal(encode(1.0f), 0x3f80);
    assert_int_equal(encode(float_of(0x3f808000)), 0x3f80);       /* tie, to even */
    assert_int_equal(encode(float_of(0x3f818000)), 0x3f82);
    assert_true(gdc_coll_bf16_to_float(0x0001) == float_of(0x00010000));
    assert_true(isnan(gdc_coll_bf16_to_float(0x7f81)));
}

/* A million floats of every kind against the reference rounding of the same value. */
static void test_random_floats(void **state)
{
    uint64_t rng      = 2024;
    int      failures = 0;

    for (int i = 0; i < 1000000 && failures < 10; i++) {
        uint64_t r    = ref_random(&rng);
        /* half the time any bits; otherwise exponents around the formats' ranges */
        uint32_t bits = (r & 1) ? (uint32_t)(r >> 32)
                                : (uint32_t)((r >> 32) & 0x807fffffu) |
                                      (uint32_t)((96 + (r >> 8) % 64) << 23);
        float    f    = float_of(bits);

        for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
            uint16_t got = formats[k].encode(f), want = formats[k].ref_round((double)f);

            if (got != want) {
                printf("# %s of %a (0x%08x): got 0x%04x, expected 0x%04x\n", formats[k].name,
                       (double)f, bits, got, want);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_all_patterns), cmocka_unit_test(test_bf16_all_patterns),
        cmocka_unit_test(test_half_midpoints),    cmocka_unit_test(test_bf16_midpoints),
        cmocka_unit_test(test_half_specials),     cmocka_unit_test(test_bf16_specials),
        cmocka_unit_test(test_random_floats),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
