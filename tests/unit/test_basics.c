/* Unit tests of what stands alone: tag layout, datatypes, status strings, parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdc_rt.h"

static void test_tag_fields_round_trip(void **state)
{
    uint64_t tag = gdc_rt_tag_p2p(12345, 987654, 4242);

    assert_int_equal(gdc_rt_tag_class(tag), 0);
    assert_int_equal(gdc_rt_tag_ctx(tag), 12345);
    assert_int_equal(gdc_rt_tag_src(tag), 987654);
    assert_int_equal(gdc_rt_tag_payload(tag), 4242);

    tag = gdc_rt_tag_coll(GDC_RT_TAG_MAX_CTX, GDC_RT_TAG_MAX_RANKS - 1, 4095, 4095);
    assert_int_equal(gdc_rt_tag_class(tag), 1);
    assert_int_equal(gdc_rt_tag_ctx(tag), GDC_RT_TAG_MAX_CTX);
    assert_int_equal(gdc_rt_tag_src(tag), GDC_RT_TAG_MAX_RANKS - 1);
    assert_int_equal(gdc_rt_tag_payload(tag), 0xffffff);
    /* every field full and the tale flag: every bit, each in one place */
    tag = gdc_rt_tag_coll(GDC_RT_TAG_CMA_CTX, GDC_RT_TAG_MAX_RANKS - 1, 4095, 4095);
    assert_true((tag & GDC_RT_TAG_CMA_FLAG) == 0);
    assert_true((tag | GDC_RT_TAG_CMA_FLAG) == ~(uint64_t)0);
}

static void test_tag_tales(void **state)
{
    /* a receive's mask ignores the tale flag and nothing else */
    uint64_t tag = gdc_rt_tag_p2p(GDC_RT_TAG_MAX_CTX, 7, 42);

    assert_true(((tag | GDC_RT_TAG_CMA_FLAG) & GDC_RT_TAG_RECV_MASK) == tag);
    assert_true((~GDC_RT_TAG_RECV_MASK) == GDC_RT_TAG_CMA_FLAG);
    assert_int_equal(gdc_rt_tag_ctx(tag | GDC_RT_TAG_CMA_FLAG), GDC_RT_TAG_MAX_CTX);
    /* the answers to reads sit in a context no communicator gets, numbered per reader */
    tag = gdc_rt_tag_cma_done(7, 0xffffffu);
    assert_int_equal(gdc_rt_tag_ctx(tag), GDC_RT_TAG_CMA_CTX);
    assert_true(GDC_RT_TAG_MAX_CTX < GDC_RT_TAG_CMA_CTX);
    assert_int_equal(gdc_rt_tag_src(tag), 7);
    assert_int_equal(gdc_rt_tag_payload(tag), 0xffffff);
    assert_true(gdc_rt_tag_cma_done(7, 1) != gdc_rt_tag_cma_done(8, 1));
    assert_true(gdc_rt_tag_cma_done(7, 1) != gdc_rt_tag_cma_done(7, 2));
}

static void test_tag_spaces_are_disjoint(void **state)
{
    /* The same numbers in each space give different tags. */
    uint64_t user     = gdc_rt_tag_p2p(3, 5, 7);
    uint64_t internal = gdc_rt_tag_internal(3, 5, 7);
    uint64_t coll     = gdc_rt_tag_coll(3, 5, 0, 7);

    assert_true(user != internal);
    assert_true(user != coll);
    assert_true(internal != coll);
    /* the largest user tag never reaches the internal flag */
    assert_int_equal(gdc_rt_tag_payload(gdc_rt_tag_p2p(0, 0, GDC_TAG_UB)) & GDC_RT_TAG_INTERNAL_FLAG, 0);
    assert_int_equal(GDC_TAG_UB, GDC_RT_TAG_MAX_USER);
    /* communicators, sources and sequence numbers separate */
    assert_true(gdc_rt_tag_p2p(1, 0, 0) != gdc_rt_tag_p2p(2, 0, 0));
    assert_true(gdc_rt_tag_p2p(1, 1, 0) != gdc_rt_tag_p2p(1, 2, 0));
    assert_true(gdc_rt_tag_coll(1, 1, 1, 0) != gdc_rt_tag_coll(1, 1, 2, 0));
    assert_true(gdc_rt_tag_coll(1, 1, 1, 0) != gdc_rt_tag_coll(1, 1, 1, 1));
}

static void test_tag_fields_do_not_overflow(void **state)
{
    /* out-of-range inputs are masked into their own field, never into a neighbour */
    uint64_t tag = gdc_rt_tag_coll(1, 2, 0xffffffffu, 0xffffffffu);

    assert_int_equal(gdc_rt_tag_ctx(tag), 1);
    assert_int_equal(gdc_rt_tag_src(tag), 2);
    tag = gdc_rt_tag_p2p(1, 2, -1);
    assert_int_equal(gdc_rt_tag_payload(tag) & GDC_RT_TAG_INTERNAL_FLAG, 0);
}

static void test_dtype_sizes(void **state)
{
    static const struct {
        gdc_dtype_t dtype;
        size_t      size;
    } expected[] = {
        {GDC_INT8, 1},    {GDC_UINT8, 1},    {GDC_INT16, 2},   {GDC_UINT16, 2}, {GDC_INT32, 4},
        {GDC_UINT32, 4},  {GDC_INT64, 8},    {GDC_UINT64, 8},  {GDC_FLOAT16, 2}, {GDC_BFLOAT16, 2},
        {GDC_FLOAT32, 4}, {GDC_FLOAT64, 8},  {GDC_BYTE, 1},
    };

    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        assert_int_equal(gdc_dtype_size(expected[i].dtype), expected[i].size);
    }
    assert_int_equal(gdc_dtype_size((gdc_dtype_t)-1), 0);
    assert_int_equal(gdc_dtype_size((gdc_dtype_t)13), 0);
    assert_true(gdc_rt_dtype_is_float(GDC_BFLOAT16));
    assert_false(gdc_rt_dtype_is_float(GDC_UINT64));
    assert_string_equal(gdc_rt_dtype_name(GDC_FLOAT16), "float16");
}

static void test_status_strings(void **state)
{
    static const int codes[] = {GDC_SUCCESS,         GDC_ERR_INVALID_ARG, GDC_ERR_NO_MEMORY,
                                GDC_ERR_NOT_INITIALIZED, GDC_ERR_UNSUPPORTED, GDC_ERR_TRANSPORT,
                                GDC_ERR_PEER_FAILED, GDC_ERR_TIMEOUT,     GDC_ERR_TRUNCATED,
                                GDC_ERR_INTERNAL};

    assert_int_equal(GDC_SUCCESS, 0);
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *text = gdc_strerror(codes[i]);
        assert_non_null(text);
        assert_string_not_equal(text, "unknown status code");
        if (i > 0) {
            assert_true(codes[i] < 0);
        }
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(text, gdc_strerror(codes[j]));
        }
    }
    assert_string_equal(gdc_strerror(12345), "unknown status code");
    assert_string_equal(gdc_strerror(GDC_ERR_TRUNCATED),
                        "message truncated: the receive buffer is too small");
}

static void test_parse_bytes(void **state)
{
    size_t bytes;

    assert_int_equal(gdc_rt_parse_bytes("0", &bytes), 0);
    assert_int_equal(bytes, 0);
    assert_int_equal(gdc_rt_parse_bytes("4K", &bytes), 0);
    assert_int_equal(bytes, 4096);
    assert_int_equal(gdc_rt_parse_bytes("16MiB", &bytes), 0);
    assert_int_equal(bytes, 16u << 20);
    assert_int_equal(gdc_rt_parse_bytes("1g", &bytes), 0);
    assert_int_equal(bytes, 1u << 30);
    assert_int_equal(gdc_rt_parse_bytes("", &bytes), -1);
    assert_int_equal(gdc_rt_parse_bytes("-1", &bytes), -1);
    assert_int_equal(gdc_rt_parse_bytes("12Q", &bytes), -1);
    assert_int_equal(gdc_rt_parse_bytes("99999999999999999999G", &bytes), -1);
}

static void test_parse_seconds(void **state)
{
    double      seconds = -1;
    const char *why     = NULL;

    assert_int_equal(gdc_rt_parse_seconds("2.5", &seconds, &why), 0);
    assert_true(seconds == 2.5);
    assert_int_equal(gdc_rt_parse_seconds("0", &seconds, &why), 0);
    assert_true(seconds == 0);
    assert_int_equal(gdc_rt_parse_seconds("-3", &seconds, &why), -1);
    assert_non_null(why);
    assert_int_equal(gdc_rt_parse_seconds("ten", &seconds, &why), -1);
    assert_int_equal(gdc_rt_parse_seconds("nan", &seconds, &why), -1);
}

static void test_config_rejects_bad_values(void **state)
{
    setenv("GDC_TIMEOUT", "soon", 1);
    assert_int_equal(gdc_rt_config_load(), GDC_ERR_INVALID_ARG);
    unsetenv("GDC_TIMEOUT");
    setenv("GDC_LOG", "loud", 1);
    assert_int_equal(gdc_rt_config_load(), GDC_ERR_INVALID_ARG);
    setenv("GDC_LOG", "debug", 1);
    assert_int_equal(gdc_rt_config_load(), GDC_SUCCESS);
    assert_int_equal(gdc_rt_config.log_level, GDC_RT_LOG_DEBUG);
    unsetenv("GDC_LOG");
    assert_int_equal(gdc_rt_config_load(), GDC_SUCCESS);
    assert_int_equal(gdc_rt_config.log_level, GDC_RT_LOG_WARN);
    assert_true(gdc_rt_config.stall_warn == 60);
    assert_true(gdc_rt_config.timeout == 0);
}

static void count_param(const char *layer, const gdc_rt_param_t *param, const char *value, void *arg)
{
    assert_non_null(param->help);
    assert_non_null(value);
    assert_true(strncmp(param->name, "GDC_", 4) == 0);
    (*(int *)arg)++;
}

static void test_config_lists_params(void **state)
{
    int n = 0;

    gdc_rt_config_foreach(count_param, &n);
    assert_true(n >= 4);
}

static void test_version(void **state)
{
    char expected[32];

    snprintf(expected, sizeof(expected), "gdc %d.%d.%d ", GDC_VERSION_MAJOR, GDC_VERSION_MINOR,
             GDC_VERSION_PATCH);
    assert_true(strncmp(gdc_version_string(), expected, strlen(expected)) == 0);
    assert_non_null(strstr(gdc_version_string(), "UCX "));
}

static void test_wtime_is_monotonic(void **state)
{
    double a = gdc_wtime(), b = gdc_wtime();

    assert_true(a > 0);
    assert_true(b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tag_fields_round_trip),
        cmocka_unit_test(test_tag_tales),
        cmocka_unit_test(test_tag_spaces_are_disjoint),
        cmocka_unit_test(test_tag_fields_do_not_overflow),
        cmocka_unit_test(test_dtype_sizes),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_parse_bytes),
        cmocka_unit_test(test_parse_seconds),
        cmocka_unit_test(test_config_rejects_bad_values),
        cmocka_unit_test(test_config_lists_params),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_wtime_is_monotonic),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
