/* Host copies into and out of shared memory whose destination may sit a little ahead of
 * the source modulo a page: see copy_host.c. */
#ifndef GDC_COLL_COPY_HOST_H
#define GDC_COLL_COPY_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The sizes where the C library's memcpy runs its vector loop on this kind of CPU (below
 * its string-instruction threshold: 2112 B on the development VM, up to 8 KiB elsewhere)
 * and a page-aliased destination costs it most (bench/RESULTS.md 2026-12-06 20:56). */
#define GDC_COLL_COPY_ALIASED_MIN   1024
#define GDC_COLL_COPY_ALIASED_MAX   16384
/* How far ahead of the source (modulo 4 KiB) a destination is aliased: about the bytes of
 * stores a core holds while their lines are fetched from a peer's cache. */
#define GDC_COLL_COPY_ALIASED_AHEAD 2048

/* memcpy, but by the string instruction where the destination is aliased (x86-64 with
 * fast strings; elsewhere memcpy). */
void gdc_coll_copy_aliased(void *dst, const void *src, size_t n);

/* Whether a copy of n bytes from src to dst is one that gdc_coll_copy_aliased takes. */
static inline int gdc_coll_copy_is_aliased(const void *dst, const void *src, size_t n)
{
    return n >= GDC_COLL_COPY_ALIASED_MIN && n < GDC_COLL_COPY_ALIASED_MAX &&
           (((uintptr_t)dst - (uintptr_t)src) & 4095) < GDC_COLL_COPY_ALIASED_AHEAD;
}

/* The copy of the fast paths and the executor's host copy steps. */
static inline void gdc_coll_copy_host(void *dst, const void *src, size_t n)
{
    if (gdc_coll_copy_is_aliased(dst, src, n)) {
        gdc_coll_copy_aliased(dst, src, n);
        return;
    }
    memcpy(dst, src, n);
}

#endif
