/*
 * Multi-rank collective tests. Each case is a subcommand:
 *   coll_test all          every collective over a matrix of datatypes, ops, counts, roots and
 *                          in place / not, on GDC_COMM_WORLD, a dup, an odd/even split and a
 *                          split with reversed keys (the algorithms come from GDC_<COLL>_ALGO)
 *   coll_test quick        the light matrix on GDC_COMM_WORLD, on the world reordered so that
 *                          consecutive ranks are on different nodes (round robin, from gdrun's
 *                          GDRUN_NODE_ID and GDRUN_LOCAL_RANK) and on a lopsided split (one
 *                          whole node and one rank of every other node), plus longer vectors
 *                          that cut into many pipeline chunks: for emulated nodes, where every
 *                          message between nodes goes over TCP
 *   coll_test nonblocking  many nonblocking collectives in flight on several communicators,
 *                          completed in reverse order and by polling
 *   coll_test timeout      the last rank never joins an allreduce: the others must get
 *                          GDC_ERR_TIMEOUT (run with GDC_TIMEOUT set)
 *   coll_test peerdeath    rank 1 dies in the middle of a series of allreduces
 *   coll_test peerexit     rank 1 exits with status 5 (no gdc_finalize) in the middle of them
 *   coll_test peerchain    the last rank dies while rank 0 waits in a bcast for rank 1, which
 *                          waits for a message from rank 0: only the failure of a rank of the
 *                          bcast's communicator can end rank 0's wait (run without a launcher
 *                          that ends the job at the death)
 *   coll_test peerfinalize the last rank dies; the others call gdc_finalize at once, whose
 *                          closing barrier must not wait for the dead rank for ever
 *   coll_test barrier      no rank leaves a barrier before every rank has entered it: each
 *                          rank writes the round it enters into a file all ranks map
 *                          (COLL_TEST_SHARED: its path, on a file system the ranks share),
 *                          one rank a round late, and after the barrier reads everyone's
 * Every value received is checked: integers exactly, floats against a double reference.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/check.h"
#include "values.h"

static int world_rank, world_size;
static long checks;

typedef enum { C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL, C_ALLTOALLV, C_GATHER, C_SCATTER } coll_t;

static const char *const coll_names[] = {"bcast",    "reduce",    "allreduce", "allgather", "reduce_scatter",
                                         "alltoall", "alltoallv", "gather",    "scatter"};

typedef struct call {
    coll_t      coll;
    gdc_dtype_t dtype;
    gdc_op_t    op;
    size_t      count;
    int         in_place;
    int         root;
} call_t;

static void expect(const call_t *c, const char *what, size_t i, double got, double want, double tol)
{
    checks++;
    CHECK(!(got != want && !(tol > 0 && got - want <= tol && want - got <= tol)),
          "%s %s dtype %d op %d count %zu root %d %s: %s element %zu is %.17g, expected %.17g (tolerance %g)",
          coll_names[c->coll], getenv("GDC_ALLREDUCE_ALGO") ? getenv("GDC_ALLREDUCE_ALGO") : "", (int)c->dtype, (int)c->op, c->count, c->root, c->in_place ? "in place" : "", what, i,
          got, want, tol);
}

static uint64_t fnv(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t             h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

/* alltoallv: elements src sends dst (symmetric so that in place works). */
static size_t vcount(const call_t *c, int src, int dst)
{
    return (size_t)((src + dst + (int)c->count) % 5) + c->count / 8;
}

static void fill(const call_t *c, int r, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        test_put(c->dtype, buf, i, test_value(c->dtype, c->op, r, i));
    }
}

/* Run one call on comm and check its result at this rank. */
static void run(gdc_comm_t comm, const call_t *c)
{
    int     r, n;
    size_t  ds = gdc_dtype_size(c->dtype), k = c->count, in_n, out_n;
    char   *in, *out;
    double  tol;
    int     is_root;
    size_t *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;

    CHECK_OK(gdc_comm_rank(comm, &r));
    CHECK_OK(gdc_comm_size(comm, &n));
    is_root = r == c->root;
    in_n    = (c->coll == C_REDUCE_SCATTER || c->coll == C_ALLTOALL || c->coll == C_SCATTER) ? (size_t)n * k : k;
    out_n   = (c->coll == C_ALLGATHER || c->coll == C_ALLTOALL || c->coll == C_GATHER ||
             (c->coll == C_REDUCE_SCATTER && c->in_place))
                  ? (size_t)n * k
                  : k;
    if (c->coll == C_ALLTOALLV) {
        size_t at_s = 0, at_r = 0;
        sc = check_malloc((size_t)n * sizeof(size_t));
        sd = check_malloc((size_t)n * sizeof(size_t));
        rc = check_malloc((size_t)n * sizeof(size_t));
        rd = check_malloc((size_t)n * sizeof(size_t));
        for (int p = 0; p < n; p++) {
            sc[p] = vcount(c, r, p);
            sd[p] = at_s;
            at_s += sc[p] + 1;
        }
        for (int p = n - 1; p >= 0; p--) {
            rc[p] = vcount(c, p, r);
            rd[p] = at_r;
            at_r += rc[p] + 3;
        }
        if (c->in_place) {
            memcpy(sc, rc, (size_t)n * sizeof(size_t));
            memcpy(sd, rd, (size_t)n * sizeof(size_t));
        }
        in_n  = c->in_place ? at_r : at_s;
        out_n = at_r;
    }
    in  = check_malloc(in_n * ds + 1);
    out = check_malloc(out_n * ds + 1);
    fill(c, r, in, in_n);
    memset(out, 0x5a, out_n * ds);

    switch (c->coll) {
    case C_BCAST:
        if (is_root) {
            fill(c, r, out, k);
        }
        CHECK_OK(gdc_bcast(out, k, c->dtype, c->root, comm));
        for (size_t i = 0; i < k; i++) {
            expect(c, "bcast", i, test_get(c->dtype, out, i), test_stored(c->dtype, c->op, c->root, i), 0);
        }
        break;
    case C_REDUCE:
    case C_ALLREDUCE: {
        int ip = c->in_place && (c->coll == C_ALLREDUCE || is_root);
        if (ip) {
            fill(c, r, out, k);
        }
        if (c->coll == C_REDUCE) {
            CHECK_OK(gdc_reduce(ip ? GDC_IN_PLACE : in, is_root ? out : NULL, k, c->dtype, c->op, c->root, comm));
        } else {
            CHECK_OK(gdc_allreduce(ip ? GDC_IN_PLACE : in, out, k, c->dtype, c->op, comm));
        }
        if (c->coll == C_ALLREDUCE || is_root) {
            for (size_t i = 0; i < k; i++) {
                double want = test_reference(c->dtype, c->op, n, i, &tol);
                expect(c, "reduced", i, test_get(c->dtype, out, i), want, tol);
            }
        }
        if (c->coll == C_ALLREDUCE) {
            /* one call, one result: the same bits on every rank */
            uint64_t mine = fnv(out, k * ds), ranks0 = mine;
            CHECK_OK(gdc_bcast(&ranks0, 1, GDC_UINT64, 0, comm));
            CHECK(mine == ranks0, "allreduce result differs in its bits from rank 0's");
        }
        break;
    }
    case C_REDUCE_SCATTER:
        if (c->in_place) {
            fill(c, r, out, (size_t)n * k);
        }
        CHECK_OK(gdc_reduce_scatter(c->in_place ? GDC_IN_PLACE : in, out, k, c->dtype, c->op, comm));
        for (size_t i = 0; i < k; i++) {
            double want = test_reference(c->dtype, c->op, n, (size_t)r * k + i, &tol);
            expect(c, "reduce_scatter", i, test_get(c->dtype, out, i), want, tol);
        }
        break;
    case C_ALLGATHER:
    case C_GATHER: {
        int ip = c->in_place && (c->coll == C_ALLGATHER || is_root);
        if (ip) {
            fill(c, r, out + (size_t)r * k * ds, k); /* my block in its place */
        }
        if (c->coll == C_GATHER) {
            CHECK_OK(gdc_gather(ip ? GDC_IN_PLACE : in, is_root ? out : NULL, k, c->dtype, c->root, comm));
        } else {
            CHECK_OK(gdc_allgather(ip ? GDC_IN_PLACE : in, out, k, c->dtype, comm));
        }
        if (c->coll == C_ALLGATHER || is_root) {
            for (int p = 0; p < n; p++) {
                for (size_t i = 0; i < k; i++) {
                    expect(c, "gathered", (size_t)p * k + i, test_get(c->dtype, out, (size_t)p * k + i),
                           test_stored(c->dtype, c->op, p, i), 0);
                }
            }
        }
        break;
    }
    case C_SCATTER: {
        int ip = c->in_place && is_root;
        CHECK_OK(gdc_scatter(is_root ? in : NULL, ip ? GDC_IN_PLACE : out, k, c->dtype, c->root, comm));
        if (!ip) {
            for (size_t i = 0; i < k; i++) {
                expect(c, "scattered", i, test_get(c->dtype, out, i),
                       test_stored(c->dtype, c->op, c->root, (size_t)r * k + i), 0);
            }
        }
        break;
    }
    case C_ALLTOALL:
        if (c->in_place) {
            fill(c, r, out, (size_t)n * k);
        }
        CHECK_OK(gdc_alltoall(c->in_place ? GDC_IN_PLACE : in, out, k, c->dtype, comm));
        for (int p = 0; p < n; p++) {
            for (size_t i = 0; i < k; i++) {
                expect(c, "alltoall", (size_t)p * k + i, test_get(c->dtype, out, (size_t)p * k + i),
                       test_stored(c->dtype, c->op, p, (size_t)r * k + i), 0);
            }
        }
        break;
    case C_ALLTOALLV: {
        /* where p put the block for me: p's displacement for me, which p computed the same way */
        if (c->in_place) {
            fill(c, r, out, out_n);
        }
        CHECK_OK(gdc_alltoallv(c->in_place ? GDC_IN_PLACE : in, sc, sd, out, rc, rd, c->dtype, comm));
        for (int p = 0; p < n; p++) {
            size_t at = 0;
            if (c->in_place) { /* p's receive displacement for me, laid out from its last rank down */
                for (int q = n - 1; q > r; q--) {
                    at += vcount(c, q, p) + 3;
                }
            } else {
                for (int q = 0; q < r; q++) {
                    at += vcount(c, p, q) + 1;
                }
            }
            for (size_t i = 0; i < rc[p]; i++) {
                expect(c, "alltoallv", rd[p] + i, test_get(c->dtype, out, rd[p] + i),
                       test_stored(c->dtype, c->op, p, at + i), 0);
            }
        }
        break;
    }
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(in);
    free(out);
}

static void matrix(gdc_comm_t comm, int full)
{
    static const struct {
        gdc_dtype_t dtype;
        gdc_op_t    op;
    } reductions[] = {
        {GDC_INT32, GDC_SUM}, {GDC_FLOAT32, GDC_SUM}, {GDC_FLOAT64, GDC_MAX}, {GDC_FLOAT16, GDC_SUM},
        {GDC_BFLOAT16, GDC_SUM}, {GDC_UINT64, GDC_BXOR}, {GDC_INT8, GDC_PROD}, {GDC_INT32, GDC_AVG},
        {GDC_INT16, GDC_MIN}, {GDC_FLOAT32, GDC_AVG},
    };
    static const gdc_dtype_t movers[] = {GDC_INT32, GDC_BYTE, GDC_FLOAT64};
    int                      n;

    CHECK_OK(gdc_comm_size(comm, &n));
    {
        size_t counts[] = {0, 1, (size_t)n + 1, 1000, 100003};
        int    ncounts  = full ? 5 : 4;
        int    roots[]  = {0, n - 1};

        for (coll_t coll = C_BCAST; coll <= C_SCATTER; coll++) {
            int reducing = coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_REDUCE_SCATTER;
            int ntypes   = reducing ? (int)(sizeof(reductions) / sizeof(reductions[0])) : 3;
            int rooted   = coll == C_BCAST || coll == C_REDUCE || coll == C_GATHER || coll == C_SCATTER;

            if (!full) {
                ntypes = reducing ? 3 : 1;
            }
            for (int t = 0; t < ntypes; t++) {
                for (int ci = 0; ci < ncounts; ci++) {
                    /* the large count on per-peer collectives: enough with the integers */
                    if (ci == 4 && t > 0) {
                        continue;
                    }
                    for (int ri = 0; ri < (rooted ? 2 : 1); ri++) {
                        for (int ip = 0; ip < (coll == C_BCAST ? 1 : 2); ip++) {
                            call_t c = {coll, reducing ? reductions[t].dtype : movers[t],
                                        reducing ? reductions[t].op : GDC_SUM, counts[ci], ip, roots[ri]};
                            size_t per_rank = coll == C_ALLTOALL || coll == C_ALLTOALLV ? (size_t)n : 1;
                            if (ci == 4 && per_rank > 1) {
                                c.count = 20011; /* alltoall: per peer */
                            }
                            run(comm, &c);
                        }
                    }
                }
            }
        }
    }
    CHECK_OK(gdc_barrier(comm));
}

static void test_all(void)
{
    gdc_comm_t dup, parity, reversed;

    matrix(GDC_COMM_WORLD, 1);
    CHECK_OK(gdc_comm_dup(GDC_COMM_WORLD, &dup));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, world_rank % 2, world_rank, &parity));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, 0, world_size - world_rank, &reversed));
    matrix(dup, 0);
    matrix(parity, 0);
    matrix(reversed, 0);
    CHECK_OK(gdc_comm_free(&reversed));
    CHECK_OK(gdc_comm_free(&parity));
    CHECK_OK(gdc_comm_free(&dup));
    if (world_rank == 0) {
        printf("coll_test all: %d ranks, %ld values checked\n", world_size, checks);
    }
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);

    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

/* A few collectives on vectors long enough for many chunks (run with a small GDC_CHUNK_SIZE). */
static void longer(gdc_comm_t comm)
{
    static const call_t calls[] = {
        {C_ALLREDUCE, GDC_INT32, GDC_SUM, 30011, 0, 0}, {C_ALLREDUCE, GDC_FLOAT32, GDC_SUM, 30011, 1, 0},
        {C_BCAST, GDC_INT32, GDC_SUM, 30011, 0, 1},     {C_ALLGATHER, GDC_INT32, GDC_SUM, 3001, 1, 0},
        {C_ALLTOALL, GDC_INT32, GDC_SUM, 1001, 0, 0},   {C_ALLTOALL, GDC_INT32, GDC_SUM, 1001, 1, 0},
    };

    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        run(comm, &calls[i]);
    }
}

static void test_quick(void)
{
    int        node = env_int("GDRUN_NODE_ID", 0), local = env_int("GDRUN_LOCAL_RANK", world_rank);
    gdc_comm_t interleaved, lopsided;

    matrix(GDC_COMM_WORLD, 0);
    longer(GDC_COMM_WORLD);
    /* local rank 0 of every node first, then local rank 1, ...: neighbours are on other nodes */
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, 0, local * world_size + node, &interleaved));
    matrix(interleaved, 0);
    longer(interleaved);
    /* node 0 whole and the first rank of every other node; the rest of the others apart */
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, node == 0 || local == 0 ? 0 : 1, world_rank, &lopsided));
    matrix(lopsided, 0);
    CHECK_OK(gdc_comm_free(&lopsided));
    CHECK_OK(gdc_comm_free(&interleaved));
    if (world_rank == 0) {
        printf("coll_test quick: %d ranks, %ld values checked\n", world_size, checks);
    }
}

/* Several collectives in flight at once on three communicators (the same order on every
 * rank for each communicator), completed in reverse order, then by polling. */
static void test_nonblocking(void)
{
    enum { ROUNDS = 20, K = 777 };
    gdc_comm_t    dup, parity;
    int           pr, pn;
    int32_t      *a = check_malloc(K * sizeof(int32_t)), *a_out = check_malloc(K * sizeof(int32_t));
    float        *b = check_malloc(K * sizeof(float));
    int32_t      *g = check_malloc((size_t)world_size * K * sizeof(int32_t));
    int64_t      *x = check_malloc((size_t)world_size * 4 * sizeof(int64_t)), *x_out = check_malloc((size_t)world_size * 4 * sizeof(int64_t));
    double       *s = check_malloc(K * sizeof(double));

    CHECK_OK(gdc_comm_dup(GDC_COMM_WORLD, &dup));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, world_rank % 2, -world_rank, &parity));
    CHECK_OK(gdc_comm_rank(parity, &pr));
    CHECK_OK(gdc_comm_size(parity, &pn));
    for (int round = 0; round < ROUNDS; round++) {
        gdc_request_t reqs[6];
        for (int i = 0; i < K; i++) {
            a[i] = world_rank + i + round;
            b[i] = (world_rank == round % world_size) ? (float)(i + round) : -1.0f;
            g[pr * K + i] = pr * 1000 + i + round;
            s[i] = world_rank * 0.5 + i;
        }
        for (int i = 0; i < world_size * 4; i++) {
            x[i] = (int64_t)world_rank << 32 | (uint32_t)(i + round);
        }
        CHECK_OK(gdc_iallreduce(a, a_out, K, GDC_INT32, GDC_SUM, GDC_COMM_WORLD, &reqs[0]));
        CHECK_OK(gdc_ibcast(b, K, GDC_FLOAT32, round % world_size, dup, &reqs[1]));
        CHECK_OK(gdc_iallgather(GDC_IN_PLACE, g, K, GDC_INT32, parity, &reqs[2]));
        CHECK_OK(gdc_ialltoall(x, x_out, 4, GDC_INT64, GDC_COMM_WORLD, &reqs[3]));
        CHECK_OK(gdc_iallreduce(GDC_IN_PLACE, s, K, GDC_FLOAT64, GDC_MAX, dup, &reqs[4]));
        CHECK_OK(gdc_ibarrier(parity, &reqs[5]));
        if (round % 2 == 0) {
            for (int i = 5; i >= 0; i--) {
                CHECK_OK(gdc_wait(&reqs[i]));
            }
        } else {
            int left = 6;
            while (left > 0) {
                for (int i = 0; i < 6; i++) {
                    int done = 0;
                    if (reqs[i] != GDC_REQUEST_NULL) {
                        CHECK_OK(gdc_test(&reqs[i], &done));
                        left -= done;
                    }
                }
            }
        }
        for (int i = 0; i < K; i++) {
            CHECK(a_out[i] == world_size * (world_size - 1) / 2 + world_size * (i + round), "allreduce %d", i);
            CHECK(b[i] == (float)(i + round), "bcast %d: %g", i, b[i]);
            CHECK(s[i] == (world_size - 1) * 0.5 + i, "max %d", i);
            for (int p = 0; p < pn; p++) {
                CHECK(g[p * K + i] == p * 1000 + i + round, "allgather block %d", p);
            }
        }
        for (int p = 0; p < world_size; p++) {
            for (int i = 0; i < 4; i++) {
                CHECK(x_out[p * 4 + i] == ((int64_t)p << 32 | (uint32_t)(world_rank * 4 + i + round)), "alltoall");
            }
        }
    }
    CHECK_OK(gdc_comm_free(&parity));
    CHECK_OK(gdc_comm_free(&dup));
    free(a); free(a_out); free(b); free(g); free(x); free(x_out); free(s);
}

/* Map the file every rank shares, made by rank 0 (each rank's round at 64 bytes apart). */
static volatile int64_t *map_rounds(const char *path)
{
    size_t bytes = (size_t)world_size * 64;
    int    made  = 0, fd;
    void  *at;

    if (world_rank == 0) {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0 && ftruncate(fd, (off_t)bytes) == 0, "cannot make %s", path);
        close(fd);
        made = 1;
    }
    CHECK_OK(gdc_bcast(&made, 1, GDC_INT32, 0, GDC_COMM_WORLD)); /* made before anyone opens it */
    fd = open(path, O_RDWR);
    CHECK(fd >= 0, "cannot open %s", path);
    at = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(at != MAP_FAILED, "cannot map %s", path);
    close(fd);
    CHECK_OK(gdc_allreduce(GDC_IN_PLACE, &made, 1, GDC_INT32, GDC_SUM, GDC_COMM_WORLD)); /* all mapped */
    if (world_rank == 0) {
        unlink(path); /* nothing left behind, whatever happens next */
    }
    return at;
}

static void test_barrier_order(void)
{
    enum { ROUNDS = 3000 };
    const char              *path   = getenv("COLL_TEST_SHARED");
    volatile int64_t        *rounds;
    struct timespec          late   = {0, 20 * 1000};

    CHECK(path != NULL && path[0] != '\0', "COLL_TEST_SHARED: the path of a file for every rank to map");
    rounds = map_rounds(path);
    for (int64_t round = 1; round <= ROUNDS; round++) {
        if (round % world_size == world_rank && round % 3 == 0) {
            nanosleep(&late, NULL); /* a late rank: the others must wait for it */
        }
        __atomic_store_n(&rounds[(size_t)world_rank * 8], round, __ATOMIC_RELEASE);
        CHECK_OK(gdc_barrier(GDC_COMM_WORLD));
        for (int p = 0; p < world_size; p++) {
            int64_t seen = __atomic_load_n(&rounds[(size_t)p * 8], __ATOMIC_ACQUIRE);
            CHECK(seen >= round, "rank %d left barrier %lld before rank %d entered it (at %lld)", world_rank,
                  (long long)round, p, (long long)seen);
            checks++;
        }
    }
    munmap((void *)rounds, (size_t)world_size * 64);
    if (world_rank == 0) {
        printf("coll_test barrier: %d ranks, %d barriers, %ld entries checked\n", world_size, ROUNDS, checks);
    }
}

/* The last rank never joins: everyone else must time out (GDC_TIMEOUT in the environment),
 * and the job still finalizes. It comes to gdc_finalize 1.5 timeouts in: half a timeout
 * after the others' allreduce gave up, half a timeout before their closing barrier would
 * (it slept 2 timeouts before, and came to that barrier just as it gave up, under load one
 * run in a few). */
static void test_timeout(void)
{
    int32_t     in = 1, out = 0;
    const char *timeout = getenv("GDC_TIMEOUT");

    CHECK(world_size > 1, "needs two ranks");
    if (world_rank == world_size - 1) {
        usleep((useconds_t)(1.5e6 * (timeout != NULL ? atof(timeout) : 2.0)));
    } else {
        int status = gdc_allreduce(&in, &out, 1, GDC_INT32, GDC_SUM, GDC_COMM_WORLD);
        CHECK(status == GDC_ERR_TIMEOUT, "allreduce returned %d (%s), expected GDC_ERR_TIMEOUT", status,
              gdc_strerror(status));
        printf("rank %d: allreduce timed out as expected\n", world_rank);
    }
}

/* Rank 1 leaves (as leave() makes it) between allreduces: the others must not hang (they
 * get an error, or the launcher ends the job). */
static void allreduce_until_rank1_leaves(void (*leave)(void))
{
    int32_t buf[1024] = {0};

    for (int i = 0; i < 200; i++) {
        int status;
        if (world_rank == 1 && i == 50) {
            leave();
        }
        status = gdc_allreduce(GDC_IN_PLACE, buf, 1024, GDC_INT32, GDC_SUM, GDC_COMM_WORLD);
        if (status != GDC_SUCCESS) {
            printf("rank %d: allreduce %d failed: %s\n", world_rank, i, gdc_strerror(status));
            exit(3);
        }
    }
    printf("rank %d: survived\n", world_rank);
}

static void die_by_sigkill(void)
{
    raise(SIGKILL);
}

/* A failing rank that exits on its own, without gdc_finalize. */
static void exit_with_5(void)
{
    fflush(stdout);
    _exit(5);
}

static void test_peerdeath(void)
{
    allreduce_until_rank1_leaves(die_by_sigkill);
}

static void test_peerexit(void)
{
    allreduce_until_rank1_leaves(exit_with_5);
}

/* Exit 3 when a call failed with GDC_ERR_PEER_FAILED, saying which; 4 for another error. */
static void expect_peer_failed(const char *what, int status)
{
    printf("rank %d: %s: %s\n", world_rank, what, status == GDC_SUCCESS ? "survived" : gdc_strerror(status));
    fflush(stdout);
    if (status == GDC_SUCCESS) {
        return;
    }
    _exit(status == GDC_ERR_PEER_FAILED ? 3 : 4);
}

/*
 * A barrier, then the last rank dies once every other rank has told it that it left the
 * barrier. Without that the last rank can leave first and die while a descheduled rank
 * still waits to read the barrier's last message from it: that rank's barrier then fails
 * for the dead rank, a correct outcome, but not the one these cases examine.
 */
static void barrier_then_last_rank_dies(void)
{
    int32_t left = 1;

    CHECK_OK(gdc_barrier(GDC_COMM_WORLD));
    if (world_rank != world_size - 1) {
        CHECK_OK(gdc_send(&left, 1, GDC_INT32, world_size - 1, 5, GDC_COMM_WORLD));
        return;
    }
    for (int r = 0; r < world_size - 1; r++) {
        CHECK_OK(gdc_recv(&left, 1, GDC_INT32, r, 5, GDC_COMM_WORLD));
    }
    raise(SIGKILL);
}

/*
 * Ranks 0, 1 and the last make a communicator. The last dies; rank 0 then waits in a bcast
 * on it for rank 1 (the root), which is alive but waits for a message from rank 0 that
 * never comes: rank 0 talks to no failed rank, so only the failure of a rank of the
 * bcast's communicator can end its wait, and only rank 0's failure can end rank 1's. The
 * other ranks fail an allreduce on the world.
 */
static void test_peerchain(void)
{
    int        last = world_size - 1, mine = world_rank == 0 || world_rank == 1 || world_rank == last;
    int32_t    token = 7, data[256] = {0};
    gdc_comm_t three;

    CHECK(world_size >= 3, "needs three ranks");
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, mine ? 0 : GDC_UNDEFINED, 0, &three));
    /* rank 0 and the last rank have spoken: each can see the other's life */
    if (world_rank == 0) {
        CHECK_OK(gdc_send(&token, 1, GDC_INT32, 2, 1, three));
    } else if (world_rank == last) {
        CHECK_OK(gdc_recv(&token, 1, GDC_INT32, 0, 1, three));
    }
    barrier_then_last_rank_dies();
    if (world_rank == 0) {
        expect_peer_failed("bcast from rank 1", gdc_bcast(data, 256, GDC_INT32, 1, three));
    } else if (world_rank == 1) {
        expect_peer_failed("recv from rank 0", gdc_recv(data, 1, GDC_INT32, 0, 2, three));
    } else {
        expect_peer_failed("allreduce", gdc_allreduce(GDC_IN_PLACE, data, 256, GDC_INT32, GDC_SUM, GDC_COMM_WORLD));
    }
}

/* The last rank dies after a barrier; the others go straight to gdc_finalize. Its
 * job-wide barrier (a PMIx fence) would wait for the dead rank for ever: it must end with
 * GDC_ERR_PEER_FAILED once the failure is known, where a rank that saw the death (or the
 * exit of a rank that did) tells it, unless the PMIx server completes the fence without
 * the dead rank (Slurm's sometimes does): then it finalizes ("survived", exit 0). */
static void test_peerfinalize(void)
{
    barrier_then_last_rank_dies();
    expect_peer_failed("finalize", gdc_finalize());
    _exit(0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"all", test_all},
        {"quick", test_quick},
        {"nonblocking", test_nonblocking},
        {"timeout", test_timeout},
        {"peerdeath", test_peerdeath},
        {"peerexit", test_peerexit},
        {"peerchain", test_peerchain},
        {"peerfinalize", test_peerfinalize},
        {"barrier", test_barrier_order},
    };

    if (argc != 2) {
        fprintf(stderr,
                "usage: coll_test all|quick|nonblocking|timeout|peerdeath|peerexit|peerchain|peerfinalize|barrier\n");
        return 2;
    }
    CHECK_OK(gdc_init(&argc, &argv));
    CHECK_OK(gdc_comm_rank(GDC_COMM_WORLD, &world_rank));
    CHECK_OK(gdc_comm_size(GDC_COMM_WORLD, &world_size));
    check_rank = world_rank;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            CHECK_OK(gdc_finalize());
            return 0;
        }
    }
    fprintf(stderr, "coll_test: unknown case %s\n", argv[1]);
    gdc_finalize();
    return 2;
}
