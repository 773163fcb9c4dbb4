/*
 * gdrun's pieces that need no processes: the (emulated) node layout and the strings PMIx
 * gets from it, rank-set formatting, and the environment arrays of the ranks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gdrun.h"

static void expect_text(char *got, const char *want)
{
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* Block distribution for every N up to 40 and every K up to N: nodes differ by at most
 * one rank, the larger ones first, ranks consecutive, local ranks 0.. on each node. */
static void test_block_distribution(void **state)
{
    (void)state;
    for (int n = 1; n <= 40; n++) {
        for (int k = 1; k <= n; k++) {
            gdrun_layout_t l;
            int            next = 0;

            assert_int_equal(gdrun_layout_init(&l, n, k, "host"), 0);
            assert_int_equal(l.nnodes, k);
            for (int node = 0; node < k; node++) {
                assert_int_equal(l.node_first[node], next);
                assert_int_equal(l.node_size[node], n / k + (node < n % k));
                for (int i = 0; i < l.node_size[node]; i++) {
                    assert_int_equal(l.node_of[next + i], node);
                    assert_int_equal(l.local_rank[next + i], i);
                }
                next += l.node_size[node];
            }
            assert_int_equal(next, n);
            gdrun_layout_free(&l);
        }
    }
}

static void test_five_on_two(void **state)
{
    gdrun_layout_t l;

    (void)state;
    assert_int_equal(gdrun_layout_init(&l, 5, 2, "vm"), 0);
    assert_int_equal(l.node_size[0], 3);
    assert_int_equal(l.node_size[1], 2);
    assert_string_equal(l.node_name[0], "vm-n0");
    assert_string_equal(l.node_name[1], "vm-n1");
    expect_text(gdrun_layout_node_peers(&l, 0), "0,1,2");
    expect_text(gdrun_layout_node_peers(&l, 1), "3,4");
    expect_text(gdrun_layout_node_list(&l), "vm-n0,vm-n1");
    expect_text(gdrun_layout_proc_map(&l), "0,1,2;3,4");
    gdrun_layout_free(&l);
}

static void test_one_node_keeps_the_host_name(void **state)
{
    gdrun_layout_t l;

    (void)state;
    assert_int_equal(gdrun_layout_init(&l, 3, 1, "node17"), 0);
    assert_string_equal(l.node_name[0], "node17");
    expect_text(gdrun_layout_node_list(&l), "node17");
    expect_text(gdrun_layout_proc_map(&l), "0,1,2");
    gdrun_layout_free(&l);
}

static void test_bad_layouts(void **state)
{
    gdrun_layout_t l;

    (void)state;
    assert_int_equal(gdrun_layout_init(&l, 2, 3, "h"), -1); /* a node without ranks */
    assert_int_equal(gdrun_layout_init(&l, 0, 1, "h"), -1);
    assert_int_equal(gdrun_layout_init(&l, 4, 0, "h"), -1);
}

static void test_format_ranks(void **state)
{
    int mask[10] = {1, 1, 1, 0, 1, 0, 0, 1, 1, 0};
    int none[3]  = {0, 0, 0};
    int all[4]   = {1, 1, 1, 1};

    (void)state;
    expect_text(gdrun_format_ranks(mask, 10), "0-2,4,7-8");
    expect_text(gdrun_format_ranks(none, 3), "");
    expect_text(gdrun_format_ranks(all, 4), "0-3");
    expect_text(gdrun_format_ranks(&mask[4], 1), "0");
}

static void test_environment(void **state)
{
    char *const src[] = {"A=1", "PATH=/bin", "B=", NULL};
    char      **env   = gdrun_env_copy(src);

    (void)state;
    assert_non_null(env);
    assert_int_equal(gdrun_env_set(&env, "A", "2"), 0);            /* replaces */
    assert_int_equal(gdrun_env_put(&env, "C=x=y z"), 0);           /* adds, value kept whole */
    assert_int_equal(gdrun_env_put(&env, "AB=3"), 0);              /* not confused with A or B */
    assert_int_equal(gdrun_env_set(&env, "B", "filled"), 0);
    assert_string_equal(env[0], "A=2");
    assert_string_equal(env[1], "PATH=/bin");
    assert_string_equal(env[2], "B=filled");
    assert_string_equal(env[3], "C=x=y z");
    assert_string_equal(env[4], "AB=3");
    assert_null(env[5]);
    gdrun_env_free(env);
}

static void test_variable_names(void **state)
{
    (void)state;
    assert_true(gdrun_env_valid_name("GDC_LOG", 7));
    assert_true(gdrun_env_valid_name("_x9", 3));
    assert_true(gdrun_env_valid_name("AB=C", 2)); /* only the name part counts */
    assert_false(gdrun_env_valid_name("9A", 2));
    assert_false(gdrun_env_valid_name("A-B", 3));
    assert_false(gdrun_env_valid_name("", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_distribution),
        cmocka_unit_test(test_five_on_two),
        cmocka_unit_test(test_one_node_keeps_the_host_name),
        cmocka_unit_test(test_bad_layouts),
        cmocka_unit_test(test_format_ranks),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_variable_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
