/*
 * The staging pipeline's chunk plan (runtime/rt_stage_plan.c): the edges spelled out, and
 * the plan's invariants over a sweep of sizes and bounce buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_stage_plan.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static gdc_rt_stage_plan_t plan_of(size_t bytes, size_t buffer_size, unsigned num_buffers)
{
    gdc_rt_stage_plan_t plan;

    memset(&plan, 0x5a, sizeof(plan));
    assert_int_equal(gdc_rt_stage_plan(bytes, buffer_size, num_buffers, &plan), GDC_SUCCESS);
    return plan;
}

static void expect_plan(size_t bytes, size_t buffer_size, unsigned num_buffers, size_t chunk, size_t num_chunks,
                        size_t last_chunk, size_t depth)
{
    gdc_rt_stage_plan_t p = plan_of(bytes, buffer_size, num_buffers);

    print_message("# %zu bytes, %u x %zu: %zu x %zu, last %zu, depth %zu\n", bytes, num_buffers, buffer_size,
                  p.num_chunks, p.chunk, p.last_chunk, p.depth);
    assert_true(p.chunk == chunk);
    assert_true(p.num_chunks == num_chunks);
    assert_true(p.last_chunk == last_chunk);
    assert_true(p.depth == depth);
}

static void test_edges(void **state)
{
    const size_t min = GDC_RT_STAGE_MIN_CHUNK;

    /* nothing to move: no chunk */
    expect_plan(0, 4 * MiB, 2, 0, 0, 0, 0);
    /* less than the minimum chunk: one chunk of all of it */
    expect_plan(1, 4 * MiB, 2, 1, 1, 1, 1);
    expect_plan(min - 1, 4 * MiB, 2, min - 1, 1, min - 1, 1);
    /* exactly one minimum chunk, and one byte more */
    expect_plan(min, 4 * MiB, 2, min, 1, min, 1);
    expect_plan(min + 1, 4 * MiB, 2, min, 2, 1, 2);
    /* one buffer: no overlap to gain, so chunks as large as the buffer */
    expect_plan(4 * MiB, 4 * MiB, 1, 4 * MiB, 1, 4 * MiB, 1);
    expect_plan(4 * MiB + 1, 4 * MiB, 1, 4 * MiB, 2, 1, 1);
    /* double buffering: 8 chunks while they fit the buffers, then buffer-sized ones */
    expect_plan(8 * MiB, 4 * MiB, 2, 1 * MiB, 8, 1 * MiB, 2);
    expect_plan(64 * MiB, 4 * MiB, 2, 4 * MiB, 16, 4 * MiB, 2);
    expect_plan(64 * MiB + 3, 4 * MiB, 2, 4 * MiB, 17, 3, 2);
    /* chunks aligned: 1 MiB + 3 over 8 chunks rounds up to whole pages */
    expect_plan(1 * MiB + 3, 4 * MiB, 2, 132 * KiB, 8, 1 * MiB + 3 - 7 * 132 * KiB, 2);
    /* a buffer below the minimum chunk bounds the chunk all the same */
    expect_plan(100 * KiB, 16 * KiB, 3, 16 * KiB, 7, 4 * KiB, 3);
    /* huge: no wrap-around */
    expect_plan(SIZE_MAX, 4 * MiB, 2, 4 * MiB, SIZE_MAX / (4 * MiB) + 1, SIZE_MAX % (4 * MiB), 2);
    expect_plan(SIZE_MAX, SIZE_MAX, 1, SIZE_MAX, 1, SIZE_MAX, 1);
    expect_plan(SIZE_MAX - 5, SIZE_MAX, 4, SIZE_MAX / 16 + 1, 16, SIZE_MAX - 5 - 15 * (SIZE_MAX / 16 + 1), 4);
}

static void check_invariants(size_t bytes, size_t buffer_size, unsigned num_buffers)
{
    gdc_rt_stage_plan_t p   = plan_of(bytes, buffer_size, num_buffers);
    size_t              low = bytes;
    int                 ok  = 1;

    if (low > GDC_RT_STAGE_MIN_CHUNK) {
        low = GDC_RT_STAGE_MIN_CHUNK;
    }
    if (low > buffer_size) {
        low = buffer_size;
    }
    if (bytes == 0) {
        ok = p.chunk == 0 && p.num_chunks == 0 && p.last_chunk == 0 && p.depth == 0;
    } else {
        /* the chunks cover the message exactly, none past a buffer, none needlessly small */
        ok &= p.chunk >= low && p.chunk <= buffer_size && p.chunk <= bytes;
        ok &= p.num_chunks >= 1 && (p.num_chunks - 1) * p.chunk < bytes;
        ok &= p.last_chunk >= 1 && p.last_chunk <= p.chunk && (p.num_chunks - 1) * p.chunk + p.last_chunk == bytes;
        ok &= p.depth == (p.num_chunks < num_buffers ? p.num_chunks : num_buffers);
        /* chunks start page-aligned, unless a bound (message, buffer) set their size */
        ok &= p.chunk % GDC_RT_STAGE_ALIGN == 0 || p.chunk == bytes || p.chunk == buffer_size;
        /* the pipeline fills: with several buffers and room for several chunks, several */
        if (num_buffers > 1 && bytes >= 2 * GDC_RT_STAGE_MIN_CHUNK && buffer_size >= GDC_RT_STAGE_MIN_CHUNK) {
            ok &= p.num_chunks >= 2;
        }
        /* ...but no more than the aim unless the buffers force it */
        if (p.chunk < buffer_size && p.chunk > GDC_RT_STAGE_MIN_CHUNK) {
            ok &= p.num_chunks <= (size_t)num_buffers * GDC_RT_STAGE_CHUNKS_PER_BUFFER;
        }
        /* one buffer: chunks as large as it allows */
        if (num_buffers == 1) {
            ok &= p.chunk == (bytes < buffer_size ? bytes : buffer_size);
        }
    }
    if (!ok) {
        print_message("# %zu bytes, %u x %zu: %zu x %zu, last %zu, depth %zu\n", bytes, num_buffers, buffer_size,
                      p.num_chunks, p.chunk, p.last_chunk, p.depth);
    }
    assert_true(ok);
}

static void test_invariants(void **state)
{
    const size_t   sizes[]   = {0, 1, 3, 4095, 4096, 4097, 64 * KiB - 1, 64 * KiB, 64 * KiB + 1, 128 * KiB,
                                128 * KiB + 1, 1 * MiB - 1, 1 * MiB, 1 * MiB + 3, 7 * MiB + 11, 64 * MiB,
                                256 * MiB + 1, (size_t)1 << 40, SIZE_MAX / 3, SIZE_MAX - 1, SIZE_MAX};
    const size_t   buffers[] = {1, 4096, 16 * KiB, 64 * KiB, 100 * KiB, 1 * MiB, 4 * MiB, 64 * MiB, SIZE_MAX};
    const unsigned counts[]  = {1, 2, 3, 4, 8, 64};
    int            n         = 0;

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t b = 0; b < sizeof(buffers) / sizeof(buffers[0]); b++) {
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                check_invariants(sizes[s], buffers[b], counts[c]);
                n++;
            }
        }
    }
    assert_int_equal(n, 21 * 9 * 6);
}

static void test_bad_arguments(void **state)
{
    gdc_rt_stage_plan_t plan, untouched;

    memset(&untouched, 0x5a, sizeof(untouched));
    plan = untouched;
    assert_int_equal(gdc_rt_stage_plan(1 * MiB, 0, 2, &plan), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_stage_plan(1 * MiB, 4 * MiB, 0, &plan), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_stage_plan(0, 0, 0, &plan), GDC_ERR_INVALID_ARG);
    assert_memory_equal(&plan, &untouched, sizeof(plan));
    assert_int_equal(gdc_rt_stage_plan(1 * MiB, 4 * MiB, 2, NULL), GDC_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_bad_arguments),
    };

    return cmocka_run_group_tests_name("staging plan", tests, NULL, NULL);
}
