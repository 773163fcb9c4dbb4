/*
 * Multi-rank point-to-point tests, written against gdc.h only. Each case is a subcommand:
 *   p2p_test ring|allpairs|sizes|truncate|nonblocking|large|comms|self|singleton|timeout
 * and exits 0 only when every value it received is the one expected (timeout: when every
 * send to a rank that never receives ends with GDC_ERR_TIMEOUT; run with GDC_TIMEOUT set).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/check.h"

static int rank, size;

/* The byte at offset i of the message from src to dst in round r. */
static uint8_t pattern(int src, int dst, int r, size_t i)
{
    return (uint8_t)(src * 131 + dst * 17 + r * 7 + i * 3 + (i >> 8));
}

static void fill(uint8_t *buf, size_t n, int src, int dst, int r)
{
    for (size_t i = 0; i < n; i++) {
        buf[i] = pattern(src, dst, r, i);
    }
}

static void verify(const uint8_t *buf, size_t n, int src, int dst, int r)
{
    for (size_t i = 0; i < n; i++) {
        CHECK(buf[i] == pattern(src, dst, r, i), "byte %zu of %zu from rank %d round %d is %u, expected %u",
              i, n, src, r, buf[i], pattern(src, dst, r, i));
    }
}

/* Blocking exchange around the ring: even ranks send first, odd ranks receive first, so
 * that blocking sends of large (rendezvous) messages cannot deadlock. */
static void ring_exchange(size_t bytes, int round)
{
    int      right = (rank + 1) % size, left = (rank - 1 + size) % size;
    uint8_t *out   = check_malloc(bytes);
    uint8_t *in    = check_malloc(bytes);

    fill(out, bytes, rank, right, round);
    memset(in, 0xee, bytes);
    if (size == 1) {
        gdc_request_t req;
        CHECK_OK(gdc_irecv(in, bytes, GDC_BYTE, left, round, GDC_COMM_WORLD, &req));
        CHECK_OK(gdc_send(out, bytes, GDC_BYTE, right, round, GDC_COMM_WORLD));
        CHECK_OK(gdc_wait(&req));
    } else if (rank % 2 == 0) {
        CHECK_OK(gdc_send(out, bytes, GDC_BYTE, right, round, GDC_COMM_WORLD));
        CHECK_OK(gdc_recv(in, bytes, GDC_BYTE, left, round, GDC_COMM_WORLD));
    } else {
        CHECK_OK(gdc_recv(in, bytes, GDC_BYTE, left, round, GDC_COMM_WORLD));
        CHECK_OK(gdc_send(out, bytes, GDC_BYTE, right, round, GDC_COMM_WORLD));
    }
    verify(in, bytes, left, rank, round);
    free(out);
    free(in);
}

static void test_ring(void)
{
    /* odd sizes and rank counts make the even/odd order meet in both directions */
    for (int round = 0; round < 20; round++) {
        ring_exchange((size_t)round * 37 + 1, round);
    }
}

static void test_sizes(void)
{
    static const size_t sizes[] = {0,     1,      7,       64,      1000,    4096,       8192,
                                   65536, 100003, 1 << 20, 4 << 20, 16 << 20, 64 << 20};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        ring_exchange(sizes[i], (int)i);
    }
}

/* Every pair, nonblocking, in both directions at once; 3 rounds with growing sizes. */
static void test_allpairs(void)
{
    for (int round = 0; round < 3; round++) {
        size_t         bytes = (size_t)1 << (4 + 6 * round); /* 16 B, 1 KiB, 64 KiB */
        uint8_t       *out   = check_malloc(bytes * (size_t)size);
        uint8_t       *in    = check_malloc(bytes * (size_t)size);
        gdc_request_t *reqs  = check_malloc(2 * (size_t)size * sizeof(*reqs));

        for (int peer = 0; peer < size; peer++) {
            fill(out + bytes * (size_t)peer, bytes, rank, peer, round);
            CHECK_OK(gdc_irecv(in + bytes * (size_t)peer, bytes, GDC_BYTE, peer, 5, GDC_COMM_WORLD,
                               &reqs[peer]));
        }
        for (int i = 0; i < size; i++) {
            int peer = (rank + i) % size; /* stagger so that no rank is everyone's first */
            CHECK_OK(gdc_isend(out + bytes * (size_t)peer, bytes, GDC_BYTE, peer, 5, GDC_COMM_WORLD,
                               &reqs[size + peer]));
        }
        CHECK_OK(gdc_waitall(2 * size, reqs));
        for (int i = 0; i < 2 * size; i++) {
            CHECK(reqs[i] == GDC_REQUEST_NULL, "waitall left request %d set", i);
        }
        for (int peer = 0; peer < size; peer++) {
            verify(in + bytes * (size_t)peer, bytes, peer, rank, round);
        }
        free(reqs);
        free(in);
        free(out);
    }
}

/* A longer message than the buffer gives GDC_ERR_TRUNCATED; a shorter one is fine; the
 * pair keeps working afterwards. Rank pairs (0,1), (2,3), ...; an odd last rank talks to
 * itself. */
static void test_truncate(void)
{
    int     peer = (rank % 2 == 0) ? (rank + 1 < size ? rank + 1 : rank) : rank - 1;
    int32_t out[100], in[100];

    for (int i = 0; i < 100; i++) {
        out[i] = rank * 1000 + i;
    }
    {
        gdc_request_t rreq, sreq;
        memset(in, 0, sizeof(in));
        CHECK_OK(gdc_irecv(in, 50, GDC_INT32, peer, 1, GDC_COMM_WORLD, &rreq));
        CHECK_OK(gdc_isend(out, 100, GDC_INT32, peer, 1, GDC_COMM_WORLD, &sreq));
        CHECK_STATUS(gdc_wait(&rreq), GDC_ERR_TRUNCATED);
        CHECK(rreq == GDC_REQUEST_NULL, "wait left the failed request set");
        CHECK_OK(gdc_wait(&sreq));

        /* a shorter message into a longer buffer */
        for (int i = 0; i < 100; i++) {
            in[i] = -1;
        }
        CHECK_OK(gdc_irecv(in, 100, GDC_INT32, peer, 2, GDC_COMM_WORLD, &rreq));
        CHECK_OK(gdc_isend(out, 10, GDC_INT32, peer, 2, GDC_COMM_WORLD, &sreq));
        CHECK_OK(gdc_wait(&rreq));
        CHECK_OK(gdc_wait(&sreq));
        for (int i = 0; i < 10; i++) {
            CHECK(in[i] == peer * 1000 + i, "in[%d] = %d after a short message", i, in[i]);
        }
        CHECK(in[10] == -1, "a short message wrote past its end");

        /* blocking truncation (eager and rendezvous sized; a message read by cross-memory
         * attach into receives shorter than where its bytes are (2 elements) and shorter
         * than a message told (100) */
        for (int big = 0; big < 4; big++) {
            size_t   n    = big ? (1 << 20) : 16;
            size_t   room = big == 2 ? 2 : big == 3 ? 100 : n / 2;
            int32_t *src  = check_malloc(n * sizeof(int32_t));
            int32_t *dst  = check_malloc(n * sizeof(int32_t));
            memset(src, 1, n * sizeof(int32_t));
            CHECK_OK(gdc_isend(src, n, GDC_INT32, peer, 3 + big, GDC_COMM_WORLD, &sreq));
            CHECK_STATUS(gdc_recv(dst, room, GDC_INT32, peer, 3 + big, GDC_COMM_WORLD), GDC_ERR_TRUNCATED);
            CHECK_OK(gdc_wait(&sreq));
            free(src);
            free(dst);
        }
    }
    ring_exchange(1000, 77); /* still works */
}

/* Large messages in flight at once, every pair both ways: on one tag (which must keep their
 * order), of sizes that cut into chunks unevenly, each received into a buffer longer than
 * it (the bytes past the message untouched). Under GDC_STAGING_HOST_TEST=1 this is the
 * staging pipeline's multi-process test; with GDC_STAGING_BUFFERS=1 as well, the messages
 * in flight outgrow the pool's pinned buffers and take memory of their own. */
static void test_large(void)
{
    enum { PER_PEER = 3, SLACK = 4096 };
    static const size_t sizes[PER_PEER] = {(1 << 20) + 3, 300007, (5 << 20) + 11};
    size_t              capacity        = sizes[PER_PEER - 1] + SLACK;
    uint8_t           **out  = check_malloc((size_t)size * PER_PEER * sizeof(*out));
    uint8_t           **in   = check_malloc((size_t)size * PER_PEER * sizeof(*in));
    gdc_request_t      *reqs = check_malloc(2 * (size_t)size * PER_PEER * sizeof(*reqs));
    int                 nreq = 0;

    for (int peer = 0; peer < size; peer++) {
        for (int k = 0; k < PER_PEER; k++) {
            uint8_t *buf = check_malloc(capacity);

            in[peer * PER_PEER + k] = buf;
            memset(buf, 0xee, capacity);
            CHECK_OK(gdc_irecv(buf, capacity, GDC_BYTE, peer, 11, GDC_COMM_WORLD, &reqs[nreq++]));
        }
    }
    for (int i = 0; i < size; i++) {
        int peer = (rank + i) % size;
        for (int k = 0; k < PER_PEER; k++) {
            uint8_t *buf = check_malloc(sizes[k]);

            out[peer * PER_PEER + k] = buf;
            fill(buf, sizes[k], rank, peer, k);
            CHECK_OK(gdc_isend(buf, sizes[k], GDC_BYTE, peer, 11, GDC_COMM_WORLD, &reqs[nreq++]));
        }
    }
    CHECK_OK(gdc_waitall(nreq, reqs));
    for (int peer = 0; peer < size; peer++) {
        for (int k = 0; k < PER_PEER; k++) {
            uint8_t *buf = in[peer * PER_PEER + k];

            verify(buf, sizes[k], peer, rank, k);
            for (size_t i = sizes[k]; i < capacity; i++) {
                CHECK(buf[i] == 0xee, "message %d from rank %d (%zu bytes) wrote byte %zu past its end", k, peer,
                      sizes[k], i);
            }
            free(buf);
            free(out[peer * PER_PEER + k]);
        }
    }
    free(reqs);
    free(in);
    free(out);
}

/* Many requests in flight: from every peer, 64 messages with one tag (which must arrive in
 * order) and 64 with distinct tags received in reverse order; completed with a mix of
 * gdc_test polling and gdc_waitall. */
static void test_nonblocking(void)
{
    enum { PER_PEER = 64 };
    size_t         n    = (size_t)size * PER_PEER * 2;
    int64_t       *out  = check_malloc(n * sizeof(int64_t));
    int64_t       *in   = check_malloc(n * sizeof(int64_t));
    gdc_request_t *rreq = check_malloc(n * sizeof(*rreq));
    gdc_request_t *sreq = check_malloc(n * sizeof(*sreq));
    size_t         done = 0;

    for (int peer = 0; peer < size; peer++) {
        for (int k = 0; k < PER_PEER; k++) {
            size_t same = ((size_t)peer * PER_PEER + k) * 2, distinct = same + 1;
            /* distinct tags posted in reverse order */
            int rk = PER_PEER - 1 - k;
            CHECK_OK(gdc_irecv(&in[same], 1, GDC_INT64, peer, 9, GDC_COMM_WORLD, &rreq[same]));
            CHECK_OK(gdc_irecv(&in[((size_t)peer * PER_PEER + rk) * 2 + 1], 1, GDC_INT64, peer, 100 + rk,
                               GDC_COMM_WORLD, &rreq[distinct]));
        }
    }
    for (int peer = 0; peer < size; peer++) {
        for (int k = 0; k < PER_PEER; k++) {
            size_t same = ((size_t)peer * PER_PEER + k) * 2, distinct = same + 1;
            out[same]     = (int64_t)rank << 32 | k;
            out[distinct] = (int64_t)rank << 32 | (k + 1000);
            CHECK_OK(gdc_isend(&out[same], 1, GDC_INT64, peer, 9, GDC_COMM_WORLD, &sreq[same]));
            CHECK_OK(gdc_isend(&out[distinct], 1, GDC_INT64, peer, 100 + k, GDC_COMM_WORLD, &sreq[distinct]));
        }
    }
    /* poll the receives with gdc_test until all are done */
    while (done < n) {
        done = 0;
        for (size_t i = 0; i < n; i++) {
            int flag = 0;
            CHECK_OK(gdc_test(&rreq[i], &flag));
            done += flag;
        }
    }
    CHECK_OK(gdc_waitall((int)n, sreq));
    for (int peer = 0; peer < size; peer++) {
        for (int k = 0; k < PER_PEER; k++) {
            size_t same = ((size_t)peer * PER_PEER + k) * 2;
            CHECK(in[same] == ((int64_t)peer << 32 | k), "same-tag message %d from rank %d out of order: %llx",
                  k, peer, (unsigned long long)in[same]);
            CHECK(in[same + 1] == ((int64_t)peer << 32 | (k + 1000)), "tag %d from rank %d: %llx", 100 + k,
                  peer, (unsigned long long)in[same + 1]);
        }
    }
    free(sreq);
    free(rreq);
    free(in);
    free(out);
}

/* One ring round on comm with the given tag; the payload names the communicator. */
static void post_ring(gdc_comm_t comm, int id, int tag, int32_t *out, int32_t *in, gdc_request_t *reqs)
{
    int r, n;

    CHECK_OK(gdc_comm_rank(comm, &r));
    CHECK_OK(gdc_comm_size(comm, &n));
    *out = id * 100000 + r;
    CHECK_OK(gdc_irecv(in, 1, GDC_INT32, (r - 1 + n) % n, tag, comm, &reqs[0]));
    CHECK_OK(gdc_isend(out, 1, GDC_INT32, (r + 1) % n, tag, comm, &reqs[1]));
}

static void check_ring(gdc_comm_t comm, int id, int32_t in)
{
    int r, n;

    CHECK_OK(gdc_comm_rank(comm, &r));
    CHECK_OK(gdc_comm_size(comm, &n));
    CHECK(in == id * 100000 + (r - 1 + n) % n, "comm %d: got %d from the left neighbour", id, in);
}

static void test_comms(void)
{
    gdc_comm_t    dup, parity, reversed, none, dupdup;
    int           r, n;
    int32_t       out[5], in[5];
    gdc_request_t reqs[10];

    CHECK_OK(gdc_comm_dup(GDC_COMM_WORLD, &dup));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, rank % 2, rank, &parity));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, 0, size - rank, &reversed));
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, rank == 0 ? 0 : GDC_UNDEFINED, 0, &none));
    CHECK_OK(gdc_comm_dup(dup, &dupdup));

    CHECK_OK(gdc_comm_rank(dup, &r));
    CHECK_OK(gdc_comm_size(dup, &n));
    CHECK(r == rank && n == size, "dup: rank %d size %d", r, n);
    CHECK_OK(gdc_comm_rank(parity, &r));
    CHECK_OK(gdc_comm_size(parity, &n));
    CHECK(r == rank / 2 && n == (size + 1 - rank % 2) / 2, "parity split: rank %d size %d", r, n);
    CHECK_OK(gdc_comm_rank(reversed, &r));
    CHECK(r == size - 1 - rank, "reversed keys: rank %d", r);
    if (rank == 0) {
        CHECK_OK(gdc_comm_size(none, &n));
        CHECK(n == 1, "single-member split has size %d", n);
    } else {
        CHECK(none == GDC_COMM_NULL, "GDC_UNDEFINED did not give GDC_COMM_NULL");
    }

    /* The same user tag on five communicators at once: nothing may cross over. */
    for (int iter = 0; iter < 50; iter++) {
        post_ring(GDC_COMM_WORLD, 1, 7, &out[0], &in[0], &reqs[0]);
        post_ring(dup, 2, 7, &out[1], &in[1], &reqs[2]);
        post_ring(parity, 3 + rank % 2, 7, &out[2], &in[2], &reqs[4]);
        post_ring(reversed, 5, 7, &out[3], &in[3], &reqs[6]);
        post_ring(dupdup, 6, 7, &out[4], &in[4], &reqs[8]);
        CHECK_OK(gdc_waitall(10, reqs));
        check_ring(GDC_COMM_WORLD, 1, in[0]);
        check_ring(dup, 2, in[1]);
        check_ring(parity, 3 + rank % 2, in[2]);
        check_ring(reversed, 5, in[3]);
        check_ring(dupdup, 6, in[4]);
    }

    if (none != GDC_COMM_NULL) {
        CHECK_OK(gdc_comm_free(&none));
    }
    CHECK_OK(gdc_comm_free(&dupdup));
    CHECK_OK(gdc_comm_free(&reversed));
    CHECK_OK(gdc_comm_free(&parity));
    CHECK(parity == GDC_COMM_NULL, "free did not reset the handle");
    CHECK_STATUS(gdc_comm_size(dup, NULL), GDC_ERR_INVALID_ARG);
    CHECK_STATUS(gdc_comm_free(&parity), GDC_ERR_INVALID_ARG);

    /* many short-lived communicators: ids must stay distinct while alive */
    for (int i = 0; i < 200; i++) {
        gdc_comm_t c;
        CHECK_OK(gdc_comm_split(dup, i % 3 == 0 ? 0 : rank % 3, rank, &c));
        post_ring(c, 7, 1, &out[0], &in[0], &reqs[0]);
        CHECK_OK(gdc_waitall(2, reqs));
        check_ring(c, 7, in[0]);
        CHECK_OK(gdc_comm_free(&c));
    }
    CHECK_OK(gdc_comm_free(&dup));
}

static void test_self(void)
{
    int32_t       out = 42 + rank, in = 0;
    gdc_request_t req;

    CHECK_OK(gdc_irecv(&in, 1, GDC_INT32, rank, 3, GDC_COMM_WORLD, &req));
    CHECK_OK(gdc_send(&out, 1, GDC_INT32, rank, 3, GDC_COMM_WORLD));
    CHECK_OK(gdc_wait(&req));
    CHECK(in == 42 + rank, "self message: %d", in);
}

static void test_singleton(void)
{
    CHECK(size == 1 && rank == 0, "without a launcher: rank %d of %d", rank, size);
    test_self();
    test_ring();
}

/* The last rank receives nothing for 1.5 x GDC_TIMEOUT: each other rank's send of 1 MiB to
 * it (told, where it shares the node: the answer never comes) must end with
 * GDC_ERR_TIMEOUT, not wait for ever. */
static void test_timeout(void)
{
    size_t      n       = (size_t)1 << 20;
    char       *buf     = check_malloc(n);
    const char *timeout = getenv("GDC_TIMEOUT");

    CHECK(size > 1, "needs two ranks");
    memset(buf, 7, n);
    if (rank == size - 1) {
        usleep((useconds_t)(1.5e6 * (timeout != NULL ? atof(timeout) : 2.0)));
    } else {
        int status = gdc_send(buf, n, GDC_BYTE, size - 1, 9, GDC_COMM_WORLD);
        CHECK(status == GDC_ERR_TIMEOUT, "send returned %d (%s), expected GDC_ERR_TIMEOUT", status,
              gdc_strerror(status));
        printf("rank %d: send timed out as expected\n", rank);
        fflush(stdout);
    }
    free(buf);
}

/* A told send that times out withdraws its tale: the receive posted after it, which reads
 * a buffer the sender has had back since, must fail, not deliver what is there now, and
 * with the send's reason, GDC_ERR_TIMEOUT (run with GDC_TIMEOUT on 2 ranks; the receiver
 * posts at 1.6 times it). */
static void test_withdrawn(void)
{
    size_t      n       = 65536;
    char       *buf     = check_malloc(n);
    const char *timeout = getenv("GDC_TIMEOUT");
    double      t       = timeout != NULL ? atof(timeout) : 3.0;

    CHECK(size == 2, "needs two ranks");
    if (rank == 0) {
        int status;
        memset(buf, 'A', n);
        status = gdc_send(buf, n, GDC_BYTE, 1, 9, GDC_COMM_WORLD);
        CHECK(status == GDC_ERR_TIMEOUT, "send returned %d (%s), expected GDC_ERR_TIMEOUT", status,
              gdc_strerror(status));
        memset(buf, 'Z', n); /* the sender's again */
        printf("rank 0: send timed out as expected\n");
    } else {
        int status;
        usleep((useconds_t)(1.6e6 * t));
        status = gdc_recv(buf, n, GDC_BYTE, 0, 9, GDC_COMM_WORLD);
        CHECK(status == GDC_ERR_TIMEOUT, "the receive of a withdrawn message returned %d (%s), byte 0 '%c'", status,
              gdc_strerror(status), buf[0]);
        printf("rank 1: the withdrawn message was refused as expected\n");
    }
    fflush(stdout);
    free(buf);
}

/* More told sends in flight than a rank has words for its tales (GDC_RT_SHM_TALES, 256):
 * 300 messages of 16 KiB with one tag around the ring, all posted before their receives;
 * the ones past the words go through UCX, and all must arrive, in order. */
static void test_inflight(void)
{
    enum { COUNT = 300 };
    size_t         n     = 16384;
    int            right = (rank + 1) % size, left = (rank - 1 + size) % size;
    uint8_t       *out   = check_malloc(COUNT * n), *in = check_malloc(COUNT * n);
    gdc_request_t *reqs  = check_malloc(2 * COUNT * sizeof(*reqs));

    for (int k = 0; k < COUNT; k++) {
        fill(out + (size_t)k * n, n, rank, right, k);
        CHECK_OK(gdc_isend(out + (size_t)k * n, n, GDC_BYTE, right, 70, GDC_COMM_WORLD, &reqs[k]));
    }
    CHECK_OK(gdc_barrier(GDC_COMM_WORLD)); /* every tale told before any receive */
    memset(in, 0xee, COUNT * n);
    for (int k = 0; k < COUNT; k++) {
        CHECK_OK(gdc_irecv(in + (size_t)k * n, n, GDC_BYTE, left, 70, GDC_COMM_WORLD, &reqs[COUNT + k]));
    }
    CHECK_OK(gdc_waitall(2 * COUNT, reqs));
    for (int k = 0; k < COUNT; k++) {
        verify(in + (size_t)k * n, n, left, rank, k);
    }
    free(reqs);
    free(in);
    free(out);
}

/* Every posted receive ends the send it matches, whatever request its rank waits for:
 * around the ring each rank posts its send to the right and its receive from the left and
 * waits for both with the send first (a told send ends only once its receiver has read it,
 * and the receiver is waiting for its own send); then two receives of a pair waited for in
 * the reverse of their sends' order. Sizes from under GDC_MSG_CMA to well over it. */
static void test_progress(void)
{
    static const size_t sizes[] = {1000, 16384, 65536, (size_t)1 << 20};
    int                 right = (rank + 1) % size, left = (rank - 1 + size) % size;

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t        n   = sizes[i];
        uint8_t      *out = check_malloc(n), *in = check_malloc(n), *second = check_malloc(n);
        gdc_request_t reqs[2];

        fill(out, n, rank, right, (int)i);
        memset(in, 0xee, n);
        CHECK_OK(gdc_isend(out, n, GDC_BYTE, right, 40 + (int)i, GDC_COMM_WORLD, &reqs[0]));
        CHECK_OK(gdc_irecv(in, n, GDC_BYTE, left, 40 + (int)i, GDC_COMM_WORLD, &reqs[1]));
        CHECK_OK(gdc_waitall(2, reqs));
        verify(in, n, left, rank, (int)i);
        /* pairs (0,1), (2,3), ...: the odd one sends A then B, blocking; the even one waits
         * for B first */
        if ((rank ^ 1) < size) {
            int peer = rank ^ 1;
            if (rank % 2 == 1) {
                fill(out, n, rank, peer, 100 + (int)i);
                CHECK_OK(gdc_send(out, n, GDC_BYTE, peer, 60, GDC_COMM_WORLD));
                fill(out, n, rank, peer, 200 + (int)i);
                CHECK_OK(gdc_send(out, n, GDC_BYTE, peer, 61, GDC_COMM_WORLD));
            } else {
                gdc_request_t a, b;
                CHECK_OK(gdc_irecv(in, n, GDC_BYTE, peer, 60, GDC_COMM_WORLD, &a));
                CHECK_OK(gdc_irecv(second, n, GDC_BYTE, peer, 61, GDC_COMM_WORLD, &b));
                CHECK_OK(gdc_wait(&b));
                CHECK_OK(gdc_wait(&a));
                verify(in, n, peer, rank, 100 + (int)i);
                verify(second, n, peer, rank, 200 + (int)i);
            }
        }
        free(second);
        free(in);
        free(out);
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"ring", test_ring},         {"allpairs", test_allpairs},       {"sizes", test_sizes},
        {"truncate", test_truncate}, {"nonblocking", test_nonblocking}, {"large", test_large}, {"comms", test_comms},
        {"self", test_self},         {"singleton", test_singleton},     {"timeout", test_timeout},
        {"progress", test_progress}, {"withdrawn", test_withdrawn}, {"inflight", test_inflight},
    };

    if (argc != 2) {
        fprintf(stderr, "usage: p2p_test <case>\n");
        return 2;
    }
    CHECK_OK(gdc_init(&argc, &argv));
    CHECK_OK(gdc_comm_rank(GDC_COMM_WORLD, &rank));
    CHECK_OK(gdc_comm_size(GDC_COMM_WORLD, &size));
    check_rank = rank;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            CHECK_OK(gdc_finalize());
            return 0;
        }
    }
    fprintf(stderr, "p2p_test: unknown case %s\n", argv[1]);
    gdc_finalize();
    return 2;
}
