/*
 * Copies whose destination is a little ahead of their source modulo a page (4 KiB): the
 * C library's vector loop reads each chunk of the source right after storing the chunk
 * before, and a load whose low 12 address bits match a store still waiting in the core
 * waits for it (4K aliasing). A store into shared memory waits long: its line is in the
 * peer's cache, which read the slot a ring of calls before. Page-aligned user buffers
 * copied into a call's ring slot (8 bytes into a line, slots a line apart) are all such
 * copies: on 2 ranks of the development VM, alltoall of 2 KiB took 1.09 to 1.13 us with
 * them, 0.82 to 0.88 by the string instruction, which moves whole lines and has no such
 * wait (bench/RESULTS.md 2026-12-06 20:56). Below 1 KiB its start costs more than it saves.
 */
#include "kernels/copy_host.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* Enhanced REP MOVSB (CPUID.(EAX=7,ECX=0):EBX bit 9): the string copy is fast. */
static int fast_strings(void)
{
    static int known = -1; /* written once, the same by every thread */
    int        have  = __atomic_load_n(&known, __ATOMIC_RELAXED);

    if (have < 0) {
        unsigned a, b, c, d;
        have = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9)) != 0;
        __atomic_store_n(&known, have, __ATOMIC_RELAXED);
    }
    return have;
}

void gdc_coll_copy_aliased(void *dst, const void *src, size_t n)
{
    if (!fast_strings()) {
        memcpy(dst, src, n);
        return;
    }
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
#else
void gdc_coll_copy_aliased(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif
