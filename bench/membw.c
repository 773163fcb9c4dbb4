/*
 * membw: the memory-bandwidth floor of this machine, which bench/compare.sh quotes bus
 * bandwidth against: memcpy of 64 MiB, and a float y += x over 64 MiB (GB/s of input),
 * each the best of several runs, on one core. Output lines are "name value":
 *   memcpy_gbps 21.3
 *   float_sum_gbps 19.0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (64u << 20)
#define RUNS  10

static double now(void)
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

int main(void)
{
    size_t n = BYTES / sizeof(float);
    float *x = malloc(BYTES), *y = malloc(BYTES);
    double best_copy = 1e30, best_sum = 1e30, check = 0.0;

    if (x == NULL || y == NULL) {
        fprintf(stderr, "membw: cannot allocate 2 x 64 MiB\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) { /* touch every page, ordinary numbers */
        x[i] = (float)(i % 7);
        y[i] = 0.0f;
    }
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        memcpy(y, x, BYTES);
        double t1 = now();
        best_copy = t1 - t0 < best_copy ? t1 - t0 : best_copy;
        t0        = now();
        float_add(y, x, n);
        t1        = now();
        best_sum  = t1 - t0 < best_sum ? t1 - t0 : best_sum;
        check += y[r];
    }
    printf("# membw: 64 MiB, best of %d, one core (check %g)\n", RUNS, check);
    printf("memcpy_gbps %.2f\n", BYTES / best_copy / 1e9);
    printf("float_sum_gbps %.2f\n", BYTES / best_sum / 1e9);
    free(y);
    free(x);
    return 0;
}
