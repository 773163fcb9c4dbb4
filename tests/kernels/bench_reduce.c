/*
 * bench_reduce [MiB] [repeats]: throughput of the host reduction kernels against memcpy,
 * on vectors of MiB mebibytes (default 64, past every cache), best of `repeats` runs
 * (default 10). GB/s counts the bytes of one operand per second (what a reduction step
 * consumes from the network or a peer), as for memcpy the bytes copied; the memory traffic
 * is 3x that for dst = a + b and for inout += b (2 reads, 1 write), 2x for memcpy.
 * One table per host kernel set this CPU runs (avx2, generic). Built by `make check`, not
 * run by it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/reduce.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum { RUN_MEMCPY, RUN_IN_PLACE, RUN_OUT_OF_PLACE } run_kind_t;

static double best_seconds(run_kind_t kind, void *dst, void *a, const void *b, size_t bytes,
                           gdc_dtype_t dtype, int repeats)
{
    size_t count = bytes / (dtype == GDC_BYTE ? 1 : gdc_dtype_size(dtype));
    double best  = 1e30;

    for (int r = 0; r < repeats + 1; r++) { /* the first run warms up */
        double start = now(), elapsed;

        switch (kind) {
        case RUN_MEMCPY: memcpy(dst, b, bytes); break;
        case RUN_IN_PLACE: gdc_coll_reduce_host(a, a, b, count, dtype, GDC_SUM); break;
        case RUN_OUT_OF_PLACE: gdc_coll_reduce_host(dst, a, b, count, dtype, GDC_SUM); break;
        }
        elapsed = now() - start;
        if (r > 0 && elapsed < best) {
            best = elapsed;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        gdc_dtype_t dtype;
    } types[] = {{"float32", GDC_FLOAT32}, {"float16", GDC_FLOAT16}, {"bfloat16", GDC_BFLOAT16},
                 {"int32", GDC_INT32},     {"float64", GDC_FLOAT64}, {"int8", GDC_INT8}};
    static const char *const isas[] = {"avx2", "generic"};
    long           mib     = argc > 1 ? strtol(argv[1], NULL, 10) : 64;
    int            repeats = argc > 2 ? atoi(argv[2]) : 10;
    size_t         bytes;
    unsigned char *a, *b, *dst;
    double         copy;

    if (argc > 3 || mib < 1 || mib > 16384 || repeats < 1) {
        fprintf(stderr, "usage: %s [MiB (1..16384, default 64)] [repeats (default 10)]\n", argv[0]);
        return 2;
    }
    bytes = (size_t)mib << 20;
    a = malloc(bytes), b = malloc(bytes), dst = malloc(bytes);
    if (a == NULL || b == NULL || dst == NULL) {
        fprintf(stderr, "%s: cannot allocate 3 x %ld MiB\n", argv[0], mib);
        return 1;
    }
    /* small integers: valid values of every type (no NaN, no overflow to inf) */
    memset(a, 0x11, bytes);
    memset(b, 0x22, bytes);
    memset(dst, 0, bytes);

    copy = best_seconds(RUN_MEMCPY, dst, a, b, bytes, GDC_BYTE, repeats);
    printf("# %ld MiB per operand, best of %d; GB/s = bytes of one operand per second\n", mib,
           repeats);
    printf("# memcpy: %.2f GB/s\n", bytes / copy / 1e9);
    for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
        if (gdc_coll_reduce_host_select_isa(isas[i]) != GDC_SUCCESS) {
            printf("# kernel set %s: not available on this CPU\n", isas[i]);
            continue;
        }
        printf("%-8s %-10s %12s %12s %14s\n", "set", "sum of", "inout+=b", "dst=a+b",
               "inout vs copy");
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
            double in_place = best_seconds(RUN_IN_PLACE, dst, a, b, bytes, types[t].dtype, repeats);
            double out_of_place =
                best_seconds(RUN_OUT_OF_PLACE, dst, a, b, bytes, types[t].dtype, repeats);

            printf("%-8s %-10s %12.2f %12.2f %14.2f\n", isas[i], types[t].name,
                   bytes / in_place / 1e9, bytes / out_of_place / 1e9, copy / in_place);
        }
    }
    free(dst);
    free(b);
    free(a);
    return 0;
}
