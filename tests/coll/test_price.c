/*
 * The fast model against the simulator: every algorithm with a closed-form price, over
 * sizes, rank counts and node layouts (even and uneven blocks, round robin), rooted ones
 * at rank 0 and at the middle rank, on the default machine (host memory) and on the
 * dgx-h100 profile (device memory).
 *
 * What is held (and what the model does not reach yet: every price within 10%), each a
 * little under what the prices reached (December 2026, once trees are priced from
 * their own root and see their busiest NIC and link, and the rails of a node's shared NICs
 * hide their latency behind one another's bytes, and a binomial tree's sibling cut short
 * by the end of the ranks sends with the larger ones, and alltoall hier's packs are priced
 * from the pair of nodes whose pack comes in last, and bcast hier_rails's rails run beside
 * its scatter, and alltoall pairwise's windows land on their receivers all at once, and a
 * leaders' allgather sends the largest node's blocks, and a tree's messages queue on one
 * NIC after another through its dependencies, and alltoall pairwise's later windows wait
 * behind the first ones of the ranks that share a NIC, and the rails' rounds of allgather
 * hier_rails carry what the busiest group of nodes holds, and bcast shm's chunks go at the
 * pace of the slower of the root's copy in and the readers' copy out, and a round by bits
 * that fewer of a node's ranks cross than the round before hides only its own queue, and
 * allgather recursive_doubling's rounds cross at the pace of the NIC that takes in the
 * most blocks, and allreduce rabenseifner's rounds stay inside the nodes where the groups
 * that cross hold no element, and reduce_scatter_gather's early blocks leave during the
 * ring's last round, and a tree's chains see the hops inside nodes on their way, and a
 * ring's stream ends with one receive's overhead, and allreduce hier_rails's smallest node
 * rings its uneven shares in step, and bcast hier_rails's smaller nodes take in their
 * parts behind their senders' earlier messages, and bcast hier's last chunk goes down the
 * whole of a node's broadcast, and a tree's message off a node queues on its sender's own
 * NIC, and alltoall pairwise sends off a rank's node first, and the rings over fewer
 * elements than ranks follow their non-empty blocks' ways, and a tree's queues count the
 * messages still there, and rabenseifner's first message queues beside its fold, and
 * recursive_doubling's partners that never waited are ahead, and alltoall bruck's rounds
 * that only some of a node's ranks cross do not queue together, and allgather hier's
 * other leaders do not wait for a larger node's gather, and recursive_halving follows the
 * participant that waited for an extra, and a reduce tree's link counts the reductions
 * after its last message, and a gather's way takes a later sibling's blocks behind its
 * own, and a fan-in takes the hops of its longest way, and allgather
 * hier's leader copies its block while the others' come in, and Bruck's rounds that every
 * rank of a node crosses queue on its NIC as lanes, and bcast hier_rails's parts leave the
 * root's node behind other rails' on its NICs, and a rails' doubling off a power of two of
 * nodes carries one fold a way (and the simulator's NICs send each message from its own
 * time on), and alltoall hier's aggregators fill their packs while their node's blocks
 * come in, and bcast hier_rails's smaller nodes pass several parts on to each child, and
 * alltoall hier's one-rank nodes send each other their blocks first, and its only largest
 * node takes its packs in one after another, and a doubling allgather's participants send
 * their extras' shares on, and the rails' fold goes on the NICs of the nodes that fold,
 * and bcast hier_rails's root hands out only the parts that hold elements, and the rounds
 * by bits, Bruck's, the binomial trees and the small pairwise exchanges on several nodes
 * are walked rank by rank up to 128 ranks, their messages booked in the order they leave
 * (price_walk.c), and a fold among the nodes comes in behind its partner's first message,
 * and the hierarchical allgathers, bcast hier and allreduce hier_rails are walked along
 * their leaders or rails, each node's phases inside in closed form: every choice good
 * (11,420), the worst x1.06; 99.9% of the choices and of all prices within 10%; the
 * weakest algorithm, allreduce shm, 96.4% within 10%; past the sweep, up to 200 ranks on
 * 25 nodes, every choice good too and 99.2% of the prices within 10%):
 *   - the choice the prices make is the simulator's best or one it prices within 10% of
 *     it in every call shape;
 *   - the chosen algorithm's price is within 10% of the simulator's in 99.8% of the call
 *     shapes at least, and 99.8% of all the prices are;
 *   - every algorithm's median price is within 10% of the simulator's, and 96% of its
 *     prices at least are within 10% each;
 *   - past the sweep (test_choices_past_the_sweep), the same of every choice, and 99% of
 *     the prices within 10%.
 * Each algorithm's share within 10% and its worst case are printed (the gaps to close).
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

#include "gdc.h"
#include "select/model.h"
#include "select/price.h"
#include "select/select.h"
#include "select/table.h"

static int verbose;

#define MAX_CASES 2048

typedef struct sweep_stats {
    unsigned long cases, within, choices, good_choices, chosen_within;
    double        worst, worst_choice;
    char          worst_case[200];
    double        ratios[MAX_CASES];
} sweep_stats_t;

static sweep_stats_t per_algo[GDC_COLL_ALGO_COUNT];
static sweep_stats_t choices;

/* What test_prices_follow_the_simulator holds (see the top of the file). */
#define HELD_GOOD_CHOICES    1.0    /* share of the call shapes */
#define HELD_WORST_CHOICE    1.10   /* times the simulator's best */
#define HELD_CHOSEN_WITHIN   0.998  /* share of the call shapes */
#define HELD_ALL_WITHIN      0.998  /* share of all the prices */
#define HELD_ALGO_WITHIN     0.96   /* share of each algorithm's prices */
#define HELD_PAST_WITHIN     0.99   /* share of the prices past the sweep */

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

static gdc_coll_args_t call(gdc_coll_type_t coll, size_t bytes, int n, int nodes, int device, int root)
{
    gdc_coll_args_t a;

    memset(&a, 0, sizeof(a));
    a.coll      = coll;
    a.dtype     = coll == GDC_COLL_BARRIER ? GDC_BYTE : GDC_FLOAT32;
    a.dsize     = coll == GDC_COLL_BARRIER ? 1 : 4;
    a.op        = GDC_SUM;
    a.root      = root;
    a.size      = n;
    a.count     = coll == GDC_COLL_BARRIER ? 0 : bytes / a.dsize;
    a.node_of   = node_of;
    a.num_nodes = nodes;
    a.shm_bytes = 2 << 20;
    a.shm_cma   = !device;
    a.shm_ipc   = device;
    a.shm_one_gpu = device; /* the ipc_leader algorithms priced next to the others */
    a.on_device = device;
    a.config    = &live_like;
    return a;
}

/* The default machine, a's chunks on it, and a's ranks laid out on nodes (rr: round robin). */
static void on_default_machine(gdc_coll_machine_t *m, gdc_coll_args_t *a, int nodes, int rr)
{
    gdc_coll_machine_default(m);
    gdc_coll_machine_chunks(m, a);
    layout(a->size, nodes, rr);
}

/* The same on the dgx-h100 profile, with its cores and cache, as a job's calls have them. */
static void on_dgx_machine(gdc_coll_machine_t *m, gdc_coll_args_t *a, int nodes, int rr)
{
    gdc_coll_machine_default(m);
    assert_int_equal(gdc_coll_machine_load(m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
    a->node_cores = m->cores_per_node;
    a->core_cache = (size_t)m->core_cache_kib << 10;
    gdc_coll_machine_chunks(m, a);
    layout(a->size, nodes, rr);
}

/* One call shape: every algorithm priced and simulated, into `algos` (by algorithm) and
 * `chosen` (the choice the prices make). */
static void compare(const gdc_coll_machine_t *m, gdc_coll_type_t coll, size_t bytes, int n, int nodes, int rr,
                    int device, int root, sweep_stats_t *algos, sweep_stats_t *chosen)
{
    gdc_coll_args_t a = call(coll, bytes, n, nodes, device, root);
    double          best_sim = 0, chosen_sim = 0, best_price = 0, chosen_ratio = 1;

    a.node_cores = m->cores_per_node; /* as a job's calls have it */
    a.core_cache = (size_t)m->core_cache_kib << 10;
    const char     *best_name = "", *chosen_name = "";
    int             have = 0;

    gdc_coll_machine_chunks(m, &a);
    layout(n, nodes, rr);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        gdc_coll_prediction_t  sim;
        double                 price, ratio;
        sweep_stats_t         *st = &algos[i];

        if (algo->coll != coll || (algo->supports != NULL && !algo->supports(&a))) {
            continue;
        }
        if (gdc_coll_price(m, algo, &a, NULL, &price) != GDC_SUCCESS) {
            continue;
        }
        assert_int_equal(gdc_coll_predict(m, algo, &a, device, &sim), GDC_SUCCESS);
        ratio = sim.seconds > 0 ? price / sim.seconds : 1;
        assert_true(st->cases < MAX_CASES);
        st->ratios[st->cases++] = ratio;
        st->within += ratio >= 0.9 && ratio <= 1.1;
        if (verbose) {
            printf("%-14s %-22s %9zu B %3d ranks %d nodes %s %s root %d: sim %10.2f us price %10.2f us ratio %.3f\n",
                   gdc_coll_type_name(coll), algo->name, bytes, n, nodes, rr ? "rr" : "bl", device ? "dev" : "host", root,
                   sim.seconds * 1e6, price * 1e6, ratio);
        }
        if (ratio > 0 && (ratio > 1 ? ratio : 1 / ratio) > st->worst) {
            st->worst = ratio > 1 ? ratio : 1 / ratio;
            snprintf(st->worst_case, sizeof(st->worst_case),
                     "%zu B, %d ranks on %d nodes (%s), %s, root %d: sim %.2f us, price %.2f us", bytes, n, nodes,
                     rr ? "round robin" : "blocks", device ? "device" : "host", root, sim.seconds * 1e6, price * 1e6);
        }
        if (!have || sim.seconds < best_sim) {
            best_sim  = sim.seconds;
            best_name = algo->name;
        }
        if (!have || price < best_price) {
            best_price   = price;
            chosen_sim   = sim.seconds;
            chosen_ratio = ratio;
            chosen_name  = algo->name;
        }
        have = 1;
    }
    if (have) {
        chosen->choices++;
        chosen->good_choices += chosen_sim <= 1.1 * best_sim;
        if (verbose && chosen_sim > 1.1 * best_sim) {
            printf("# poor choice: %s %zu B %d ranks on %d nodes (%s) %s root %d: %s x%.2f the best, %s\n",
                   gdc_coll_type_name(coll), bytes, n, nodes, rr ? "round robin" : "blocks", device ? "device" : "host",
                   root, chosen_name, chosen_sim / best_sim, best_name);
        }
        chosen->chosen_within += chosen_ratio >= 0.9 && chosen_ratio <= 1.1;
        if (verbose && (chosen_ratio < 0.9 || chosen_ratio > 1.1)) {
            printf("# chosen off: %s %s %zu B %d ranks on %d nodes (%s) %s root %d: ratio %.2f\n",
                   gdc_coll_type_name(coll), chosen_name, bytes, n, nodes, rr ? "round robin" : "blocks",
                   device ? "device" : "host", root, chosen_ratio);
        }
        if (best_sim > 0 && chosen_sim / best_sim > chosen->worst_choice) {
            chosen->worst_choice = chosen_sim / best_sim;
            snprintf(chosen->worst_case, sizeof(chosen->worst_case), "%s, %zu B, %d ranks on %d nodes (%s), %s, root %d",
                     gdc_coll_type_name(coll), bytes, n, nodes, rr ? "round robin" : "blocks", device ? "device" : "host",
                     root);
        }
    }
}

/* Per-rank blocks of 16 MB on more than 17 ranks. */
static int too_slow_to_simulate(gdc_coll_type_t coll, int n, size_t bytes)
{
    int blocks = coll == GDC_COLL_ALLTOALL || coll == GDC_COLL_ALLGATHER || coll == GDC_COLL_REDUCE_SCATTER ||
                 coll == GDC_COLL_GATHER || coll == GDC_COLL_SCATTER;

    return n > 17 && bytes > (1 << 20) && blocks;
}

static void sweep(const gdc_coll_machine_t *m, int device, int one_node)
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
                if (nodes[ni] > sizes[si] || (one_node && nodes[ni] > 1)) {
                    continue;
                }
                for (int rr = 0; rr <= (nodes[ni] > 1 && nodes[ni] < sizes[si]); rr++) {
                    for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
                        if (too_slow_to_simulate((gdc_coll_type_t)c, sizes[si], bytes[bi])) {
                            continue;
                        }
                        /* rooted: at rank 0 and in the middle (inside a node, in blocks) */
                        int last_root = gdc_coll_is_rooted((gdc_coll_type_t)c) ? sizes[si] / 2 : 0;
                        for (int root = 0; root <= last_root; root += sizes[si] / 2) {
                            compare(m, (gdc_coll_type_t)c, bytes[bi], sizes[si], nodes[ni], rr, device, root,
                                    per_algo, &choices);
                        }
                    }
                }
            }
        }
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(sweep_stats_t *st)
{
    qsort(st->ratios, st->cases, sizeof(double), by_value);
    return st->ratios[st->cases / 2];
}

static void test_prices_follow_the_simulator(void **state)
{
    gdc_coll_machine_t m;
    int                bad = 0;
    unsigned long      cases = 0, within = 0;

    gdc_coll_machine_default(&m);
    sweep(&m, 0, 0);
    /* ranks that outnumber their node's cores: every wait on a peer costs more (the same
     * term in the price and in the simulator) */
    m.cores_per_node = 2;
    m.core_cache_kib = 2048; /* the smaller allreduce shm calls in their ring slots */
    sweep(&m, 0, 1);
    /* a node whose last-level cache holds the smaller calls' buffers: their copies,
     * reductions and cross-memory attach at the cached rates (in both), and lines out of
     * a peer's shared memory slower than one's own, and into one's own for peers slower
     * still, small copies out of a peer's at half the rate (as the development VM measures
     * them) */
    m.cores_per_node        = 0;
    m.llc_mib               = 32;
    m.copy_bw_peer_cached   = 17e9;
    m.copy_bw_shared_cached = 13e9;
    m.copy_bw_peer_small    = 8e9;
    sweep(&m, 0, 1);
    gdc_coll_machine_default(&m);
    assert_int_equal(gdc_coll_machine_load(&m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
    sweep(&m, 1, 0);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        sweep_stats_t *st = &per_algo[i];
        if (st->cases == 0) {
            continue;
        }
        double mid = median(st);
        print_message("# %-14s %-22s %5lu cases, %5.1f%% within 10%%, median x%.2f, worst x%.2f (%s)\n",
                      gdc_coll_type_name(gdc_coll_algos[i].coll), gdc_coll_algos[i].name, st->cases,
                      100.0 * st->within / st->cases, mid, st->worst, st->worst_case);
        if (mid < 0.9 || mid > 1.1 || st->within < HELD_ALGO_WITHIN * st->cases) {
            print_message("#   not held: median within 10%% and %.0f%% of the prices within 10%%\n",
                          100 * HELD_ALGO_WITHIN);
            bad++;
        }
        cases += st->cases;
        within += st->within;
    }
    print_message("# all prices: %lu, %lu within 10%% of the simulator (%.1f%%)\n", cases, within,
                  100.0 * within / cases);
    print_message("# choices: %lu, %lu the simulator's best or within 10%% of it, %lu priced within 10%% of the "
                  "simulator; worst choice x%.2f the best (%s)\n",
                  choices.choices, choices.good_choices, choices.chosen_within, choices.worst_choice,
                  choices.worst_case);
    assert_int_equal(bad, 0);
    assert_true(choices.good_choices >= HELD_GOOD_CHOICES * choices.choices);
    assert_true(choices.worst_choice <= HELD_WORST_CHOICE * (1 + 1e-9)); /* what good_choices counts */
    assert_true(choices.chosen_within >= HELD_CHOSEN_WITHIN * choices.choices);
    assert_true(within >= HELD_ALL_WITHIN * cases);
}

/* Past the sweep: larger jobs, 72 to 200 ranks on 6 to 25 nodes, most of them uneven, each
 * collective at 8 B to 16 MiB on the default machine and on dgx-h100 (rooted ones at rank
 * 0). The choice is held as in the sweep (the simulator's best or within 10% of it; before
 * the rails' folds were priced, allreduce of 1 MiB on 96 ranks round robin on 6 nodes chose
 * hier_leader, x1.15 the best); the share of the prices within 10% is printed, not held
 * (rounds by bits over many uneven nodes are the farthest off: allreduce rabenseifner of 1
 * MiB on 13 ranks on 6 nodes, host, at 0.74). */
static void test_choices_past_the_sweep(void **state)
{
    static const struct {
        int n, nodes, rr;
    } jobs[]                    = {{72, 9, 1}, {96, 6, 1}, {100, 13, 1}, {136, 17, 0}, {200, 25, 0}};
    static const size_t bytes[] = {8, 65536, 1 << 20, 16 << 20};
    sweep_stats_t      *algos = calloc(GDC_COLL_ALGO_COUNT, sizeof(*algos)), *chosen = calloc(1, sizeof(*chosen));
    unsigned long       cases = 0, within = 0;
    gdc_coll_machine_t  m;

    assert_non_null(algos);
    assert_non_null(chosen);
    for (int device = 0; device <= 1; device++) {
        gdc_coll_machine_default(&m);
        if (device) {
            assert_int_equal(gdc_coll_machine_load(&m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
        }
        for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
            for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
                for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]) && c != GDC_COLL_ALLTOALLV; bi++) {
                    if (too_slow_to_simulate((gdc_coll_type_t)c, jobs[j].n, bytes[bi])) {
                        continue;
                    }
                    compare(&m, (gdc_coll_type_t)c, bytes[bi], jobs[j].n, jobs[j].nodes, jobs[j].rr, device, 0, algos,
                            chosen);
                }
            }
        }
    }
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        cases += algos[i].cases;
        within += algos[i].within;
    }
    print_message("# past the sweep: %lu prices, %lu within 10%% of the simulator (%.1f%%); %lu choices, %lu the "
                  "simulator's best or within 10%% of it, the worst x%.2f the best (%s)\n",
                  cases, within, 100.0 * within / cases, chosen->choices, chosen->good_choices, chosen->worst_choice,
                  chosen->worst_case);
    assert_true(chosen->choices > 0);
    assert_true(chosen->good_choices >= HELD_GOOD_CHOICES * chosen->choices);
    assert_true(chosen->worst_choice <= HELD_WORST_CHOICE * (1 + 1e-9));
    assert_true(within >= HELD_PAST_WITHIN * cases);
    free(chosen);
    free(algos);
}

/* A binomial reduce of 8 ranks round robin on 3 nodes, rooted at rank 4. In vranks (rank -
 * 4 mod 8): node 0's NIC takes in 3 -> 2, 5 -> 4 (behind 3 -> 2 on node 1's NIC) and 6 -> 4
 * (6 had 7's data at 1), 3 transfers, the most any NIC carries; 4 -> 0 can leave only once
 * they are in, so the tree takes 4 transfers, 3 hops between nodes on the way (7 -> 6 -> 4
 * -> 0). Priced from the busiest NIC and the ways level by level, the 1 MiB reduce came out
 * at 0.79 of the simulator's time and binomial was chosen where reduce_scatter_gather takes
 * 0.87 of its time; priced from the chain, it is within 10%, and not chosen. */
static void test_nic_chains(void **state)
{
    gdc_coll_machine_t     m;
    gdc_coll_args_t        a = call(GDC_COLL_REDUCE, 1 << 20, 8, 3, 0, 4);
    gdc_coll_layout_t      lay;
    gdc_coll_prediction_t  sim;
    const gdc_coll_algo_t *binomial = gdc_coll_algo_find(GDC_COLL_REDUCE, "binomial");
    const gdc_coll_algo_t *rsg      = gdc_coll_algo_find(GDC_COLL_REDUCE, "reduce_scatter_gather");
    double                 price, other;

    on_default_machine(&m, &a, 3, 1);
    gdc_coll_layout_of(&a, &lay);
    assert_int_equal(lay.tree_nic_load[GDC_COLL_TREE_REDUCE][0], 3);
    assert_int_equal(lay.tree_nic_chain[GDC_COLL_TREE_REDUCE][0], 4);
    assert_int_equal(lay.tree_nic_chain_hops[GDC_COLL_TREE_REDUCE][0], 3);
    assert_non_null(binomial);
    assert_int_equal(gdc_coll_price(&m, binomial, &a, &lay, &price), GDC_SUCCESS);
    assert_int_equal(gdc_coll_predict(&m, binomial, &a, 0, &sim), GDC_SUCCESS);
    print_message("# reduce binomial, 1 MiB, 8 ranks round robin on 3 nodes, root 4: sim %.1f us, price %.1f us\n",
                  sim.seconds * 1e6, price * 1e6);
    assert_true(price > 0.9 * sim.seconds && price < 1.1 * sim.seconds);
    assert_non_null(rsg);
    assert_int_equal(gdc_coll_price(&m, rsg, &a, &lay, &other), GDC_SUCCESS);
    assert_true(other < price);
}

/* algo (by name) for a on machine m: its price and the simulator's time, in seconds. */
static void price_and_simulate(const gdc_coll_machine_t *m, const char *name, const gdc_coll_args_t *a, double *price,
                               double *sim)
{
    const gdc_coll_algo_t *algo = gdc_coll_algo_find(a->coll, name);
    gdc_coll_prediction_t  pred;

    assert_non_null(algo);
    assert_int_equal(gdc_coll_price(m, algo, a, NULL, price), GDC_SUCCESS);
    assert_int_equal(gdc_coll_predict(m, algo, a, a->on_device, &pred), GDC_SUCCESS);
    *sim = pred.seconds;
}

/* price_and_simulate for two algorithms, printed after label: t[0..1] the first's price and
 * time, t[2..3] the second's. */
static void price_two(const gdc_coll_machine_t *m, const gdc_coll_args_t *a, const char *label, const char *first,
                      const char *second, double t[4])
{
    price_and_simulate(m, first, a, &t[0], &t[1]);
    price_and_simulate(m, second, a, &t[2], &t[3]);
    print_message("# %s: %s sim %.1f us, price %.1f us; %s sim %.1f us, price %.1f us\n", label, first, t[1] * 1e6,
                  t[0] * 1e6, second, t[3] * 1e6, t[2] * 1e6);
}

/* price_and_simulate, printed after label, and the price held within 10% of the
 * simulator's time; the simulator's time in *sim where sim is not NULL. */
static void assert_priced_near(const gdc_coll_machine_t *m, const gdc_coll_args_t *a, const char *name,
                               const char *label, double *sim)
{
    double price, t;

    price_and_simulate(m, name, a, &price, &t);
    print_message("# %s, %s: sim %.1f us, price %.1f us\n", label, name, t * 1e6, price * 1e6);
    assert_true(price > 0.9 * t && price < 1.1 * t);
    if (sim != NULL) {
        *sim = t;
    }
}

/* One call shape (ranks in blocks, or round robin: rr) on the built-in machine, or with
 * device buffers on dgx-h100 (dgx), its price held within 10% of the simulator's time. */
static void on_machine(gdc_coll_machine_t *m, gdc_coll_args_t *a, int nodes, int rr, int dgx)
{
    if (dgx) {
        on_dgx_machine(m, a, nodes, rr);
    } else {
        on_default_machine(m, a, nodes, rr);
    }
}

static void assert_shape_priced_near(gdc_coll_type_t coll, size_t bytes, int n, int nodes, int rr, int dgx, int root,
                                     const char *name, const char *label)
{
    gdc_coll_machine_t m;
    gdc_coll_args_t    a = call(coll, bytes, n, nodes, dgx, root);

    on_machine(&m, &a, nodes, rr, dgx);
    assert_priced_near(&m, &a, name, label, NULL);
}

/* Call shapes, each with the algorithm whose price is held within 10% of the simulator's
 * time there (assert_shape_priced_near). */
typedef struct priced_shape {
    gdc_coll_type_t coll;
    size_t          bytes;
    int             n, nodes, rr, dgx, root;
    const char     *name, *label;
} priced_shape_t;

static void assert_shapes_priced_near(const priced_shape_t *shapes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const priced_shape_t *s = &shapes[i];

        assert_shape_priced_near(s->coll, s->bytes, s->n, s->nodes, s->rr, s->dgx, s->root, s->name, s->label);
    }
}

#define SHAPES_PRICED_NEAR(shapes) assert_shapes_priced_near(shapes, sizeof(shapes) / sizeof((shapes)[0]))

/* Call shapes whose prices a walk makes (coll/select/price_walk.c), each held within 2% of
 * the simulator's time. */
static void assert_shapes_walked(const priced_shape_t *shapes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const priced_shape_t *s = &shapes[i];
        gdc_coll_machine_t    m;
        gdc_coll_args_t       a = call(s->coll, s->bytes, s->n, s->nodes, s->dgx, s->root);
        double                price, sim;

        on_machine(&m, &a, s->nodes, s->rr, s->dgx);
        price_and_simulate(&m, s->name, &a, &price, &sim);
        print_message("# %s, %s: sim %.1f us, price %.1f us\n", s->label, s->name, sim * 1e6, price * 1e6);
        assert_true(price > 0.98 * sim && price < 1.02 * sim);
    }
}

#define SHAPES_WALKED(shapes) assert_shapes_walked(shapes, sizeof(shapes) / sizeof((shapes)[0]))

/* The same shape (as assert_shape_priced_near's) priced and simulated for two algorithms
 * (price_two's t), the first's price held within 10% of the simulator's time. */
static void price_shape_two(gdc_coll_type_t coll, size_t bytes, int n, int nodes, int rr, int dgx, int root,
                            const char *label, const char *first, const char *second, double t[4])
{
    gdc_coll_machine_t m;
    gdc_coll_args_t    a = call(coll, bytes, n, nodes, dgx, root);

    on_machine(&m, &a, nodes, rr, dgx);
    price_two(&m, &a, label, first, second, t);
    assert_true(t[0] > 0.9 * t[1] && t[0] < 1.1 * t[1]);
}

/* reduce_scatter recursive_halving of 1 KiB on 12 ranks in blocks on 3 nodes: 8 take part
 * (4 fold in), and in the first round the four of node 2 cross at once, the others two by
 * two once their fold is in; in the second round two ranks of nodes 0 and 1 cross, whose
 * first round came in one after another behind node 2's NIC. The last of them pays the
 * second round's latency in full (xor_step): priced as if it hid behind node 2's queue, the
 * call came out at 0.73 of the simulator's time and was chosen over the ring (which takes
 * 0.86 of its time). */
static void test_staggered_rounds(void **state)
{
    double t[4]; /* recursive_halving's price and time, the ring's */

    price_shape_two(GDC_COLL_REDUCE_SCATTER, 1024, 12, 3, 0, 0, 0, "reduce_scatter 1 KiB, 12 ranks on 3 nodes",
                    "recursive_halving", "ring", t);
    assert_true(t[3] < t[1]);
    assert_true(t[2] < t[0]);
}

/* An allreduce of fewer elements than ranks: rabenseifner's rounds exchange only in the
 * groups that hold the vector's first blocks, and those of 8 B on 64 ranks in blocks on 3
 * nodes cross between nodes in 4 of its 12 rounds (priced as if all 12 crossed, at 2.8
 * times the simulator's time). */
static void test_quiet_rounds(void **state)
{
    assert_shape_priced_near(GDC_COLL_ALLREDUCE, 8, 64, 3, 0, 0, 0, "rabenseifner", "allreduce 8 B, 64 ranks on 3 nodes");
}

/* Rings over fewer elements than ranks: only the first blocks travel, each on a way of its
 * own. An allreduce ring of 8 B on 5 ranks in blocks on 2 nodes was priced with one crossing
 * more than either block's way takes (1.30 times the simulator's time); reduce
 * reduce_scatter_gather and bcast scatter_allgather of 8 B on 3 ranks (2 and 1 on 2 nodes)
 * added their slowest ring way to their slowest tree way, which no block takes (1.50 and
 * 1.48); scatter_allgather from root 1 starts the ring at the root only once its scatter
 * send is in (priced without that wait: 0.68). Every block travels in a scatter_allgather
 * of 1 KiB on 3 ranks, each on a way of its own as well while latencies bound the
 * messages (1.47). */
static void test_sparse_rings(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLREDUCE, 8, 5, 2, 0, 0, 0, "ring", "allreduce 8 B, 5 ranks on 2 nodes"},
        {GDC_COLL_REDUCE, 8, 3, 2, 0, 0, 0, "reduce_scatter_gather", "reduce 8 B, 3 ranks on 2 nodes"},
        {GDC_COLL_BCAST, 8, 3, 2, 0, 0, 0, "scatter_allgather", "bcast 8 B, 3 ranks on 2 nodes"},
        {GDC_COLL_BCAST, 8, 3, 2, 0, 0, 1, "scatter_allgather", "bcast 8 B, 3 ranks on 2 nodes, root 1"},
        {GDC_COLL_BCAST, 1024, 3, 2, 0, 0, 0, "scatter_allgather", "bcast 1 KiB, 3 ranks on 2 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* A tree's message off a node waits on its NIC behind the others of its level only as long
 * as they are still there. bcast binomial of 1 MiB on 4 ranks dealt round robin to 2
 * nodes: the root's message to node 1 has long left when rank 2 has the data for its own,
 * and the way that counted it ahead came out at 1.12 times the simulator's time. On
 * dgx-h100, 32 ranks round robin on 2 nodes: the chain of NIC queues, its hops inside
 * nodes without their latencies, reached the NICs too early (0.89 of the time). reduce
 * binomial of 1 MiB on 12 ranks on 8 nodes of dgx-h100: a sibling's message counted ahead
 * of the way's on the root's NIC had come in before it (1.23). */
static void test_tree_queues_in_turn(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BCAST, 1 << 20, 4, 2, 1, 0, 0, "binomial", "bcast 1 MiB, 4 ranks round robin on 2 nodes"},
        {GDC_COLL_BCAST, 1 << 20, 32, 2, 1, 1, 0, "binomial",
         "bcast 1 MiB, 32 ranks round robin on 2 nodes of dgx-h100"},
        {GDC_COLL_REDUCE, 1 << 20, 12, 8, 0, 1, 0, "binomial", "reduce 1 MiB, 12 ranks on 8 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* gather binomial of 1 KiB blocks on 64 ranks dealt round robin to 8 nodes: a level's
 * messages off a node come in from the level before one by one, a latency later than
 * those of the level before them left; the chain of NIC queues that took the latency as
 * one transfer had them meet at the NICs (1.20 times the simulator's time). The same for
 * reduce binomial of 1 KiB, where the chain that takes no time for hops had them meet as
 * well (1.16). */
static void test_tree_levels_apart(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_GATHER, 1024, 64, 8, 1, 0, 0, "binomial", "gather 1 KiB, 64 ranks round robin on 8 nodes"},
        {GDC_COLL_REDUCE, 1024, 64, 8, 1, 0, 0, "binomial", "reduce 1 KiB, 64 ranks round robin on 8 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allreduce rabenseifner of 1 MiB on 5 ranks in blocks on 2 nodes: rank 1 takes in rank
 * 0's vector while rank 2's first message crosses on their node's NIC, and its own goes
 * out after that one, not after the fold and that one (priced so, 1.15 times the
 * simulator's time). */
static void test_fold_beside_queue(void **state)
{
    assert_shape_priced_near(GDC_COLL_ALLREDUCE, 1 << 20, 5, 2, 0, 0, 0, "rabenseifner",
                             "allreduce 1 MiB, 5 ranks on 2 nodes");
}

/* alltoall bruck of 1 KiB blocks on 12 ranks in blocks on 2 nodes: in a round where only
 * some of a node's ranks cross, they send when their own earlier rounds are in, not
 * together; priced as if their messages queued on the NIC together, 1.31 times the
 * simulator's time. */
static void test_bruck_partial_rounds(void **state)
{
    assert_shape_priced_near(GDC_COLL_ALLTOALL, 1024, 12, 2, 0, 0, 0, "bruck", "alltoall 1 KiB, 12 ranks on 2 nodes");
}

/* Bruck's rounds in which every rank of a node crosses: each rank sends once its own
 * previous round is in, and the NIC takes the messages as a queue of lanes whose order
 * holds from round to round, so the last waits behind the others once, in the round of
 * the largest messages (lane_of_queue). Priced behind them in every round, allgather of 1
 * KiB on 12 ranks round robin on 3 nodes came out at 1.22 times the simulator's time and
 * alltoall of 1 KiB blocks on 16 ranks on 4 nodes at 1.28; on 16 ranks on 4 nodes, the
 * first rank of a node has its first two rounds from its own node and is through the NIC
 * before the others come (lanes_ahead): allgather priced without that, 1.10. */
static void test_nic_lanes(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 1024, 12, 3, 1, 0, 0, "bruck", "allgather 1 KiB, 12 ranks round robin on 3 nodes"},
        {GDC_COLL_ALLTOALL, 1024, 16, 4, 0, 0, 0, "bruck", "alltoall 1 KiB, 16 ranks on 4 nodes"},
        {GDC_COLL_ALLGATHER, 1024, 16, 4, 0, 0, 0, "bruck", "allgather 1 KiB, 16 ranks on 4 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* bcast hier_rails of 16 MiB on 3 nodes of dgx-h100, more ranks a node than NICs: a NIC of
 * the root's node carries two or three rails, and each rail's part leaves once the root's
 * scatter reached its owner and the parts before it on that NIC are out; the root's own
 * rail leaves after its scatter. The smallest node's first rank takes two parts, which may
 * both be last on their NICs (smallest_parts_late); left out, 32 ranks rooted at the middle
 * node's sixth rank were priced at 0.78 of the simulator's time, 64 ranks rooted at rank 0
 * at 0.83. */
static void test_rails_behind_on_nics(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BCAST, 16 << 20, 32, 3, 0, 1, 16, "hier_rails", "bcast 16 MiB, 32 ranks on 3 nodes of dgx-h100, root 16"},
        {GDC_COLL_BCAST, 16 << 20, 64, 3, 0, 1, 0, "hier_rails", "bcast 16 MiB, 64 ranks on 3 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* bcast hier_rails of 1 MiB on dgx-h100 where some nodes have fewer ranks than others: a
 * rank of a smaller node takes in several parts and passes each on to every child of its
 * node in the rails' tree, one after another on its NIC, and the nodes below it get their
 * parts that much later (the layout's rails_ways). Left to the rails' other terms, 12 ranks
 * in blocks on 8 nodes rooted at the fourth node came out at 0.81 of the simulator's time,
 * 7 ranks on 4 nodes rooted at the second node at 0.83, 17 ranks round robin on 8 nodes at
 * 0.90. No pipeline streams those parts: with the busiest NIC's stream as well, 16 MiB (one
 * chunk a part) on 100 ranks round robin on 13 nodes came out at 1.14. */
static void test_rails_through_smaller_nodes(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BCAST, 1 << 20, 12, 8, 0, 1, 6, "hier_rails", "bcast 1 MiB, 12 ranks on 8 nodes of dgx-h100, root 6"},
        {GDC_COLL_BCAST, 1 << 20, 7, 4, 0, 1, 3, "hier_rails", "bcast 1 MiB, 7 ranks on 4 nodes of dgx-h100, root 3"},
        {GDC_COLL_BCAST, 1 << 20, 17, 8, 1, 1, 8, "hier_rails",
         "bcast 1 MiB, 17 ranks round robin on 8 nodes of dgx-h100, root 8"},
        {GDC_COLL_BCAST, 16 << 20, 100, 13, 1, 1, 0, "hier_rails",
         "bcast 16 MiB, 100 ranks round robin on 13 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* bcast hier_rails of 8 B (two elements) on 7 ranks on 3 nodes of dgx-h100, rooted at the
 * second node's first rank: the parts that hold the elements are the root's own, so it
 * hands its node's other rank nothing (counted as handing it one, 1.32 times the
 * simulator's time). */
static void test_root_holds_the_elements(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BCAST, 8, 7, 3, 0, 1, 3, "hier_rails", "bcast 8 B, 7 ranks on 3 nodes of dgx-h100, root 3"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allreduce hier_rails on one NIC a node, off a power of two of nodes: a participant's NIC
 * carries each rail's rounds and its fold, a vector a round each way and one for the fold,
 * the first round's sends after the extra's vector is in; priced with both folds on the
 * NIC (gdc_coll_price_group_allreduce_stream), 1 MiB on 3 nodes of 4 ranks came out at 1.26
 * times the simulator's time, on 6 nodes of 16 at 1.23. */
static void test_rails_fold_on_nics(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLREDUCE, 1 << 20, 12, 3, 0, 0, 0, "hier_rails", "allreduce 1 MiB, 12 ranks on 3 nodes"},
        {GDC_COLL_ALLREDUCE, 1 << 20, 96, 6, 0, 0, 0, "hier_rails", "allreduce 1 MiB, 96 ranks on 6 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allgather hier of 8 B on 5 ranks on 4 nodes (2, 1, 1, 1) of dgx-h100: the one-rank
 * nodes' leaders send their first round while rank 0 still gathers rank 1's block, and
 * rank 0 takes each round's message in a step; priced as gather, then rounds, 1.25 times
 * the simulator's time. On 3 ranks on 2 nodes (2, 1): rank 0 copies its own block while
 * rank 1's comes in (leader_gathered); priced one after the other, 1.13. */
static void test_leaders_ahead(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 8, 5, 4, 0, 1, 0, "hier", "allgather 8 B, 5 ranks on 4 nodes of dgx-h100"},
        {GDC_COLL_ALLGATHER, 8, 3, 2, 0, 1, 0, "hier", "allgather 8 B, 3 ranks on 2 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allreduce recursive_doubling of 8 B on 17 ranks of one node of dgx-h100: rank 1 waits
 * for rank 0's vector, and every partner it meets after never waited, so their messages
 * are in before its own land and their receive steps hide; priced with them (a step a
 * microsecond), 1.13 times the simulator's time. */
static void test_partners_ahead(void **state)
{
    assert_shape_priced_near(GDC_COLL_ALLREDUCE, 8, 17, 1, 0, 1, 0, "recursive_doubling",
                             "allreduce 8 B, 17 ranks on 1 node of dgx-h100");
}

/* reduce_scatter recursive_halving with extras: the halves are uneven (the lower ones hold
 * the extras' blocks), and the partners' messages come in on the link of the participant
 * that waited behind the fold's, so its reductions follow one another (halving_waiter).
 * 16 MiB on 5 ranks on one node was priced at 1.11 times the simulator's time, and on 12
 * ranks on 2 nodes of dgx-h100 at 0.89. Each participant that waited has hops of its own:
 * on 12 ranks round robin on 4 nodes the first's partner of the second round is on its
 * node, and on 17 in blocks on 3 nodes its news crosses where its own way does not; each
 * priced on the hops of those whose news cross, 1.14 and 1.11. */
static void test_uneven_halves(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_REDUCE_SCATTER, 16 << 20, 5, 1, 0, 0, 0, "recursive_halving",
         "reduce_scatter 16 MiB, 5 ranks on 1 node"},
        {GDC_COLL_REDUCE_SCATTER, 16 << 20, 12, 2, 0, 1, 0, "recursive_halving",
         "reduce_scatter 16 MiB, 12 ranks on 2 nodes of dgx-h100"},
        {GDC_COLL_REDUCE_SCATTER, 1 << 20, 12, 4, 1, 1, 0, "recursive_halving",
         "reduce_scatter 1 MiB, 12 ranks round robin on 4 nodes of dgx-h100"},
        {GDC_COLL_REDUCE_SCATTER, 8, 17, 3, 0, 1, 0, "recursive_halving",
         "reduce_scatter 8 B, 17 ranks on 3 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* The order messages come in on a parent's link. reduce binomial of 16 MiB on 5 ranks of
 * one node: the root's children 1 and 4 are ready at once and go first on its link, 2 last
 * (it reduces 3's vector first), yet the root reduces 4's data after 2's (the builders'
 * order): two reductions after the link's last message (tree_link_reduces_at); priced with
 * one, 0.89 of the simulator's time. gather binomial of 1 MiB blocks on 7 ranks of one node
 * of dgx-h100: rank 4's three blocks are ready while rank 2's two still go in, and follow
 * them (tree_hop); priced apart, 0.90. */
static void test_link_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_REDUCE, 16 << 20, 5, 1, 0, 0, 0, "binomial", "reduce 16 MiB, 5 ranks on 1 node"},
        {GDC_COLL_GATHER, 1 << 20, 7, 1, 0, 1, 0, "binomial", "gather 1 MiB, 7 ranks on 1 node of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* barrier hier of 17 ranks on 4 nodes of dgx-h100: the largest node's five ranks fan in
 * over a tree of radix 4, whose second level's rank (4) is a leaf and sends at once: one
 * hop in, not two (gdc_coll_price_group_fanin); priced a level a hop, 1.13 times the
 * simulator's time, and the worst choice of the sweep (x1.10 the best). The same for
 * allreduce hier_leader's reduce in the node (1.17). On 50 ranks on 2 nodes, 25 a node,
 * the longest way in is vrank 23's (113 in base 4: three hops), where 24 (120) has two;
 * counted by the last vrank's digits, 0.88. */
static void test_fanin_by_hops(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BARRIER, 8, 17, 4, 0, 1, 0, "hier", "barrier, 17 ranks on 4 nodes of dgx-h100"},
        {GDC_COLL_ALLREDUCE, 8, 17, 4, 0, 1, 0, "hier_leader", "allreduce 8 B, 17 ranks on 4 nodes of dgx-h100"},
        {GDC_COLL_BARRIER, 8, 50, 2, 0, 1, 0, "hier", "barrier, 50 ranks on 2 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* reduce_scatter_gather's ranks whose ring ends on a link inside their node send their
 * blocks to the root while the others finish: reduce 1 MiB on 3 ranks dealt round robin to
 * 2 nodes of dgx-h100, root 1, is priced within 10% of the simulator's time and chosen over
 * the binomial tree, which the simulator has 1.16 times slower. */
static void test_gather_behind_ring(void **state)
{
    double t[4]; /* reduce_scatter_gather's price and time, the binomial tree's */

    price_shape_two(GDC_COLL_REDUCE, 1 << 20, 3, 2, 1, 1, 1, "reduce 1 MiB, 3 ranks round robin on 2 nodes, root 1",
                    "reduce_scatter_gather", "binomial", t);
    assert_true(t[1] < t[3]);
    assert_true(t[0] < t[2]);
}

/* A gather of 1 MiB blocks on 17 ranks in blocks on 2 nodes: the second node's blocks come
 * in to rank 8 and 16 over the NIC, and rank 8 then sends its eight on to the root inside
 * the node; the tree's chain counts that hop (priced at 0.81 of the simulator's time where
 * the chain counted the NIC alone). */
static void test_chain_inside_nodes(void **state)
{
    assert_shape_priced_near(GDC_COLL_GATHER, 1 << 20, 17, 2, 0, 0, 0, "binomial", "gather 1 MiB, 17 ranks on 2 nodes");
}

/* bcast hier_rails, 1 MiB on 5 ranks on 4 nodes of dgx-h100 (2, 1, 1, 1): the nodes of one
 * rank take in both parts, the last one by way of another such node; priced at 0.81 of the
 * simulator's time where the NICs' streams alone bounded them. */
static void test_smallest_node_rails(void **state)
{
    assert_shape_priced_near(GDC_COLL_BCAST, 1 << 20, 5, 4, 0, 1, 0, "hier_rails", "bcast 1 MiB, 5 ranks on 4 nodes");
}

/* A tree's message off a node queues on its sender's NIC behind the node's others at its
 * level on that NIC alone: allreduce knomial of 1 MiB on 12 ranks dealt round robin to 4
 * nodes of dgx-h100, whose ranks 0, 4 and 8 each send three on NICs of their own (spread
 * evenly over the node's NICs, priced at 1.13 times the simulator's time). */
static void test_tree_nics_by_sender(void **state)
{
    assert_shape_priced_near(GDC_COLL_ALLREDUCE, 1 << 20, 12, 4, 1, 1, 0, "knomial",
                             "allreduce 1 MiB, 12 ranks round robin on 4 nodes");
}

/* The simulator's NICs take each message from its own time on: alltoall pairwise of 8 B on
 * 32 ranks on 3 nodes of dgx-h100, where the ranks of a node send a window of messages each
 * on NICs they share. With a NIC's send side as one time it is free from, a message of a
 * rank whose steps the model ran later waited behind a later one of another rank's, and
 * the simulator took 43 us where the price (and now the simulator) says 38. */
static void test_nic_sends_in_time_order(void **state)
{
    gdc_coll_machine_t m;
    gdc_coll_args_t    a = call(GDC_COLL_ALLTOALL, 8, 32, 3, 1, 0);
    double             price, sim;

    on_machine(&m, &a, 3, 0, 1);
    price_and_simulate(&m, "pairwise", &a, &price, &sim);
    print_message("# alltoall 8 B, 32 ranks on 3 nodes of dgx-h100, pairwise: sim %.1f us, price %.1f us\n", sim * 1e6,
                  price * 1e6);
    assert_true(sim < 40e-6);
    assert_true(price > 0.9 * sim && price < 1.1 * sim);
}

/* alltoall hier where a node has one rank, round robin on dgx-h100: that rank is its node's
 * aggregator, whose own copies put the blocks from a node of scattered ranks in place;
 * priced with an unpack after them, 8 B on 3 ranks on 2 nodes and on 4 ranks on 3 nodes
 * came out at 1.13 and 1.12 times the simulator's time. */
static void test_one_rank_node_unpacks_nothing(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLTOALL, 8, 3, 2, 1, 1, 0, "hier", "alltoall 8 B, 3 ranks round robin on 2 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 8, 4, 3, 1, 1, 0, "hier", "alltoall 8 B, 4 ranks round robin on 3 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* alltoall hier with one node of several ranks, dealt round robin, and the others of one
 * rank: those send their blocks to each other first, ready at once, and the largest node's
 * pack after them, once it is packed. Priced in the builder's order, 1 MiB on 5 ranks on 4
 * nodes of dgx-h100 came out at 0.74 of the simulator's time, 64 KiB on 4 ranks on 3 nodes
 * of the default machine at 0.87. */
static void test_one_rank_nodes_send_to_each_other_first(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLTOALL, 1 << 20, 5, 4, 1, 1, 0, "hier", "alltoall 1 MiB, 5 ranks round robin on 4 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 65536, 4, 3, 1, 0, 0, "hier", "alltoall 64 KiB, 4 ranks round robin on 3 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* alltoall hier on 8 nodes of dgx-h100, one of 3 ranks and seven of 2 in blocks: the
 * largest node's busiest aggregator takes in its packs one after another from the first,
 * which leaves first from its sender (with the smallest nodes' first packs ahead of them,
 * 1 MiB came out at 1.21 times the simulator's time). Dealt round robin, a node's busiest
 * NIC takes in one pack from the node of 3 and the others' from nodes of 2 (as packs from
 * nodes of 3, 1.31). */
static void test_largest_node_packs_in_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLTOALL, 1 << 20, 17, 8, 0, 1, 0, "hier", "alltoall 1 MiB, 17 ranks on 8 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 65536, 17, 8, 0, 1, 0, "hier", "alltoall 64 KiB, 17 ranks on 8 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 1 << 20, 17, 8, 1, 1, 0, "hier",
         "alltoall 1 MiB, 17 ranks round robin on 8 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allgather hier's leaders on 3 nodes: a participant that took an extra's share sends it
 * with its own in the first round (priced with its own alone, 64 KiB on 4 and 8 ranks
 * came out at 0.86 and 0.85 of the simulator's time). */
static void test_extras_shares_sent_on(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 65536, 4, 3, 0, 0, 0, "hier", "allgather 64 KiB, 4 ranks on 3 nodes"},
        {GDC_COLL_ALLGATHER, 65536, 8, 3, 1, 0, 0, "hier", "allgather 64 KiB, 8 ranks round robin on 3 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allgather hier_rails on 3 nodes of dgx-h100 off a power of two: the fold's messages go
 * between the first two nodes, whose NICs carry one rail each, not as many as the smallest
 * node's (64 KiB on 5 ranks, 2, 2 and 1, came out at 1.22 times the simulator's time, on 8
 * ranks, 3, 3 and 2, at 1.18). */
static void test_rails_fold_on_their_own_nics(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 65536, 5, 3, 0, 1, 0, "hier_rails", "allgather 64 KiB, 5 ranks on 3 nodes of dgx-h100"},
        {GDC_COLL_ALLGATHER, 65536, 8, 3, 0, 1, 0, "hier_rails", "allgather 64 KiB, 8 ranks on 3 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allreduce rabenseifner of 8 B (two elements) on 7 ranks round robin and on 12 in blocks on
 * 2 nodes: each participant's way through the rounds that carry elements (priced as the
 * slowest hop of every round on the way of one that waited for an extra, 1.90 times the
 * simulator's time); the same where latencies bound the messages, 1 KiB on 12 ranks on 4
 * nodes (1.32). Now walked rank by rank (test_rounds_walked_in_order). */
/* Rounds by bits, by rotation and pairwise on several nodes, walked rank by rank in the
 * order their messages leave (coll/select/price_walk.c), each price held within 2% of the
 * simulator's time. In closed form, round by round, they came out at 0.70 (allgather
 * recursive_doubling of 1 MiB on 16 ranks on 3 nodes of dgx-h100: a later round's message
 * took a partner's NIC before the one that partner still waited for), 1.20 (the same on 12
 * ranks on 4 nodes of the built-in machine: the busiest NIC of each round added up), 0.78,
 * 0.78, 1.23, 1.25 and 0.82 times it; alltoall pairwise's windows of sends (a send waits
 * for the delivery of the one a window before it, the sends that do not wait leave
 * meanwhile) 0.87 and 0.88. */
static void test_rounds_walked_in_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 1 << 20, 16, 3, 0, 1, 0, "recursive_doubling", "allgather 1 MiB, 16 ranks on 3 nodes"},
        {GDC_COLL_ALLGATHER, 1 << 20, 12, 4, 0, 0, 0, "recursive_doubling", "allgather 1 MiB, 12 ranks on 4 nodes"},
        {GDC_COLL_ALLREDUCE, 16 << 20, 4, 3, 0, 1, 0, "rabenseifner", "allreduce 16 MiB, 4 ranks on 3 nodes"},
        {GDC_COLL_ALLREDUCE, 16 << 20, 17, 3, 0, 1, 0, "recursive_doubling", "allreduce 16 MiB, 17 ranks on 3 nodes"},
        {GDC_COLL_REDUCE_SCATTER, 65536, 7, 4, 1, 0, 0, "recursive_halving",
         "reduce_scatter 64 KiB, 7 ranks round robin on 4 nodes"},
        {GDC_COLL_ALLTOALL, 1024, 17, 2, 0, 0, 0, "bruck", "alltoall 1 KiB, 17 ranks on 2 nodes"},
        {GDC_COLL_ALLGATHER, 1 << 20, 32, 2, 1, 0, 0, "bruck", "allgather 1 MiB, 32 ranks round robin on 2 nodes"},
        {GDC_COLL_ALLTOALL, 1024, 12, 8, 1, 0, 0, "pairwise", "alltoall 1 KiB, 12 ranks round robin on 8 nodes"},
        {GDC_COLL_ALLTOALL, 65536, 17, 3, 1, 1, 0, "pairwise", "alltoall 64 KiB, 17 ranks round robin on 3 nodes"},
    };

    SHAPES_WALKED(shapes);
}

/* The binomial trees and the rooted rings over every rank with a tree before or after
 * them, walked the same way: in closed form, 1.13 (bcast binomial of 64 KiB on 8 ranks
 * round robin on 3 nodes), 0.87 (reduce binomial of 1 MiB on 17 ranks round robin on 2
 * nodes of dgx-h100, rooted at rank 8), 0.89, 1.18 and 1.24 times the simulator's time. */
static void test_trees_walked_in_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_BCAST, 65536, 8, 3, 1, 0, 0, "binomial", "bcast 64 KiB, 8 ranks round robin on 3 nodes"},
        {GDC_COLL_REDUCE, 1 << 20, 17, 2, 1, 1, 8, "binomial", "reduce 1 MiB, 17 ranks round robin on 2 nodes, root 8"},
        {GDC_COLL_SCATTER, 1 << 20, 32, 2, 1, 1, 0, "binomial", "scatter 1 MiB, 32 ranks round robin on 2 nodes"},
        {GDC_COLL_BCAST, 65536, 3, 2, 0, 0, 0, "scatter_allgather", "bcast 64 KiB, 3 ranks on 2 nodes"},
        {GDC_COLL_REDUCE, 1024, 4, 3, 1, 0, 2, "reduce_scatter_gather",
         "reduce 1 KiB, 4 ranks round robin on 3 nodes, root 2"},
    };

    SHAPES_WALKED(shapes);
}

/* allreduce hier_leader and hier_rails of 64 KiB on 4 ranks on 3 nodes (2, 1 and 1) and on
 * 7 (3, 2 and 2): the leaders' (rails') recursive doubling over 3 nodes folds the first
 * node, the largest, into the second, whose round partner, the third, is done inside its
 * smaller node first: its message takes the second node's NIC before the fold's vector
 * (priced as if the fold came first: 0.88, 0.85, 0.87 and 0.87 times the simulator's
 * time). */
static void test_fold_behind_partner(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLREDUCE, 65536, 4, 3, 0, 0, 0, "hier_leader", "allreduce 64 KiB, 4 ranks on 3 nodes"},
        {GDC_COLL_ALLREDUCE, 65536, 4, 3, 0, 0, 0, "hier_rails", "allreduce 64 KiB, 4 ranks on 3 nodes"},
        {GDC_COLL_ALLREDUCE, 65536, 7, 3, 0, 0, 0, "hier_leader", "allreduce 64 KiB, 7 ranks on 3 nodes"},
        {GDC_COLL_ALLREDUCE, 65536, 7, 3, 1, 0, 0, "hier_rails", "allreduce 64 KiB, 7 ranks round robin on 3 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* allgather hier_rails walked rank by rank along its rails (its rings inside the nodes in
 * closed form, a node's each): a smaller node's rails start their rounds sooner, and the
 * larger node finds their first messages in (8 B on 5 ranks on 4 nodes of dgx-h100, 2, 1, 1
 * and 1, came out at 1.14 times the simulator's time in closed form); the rails' rings of
 * 1 MiB on 17 ranks on 8 nodes, 3 and 2 a node (1.14); a ring inside a node whose ranks
 * bring parts of different sizes, paced by their mean (64 KiB on 17 ranks on 2 nodes of
 * the built-in machine: 1.17 at the largest's pace); 64 KiB on 12 ranks on 3 nodes (1.13).
 * bcast hier walked chunk by chunk down the leaders and inside the nodes, rooted at a
 * one-rank node (1.15 and 1.11: the closed form served the largest node last, the root's
 * tree serves it first). allreduce hier_rails's rails walked where each node's ranks own
 * as many parts each: on 4 ranks on 3 nodes, 2, 1 and 1, the one-rank nodes' ranks run
 * both rails, the first node's fold in staggered (0.88 in closed form). bcast chain
 * walked chunk by chunk: round robin, a node's NIC carries the chunks of each of its
 * ranks at once (0.88 as one stream). */
static void test_rails_walked_in_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 8, 5, 4, 0, 1, 0, "hier_rails", "allgather 8 B, 5 ranks on 4 nodes"},
        {GDC_COLL_ALLGATHER, 1 << 20, 17, 8, 0, 1, 0, "hier_rails", "allgather 1 MiB, 17 ranks on 8 nodes"},
        {GDC_COLL_ALLGATHER, 65536, 17, 2, 0, 0, 0, "hier_rails", "allgather 64 KiB, 17 ranks on 2 nodes"},
        {GDC_COLL_ALLGATHER, 65536, 12, 3, 1, 0, 0, "hier_rails", "allgather 64 KiB, 12 ranks round robin on 3 nodes"},
        {GDC_COLL_BCAST, 1 << 20, 4, 3, 0, 1, 2, "hier", "bcast 1 MiB, 4 ranks on 3 nodes, root 2"},
        {GDC_COLL_BCAST, 65536, 4, 3, 0, 0, 2, "hier", "bcast 64 KiB, 4 ranks on 3 nodes, root 2"},
        {GDC_COLL_ALLREDUCE, 1 << 20, 4, 3, 0, 0, 0, "hier_rails", "allreduce 1 MiB, 4 ranks on 3 nodes"},
        {GDC_COLL_BCAST, 1 << 20, 5, 2, 1, 0, 0, "chain", "bcast 1 MiB, 5 ranks round robin on 2 nodes"},
    };

    SHAPES_WALKED(shapes);
}

/* allgather hier walked along its leaders (their gathers and broadcasts inside the nodes
 * in closed form, a node's each): a leader of a smaller node starts its rounds sooner
 * (16 MiB on 5 ranks on 3 nodes of dgx-h100, 2, 2 and 1, came out at 0.89 of the
 * simulator's time in closed form, 64 KiB on 5 round robin on 4 nodes at 1.13). */
static void test_leaders_walked_in_order(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLGATHER, 16 << 20, 5, 3, 0, 1, 0, "hier", "allgather 16 MiB, 5 ranks on 3 nodes"},
        {GDC_COLL_ALLGATHER, 65536, 5, 4, 1, 1, 0, "hier", "allgather 64 KiB, 5 ranks round robin on 4 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

static void test_few_elements_ways(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLREDUCE, 1024, 12, 4, 0, 0, 0, "rabenseifner", "allreduce 1 KiB, 12 ranks on 4 nodes"},
        {GDC_COLL_ALLREDUCE, 8, 7, 2, 1, 0, 0, "rabenseifner", "allreduce 8 B, 7 ranks round robin on 2 nodes"},
        {GDC_COLL_ALLREDUCE, 8, 12, 2, 0, 0, 0, "rabenseifner", "allreduce 8 B, 12 ranks on 2 nodes"},
        {GDC_COLL_ALLREDUCE, 8, 17, 4, 1, 0, 0, "rabenseifner", "allreduce 8 B, 17 ranks round robin on 4 nodes"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* alltoall hier's aggregators copy their own blocks into their packs while their node's
 * other ranks' blocks for those packs come in: 8 B on 12 ranks in blocks and on 16 round
 * robin on 8 nodes of dgx-h100, with that latency after the copies, came out at 1.16 and
 * 1.14 times the simulator's time. */
static void test_packs_fill_while_blocks_come(void **state)
{
    static const priced_shape_t shapes[] = {
        {GDC_COLL_ALLTOALL, 8, 12, 8, 0, 1, 0, "hier", "alltoall 8 B, 12 ranks in blocks on 8 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 8, 16, 8, 1, 1, 0, "hier", "alltoall 8 B, 16 ranks round robin on 8 nodes of dgx-h100"},
        {GDC_COLL_ALLTOALL, 65536, 12, 8, 1, 1, 0, "hier", "alltoall 64 KiB, 12 ranks round robin on 8 nodes of dgx-h100"},
    };

    SHAPES_PRICED_NEAR(shapes);
}

/* alltoall pairwise of 64 KiB blocks on 16 ranks on 2 nodes of dgx-h100: each rank sends
 * off its node first, so no rank's NIC is left a burst after its sends inside the node
 * (the last rank of a node sent seven of its blocks off the node last: the simulator took
 * 25.6 us), and the price follows. */
static void test_alltoall_off_node_first(void **state)
{
    gdc_coll_machine_t m;
    gdc_coll_args_t    a = call(GDC_COLL_ALLTOALL, 65536, 16, 2, 1, 0);
    double             sim;

    on_dgx_machine(&m, &a, 2, 0);
    assert_priced_near(&m, &a, "pairwise", "alltoall 64 KiB, 16 ranks on 2 nodes", &sim);
    assert_true(sim < 23e-6);
}

/* A rooted call's layout for a new root makes only the trees its collective's prices read
 * (gdc_coll_tree_kinds_of): every algorithm's price is the same as from the whole layout,
 * and it costs less (printed: the communicator's whole layout against a broadcast root's,
 * on 16,384 ranks). */
/* Ranks that outnumber their node's cores get a share of one each: the host rates (and the
 * shared-memory link) at cores / ranks in the simulator and in the prices alike, so a call
 * made of copies takes about ranks / cores as long; not where the cores suffice, nor on
 * several nodes, nor for the device's copies. */
static void test_shared_cores_slow_host_copies(void **state)
{
    gdc_coll_machine_t m;
    gdc_coll_args_t    a;
    double             spare, shared, sim_spare, sim_shared;
    gdc_coll_prediction_t p;
    gdc_coll_host_rates_t rates;
    const gdc_coll_algo_t *shm = gdc_coll_algo_find(GDC_COLL_ALLTOALL, "shm");

    (void)state;
    assert_non_null(shm);
    gdc_coll_machine_default(&m);
    layout(4, 1, 0);
    a = call(GDC_COLL_ALLTOALL, 1 << 20, 4, 1, 0, 0);
    assert_true(gdc_coll_machine_core_share(&m, &a) == 1); /* cores unknown */
    m.cores_per_node = 4;
    assert_true(gdc_coll_machine_core_share(&m, &a) == 1);
    assert_int_equal(gdc_coll_price(&m, shm, &a, NULL, &spare), GDC_SUCCESS);
    assert_int_equal(gdc_coll_predict(&m, shm, &a, 0, &p), GDC_SUCCESS);
    sim_spare        = p.seconds;
    rates            = gdc_coll_machine_host_rates(&m, &a);
    m.cores_per_node = 2;
    assert_true(gdc_coll_machine_core_share(&m, &a) == 2);
    assert_true(gdc_coll_machine_host_rates(&m, &a).copy == rates.copy / 2);
    assert_true(gdc_coll_machine_host_rates(&m, &a).cma == rates.cma / 2);
    assert_true(gdc_coll_machine_host_rates(&m, &a).shm == rates.shm / 2);
    assert_int_equal(gdc_coll_price(&m, shm, &a, NULL, &shared), GDC_SUCCESS);
    assert_int_equal(gdc_coll_predict(&m, shm, &a, 0, &p), GDC_SUCCESS);
    sim_shared = p.seconds;
    print_message("# alltoall shm of 1 MiB on 4 ranks: %.1f us on 4 cores, %.1f on 2 (simulator %.1f, %.1f)\n",
                  spare * 1e6, shared * 1e6, sim_spare * 1e6, sim_shared * 1e6);
    assert_true(shared > 1.8 * spare && shared < 2.5 * spare);
    assert_true(sim_shared > 1.8 * sim_spare && sim_shared < 2.5 * sim_spare);
    layout(4, 2, 0);
    a = call(GDC_COLL_ALLTOALL, 1 << 20, 4, 2, 0, 0);
    assert_true(gdc_coll_machine_core_share(&m, &a) == 1); /* two nodes: each node's share unknown to the others */
}

static void test_rooted_layouts_price_alike(void **state)
{
    static const gdc_coll_type_t rooted[] = {GDC_COLL_BCAST, GDC_COLL_REDUCE, GDC_COLL_GATHER, GDC_COLL_SCATTER};
    static const size_t          bytes[]  = {8, 65536, 1 << 20};
    gdc_coll_machine_t           m;
    int                          compared = 0, n = 16384, *nodes_of = malloc((size_t)n * sizeof(int));
    gdc_coll_layout_t            whole, own;
    double                       t, t_whole, t_own;

    gdc_coll_machine_default(&m);
    layout(17, 4, 1);
    for (size_t c = 0; c < sizeof(rooted) / sizeof(rooted[0]); c++) {
        for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); b++) {
            gdc_coll_args_t a = call(rooted[c], bytes[b], 17, 4, 0, 5);

            gdc_coll_machine_chunks(&m, &a);
            gdc_coll_layout_of(&a, &whole);
            own = whole;
            gdc_coll_layout_root_kinds(&a, &own, gdc_coll_tree_kinds_of(rooted[c]));
            assert_int_equal(whole.root, 5);
            assert_true(own.tree_kinds != whole.tree_kinds);
            for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
                const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
                double                 from_whole, from_own;

                if (algo->coll != rooted[c] || (algo->supports != NULL && !algo->supports(&a)) ||
                    gdc_coll_price(&m, algo, &a, &whole, &from_whole) != GDC_SUCCESS) {
                    continue;
                }
                assert_int_equal(gdc_coll_price(&m, algo, &a, &own, &from_own), GDC_SUCCESS);
                assert_true(from_own == from_whole);
                compared++;
            }
        }
    }
    assert_true(compared >= 20);
    assert_non_null(nodes_of);
    for (int r = 0; r < n; r++) {
        nodes_of[r] = r / 8;
    }
    {
        gdc_coll_args_t a = call(GDC_COLL_BCAST, 65536, n, n / 8, 1, 0);

        a.node_of = nodes_of;
        gdc_coll_machine_chunks(&m, &a);
        t = gdc_wtime();
        gdc_coll_layout_of(&a, &whole);
        t_whole = gdc_wtime() - t;
        a.root = n / 2 + 3;
        own    = whole;
        t      = gdc_wtime();
        gdc_coll_layout_root_kinds(&a, &own, gdc_coll_tree_kinds_of(GDC_COLL_BCAST));
        t_own = gdc_wtime() - t;
    }
    print_message("# %d prices alike; 16384 ranks: the whole layout in %.1f us, a broadcast root's in %.1f us\n",
                  compared, t_whole * 1e6, t_own * 1e6);
    free(nodes_of);
}

/* What one choice costs at scale, the communicator's layout made once as at its creation:
 * every collective at five sizes, priced on dgx-h100 on 1,024 and 16,384 ranks. The
 * figures are printed; what is held is that the choice is the same each time (every rank
 * must make the same), and that a choice on 16 times the ranks costs less than 4 times as
 * much (a loop over the ranks in a price or a supports function makes it about 16; the
 * least of several passes, both in this run, so that a shared machine's noise stays out). */
#define COST_PASSES 5

static double choices_cost(const gdc_coll_machine_t *m, int n, double *made)
{
    static const size_t bytes[] = {8, 65536, 1 << 20, 16 << 20, (size_t)1 << 30};
    int                *nodes_of = malloc((size_t)n * sizeof(int));
    gdc_coll_layout_t   lay;
    double              t, least = 0;

    assert_non_null(nodes_of);
    for (int r = 0; r < n; r++) {
        nodes_of[r] = r / 8;
    }
    for (int pass = 0; pass < COST_PASSES; pass++) {
        double seconds = 0;

        *made = 0;
        for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
            for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
                gdc_coll_args_t        a = call((gdc_coll_type_t)c, bytes[bi] / (c == GDC_COLL_ALLTOALL ||
                                                                          c == GDC_COLL_ALLGATHER ? 64 : 1),
                                                n, n / 8, 1, 0);
                const gdc_coll_algo_t *first;

                if (c == GDC_COLL_ALLTOALLV) {
                    continue;
                }
                a.node_of = nodes_of;
                gdc_coll_machine_chunks(m, &a);
                if (c == 0 && bi == 0 && pass == 0) {
                    t = gdc_wtime();
                    gdc_coll_layout_of(&a, &lay);
                    print_message("# %d ranks: the communicator's layout in %.1f us\n", n, (gdc_wtime() - t) * 1e6);
                }
                a.layout = &lay;
                first    = gdc_coll_select(&a);
                assert_non_null(first);
                t = gdc_wtime();
                for (int i = 0; i < 100; i++) {
                    assert_ptr_equal(gdc_coll_select(&a), first);
                }
                seconds += gdc_wtime() - t;
                *made += 100;
            }
        }
        least = pass == 0 || seconds < least ? seconds : least;
    }
    free(nodes_of);
    return least / *made;
}

/* GDC_DEVICE_FUSED's schedules of the ipc_leader reductions (one kernel over every rank's
 * buffers) priced within 10% of the simulator, on every shape the leader takes. */
static void test_fused_leader_prices(void **state)
{
    static const gdc_coll_type_t colls[] = {GDC_COLL_ALLREDUCE, GDC_COLL_REDUCE_SCATTER};
    static const int             sizes[] = {2, 3, 4, 5, 7, 8, 12, 16};
    static const size_t          bytes[] = {8, 1024, 65536, 1 << 20, 16 << 20};
    gdc_coll_machine_t           m;
    int                          cases = 0;

    (void)state;
    assert_int_equal(gdc_coll_machine_load(&m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
    live_like.device_fused = 1;
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
        const gdc_coll_algo_t *algo = gdc_coll_algo_find(colls[c], "ipc_leader");

        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            for (size_t bi = 0; bi < sizeof(bytes) / sizeof(bytes[0]); bi++) {
                gdc_coll_args_t       a = call(colls[c], bytes[bi], sizes[si], 1, 1, 0);
                gdc_coll_prediction_t sim;
                double                price;

                gdc_coll_machine_chunks(&m, &a);
                layout(sizes[si], 1, 0);
                assert_true(algo->supports(&a));
                assert_int_equal(gdc_coll_price(&m, algo, &a, NULL, &price), GDC_SUCCESS);
                assert_int_equal(gdc_coll_predict(&m, algo, &a, 1, &sim), GDC_SUCCESS);
                if (price < 0.9 * sim.seconds || price > 1.1 * sim.seconds) {
                    fail_msg("%s ipc_leader fused, %zu B on %d ranks: price %.2f us, simulator %.2f us",
                             gdc_coll_type_name(colls[c]), bytes[bi], sizes[si], price * 1e6, sim.seconds * 1e6);
                }
                cases++;
            }
        }
    }
    live_like.device_fused = 0;
    print_message("# ipc_leader fused: %d prices within 10%% of the simulator\n", cases);
}

static void test_pricing_cost(void **state)
{
    gdc_coll_machine_t       m;
    gdc_coll_select_config_t sel;
    double                   made, walked, small, large;

    memset(&sel, 0, sizeof(sel));
    assert_int_equal(gdc_coll_select_init(&sel), GDC_SUCCESS);
    assert_int_equal(gdc_coll_machine_load(&m, GDC_SRCDIR "/share/profiles/dgx-h100.prof"), GDC_SUCCESS);
    gdc_coll_machine = m;
    walked = choices_cost(&m, 64, &made);
    print_message("# 64 ranks on 8 nodes (rounds walked rank by rank): %.0f choices, %.2f us each\n", made,
                  walked * 1e6);
    small = choices_cost(&m, 1024, &made);
    print_message("# 1024 ranks on 128 nodes: %.0f choices, %.2f us each\n", made, small * 1e6);
    large = choices_cost(&m, 16384, &made);
    print_message("# 16384 ranks on 2048 nodes: %.0f choices, %.2f us each (x%.2f)\n", made, large * 1e6,
                  large / small);
    assert_true(large < 4 * small);
    gdc_coll_machine_default(&gdc_coll_machine);
    gdc_coll_select_finalize();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prices_follow_the_simulator),
        cmocka_unit_test(test_choices_past_the_sweep),
        cmocka_unit_test(test_fused_leader_prices),
        cmocka_unit_test(test_nic_chains),
        cmocka_unit_test(test_staggered_rounds),
        cmocka_unit_test(test_quiet_rounds),
        cmocka_unit_test(test_sparse_rings),
        cmocka_unit_test(test_tree_queues_in_turn),
        cmocka_unit_test(test_tree_levels_apart),
        cmocka_unit_test(test_fold_beside_queue),
        cmocka_unit_test(test_partners_ahead),
        cmocka_unit_test(test_uneven_halves),
        cmocka_unit_test(test_link_order),
        cmocka_unit_test(test_fanin_by_hops),
        cmocka_unit_test(test_bruck_partial_rounds),
        cmocka_unit_test(test_nic_lanes),
        cmocka_unit_test(test_rails_behind_on_nics),
        cmocka_unit_test(test_rails_through_smaller_nodes),
        cmocka_unit_test(test_root_holds_the_elements),
        cmocka_unit_test(test_rails_fold_on_nics),
        cmocka_unit_test(test_leaders_ahead),
        cmocka_unit_test(test_gather_behind_ring),
        cmocka_unit_test(test_chain_inside_nodes),
        cmocka_unit_test(test_smallest_node_rails),
        cmocka_unit_test(test_tree_nics_by_sender),
        cmocka_unit_test(test_alltoall_off_node_first),
        cmocka_unit_test(test_one_rank_node_unpacks_nothing),
        cmocka_unit_test(test_packs_fill_while_blocks_come),
        cmocka_unit_test(test_one_rank_nodes_send_to_each_other_first),
        cmocka_unit_test(test_largest_node_packs_in_order),
        cmocka_unit_test(test_extras_shares_sent_on),
        cmocka_unit_test(test_rails_fold_on_their_own_nics),
        cmocka_unit_test(test_few_elements_ways),
        cmocka_unit_test(test_rounds_walked_in_order),
        cmocka_unit_test(test_trees_walked_in_order),
        cmocka_unit_test(test_fold_behind_partner),
        cmocka_unit_test(test_rails_walked_in_order),
        cmocka_unit_test(test_leaders_walked_in_order),
        cmocka_unit_test(test_nic_sends_in_time_order),
        cmocka_unit_test(test_rooted_layouts_price_alike),
        cmocka_unit_test(test_shared_cores_slow_host_copies),
        cmocka_unit_test(test_pricing_cost),
    };

    verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    live_like             = gdc_coll_config_defaults;
    live_like.chunk_bytes = 0;
    setenv("GDC_LOG", "error", 0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
