/*
 * GDC_DEVICE (runtime/rt_device.c): the values accepted and refused, and the device each
 * setting gives for a local rank, a device count and the application's own context.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_device.h"

static void expect_parse(const char *text, gdc_rt_device_mode_t mode, int index)
{
    gdc_rt_device_setting_t s = {(gdc_rt_device_mode_t)99, 99};

    assert_int_equal(gdc_rt_device_parse(text, &s), GDC_SUCCESS);
    assert_int_equal(s.mode, mode);
    if (mode == GDC_RT_DEVICE_INDEX) {
        assert_int_equal(s.index, index);
    }
}

static void test_parse_good(void **state)
{
    expect_parse(NULL, GDC_RT_DEVICE_AUTO, 0);
    expect_parse("", GDC_RT_DEVICE_AUTO, 0);
    expect_parse("auto", GDC_RT_DEVICE_AUTO, 0);
    expect_parse("none", GDC_RT_DEVICE_NONE, 0);
    expect_parse("0", GDC_RT_DEVICE_INDEX, 0);
    expect_parse("7", GDC_RT_DEVICE_INDEX, 7);
    expect_parse("012", GDC_RT_DEVICE_INDEX, 12);
    expect_parse("2147483647", GDC_RT_DEVICE_INDEX, 2147483647);
}

static void test_parse_bad(void **state)
{
    const char *bad[] = {"-1", "+1", " 1", "1 ", "1x", "0x1", "1.0", "Auto", "AUTO", "nonee", "all", "cuda:0",
                         "2147483648", "99999999999999999999", " ", "auto ", "1,2"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        gdc_rt_device_setting_t s = {(gdc_rt_device_mode_t)99, 99};

        print_message("# GDC_DEVICE=\"%s\"\n", bad[i]);
        assert_int_equal(gdc_rt_device_parse(bad[i], &s), GDC_ERR_INVALID_ARG);
        assert_int_equal(s.mode, 99); /* untouched */
        assert_int_equal(s.index, 99);
    }
    assert_int_equal(gdc_rt_device_parse("auto", NULL), GDC_ERR_INVALID_ARG);
}

static gdc_rt_device_choice_t choose(const char *text, int local_rank, int count, int current)
{
    gdc_rt_device_setting_t s;
    gdc_rt_device_choice_t  c;

    memset(&c, 0x5a, sizeof(c));
    assert_int_equal(gdc_rt_device_parse(text, &s), GDC_SUCCESS);
    assert_int_equal(gdc_rt_device_choose(&s, local_rank, count, current, &c), GDC_SUCCESS);
    assert_true(strnlen(c.why, sizeof(c.why)) > 0 && strnlen(c.why, sizeof(c.why)) < sizeof(c.why) - 1);
    print_message("# GDC_DEVICE=%s, local rank %d, %d devices, current %d: %d (%s)\n", text, local_rank, count,
                  current, c.device, c.why);
    return c;
}

static void test_choose(void **state)
{
    gdc_rt_device_choice_t c;

    /* auto: local rank modulo the device count, made current */
    for (int count = 1; count <= 8; count++) {
        for (int rank = 0; rank < 20; rank++) {
            c = choose("auto", rank, count, -1);
            assert_int_equal(c.device, rank % count);
            assert_int_equal(c.make_current, 1);
        }
    }
    c = choose("auto", 5, 4, -1);
    assert_non_null(strstr(c.why, "local rank 5"));

    /* an index: that device, whatever the rank */
    c = choose("3", 0, 4, -1);
    assert_int_equal(c.device, 3);
    assert_int_equal(c.make_current, 1);
    assert_non_null(strstr(c.why, "GDC_DEVICE=3"));

    /* none: nothing made current */
    c = choose("none", 2, 4, -1);
    assert_int_equal(c.device, -1);
    assert_int_equal(c.make_current, 0);
    assert_non_null(strstr(c.why, "GDC_DEVICE=none"));

    /* the application's context wins over every setting, and is not made current again */
    c = choose("auto", 1, 4, 2);
    assert_int_equal(c.device, 2);
    assert_int_equal(c.make_current, 0);
    c = choose("none", 1, 4, 2);
    assert_int_equal(c.device, 2);
    assert_int_equal(c.make_current, 0);
    c = choose("0", 1, 4, 2);
    assert_int_equal(c.device, 2);
    assert_int_equal(c.make_current, 0);
    assert_non_null(strstr(c.why, "GDC_DEVICE=0 ignored"));

    /* no device: nothing changes, whatever the setting (the run without CUDA) */
    c = choose("auto", 3, 0, -1);
    assert_int_equal(c.device, -1);
    assert_int_equal(c.make_current, 0);
    c = choose("5", 3, 0, -1);
    assert_int_equal(c.device, -1);
    assert_int_equal(c.make_current, 0);
    assert_non_null(strstr(c.why, "no CUDA device"));
}

static void test_choose_bad(void **state)
{
    gdc_rt_device_setting_t s;
    gdc_rt_device_choice_t  c, untouched;

    memset(&untouched, 0x5a, sizeof(untouched));
    c = untouched;
    assert_int_equal(gdc_rt_device_parse("4", &s), GDC_SUCCESS);
    /* a device this process does not see */
    assert_int_equal(gdc_rt_device_choose(&s, 0, 4, -1, &c), GDC_ERR_INVALID_ARG);
    assert_memory_equal(&c, &untouched, sizeof(c));
    assert_int_equal(gdc_rt_device_choose(&s, 0, 5, -1, &c), GDC_SUCCESS);
    assert_int_equal(c.device, 4);
    assert_int_equal(gdc_rt_device_parse("auto", &s), GDC_SUCCESS);
    assert_int_equal(gdc_rt_device_choose(&s, -1, 4, -1, &c), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_device_choose(NULL, 0, 4, -1, &c), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_device_choose(&s, 0, 4, -1, NULL), GDC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_choose_bad),
    };

    return cmocka_run_group_tests_name("GDC_DEVICE and the device choice", tests, NULL, NULL);
}
