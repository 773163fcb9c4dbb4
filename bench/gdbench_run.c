/*
 * The benchmark loop, the same for every backend.
 *
 * Timing follows OSU. Collectives: each call is timed alone and a barrier separates
 * iterations, outside the timed region (osu_allreduce; --with-barrier times the two).
 * Point-to-point: the whole loop is timed after the warm-up (osu_latency: half the round
 * trip; osu_bw, osu_bibw: windows of 64 nonblocking messages). Each rank averages its own calls; the row shows the average,
 * minimum and maximum of those averages across ranks.
 *
 * With -c every iteration is validated: the inputs are refilled from prepared images
 * (alternating two salts, so a stale result is caught), a barrier follows, the call alone
 * is timed, and the result is compared with the expected image; for point-to-point this
 * adds a barrier per iteration.
 *
 * Errors: before timing a size, each rank makes one untimed call. When the backend says
 * "not supported" (a symmetric condition: every rank gets it for the same arguments), the
 * ranks agree on it and end cleanly with exit status 3. Any other failure is reported by
 * the rank that saw it, which then ends the job: the others may be waiting on it.
 */
#include "gdbench.h"
#include "gdbench_backend.h"

#include <stdlib.h>
#include <string.h>

#define TAG_DATA 1
#define TAG_ACK  2
#define ACK_BYTES 4
#define MAX_VALIDATION_MESSAGES 5

typedef struct {
    const gdbench_options_t *opts;
    gdbench_report_t        *report;
    int                      rank, nranks, peer;
    size_t                   esize;
    void                    *sendbuf, *recvbuf;     /* in opts->memory */
    size_t                   send_bytes, recv_bytes; /* allocated */
    void                    *staging;               /* host copy of recvbuf (-c, cuda) */
    gdbench_images_t         images[2];             /* -c: one per salt, host memory */
    size_t                  *counts;                /* alltoallv: 4 arrays of nranks */
    gdbench_layout_t         layout;
    gdbench_call_t           call;
    int                      injector;              /* --inject-error on this rank */
    int                      messages;              /* validation messages printed */
} run_t;

/* A failure other ranks may be blocked on: say which rank and what, then end the job. */
static void fail_now(const run_t *run, const char *what)
{
    gdbench_progress_clear();
    fprintf(stderr, "%s: rank %d: %s, size %zu: %s failed: %s\n", gdbench_be_program(), run->rank,
            gdbench_test_info(run->opts->test)->name, run->layout.size, what, gdbench_error());
    fflush(stderr);
    gdbench_be_abort(GDBENCH_EXIT_FAILED);
}

/* ---------------------------------------------------------------------------------------
 * Buffers
 */
static int sweep_sizes(const gdbench_options_t *opts, size_t *sizes, int max_sizes)
{
    int n = 0;

    if (opts->test == GDBENCH_BARRIER) {
        sizes[0] = 0;
        return 1;
    }
    for (size_t s = opts->min_size; s <= opts->max_size && n < max_sizes;) {
        sizes[n++] = s;
        if (s > opts->max_size / 2) {
            break;
        }
        s = s == 0 ? 1 : s * 2; /* OSU: 0, 1, 2, 4, ... */
    }
    return n;
}

static int alloc_host(size_t bytes, void **ptr)
{
    return gdbench_mem_alloc(GDBENCH_MEM_HOST, bytes, ptr);
}

static int alloc_buffers(run_t *run, const size_t *sizes, int nsizes)
{
    const gdbench_options_t *opts = run->opts;
    size_t                   send = 0, recv = 0;
    gdbench_layout_t         l;

    for (int i = 0; i < nsizes; i++) {
        if (gdbench_layout_for(opts, sizes[i], run->rank, run->nranks, &l) == GDBENCH_OK) {
            send = l.send_elems * run->esize > send ? l.send_elems * run->esize : send;
            recv = l.recv_elems * run->esize > recv ? l.recv_elems * run->esize : recv;
        }
    }
    run->send_bytes = send;
    run->recv_bytes = recv;
    if (gdbench_mem_alloc(opts->memory, send, &run->sendbuf) != GDBENCH_OK ||
        gdbench_mem_alloc(opts->memory, recv, &run->recvbuf) != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    if (opts->validate) {
        for (int s = 0; s < 2; s++) {
            if (alloc_host(send, &run->images[s].send) != GDBENCH_OK ||
                alloc_host(recv, &run->images[s].recv_init) != GDBENCH_OK ||
                alloc_host(recv, &run->images[s].expect) != GDBENCH_OK) {
                return GDBENCH_ERR;
            }
        }
        if (opts->memory != GDBENCH_MEM_HOST && alloc_host(recv, &run->staging) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
    }
    if (opts->test == GDBENCH_ALLTOALLV) {
        run->counts = calloc(4 * (size_t)run->nranks, sizeof(size_t));
        if (run->counts == NULL) {
            gdbench_set_error("out of memory for alltoallv counts");
            return GDBENCH_ERR;
        }
    }
    return GDBENCH_OK;
}

static void free_buffers(run_t *run)
{
    free(run->counts);
    gdbench_mem_free(GDBENCH_MEM_HOST, run->staging);
    for (int s = 1; s >= 0; s--) {
        gdbench_mem_free(GDBENCH_MEM_HOST, run->images[s].expect);
        gdbench_mem_free(GDBENCH_MEM_HOST, run->images[s].recv_init);
        gdbench_mem_free(GDBENCH_MEM_HOST, run->images[s].send);
    }
    gdbench_mem_free(run->opts->memory, run->recvbuf);
    gdbench_mem_free(run->opts->memory, run->sendbuf);
}

/* Put the inputs of salt in place (the buffers as the call expects them). */
static int fill_inputs(run_t *run, const gdbench_images_t *img)
{
    const gdbench_memory_t mem = run->opts->memory;

    if (gdbench_mem_put(mem, run->sendbuf, img->send, run->layout.send_elems * run->esize) != GDBENCH_OK ||
        gdbench_mem_put(mem, run->recvbuf, img->recv_init, run->layout.recv_elems * run->esize) != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}

/* Without -c: fill the buffers once with the inputs, so that floats are ordinary numbers
 * (a NaN or a denormal can slow arithmetic down) and every page is touched. */
static int fill_once(run_t *run)
{
    gdbench_images_t img = {run->sendbuf, run->recvbuf, NULL};
    int              status;

    if (run->opts->memory == GDBENCH_MEM_HOST) {
        gdbench_images_build(run->opts, &run->layout, run->rank, run->nranks, 0, &img);
        return GDBENCH_OK;
    }
    img.send = img.recv_init = NULL;
    if (alloc_host(run->layout.send_elems * run->esize, &img.send) != GDBENCH_OK ||
        alloc_host(run->layout.recv_elems * run->esize, &img.recv_init) != GDBENCH_OK) {
        status = GDBENCH_ERR;
    } else {
        gdbench_images_build(run->opts, &run->layout, run->rank, run->nranks, 0, &img);
        status = fill_inputs(run, &img);
    }
    gdbench_mem_free(GDBENCH_MEM_HOST, img.recv_init);
    gdbench_mem_free(GDBENCH_MEM_HOST, img.send);
    return status;
}

/* ---------------------------------------------------------------------------------------
 * One iteration's operation
 */
static void setup_call(run_t *run)
{
    const gdbench_options_t *opts    = run->opts;
    unsigned                 flags   = gdbench_test_info(opts->test)->flags;
    int                      is_root = run->rank == opts->root;
    gdbench_call_t          *c       = &run->call;
    size_t                   n       = (size_t)run->nranks;

    memset(c, 0, sizeof(*c));
    c->test     = opts->test;
    c->sendbuf  = run->sendbuf;
    c->recvbuf  = run->recvbuf;
    c->count    = run->layout.count;
    c->dtype    = opts->dtype;
    c->op       = opts->op;
    c->root     = opts->root;
    /* rooted collectives are in place at the root only (gdc.h and MPI alike) */
    c->in_place = opts->in_place && (!(flags & GDBENCH_F_ROOTED) || is_root);
    if (opts->test == GDBENCH_ALLTOALLV) {
        size_t *sc = run->counts, *sd = sc + n, *rc = sd + n, *rd = rc + n;
        for (size_t p = 0; p < n; p++) {
            sc[p] = rc[p] = run->layout.count;
            sd[p] = rd[p] = p * run->layout.count;
        }
        c->sendcounts = sc;
        c->sdispls    = sd;
        c->recvcounts = rc;
        c->rdispls    = rd;
    }
}

static int op_latency(run_t *run, size_t bytes)
{
    if (run->rank == 0) {
        if (gdbench_be_send(run->sendbuf, bytes, run->peer, TAG_DATA) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
        return gdbench_be_recv(run->recvbuf, bytes, run->peer, TAG_DATA);
    }
    if (gdbench_be_recv(run->recvbuf, bytes, run->peer, TAG_DATA) != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    return gdbench_be_send(run->sendbuf, bytes, run->peer, TAG_DATA);
}

/* osu_bw: rank 0 sends a window, rank 1 receives it and answers with a short ack. */
static int op_bw(run_t *run, size_t bytes)
{
    if (run->rank == 0) {
        for (int j = 0; j < GDBENCH_WINDOW; j++) {
            if (gdbench_be_isend(run->sendbuf, bytes, run->peer, TAG_DATA, j) != GDBENCH_OK) {
                return GDBENCH_ERR;
            }
        }
        if (gdbench_be_waitall(GDBENCH_WINDOW) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
        return gdbench_be_recv(run->recvbuf, ACK_BYTES, run->peer, TAG_ACK);
    }
    for (int j = 0; j < GDBENCH_WINDOW; j++) {
        if (gdbench_be_irecv(run->recvbuf, bytes, run->peer, TAG_DATA, j) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
    }
    if (gdbench_be_waitall(GDBENCH_WINDOW) != GDBENCH_OK) {
        return GDBENCH_ERR;
    }
    return gdbench_be_send(run->sendbuf, ACK_BYTES, run->peer, TAG_ACK);
}

/* osu_bibw: both ranks post a window of receives and a window of sends. */
static int op_bibw(run_t *run, size_t bytes)
{
    for (int j = 0; j < GDBENCH_WINDOW; j++) {
        if (gdbench_be_irecv(run->recvbuf, bytes, run->peer, TAG_DATA, j) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
    }
    for (int j = 0; j < GDBENCH_WINDOW; j++) {
        if (gdbench_be_isend(run->sendbuf, bytes, run->peer, TAG_DATA, GDBENCH_WINDOW + j) != GDBENCH_OK) {
            return GDBENCH_ERR;
        }
    }
    return gdbench_be_waitall(2 * GDBENCH_WINDOW);
}

static int do_op(run_t *run)
{
    size_t bytes = run->layout.count * run->esize;

    switch (run->opts->test) {
    case GDBENCH_LATENCY: return op_latency(run, bytes);
    case GDBENCH_BW: return op_bw(run, bytes);
    case GDBENCH_BIBW: return op_bibw(run, bytes);
    default: return gdbench_be_collective(&run->call);
    }
}

/* ---------------------------------------------------------------------------------------
 * Validation
 */
static void report_mismatch(run_t *run, long iteration, long calls, size_t wrong, size_t first_bad, const void *got)
{
    char got_text[64], want_text[64];

    if (run->messages++ >= MAX_VALIDATION_MESSAGES) {
        return;
    }
    gdbench_dtype_format(got, first_bad, run->opts->dtype, got_text, sizeof(got_text));
    gdbench_dtype_format(run->images[iteration & 1].expect, first_bad, run->opts->dtype, want_text,
                         sizeof(want_text));
    gdbench_progress_clear();
    fprintf(stderr,
            "%s: validation failed on rank %d: %s, size %zu, call %ld of %ld: %zu of %zu elements wrong; "
            "first at element %zu: got %s, expected %s\n",
            gdbench_be_program(), run->rank, gdbench_test_info(run->opts->test)->name, run->layout.size,
            iteration + 1, calls, wrong, run->layout.check_elems, first_bad, got_text, want_text);
    if (run->messages == MAX_VALIDATION_MESSAGES) {
        fprintf(stderr, "%s: rank %d: (further validation messages suppressed)\n", gdbench_be_program(),
                run->rank);
    }
}

/* Returns 1 when the result of this iteration is right. */
static int verify(run_t *run, long iteration, long calls, int inject)
{
    const gdbench_layout_t *l    = &run->layout;
    void                   *view = run->recvbuf;
    size_t                  wrong, first_bad = 0;

    if (l->check_elems == 0) {
        return 1;
    }
    if (run->opts->memory != GDBENCH_MEM_HOST) {
        if (gdbench_mem_get(run->opts->memory, run->staging, run->recvbuf, l->recv_elems * run->esize) !=
            GDBENCH_OK) {
            fail_now(run, "copying the result to the host");
        }
        view = run->staging;
    }
    if (inject) { /* the harness's self-test: one wrong bit in one element */
        ((unsigned char *)view)[(l->check_offset + l->check_elems / 2) * run->esize] ^= 1u;
    }
    wrong = gdbench_check(run->opts->dtype, l, view, run->images[iteration & 1].expect, &first_bad);
    if (wrong == 0) {
        return 1;
    }
    report_mismatch(run, iteration, calls, wrong, first_bad, view);
    return 0;
}

/* --inject-error corrupts the result on one rank that checks one: the last such rank. */
static int is_injector(const run_t *run, size_t size)
{
    gdbench_layout_t l;

    for (int r = run->nranks - 1; r >= 0; r--) {
        if (gdbench_layout_for(run->opts, size, r, run->nranks, &l) == GDBENCH_OK && l.check_elems > 0) {
            return r == run->rank;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * One size
 */
static int agree_on_support(run_t *run, int status)
{
    double unsupported = status == GDBENCH_UNSUPPORTED ? 1.0 : 0.0;

    if (gdbench_be_reduce_doubles(&unsupported, 1, GDBENCH_STAT_MAX) != GDBENCH_OK) {
        fail_now(run, "agreeing on the status");
    }
    if (unsupported == 0.0) {
        return GDBENCH_OK;
    }
    if (run->rank == 0) {
        gdbench_progress_clear();
        fprintf(stderr, "%s: %s is not supported by %s: %s\n", gdbench_be_program(),
                gdbench_test_info(run->opts->test)->name, run->report->library,
                status == GDBENCH_UNSUPPORTED ? gdbench_error() : "(reported by another rank)");
    }
    return GDBENCH_UNSUPPORTED;
}

static void iterations_for(const run_t *run, size_t size, long *iterations, long *warmup)
{
    gdbench_default_iterations(run->opts->test, size, iterations, warmup);
    if (run->opts->iterations > 0) {
        *iterations = run->opts->iterations;
    }
    if (run->opts->warmup >= 0) {
        *warmup = run->opts->warmup;
    }
}

/* Seconds per call on this rank, and whether every result was right. */
static void time_size(run_t *run, long iterations, long warmup, double *seconds, int *all_right)
{
    const gdbench_options_t *opts       = run->opts;
    int                      p2p        = (gdbench_test_info(opts->test)->flags & GDBENCH_F_P2P) != 0;
    int                      whole_loop = p2p && !opts->validate;
    double                   total = 0.0, t_start = 0.0, t0 = 0.0;

    *all_right = 1;
    if (gdbench_be_barrier() != GDBENCH_OK) {
        fail_now(run, "the barrier");
    }
    for (long i = 0; i < warmup + iterations; i++) {
        if (opts->validate) {
            if (fill_inputs(run, &run->images[i & 1]) != GDBENCH_OK) {
                fail_now(run, "filling the buffers");
            }
            if (gdbench_be_barrier() != GDBENCH_OK) {
                fail_now(run, "the barrier");
            }
        }
        if (whole_loop && i == warmup) {
            t_start = gdbench_be_wtime();
        }
        if (!whole_loop) {
            t0 = gdbench_be_wtime();
        }
        if (do_op(run) != GDBENCH_OK) {
            fail_now(run, gdbench_test_info(opts->test)->name);
        }
        if (!whole_loop && i >= warmup && !opts->with_barrier) {
            total += gdbench_be_wtime() - t0;
        }
        if (opts->validate) {
            *all_right &= verify(run, i, warmup + iterations, run->injector && i == warmup);
        } else if (!whole_loop && gdbench_be_barrier() != GDBENCH_OK) {
            fail_now(run, "the barrier");
        }
        if (opts->with_barrier && i >= warmup) {
            total += gdbench_be_wtime() - t0;
        }
    }
    if (whole_loop) {
        total = gdbench_be_wtime() - t_start;
    }
    *seconds = total / (double)iterations;
    if (opts->test == GDBENCH_LATENCY) {
        *seconds /= 2.0; /* half the round trip */
    } else if (opts->test == GDBENCH_BW || opts->test == GDBENCH_BIBW) {
        *seconds /= GDBENCH_WINDOW; /* per message of the window */
    }
}

static void fill_row(const run_t *run, long iterations, double min_s, double max_s, double sum_s, int all_right,
                     gdbench_row_t *row)
{
    double avg_s = sum_s / run->nranks;

    memset(row, 0, sizeof(*row));
    row->size       = run->layout.size;
    row->count      = run->layout.count;
    row->bytes      = run->layout.bytes;
    row->avg_us     = avg_s * 1e6;
    row->min_us     = min_s * 1e6;
    row->max_us     = max_s * 1e6;
    row->iterations = iterations;
    if (avg_s > 0.0) {
        row->algbw = run->layout.bytes / avg_s / 1e9;
        row->busbw = row->algbw * gdbench_busbw_factor(run->opts->test, run->nranks);
        row->mbps  = run->layout.bytes / avg_s / 1e6;
    }
    row->validation = !run->opts->validate ? GDBENCH_UNCHECKED : all_right ? GDBENCH_PASS : GDBENCH_FAIL;
}

static int run_size(run_t *run, size_t size, gdbench_row_t *row)
{
    const gdbench_options_t *opts = run->opts;
    long                     iterations, warmup;
    double                   seconds, stats_min, stats_max[2], stats_sum;
    int                      status, all_right;

    if (gdbench_layout_for(opts, size, run->rank, run->nranks, &run->layout) != GDBENCH_OK) {
        return GDBENCH_ERR; /* too small for one element: skipped (the same on every rank) */
    }
    iterations_for(run, size, &iterations, &warmup);
    setup_call(run);
    run->injector = opts->inject_error && is_injector(run, size);

    if (opts->validate) {
        gdbench_images_build(opts, &run->layout, run->rank, run->nranks, 0, &run->images[0]);
        gdbench_images_build(opts, &run->layout, run->rank, run->nranks, 1, &run->images[1]);
        status = fill_inputs(run, &run->images[0]);
    } else {
        status = fill_once(run);
    }
    if (status != GDBENCH_OK) {
        fail_now(run, "filling the buffers");
    }

    /* the untimed probe call: "not supported" ends the run cleanly on every rank */
    status = gdbench_test_info(opts->test)->flags & GDBENCH_F_P2P ? GDBENCH_OK : gdbench_be_prepare(&run->call);
    if (status == GDBENCH_OK) {
        status = do_op(run);
    }
    if (status == GDBENCH_ERR) {
        fail_now(run, gdbench_test_info(opts->test)->name);
    }
    if (agree_on_support(run, status) != GDBENCH_OK) {
        gdbench_be_release(&run->call);
        return GDBENCH_UNSUPPORTED;
    }

    time_size(run, iterations, warmup, &seconds, &all_right);
    gdbench_be_release(&run->call);

    stats_min    = seconds;
    stats_max[0] = seconds;
    stats_max[1] = all_right ? 0.0 : 1.0;
    stats_sum    = seconds;
    if (gdbench_be_reduce_doubles(&stats_min, 1, GDBENCH_STAT_MIN) != GDBENCH_OK ||
        gdbench_be_reduce_doubles(stats_max, 2, GDBENCH_STAT_MAX) != GDBENCH_OK ||
        gdbench_be_reduce_doubles(&stats_sum, 1, GDBENCH_STAT_SUM) != GDBENCH_OK) {
        fail_now(run, "the statistics across ranks");
    }
    fill_row(run, iterations, stats_min, stats_max[0], stats_sum, stats_max[1] == 0.0, row);
    return GDBENCH_OK;
}

#define MAX_SIZES 80

int gdbench_run(const gdbench_options_t *opts, gdbench_report_t *report, int rank, int nranks)
{
    run_t  run = {0};
    size_t sizes[MAX_SIZES];
    int    nsizes, status, exit_status = GDBENCH_EXIT_OK;

    run.opts   = opts;
    run.report = report;
    run.rank   = rank;
    run.nranks = nranks;
    run.peer   = 1 - rank;
    run.esize  = gdbench_dtype_info(opts->dtype)->size;
    nsizes     = sweep_sizes(opts, sizes, MAX_SIZES);

    run.layout.size = nsizes > 0 ? sizes[nsizes - 1] : 0; /* for the message, should it fail */
    if (alloc_buffers(&run, sizes, nsizes) != GDBENCH_OK) {
        fail_now(&run, "allocating the buffers");
    }
    if (rank == 0 && opts->memory != GDBENCH_MEM_HOST) {
        report->d2d_gbps = gdbench_mem_cuda_copy_gbps();
    }
    for (int i = 0; i < nsizes; i++) {
        gdbench_row_t row;

        if (rank == 0) {
            gdbench_progress(report, sizes[i], i, nsizes);
        }
        status = run_size(&run, sizes[i], &row);
        if (status == GDBENCH_UNSUPPORTED) {
            exit_status = GDBENCH_EXIT_UNSUPPORTED;
            break;
        }
        if (status != GDBENCH_OK) {
            continue;
        }
        if (row.validation == GDBENCH_FAIL) {
            report->validation_failed = 1;
            exit_status               = GDBENCH_EXIT_FAILED;
        }
        if (gdbench_report_add(report, &row) != GDBENCH_OK) {
            fail_now(&run, "recording the row");
        }
        if (rank == 0) {
            gdbench_progress_clear();
            if (report->nrows == 1) { /* the header waits for a first row: none when unsupported */
                gdbench_output_header(report);
            }
            gdbench_output_row(report, &row);
        }
    }
    if (rank == 0) {
        gdbench_progress_clear();
    }
    if (exit_status == GDBENCH_EXIT_OK && report->nrows == 0) {
        if (rank == 0) {
            fprintf(stderr, "%s: -m: no size from %zu to %zu bytes holds one %s element%s\n", gdbench_be_program(),
                    opts->min_size, opts->max_size, gdbench_dtype_info(opts->dtype)->name,
                    opts->test == GDBENCH_REDUCE_SCATTER ? " per rank" : "");
        }
        exit_status = GDBENCH_EXIT_USAGE;
    }
    free_buffers(&run);
    return exit_status;
}
