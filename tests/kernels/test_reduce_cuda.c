/*
 * CUDA reduction kernels against the host kernels, bit for bit, for every dtype x op, the
 * aliasing modes, lengths beyond one grid (the grid-stride loop), and GDC_AVG.
 *
 * Without a device (or built without CUDA) the whole program is skipped (TAP "1..0 # SKIP",
 * saying why), after checking what can be: every entry point says GDC_ERR_UNSUPPORTED.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/reduce.h"
#include "kernels/reduce_cuda.h"
#include "reference.h"

#ifdef GDC_HAVE_CUDA
#define SKIP_REASON "no CUDA device"
#else
#define SKIP_REASON "built without CUDA"
#endif

/* Without a device: every entry point says so, and touches nothing. 0 when right. */
static int check_unsupported_everywhere(void)
{
    void *ptr = NULL;
    float x   = 1.0f;

    return gdc_coll_reduce_cuda(&x, &x, &x, 1, GDC_FLOAT32, GDC_SUM) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_avg_finish_cuda(&x, 1, GDC_FLOAT32, 2) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_cuda_malloc(&ptr, 16) != GDC_ERR_UNSUPPORTED || ptr != NULL ||
           gdc_coll_cuda_memcpy(&x, &x, sizeof(x)) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_cuda_free(NULL) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_reduce_cuda_queued(&x, &x, &x, 1, GDC_FLOAT32, GDC_SUM) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_avg_finish_cuda_queued(&x, 1, GDC_FLOAT32, 2) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_cuda_copy_queued(&x, &x, sizeof(x)) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_reduce_many_cuda_queued((void *const[]){&x}, 1, (const void *const[]){&x}, 1, 1, GDC_FLOAT32,
                                            GDC_SUM, 1) != GDC_ERR_UNSUPPORTED ||
           gdc_coll_cuda_drain(&x) != GDC_ERR_UNSUPPORTED || x != 1.0f;
}

/* ---- device cases -------------------------------------------------------------------------- */

typedef struct {
    void *a, *b, *dst;
} device_buffers_t;

static void device_alloc(device_buffers_t *dev, size_t bytes)
{
    assert_int_equal(gdc_coll_cuda_malloc(&dev->a, bytes), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_malloc(&dev->b, bytes), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_malloc(&dev->dst, bytes), GDC_SUCCESS);
}

static void device_free(device_buffers_t *dev)
{
    assert_int_equal(gdc_coll_cuda_free(dev->dst), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_free(dev->b), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_free(dev->a), GDC_SUCCESS);
}

/* One (dtype, op, count, alias, offset) case: 0 when the device result equals the host
 * result. alias: 0 distinct, 1 dst == a, 2 dst == b, 3 dst == a == b. offset: elements
 * from the start of the allocations (1 makes the buffers unaligned: no 16-byte packs). */
static int device_case(gdc_dtype_t dtype, gdc_op_t op, size_t count, int alias, size_t offset,
                       device_buffers_t *dev, uint64_t *rng)
{
    static const char *const alias_names[] = {"distinct", "dst==a", "dst==b", "dst==a==b"};
    size_t         size = gdc_dtype_size(dtype), bytes = count * size;
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *want = malloc(bytes);
    unsigned char *got = malloc(bytes);
    char          *base_a = (char *)dev->a + offset * size, *base_b = (char *)dev->b + offset * size;
    char          *base_dst = (char *)dev->dst + offset * size;
    void          *da = base_a, *db = alias == 3 ? base_a : base_b;
    void          *ddst = alias == 1 || alias == 3 ? base_a : alias == 2 ? base_b : base_dst;
    char           what[112];
    int            mismatch;

    assert_non_null(a && b && want && got);
    ref_fill(a, count, dtype, rng);
    ref_fill(b, count, dtype, rng);
    if (alias == 3) {
        memcpy(b, a, bytes);
    }
    gdc_coll_reduce_host(want, a, b, count, dtype, op);
    assert_int_equal(gdc_coll_cuda_memcpy(da, a, bytes), GDC_SUCCESS);
    if (alias != 3) {
        assert_int_equal(gdc_coll_cuda_memcpy(db, b, bytes), GDC_SUCCESS);
    }
    assert_int_equal(gdc_coll_reduce_cuda(ddst, da, db, count, dtype, op), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_memcpy(got, ddst, bytes), GDC_SUCCESS);
    snprintf(what, sizeof(what), "device %s %s, %zu elements, %s, offset %zu",
             ref_dtype_name(dtype), ref_op_name(op), count, alias_names[alias], offset);
    mismatch = ref_compare(what, want, got, a, b, count, dtype) != count;
    free(got);
    free(want);
    free(b);
    free(a);
    return mismatch;
}

static void test_device_matches_host(void **state)
{
    /* the largest spans several grids of the biggest GPUs (grid-stride loop) */
    static const size_t counts[] = {1, 7, 1031, (1u << 22) + 3};
    size_t              largest  = counts[sizeof(counts) / sizeof(counts[0]) - 1];
    device_buffers_t    dev;
    uint64_t            rng      = 5;
    int                 failures = 0;

    device_alloc(&dev, (largest + 1) * 8);
    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        for (int o = 0; o < GDC_COLL_NUM_OPS; o++) {
            if (!gdc_coll_reduce_supported((gdc_dtype_t)d, (gdc_op_t)o)) {
                continue;
            }
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                /* every aliasing on the short vectors; the long one (slow on the host) once */
                int aliases = counts[c] == largest ? 1 : 4;

                for (int alias = 0; alias < aliases; alias++) {
                    for (size_t offset = 0; offset <= 1; offset++) {
                        failures += device_case((gdc_dtype_t)d, (gdc_op_t)o, counts[c], alias,
                                                offset, &dev, &rng);
                    }
                }
            }
        }
    }
    device_free(&dev);
    assert_int_equal(failures, 0);
}

static void test_device_avg_matches_host(void **state)
{
    static const int ns[] = {1, 3, 8, 1000};
    size_t           count = 100003;
    device_buffers_t dev;
    uint64_t         rng      = 6;
    int              failures = 0;

    device_alloc(&dev, (count + 1) * 8);
    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        gdc_dtype_t dtype = (gdc_dtype_t)d;
        size_t      bytes = count * gdc_dtype_size(dtype);

        if (!gdc_coll_reduce_supported(dtype, GDC_AVG)) {
            continue;
        }
        for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
            unsigned char *want = malloc(bytes), *got = malloc(bytes);
            /* odd n: 16-byte aligned (packs); even n: one element in (unaligned) */
            char          *buf = (char *)dev.a + (ns[k] % 2 ? 0 : gdc_dtype_size(dtype));

            assert_non_null(want && got);
            ref_fill(want, count, dtype, &rng);
            assert_int_equal(gdc_coll_cuda_memcpy(buf, want, bytes), GDC_SUCCESS);
            gdc_coll_avg_finish_host(want, count, dtype, ns[k]);
            assert_int_equal(gdc_coll_avg_finish_cuda(buf, count, dtype, ns[k]), GDC_SUCCESS);
            assert_int_equal(gdc_coll_cuda_memcpy(got, buf, bytes), GDC_SUCCESS);
            failures += ref_compare("device avg finish", want, got, NULL, NULL, count, dtype) != count;
            free(got);
            free(want);
        }
    }
    device_free(&dev);
    assert_int_equal(failures, 0);
}

/* Queued steps (GDC_DEVICE_QUEUE) run in the order queued and are all there after the
 * drain: a copy, three reductions into its result and an average, on a vector long enough
 * that a missing wait would show. */
static void test_device_queued_in_order(void **state)
{
    size_t           count = (1u << 22) + 3, bytes = count * sizeof(float);
    float           *a = malloc(bytes), *b = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    device_buffers_t dev;
    uint64_t         rng = 7;

    (void)state;
    assert_non_null(a && b && want && got);
    device_alloc(&dev, bytes);
    ref_fill(a, count, GDC_FLOAT32, &rng);
    ref_fill(b, count, GDC_FLOAT32, &rng);
    memcpy(want, a, bytes);
    for (int i = 0; i < 3; i++) {
        gdc_coll_reduce_host(want, want, b, count, GDC_FLOAT32, GDC_SUM);
    }
    gdc_coll_avg_finish_host(want, count, GDC_FLOAT32, 4);
    assert_int_equal(gdc_coll_cuda_memcpy(dev.a, a, bytes), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_memcpy(dev.b, b, bytes), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_copy_queued(dev.dst, dev.a, bytes), GDC_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gdc_coll_reduce_cuda_queued(dev.dst, dev.dst, dev.b, count, GDC_FLOAT32, GDC_SUM),
                         GDC_SUCCESS);
    }
    assert_int_equal(gdc_coll_avg_finish_cuda_queued(dev.dst, count, GDC_FLOAT32, 4), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_drain(dev.dst), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_memcpy(got, dev.dst, bytes), GDC_SUCCESS);
    assert_int_equal(ref_compare("queued copy, 3 reductions, avg", want, got, NULL, NULL, count, GDC_FLOAT32), count);
    device_free(&dev);
    free(got);
    free(want);
    free(b);
    free(a);
}

/* One many-operand case: nsrc vectors reduced into nsrc outputs (the first of them the
 * first source: in place), against the host's reductions two by two in the same order. */
static int many_case(gdc_dtype_t dtype, gdc_op_t op, int nsrc, size_t count, size_t offset, char *dev,
                     uint64_t *rng)
{
    size_t         size = gdc_dtype_size(dtype), bytes = count * size, stride = (count + 16) * size;
    unsigned char *host = malloc(bytes * (size_t)nsrc), *want = malloc(bytes), *got = malloc(bytes);
    void          *dst[GDC_COLL_CUDA_MANY_MAX];
    const void    *src[GDC_COLL_CUDA_MANY_MAX];
    char           what[112];
    int            mismatches = 0;

    assert_non_null(host && want && got);
    for (int s = 0; s < nsrc; s++) {
        ref_fill(host + (size_t)s * bytes, count, dtype, rng);
        src[s] = dev + (size_t)s * stride + offset * size;
        dst[s] = s == 0 ? (void *)src[0] : dev + (size_t)(nsrc + s) * stride + offset * size;
        assert_int_equal(gdc_coll_cuda_memcpy((void *)src[s], host + (size_t)s * bytes, bytes), GDC_SUCCESS);
    }
    memcpy(want, host, bytes);
    for (int s = 1; s < nsrc; s++) {
        gdc_coll_reduce_host(want, want, host + (size_t)s * bytes, count, dtype, op);
    }
    if (op == GDC_AVG) {
        gdc_coll_avg_finish_host(want, count, dtype, nsrc);
    }
    assert_int_equal(gdc_coll_reduce_many_cuda_queued(dst, nsrc, src, nsrc, count, dtype, op, nsrc), GDC_SUCCESS);
    assert_int_equal(gdc_coll_cuda_drain(dst[0]), GDC_SUCCESS);
    for (int d = 0; d < nsrc; d++) {
        assert_int_equal(gdc_coll_cuda_memcpy(got, dst[d], bytes), GDC_SUCCESS);
        snprintf(what, sizeof(what), "device many %s %s, %d sources, %zu elements, offset %zu, output %d",
                 ref_dtype_name(dtype), ref_op_name(op), nsrc, count, offset, d);
        mismatches += ref_compare(what, want, got, NULL, NULL, count, dtype) != count;
    }
    free(got);
    free(want);
    free(host);
    return mismatches;
}

/* The one-kernel reduction of the ipc_leader algorithms: every dtype x op (GDC_AVG's
 * division included), 1 to GDC_COLL_CUDA_MANY_MAX sources, packed and not, every output
 * the same bits as the host's reductions two by two. */
static void test_device_many_matches_host(void **state)
{
    static const int    nsrcs[]  = {1, 2, 3, 5, GDC_COLL_CUDA_MANY_MAX};
    static const size_t counts[] = {1, 1031, 100003};
    size_t              stride   = (counts[2] + 16) * 8;
    char               *dev      = NULL;
    uint64_t            rng      = 8;
    int                 failures = 0;

    (void)state;
    assert_int_equal(gdc_coll_cuda_malloc((void **)&dev, stride * 2 * GDC_COLL_CUDA_MANY_MAX), GDC_SUCCESS);
    for (int d = 0; d < GDC_COLL_NUM_DTYPES; d++) {
        for (int o = 0; o < GDC_COLL_NUM_OPS; o++) {
            if (!gdc_coll_reduce_supported((gdc_dtype_t)d, (gdc_op_t)o)) {
                continue;
            }
            for (size_t k = 0; k < sizeof(nsrcs) / sizeof(nsrcs[0]); k++) {
                for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                    failures += many_case((gdc_dtype_t)d, (gdc_op_t)o, nsrcs[k], counts[c], c % 2, dev, &rng);
                }
            }
        }
    }
    /* more sources than the kernel takes */
    {
        void       *dst[GDC_COLL_CUDA_MANY_MAX + 1];
        const void *src[GDC_COLL_CUDA_MANY_MAX + 1];

        for (int s = 0; s <= GDC_COLL_CUDA_MANY_MAX; s++) {
            dst[s] = dev;
            src[s] = dev;
        }
        assert_int_equal(gdc_coll_reduce_many_cuda_queued(dst, 1, src, GDC_COLL_CUDA_MANY_MAX + 1, 4, GDC_FLOAT32,
                                                          GDC_SUM, 1),
                         GDC_ERR_INVALID_ARG);
    }
    assert_int_equal(gdc_coll_cuda_free(dev), GDC_SUCCESS);
    assert_int_equal(failures, 0);
}

static void test_device_refusals(void **state)
{
    device_buffers_t dev;
    float            host[4] = {1, 2, 3, 4};

    device_alloc(&dev, 64);
    /* host memory is not for the device kernels */
    assert_int_equal(gdc_coll_reduce_cuda(host, host, host, 4, GDC_FLOAT32, GDC_SUM), GDC_ERR_INVALID_ARG);
    assert_true(host[0] == 1.0f);
    assert_int_equal(gdc_coll_reduce_cuda(dev.dst, dev.a, dev.b, 4, GDC_BYTE, GDC_SUM), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_coll_reduce_cuda(dev.dst, dev.a, dev.b, 4, GDC_FLOAT32, GDC_BXOR), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_coll_reduce_cuda((char *)dev.a + 4, dev.a, dev.b, 4, GDC_FLOAT32, GDC_SUM),
                     GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_coll_avg_finish_cuda(dev.a, 4, GDC_INT32, 0), GDC_ERR_INVALID_ARG);
    /* nothing to do is done */
    assert_int_equal(gdc_coll_reduce_cuda(NULL, NULL, NULL, 0, GDC_FLOAT32, GDC_SUM), GDC_SUCCESS);
    assert_int_equal(gdc_coll_avg_finish_cuda(NULL, 0, GDC_FLOAT32, 2), GDC_SUCCESS);
    device_free(&dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_matches_host),
        cmocka_unit_test(test_device_avg_matches_host),
        cmocka_unit_test(test_device_queued_in_order),
        cmocka_unit_test(test_device_many_matches_host),
        cmocka_unit_test(test_device_refusals),
    };

    if (gdc_coll_cuda_available() != GDC_SUCCESS) {
        if (check_unsupported_everywhere() != 0) {
            printf("1..1\nnot ok 1 - without a device every CUDA entry point says "
                   "GDC_ERR_UNSUPPORTED\n");
            return 1;
        }
        printf("SKIPPED: %s\n1..0 # SKIP %s\n", SKIP_REASON, SKIP_REASON);
        return 0;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
