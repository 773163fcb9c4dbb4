/*
 * The hierarchical algorithms in the simulator, over node layouts: communicators of 2..17,
 * 24, 32 and 33 ranks on 2..5 nodes, in blocks (uneven where the nodes do not divide the
 * ranks: the first nodes get one more) and round robin (rank r on node r % nodes, so a
 * node's ranks are not consecutive); counts 0, 1, fewer than the ranks, not divisible by
 * them, and one that cuts into many pipeline chunks and segments; in place and not; roots
 * first, last and in the middle. Integer sums exactly (every rank of an allreduce with the
 * same bits, which the simulator checks), then a sweep over datatypes and ops with floats
 * against a reference. As a guard, every flat algorithm runs over the same layouts, fewer
 * counts: node placement must not change what they compute.
 * GDC_TEST_REDUCED=1 (the sanitizer build, tests/sanitize/run.sh): the hierarchical
 * algorithms over fewer communicator sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "select/table.h"
#include "sim.h"

static const int all_sizes[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 32, 33};
static const int reduced_sizes[] = {2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 33};
static const int *sizes     = all_sizes;
static int        num_sizes = (int)(sizeof(all_sizes) / sizeof(all_sizes[0]));
#define MAX_NODES 5

static unsigned long runs;

/* The algorithms' parameters of every case; sweeps change them (small chunks make the
 * pipelines' hard cases). */
static gdc_coll_config_t cfg;

/* Runs in which each algorithm really ran (not "not applicable"): every one must reach a
 * minimum, so that a `supports` that wrongly says no cannot pass for coverage. */
static unsigned long ran[GDC_COLL_ALGO_COUNT];

static int is_hier(const gdc_coll_algo_t *algo)
{
    return (algo->flags & GDC_COLL_ALGO_FLAG_HIER) != 0;
}

static int is_rooted(gdc_coll_type_t coll)
{
    return coll == GDC_COLL_BCAST || coll == GDC_COLL_REDUCE || coll == GDC_COLL_GATHER || coll == GDC_COLL_SCATTER;
}

static int has_in_place(gdc_coll_type_t coll)
{
    return coll != GDC_COLL_BCAST && coll != GDC_COLL_BARRIER;
}

static unsigned long not_applicable;

/* A run the algorithm does not support (the shared-memory ones across nodes) is counted
 * apart, not failed. */
static void run_case(const sim_case_t *c)
{
    char why[512];
    int  result = sim_run(c, why, sizeof(why));

    runs++;
    not_applicable += result == 1;
    ran[c->algo->id] += result == 0;
    if (result < 0) {
        fail_msg("%s %s: size %d on %d nodes (%s) count %zu dtype %d op %d root %d %s seed %u chunk %zu: %s",
                 gdc_coll_type_name(c->algo->coll), c->algo->name, c->size, c->nodes,
                 c->round_robin ? "round robin" : "blocks", c->count, (int)c->dtype, (int)c->op, c->root,
                 c->in_place ? "in place" : "out of place", c->seed, cfg.chunk_bytes, why);
    }
}

/* Every layout of n ranks: 2..5 nodes (no more than ranks), blocks and round robin (the
 * same as blocks with one rank per node, skipped then). */
typedef void (*layout_fn_t)(const gdc_coll_algo_t *algo, int n, int nodes, int round_robin);

static void each_layout(const gdc_coll_algo_t *algo, const int *shapes, int num_shapes, layout_fn_t fn)
{
    for (int si = 0; si < num_shapes; si++) {
        int n = shapes[si];
        for (int nodes = 2; nodes <= MAX_NODES && nodes <= n; nodes++) {
            for (int rr = 0; rr <= (nodes < n); rr++) {
                fn(algo, n, nodes, rr);
            }
        }
    }
}

/* int32 sums (moves: int32 data) over the counts and roots; `guard` (a flat algorithm):
 * fewer counts, one root. */
static int guard;

static void int_cases(const gdc_coll_algo_t *algo, int n, int nodes, int rr)
{
    size_t counts[] = {0, 1, (size_t)n - 1, (size_t)(3 * n + 1)};
    int    roots[]  = {0, n - 1, n / 2};
    int    nroots   = is_rooted(algo->coll) ? (guard ? 1 : 3) : 1;

    for (int ci = guard ? 1 : 0; ci < 4; ci += guard ? 2 : 1) {
        for (int ri = 0; ri < nroots; ri++) {
            for (int in_place = 0; in_place <= has_in_place(algo->coll); in_place++) {
                sim_case_t c = {algo, n, counts[ci], GDC_INT32, GDC_SUM, roots[guard ? 2 : ri], in_place,
                                (unsigned)(ci + ri + in_place) % 3, nodes, rr, &cfg, 0, 0, 0, 0};
                run_case(&c);
            }
        }
    }
}

/* Many chunks per block and several segments: tiny pipeline chunks on a longer vector. */
static void pipeline_cases(const gdc_coll_algo_t *algo, int n, int nodes, int rr)
{
    int roots[] = {0, n - 1, n / 2};

    for (int ri = 0; ri < (is_rooted(algo->coll) ? 3 : 1); ri++) {
        for (int in_place = 0; in_place <= has_in_place(algo->coll); in_place++) {
            size_t     count = algo->coll == GDC_COLL_ALLTOALL ? 50 : 2000 + (size_t)n;
            sim_case_t c     = {algo, n, count, GDC_INT32, GDC_SUM, roots[ri], in_place, 1, nodes, rr, &cfg, 0, 0, 0, 0};
            run_case(&c);
        }
    }
}

static void dtype_cases(const gdc_coll_algo_t *algo, int n, int nodes, int rr)
{
    static const struct {
        gdc_dtype_t dtype;
        gdc_op_t    op;
    } reductions[] = {
        {GDC_FLOAT32, GDC_SUM}, {GDC_FLOAT64, GDC_SUM}, {GDC_FLOAT16, GDC_SUM}, {GDC_BFLOAT16, GDC_SUM},
        {GDC_INT64, GDC_MAX},   {GDC_INT16, GDC_MIN},   {GDC_UINT8, GDC_BXOR},  {GDC_UINT32, GDC_BOR},
        {GDC_UINT64, GDC_BAND}, {GDC_INT32, GDC_AVG},   {GDC_FLOAT32, GDC_AVG}, {GDC_INT8, GDC_PROD},
        {GDC_FLOAT64, GDC_MIN},
    };
    static const gdc_dtype_t movers[] = {GDC_BYTE, GDC_FLOAT64, GDC_FLOAT16};
    int num = sim_reduces(algo->coll) ? (int)(sizeof(reductions) / sizeof(reductions[0])) : (int)(sizeof(movers) / sizeof(movers[0]));

    for (int t = 0; t < num; t++) {
        size_t counts[] = {1, (size_t)n + 1, 700};
        for (int ci = 0; ci < 3; ci++) {
            for (int in_place = 0; in_place <= has_in_place(algo->coll); in_place++) {
                sim_case_t c = {algo, n, counts[ci], GDC_INT32, GDC_SUM, n - 1, in_place, 2, nodes, rr, &cfg, 0, 0, 0, 0};
                if (sim_reduces(algo->coll)) {
                    c.dtype = reductions[t].dtype;
                    c.op    = reductions[t].op;
                } else {
                    c.dtype = movers[t];
                }
                run_case(&c);
            }
        }
    }
}

static void sweep(gdc_coll_type_t coll)
{
    static const int dtype_shapes[] = {5, 8, 13};
    static const int guard_shapes[] = {2, 3, 5, 7, 8, 12, 13, 17, 24, 33};
    int              found = 0;

    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        if (algo->coll != coll) {
            continue;
        }
        guard = !is_hier(algo);
        if (guard) {
            each_layout(algo, guard_shapes, (int)(sizeof(guard_shapes) / sizeof(guard_shapes[0])), int_cases);
            continue;
        }
        found++;
        each_layout(algo, sizes, num_sizes, int_cases);
        cfg.chunk_bytes = 96; /* many chunks per block, several segments */
        each_layout(algo, sizes, num_sizes, pipeline_cases);
        cfg.chunk_bytes = 256 * 1024;
        each_layout(algo, dtype_shapes, (int)(sizeof(dtype_shapes) / sizeof(dtype_shapes[0])), dtype_cases);
    }
    guard = 0;
    assert_true(found > 0);
}

#define HIER_TEST(name, coll)                                                                 \
    static void test_##name(void **state)                                                     \
    {                                                                                         \
        sweep(coll);                                                                          \
    }
HIER_TEST(allreduce, GDC_COLL_ALLREDUCE)
HIER_TEST(bcast, GDC_COLL_BCAST)
HIER_TEST(allgather, GDC_COLL_ALLGATHER)
HIER_TEST(alltoall, GDC_COLL_ALLTOALL)
HIER_TEST(barrier, GDC_COLL_BARRIER)

/* Many nodes: the group allreduce among leaders and along rails takes recursive halving and
 * doubling for a power of two of 8 nodes or more (forced for small vectors by a tiny
 * GDC_HIER_RING_MIN), a ring for other counts of nodes. */
static void test_many_nodes(void **state)
{
    static const struct {
        int n, nodes, rr;
    } shapes[] = {{8, 8, 0}, {16, 8, 0}, {16, 8, 1}, {24, 8, 0}, {19, 8, 0}, {32, 16, 0}, {18, 9, 0}, {33, 16, 1}};
    static const size_t counts[] = {1, 7, 100, 1001, 4099};
    static const char *const names[] = {"hier_leader", "hier_rails"};
    unsigned long before = runs - not_applicable;

    cfg.hier_ring_bytes = 16;
    for (size_t a = 0; a < sizeof(names) / sizeof(names[0]); a++) {
        const gdc_coll_algo_t *algo = gdc_coll_algo_find(GDC_COLL_ALLREDUCE, names[a]);
        for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
            for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
                for (int in_place = 0; in_place <= 1; in_place++) {
                    sim_case_t c = {algo, shapes[si].n, counts[ci], GDC_INT32, in_place ? GDC_SUM : GDC_AVG, 0,
                                    in_place, (unsigned)ci, shapes[si].nodes, shapes[si].rr, &cfg, 0, 0, 0, 0};
                    run_case(&c);
                }
            }
        }
    }
    cfg = gdc_coll_config_defaults;
    assert_true(runs - not_applicable - before >= 150);
}

/* The flat algorithms of the collectives without a hierarchical one, over the layouts. */
static void test_flat_guard(void **state)
{
    static const gdc_coll_type_t others[] = {GDC_COLL_REDUCE, GDC_COLL_REDUCE_SCATTER, GDC_COLL_ALLTOALLV,
                                             GDC_COLL_GATHER, GDC_COLL_SCATTER};
    static const int             shapes[] = {2, 3, 5, 8, 13, 17, 33};

    guard = 1;
    for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
        for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
            if (gdc_coll_algos[i].coll == others[k]) {
                each_layout(&gdc_coll_algos[i], shapes, (int)(sizeof(shapes) / sizeof(shapes[0])), int_cases);
            }
        }
    }
    guard = 0;
}

/* Each hierarchical algorithm is in the table with a description, and applies exactly when
 * the ranks span nodes. */
static void test_supports(void **state)
{
    int             node_of[8] = {0, 0, 0, 0, 1, 1, 1, 1}, one_node[8] = {0};
    gdc_coll_args_t a;
    int             num = 0;

    memset(&a, 0, sizeof(a));
    a.size  = 8;
    a.count = 1000;
    a.dtype  = GDC_FLOAT32;
    a.dsize  = 4;
    a.config = &cfg;
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        if (!is_hier(algo)) {
            continue;
        }
        num++;
        assert_non_null(algo->supports);
        assert_true(strlen(algo->desc) > 20);
        a.coll      = algo->coll;
        a.node_of   = node_of;
        a.num_nodes = 2;
        assert_true(algo->supports(&a));
        a.node_of   = one_node;
        a.num_nodes = 1;
        assert_false(algo->supports(&a));
        a.node_of = NULL;
        assert_false(algo->supports(&a));
    }
    assert_int_equal(num, 8);
}

static void test_summary(void **state)
{
    print_message("# simulated %lu calls (%lu not applicable to their algorithm), %lu steps, %lu messages\n", runs,
                  not_applicable, sim_total_steps, sim_total_messages);
    assert_true(runs > 10000);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        if (gdc_coll_algos[i].flags & GDC_COLL_ALGO_FLAG_HIER && ran[i] < 200) {
            fail_msg("%s(%s) ran in %lu simulated calls only (at least 200 expected): most were not applicable",
                     gdc_coll_type_name(gdc_coll_algos[i].coll), gdc_coll_algos[i].name, ran[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_bcast),
        cmocka_unit_test(test_allgather),
        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_many_nodes),
        cmocka_unit_test(test_flat_guard),
        cmocka_unit_test(test_summary),
    };

    cfg = gdc_coll_config_defaults;
    if (getenv("GDC_TEST_REDUCED") != NULL && atoi(getenv("GDC_TEST_REDUCED")) != 0) {
        sizes     = reduced_sizes;
        num_sizes = (int)(sizeof(reduced_sizes) / sizeof(reduced_sizes[0]));
        print_message("# GDC_TEST_REDUCED: %d communicator sizes of %d\n", num_sizes,
                      (int)(sizeof(all_sizes) / sizeof(all_sizes[0])));
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
