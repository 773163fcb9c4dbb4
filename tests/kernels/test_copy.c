/*
 * The host copy of the fast paths and the executor (coll/kernels/copy_host.h): every size
 * around the string copy's bounds, at destinations ahead of and behind the source modulo a
 * page, byte for byte against the source, and not a byte outside the destination.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/copy_host.h"

#define ARENA (4 * 65536)
#define GUARD 0xa5

static const size_t sizes[] = {0, 1, 63, 64, 1023, GDC_COLL_COPY_ALIASED_MIN, 1025, 1536, 2047, 2048, 2111, 2112,
                               4096, 8191, GDC_COLL_COPY_ALIASED_MAX - 1, GDC_COLL_COPY_ALIASED_MAX, 65536};
/* dst - src modulo 4 KiB: ahead by little (aliased), by half a page and more (not) */
static const size_t aheads[] = {0, 8, 64, 72, 456, 1000, GDC_COLL_COPY_ALIASED_AHEAD - 1, GDC_COLL_COPY_ALIASED_AHEAD,
                                3000, 4088};

static void test_copies_are_exact(void **state)
{
    unsigned char *src = aligned_alloc(4096, ARENA), *dst = aligned_alloc(4096, ARENA);
    int            failures = 0, aliased = 0;

    (void)state;
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < ARENA; i++) {
        src[i] = (unsigned char)(i * 131 + 7);
    }
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t a = 0; a < sizeof(aheads) / sizeof(aheads[0]); a++) {
            size_t         n = sizes[s], from = 4096 + 24, to = 3 * 4096 + 24 + aheads[a];
            unsigned char *d = dst + to;

            memset(dst, GUARD, ARENA);
            aliased += gdc_coll_copy_is_aliased(d, src + from, n);
            gdc_coll_copy_host(d, src + from, n);
            if (memcmp(d, src + from, n) != 0) {
                printf("# %zu bytes, destination %zu ahead: the copy differs\n", n, aheads[a]);
                failures++;
            }
            for (size_t i = 0; i < ARENA; i++) {
                if ((i < to || i >= to + n) && dst[i] != GUARD) {
                    printf("# %zu bytes, destination %zu ahead: byte %zu outside it written\n", n, aheads[a], i);
                    failures++;
                    break;
                }
            }
        }
    }
    /* the sizes from GDC_COLL_COPY_ALIASED_MIN below its max, at the aheads under the bound */
    assert_int_equal(aliased, 10 * 7);
    assert_int_equal(failures, 0);
    free(src);
    free(dst);
}

static void test_aliasing_is_modulo_a_page(void **state)
{
    static char buf[3 * 4096];

    (void)state;
    assert_true(gdc_coll_copy_is_aliased(buf + 4096 + 72, buf, 2048));
    assert_true(gdc_coll_copy_is_aliased(buf + 8, buf, 2048));
    assert_false(gdc_coll_copy_is_aliased(buf, buf + 72, 2048));        /* behind the source */
    assert_false(gdc_coll_copy_is_aliased(buf + 4096 + 72, buf, 512));  /* too small */
    assert_false(gdc_coll_copy_is_aliased(buf + 4096 + 72, buf, GDC_COLL_COPY_ALIASED_MAX));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_are_exact),
        cmocka_unit_test(test_aliasing_is_modulo_a_page),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
