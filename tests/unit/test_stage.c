/*
 * The staging pipeline (runtime/rt_stage.c) driven as UCX drives it: pack and unpack of
 * its generic datatype in fragments, in order and out of order, with host copies standing
 * in for the device's (as GDC_STAGING_HOST_TEST: a copy is made when first asked about, so the
 * pipeline meets copies still running). Every byte is checked; so is that a receive is not
 * done before its last copy, that out-of-order bytes went directly, that a chunk left short
 * is an error, and that the pool of bounce buffers runs out and comes back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_stage.h"
#include "rt_stage_plan.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* Fragments of the sizes UCX's transports use, and an odd one that straddles chunks. */
static const size_t fragment_sizes[] = {8 * KiB, 8 * KiB + 13, 64 * KiB, 1000003};

static uint8_t *pattern(size_t n, unsigned seed)
{
    uint8_t *buf = malloc(n ? n : 1);

    assert_non_null(buf);
    for (size_t i = 0; i < n; i++) {
        buf[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
    }
    return buf;
}

/* The fragments of a message of n bytes, cut by frag, in order or shuffled. */
typedef struct {
    size_t offset, length;
} fragment_t;

static size_t fragments_of(size_t n, size_t frag, int shuffle, fragment_t **out)
{
    size_t      count = (n + frag - 1) / frag;
    fragment_t *f     = malloc(count * sizeof(*f));

    assert_non_null(f);
    for (size_t i = 0; i < count; i++) {
        f[i].offset = i * frag;
        f[i].length = n - f[i].offset < frag ? n - f[i].offset : frag;
    }
    for (size_t i = count; shuffle && i > 1; i--) {
        size_t     j = (size_t)rand() % i;
        fragment_t t = f[i - 1];

        f[i - 1] = f[j];
        f[j]     = t;
    }
    *out = f;
    return count;
}

static void setup_mode(void)
{
    gdc_rt_stage_mode = GDC_RT_STAGE_PIPELINE;
}

static gdc_rt_stage_counts_t counts_now(void)
{
    gdc_rt_stage_counts_t c;

    gdc_rt_stage_counts(&c);
    return c;
}

/* Pack a send of n bytes, fragments as given; the packed stream must equal the source. */
static void check_send(size_t n, size_t frag, int shuffle)
{
    const ucp_generic_dt_ops_t *ops = gdc_rt_stage_ops();
    uint8_t                    *src = pattern(n, 1), *wire = malloc(n);
    gdc_rt_stage_counts_t       before = counts_now(), after;
    gdc_rt_stage_t             *stage  = gdc_rt_stage_start(0, src, n, GDC_RT_MEM_HOST, 1);
    fragment_t                 *f;
    size_t                      count = fragments_of(n, frag, shuffle, &f);
    void                       *state;
    gdc_status_t                status = GDC_SUCCESS;

    assert_non_null(stage);
    assert_non_null(wire);
    state = ops->start_pack(NULL, stage, n);
    assert_true(ops->packed_size(state) == n);
    memset(wire, 0xee, n);
    for (size_t i = 0; i < count; i++) {
        assert_true(ops->pack(state, f[i].offset, wire + f[i].offset, f[i].length) == f[i].length);
    }
    ops->finish(state);
    assert_true(gdc_rt_stage_test(stage, 0, 0, &status) || gdc_rt_stage_test(stage, 0, 0, &status));
    assert_int_equal(status, GDC_SUCCESS);
    gdc_rt_stage_end(stage);
    assert_memory_equal(wire, src, n);
    after = counts_now();
    assert_true(after.pipelined == before.pipelined + 1);
    assert_true(after.bounced_bytes - before.bounced_bytes + after.direct_bytes - before.direct_bytes == n);
    if (!shuffle) {
        assert_true(after.bounced_bytes == before.bounced_bytes + n); /* in order: all through the bounce buffers */
    }
    print_message("# send %zu bytes, fragments of %zu%s: %zu bytes direct\n", n, frag, shuffle ? ", shuffled" : "",
                  after.direct_bytes - before.direct_bytes);
    free(f);
    free(wire);
    free(src);
}

/* Unpack `sent` bytes into a receive of capacity bytes, fragments as given; the buffer must
 * hold them, and nothing past them. */
static void check_recv_into(size_t capacity, size_t sent, size_t frag, int shuffle, int may_go_direct)
{
    const ucp_generic_dt_ops_t *ops = gdc_rt_stage_ops();
    uint8_t                    *wire = pattern(sent, 2), *dst = malloc(capacity);
    gdc_rt_stage_counts_t       before = counts_now(), after;
    gdc_rt_stage_t             *stage;
    fragment_t                 *f;
    size_t                      count = fragments_of(sent, frag, shuffle, &f);
    void                       *state;
    gdc_status_t                status = GDC_SUCCESS;
    int                         tests  = 0;

    assert_non_null(dst);
    memset(dst, 0xee, capacity);
    stage = gdc_rt_stage_start(1, dst, capacity, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    state = ops->start_unpack(NULL, stage, capacity);
    assert_true(ops->packed_size(state) == capacity);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(ops->unpack(state, f[i].offset, wire + f[i].offset, f[i].length), UCS_OK);
    }
    ops->finish(state);
    while (!gdc_rt_stage_test(stage, 1, sent, &status)) {
        tests++;
        assert_true(tests < 100);
    }
    /* the last copies were seen running once before the receive was done */
    assert_true(sent == 0 || may_go_direct || tests >= 1);
    assert_int_equal(status, GDC_SUCCESS);
    gdc_rt_stage_end(stage);
    assert_memory_equal(dst, wire, sent);
    for (size_t i = sent; i < capacity; i++) {
        assert_int_equal(dst[i], 0xee);
    }
    after = counts_now();
    assert_true(after.bounced_bytes - before.bounced_bytes + after.direct_bytes - before.direct_bytes == sent);
    if (!may_go_direct) {
        assert_true(after.bounced_bytes == before.bounced_bytes + sent);
    }
    print_message("# receive %zu of %zu bytes, fragments of %zu%s: %zu bytes direct\n", sent, capacity, frag,
                  shuffle ? ", shuffled" : "", after.direct_bytes - before.direct_bytes);
    free(f);
    free(dst);
    free(wire);
}

static void check_recv(size_t capacity, size_t sent, size_t frag, int shuffle)
{
    check_recv_into(capacity, sent, frag, shuffle, shuffle);
}

static const size_t sizes[] = {128 * KiB, 128 * KiB + 1, MiB + 3, 5 * MiB + 7, 64 * MiB};

static void test_send_in_order(void **state)
{
    (void)state;
    setup_mode();
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t i = 0; i < sizeof(fragment_sizes) / sizeof(fragment_sizes[0]); i++) {
            check_send(sizes[s], fragment_sizes[i], 0);
        }
    }
}

static void test_send_out_of_order(void **state)
{
    gdc_rt_stage_counts_t before;

    (void)state;
    setup_mode();
    srand(7);
    before = counts_now();
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        check_send(sizes[s], 8 * KiB + 13, 1);
    }
    assert_true(counts_now().direct_bytes > before.direct_bytes); /* the direct path ran */
}

static void test_recv_in_order(void **state)
{
    (void)state;
    setup_mode();
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t i = 0; i < sizeof(fragment_sizes) / sizeof(fragment_sizes[0]); i++) {
            check_recv(sizes[s], sizes[s], fragment_sizes[i], 0);
        }
    }
}

static void test_recv_out_of_order(void **state)
{
    gdc_rt_stage_counts_t before;

    (void)state;
    setup_mode();
    srand(11);
    before = counts_now();
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        check_recv(sizes[s], sizes[s], 8 * KiB + 13, 1);
    }
    assert_true(counts_now().direct_bytes > before.direct_bytes);
}

/* A message shorter than the receive: its last chunk is short, and nothing past it moves. */
static void test_recv_short_message(void **state)
{
    (void)state;
    setup_mode();
    check_recv(4 * MiB, 3 * MiB + 5, 8 * KiB, 0);
    check_recv(4 * MiB, 1, 8 * KiB, 0);
    check_recv(4 * MiB, 0, 8 * KiB, 0);
    check_recv(64 * MiB, 33 * MiB + 1, 64 * KiB, 1);
}

/* Bytes missing in the middle of a chunk at the end are an error, not a silent hole. */
static void test_recv_missing_bytes(void **state)
{
    const ucp_generic_dt_ops_t *ops = gdc_rt_stage_ops();
    size_t                      n   = 1 * MiB;
    uint8_t                    *wire = pattern(n, 3), *dst = malloc(n);
    gdc_rt_stage_t             *stage;
    gdc_status_t                status = GDC_SUCCESS;

    (void)state;
    setup_mode();
    assert_non_null(dst);
    stage = gdc_rt_stage_start(1, dst, n, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    /* all but 8 KiB of the last chunk */
    assert_int_equal(ops->unpack(stage, 0, wire, n - 16 * KiB), UCS_OK);
    assert_int_equal(ops->unpack(stage, n - 8 * KiB, wire + n - 8 * KiB, 8 * KiB), UCS_OK);
    while (!gdc_rt_stage_test(stage, 1, n, &status)) {
    }
    assert_int_equal(status, GDC_ERR_TRANSPORT);
    gdc_rt_stage_end(stage);
    /* and bytes past the capacity are refused */
    stage = gdc_rt_stage_start(1, dst, n, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    assert_int_equal(ops->unpack(stage, n - 4, wire, 8), UCS_ERR_MESSAGE_TRUNCATED);
    gdc_rt_stage_end(stage);
    free(dst);
    free(wire);
}

/* Small messages and GDC_STAGING=whole go whole. The pool's pinned buffers run out, and
 * the messages past them get unpinned memory of their own (and stay right); a message of
 * small chunks holds a segment of a buffer per slot. */
static void test_whole_and_pool(void **state)
{
    enum {
        BIG   = GDC_RT_STAGE_MAX_BUFFERS / GDC_RT_STAGE_BUFFERS_PER_MESSAGE,
        SMALL = 32 /* the 4 buffers given back: 128 segments, 4 to a message of 64 KiB chunks */
    };
    static uint8_t        small[2 * GDC_RT_STAGE_MIN_CHUNK - 1];
    gdc_rt_stage_t       *bigs[BIG], *smalls[SMALL + 1];
    uint8_t              *big = malloc(64 * MiB);
    gdc_rt_stage_counts_t before;

    (void)state;
    setup_mode();
    assert_non_null(big);
    assert_null(gdc_rt_stage_start(0, small, sizeof(small), GDC_RT_MEM_HOST, 1));
    gdc_rt_stage_mode = GDC_RT_STAGE_WHOLE;
    assert_null(gdc_rt_stage_start(0, big, 64 * MiB, GDC_RT_MEM_HOST, 1));
    setup_mode();
    before = counts_now();
    for (int i = 0; i < BIG; i++) { /* chunks of 2 MiB: a whole buffer per slot */
        bigs[i] = gdc_rt_stage_start(0, big, 64 * MiB, GDC_RT_MEM_HOST, 1);
        assert_non_null(bigs[i]);
    }
    assert_true(counts_now().overflow == before.overflow); /* all the pool's */
    /* every pinned buffer taken: a send and a receive get memory of their own, and are right */
    check_send(5 * MiB + 7, 8 * KiB, 0);
    check_recv(MiB + 3, MiB + 3, 8 * KiB, 0);
    assert_true(counts_now().overflow == before.overflow + 2 * GDC_RT_STAGE_BUFFERS_PER_MESSAGE);
    /* one big message's four buffers back: 128 segments, 32 messages of 4 slots of 64 KiB */
    gdc_rt_stage_end(bigs[0]);
    before = counts_now();
    for (int i = 0; i < SMALL; i++) {
        smalls[i] = gdc_rt_stage_start(0, big, 256 * KiB, GDC_RT_MEM_HOST, 1);
        assert_non_null(smalls[i]);
    }
    assert_true(counts_now().overflow == before.overflow);
    smalls[SMALL] = gdc_rt_stage_start(0, big, 256 * KiB, GDC_RT_MEM_HOST, 1);
    assert_non_null(smalls[SMALL]);
    assert_true(counts_now().overflow == before.overflow + GDC_RT_STAGE_BUFFERS_PER_MESSAGE);
    for (int i = 0; i <= SMALL; i++) {
        gdc_rt_stage_end(smalls[i]);
    }
    for (int i = 1; i < BIG; i++) {
        gdc_rt_stage_end(bigs[i]);
    }
    free(big);
}

/* A receive cancelled after UCX ended it, before its last copies were seen: finishing it
 * queues and waits for them (the bytes are all there); one cancelled in UCX's hands is
 * abandoned: later unpacks write nothing, and a send's packs read nothing of the user's. */
static void test_finish_and_abandon(void **state)
{
    const ucp_generic_dt_ops_t *ops = gdc_rt_stage_ops();
    size_t                      n   = MiB + 3;
    uint8_t                    *wire = pattern(n, 4), *dst = malloc(n), *out = malloc(n);
    gdc_rt_stage_t             *stage;
    gdc_rt_stage_counts_t       before = counts_now();

    (void)state;
    setup_mode();
    assert_non_null(dst);
    assert_non_null(out);
    memset(dst, 0xee, n);
    stage = gdc_rt_stage_start(1, dst, n, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    assert_int_equal(ops->unpack(stage, 0, wire, n), UCS_OK);
    assert_int_equal(gdc_rt_stage_finish(stage, 1, n), GDC_SUCCESS);
    assert_memory_equal(dst, wire, n);

    memset(dst, 0xee, n);
    stage = gdc_rt_stage_start(1, dst, n, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    assert_int_equal(ops->unpack(stage, 0, wire, n / 2), UCS_OK);
    gdc_rt_stage_abandon(stage);
    assert_int_equal(ops->unpack(stage, n / 2, wire + n / 2, n - n / 2), UCS_OK);
    for (size_t i = n / 2 + 64 * KiB; i < n; i++) { /* past the chunks queued before, nothing came */
        assert_int_equal(dst[i], 0xee);
    }
    gdc_rt_stage_end(stage); /* gdc leaves an abandoned stage to UCX; no UCX holds this one */
    stage = gdc_rt_stage_start(0, wire, n, GDC_RT_MEM_HOST, 1);
    assert_non_null(stage);
    gdc_rt_stage_abandon(stage);
    memset(out, 0x77, n);
    assert_true(ops->pack(stage, 0, out, n) == n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(out[i], 0);
    }
    gdc_rt_stage_end(stage);
    assert_true(counts_now().abandoned == before.abandoned + 2);
    free(out);
    free(dst);
    free(wire);
}

/* Messages staged whole take their memory from the pool's segments, and give it back. */
static void test_whole_memory(void **state)
{
    enum { SEGMENTS = GDC_RT_STAGE_MAX_BUFFERS * 32 };
    static void          *held[SEGMENTS];
    gdc_rt_stage_counts_t before;
    void                 *extra, *big;

    (void)state;
    setup_mode();
    before = counts_now();
    for (int i = 0; i < SEGMENTS; i++) { /* a message of up to 64 KiB: one segment */
        held[i] = gdc_rt_stage_whole_alloc(i % 2 ? 8 : 64 * KiB, NULL);
        assert_non_null(held[i]);
        memset(held[i], i & 0xff, i % 2 ? 8 : 64 * KiB);
    }
    assert_true(counts_now().overflow == before.overflow);
    extra = gdc_rt_stage_whole_alloc(100, NULL); /* the pool spent: memory of its own */
    assert_non_null(extra);
    assert_true(counts_now().overflow == before.overflow + 1);
    big = gdc_rt_stage_whole_alloc(GDC_RT_STAGE_BUFFER_SIZE + 1, NULL); /* past a buffer: malloc'd */
    assert_non_null(big);
    gdc_rt_stage_whole_free(big, GDC_RT_STAGE_BUFFER_SIZE + 1);
    gdc_rt_stage_whole_free(extra, 100);
    for (int i = 0; i < SEGMENTS; i++) {
        gdc_rt_stage_whole_free(held[i], i % 2 ? 8 : 64 * KiB);
    }
    before = counts_now();
    for (int i = 0; i < SEGMENTS; i++) { /* all back */
        held[i] = gdc_rt_stage_whole_alloc(64 * KiB, NULL);
    }
    assert_true(counts_now().overflow == before.overflow);
    for (int i = 0; i < SEGMENTS; i++) {
        gdc_rt_stage_whole_free(held[i], 64 * KiB);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_in_order),     cmocka_unit_test(test_send_out_of_order),
        cmocka_unit_test(test_recv_in_order),     cmocka_unit_test(test_recv_out_of_order),
        cmocka_unit_test(test_recv_short_message), cmocka_unit_test(test_recv_missing_bytes),
        cmocka_unit_test(test_whole_and_pool),     cmocka_unit_test(test_finish_and_abandon),
        cmocka_unit_test(test_whole_memory),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    gdc_rt_stage_finalize();
    return failed;
}
