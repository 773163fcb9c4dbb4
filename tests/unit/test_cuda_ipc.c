/*
 * The CUDA IPC mapping cache (runtime/rt_cuda_ipc.c) against a fake driver: the fake owns
 * "allocations" (base, size, generation; a freed and reallocated buffer at the same base
 * has a new generation, hence new handle bytes, as the driver's unique id does) and
 * "mappings" (what open_handle returned and close_handle has not closed). Every test ends
 * with the fake's books balanced: nothing closed twice, nothing closed that was not open.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_cuda_ipc.h"

#define MAX_ALLOCS   16
#define MAX_MAPPINGS 64

typedef struct fake_alloc {
    uint64_t base, size;
    uint32_t generation;
    int      legacy; /* 0: VMM or pool memory, no legacy handle */
} fake_alloc_t;

typedef struct fake_mapping {
    gdc_rt_cu_deviceptr_t      mapped;
    gdc_rt_cu_ipc_mem_handle_t handle;
    int                        open;
} fake_mapping_t;

typedef struct fake_driver {
    fake_alloc_t          allocs[MAX_ALLOCS];
    int                   num_allocs;
    fake_mapping_t        mappings[MAX_MAPPINGS];
    int                   num_mappings; /* ever opened */
    int                   opens, closes, bad_closes;
    gdc_rt_cu_result_t    open_fails;     /* returned by every open while set */
    int                   oom_above;      /* open fails with OUT_OF_MEMORY when this many are open; 0: never */
    gdc_rt_cu_deviceptr_t last_closed;
} fake_driver_t;

static fake_driver_t fake;

static void fake_handle(gdc_rt_cu_ipc_mem_handle_t *h, uint64_t base, uint32_t generation)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->reserved, &base, sizeof(base));
    memcpy(h->reserved + sizeof(base), &generation, sizeof(generation));
}

static gdc_rt_cu_result_t fake_get_address_range(void *arg, gdc_rt_cu_deviceptr_t ptr, gdc_rt_cu_deviceptr_t *base,
                                                 size_t *size)
{
    fake_driver_t *f = arg;

    for (int i = 0; i < f->num_allocs; i++) {
        if (ptr >= f->allocs[i].base && ptr < f->allocs[i].base + f->allocs[i].size) {
            *base = f->allocs[i].base;
            *size = f->allocs[i].size;
            return GDC_RT_CUDA_SUCCESS;
        }
    }
    return GDC_RT_CUDA_ERROR_NOT_FOUND;
}

static gdc_rt_cu_result_t fake_get_ipc_handle(void *arg, gdc_rt_cu_deviceptr_t base,
                                              gdc_rt_cu_ipc_mem_handle_t *handle)
{
    fake_driver_t *f = arg;

    for (int i = 0; i < f->num_allocs; i++) {
        if (f->allocs[i].base == base) {
            if (!f->allocs[i].legacy) {
                return GDC_RT_CUDA_ERROR_INVALID_VALUE;
            }
            fake_handle(handle, base, f->allocs[i].generation);
            return GDC_RT_CUDA_SUCCESS;
        }
    }
    return GDC_RT_CUDA_ERROR_INVALID_VALUE;
}

static int fake_open_count(const fake_driver_t *f)
{
    return f->opens - f->closes;
}

static gdc_rt_cu_result_t fake_open_handle(void *arg, const gdc_rt_cu_ipc_mem_handle_t *handle,
                                           gdc_rt_cu_deviceptr_t *mapped)
{
    fake_driver_t  *f = arg;
    fake_mapping_t *m;

    if (f->open_fails != GDC_RT_CUDA_SUCCESS) {
        return f->open_fails;
    }
    if (f->oom_above > 0 && fake_open_count(f) >= f->oom_above) {
        return GDC_RT_CUDA_ERROR_OUT_OF_MEMORY;
    }
    assert_true(f->num_mappings < MAX_MAPPINGS);
    m         = &f->mappings[f->num_mappings];
    m->mapped = 0x7f0000000000ull + (uint64_t)(f->num_mappings + 1) * 0x10000000ull; /* never reused */
    m->handle = *handle;
    m->open   = 1;
    f->num_mappings++;
    f->opens++;
    *mapped = m->mapped;
    return GDC_RT_CUDA_SUCCESS;
}

static gdc_rt_cu_result_t fake_close_handle(void *arg, gdc_rt_cu_deviceptr_t mapped)
{
    fake_driver_t *f = arg;

    for (int i = 0; i < f->num_mappings; i++) {
        if (f->mappings[i].mapped == mapped && f->mappings[i].open) {
            f->mappings[i].open = 0;
            f->closes++;
            f->last_closed = mapped;
            return GDC_RT_CUDA_SUCCESS;
        }
    }
    f->bad_closes++;
    return GDC_RT_CUDA_ERROR_INVALID_VALUE;
}

static const gdc_rt_cuda_ipc_ops_t fake_ops = {
    .get_address_range = fake_get_address_range,
    .get_ipc_handle    = fake_get_ipc_handle,
    .open_handle       = fake_open_handle,
    .close_handle      = fake_close_handle,
    .arg               = &fake,
};

/* The fake's mapping at address p (a pointer acquire returned, offset included), or NULL. */
static fake_mapping_t *mapping_of(const void *p)
{
    uint64_t a = (uint64_t)(uintptr_t)p;

    for (int i = 0; i < fake.num_mappings; i++) {
        if (a >= fake.mappings[i].mapped && a < fake.mappings[i].mapped + 0x10000000ull) {
            return &fake.mappings[i];
        }
    }
    return NULL;
}

static int is_open(gdc_rt_cu_deviceptr_t mapped)
{
    for (int i = 0; i < fake.num_mappings; i++) {
        if (fake.mappings[i].mapped == mapped) {
            return fake.mappings[i].open;
        }
    }
    return 0;
}

/* A new allocation in the fake; returns its index. */
static int fake_alloc(uint64_t base, uint64_t size)
{
    assert_true(fake.num_allocs < MAX_ALLOCS);
    fake.allocs[fake.num_allocs] = (fake_alloc_t){.base = base, .size = size, .generation = 1, .legacy = 1};
    return fake.num_allocs++;
}

/* The owner frees allocation i and gets another at the same base. */
static void fake_realloc(int i)
{
    fake.allocs[i].generation++;
}

static gdc_rt_cuda_ipc_export_t export_of(uint64_t ptr)
{
    gdc_rt_cuda_ipc_export_t exp;

    assert_int_equal(gdc_rt_cuda_ipc_export(&fake_ops, (void *)(uintptr_t)ptr, &exp), GDC_SUCCESS);
    return exp;
}

static gdc_rt_cuda_ipc_stats_t stats_of(gdc_rt_cuda_ipc_cache_t *cache)
{
    gdc_rt_cuda_ipc_stats_t s;

    memset(&s, 0xff, sizeof(s));
    gdc_rt_cuda_ipc_cache_stats(cache, &s);
    return s;
}

static void expect_handle_of(const void *p, const gdc_rt_cuda_ipc_export_t *exp)
{
    fake_mapping_t *m = mapping_of(p);

    assert_non_null(m);
    assert_true(m->open);
    assert_memory_equal(&m->handle, &exp->handle, sizeof(exp->handle));
    assert_true((uint64_t)(uintptr_t)p == m->mapped + exp->offset);
}

static int setup(void **state)
{
    memset(&fake, 0, sizeof(fake));
    return 0;
}

/* Every mapping opened was closed once, none twice, none unknown. */
static int teardown(void **state)
{
    assert_int_equal(fake.bad_closes, 0);
    assert_int_equal(fake.opens, fake.closes);
    for (int i = 0; i < fake.num_mappings; i++) {
        assert_false(fake.mappings[i].open);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Export
 */

static void test_export(void **state)
{
    gdc_rt_cuda_ipc_export_t exp, untouched;
    gdc_rt_cu_ipc_mem_handle_t h;
    int                        vmm;

    fake_alloc(0x100000000ull, 1 << 20);
    vmm                     = fake_alloc(0x200000000ull, 1 << 20);
    fake.allocs[vmm].legacy = 0;

    exp = export_of(0x100000000ull + 4096 + 3);
    assert_true(exp.base == 0x100000000ull);
    assert_true(exp.size == 1 << 20);
    assert_true(exp.offset == 4096 + 3);
    fake_handle(&h, 0x100000000ull, 1);
    assert_memory_equal(&exp.handle, &h, sizeof(h));

    memset(&untouched, 0x5a, sizeof(untouched));
    exp = untouched;
    /* not device memory: the output stays as it was */
    assert_int_equal(gdc_rt_cuda_ipc_export(&fake_ops, (void *)(uintptr_t)0x300000000ull, &exp),
                     GDC_ERR_INVALID_ARG);
    assert_memory_equal(&exp, &untouched, sizeof(exp));
    /* memory without a legacy handle */
    assert_int_equal(gdc_rt_cuda_ipc_export(&fake_ops, (void *)(uintptr_t)0x200000010ull, &exp),
                     GDC_ERR_UNSUPPORTED);
    assert_memory_equal(&exp, &untouched, sizeof(exp));
    assert_int_equal(gdc_rt_cuda_ipc_export(&fake_ops, NULL, &exp), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_export(NULL, (void *)(uintptr_t)0x100000000ull, &exp), GDC_ERR_INVALID_ARG);
}

/* ---------------------------------------------------------------------------------------
 * Hits and misses
 */

static void test_hit_and_miss(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e1, *e2, *e3;
    gdc_rt_cuda_ipc_export_t a, a2;
    void                    *p1, *p2, *p3;
    gdc_rt_cuda_ipc_stats_t  s;

    fake_alloc(0x100000000ull, 1 << 20);
    a  = export_of(0x100000000ull + 64);
    a2 = export_of(0x100000000ull + 8192); /* another buffer in the same allocation */
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 4, 8, &cache), GDC_SUCCESS);

    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &a, &e1, &p1), GDC_SUCCESS);
    expect_handle_of(p1, &a);
    assert_int_equal(fake.opens, 1);
    gdc_rt_cuda_ipc_release(cache, e1);

    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &a2, &e2, &p2), GDC_SUCCESS);
    assert_ptr_equal(e2, e1);
    assert_int_equal(fake.opens, 1); /* the same allocation: no second open */
    expect_handle_of(p2, &a2);
    assert_true((char *)p2 - (char *)p1 == 8192 - 64);

    /* the same base from another peer is another process's memory */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 2, &a, &e3, &p3), GDC_SUCCESS);
    assert_ptr_not_equal(e3, e1);
    assert_int_equal(fake.opens, 2);
    assert_ptr_not_equal(mapping_of(p3), mapping_of(p1));

    s = stats_of(cache);
    assert_int_equal(s.hits, 1);
    assert_int_equal(s.misses, 2);
    assert_int_equal(s.stale, 0);
    assert_int_equal(s.evictions, 0);
    assert_int_equal(s.entries, 2);
    assert_int_equal(fake.closes, 0);

    gdc_rt_cuda_ipc_release(cache, e2);
    gdc_rt_cuda_ipc_release(cache, e3);
    assert_int_equal(fake.closes, 0); /* released mappings stay cached */
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* ---------------------------------------------------------------------------------------
 * Stale handles: the owner freed the buffer and got a new one at the same base
 */

static void test_stale_unused_is_closed_and_reopened(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e;
    gdc_rt_cuda_ipc_export_t old, cur;
    gdc_rt_cu_deviceptr_t    old_mapped;
    void                    *p;
    int                      i;

    i   = fake_alloc(0x100000000ull, 1 << 20);
    old = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 8, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &old, &e, &p), GDC_SUCCESS);
    old_mapped = mapping_of(p)->mapped;
    gdc_rt_cuda_ipc_release(cache, e);

    fake_realloc(i);
    cur = export_of(0x100000000ull);
    assert_true(cur.base == old.base);
    assert_memory_not_equal(&cur.handle, &old.handle, sizeof(cur.handle));

    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &cur, &e, &p), GDC_SUCCESS);
    expect_handle_of(p, &cur); /* never the old mapping */
    assert_false(is_open(old_mapped));
    assert_true(fake.last_closed == old_mapped);
    assert_int_equal(fake.opens, 2);
    assert_int_equal(fake.closes, 1);
    assert_int_equal(stats_of(cache).stale, 1);
    assert_int_equal(stats_of(cache).entries, 1);
    gdc_rt_cuda_ipc_release(cache, e);

    /* the new mapping is the cached one now */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &cur, &e, &p), GDC_SUCCESS);
    expect_handle_of(p, &cur);
    assert_int_equal(fake.opens, 2);
    assert_int_equal(stats_of(cache).hits, 1);
    gdc_rt_cuda_ipc_release(cache, e);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* A resize at the same base with a handle that (wrongly) compares equal is stale too. */
static void test_stale_by_size(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e;
    gdc_rt_cuda_ipc_export_t exp;
    void                    *p;

    fake_alloc(0x100000000ull, 1 << 20);
    exp = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 8, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &e, &p), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e);
    exp.size *= 2;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &e, &p), GDC_SUCCESS);
    assert_int_equal(fake.opens, 2);
    assert_int_equal(fake.closes, 1);
    assert_int_equal(stats_of(cache).stale, 1);
    gdc_rt_cuda_ipc_release(cache, e);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

static void test_stale_in_use_is_closed_at_release(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e_old, *e_new, *e;
    gdc_rt_cuda_ipc_export_t old, cur;
    void                    *p_old, *p_new, *p;
    gdc_rt_cu_deviceptr_t    old_mapped;
    int                      i;

    i   = fake_alloc(0x100000000ull, 1 << 20);
    old = export_of(0x100000000ull + 128);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 8, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &old, &e_old, &p_old), GDC_SUCCESS);
    old_mapped = mapping_of(p_old)->mapped;

    fake_realloc(i);
    cur = export_of(0x100000000ull + 128);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &cur, &e_new, &p_new), GDC_SUCCESS);
    expect_handle_of(p_new, &cur);
    assert_ptr_not_equal(p_new, p_old);
    /* the old use still reads through its mapping */
    assert_true(is_open(old_mapped));
    expect_handle_of(p_old, &old);
    assert_int_equal(fake.closes, 0);
    assert_int_equal(stats_of(cache).entries, 2);

    gdc_rt_cuda_ipc_release(cache, e_new);
    assert_int_equal(fake.closes, 0);
    gdc_rt_cuda_ipc_release(cache, e_old); /* its last use: closed now */
    assert_int_equal(fake.closes, 1);
    assert_true(fake.last_closed == old_mapped);
    assert_int_equal(stats_of(cache).entries, 1);

    /* the stale entry is out of the table: the old handle is not found... */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &cur, &e, &p), GDC_SUCCESS);
    assert_ptr_equal(e, e_new);
    assert_int_equal(fake.opens, 2);
    gdc_rt_cuda_ipc_release(cache, e);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* ---------------------------------------------------------------------------------------
 * Reference counts and the bound
 */

static void test_refcount(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e1, *e2;
    gdc_rt_cuda_ipc_export_t a;
    void                    *p1, *p2;

    fake_alloc(0x100000000ull, 1 << 20);
    a = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 1, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e1, &p1), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e2, &p2), GDC_SUCCESS);
    assert_ptr_equal(e1, e2);
    assert_ptr_equal(p1, p2);
    assert_int_equal(fake.opens, 1);

    /* two uses, two releases: a third release is refused, not an underflow */
    gdc_rt_cuda_ipc_release(cache, e1);
    gdc_rt_cuda_ipc_release(cache, e2);
    gdc_rt_cuda_ipc_release(cache, e2);
    assert_int_equal(fake.closes, 0);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e1, &p1), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e1);
    assert_int_equal(fake.opens, 1);
    assert_int_equal(fake.closes, 0);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

static void test_in_use_never_evicted(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *ex, *ey;
    gdc_rt_cuda_ipc_export_t x, y;
    void                    *px, *py;
    gdc_rt_cu_deviceptr_t    mx, my;

    fake_alloc(0x100000000ull, 1 << 20);
    fake_alloc(0x200000000ull, 1 << 20);
    x = export_of(0x100000000ull);
    y = export_of(0x200000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 1, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &x, &ex, &px), GDC_SUCCESS);
    /* the bound is 1 and x is held: y passes the bound rather than closing x */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &y, &ey, &py), GDC_SUCCESS);
    mx = mapping_of(px)->mapped;
    my = mapping_of(py)->mapped;
    assert_true(is_open(mx));
    assert_true(is_open(my));
    assert_int_equal(stats_of(cache).entries, 2);
    assert_int_equal(stats_of(cache).evictions, 0);

    /* y's release brings the cache back to its bound, and x is still held */
    gdc_rt_cuda_ipc_release(cache, ey);
    assert_false(is_open(my));
    assert_true(is_open(mx));
    assert_int_equal(stats_of(cache).entries, 1);
    assert_int_equal(stats_of(cache).evictions, 1);
    gdc_rt_cuda_ipc_release(cache, ex);
    assert_true(is_open(mx));
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

static void test_lru_eviction(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e;
    gdc_rt_cuda_ipc_export_t exp[4];
    gdc_rt_cu_deviceptr_t    mapped[4];
    void                    *p;

    for (int i = 0; i < 4; i++) {
        fake_alloc(0x100000000ull * (uint64_t)(i + 1), 1 << 20);
        exp[i] = export_of(0x100000000ull * (uint64_t)(i + 1));
    }
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 3, &cache), GDC_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp[i], &e, &p), GDC_SUCCESS);
        mapped[i] = mapping_of(p)->mapped;
        gdc_rt_cuda_ipc_release(cache, e);
    }
    /* use 0 again: 1 is now the least recently used */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp[0], &e, &p), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp[3], &e, &p), GDC_SUCCESS);
    mapped[3] = mapping_of(p)->mapped;
    /* room was made before the open, not after the use */
    assert_false(is_open(mapped[1]));
    assert_int_equal(stats_of(cache).entries, 3);
    gdc_rt_cuda_ipc_release(cache, e);
    assert_false(is_open(mapped[1]));
    assert_true(is_open(mapped[0]));
    assert_true(is_open(mapped[2]));
    assert_true(is_open(mapped[3]));
    assert_int_equal(stats_of(cache).evictions, 1);
    assert_int_equal(stats_of(cache).entries, 3);

    /* 1 comes back: a miss, and 2 (now the oldest) goes */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp[1], &e, &p), GDC_SUCCESS);
    expect_handle_of(p, &exp[1]);
    gdc_rt_cuda_ipc_release(cache, e);
    assert_false(is_open(mapped[2]));
    assert_int_equal(stats_of(cache).misses, 5);
    assert_int_equal(stats_of(cache).hits, 1);
    assert_int_equal(stats_of(cache).evictions, 2);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* Many allocations through a small cache: lookups stay right through the hash chains. */
static void test_many_entries(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e;
    gdc_rt_cuda_ipc_export_t exp;
    void                    *p;

    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 3, 4, &cache), GDC_SUCCESS);
    for (int round = 0; round < 2; round++) {
        for (int peer = 0; peer < 3; peer++) {
            for (int i = 0; i < 6; i++) {
                memset(&exp, 0, sizeof(exp));
                exp.base = 0x200000ull * (uint64_t)(i + 1);
                exp.size = 0x200000ull;
                fake_handle(&exp.handle, exp.base, (uint32_t)(peer * 100 + i + 1));
                assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, peer, &exp, &e, &p), GDC_SUCCESS);
                expect_handle_of(p, &exp);
                gdc_rt_cuda_ipc_release(cache, e);
                assert_true(stats_of(cache).entries <= 4);
            }
        }
    }
    assert_int_equal(fake_open_count(&fake), 4);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* One base in 40 peers' address spaces, all held at once in a cache of 16 buckets: keys
 * must share buckets, and only the peer tells them apart (a mix-up would show as stale
 * remaps, not hits). */
static void test_same_base_many_peers(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *held[40], *e;
    gdc_rt_cuda_ipc_export_t exp;
    void                    *p;

    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 40, 8, &cache), GDC_SUCCESS);
    for (int round = 0; round < 2; round++) {
        for (int peer = 0; peer < 40; peer++) {
            memset(&exp, 0, sizeof(exp));
            exp.base = 0x7f0000200000ull;
            exp.size = 0x200000ull;
            fake_handle(&exp.handle, exp.base, (uint32_t)(peer + 1));
            assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, peer, &exp, round == 0 ? &held[peer] : &e, &p),
                             GDC_SUCCESS);
            expect_handle_of(p, &exp);
            if (round == 1) {
                assert_ptr_equal(e, held[peer]);
                gdc_rt_cuda_ipc_release(cache, e);
            }
        }
    }
    assert_int_equal(stats_of(cache).stale, 0);
    assert_int_equal(stats_of(cache).hits, 40);
    assert_int_equal(fake.opens, 40);
    for (int peer = 0; peer < 40; peer++) {
        gdc_rt_cuda_ipc_release(cache, held[peer]);
    }
    assert_int_equal(stats_of(cache).entries, 8); /* back to the bound */
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* ---------------------------------------------------------------------------------------
 * Failures, peers leaving, destroy
 */

static void test_open_failure(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e = NULL, *held;
    gdc_rt_cuda_ipc_export_t a, b;
    void                    *p = NULL, *ph;

    fake_alloc(0x100000000ull, 1 << 20);
    fake_alloc(0x200000000ull, 1 << 20);
    a = export_of(0x100000000ull);
    b = export_of(0x200000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 8, &cache), GDC_SUCCESS);
    fake.open_fails = GDC_RT_CUDA_ERROR_INVALID_HANDLE;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e, &p), GDC_ERR_TRANSPORT);
    assert_null(e);
    assert_null(p);
    assert_int_equal(stats_of(cache).entries, 0);
    fake.open_fails = GDC_RT_CUDA_SUCCESS;
    /* nothing was cached by the failure */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e, &p), GDC_SUCCESS);
    expect_handle_of(p, &a);
    gdc_rt_cuda_ipc_release(cache, e);

    /* out of mapping space: unused mappings are closed and the open tried again */
    fake.oom_above = 1;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &b, &e, &p), GDC_SUCCESS);
    expect_handle_of(p, &b);
    assert_int_equal(fake_open_count(&fake), 1);
    /* ...but one held is not: then the failure stands */
    held = e;
    ph   = p;
    e    = NULL;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e, &p), GDC_ERR_TRANSPORT);
    assert_null(e);
    expect_handle_of(ph, &b);
    gdc_rt_cuda_ipc_release(cache, held);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

static void test_drop_peer(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e0, *e1, *held;
    gdc_rt_cuda_ipc_export_t a, b;
    void                    *p0, *p1, *ph;

    fake_alloc(0x100000000ull, 1 << 20);
    fake_alloc(0x200000000ull, 1 << 20);
    a = export_of(0x100000000ull);
    b = export_of(0x200000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 8, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &a, &e0, &p0), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e0);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &a, &e1, &p1), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e1);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &b, &held, &ph), GDC_SUCCESS);

    gdc_rt_cuda_ipc_cache_drop_peer(cache, 1);
    assert_false(is_open(mapping_of(p1)->mapped));
    assert_true(is_open(mapping_of(ph)->mapped)); /* held: closed at its release */
    assert_true(is_open(mapping_of(p0)->mapped)); /* another peer's */
    gdc_rt_cuda_ipc_release(cache, held);
    assert_false(is_open(mapping_of(ph)->mapped));
    /* peer 1's next acquire maps afresh */
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 1, &a, &e1, &p1), GDC_SUCCESS);
    assert_int_equal(fake.opens, 4);
    gdc_rt_cuda_ipc_release(cache, e1);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

static void test_destroy_closes_everything(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    gdc_rt_cuda_ipc_entry_t *e, *held = NULL, *held_stale = NULL;
    gdc_rt_cuda_ipc_export_t exp;
    void                    *p;
    int                      stale;

    for (int i = 0; i < 5; i++) {
        fake_alloc(0x100000000ull * (uint64_t)(i + 1), 1 << 20);
    }
    stale = 0;
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 16, &cache), GDC_SUCCESS);
    exp = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &held_stale, &p), GDC_SUCCESS);
    fake_realloc(stale);
    exp = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &e, &p), GDC_SUCCESS);
    gdc_rt_cuda_ipc_release(cache, e);
    for (int i = 1; i < 5; i++) {
        exp = export_of(0x100000000ull * (uint64_t)(i + 1));
        assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, i % 2, &exp, &e, &p), GDC_SUCCESS);
        if (i == 3) {
            held = e; /* a use that (wrongly) outlives the cache: closed anyway */
        } else {
            gdc_rt_cuda_ipc_release(cache, e);
        }
    }
    assert_non_null(held);
    assert_non_null(held_stale);
    assert_int_equal(stats_of(cache).stale, 1);
    assert_int_equal(fake.opens, 6);
    assert_int_equal(fake.closes, 0);
    gdc_rt_cuda_ipc_cache_destroy(cache);
    assert_int_equal(fake.closes, 6); /* teardown checks each was open and closed once */
    gdc_rt_cuda_ipc_cache_destroy(NULL);
}

static void test_bad_arguments(void **state)
{
    gdc_rt_cuda_ipc_cache_t *cache = NULL;
    gdc_rt_cuda_ipc_entry_t *e     = NULL;
    gdc_rt_cuda_ipc_export_t exp;
    gdc_rt_cuda_ipc_ops_t    no_close = fake_ops;
    void                    *p = NULL;

    no_close.close_handle = NULL;
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(NULL, 1, 1, &cache), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&no_close, 1, 1, &cache), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 0, 1, &cache), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 1, 0, &cache), GDC_ERR_INVALID_ARG);
    assert_null(cache);

    fake_alloc(0x100000000ull, 1 << 20);
    exp = export_of(0x100000000ull);
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 4, &cache), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 2, &exp, &e, &p), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, -1, &exp, &e, &p), GDC_ERR_INVALID_ARG);
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, NULL, &e, &p), GDC_ERR_INVALID_ARG);
    exp.offset = exp.size + 1;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &e, &p), GDC_ERR_INVALID_ARG);
    exp.offset = 0;
    exp.base   = 0;
    assert_int_equal(gdc_rt_cuda_ipc_acquire(cache, 0, &exp, &e, &p), GDC_ERR_INVALID_ARG);
    assert_null(e);
    assert_null(p);
    assert_int_equal(fake.opens, 0);
    gdc_rt_cuda_ipc_release(cache, NULL);
    gdc_rt_cuda_ipc_cache_destroy(cache);
}

/* Without a driver the driver's ops are refused before any call. */
static void test_driver_check_without_driver(void **state)
{
    if (gdc_rt_cuda_load()) {
        skip(); /* a device is here: test_cuda covers the driver */
    }
    assert_int_equal(gdc_rt_cuda_ipc_driver_check(), GDC_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hit_and_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_unused_is_closed_and_reopened, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_by_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_in_use_is_closed_at_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refcount, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_use_never_evicted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_eviction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_base_many_peers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_peer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_closes_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_driver_check_without_driver, setup, teardown),
    };

    return cmocka_run_group_tests_name("CUDA IPC mapping cache", tests, NULL, NULL);
}
