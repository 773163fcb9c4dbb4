/*
 * The cache of CUDA IPC mappings: a hash table by (peer, allocation base) for lookups, a
 * list in order of use for eviction, and a list of stale mappings that a use still holds.
 */
#include "rt_cuda_ipc.h"

#include <stdlib.h>
#include <string.h>

#include "rt_log.h"

/* Past this a bound is a mistake: each mapping holds a share of the BAR and of the
 * driver's tables. */
#define GDC_RT_CUDA_IPC_MAX_ENTRIES (1u << 20)

struct gdc_rt_cuda_ipc_entry {
    int                        peer;
    uint64_t                   base; /* in the owner's address space: the key */
    uint64_t                   size;
    gdc_rt_cu_ipc_mem_handle_t handle;
    gdc_rt_cu_deviceptr_t      mapped;   /* the allocation's base here */
    unsigned                   refcount; /* acquires not yet released */
    int                        stale;    /* out of the table: closed at its last release */
    gdc_rt_cuda_ipc_entry_t   *chain;    /* next in the hash bucket */
    gdc_rt_cuda_ipc_entry_t   *prev, *next; /* in the use list, or the stale list */
};

typedef struct entry_list {
    gdc_rt_cuda_ipc_entry_t *head, *tail;
} entry_list_t;

struct gdc_rt_cuda_ipc_cache {
    gdc_rt_cuda_ipc_ops_t     ops;
    int                       num_peers;
    size_t                    max_entries;
    unsigned                  bucket_bits;
    gdc_rt_cuda_ipc_entry_t **buckets;
    entry_list_t              used;  /* in the table, most recently used first */
    entry_list_t              stale; /* out of the table, still held by a use */
    gdc_rt_cuda_ipc_stats_t   stats;
};

/* ---------------------------------------------------------------------------------------
 * The driver's calls
 */

static gdc_rt_cu_result_t driver_get_address_range(void *arg, gdc_rt_cu_deviceptr_t ptr, gdc_rt_cu_deviceptr_t *base,
                                                   size_t *size)
{
    gdc_rt_cu_context_t pushed = gdc_rt_cuda_push_owner((const void *)(uintptr_t)ptr);
    gdc_rt_cu_result_t  rc     = gdc_rt_cuda.cuMemGetAddressRange(base, size, ptr);

    gdc_rt_cuda_pop_owner(pushed);
    return rc;
}

static gdc_rt_cu_result_t driver_get_ipc_handle(void *arg, gdc_rt_cu_deviceptr_t base,
                                                gdc_rt_cu_ipc_mem_handle_t *handle)
{
    gdc_rt_cu_context_t pushed = gdc_rt_cuda_push_owner((const void *)(uintptr_t)base);
    gdc_rt_cu_result_t  rc     = gdc_rt_cuda.cuIpcGetMemHandle(handle, base);

    gdc_rt_cuda_pop_owner(pushed);
    return rc;
}

static gdc_rt_cu_result_t driver_open_handle(void *arg, const gdc_rt_cu_ipc_mem_handle_t *handle,
                                             gdc_rt_cu_deviceptr_t *mapped)
{
    /* Lazy peer access: the driver enables it for the importing context only when the
     * memory is on another device, which also makes ranks sharing one GPU work. */
    return gdc_rt_cuda.cuIpcOpenMemHandle(mapped, *handle, GDC_RT_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
}

static gdc_rt_cu_result_t driver_close_handle(void *arg, gdc_rt_cu_deviceptr_t mapped)
{
    return gdc_rt_cuda.cuIpcCloseMemHandle(mapped);
}

const gdc_rt_cuda_ipc_ops_t gdc_rt_cuda_ipc_driver_ops = {
    .get_address_range = driver_get_address_range,
    .get_ipc_handle    = driver_get_ipc_handle,
    .open_handle       = driver_open_handle,
    .close_handle      = driver_close_handle,
    .arg               = NULL,
};

gdc_status_t gdc_rt_cuda_ipc_driver_check(void)
{
    if (!gdc_rt_cuda_available()) {
        GDC_LOG_DEBUG("CUDA IPC: no CUDA driver or device");
        return GDC_ERR_UNSUPPORTED;
    }
    if (gdc_rt_cuda.cuMemGetAddressRange == NULL || gdc_rt_cuda.cuIpcGetMemHandle == NULL ||
        gdc_rt_cuda.cuIpcOpenMemHandle == NULL || gdc_rt_cuda.cuIpcCloseMemHandle == NULL) {
        GDC_LOG_DEBUG("CUDA IPC: the driver lacks cuMemGetAddressRange or a cuIpc*MemHandle entry point");
        return GDC_ERR_UNSUPPORTED;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_cuda_ipc_export(const gdc_rt_cuda_ipc_ops_t *ops, const void *buf,
                                    gdc_rt_cuda_ipc_export_t *out)
{
    gdc_rt_cu_deviceptr_t ptr = gdc_rt_cuda_ptr(buf), base = 0;
    size_t                size = 0;
    gdc_rt_cuda_ipc_export_t exp;
    gdc_rt_cu_result_t    rc;

    if (ops == NULL || buf == NULL || out == NULL) {
        GDC_LOG_ERROR("CUDA IPC export: %s is NULL", ops == NULL ? "ops" : buf == NULL ? "buf" : "out");
        return GDC_ERR_INVALID_ARG;
    }
    rc = ops->get_address_range(ops->arg, ptr, &base, &size);
    if (rc != GDC_RT_CUDA_SUCCESS || base == 0 || ptr < base || ptr - base >= size) {
        GDC_LOG_ERROR("CUDA IPC export: %p is in no device allocation (cuMemGetAddressRange: %s)", buf,
                      rc != GDC_RT_CUDA_SUCCESS ? gdc_rt_cuda_strerror(rc) : "range does not hold it");
        return GDC_ERR_INVALID_ARG;
    }
    memset(&exp, 0, sizeof(exp));
    rc = ops->get_ipc_handle(ops->arg, base, &exp.handle);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        /* cuMemCreate'd and pool memory have no legacy handle: the path choice should have
         * kept such memory away from here. */
        GDC_LOG_ERROR("CUDA IPC export: no IPC handle for the allocation at 0x%llx (%zu bytes; VMM or pool "
                      "memory?): %s",
                      base, size, gdc_rt_cuda_strerror(rc));
        return GDC_ERR_UNSUPPORTED;
    }
    exp.base   = base;
    exp.size   = size;
    exp.offset = ptr - base;
    *out       = exp;
    return GDC_SUCCESS;
}

/* ---------------------------------------------------------------------------------------
 * Lists and table
 */

static void list_push_front(entry_list_t *list, gdc_rt_cuda_ipc_entry_t *e)
{
    e->prev = NULL;
    e->next = list->head;
    if (list->head != NULL) {
        list->head->prev = e;
    } else {
        list->tail = e;
    }
    list->head = e;
}

static void list_remove(entry_list_t *list, gdc_rt_cuda_ipc_entry_t *e)
{
    if (e->prev != NULL) {
        e->prev->next = e->next;
    } else {
        list->head = e->next;
    }
    if (e->next != NULL) {
        e->next->prev = e->prev;
    } else {
        list->tail = e->prev;
    }
    e->prev = e->next = NULL;
}

static gdc_rt_cuda_ipc_entry_t **bucket_of(gdc_rt_cuda_ipc_cache_t *cache, int peer, uint64_t base)
{
    /* Bases are aligned to at least 512 bytes (usually 2 MiB): mix before taking top bits. */
    uint64_t h = (base ^ ((uint64_t)(unsigned)peer << 48)) * 0x9e3779b97f4a7c15ull;

    return &cache->buckets[h >> (64 - cache->bucket_bits)];
}

static gdc_rt_cuda_ipc_entry_t *table_find(gdc_rt_cuda_ipc_cache_t *cache, int peer, uint64_t base)
{
    for (gdc_rt_cuda_ipc_entry_t *e = *bucket_of(cache, peer, base); e != NULL; e = e->chain) {
        if (e->peer == peer && e->base == base) {
            return e;
        }
    }
    return NULL;
}

static void table_remove(gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_entry_t *e)
{
    gdc_rt_cuda_ipc_entry_t **link = bucket_of(cache, e->peer, e->base);

    while (*link != e) {
        link = &(*link)->chain;
    }
    *link    = e->chain;
    e->chain = NULL;
}

/* Unmap and forget; the entry must be in no list or table. */
static void entry_close(gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_entry_t *e)
{
    gdc_rt_cu_result_t rc = cache->ops.close_handle(cache->ops.arg, e->mapped);

    if (rc != GDC_RT_CUDA_SUCCESS) {
        /* Nothing to retry: the mapping is lost to this process, not wrong. */
        GDC_LOG_WARN("CUDA IPC: closing the mapping of peer %d's allocation at 0x%llx failed: %s", e->peer,
                     (unsigned long long)e->base, gdc_rt_cuda_strerror(rc));
    }
    cache->stats.entries--;
    free(e);
}

/* Out of the table, so that no lookup finds it again; closed now or at its last release. */
static void entry_make_stale(gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_entry_t *e)
{
    table_remove(cache, e);
    list_remove(&cache->used, e);
    e->stale = 1;
    if (e->refcount == 0) {
        entry_close(cache, e);
    } else {
        list_push_front(&cache->stale, e);
    }
}

/* Close unused mappings, least recently used first, until at most keep remain open. */
static void evict_to(gdc_rt_cuda_ipc_cache_t *cache, size_t keep)
{
    gdc_rt_cuda_ipc_entry_t *e = cache->used.tail;

    while (e != NULL && cache->stats.entries > keep) {
        gdc_rt_cuda_ipc_entry_t *prev = e->prev;

        if (e->refcount == 0) {
            table_remove(cache, e);
            list_remove(&cache->used, e);
            entry_close(cache, e);
            cache->stats.evictions++;
        }
        e = prev;
    }
}

/* ---------------------------------------------------------------------------------------
 * The cache
 */

gdc_status_t gdc_rt_cuda_ipc_cache_create(const gdc_rt_cuda_ipc_ops_t *ops, int num_peers, size_t max_entries,
                                          gdc_rt_cuda_ipc_cache_t **out)
{
    gdc_rt_cuda_ipc_cache_t *cache;
    unsigned                 bits = 4;

    if (ops == NULL || ops->get_address_range == NULL || ops->get_ipc_handle == NULL || ops->open_handle == NULL ||
        ops->close_handle == NULL || out == NULL) {
        GDC_LOG_ERROR("CUDA IPC cache: %s is NULL", out == NULL ? "out" : "ops or one of its calls");
        return GDC_ERR_INVALID_ARG;
    }
    if (num_peers <= 0 || max_entries == 0 || max_entries > GDC_RT_CUDA_IPC_MAX_ENTRIES) {
        GDC_LOG_ERROR("CUDA IPC cache: %d peers, at most %zu entries: need at least 1 peer and 1..%u entries",
                      num_peers, max_entries, GDC_RT_CUDA_IPC_MAX_ENTRIES);
        return GDC_ERR_INVALID_ARG;
    }
    cache = calloc(1, sizeof(*cache));
    if (cache == NULL) {
        goto err_nomem;
    }
    /* Twice the bound in buckets: chains stay short while in-use entries pass the bound. */
    while (((size_t)1 << bits) < 2 * max_entries) {
        bits++;
    }
    cache->buckets = calloc((size_t)1 << bits, sizeof(*cache->buckets));
    if (cache->buckets == NULL) {
        goto err_free_cache;
    }
    cache->ops         = *ops;
    cache->num_peers   = num_peers;
    cache->max_entries = max_entries;
    cache->bucket_bits = bits;
    *out               = cache;
    return GDC_SUCCESS;

err_free_cache:
    free(cache);
err_nomem:
    GDC_LOG_ERROR("CUDA IPC cache: out of memory for %zu entries", max_entries);
    return GDC_ERR_NO_MEMORY;
}

void gdc_rt_cuda_ipc_cache_destroy(gdc_rt_cuda_ipc_cache_t *cache)
{
    entry_list_t *lists[2];

    if (cache == NULL) {
        return;
    }
    lists[0] = &cache->used;
    lists[1] = &cache->stale;
    GDC_LOG_DEBUG("CUDA IPC cache: %llu hits, %llu misses (%llu stale), %llu evictions; closing %zu mappings",
                  (unsigned long long)cache->stats.hits, (unsigned long long)cache->stats.misses,
                  (unsigned long long)cache->stats.stale, (unsigned long long)cache->stats.evictions,
                  cache->stats.entries);
    for (int i = 0; i < 2; i++) {
        while (lists[i]->head != NULL) {
            gdc_rt_cuda_ipc_entry_t *e = lists[i]->head;

            if (e->refcount > 0) {
                GDC_LOG_WARN("CUDA IPC cache destroyed while peer %d's allocation at 0x%llx is in use (%u uses)",
                             e->peer, (unsigned long long)e->base, e->refcount);
            }
            list_remove(lists[i], e);
            entry_close(cache, e);
        }
    }
    free(cache->buckets);
    free(cache);
}

gdc_status_t gdc_rt_cuda_ipc_acquire(gdc_rt_cuda_ipc_cache_t *cache, int peer, const gdc_rt_cuda_ipc_export_t *exp,
                                     gdc_rt_cuda_ipc_entry_t **entry, void **ptr)
{
    gdc_rt_cuda_ipc_entry_t *e;
    gdc_rt_cu_result_t       rc;

    if (cache == NULL || exp == NULL || entry == NULL || ptr == NULL) {
        GDC_LOG_ERROR("CUDA IPC acquire: %s is NULL", cache == NULL ? "cache" : exp == NULL ? "exp" :
                                                      entry == NULL ? "entry" : "ptr");
        return GDC_ERR_INVALID_ARG;
    }
    if (peer < 0 || peer >= cache->num_peers || exp->base == 0 || exp->offset > exp->size) {
        GDC_LOG_ERROR("CUDA IPC acquire: peer %d (of %d), base 0x%llx, offset %llu in %llu bytes: out of range",
                      peer, cache->num_peers, (unsigned long long)exp->base, (unsigned long long)exp->offset,
                      (unsigned long long)exp->size);
        return GDC_ERR_INVALID_ARG;
    }

    e = table_find(cache, peer, exp->base);
    if (e != NULL) {
        if (e->size == exp->size && memcmp(&e->handle, &exp->handle, sizeof(e->handle)) == 0) {
            cache->stats.hits++;
            e->refcount++;
            list_remove(&cache->used, e);
            list_push_front(&cache->used, e);
            *entry = e;
            *ptr   = (void *)(uintptr_t)(e->mapped + exp->offset);
            return GDC_SUCCESS;
        }
        /* The owner freed the allocation and got another at the same base. */
        GDC_LOG_DEBUG("CUDA IPC: peer %d's allocation at 0x%llx changed (%llu -> %llu bytes, new handle): "
                      "remapping",
                      peer, (unsigned long long)exp->base, (unsigned long long)e->size,
                      (unsigned long long)exp->size);
        cache->stats.stale++;
        entry_make_stale(cache, e);
    }
    cache->stats.misses++;

    /* Room first, so that the bound holds whenever the unused entries allow it. */
    evict_to(cache, cache->max_entries - 1);
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        GDC_LOG_ERROR("CUDA IPC acquire: out of memory");
        return GDC_ERR_NO_MEMORY;
    }
    rc = cache->ops.open_handle(cache->ops.arg, &exp->handle, &e->mapped);
    if (rc == GDC_RT_CUDA_ERROR_OUT_OF_MEMORY && cache->used.head != NULL) {
        /* Mappings take BAR and address space: give back every unused one and try again. */
        GDC_LOG_DEBUG("CUDA IPC: out of memory opening peer %d's handle; closing unused mappings", peer);
        evict_to(cache, 0);
        rc = cache->ops.open_handle(cache->ops.arg, &exp->handle, &e->mapped);
    }
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("CUDA IPC: cannot map peer %d's allocation at 0x%llx (%llu bytes): %s", peer,
                      (unsigned long long)exp->base, (unsigned long long)exp->size, gdc_rt_cuda_strerror(rc));
        goto err_free_entry;
    }
    e->peer     = peer;
    e->base     = exp->base;
    e->size     = exp->size;
    e->handle   = exp->handle;
    e->refcount = 1;
    e->chain    = *bucket_of(cache, peer, exp->base);
    *bucket_of(cache, peer, exp->base) = e;
    list_push_front(&cache->used, e);
    cache->stats.entries++;
    *entry = e;
    *ptr   = (void *)(uintptr_t)(e->mapped + exp->offset);
    return GDC_SUCCESS;

err_free_entry:
    free(e);
    return GDC_ERR_TRANSPORT;
}

void gdc_rt_cuda_ipc_release(gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_entry_t *entry)
{
    if (cache == NULL || entry == NULL) {
        return;
    }
    if (entry->refcount == 0) {
        GDC_LOG_ERROR("CUDA IPC: release of peer %d's allocation at 0x%llx that no use holds", entry->peer,
                      (unsigned long long)entry->base);
        return;
    }
    if (--entry->refcount > 0) {
        return;
    }
    if (entry->stale) {
        list_remove(&cache->stale, entry);
        entry_close(cache, entry);
    } else if (cache->stats.entries > cache->max_entries) {
        /* Acquires while everything was in use passed the bound; come back to it. */
        evict_to(cache, cache->max_entries);
    }
}

void gdc_rt_cuda_ipc_cache_drop_peer(gdc_rt_cuda_ipc_cache_t *cache, int peer)
{
    gdc_rt_cuda_ipc_entry_t *e;

    if (cache == NULL) {
        return;
    }
    e = cache->used.head;
    while (e != NULL) {
        gdc_rt_cuda_ipc_entry_t *next = e->next;

        if (e->peer == peer) {
            entry_make_stale(cache, e);
        }
        e = next;
    }
}

void gdc_rt_cuda_ipc_cache_stats(const gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_stats_t *stats)
{
    if (cache != NULL && stats != NULL) {
        *stats = cache->stats;
    }
}
