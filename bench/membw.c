/*
 * membw: the memory-bandwidth floor of this machine, which bench/compare.sh quotes bus
 * bandwidth against: memcpy of 64 MiB, and a float y += x over 64 MiB (GB/s of input),
 * each the best of several runs, first on one core, then on every core at once (one
 * process per core, each on its own 64 MiB, started together; the figure is the bytes of
 * all of them over the slowest one's time). The second is the floor of a collective whose
 * ranks all copy at once: on a machine whose memory one core can saturate, it is no more
 * than the first. Output lines are "name value":
 *   memcpy_gbps 21.3
 *   float_sum_gbps 19.0
 *   cores 2
 *   memcpy_all_gbps 21.9
 *   float_sum_all_gbps 20.1
 * `membw --cma` instead compares, from 64 KiB to 16 MiB, one memcpy between two buffers
 * of a process with one process_vm_readv (cross-memory attach) of as many bytes from
 * another process: what a single-copy algorithm reading a peer's buffer would pay, against
 * a copy through shared memory. Lines "cma BYTES memcpy_us cma_us cma/memcpy", best of 200.
 * `membw --handoff` times what a shared-memory collective's copies cost between two cores
 * (the first two CPUs of the set, one process pinned to each), from 2 KiB to 256 KiB (powers
 * of two, and halfway between them from 32 KiB: where a copy's rate may step, as the
 * string instruction's does between 88 and 96 KiB on one VM, bench/RESULTS.md 2026-12-06):
 * each side copies BYTES into its shared place (which the other read the round before),
 * both meet, and each copies the other's out. Lines "handoff BYTES into_us out_us
 * private_us", medians of 2000 rounds; private_us is a memcpy between two of one process's
 * own buffers.
 * `membw --allreduce [RANKS]` times what the cores can do for an allreduce of 16 MiB per
 * rank, each of four ways to move its bytes (membw_allreduce.c).
 */
#include <sched.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sys/uio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "membw.h"

#define BYTES     (64u << 20)
#define RUNS      10
#define MAX_PROCS 64

/* What the processes share: a barrier before each run, and each one's times. */
typedef struct shared {
    pthread_barrier_t start;
    double            copy[MAX_PROCS][RUNS];
    double            sum[MAX_PROCS][RUNS];
} shared_t;

double membw_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Separate function, so the compiler cannot fold the loop away across runs. */
static void float_add(float *restrict y, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        y[i] += x[i];
    }
}

/* RUNS copies and sums of 64 MiB, each timed into copy[] and sum[]; a barrier before each
 * when there is one (every process starts its run together). 0, or 1 without memory. */
static int measure(pthread_barrier_t *start, double *copy, double *sum, double *check)
{
    size_t n = BYTES / sizeof(float);
    float *x = malloc(BYTES), *y = malloc(BYTES);

    if (x == NULL || y == NULL) {
        fprintf(stderr, "membw: cannot allocate 2 x 64 MiB\n");
        free(y);
        free(x);
        return 1;
    }
    for (size_t i = 0; i < n; i++) { /* touch every page, ordinary numbers */
        x[i] = (float)(i % 7);
        y[i] = 0.0f;
    }
    for (int r = 0; r < RUNS; r++) {
        if (start != NULL) {
            pthread_barrier_wait(start);
        }
        double t0 = membw_now();
        memcpy(y, x, BYTES);
        copy[r] = membw_now() - t0;
        if (start != NULL) {
            pthread_barrier_wait(start);
        }
        t0 = membw_now();
        float_add(y, x, n);
        sum[r] = membw_now() - t0;
        *check += y[r];
    }
    free(y);
    free(x);
    return 0;
}

static double best(const double *t)
{
    double b = t[0];

    for (int r = 1; r < RUNS; r++) {
        b = t[r] < b ? t[r] : b;
    }
    return b;
}

/* Of RUNS runs of procs processes at once: the shortest of the slowest one's times. */
static double best_of_slowest(double t[][RUNS], int procs)
{
    double b = 1e30;

    for (int r = 0; r < RUNS; r++) {
        double slowest = 0.0;
        for (int p = 0; p < procs; p++) {
            slowest = t[p][r] > slowest ? t[p][r] : slowest;
        }
        b = slowest < b ? slowest : b;
    }
    return b;
}

/* procs processes measuring at once; 0 when all of them did. */
static int measure_all(shared_t *sh, int procs)
{
    pthread_barrierattr_t attr;
    pid_t                 pids[MAX_PROCS];
    int                   started = 0, failed = 0;

    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->start, &attr, (unsigned)procs);
    pthread_barrierattr_destroy(&attr);
    for (int p = 0; p < procs; p++) {
        pid_t pid = fork();
        if (pid > 0) {
            pids[started++] = pid;
        }
        if (pid < 0) {
            perror("membw: fork");
            /* the barrier would never open: the ones started are killed below */
            failed = 1;
            break;
        }
        if (pid == 0) {
            double check = 0.0;
            _exit(measure(&sh->start, sh->copy[p], sh->sum[p], &check));
        }
    }
    for (int p = 0; failed && p < started; p++) {
        kill(pids[p], SIGKILL);
    }
    for (int status; wait(&status) > 0;) {
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    pthread_barrier_destroy(&sh->start);
    return failed;
}

#define CMA_REPS 200

/* The best of CMA_REPS memcpy and process_vm_readv of bytes from src, which child maps at
 * the same address (a shared mapping made before the fork). */
static int measure_cma(pid_t child, const char *src, char *dst, size_t bytes)
{
    struct iovec local = {dst, bytes}, remote = {(void *)src, bytes};
    double       copy = 1e30, cma = 1e30;

    for (int r = 0; r < CMA_REPS; r++) {
        double t0 = membw_now();
        memcpy(dst, src, bytes);
        double t1 = membw_now();
        if (process_vm_readv(child, &local, 1, &remote, 1, 0) != (ssize_t)bytes) {
            perror("membw: process_vm_readv");
            return 1;
        }
        double t2 = membw_now();
        copy = t1 - t0 < copy ? t1 - t0 : copy;
        cma  = t2 - t1 < cma ? t2 - t1 : cma;
    }
    printf("cma %zu %.1f %.1f %.2f\n", bytes, copy * 1e6, cma * 1e6, cma / copy);
    return 0;
}

static int cma_main(void)
{
    const size_t max = 16u << 20;
    char        *src = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char        *dst = malloc(max);
    int          failed = 0;
    pid_t        child;

    if (src == MAP_FAILED || dst == NULL) {
        fprintf(stderr, "membw: cannot allocate 2 x 16 MiB\n");
        return 1;
    }
    memset(src, 1, max);
    memset(dst, 0, max);
    if ((child = fork()) == 0) {
        pause(); /* holds the source mapping until killed */
        _exit(0);
    }
    if (child < 0) {
        perror("membw: fork");
        return 1;
    }
    printf("# membw --cma: bytes, memcpy us, process_vm_readv us, ratio; best of %d\n", CMA_REPS);
    for (size_t bytes = 64u << 10; bytes <= max && !failed; bytes *= 4) {
        failed = measure_cma(child, src, dst, bytes);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    free(dst);
    munmap(src, max);
    return failed;
}

#define HANDOFF_MAX    ((size_t)256 << 10)
#define HANDOFF_ROUNDS 2000

typedef struct handoff {
    atomic_ulong step[2][16]; /* each side's, on lines of their own */
    char         place[2][HANDOFF_MAX];
} handoff_t;

static void handoff_meet(handoff_t *h, int me, unsigned long *step)
{
    ++*step;
    atomic_store_explicit(&h->step[me][0], *step, memory_order_release);
    while (atomic_load_explicit(&h->step[!me][0], memory_order_acquire) < *step) {
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double membw_median_us(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), by_value);
    return t[n / 2] * 1e6;
}

/* Powers of two, and from 32 KiB the sizes halfway between them too. */
static size_t handoff_next(size_t bytes)
{
    if ((bytes & (bytes - 1)) != 0) {
        return bytes / 3 * 4;
    }
    return bytes >= ((size_t)32 << 10) ? bytes + bytes / 2 : bytes * 2;
}

/* One side: side 0 prints. */
static void handoff_side(handoff_t *h, int me, int cpu)
{
    static double into[HANDOFF_ROUNDS], out[HANDOFF_ROUNDS], own[HANDOFF_ROUNDS];
    char         *src = malloc(HANDOFF_MAX), *dst = malloc(HANDOFF_MAX);
    unsigned long step = 0;
    cpu_set_t     one;

    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)sched_setaffinity(0, sizeof(one), &one);
    memset(src, me + 1, HANDOFF_MAX);
    memset(dst, 0, HANDOFF_MAX);
    if (me == 0) {
        printf("# membw --handoff: bytes, into one's shared place us, out of the other's us, private memcpy us; "
               "medians of %d\n", HANDOFF_ROUNDS);
    }
    for (size_t bytes = 2048; bytes <= HANDOFF_MAX; bytes = handoff_next(bytes)) {
        for (int r = 0; r < HANDOFF_ROUNDS; r++) {
            double t0 = membw_now();
            memcpy(h->place[me], src, bytes);
            into[r] = membw_now() - t0;
            handoff_meet(h, me, &step);
            t0 = membw_now();
            memcpy(dst, h->place[!me], bytes);
            out[r] = membw_now() - t0;
            handoff_meet(h, me, &step);
            t0 = membw_now();
            memcpy(dst, src, bytes);
            own[r] = membw_now() - t0;
        }
        if (me == 0) {
            printf("handoff %zu %.2f %.2f %.2f\n", bytes, membw_median_us(into, HANDOFF_ROUNDS),
                   membw_median_us(out, HANDOFF_ROUNDS), membw_median_us(own, HANDOFF_ROUNDS));
        }
    }
    free(src);
    free(dst);
}

static int handoff_main(void)
{
    handoff_t *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cpu_set_t  set;
    int        cpu[2] = {-1, -1}, status = 0;
    pid_t      child;

    if (h == MAP_FAILED || sched_getaffinity(0, sizeof(set), &set) != 0) {
        perror("membw: --handoff");
        return 1;
    }
    for (int c = 0, seen = 0; c < CPU_SETSIZE && seen < 2; c++) {
        if (CPU_ISSET(c, &set)) {
            cpu[seen++] = c;
        }
    }
    if (cpu[1] < 0) {
        fprintf(stderr, "membw: --handoff needs two CPUs\n");
        return 1;
    }
    memset(h, 0, sizeof(*h));
    fflush(stdout);
    if ((child = fork()) == 0) {
        handoff_side(h, 1, cpu[1]);
        _exit(0);
    }
    if (child < 0) {
        perror("membw: fork");
        return 1;
    }
    handoff_side(h, 0, cpu[0]);
    waitpid(child, &status, 0);
    munmap(h, sizeof(*h));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    double    copy[RUNS], sum[RUNS], check = 0.0;
    long      online = sysconf(_SC_NPROCESSORS_ONLN);
    int       procs  = online < 1 ? 1 : online > MAX_PROCS ? MAX_PROCS : (int)online;
    shared_t *sh;

    if (argc == 2 && strcmp(argv[1], "--cma") == 0) {
        return cma_main();
    }
    if (argc == 2 && strcmp(argv[1], "--handoff") == 0) {
        return handoff_main();
    }
    if (argc >= 2 && argc <= 3 && strcmp(argv[1], "--allreduce") == 0) {
        char *end  = NULL;
        long  ranks = argc == 3 ? strtol(argv[2], &end, 10) : 4;
        if (argc == 3 && (end == argv[2] || *end != '\0' || ranks > 1000)) {
            ranks = 0; /* said wrong: rejected below with the rest */
        }
        return membw_allreduce_main((int)ranks);
    }
    if (argc != 1) {
        fprintf(stderr, "usage: membw [--cma | --handoff | --allreduce [RANKS]]\n");
        return 2;
    }
    if (measure(NULL, copy, sum, &check) != 0) {
        return 1;
    }
    printf("# membw: 64 MiB, best of %d, one core (check %g)\n", RUNS, check);
    printf("memcpy_gbps %.2f\n", BYTES / best(copy) / 1e9);
    printf("float_sum_gbps %.2f\n", BYTES / best(sum) / 1e9);
    fflush(stdout);

    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("membw: mmap");
        return 1;
    }
    if (measure_all(sh, procs) != 0) {
        fprintf(stderr, "membw: the %d processes at once did not all finish\n", procs);
        munmap(sh, sizeof(*sh));
        return 1;
    }
    printf("cores %d\n", procs);
    printf("memcpy_all_gbps %.2f\n", (double)procs * BYTES / best_of_slowest(sh->copy, procs) / 1e9);
    printf("float_sum_all_gbps %.2f\n", (double)procs * BYTES / best_of_slowest(sh->sum, procs) / 1e9);
    munmap(sh, sizeof(*sh));
    return 0;
}
