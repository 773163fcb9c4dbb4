/*
 * membw --allreduce [RANKS]: what the cores of this machine can do for an allreduce (sum)
 * of 16 MiB of floats on each of RANKS ranks (4 unless said), with no waiting but for the
 * data: one thread per CPU of the set, pinned, each acting for an equal block of the ranks
 * (as gdrun binds ranks that outnumber the cores) and doing their share of the work, the
 * threads meeting only where one's data is another's input. Four ways to move the bytes:
 *   direct  one address space: a core sums a chunk of every rank's input into one output
 *           and copies it to the others while it is in cache. The least memory traffic,
 *           open to threads only: ranks in separate processes cannot read each other's
 *           buffers without a copy.
 *   shared  what a copy through shared memory needs (gdc's allreduce shm): a chunk at a
 *           time, each rank copies the parts its peers own into a shared place, sums its
 *           own part from its input and those copies, and copies the others' sums out.
 *   chain   through shared memory the other way: a chunk passes through the ranks in turn,
 *           each adding its input to the running sum (chunks start on the cores in turn),
 *           then every rank copies the sums out.
 *   cma     single copy by the kernel (process_vm_readv): each rank reads the others' input
 *           for its part, a chunk at a time, sums it into its output, then reads the other
 *           parts from the ranks that summed them.
 * Each but cma twice: outputs written through the cache (memcpy, as the peers do), and
 * around it (gdc_coll_copy_stream, the non-temporal copy that gdc's GDC_STREAM_SIZE turns
 * on: a store then no longer reads its line first). Copies are otherwise memcpy's and sums
 * gdc's own host kernel. Lines "allreduce_floor WAY STORES RANKS BYTES us busbw_gbps" (STORES cached
 * or streamed), the median of 9 runs; busbw by nccl-tests' factor, 2(n-1)/n. Every element
 * of every output is checked. direct reads and writes what any allreduce must, no more:
 * the floor of every way on these cores (bench/RESULTS.md 2026-12-07 04:46).
 */
#include "membw.h"

#include "kernels/copy_stream.h"
#include "kernels/reduce.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_BYTES  ((size_t)16 << 20)
#define FLOOR_CHUNK  ((size_t)256 << 10) /* gdc's host chunk */
#define FLOOR_WINDOW ((size_t)2 << 20)   /* a rank's shared place, used round: gdc's GDC_SHM_SIZE */
#define FLOOR_RUNS   9
#define FLOOR_RANKS  64
#define FLOOR_CORES  64

typedef enum { WAY_DIRECT, WAY_SHARED, WAY_CHAIN, WAY_CMA, WAY_COUNT } way_t;

static const char *const way_names[WAY_COUNT] = {"direct", "shared", "chain", "cma"};

typedef struct floor_job {
    int               ranks, cores, cpu[FLOOR_CORES];
    size_t            count, chunk, window; /* floats per rank, per chunk, per shared place */
    float            *in[FLOOR_RANKS], *out[FLOOR_RANKS], *place[FLOOR_RANKS], *sums;
    way_t             way;
    int               streamed; /* outputs written around the cache (gdc_coll_copy_stream) */
    atomic_int        failed;
    pthread_barrier_t edge;  /* a run's start and end, with the timing thread */
    atomic_int        arrived, phase; /* the workers' own meeting: polled, not slept on */
} floor_job_t;

typedef struct floor_worker {
    floor_job_t *job;
    int          core;
    float       *scratch[FLOOR_RANKS];
    double       began, ended; /* this run's, on the worker's own clock reads */
} floor_worker_t;

static void meet(floor_job_t *job)
{
    int phase = atomic_load(&job->phase);

    if (atomic_fetch_add(&job->arrived, 1) == job->cores - 1) {
        atomic_store(&job->arrived, 0);
        atomic_fetch_add(&job->phase, 1);
        return;
    }
    while (atomic_load(&job->phase) == phase) {
        sched_yield(); /* the CPU to whatever else is runnable (a VM's other vCPU's work) */
    }
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* y = the sum of x[0..k) at off, n elements: by gdc's own host kernel, two at a time, as
 * its reductions go */
static void sum_into(float *y, float *const *x, int k, size_t off, size_t n)
{
    gdc_coll_reduce_host(y, x[0] + off, x[1] + off, n, GDC_FLOAT32, GDC_SUM);
    for (int j = 2; j < k; j++) {
        gdc_coll_reduce_host(y, y, x[j] + off, n, GDC_FLOAT32, GDC_SUM);
    }
}

static void add_into(float *y, const float *x, size_t n)
{
    gdc_coll_reduce_host(y, y, x, n, GDC_FLOAT32, GDC_SUM);
}

static int kernel_copy(void *dst, const void *src, size_t bytes)
{
    struct iovec local = {dst, bytes}, remote = {(void *)src, bytes};

    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)bytes ? 0 : -1;
}

static int first_rank(const floor_job_t *job, int core)
{
    return core * job->ranks / job->cores;
}

/* Into an output: through the cache, or around it. */
static void put_out(const floor_job_t *job, float *dst, const float *src, size_t n)
{
    if (job->streamed) {
        gdc_coll_copy_stream(dst, src, n * sizeof(float));
    } else {
        memcpy(dst, src, n * sizeof(float));
    }
}

/* A core sums each chunk it takes into one output (streamed: into its scratch) and copies
 * it to the other outputs (streamed: to all of them). */
static void run_direct(floor_worker_t *w)
{
    floor_job_t *job = w->job;
    size_t       chunks = (job->count + job->chunk - 1) / job->chunk;

    for (size_t c = (size_t)w->core; c < chunks; c += (size_t)job->cores) {
        size_t off = c * job->chunk, n = min_size(job->chunk, job->count - off);
        int    owner = (int)(c % (size_t)job->ranks);
        float *sums  = job->streamed ? w->scratch[0] : job->out[owner] + off;
        float *x[FLOOR_RANKS];

        for (int r = 0; r < job->ranks; r++) {
            x[r] = job->in[r] + off;
        }
        sum_into(sums, x, job->ranks, 0, n);
        for (int r = 0; r < job->ranks; r++) {
            if (job->streamed || r != owner) {
                put_out(job, job->out[r] + off, sums, n);
            }
        }
    }
}

/* Rank r's part of n elements: [*from, *to) from their start. */
static void part_of(const floor_job_t *job, size_t n, int r, size_t *from, size_t *to)
{
    *from = n * (size_t)r / (size_t)job->ranks;
    *to   = n * (size_t)(r + 1) / (size_t)job->ranks;
}

/* As allreduce shm: a rank copies the parts of the chunk its peers own into its place, sums
 * its own part from its input and the peers' copies into its output and the shared sums,
 * and copies the others' parts of the sums out. */
static void run_shared(floor_worker_t *w)
{
    floor_job_t *job = w->job;
    int          lo = first_rank(job, w->core), hi = first_rank(job, w->core + 1);

    for (size_t off = 0; off < job->count; off += job->chunk) {
        size_t n = min_size(job->chunk, job->count - off), at = off % job->window, from, to;

        for (int r = lo; r < hi; r++) {
            for (int p = 0; p < job->ranks; p++) {
                part_of(job, n, p, &from, &to);
                if (p != r) {
                    memcpy(job->place[r] + at + from, job->in[r] + off + from, (to - from) * sizeof(float));
                }
            }
        }
        meet(job);
        for (int r = lo; r < hi; r++) {
            float *x[FLOOR_RANKS];
            part_of(job, n, r, &from, &to);
            for (int j = 0; j < job->ranks; j++) {
                x[j] = j == r ? job->in[r] + off : job->place[j] + at;
            }
            sum_into(job->sums + at + from, x, job->ranks, from, to - from);
            put_out(job, job->out[r] + off + from, job->sums + at + from, to - from);
        }
        meet(job);
        for (int r = lo; r < hi; r++) {
            for (int p = 0; p < job->ranks; p++) {
                part_of(job, n, p, &from, &to);
                if (p != r) {
                    put_out(job, job->out[r] + off + from, job->sums + at + from, to - from);
                }
            }
        }
    }
}

/* Chunks in groups of one per core; chunk i of a group starts on core i, and in step t core
 * c adds its ranks' inputs to chunk (c - t) mod cores. */
static void run_chain(floor_worker_t *w)
{
    floor_job_t *job = w->job;
    int          lo = first_rank(job, w->core), hi = first_rank(job, w->core + 1);
    size_t       group = job->chunk * (size_t)job->cores;

    for (size_t base = 0; base < job->count; base += group) {
        for (int t = 0; t < job->cores; t++) {
            size_t i = (size_t)((w->core - t + job->cores) % job->cores), off = base + i * job->chunk;
            if (off < job->count && lo < hi) {
                size_t n   = min_size(job->chunk, job->count - off);
                float *acc = job->sums + off % job->window;
                int    r   = lo;
                if (t == 0) {
                    memcpy(acc, job->in[r++] + off, n * sizeof(float));
                }
                for (; r < hi; r++) {
                    add_into(acc, job->in[r] + off, n);
                }
            }
            meet(job);
        }
        for (size_t off = base; off < base + group && off < job->count; off += job->chunk) {
            size_t n = min_size(job->chunk, job->count - off);
            for (int r = lo; r < hi; r++) {
                put_out(job, job->out[r] + off, job->sums + off % job->window, n);
            }
        }
    }
}

static int run_cma(floor_worker_t *w)
{
    floor_job_t *job = w->job;
    int          lo = first_rank(job, w->core), hi = first_rank(job, w->core + 1), failed = 0;

    for (int r = lo; r < hi; r++) {
        size_t from, to;
        part_of(job, job->count, r, &from, &to);
        for (size_t off = from; off < to && !failed; off += job->chunk) {
            size_t n = min_size(job->chunk, to - off);
            float *x[FLOOR_RANKS];
            for (int j = 0; j < job->ranks; j++) {
                x[j] = job->in[j] + off;
                if (j != r) {
                    failed |= kernel_copy(w->scratch[j], x[j], n * sizeof(float));
                    x[j] = w->scratch[j];
                }
            }
            sum_into(job->out[r] + off, x, job->ranks, 0, n);
        }
    }
    meet(job);
    for (int r = lo; r < hi; r++) {
        for (int q = 0; q < job->ranks; q++) {
            size_t from, to;
            part_of(job, job->count, q, &from, &to);
            if (q != r) {
                failed |= kernel_copy(job->out[r] + from, job->out[q] + from, (to - from) * sizeof(float));
            }
        }
    }
    return failed;
}

static void *worker_main(void *arg)
{
    floor_worker_t *w   = arg;
    floor_job_t    *job = w->job;
    cpu_set_t       one;

    CPU_ZERO(&one);
    CPU_SET(job->cpu[w->core], &one);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    for (;;) {
        pthread_barrier_wait(&job->edge);
        if (job->way == WAY_COUNT) {
            return NULL;
        }
        w->began = membw_now();
        switch (job->way) {
        case WAY_DIRECT: run_direct(w); break;
        case WAY_SHARED: run_shared(w); break;
        case WAY_CHAIN: run_chain(w); break;
        default: atomic_fetch_or(&job->failed, run_cma(w)); break;
        }
        w->ended = membw_now();
        pthread_barrier_wait(&job->edge);
    }
}

/* Every output element is the sum of the inputs' (small integers: exact in float). Checked
 * after a way's last run only: reading every output between runs would leave the caches
 * unlike a benchmark's loop (2 ranks: 1.4 to 1.8 times the time). The outputs are zeroed
 * before a way's first run and every run computes the same, so an element a way leaves
 * out stays wrong. */
static int outputs_right(floor_job_t *job)
{
    for (int r = 0; r < job->ranks; r++) {
        for (size_t i = 0; i < job->count; i++) {
            float want = (float)(job->ranks * (int)(i % 7) + job->ranks * (job->ranks + 1) / 2);
            if (job->out[r][i] != want) {
                fprintf(stderr, "membw: --allreduce %s: rank %d element %zu is %g, expected %g\n",
                        way_names[job->way], r, i, (double)job->out[r][i], (double)want);
                return 0;
            }
        }
    }
    return 1;
}

/* A run lasts from the first worker's start to the last one's end (the timing thread, one
 * more than the CPUs, may not run in between). */
static int time_way(floor_job_t *job, const floor_worker_t *w, way_t way, int streamed)
{
    double t[FLOOR_RUNS];

    job->way      = way;
    job->streamed = streamed;
    for (int r = 0; r < job->ranks; r++) {
        memset(job->out[r], 0, job->count * sizeof(float)); /* not what the way before left */
    }
    for (int run = 0; run < FLOOR_RUNS; run++) {
        double began = 1e300, ended = 0;
        pthread_barrier_wait(&job->edge);
        pthread_barrier_wait(&job->edge);
        for (int c = 0; c < job->cores; c++) {
            began = w[c].began < began ? w[c].began : began;
            ended = w[c].ended > ended ? w[c].ended : ended;
        }
        t[run] = ended - began;
        if (atomic_load(&job->failed) || (run == FLOOR_RUNS - 1 && !outputs_right(job))) {
            if (atomic_load(&job->failed)) {
                perror("membw: --allreduce: process_vm_readv");
            }
            return 1;
        }
    }
    double mid = membw_median_us(t, FLOOR_RUNS);
    printf("allreduce_floor %s %s %d %zu %.1f %.2f\n", way_names[way], streamed ? "streamed" : "cached", job->ranks,
           FLOOR_BYTES, mid, 2.0 * (job->ranks - 1) / job->ranks * (double)FLOOR_BYTES / mid / 1e3);
    fflush(stdout);
    return 0;
}

static int allocate(floor_job_t *job, floor_worker_t *w)
{
    size_t bytes = job->count * sizeof(float);

    job->sums = calloc(job->window, sizeof(float));
    for (int r = 0; r < job->ranks; r++) {
        job->in[r]    = malloc(bytes);
        job->out[r]   = calloc(job->count, sizeof(float));
        job->place[r] = calloc(job->window, sizeof(float));
        if (job->in[r] == NULL || job->out[r] == NULL || job->place[r] == NULL) {
            return -1;
        }
        for (size_t i = 0; i < job->count; i++) {
            job->in[r][i] = (float)(r + 1 + (int)(i % 7));
        }
    }
    for (int c = 0; c < job->cores; c++) {
        w[c].job  = job;
        w[c].core = c;
        for (int r = 0; r < job->ranks; r++) {
            if ((w[c].scratch[r] = malloc(job->chunk * sizeof(float))) == NULL) {
                return -1;
            }
        }
    }
    return job->sums == NULL ? -1 : 0;
}

static void release(floor_job_t *job, floor_worker_t *w)
{
    for (int c = 0; c < job->cores; c++) {
        for (int r = 0; r < job->ranks; r++) {
            free(w[c].scratch[r]);
        }
    }
    for (int r = 0; r < job->ranks; r++) {
        free(job->place[r]);
        free(job->out[r]);
        free(job->in[r]);
    }
    free(job->sums);
}

static int usable_cpus(floor_job_t *job)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return -1;
    }
    for (int c = 0; c < CPU_SETSIZE && job->cores < FLOOR_CORES; c++) {
        if (CPU_ISSET(c, &set)) {
            job->cpu[job->cores++] = c;
        }
    }
    return 0;
}

int membw_allreduce_main(int ranks)
{
    static floor_job_t    job;
    static floor_worker_t w[FLOOR_CORES];
    pthread_t             tid[FLOOR_CORES];
    int                   started = 0, failed = 0;

    if (ranks < 2 || ranks > FLOOR_RANKS) {
        fprintf(stderr, "membw: --allreduce takes 2 to %d ranks\n", FLOOR_RANKS);
        return 2;
    }
    job.ranks = ranks;
    job.count = FLOOR_BYTES / sizeof(float);
    job.chunk = FLOOR_CHUNK / sizeof(float);
    job.window = FLOOR_WINDOW / sizeof(float);
    if (usable_cpus(&job) != 0) {
        perror("membw: --allreduce: sched_getaffinity");
        return 1;
    }
    job.cores = job.cores > ranks ? ranks : job.cores; /* a core acts for one rank at least */
    if (job.window < 2 * job.chunk * (size_t)job.cores) {
        job.window = 2 * job.chunk * (size_t)job.cores; /* chain: a group's sums stay till copied out */
    }
    if (allocate(&job, w) != 0) {
        fprintf(stderr, "membw: --allreduce: cannot allocate %d ranks' buffers\n", ranks);
        release(&job, w);
        return 1;
    }
    pthread_barrier_init(&job.edge, NULL, (unsigned)job.cores + 1);
    for (; started < job.cores; started++) {
        if (pthread_create(&tid[started], NULL, worker_main, &w[started]) != 0) {
            break;
        }
    }
    if (started < job.cores) {
        fprintf(stderr, "membw: --allreduce: cannot start %d threads\n", job.cores);
        return 1; /* the barrier cannot open for those started: the process ends with them */
    }
    printf("# membw --allreduce: way, output stores, ranks, bytes per rank, median us of %d, busbw GB/s; %d CPUs, "
           "%zu KiB chunks\n",
           FLOOR_RUNS, job.cores, FLOOR_CHUNK >> 10);
    for (int way = 0; way < WAY_COUNT && !failed; way++) {
        for (int streamed = 0; streamed <= (way != WAY_CMA) && !failed; streamed++) {
            failed = time_way(&job, w, (way_t)way, streamed);
        }
    }
    if (failed) {
        return 1; /* workers wait at the barrier: exiting the process ends them */
    }
    job.way = WAY_COUNT;
    pthread_barrier_wait(&job.edge);
    for (int c = 0; c < started; c++) {
        pthread_join(tid[c], NULL);
    }
    pthread_barrier_destroy(&job.edge);
    release(&job, w);
    return 0;
}
