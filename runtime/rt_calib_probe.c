/*
 * The probes behind gdc_rt_calib_probe (rt_calib.h). The two-process ones fork a child that
 * shares one anonymous mapping with the parent; every wait has a deadline, so a child that
 * dies or never starts costs a warning and a 0, never a hang.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "gdc_rt.h"
#include "rt_calib.h"
#include "rt_ucx.h"

#define PROBE_BYTES     ((size_t)32 << 20) /* two of them pass the last-level cache of most nodes */
#define PROBE_REPEATS   9
#define PROBE_DEADLINE  10.0 /* seconds any one wait of a probe may take (a partner descheduled on a loaded machine) */
#define PROBE_BATCHES   9 /* round trips are timed in batches: the median batch counts */
#define SIGNAL_TRIPS    500
#define UCX_SMALL_TRIPS 300
#define UCX_LARGE_BYTES ((size_t)32 << 20)
#define UCX_ADDR_MAX    16384

typedef struct probe_shared {
    _Alignas(64) atomic_ulong ping;
    _Alignas(64) atomic_ulong pong;
    _Alignas(64) atomic_int   child_ready;
    atomic_int                parent_done;
    atomic_uintptr_t          buffer[2];   /* in a job: each one's buffer, in its process */
    atomic_uintptr_t          large[2];    /* in a job: each one's LARGE_BYTES, in its process */
    atomic_int                cpu[2];      /* in a job: the CPU each one ran on at its last step */
    atomic_int                last_round;  /* in a job: local rank 0 says the round is the last */
    atomic_size_t             addr_len[2]; /* UCX worker addresses: [0] parent, [1] child */
    unsigned char             addr[2][UCX_ADDR_MAX];
} probe_shared_t;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return v[n / 2];
}

/* Wait until *flag reaches value; 0 when it did before the deadline. A partner that does
 * not answer within a thousand spins is not running: the core is given up to it (on a
 * loaded node a spinning pair would trade whole time slices). */
static int wait_for(atomic_ulong *flag, unsigned long value, double deadline)
{
    int spins = 0;

    while (atomic_load_explicit(flag, memory_order_acquire) < value) {
        if (++spins % 1024 == 0) {
            if (gdc_wtime() > deadline) {
                return -1;
            }
            sched_yield();
        }
    }
    return 0;
}

static int wait_for_int(atomic_int *flag)
{
    double deadline = gdc_wtime() + PROBE_DEADLINE;

    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        if (gdc_wtime() > deadline) {
            return -1;
        }
        sched_yield();
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Two processes
 */

typedef double (*parent_probe_t)(probe_shared_t *sh, pid_t child, void *arg);
typedef void (*child_probe_t)(probe_shared_t *sh, void *arg);

/* Fork; the child runs its side and leaves, the parent measures. The child is reaped
 * before this returns, killed if it outlives the deadline. */
static double in_pair(const char *what, parent_probe_t parent, child_probe_t child, void *arg)
{
    probe_shared_t *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t           pid;
    double          result;
    double          deadline;
    int             wstatus;

    if (sh == MAP_FAILED) {
        GDC_LOG_WARN("calibration: %s not probed: mmap: %s", what, strerror(errno));
        return 0;
    }
    memset(sh, 0, sizeof(*sh));
    pid = fork();
    if (pid < 0) {
        GDC_LOG_WARN("calibration: %s not probed: fork: %s", what, strerror(errno));
        munmap(sh, sizeof(*sh));
        return 0;
    }
    if (pid == 0) {
        child(sh, arg);
        _exit(0);
    }
    result = parent(sh, pid, arg);
    atomic_store_explicit(&sh->parent_done, 1, memory_order_release);
    deadline = gdc_wtime() + PROBE_DEADLINE;
    while (waitpid(pid, &wstatus, WNOHANG) == 0) {
        if (gdc_wtime() > deadline) {
            kill(pid, SIGKILL);
            (void)waitpid(pid, &wstatus, 0);
            break;
        }
        usleep(1000);
    }
    munmap(sh, sizeof(*sh));
    if (result == 0) { /* below 0: the parent said why */
        GDC_LOG_WARN("calibration: %s not measured (the probe's partner did not answer in %.0f s)", what,
                     PROBE_DEADLINE);
    }
    return result;
}

/* dst += src, as floats: what the shm reductions do with a peer's part (restrict, so that
 * the compiler vectorizes it, as gdc's own kernels are). */
static void sum_floats(float *restrict dst, const float *restrict src, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        dst[i] += src[i];
    }
}

/* Copies and reductions run on both processes at once, as every rank of a collective runs
 * its own: what one of them achieves while the other competes for the memory is the rate
 * the model's ranks get. */
typedef enum { KERNEL_COPY, KERNEL_REDUCE } kernel_t;

typedef struct kernel_bufs {
    char *src, *dst;
} kernel_bufs_t;

static int kernel_open(kernel_bufs_t *k)
{
    k->src = malloc(PROBE_BYTES);
    k->dst = malloc(PROBE_BYTES);
    if (k->src == NULL || k->dst == NULL) {
        return -1;
    }
    for (size_t i = 0; i < PROBE_BYTES / sizeof(float); i++) {
        ((float *)k->src)[i] = (float)(i & 7);
        ((float *)k->dst)[i] = 0;
    }
    return 0;
}

static void kernel_close(kernel_bufs_t *k)
{
    free(k->dst);
    free(k->src);
}

static double kernel_run(kernel_bufs_t *k, kernel_t kernel)
{
    double start = gdc_wtime();

    if (kernel == KERNEL_COPY) {
        memcpy(k->dst, k->src, PROBE_BYTES);
    } else {
        sum_floats((float *)k->dst, (const float *)k->src, PROBE_BYTES / sizeof(float));
    }
    k->src[0] = k->dst[PROBE_BYTES - 1]; /* the results are used */
    return gdc_wtime() - start;
}

/* Round r: the parent says go (ping = r), both run the kernel, the child says done (pong). */
static void kernel_child(probe_shared_t *sh, void *arg)
{
    kernel_bufs_t k;

    if (kernel_open(&k) == 0) {
        atomic_store_explicit(&sh->child_ready, 1, memory_order_release);
        for (unsigned long r = 1; r <= PROBE_REPEATS; r++) {
            if (wait_for(&sh->ping, r, gdc_wtime() + PROBE_DEADLINE) != 0) {
                break;
            }
            (void)kernel_run(&k, *(kernel_t *)arg);
            atomic_store_explicit(&sh->pong, r, memory_order_release);
        }
    }
    kernel_close(&k);
}

static double kernel_parent(probe_shared_t *sh, pid_t child, void *arg)
{
    kernel_bufs_t k;
    double        took[PROBE_REPEATS], result = 0;

    (void)child;
    if (kernel_open(&k) == 0 && wait_for_int(&sh->child_ready) == 0) {
        unsigned long r = 1;
        for (; r <= PROBE_REPEATS; r++) {
            atomic_store_explicit(&sh->ping, r, memory_order_release);
            took[r - 1] = kernel_run(&k, *(kernel_t *)arg);
            /* each wait its own deadline: on a loaded machine the rounds together may take
             * longer than one (make check at -j2 on 2 cores missed 3 s for all of them) */
            if (wait_for(&sh->pong, r, gdc_wtime() + PROBE_DEADLINE) != 0) {
                break;
            }
        }
        result = r > PROBE_REPEATS ? PROBE_BYTES / median(took, PROBE_REPEATS) / 1e9 : 0;
    }
    kernel_close(&k);
    return result;
}

static void signal_child(probe_shared_t *sh, void *arg)
{
    double deadline = gdc_wtime() + PROBE_BATCHES * PROBE_DEADLINE;

    (void)arg;
    for (unsigned long i = 1; i <= (unsigned long)SIGNAL_TRIPS * PROBE_BATCHES; i++) {
        if (wait_for(&sh->ping, i, deadline) != 0) {
            return;
        }
        atomic_store_explicit(&sh->pong, i, memory_order_release);
    }
}

static double signal_parent(probe_shared_t *sh, pid_t child, void *arg)
{
    double        deadline = gdc_wtime() + PROBE_BATCHES * PROBE_DEADLINE, took[PROBE_BATCHES];
    unsigned long i        = 0;

    (void)child;
    (void)arg;
    for (int b = 0; b < PROBE_BATCHES; b++) {
        double start = gdc_wtime();
        for (int t = 0; t < SIGNAL_TRIPS; t++) {
            atomic_store_explicit(&sh->ping, ++i, memory_order_release);
            if (wait_for(&sh->pong, i, deadline) != 0) {
                return 0;
            }
        }
        took[b] = gdc_wtime() - start;
    }
    return median(took, PROBE_BATCHES) / SIGNAL_TRIPS / 2 * 1e6;
}

/* The child's copy of the buffer (the same address as the parent's, its own pages once
 * written) is what the parent reads across. */
static void cma_child(probe_shared_t *sh, void *arg)
{
    memset(arg, 3, PROBE_BYTES);
    atomic_store_explicit(&sh->child_ready, 1, memory_order_release);
    (void)wait_for_int(&sh->parent_done);
}

static double cma_parent(probe_shared_t *sh, pid_t child, void *arg)
{
    char        *dst = malloc(PROBE_BYTES);
    double       took[PROBE_REPEATS], result = 0;
    struct iovec local  = {dst, PROBE_BYTES};
    struct iovec remote = {arg, PROBE_BYTES};

    if (dst == NULL || wait_for_int(&sh->child_ready) != 0) {
        free(dst);
        return 0;
    }
    memset(dst, 0, PROBE_BYTES);
    for (int i = 0; i < PROBE_REPEATS; i++) {
        double  start = gdc_wtime();
        ssize_t got   = process_vm_readv(child, &local, 1, &remote, 1, 0);
        took[i]       = gdc_wtime() - start;
        if (got != (ssize_t)PROBE_BYTES) {
            GDC_LOG_WARN("calibration: cross-memory attach not measured: process_vm_readv: %s (ptrace rights; "
                         "/proc/sys/kernel/yama/ptrace_scope)",
                         got < 0 ? strerror(errno) : "short read");
            free(dst);
            return -1;
        }
    }
    result = PROBE_BYTES / median(took, PROBE_REPEATS) / 1e9;
    free(dst);
    return result;
}

/* What the pair probe (below) measures: a small read's time, what a cma algorithm pays per
 * call beside its bytes, and the in-cache rates of 256 KiB (a shared-memory chunk). What
 * the shm algorithms copy out is a chunk its writer has just written into shared memory,
 * so its lines come from the writer's core; what the cma ones read is the peer's user
 * buffer as the call finds it. */
#define CMA_CALL_BYTES   ((size_t)4096)
#define CMA_CALL_REPEATS 200
#define CACHED_BYTES     ((size_t)256 << 10)
#define HANDOFF_BYTES    ((size_t)16 << 10) /* under GDC_COLL_PEER_SMALL_BYTES */
/* Larger than a core's own cache: a copy of it pays what a large call's copies pay, and a
 * read across the page pinning of every page (bench/membw --cma: 1.26 times memcpy's time
 * at 4 and 16 MiB on the development VM of bench/RESULTS.md 2026-12-06 20:56, 2.2 to 3.4 on an earlier one) */
#define LARGE_BYTES      ((size_t)4 << 20)
#define LARGE_REPEATS    2

/* ---------------------------------------------------------------------------------------
 * UCX between two processes: what gdc's UCX does inside a node for host buffers
 */

typedef struct ucx_side {
    ucp_context_h context;
    ucp_worker_h  worker;
    ucp_ep_h      ep;
    void         *buf;
    int           handled; /* UCX error handling on the endpoint, shared memory kept */
} ucx_side_t;

static int ucx_wait(ucx_side_t *s, ucs_status_ptr_t req)
{
    double      deadline = gdc_wtime() + PROBE_DEADLINE;
    ucs_status_t status;

    if (req == NULL) {
        return 0;
    }
    if (UCS_PTR_IS_ERR(req)) {
        return -1;
    }
    while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        ucp_worker_progress(s->worker);
        if (gdc_wtime() > deadline) {
            ucp_request_cancel(s->worker, req);
            while (ucp_request_check_status(req) == UCS_INPROGRESS) {
                ucp_worker_progress(s->worker);
            }
            ucp_request_free(req);
            return -1;
        }
    }
    ucp_request_free(req);
    return status == UCS_OK ? 0 : -1;
}

static void ucx_side_close(ucx_side_t *s)
{
    if (s->ep != NULL) {
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
        (void)ucx_wait(s, ucp_ep_close_nbx(s->ep, &param));
    }
    if (s->worker != NULL) {
        ucp_worker_destroy(s->worker);
    }
    if (s->context != NULL) {
        ucp_cleanup(s->context);
    }
    free(s->buf);
}

/* Bring up a context and a worker, swap addresses through the mapping, connect. */
static int ucx_side_open(ucx_side_t *s, probe_shared_t *sh, int me)
{
    ucp_params_t        params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
    ucp_worker_params_t wparams = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                                   .thread_mode = UCS_THREAD_MODE_SINGLE};
    ucp_ep_params_t     eparams;
    ucp_address_t      *addr;
    size_t              len;

    memset(s, 0, sizeof(*s));
    /* connected as gdc connects the ranks of a node (rt_ucx.c), so that what is measured is
     * what runs */
    s->handled = gdc_rt_ucx_keep_shm_with_error_handling();
    if ((s->buf = calloc(2, UCX_LARGE_BYTES)) == NULL || ucp_init(&params, NULL, &s->context) != UCS_OK ||
        ucp_worker_create(s->context, &wparams, &s->worker) != UCS_OK ||
        ucp_worker_get_address(s->worker, &addr, &len) != UCS_OK) {
        return -1;
    }
    if (len > UCX_ADDR_MAX) {
        ucp_worker_release_address(s->worker, addr);
        return -1;
    }
    memcpy(sh->addr[me], addr, len);
    atomic_store_explicit(&sh->addr_len[me], len, memory_order_release);
    ucp_worker_release_address(s->worker, addr);
    if (wait_for((atomic_ulong *)&sh->addr_len[!me], 1, gdc_wtime() + PROBE_DEADLINE) != 0) {
        return -1;
    }
    memset(&eparams, 0, sizeof(eparams));
    eparams.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    eparams.address    = (const ucp_address_t *)sh->addr[!me];
    eparams.err_mode   = s->handled ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
    return ucp_ep_create(s->worker, &eparams, &s->ep) == UCS_OK ? 0 : -1;
}

static int ucx_send(ucx_side_t *s, size_t bytes)
{
    ucp_request_param_t param = {.op_attr_mask = 0};

    return ucx_wait(s, ucp_tag_send_nbx(s->ep, s->buf, bytes, 1, &param));
}

static int ucx_recv(ucx_side_t *s, size_t bytes)
{
    ucp_request_param_t param = {.op_attr_mask = 0};

    return ucx_wait(s, ucp_tag_recv_nbx(s->worker, s->buf, bytes, 1, (ucp_tag_t)-1, &param));
}

/* Both sides send and receive bytes at once, as the ranks of a collective's step do;
 * seconds per exchange in the median batch, or 0. */
static double ucx_exchanges(ucx_side_t *s, size_t bytes, int count)
{
    ucp_request_param_t param = {.op_attr_mask = 0};
    double              took[PROBE_BATCHES];
    char               *out   = (char *)s->buf + bytes;

    for (int b = 0; b < PROBE_BATCHES; b++) {
        double start = gdc_wtime();
        for (int i = 0; i < count; i++) {
            ucs_status_ptr_t recv = ucp_tag_recv_nbx(s->worker, s->buf, bytes, 2, (ucp_tag_t)-1, &param);
            ucs_status_ptr_t send = ucp_tag_send_nbx(s->ep, out, bytes, 2, &param);
            int              sent = ucx_wait(s, send), got = ucx_wait(s, recv);
            if (sent != 0 || got != 0) {
                return 0;
            }
        }
        took[b] = (gdc_wtime() - start) / count;
    }
    return median(took, PROBE_BATCHES);
}

/* Batches of round trips of bytes, the parent sending first; seconds per trip in the
 * median batch, or 0. */
static double ucx_trips(ucx_side_t *s, int parent, size_t bytes, int trips)
{
    double took[PROBE_BATCHES];

    for (int b = 0; b < PROBE_BATCHES; b++) {
        double start = gdc_wtime();
        for (int i = 0; i < trips; i++) {
            int failed = parent ? ucx_send(s, bytes) || ucx_recv(s, bytes) : ucx_recv(s, bytes) || ucx_send(s, bytes);
            if (failed) {
                return 0;
            }
        }
        took[b] = (gdc_wtime() - start) / trips;
    }
    return median(took, PROBE_BATCHES);
}

/* Both sides run the same sequence: warm-up, small trips, large trips. */
/* The exchanges a collective's steps make, from a few KiB in cache to tens of MiB out of
 * it: the model's one latency and bandwidth per link are fitted to all of them at once. */
static const struct {
    size_t bytes;
    int    count; /* per batch */
} exchange_sizes[] = {{(size_t)4 << 10, 100}, {(size_t)64 << 10, 20}, {(size_t)1 << 20, 4}, {UCX_LARGE_BYTES, 1}};
#define NUM_EXCHANGE_SIZES ((int)(sizeof(exchange_sizes) / sizeof(exchange_sizes[0])))

/* took[i]: seconds per exchange of exchange_sizes[i]; took[NUM_EXCHANGE_SIZES]: per round
 * trip of 8 B. */
static void ucx_run(probe_shared_t *sh, int parent, double *took)
{
    ucx_side_t s;

    memset(took, 0, (NUM_EXCHANGE_SIZES + 1) * sizeof(*took));
    if (ucx_side_open(&s, sh, parent ? 0 : 1) == 0 && ucx_trips(&s, parent, 8, 10) > 0 &&
        ucx_exchanges(&s, UCX_LARGE_BYTES, 1) > 0 &&
        (took[NUM_EXCHANGE_SIZES] = ucx_trips(&s, parent, 8, UCX_SMALL_TRIPS)) > 0) {
        for (int i = 0; i < NUM_EXCHANGE_SIZES; i++) {
            took[i] = ucx_exchanges(&s, exchange_sizes[i].bytes, exchange_sizes[i].count);
            if (took[i] <= 0) {
                break;
            }
        }
    }
    if (parent) {
        /* the child keeps its end open until the parent is done with it */
        atomic_store_explicit(&sh->parent_done, 1, memory_order_release);
    } else {
        (void)wait_for_int(&sh->parent_done);
    }
    ucx_side_close(&s);
}

static void ucx_child(probe_shared_t *sh, void *arg)
{
    double took[NUM_EXCHANGE_SIZES + 1];

    (void)arg;
    ucx_run(sh, 0, took);
}

/* The bandwidth of the line from latency through the measured (bytes, seconds) that fits
 * them best, each point weighted by its own time so that the small exchanges count as much
 * as the large (least squares of the relative error); 0 when none is positive. */
static double fit_bandwidth(const double *took, double latency)
{
    double sxx = 0, sxt = 0;

    for (int i = 0; i < NUM_EXCHANGE_SIZES; i++) {
        double x = (double)exchange_sizes[i].bytes, w = 1 / (took[i] * took[i]);
        sxx += w * x * x;
        sxt += w * x * (took[i] - latency);
    }
    return sxt > 0 ? sxx / sxt : 0;
}

static double ucx_parent(probe_shared_t *sh, pid_t child, void *arg)
{
    gdc_rt_calib_numbers_t *n = arg;
    double                  took[NUM_EXCHANGE_SIZES + 1], bandwidth;

    (void)child;
    ucx_run(sh, 1, took);
    for (int i = 0; i <= NUM_EXCHANGE_SIZES; i++) {
        if (took[i] <= 0) {
            return 0;
        }
    }
    GDC_LOG_DEBUG("calibration: UCX 8 B round trip %.2f us; exchanges of 4K, 64K, 1M, 32M both ways: %.2f, %.2f, "
                  "%.1f, %.0f us",
                  took[NUM_EXCHANGE_SIZES] * 1e6, took[0] * 1e6, took[1] * 1e6, took[2] * 1e6, took[3] * 1e6);
    bandwidth = fit_bandwidth(took, took[NUM_EXCHANGE_SIZES] / 2);
    if (!(bandwidth > 0)) {
        /* a loaded node: the small exchanges took less than the round trip; the largest
         * alone still says what the link moves */
        bandwidth = (double)UCX_LARGE_BYTES / took[NUM_EXCHANGE_SIZES - 1];
    }
    n->ucx_shm_us  = took[NUM_EXCHANGE_SIZES] / 2 * 1e6;
    n->ucx_shm_gbs = bandwidth / 1e9;
    return 1;
}

/* ---------------------------------------------------------------------------------------
 * Two ranks of a node over their shared memory (a job's, or a forked pair's)
 */

/* The two copy at once, as the two ranks of an allgather do: each copies its chunk into the
 * shared area and then the other's out (shm), reduces the other's into its own (the shm
 * reductions), or reads the other's buffer across (cma); local rank 0 times its side. A
 * copy timed while the other core idled read 15 to 39 GB/s from one job to the next on the
 * development VM, where the algorithm it stands for ran alike in both (bench/RESULTS.md
 * 2026-12-06). ping is local rank 0's step, pong local rank 1's. */
#define PAIR_ROUNDS (PROBE_BATCHES * 8)
/* It runs inside every job's gdc_init: after PAIR_BUDGET seconds it stops at the end of a
 * round, from PAIR_MIN_ROUNDS rounds on (72 rounds took 5 to 11 ms on 2 ranks of 2 idle
 * cores, 1.3 s with a busy process on each core: every step waits for the other to be
 * scheduled; so bounded, 7 to 8 ms and 120 to 180 ms), and it gives up after PAIR_DEADLINE
 * in all (two ranks that cannot both run). */
#define PAIR_MIN_ROUNDS PROBE_BATCHES
#define PAIR_BUDGET     0.005
#define PAIR_DEADLINE   2.0

typedef struct pair_side {
    probe_shared_t *sh;
    int             me;        /* 0: local rank 0, which measures; 1: local rank 1 */
    char           *chunk[2];  /* each one's chunk in the shared area */
    char           *src, *dst; /* private; the other reads src across */
    char           *peer_src;  /* the other's src, in its process */
    pid_t           peer;
    unsigned long   step;
    unsigned long   shared_cpu; /* steps at which both ran on one CPU (local rank 0 counts) */
    int             last_round; /* local rank 0's word, carried to the other at each round's first
                                   step (pair_meet_round) */
    double          deadline;
} pair_side_t;

size_t gdc_rt_calib_pair_bytes(void)
{
    return sizeof(probe_shared_t) + 2 * CACHED_BYTES;
}

/* Both at the same step: 0, or -1 when the other did not come in time. Each says which CPU
 * it runs on, so that a probe of two ranks that took turns on one core is told from one of
 * two cores (copies out of the other's memory then read 37 GB/s on the development VM, from
 * the core's own cache, where the job's ranks copy at 15 to 18 from each other's). */
static int pair_meet(pair_side_t *s)
{
    s->step++;
    atomic_store_explicit(&s->sh->cpu[s->me], sched_getcpu(), memory_order_relaxed);
    atomic_store_explicit(s->me == 0 ? &s->sh->ping : &s->sh->pong, s->step, memory_order_release);
    if (wait_for(s->me == 0 ? &s->sh->pong : &s->sh->ping, s->step, s->deadline) != 0) {
        return -1;
    }
    s->shared_cpu += atomic_load_explicit(&s->sh->cpu[!s->me], memory_order_relaxed) == sched_getcpu();
    return 0;
}

/* A step that carries local rank 0's word on whether the round it starts is the last. Read
 * here only: at any other step local rank 0 may be a step ahead, into the next round, whose
 * word it may have changed; here it is at most at the round's first step of its own. */
static int pair_meet_round(pair_side_t *s)
{
    if (s->me == 0) {
        atomic_store_explicit(&s->sh->last_round, s->last_round, memory_order_relaxed);
    }
    if (pair_meet(s) != 0) {
        return -1;
    }
    if (s->me == 1) {
        s->last_round = atomic_load_explicit(&s->sh->last_round, memory_order_relaxed);
    }
    return 0;
}

/* A small read's time, by local rank 0 alone (the other waits at the next step). */
static double pair_call(pair_side_t *s)
{
    char         buf[CMA_CALL_BYTES];
    double       took[PROBE_BATCHES];
    struct iovec local = {buf, CMA_CALL_BYTES}, remote = {s->peer_src, CMA_CALL_BYTES};

    for (int b = 0; b < PROBE_BATCHES; b++) {
        double start = gdc_wtime();
        for (int i = 0; i < CMA_CALL_REPEATS; i++) {
            if (process_vm_readv(s->peer, &local, 1, &remote, 1, 0) != (ssize_t)CMA_CALL_BYTES) {
                return -1;
            }
        }
        took[b] = gdc_wtime() - start;
    }
    return median(took, PROBE_BATCHES) / CMA_CALL_REPEATS * 1e6;
}

/* What one round times, seconds. */
typedef struct pair_times {
    double into, copy, reduce, cma, handoff;
} pair_times_t;

/* My chunk into the shared area, both at the same step, then op timed on the other's. */
typedef enum { PAIR_COPY, PAIR_REDUCE } pair_op_t;

static int pair_shared_round(pair_side_t *s, pair_op_t op, double *into, double *took)
{
    double start = gdc_wtime();

    /* the other read my chunk at the round before: its lines come back from that core */
    memcpy(s->chunk[s->me], s->src, CACHED_BYTES);
    *into = gdc_wtime() - start;
    if (pair_meet(s) != 0) {
        return -1;
    }
    start = gdc_wtime();
    if (op == PAIR_COPY) {
        memcpy(s->dst, s->chunk[!s->me], CACHED_BYTES);
    } else {
        sum_floats((float *)s->dst, (const float *)s->chunk[!s->me], CACHED_BYTES / sizeof(float));
    }
    *took = gdc_wtime() - start;
    return pair_meet(s);
}

/* A small copy out of what the other has just written: where a shared-memory call of a few
 * KiB spends its time (2-rank alltoall shm of 16 KiB: 4.2 us, where copies at the 256 KiB
 * rates add up to 2.3; bench/RESULTS.md 2026-12-06 11:05). */
static int pair_handoff(pair_side_t *s, double *took)
{
    double start;

    memcpy(s->chunk[s->me], s->src, HANDOFF_BYTES);
    if (pair_meet(s) != 0) {
        return -1;
    }
    start = gdc_wtime();
    memcpy(s->dst, s->chunk[!s->me], HANDOFF_BYTES);
    *took = gdc_wtime() - start;
    return pair_meet(s);
}

/* One round of each: the times of this side's copy into its chunk, out of the other's, the
 * reduction of it, the read across and the small copy out; -1 on failure. */
static int pair_round(pair_side_t *s, pair_times_t *t)
{
    struct iovec local = {s->dst, CACHED_BYTES}, remote = {s->peer_src, CACHED_BYTES};
    double       start, into_again;
    ssize_t      got;

    if (pair_shared_round(s, PAIR_COPY, &t->into, &t->copy) != 0 ||
        pair_shared_round(s, PAIR_REDUCE, &into_again, &t->reduce) != 0) {
        return -1;
    }
    start  = gdc_wtime();
    got    = process_vm_readv(s->peer, &local, 1, &remote, 1, 0);
    t->cma = gdc_wtime() - start;
    if (pair_meet(s) != 0 || got != (ssize_t)CACHED_BYTES) {
        return -1;
    }
    return pair_handoff(s, &t->handoff);
}

/* pair_run's result where the two took turns on one core (said at info; no failure) */
#define PAIR_ONE_CORE (-2)

/* The median of field (an offsetof in pair_times_t) over rounds. */
static double median_of(const pair_times_t *t, int rounds, size_t field)
{
    double v[PAIR_ROUNDS];

    for (int i = 0; i < rounds; i++) {
        v[i] = *(const double *)((const char *)&t[i] + field);
    }
    return median(v, rounds);
}

/* Local rank 0's large copy of its own and read of the other's, fastest of LARGE_REPEATS:
 * the read's time over the copy's; 0 where it could not be taken, -1 on failure. */
static double pair_large(pair_side_t *s)
{
    char  *src = malloc(LARGE_BYTES), *dst = s->me == 0 ? malloc(LARGE_BYTES) : NULL, *theirs;
    double copy = 0, read = 0, ratio = 0;
    int    ok = src != NULL && (s->me != 0 || dst != NULL);

    if (ok) {
        memset(src, s->me + 1, LARGE_BYTES);
    }
    atomic_store_explicit(&s->sh->large[s->me], ok ? (uintptr_t)src : 0, memory_order_relaxed);
    if (pair_meet(s) != 0) {
        ratio = -1;
        goto out;
    }
    theirs = (char *)atomic_load_explicit(&s->sh->large[!s->me], memory_order_relaxed);
    if (s->me == 0 && ok && theirs != NULL) {
        memset(dst, 0, LARGE_BYTES);
        for (int i = 0; i < LARGE_REPEATS; i++) {
            struct iovec local = {dst, LARGE_BYTES}, remote = {theirs, LARGE_BYTES};
            double       start = gdc_wtime(), took;
            ssize_t      got;

            memcpy(dst, src, LARGE_BYTES);
            took  = gdc_wtime() - start;
            copy  = i == 0 || took < copy ? took : copy;
            start = gdc_wtime();
            got   = process_vm_readv(s->peer, &local, 1, &remote, 1, 0);
            took  = gdc_wtime() - start;
            read  = i == 0 || took < read ? took : read;
            if (got != (ssize_t)LARGE_BYTES) {
                ratio = -1;
            }
        }
        ratio = ratio < 0 || copy <= 0 ? ratio : read / copy;
    }
    /* the other's buffer stays until the read is done */
    if (pair_meet(s) != 0) {
        ratio = -1;
    }
out:
    free(dst);
    free(src);
    return ratio;
}

static void pair_numbers(const pair_times_t *t, int rounds, double call, gdc_rt_calib_numbers_t *out)
{
    out->cma_us                 = call;
    out->copy_cached_gbs        = CACHED_BYTES / median_of(t, rounds, offsetof(pair_times_t, copy)) / 1e9;
    out->reduce_cached_gbs      = CACHED_BYTES / median_of(t, rounds, offsetof(pair_times_t, reduce)) / 1e9;
    out->cma_cached_gbs         = CACHED_BYTES / median_of(t, rounds, offsetof(pair_times_t, cma)) / 1e9;
    out->copy_shared_cached_gbs = CACHED_BYTES / median_of(t, rounds, offsetof(pair_times_t, into)) / 1e9;
    out->copy_peer_small_gbs    = HANDOFF_BYTES / median_of(t, rounds, offsetof(pair_times_t, handoff)) / 1e9;
}

static int pair_run(pair_side_t *s, gdc_rt_calib_numbers_t *out)
{
    pair_times_t t[PAIR_ROUNDS];
    double       call = 0, start, large;
    int          rounds;

    for (size_t i = 0; i < CACHED_BYTES / sizeof(float); i++) {
        ((float *)s->src)[i] = (float)(i & 7);
    }
    memset(s->dst, 0, CACHED_BYTES);
    atomic_store_explicit(&s->sh->buffer[s->me], (uintptr_t)s->src, memory_order_relaxed);
    if (pair_meet(s) != 0) {
        return -1;
    }
    s->peer_src = (char *)atomic_load_explicit(&s->sh->buffer[!s->me], memory_order_relaxed);
    if (s->me == 0) {
        call = pair_call(s);
    }
    if (pair_meet(s) != 0 || call < 0) {
        return -1;
    }
    start = gdc_wtime();
    for (rounds = 0; rounds < PAIR_ROUNDS && !s->last_round; rounds++) {
        if (s->me == 0) { /* said at the round's first step, acted on at its end, by both */
            s->last_round = rounds + 1 == PAIR_ROUNDS ||
                            (rounds + 1 >= PAIR_MIN_ROUNDS && gdc_wtime() - start > PAIR_BUDGET);
        }
        if (pair_meet_round(s) != 0 || pair_round(s, &t[rounds]) != 0) {
            return -1;
        }
    }
    if (s->me == 0 && s->shared_cpu > s->step / 2) {
        GDC_LOG_INFO("calibration: local ranks 0 and 1 ran on one CPU at %lu of the probe's %lu steps: what it "
                     "measured is one core's, not used",
                     s->shared_cpu, s->step);
        return PAIR_ONE_CORE;
    }
    if ((large = pair_large(s)) < 0) {
        return -1;
    }
    if (s->me == 0) {
        pair_numbers(t, rounds, call, out);
        out->cma_copy_ratio = large;
    }
    return 0;
}

/* Run on cpu alone (where one was found). */
static void pin_to(int cpu)
{
    cpu_set_t one;

    if (cpu >= 0) {
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        (void)sched_setaffinity(0, sizeof(one), &one);
    }
}

int gdc_rt_calib_nth_cpu(const cpu_set_t *set, int nth)
{
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, set) && seen++ == nth) {
            return c;
        }
    }
    return -1;
}

int gdc_rt_calib_pair_pin(int index, cpu_set_t *was)
{
    int cpu;

    if (sched_getaffinity(0, sizeof(*was), was) != 0 || gdc_rt_calib_nth_cpu(was, 1) < 0) {
        return 0;
    }
    cpu = gdc_rt_calib_nth_cpu(was, index);
    pin_to(cpu);
    return cpu >= 0;
}

gdc_status_t gdc_rt_calib_probe_pair(int parent, void *area, pid_t peer, gdc_rt_calib_numbers_t *out)
{
    char       *shared = (char *)area + sizeof(probe_shared_t);
    pair_side_t s      = {area, !parent, {shared, shared + CACHED_BYTES}, malloc(CACHED_BYTES),
                          malloc(CACHED_BYTES), NULL, peer, 0, 0, 0, gdc_wtime() + PAIR_DEADLINE};
    int         ran = -1;
    cpu_set_t   was;
    /* on a CPU of its own: the node's ranks may outnumber its cores (4 on 2), and the
     * scheduler may put both on one, whose numbers the probe refuses */
    int         pinned = gdc_rt_calib_pair_pin(s.me, &was);

    memset(out, 0, sizeof(*out));
    if (s.src != NULL && s.dst != NULL) {
        ran = pair_run(&s, out);
    }
    /* the other, if it waits at a step, goes on past every one: it fails in its turn */
    atomic_store_explicit(parent ? &s.sh->ping : &s.sh->pong, ULONG_MAX, memory_order_release);
    if (pinned) {
        (void)sched_setaffinity(0, sizeof(was), &was);
    }
    free(s.dst);
    free(s.src);
    /* out stays zero unless pair_run got to its end: it writes it last */
    if (ran == PAIR_ONE_CORE) {
        return GDC_ERR_UNSUPPORTED;
    }
    if (ran != 0) {
        GDC_LOG_WARN("calibration: local rank %d's probe of cross-memory attach and the copies in cache with "
                     "pid %d failed (no memory, process_vm_readv refused, or not done in %.0f s)",
                     !parent, (int)peer, PAIR_DEADLINE);
        return GDC_ERR_UNSUPPORTED;
    }
    return GDC_SUCCESS;
}

/* The pair probe's numbers, where cross-memory attach works: the forked child takes local
 * rank 1's side over a mapping both share. */
typedef struct fork_pair {
    void                  *area;
    gdc_rt_calib_numbers_t n;
} fork_pair_t;

void gdc_rt_calib_pair_wait(void *area)
{
    probe_shared_t *sh       = area;
    struct timespec pause    = {0, 200 * 1000};
    double          deadline = gdc_wtime() + PAIR_DEADLINE + 1;

    while (atomic_load_explicit(&sh->ping, memory_order_acquire) != ULONG_MAX && gdc_wtime() < deadline) {
        nanosleep(&pause, NULL);
    }
}

static void fork_pair_child(probe_shared_t *sh, void *arg)
{
    fork_pair_t *fp = arg;

    (void)sh;
    (void)gdc_rt_calib_probe_pair(0, fp->area, getppid(), &fp->n);
}

static double fork_pair_parent(probe_shared_t *sh, pid_t child, void *arg)
{
    fork_pair_t *fp = arg;

    (void)sh;
    /* the child reads this process too (Yama's ptrace_scope 1 lets only ancestors read) */
    (void)prctl(PR_SET_PTRACER, child, 0, 0, 0);
    return gdc_rt_calib_probe_pair(1, fp->area, child, &fp->n) == GDC_SUCCESS ? 1 : -1; /* it said why */
}

/* A machine's two cores, measured: the pair (on two CPUs of this process's set, where it
 * has two: gdc_rt_calib_probe_pair pins each side). */
static void probe_cached(gdc_rt_calib_numbers_t *out)
{
    size_t      bytes = gdc_rt_calib_pair_bytes();
    fork_pair_t fp;

    memset(&fp, 0, sizeof(fp));
    fp.area = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fp.area == MAP_FAILED) {
        GDC_LOG_WARN("calibration: the copies in cache not probed: mmap: %s", strerror(errno));
        return;
    }
    if (in_pair("the copies in cache", fork_pair_parent, fork_pair_child, &fp) > 0) {
        out->cma_us                 = fp.n.cma_us;
        out->copy_cached_gbs        = fp.n.copy_cached_gbs;
        out->cma_cached_gbs         = fp.n.cma_cached_gbs;
        out->reduce_cached_gbs      = fp.n.reduce_cached_gbs;
        out->copy_shared_cached_gbs = fp.n.copy_shared_cached_gbs;
        out->copy_peer_small_gbs    = fp.n.copy_peer_small_gbs;
        out->cma_copy_ratio         = fp.n.cma_copy_ratio;
    }
    munmap(fp.area, bytes);
}

gdc_status_t gdc_rt_calib_probe(gdc_rt_calib_numbers_t *out)
{
    char    *cma_buf = malloc(PROBE_BYTES);
    kernel_t copy = KERNEL_COPY, reduce = KERNEL_REDUCE;

    memset(out, 0, sizeof(*out));
    out->copy_gbs   = in_pair("memcpy", kernel_parent, kernel_child, &copy);
    out->reduce_gbs = in_pair("the reduction", kernel_parent, kernel_child, &reduce);
    out->signal_us  = in_pair("the shared-memory signal", signal_parent, signal_child, NULL);
    if (cma_buf != NULL) {
        double cma   = in_pair("cross-memory attach", cma_parent, cma_child, cma_buf);
        out->cma_gbs = cma > 0 ? cma : 0;
        if (cma > 0) {
            probe_cached(out);
        }
    }
    free(cma_buf);
    (void)in_pair("UCX shared memory", ucx_parent, ucx_child, out);
    return out->copy_gbs > 0 && out->reduce_gbs > 0 ? GDC_SUCCESS : GDC_ERR_NO_MEMORY;
}
