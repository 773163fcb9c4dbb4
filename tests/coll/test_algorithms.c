/*
 * Every algorithm of every collective, in the simulator: communicator sizes 1..17, 31, 32,
 * 33, 64; counts 0, 1, size-1, size+1 and 3000; in place and not; several roots; ranks
 * started and progressed in order and shuffled; large pipeline chunks and tiny ones (many
 * chunks per block). Integer sums are checked exactly; then a sweep over datatypes and ops
 * (floats against a double reference with a stated tolerance) on fewer shapes.
 * GDC_TEST_REDUCED=1 (the sanitizer build, tests/sanitize/run.sh, where all this runs several
 * times slower): the same sweeps of every algorithm over fewer communicator sizes and shapes,
 * and shorter sequences.
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
#include "phase/shm.h"
#include "select/table.h"
#include "sim.h"

static const int all_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 33, 64};
/* powers of two, their neighbours, and one size past 32 */
static const int reduced_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 33};
static const int *sizes     = all_sizes;
static int        num_sizes = (int)(sizeof(all_sizes) / sizeof(all_sizes[0]));
static int        reduced; /* GDC_TEST_REDUCED */

static int is_rooted(gdc_coll_type_t coll)
{
    return coll == GDC_COLL_BCAST || coll == GDC_COLL_REDUCE || coll == GDC_COLL_GATHER || coll == GDC_COLL_SCATTER;
}

static int has_in_place(gdc_coll_type_t coll)
{
    return coll != GDC_COLL_BCAST && coll != GDC_COLL_BARRIER;
}

static unsigned long runs, not_applicable;

/* The algorithms' parameters of every case; sweeps change them (small chunks make the
 * pipelines' hard cases). */
static gdc_coll_config_t cfg;

/* Runs in which each algorithm really ran (not "not applicable"): every one must reach a
 * minimum, so that a `supports` that wrongly says no cannot pass for coverage. */
static unsigned long ran[GDC_COLL_ALGO_COUNT];

static void run_case(const sim_case_t *c)
{
    char why[512];
    int  result = sim_run(c, why, sizeof(why));

    runs++;
    not_applicable += result == 1;
    ran[c->algo->id] += result == 0;
    if (result < 0) {
        fail_msg("%s %s: size %d count %zu dtype %d op %d root %d %s seed %u chunk %zu: %s",
                 gdc_coll_type_name(c->algo->coll), c->algo->name, c->size, c->count, (int)c->dtype, (int)c->op,
                 c->root, c->in_place ? "in place" : "out of place", c->seed, cfg.chunk_bytes, why);
    }
}

/* The exhaustive sweep of one algorithm with int32 sums (bcast/gather/...: int32 data). */
static void sweep_algorithm(const gdc_coll_algo_t *algo)
{
    for (int si = 0; si < num_sizes; si++) {
        int    n        = sizes[si];
        size_t counts[] = {0, 1, (size_t)n - 1, (size_t)n + 1, 3000};
        int    roots[]  = {0, n - 1, n / 2};
        int    nroots   = is_rooted(algo->coll) ? 3 : 1;

        for (int ci = 0; ci < 5; ci++) {
            /* 3000 elements per peer on 64 ranks is a lot of simulated traffic for little news */
            if (ci == 4 && n > 33 && (algo->coll == GDC_COLL_ALLTOALL || algo->coll == GDC_COLL_ALLTOALLV)) {
                continue;
            }
            for (int ri = 0; ri < nroots; ri++) {
                for (int in_place = 0; in_place <= has_in_place(algo->coll); in_place++) {
                    for (unsigned seed = 0; seed < 2; seed++) {
                        /* seed 1: on 2 cores of 2 MiB of cache each, where the algorithm has a
                         * protocol for oversubscribed nodes or for calls that fit the cache */
                        sim_case_t c = {algo, n, counts[ci], GDC_INT32, GDC_SUM, roots[ri], in_place, seed, 1, 0, &cfg, 0, 0,
                                        seed == 1 ? 2 : 0, seed == 1 ? (size_t)2 << 20 : 0};
                        run_case(&c);
                    }
                }
            }
        }
    }
}

static void sweep_dtypes(const gdc_coll_algo_t *algo)
{
    static const struct {
        gdc_dtype_t dtype;
        gdc_op_t    op;
    } reductions[] = {
        {GDC_FLOAT32, GDC_SUM}, {GDC_FLOAT64, GDC_SUM}, {GDC_FLOAT16, GDC_SUM}, {GDC_BFLOAT16, GDC_SUM},
        {GDC_INT64, GDC_MAX},   {GDC_INT16, GDC_MIN},   {GDC_UINT8, GDC_BXOR},  {GDC_UINT32, GDC_BOR},
        {GDC_UINT64, GDC_BAND}, {GDC_INT32, GDC_AVG},   {GDC_FLOAT32, GDC_AVG}, {GDC_INT8, GDC_PROD},
        {GDC_FLOAT64, GDC_MIN}, {GDC_UINT16, GDC_SUM},
    };
    static const gdc_dtype_t movers[] = {GDC_BYTE, GDC_FLOAT64, GDC_INT8, GDC_FLOAT16};
    static const int         shapes[] = {2, 3, 5, 8, 13, 16};
    int                      num_shapes = reduced ? 4 : (int)(sizeof(shapes) / sizeof(shapes[0]));
    int                      num = sim_reduces(algo->coll) ? (int)(sizeof(reductions) / sizeof(reductions[0]))
                                                       : (int)(sizeof(movers) / sizeof(movers[0]));

    for (int t = 0; t < num; t++) {
        for (int si = 0; si < num_shapes; si++) {
            int    n        = shapes[si];
            size_t counts[] = {1, (size_t)n + 1, 1000};
            for (int ci = 0; ci < 3; ci++) {
                for (int in_place = 0; in_place <= has_in_place(algo->coll); in_place++) {
                    sim_case_t c = {algo, n, counts[ci], GDC_INT32, GDC_SUM, n > 2 ? 1 : 0, in_place, 3, 1, 0, &cfg, 0, 0, 0, 0};
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
}

/* An earlier algorithm of the table has the same builder (the ipc twins of the cma
 * algorithms): the same schedules, which differ only in how the executor reaches a peer's
 * buffer. The reduced sweep leaves them out; the full one covers both ways. */
static int builder_swept_before(int index)
{
    for (int i = 0; i < index; i++) {
        if (gdc_coll_algos[i].coll == gdc_coll_algos[index].coll && gdc_coll_algos[i].build == gdc_coll_algos[index].build) {
            return 1;
        }
    }
    return 0;
}

static void sweep_collective(gdc_coll_type_t coll)
{
    int found = 0;

    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        if (algo->coll != coll) {
            continue;
        }
        found++;
        if (reduced && builder_swept_before(i)) {
            print_message("# GDC_TEST_REDUCED: %s %s left out (its builder was swept as another algorithm)\n",
                          gdc_coll_type_name(coll), algo->name);
            continue;
        }
        cfg.chunk_bytes = 256 * 1024;
        sweep_algorithm(algo);
        cfg.chunk_bytes     = 96; /* many chunks per block: the pipelines' hard cases */
        cfg.shm_chunk_bytes = 96;
        cfg.stream_bytes    = 0; /* every copy into the output with non-temporal stores */
        sweep_algorithm(algo);
        cfg = gdc_coll_config_defaults;
        sweep_dtypes(algo);
        if ((algo->flags & GDC_COLL_ALGO_FLAG_ONE_GPU) && sim_reduces(coll)) { /* GDC_DEVICE_FUSED's schedules */
            cfg.device_fused = 1;
            sweep_algorithm(algo);
            if (!reduced) {
                sweep_dtypes(algo);
            }
            cfg = gdc_coll_config_defaults;
        }
    }
    assert_true(found > 0);
}

#define COLL_TEST(name, coll)                                                                 \
    static void test_##name(void **state)                                                     \
    {                                                                                         \
        sweep_collective(coll);                                                               \
    }
COLL_TEST(allreduce, GDC_COLL_ALLREDUCE)
COLL_TEST(bcast, GDC_COLL_BCAST)
COLL_TEST(reduce, GDC_COLL_REDUCE)
COLL_TEST(allgather, GDC_COLL_ALLGATHER)
COLL_TEST(reduce_scatter, GDC_COLL_REDUCE_SCATTER)
COLL_TEST(alltoall, GDC_COLL_ALLTOALL)
COLL_TEST(alltoallv, GDC_COLL_ALLTOALLV)
COLL_TEST(barrier, GDC_COLL_BARRIER)
COLL_TEST(gather, GDC_COLL_GATHER)
COLL_TEST(scatter, GDC_COLL_SCATTER)

/* In place at random, where the algorithm has it (alltoall cma has not: the others would
 * read a buffer its owner overwrites). */
static int in_place_if_any(gdc_coll_type_t coll, const char *name, unsigned long pick)
{
    return (int)((pick >> 16) & 1) && !(coll == GDC_COLL_ALLTOALL && strcmp(name, "cma") == 0);
}

/* Calls one after another on one communicator, shared memory carried over, each rank
 * moving on as soon as it is done: what one call leaves in a segment must not confuse the
 * next, whichever algorithms they are. */
static void test_shm_sequences(void **state)
{
    static const struct {
        gdc_coll_type_t coll;
        const char     *name;
        gdc_dtype_t     dtype;
        gdc_op_t        op;
    } menu[] = {
        {GDC_COLL_ALLREDUCE, "shm", GDC_INT32, GDC_SUM},        {GDC_COLL_ALLREDUCE, "shm_direct", GDC_INT64, GDC_MAX},
        {GDC_COLL_BCAST, "shm", GDC_INT32, GDC_SUM},            {GDC_COLL_ALLGATHER, "shm", GDC_INT16, GDC_SUM},
        {GDC_COLL_ALLTOALL, "shm", GDC_INT32, GDC_SUM},         {GDC_COLL_BARRIER, "shm", GDC_BYTE, GDC_SUM},
        {GDC_COLL_ALLREDUCE, "ring", GDC_FLOAT32, GDC_SUM},     {GDC_COLL_ALLREDUCE, "shm", GDC_FLOAT64, GDC_AVG},
        {GDC_COLL_REDUCE_SCATTER, "shm_direct", GDC_INT32, GDC_SUM},
        {GDC_COLL_GATHER, "shm", GDC_INT32, GDC_SUM},           {GDC_COLL_SCATTER, "shm", GDC_INT16, GDC_SUM},
        {GDC_COLL_SCATTER, "cma", GDC_INT32, GDC_SUM},          {GDC_COLL_GATHER, "cma", GDC_INT16, GDC_SUM},
        {GDC_COLL_BCAST, "cma", GDC_INT32, GDC_SUM},            {GDC_COLL_ALLTOALL, "cma", GDC_INT32, GDC_SUM},
        {GDC_COLL_ALLGATHER, "cma", GDC_INT64, GDC_SUM},       {GDC_COLL_ALLREDUCE, "cma", GDC_FLOAT64, GDC_AVG},
        {GDC_COLL_REDUCE_SCATTER, "cma", GDC_FLOAT32, GDC_AVG},
    };
    static const int sizes_seq[] = {2, 3, 4, 5, 8};
    /* allreduce shm's calls of one chunk: in the data area, in their ring slots, or as
     * their ranks and size have it (gdc_coll_shm_allreduce_in_ring) */
    static const size_t ring_cache[] = {0, 256 << 10, 32 << 10};
    enum { CALLS = 12 };
    char     why[512];
    unsigned pick = 12345;

    cfg.shm_chunk_bytes = 200; /* many chunks: both slots of every segment in use */
    for (int si = 0; si < (int)(sizeof(sizes_seq) / sizeof(sizes_seq[0])); si++) {
        for (unsigned seed = 0; seed < (reduced ? 10u : 40u); seed++) {
            sim_case_t calls[CALLS];
            int        n = sizes_seq[si];
            for (int i = 0; i < CALLS; i++) {
                int m;
                pick = pick * 1103515245u + 12345u;
                m    = (int)((pick >> 8) % (sizeof(menu) / sizeof(menu[0])));
                calls[i] = (sim_case_t){gdc_coll_algo_find(menu[m].coll, menu[m].name), n,
                                        (size_t)(1 + (pick >> 4) % 700), menu[m].dtype, menu[m].op,
                                        (int)((pick >> 12) % (unsigned)n), in_place_if_any(menu[m].coll, menu[m].name, pick),
                                        seed, 1, 0, &cfg, 0, seed % 4 == 3 ? 1u << (seed % (unsigned)n) : 0,
                                        (int)(seed % 3), ring_cache[seed % 3]};
                assert_non_null(calls[i].algo);
            }
            runs++;
            if (sim_run_calls(calls, CALLS, why, sizeof(why)) < 0) {
                fail_msg("sequence of %d calls on %d ranks, seed %u: %s", CALLS, n, seed, why);
            }
        }
    }
    cfg.shm_chunk_bytes = 256 * 1024;
}

/* The fewest int32 a block of a call too large for a ring slot has: what a rank of the call
 * publishes is its n blocks or one (gdc_coll_shm_published_bytes). */
static size_t past_ring(gdc_coll_type_t coll, int n)
{
    gdc_coll_args_t one_byte = {.coll = coll, .size = n, .count = 1, .dsize = 1};
    size_t          blocks   = gdc_coll_shm_published_bytes(&one_byte);

    return (GDC_RT_SHM_RING_SLOT_BYTES / 4 + 52) / blocks + 52;
}

/* Every algorithm with a blocking fast path: its fast-path ranks (each in a thread of its
 * own, as a process) against ranks that run its schedule, in every mix. Sequences put it
 * between other shared-memory algorithms and give it calls too large for its fast path (a
 * thread's rank then runs the schedule), so that counter values carry over from either side
 * to the other. */
static void test_fast_paths(void **state)
{
    static const unsigned masks[]   = {~0u, 1u, ~1u, 0x55555555u, 0xaaaaaaaau};
    static const int      shapes[]  = {2, 3, 4, 5, 8};
    /* 300 int32 are more than one chunk (256 bytes; 1 KiB in the reduced run, where the calls
     * past a ring slot build a quarter of the steps) but fit a ring slot, as 5000 do, which a
     * fast bcast publishes in 4 pieces; the last (0) do not */
    static const size_t   counts[]  = {1, 7, 60, 300, 5000, 0};
    static const struct {
        gdc_coll_type_t coll;
        const char     *name;
    } others[] = {{GDC_COLL_ALLREDUCE, "shm"}, {GDC_COLL_BCAST, "shm"}, {GDC_COLL_ALLGATHER, "shm"},
                  {GDC_COLL_ALLTOALL, "shm"}, {GDC_COLL_BARRIER, "shm"}, {GDC_COLL_ALLREDUCE, "shm_direct"},
                  {GDC_COLL_REDUCE_SCATTER, "shm_direct"}, {GDC_COLL_GATHER, "shm"}, {GDC_COLL_SCATTER, "shm"},
                  {GDC_COLL_SCATTER, "cma"}, {GDC_COLL_GATHER, "cma"}, {GDC_COLL_BCAST, "cma"},
                  {GDC_COLL_ALLTOALL, "cma"}, {GDC_COLL_ALLGATHER, "cma"}, {GDC_COLL_ALLREDUCE, "cma"},
                  {GDC_COLL_REDUCE_SCATTER, "cma"}};
    enum { CALLS = 3 * GDC_RT_SHM_RING_SLOTS }; /* the rings wrap round, twice */
    unsigned long fast_before = sim_total_fast_runs, pick = 777;
    int           with_hook   = 0;
    char          why[512];

    cfg.shm_chunk_bytes = reduced ? 1024 : 256;
    for (int a = 0; a < GDC_COLL_ALGO_COUNT; a++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[a];
        if (algo->run_blocking == NULL) {
            continue;
        }
        with_hook++;
        assert_true(algo->flags & GDC_COLL_ALGO_FLAG_SHM);
        for (int si = 0; si < (int)(sizeof(shapes) / sizeof(shapes[0])); si++) {
            for (int mi = 0; mi < (int)(sizeof(masks) / sizeof(masks[0])); mi++) {
                sim_case_t calls[CALLS];
                int        n = shapes[si];
                for (int i = 0; i < CALLS; i++) {
                    const gdc_coll_algo_t *at = algo;
                    size_t                 count;
                    pick = pick * 1103515245u + 12345u;
                    if (i % 2 == 1) {
                        size_t o = (pick >> 8) % (sizeof(others) / sizeof(others[0]));
                        at       = gdc_coll_algo_find(others[o].coll, others[o].name);
                    }
                    count = counts[(i / 2 + (size_t)mi) % (sizeof(counts) / sizeof(counts[0]))];
                    count = count > 0 ? count : past_ring(at->coll, n);
                    calls[i] = (sim_case_t){at, n, count, GDC_INT32, GDC_SUM,
                                            (int)((pick >> 12) % (unsigned)n), in_place_if_any(at->coll, at->name, pick),
                                            (unsigned)mi, 1, 0, &cfg, masks[mi], 0, (int)((pick >> 20) % 3), 0};
                }
                runs++;
                if (sim_run_calls(calls, CALLS, why, sizeof(why)) != 0) {
                    fail_msg("%s(%s) with fast ranks %#x of %d: %s", gdc_coll_type_name(algo->coll), algo->name,
                             masks[mi], n, why[0] != '\0' ? why : "not applicable");
                }
            }
        }
    }
    cfg = gdc_coll_config_defaults;
    assert_int_equal(with_hook, 8); /* allreduce, reduce_scatter shm_direct; barrier, bcast, allgather,
                                       alltoall, gather, scatter shm */
    print_message("# fast paths: %lu calls ran on them, mixed with schedule ranks\n",
                  sim_total_fast_runs - fast_before);
    assert_true(sim_total_fast_runs - fast_before >= 500);
}

/* allreduce shm in its ring slot, the call after bcasts whose root ran a ring ahead of its
 * readers: the root must not write its parts where a reader has yet to read a bcast's. */
static void allreduce_after_a_writer_ran_ahead(void)
{
    enum { CALLS = 3 * GDC_RT_SHM_RING_SLOTS };
    const gdc_coll_algo_t *bcast = gdc_coll_algo_find(GDC_COLL_BCAST, "shm");
    const gdc_coll_algo_t *shm   = gdc_coll_algo_find(GDC_COLL_ALLREDUCE, "shm");
    sim_case_t             calls[CALLS];
    char                   why[512];

    for (int n = 2; n <= 4; n++) {
        for (int i = 0; i < CALLS; i++) {
            int reduce = i % GDC_RT_SHM_RING_SLOTS == GDC_RT_SHM_RING_SLOTS - 1;
            calls[i]   = (sim_case_t){reduce ? shm : bcast, n, 33, GDC_INT32, GDC_SUM, 0, 0, (unsigned)i, 1, 0, &cfg, 0,
                                      ~1u, 0, (size_t)2 << 20};
        }
        assert_true(gdc_coll_shm_allreduce_in_ring(&(gdc_coll_args_t){.coll = GDC_COLL_ALLREDUCE, .size = n,
                                                                       .count = 33, .dsize = 4, .config = &cfg,
                                                                       .shm_bytes = SIM_SHM_BYTES,
                                                                       .core_cache = (size_t)2 << 20}));
        runs++;
        if (sim_run_calls(calls, CALLS, why, sizeof(why)) != 0) {
            fail_msg("bcast(shm) and allreduce(shm), %d calls on %d ranks: %s", CALLS, n, why);
        }
    }
}

/* A writer that runs ahead: many calls in a row, where rank 0 publishes (the root) or is the
 * one not held back, waiting for its readers only a ring of slots back; its readers (threads,
 * or schedule ranks the simulator steps in turn) pause before each call, so fall behind as
 * far as it lets them, and must still read each call's own data (a writer that waited less
 * would overwrite it). Calls of one ring slot, and of several chunks a slot each (phase/shm.h:
 * the ring's slots are reused within a call); on one core, so that alltoall and scatter take
 * the ring too. */
static void test_ring_runs_ahead(void **state)
{
    static const unsigned  masks[]  = {1u, ~1u, ~0u};
    /* the last two fill a ring slot, and go past it: 9 chunks of GDC_SHM_CHUNK 32K */
    static const size_t    counts[] = {1, 33, GDC_RT_SHM_RING_SLOT_BYTES / 4, GDC_RT_SHM_RING_SLOT_BYTES / 4 + 5};
    static const gdc_coll_type_t colls[] = {GDC_COLL_BCAST, GDC_COLL_ALLGATHER, GDC_COLL_GATHER, GDC_COLL_SCATTER,
                                            GDC_COLL_ALLTOALL};
    enum { CALLS = 5 * GDC_RT_SHM_RING_SLOTS };
    int  ncalls = reduced ? 2 * GDC_RT_SHM_RING_SLOTS + 1 : CALLS; /* round the ring twice at least */
    char why[512];

    cfg.shm_chunk_bytes = 32 * 1024; /* a call of several chunks wraps the ring */
    for (size_t k = 0; k < sizeof(colls) / sizeof(colls[0]); k++) {
        const gdc_coll_algo_t *algo = gdc_coll_algo_find(colls[k], "shm");
        int                    bcast = colls[k] == GDC_COLL_BCAST; /* every case; the others some */
        for (int n = bcast ? 2 : 3; n <= 4; n++) {
            for (size_t mi = 0; mi < sizeof(masks) / sizeof(masks[0]); mi += bcast ? 1 : 2) {
                for (size_t ci = bcast ? 0 : 1; ci < sizeof(counts) / sizeof(counts[0]); ci += bcast ? 1 : 2) {
                    sim_case_t calls[CALLS];
                    size_t     count = counts[ci]; /* a rank's block, where each has one */
                    for (int i = 0; i < ncalls; i++) {
                        calls[i] = (sim_case_t){algo, n, count, GDC_INT32, GDC_SUM, 0, 0,
                                                (unsigned)(i + 7 * (int)mi), 1, 0, &cfg, masks[mi], ~1u, 1, 0};
                    }
                    runs++;
                    if (sim_run_calls(calls, ncalls, why, sizeof(why)) != 0) {
                        fail_msg("%s(shm) %d calls on %d ranks, fast ranks %#x, %zu x int32: %s",
                                 gdc_coll_type_name(colls[k]), ncalls, n, masks[mi], count, why);
                    }
                }
            }
        }
    }
    cfg = gdc_coll_config_defaults;
    allreduce_after_a_writer_ran_ahead();
}

/* Does the schedule's step `to` wait for step `from`? (before sched_finish: its edges) */
static int waits_for(const gdc_coll_sched_t *sched, int to, int from)
{
    for (uint32_t e = 0; e < sched->num_edges; e++) {
        if ((int)sched->edges[e].to == to && (int)sched->edges[e].from == from) {
            return 1;
        }
    }
    return 0;
}

/* DONE stands for every counter of a rank (rt_shm.h): a schedule raises it to a value only
 * after its other counters' signals of that value or below, even those of a counter that
 * ran ahead; a counter signalled at or below what DONE already reached is a builder's bug,
 * reported, not run. */
static void test_done_follows_the_other_signals(void **state)
{
    gdc_coll_args_t   args;
    gdc_coll_sched_t *sched;
    int               copied1, reduced1, reduced2, done1;

    memset(&args, 0, sizeof(args));
    args.coll  = GDC_COLL_ALLREDUCE;
    args.size  = 2;
    args.dsize = 4;
    args.config = &cfg;
    sched = gdc_coll_sched_new(&gdc_coll_algos[GDC_COLL_ALGO_ALLREDUCE_SHM], &args);
    assert_non_null(sched);
    copied1  = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);
    reduced1 = gdc_coll_signal(sched, GDC_COLL_SHM_REDUCED, 1, -1);
    reduced2 = gdc_coll_signal(sched, GDC_COLL_SHM_REDUCED, 2, -1);
    done1    = gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, -1);
    assert_true(waits_for(sched, done1, copied1));
    assert_true(waits_for(sched, done1, reduced1));
    assert_false(waits_for(sched, done1, reduced2)); /* chunk 2's: not DONE(1)'s to wait for */
    assert_int_equal(sched->status, GDC_SUCCESS);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);
    assert_int_equal(sched->status, GDC_ERR_INTERNAL);
    gdc_coll_sched_free(sched);
}

/* The table lists each algorithm once, at its id, with a name and a description; the
 * collectives' algorithms are contiguous (the order gdinfo prints and the model breaks ties
 * by). */
static void test_algorithm_table(void **state)
{
    int seen[GDC_COLL_TYPE_COUNT] = {0};

    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        gdc_coll_type_t coll = gdc_coll_algos[i].coll;

        assert_int_equal(gdc_coll_algos[i].id, i);
        assert_true(coll < GDC_COLL_TYPE_COUNT);
        if (i == 0 || coll != gdc_coll_algos[i - 1].coll) {
            assert_false(seen[coll]); /* a collective's rows do not come back later */
            seen[coll] = 1;
        }
        assert_non_null(gdc_coll_algos[i].name);
        assert_non_null(gdc_coll_algos[i].desc);
        assert_non_null(gdc_coll_algos[i].build);
        assert_ptr_equal(gdc_coll_algo_find(gdc_coll_algos[i].coll, gdc_coll_algos[i].name), &gdc_coll_algos[i]);
    }
    assert_null(gdc_coll_algo_find(GDC_COLL_ALLREDUCE, "no_such_algorithm"));
    assert_true(GDC_COLL_ALGO_COUNT >= 34);
}

static void test_summary(void **state)
{
    print_message("# simulated %lu calls (%lu not applicable to their algorithm), %lu steps, %lu messages\n", runs,
                  not_applicable, sim_total_steps, sim_total_messages);
    assert_true(runs > 10000);
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        if (!(gdc_coll_algos[i].flags & GDC_COLL_ALGO_FLAG_HIER) && ran[i] < 200 &&
            !(reduced && builder_swept_before(i))) {
            fail_msg("%s(%s) ran in %lu simulated calls only (at least 200 expected): most were not applicable",
                     gdc_coll_type_name(gdc_coll_algos[i].coll), gdc_coll_algos[i].name, ran[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algorithm_table),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_bcast),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_allgather),
        cmocka_unit_test(test_reduce_scatter),
        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_alltoallv),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_shm_sequences),
        cmocka_unit_test(test_fast_paths),
        cmocka_unit_test(test_ring_runs_ahead),
        cmocka_unit_test(test_done_follows_the_other_signals),
        cmocka_unit_test(test_summary),
    };

    cfg = gdc_coll_config_defaults;
    if (getenv("GDC_TEST_FILTER") != NULL) { /* one test by name, as when hunting a bug */
        cmocka_set_test_filter(getenv("GDC_TEST_FILTER"));
    }
    if (getenv("GDC_TEST_REDUCED") != NULL && atoi(getenv("GDC_TEST_REDUCED")) != 0) {
        reduced   = 1;
        sizes     = reduced_sizes;
        num_sizes = (int)(sizeof(reduced_sizes) / sizeof(reduced_sizes[0]));
        print_message("# GDC_TEST_REDUCED: %d communicator sizes of %d\n", num_sizes,
                      (int)(sizeof(all_sizes) / sizeof(all_sizes[0])));
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
