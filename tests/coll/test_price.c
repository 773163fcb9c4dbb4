/*
 * The fast model against the simulator: every algorithm with a closed-form price, over
 * sizes, rank counts and node layouts (even and uneven blocks, round robin), on the default
 * machine (host memory) and on the dgx-h100 and dgx-a100 profiles (device memory). Each price
 * must be within 10% of the simulator's time, and the choice the prices make must be the
 * simulator's best or one it prices within 10% of it.
 *   test_price            the sweep, as a cmocka test
 *   test_price -v         the same, printing every case's ratio
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "select/model.h"
#include "select/price.h"
#include "select/table.h"

static int verbose;

typedef struct sweep_stats {
    unsigned long cases, within, choices, good_choices;
    double        worst;
    char          worst_case[200];
} sweep_stats_t;

static sweep_stats_t per_algo[GDC_COLL_ALGO_COUNT];
static sweep_stats_t choices;

static int node_of[256];

/* GDC_CHUNK_SIZE on auto, as in a job: chunks per link class. */
static gdc_coll_config_t live_like;

static void layout(int n, int nodes, int round_robin)
{
    int base = n / nodes, extra = n % nodes;

    for (int r = 0; r < n; r++) {
        node_of[r] = round_robin ? r % nodes
                                 : (r < extra * (base + 1) ? r / (base + 1) : extra + (r - extra * (base + 1)) / base);
    }
}

static gdc_coll_args_t call(gdc_coll_type_t coll, size_t bytes, int n, int nodes, int device)
{
    gdc_coll_args_t a;

    memset(&a, 0, sizeof(a));
    a.coll      = coll;
    a.dtype     = coll == GDC_COLL_BARRIER ? GDC_BYTE : GDC_FLOAT32;
    a.dsize     = coll == GDC_COLL_BARRIER ? 1 : 4;
    a.op        = GDC_SUM;
    a.size      = n;
    a.count     = coll == GDC_COLL_BARRIER ? 0 : bytes / a.dsize;
    a.node_of   = node_of;
    a.num_nodes = nodes;
    a.shm_bytes = device ? 0 : 2 << 20;
    a.on_device = device;
    a.config    = &live_like;
    return a;
}

static void compare(const gdc_coll_machine_t *m, gdc_coll_type_t coll, size_t bytes, int n, int nodes, int rr,
                    int device)
{
    gdc_coll_args_t a = call(coll, bytes, n, nodes, device);
    double          best_sim = 0, chosen_sim = 0, best_price = 0;
    int             have = 0;

    gdc_coll_machine_chunks(m, &a);
    layout(n, nodes, rr);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        gdc_coll_prediction_t  sim;
        double                 price, ratio;
        sweep_stats_t         *st = &per_algo[i];

        if (algo->coll != coll || (algo->supports != NULL && !algo->supports(&a))) {
            continue;
        }
        if (gdc_coll_price(m, algo, &a, NULL, &price) != GDC_SUCCESS) {
            continue;
        }
        assert_int_equal(gdc_coll_predict(m, algo, &a, device, &sim), GDC_SUCCESS);
        ratio = sim.seconds > 0 ? price / sim.seconds : 1;
        st->cases++;
        st->within += ratio >= 0.9 && ratio <= 1.1;
        if (verbose) {
            printf("%-14s %-22s %9zu B %3d ranks %d nodes %s %s: sim %10.2f us price %10.2f us ratio %.3f\n",
                   gdc_coll_type_name(coll), algo->name, bytes, n, nodes, rr ? "rr" : "bl", device ? "dev" : "host",
                   sim.seconds * 1e6, price * 1e6, ratio);
        }
        if (ratio > 0 && (ratio > 1 ? ratio : 1 / ratio) > st->worst) {
            st->worst = ratio > 1 ? ratio : 1 / ratio;
            snprintf(st->worst_case, sizeof(st->worst_case), "%zu B, %d ranks on %d nodes (%s), %s: sim %.2f us, price %.2f us",
                     bytes, n, nodes, rr ? "round robin" : "blocks", device ? "device" : "host", sim.seconds * 1e6,
                     price * 1e6);
        }
        if (!have || sim.seconds < best_sim) {
            best_sim = sim.seconds;
        }
        if (!have || price < best_price) {
            best_price = price;
            chosen_sim = sim.seconds;
        }
        have = 1;
    }
    if (have) {
        choices.choices++;
        choices.good_choices += chosen_sim <= 1.1 * best_sim;
    }
}

static void sweep(const gdc_coll_machine_t *m, int device)
{
    static const int    sizes[]  = {2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 64};
    static const int    nodes[]  = {1, 2, 3, 4, 8};
    static const size_t bytes[]  = {8, 1024, 65536, 1 << 20, 16 << 20};

    for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
        if (c == GDC_COLL_ALLTOALLV) {
            continue;
        }
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            for (size_t ni = 0; ni < sizeof(nodes) / sizeof(nodes[0]); ni++) {
                if (nodes[ni] > sizes[si]) {
                    continue;
                }
                for (int rr = 0; rr <= (nodes[ni] > 1 && nodes[ni] < sizes[si]); rr++) {
                    for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
                        if (sizes[si] > 17 && bytes[bi] > (1 << 20) && (c == GDC_COLL_ALLTOALL || c == GDC_COLL_ALLGATHER ||
                                                                       c == GDC_COLL_REDUCE_SCATTER || c == GDC_COLL_GATHER ||
                                                                       c == GDC_COLL_SCATTER)) {
                            continue; /* per-rank blocks of 16 MB on 32 ranks: too slow to simulate */
                        }
                        compare(m, (gdc_coll_type_t)c, bytes[bi], sizes[si], nodes[ni], rr, device);
                    }
                }
            }
        }
    }
}

static void test_prices_follow_the_simulator(void **state)
{
    gdc_coll_machine_t m;
    int                bad = 0;

    gdc_coll_machine_default(&m);
    sweep(&m, 0);
    assert_int_equal(gdc_coll_machine_load(&m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
    sweep(&m, 1);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        sweep_stats_t *st = &per_algo[i];
        if (st->cases == 0) {
            continue;
        }
        print_message("# %-14s %-22s %5lu cases, %5.1f%% within 10%%, worst x%.2f (%s)\n",
                      gdc_coll_type_name(gdc_coll_algos[i].coll), gdc_coll_algos[i].name, st->cases,
                      100.0 * st->within / st->cases, st->worst, st->worst_case);
        bad += st->within < st->cases;
    }
    print_message("# choices: %lu, %lu the simulator's best or within 10%% of it\n", choices.choices,
                  choices.good_choices);
    assert_int_equal(bad, 0);
    assert_int_equal(choices.good_choices, choices.choices);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prices_follow_the_simulator),
    };

    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    live_like             = gdc_coll_config_defaults;
    live_like.chunk_bytes = 0;
    setenv("GDC_LOG", "error", 0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
