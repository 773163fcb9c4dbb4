/*
 * CUDA IPC mappings of peers' device memory, cached.
 *
 * The owner of a device buffer exports the legacy IPC handle of the buffer's whole
 * allocation (cuMemGetAddressRange's base: the driver gives handles of allocations, not of
 * pointers into them) with the buffer's offset in it. A peer on the node maps the handle
 * once and keeps the mapping: opening a handle costs tens of microseconds and a collective
 * on the same buffer comes again and again.
 *
 * A cached mapping must never outlive the allocation it shows. The owner may free a buffer
 * and get a new allocation at the same base; the new allocation has a different handle
 * (the driver puts a unique id in it), so a lookup by (peer, base) that finds other handle
 * bytes than the export's drops the old mapping and opens the new one. The old one is
 * closed as soon as no use holds it.
 *
 * Not thread-safe: the cache belongs to the progress engine, which runs on one thread at a
 * time. cuIpcOpenMemHandle maps into the current context: the caller makes the context of
 * the device it copies with current first.
 */
#ifndef GDC_RT_CUDA_IPC_H
#define GDC_RT_CUDA_IPC_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

#include "rt_cuda.h"

/* What the owner sends its peers about one buffer: plain bytes, fit for shared memory or a
 * message. */
typedef struct gdc_rt_cuda_ipc_export {
    uint64_t                   base;   /* the allocation's base in the owner's address space */
    uint64_t                   size;   /* of the allocation */
    uint64_t                   offset; /* of the buffer in the allocation */
    gdc_rt_cu_ipc_mem_handle_t handle; /* of the allocation */
} gdc_rt_cuda_ipc_export_t;

/* The driver calls the cache makes; tests put fakes here. Each returns a CUresult. */
typedef struct gdc_rt_cuda_ipc_ops {
    gdc_rt_cu_result_t (*get_address_range)(void *arg, gdc_rt_cu_deviceptr_t ptr, gdc_rt_cu_deviceptr_t *base,
                                            size_t *size);
    gdc_rt_cu_result_t (*get_ipc_handle)(void *arg, gdc_rt_cu_deviceptr_t base, gdc_rt_cu_ipc_mem_handle_t *handle);
    gdc_rt_cu_result_t (*open_handle)(void *arg, const gdc_rt_cu_ipc_mem_handle_t *handle,
                                      gdc_rt_cu_deviceptr_t *mapped);
    gdc_rt_cu_result_t (*close_handle)(void *arg, gdc_rt_cu_deviceptr_t mapped);
    void *arg;
} gdc_rt_cuda_ipc_ops_t;

/* The driver's own calls through gdc_rt_cuda (cuMemGetAddressRange, cuIpcGetMemHandle,
 * cuIpcOpenMemHandle with lazy peer access, cuIpcCloseMemHandle). */
extern const gdc_rt_cuda_ipc_ops_t gdc_rt_cuda_ipc_driver_ops;

/* GDC_ERR_UNSUPPORTED (logged at debug level) when the driver is not loaded or lacks one
 * of the entry points the driver ops call. */
gdc_status_t gdc_rt_cuda_ipc_driver_check(void);

/* The owner's side: what a peer needs to map buf (device memory). */
gdc_status_t gdc_rt_cuda_ipc_export(const gdc_rt_cuda_ipc_ops_t *ops, const void *buf,
                                    gdc_rt_cuda_ipc_export_t *out);

typedef struct gdc_rt_cuda_ipc_cache gdc_rt_cuda_ipc_cache_t;
typedef struct gdc_rt_cuda_ipc_entry gdc_rt_cuda_ipc_entry_t;

typedef struct gdc_rt_cuda_ipc_stats {
    uint64_t hits;      /* a lookup found the mapping */
    uint64_t misses;    /* a lookup opened a handle (stale ones included) */
    uint64_t stale;     /* a lookup found other handle bytes at the base: the buffer was freed */
    uint64_t evictions; /* unused mappings closed to stay within the bound */
    size_t   entries;   /* mappings open now, stale ones still in use included */
} gdc_rt_cuda_ipc_stats_t;

/* A cache for num_peers peers (local indexes 0..num_peers-1) of at most max_entries open
 * mappings in all (those in use are never closed, so the bound may be passed while they
 * are held). ops is copied. */
gdc_status_t gdc_rt_cuda_ipc_cache_create(const gdc_rt_cuda_ipc_ops_t *ops, int num_peers, size_t max_entries,
                                          gdc_rt_cuda_ipc_cache_t **out);

/* Closes every mapping (at gdc_comm_free and gdc_finalize). Mappings still acquired are
 * closed too, with a warning: their users outlived the cache. NULL is ignored. */
void gdc_rt_cuda_ipc_cache_destroy(gdc_rt_cuda_ipc_cache_t *cache);

/* The peer's buffer described by exp, mapped here: *ptr is the buffer (not the allocation
 * base) in this process, valid until gdc_rt_cuda_ipc_release(*entry). */
gdc_status_t gdc_rt_cuda_ipc_acquire(gdc_rt_cuda_ipc_cache_t *cache, int peer, const gdc_rt_cuda_ipc_export_t *exp,
                                     gdc_rt_cuda_ipc_entry_t **entry, void **ptr);
void         gdc_rt_cuda_ipc_release(gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_entry_t *entry);

/* Close every unused mapping of one peer (it left, or failed); those in use are closed at
 * their release. */
void gdc_rt_cuda_ipc_cache_drop_peer(gdc_rt_cuda_ipc_cache_t *cache, int peer);

void gdc_rt_cuda_ipc_cache_stats(const gdc_rt_cuda_ipc_cache_t *cache, gdc_rt_cuda_ipc_stats_t *stats);

#endif
