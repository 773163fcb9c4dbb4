/*
 * The CUDA driver wrapper: libcuda.so.1 opened once, cuGetProcAddress found by name, every
 * other entry point through it at the ABI version rt_cuda.h names, into gdc_rt_cuda.
 */
#include "rt_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rt_log.h"
#include "rt_memtype.h"

gdc_rt_cuda_api_t gdc_rt_cuda;

static struct {
    int   tried;
    int   available;
    int   driver_version;
    int   device_count;
    void *lib; /* kept for the life of the process: device memory and contexts outlive gdc */
} cuda;

static const struct {
    const char *name;
    int         version;
    size_t      offset;
} entry_points[] = {
#define ENTRY_POINT(name, version, params) {#name, version, offsetof(gdc_rt_cuda_api_t, name)},
    GDC_RT_CUDA_ENTRY_POINTS(ENTRY_POINT)
#undef ENTRY_POINT
};

_Static_assert(sizeof(entry_points) / sizeof(entry_points[0]) == sizeof(gdc_rt_cuda_api_t) / sizeof(void (*)(void)),
               "every member of gdc_rt_cuda_api_t has an entry point to resolve");

/* Every entry point the driver has into gdc_rt_cuda; the others stay NULL. */
static gdc_status_t resolve_entry_points(void *lib)
{
    gdc_rt_cu_get_proc_address_v2_fn_t get_v2 = NULL;
    gdc_rt_cu_get_proc_address_v1_fn_t get_v1 = NULL;
    void                              *sym;

    sym = dlsym(lib, "cuGetProcAddress_v2");
    if (sym != NULL) {
        memcpy(&get_v2, &sym, sizeof(sym));
    } else {
        sym = dlsym(lib, "cuGetProcAddress");
        if (sym == NULL) {
            GDC_LOG_WARN("CUDA driver too old: no cuGetProcAddress (CUDA 11.3 and later have it); treating all "
                         "buffers as host memory");
            return GDC_ERR_UNSUPPORTED;
        }
        memcpy(&get_v1, &sym, sizeof(sym));
    }
    /* The legacy default stream, as a plain dlsym of the same names gave; gdc passes its own
     * streams anyway. */
    for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
        void              *fn    = NULL;
        unsigned int       found = GDC_RT_CU_GET_PROC_ADDRESS_SUCCESS;
        gdc_rt_cu_result_t rc;

        rc = get_v2 != NULL ? get_v2(entry_points[i].name, &fn, entry_points[i].version,
                                     GDC_RT_CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found)
                            : get_v1(entry_points[i].name, &fn, entry_points[i].version,
                                     GDC_RT_CU_GET_PROC_ADDRESS_LEGACY_STREAM);
        if (rc == GDC_RT_CUDA_ERROR_STUB_LIBRARY) {
            /* The stub answers every call so: a machine without a driver, said at debug level
             * as before, not a driver that lacks entry points. */
            GDC_LOG_DEBUG("libcuda.so.1 is the CUDA toolkit's stub, not a driver: all buffers are host memory");
            return GDC_ERR_UNSUPPORTED;
        }
        if (rc != GDC_RT_CUDA_SUCCESS || found != GDC_RT_CU_GET_PROC_ADDRESS_SUCCESS || fn == NULL) {
            GDC_LOG_DEBUG("CUDA driver has no %s (ABI %d): error %u, lookup %u", entry_points[i].name,
                          entry_points[i].version, rc, found);
            continue;
        }
        memcpy((char *)&gdc_rt_cuda + entry_points[i].offset, &fn, sizeof(fn));
    }
    return GDC_SUCCESS;
}

/* The first entry point gdc needs as soon as CUDA is there (memory types, copies, scratch)
 * that the driver lacks, or NULL; without one of them the driver counts as absent. */
static const char *missing_required(void)
{
    const struct {
        const char *name;
        int         present;
    } required[] = {
        {"cuInit", gdc_rt_cuda.cuInit != NULL},
        {"cuDriverGetVersion", gdc_rt_cuda.cuDriverGetVersion != NULL},
        {"cuDeviceGetCount", gdc_rt_cuda.cuDeviceGetCount != NULL},
        {"cuPointerGetAttribute", gdc_rt_cuda.cuPointerGetAttribute != NULL},
        {"cuMemcpyAsync", gdc_rt_cuda.cuMemcpyAsync != NULL},
        {"cuStreamSynchronize", gdc_rt_cuda.cuStreamSynchronize != NULL},
        {"cuCtxPushCurrent", gdc_rt_cuda.cuCtxPushCurrent != NULL},
        {"cuCtxPopCurrent", gdc_rt_cuda.cuCtxPopCurrent != NULL},
        {"cuMemAlloc", gdc_rt_cuda.cuMemAlloc != NULL},
        {"cuMemFree", gdc_rt_cuda.cuMemFree != NULL},
    };

    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (!required[i].present) {
            return required[i].name;
        }
    }
    return NULL;
}

int gdc_rt_cuda_load(void)
{
    const char *missing;

    if (cuda.tried) {
        return cuda.available;
    }
    cuda.tried = 1;
    cuda.lib   = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda.lib == NULL) {
        GDC_LOG_DEBUG("CUDA driver not loaded (%s): all buffers are host memory", dlerror());
        return 0;
    }
    if (resolve_entry_points(cuda.lib) != GDC_SUCCESS) {
        goto err_clear_table;
    }
    missing = missing_required();
    if (missing != NULL) {
        GDC_LOG_WARN("CUDA driver lacks %s, an entry point gdc needs; treating all buffers as host memory", missing);
        goto err_clear_table;
    }
    gdc_rt_cuda.cuDriverGetVersion(&cuda.driver_version);
    if (gdc_rt_cuda.cuInit(0) != GDC_RT_CUDA_SUCCESS ||
        gdc_rt_cuda.cuDeviceGetCount(&cuda.device_count) != GDC_RT_CUDA_SUCCESS || cuda.device_count == 0) {
        GDC_LOG_DEBUG("CUDA driver %d found but no usable device", cuda.driver_version);
        cuda.device_count = 0;
        goto err_clear_table;
    }
    cuda.available = 1;
    GDC_LOG_DEBUG("CUDA driver %d, %d device(s)", cuda.driver_version, cuda.device_count);
    return 1;

err_clear_table:
    memset(&gdc_rt_cuda, 0, sizeof(gdc_rt_cuda));
    dlclose(cuda.lib);
    cuda.lib = NULL;
    return 0;
}

int gdc_rt_cuda_available(void)
{
    return cuda.available;
}

int gdc_rt_cuda_driver_version(void)
{
    return cuda.driver_version;
}

int gdc_rt_cuda_device_count(void)
{
    return cuda.device_count;
}

const char *gdc_rt_cuda_strerror(gdc_rt_cu_result_t result)
{
    static _Thread_local char text[192];
    const char               *name = NULL, *desc = NULL;

    if (gdc_rt_cuda.cuGetErrorName == NULL ||
        gdc_rt_cuda.cuGetErrorName(result, &name) != GDC_RT_CUDA_SUCCESS || name == NULL) {
        snprintf(text, sizeof(text), "CUDA error %u", result);
        return text;
    }
    if (gdc_rt_cuda.cuGetErrorString == NULL ||
        gdc_rt_cuda.cuGetErrorString(result, &desc) != GDC_RT_CUDA_SUCCESS || desc == NULL) {
        snprintf(text, sizeof(text), "%s", name);
    } else {
        snprintf(text, sizeof(text), "%s (%s)", name, desc);
    }
    return text;
}

/* ---------------------------------------------------------------------------------------
 * Helpers
 */

gdc_rt_cu_context_t gdc_rt_cuda_push_owner(const void *ptr)
{
    gdc_rt_cu_context_t ctx = NULL;

    /* Host memory (also when pinned or registered) needs no context of its own. */
    if (gdc_rt_memtype_of(ptr) == GDC_RT_MEM_HOST ||
        gdc_rt_cuda.cuPointerGetAttribute(&ctx, GDC_RT_CU_POINTER_ATTRIBUTE_CONTEXT, gdc_rt_cuda_ptr(ptr)) !=
            GDC_RT_CUDA_SUCCESS ||
        ctx == NULL) {
        return NULL;
    }
    return gdc_rt_cuda.cuCtxPushCurrent(ctx) == GDC_RT_CUDA_SUCCESS ? ctx : NULL;
}

void gdc_rt_cuda_pop_owner(gdc_rt_cu_context_t pushed)
{
    gdc_rt_cu_context_t popped;

    if (pushed != NULL) {
        (void)gdc_rt_cuda.cuCtxPopCurrent(&popped);
    }
}

/* gdc's own stream in each context it copies in, waited on by itself, so that a copy is
 * complete when gdc_rt_cuda_copy returns. cuMemcpy's is not: from device to device, and
 * from pageable host memory to the device, it returns before the DMA ends, and gdc's
 * reduction kernels (on a stream of their own) then read what was not there yet (seen on an
 * H200: allreduce and reduce results wrong from 16 KiB, bench/RESULTS.md 2026-12-04). A
 * blocking stream, so that its copies still follow what the caller left on the legacy
 * default stream (a non-blocking one overtook a cudaMemset there: results of 0xff). */
#define GDC_RT_CUDA_MAX_CONTEXTS 16
static struct {
    gdc_rt_cu_context_t ctx;
    gdc_rt_cu_stream_t  stream;
} copy_streams[GDC_RT_CUDA_MAX_CONTEXTS];
static int num_copy_streams;

/* The copy stream of the current context (created on first use), or NULL: then the legacy
 * stream, with a wait on it. */
static gdc_rt_cu_stream_t copy_stream(void)
{
    gdc_rt_cu_context_t ctx = NULL;
    gdc_rt_cu_stream_t  stream = NULL;
    gdc_rt_cu_result_t  rc;

    if (gdc_rt_cuda.cuCtxGetCurrent == NULL || gdc_rt_cuda.cuStreamCreate == NULL ||
        gdc_rt_cuda.cuCtxGetCurrent(&ctx) != GDC_RT_CUDA_SUCCESS || ctx == NULL) {
        return NULL;
    }
    for (int i = 0; i < num_copy_streams; i++) {
        if (copy_streams[i].ctx == ctx) {
            return copy_streams[i].stream;
        }
    }
    if (num_copy_streams == GDC_RT_CUDA_MAX_CONTEXTS) {
        return NULL;
    }
    rc = gdc_rt_cuda.cuStreamCreate(&stream, GDC_RT_CU_STREAM_DEFAULT);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_WARN_ONCE("cuStreamCreate failed (%s): gdc's device copies go on the legacy default stream",
                          gdc_rt_cuda_strerror(rc));
        return NULL;
    }
    copy_streams[num_copy_streams].ctx      = ctx;
    copy_streams[num_copy_streams].stream   = stream;
    num_copy_streams++;
    return stream;
}

gdc_status_t gdc_rt_cuda_copy(void *dst, const void *src, size_t n)
{
    gdc_rt_cu_context_t pushed;
    gdc_rt_cu_stream_t  stream;
    gdc_rt_cu_result_t  rc;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    pushed = gdc_rt_cuda_push_owner(dst);
    if (pushed == NULL) {
        pushed = gdc_rt_cuda_push_owner(src);
    }
    stream = copy_stream();
    rc     = gdc_rt_cuda.cuMemcpyAsync(gdc_rt_cuda_ptr(dst), gdc_rt_cuda_ptr(src), n, stream);
    if (rc == GDC_RT_CUDA_SUCCESS) {
        rc = gdc_rt_cuda.cuStreamSynchronize(stream);
    }
    gdc_rt_cuda_pop_owner(pushed);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("copy of %zu bytes (%p to %p) failed: %s", n, src, dst, gdc_rt_cuda_strerror(rc));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_cuda_copy_async(void *dst, const void *src, size_t n, const void *owner,
                                    gdc_rt_cu_event_t *event)
{
    gdc_rt_cu_context_t pushed;
    gdc_rt_cu_stream_t  stream;
    gdc_rt_cu_result_t  rc = GDC_RT_CUDA_SUCCESS;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    pushed = gdc_rt_cuda_push_owner(owner);
    stream = copy_stream();
    if (*event == NULL) {
        rc = gdc_rt_cuda.cuEventCreate(event, GDC_RT_CU_EVENT_DISABLE_TIMING);
    }
    if (rc == GDC_RT_CUDA_SUCCESS) {
        rc = gdc_rt_cuda.cuMemcpyAsync(gdc_rt_cuda_ptr(dst), gdc_rt_cuda_ptr(src), n, stream);
    }
    if (rc == GDC_RT_CUDA_SUCCESS) {
        rc = gdc_rt_cuda.cuEventRecord(*event, stream);
    }
    gdc_rt_cuda_pop_owner(pushed);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("queuing a copy of %zu bytes (%p to %p) failed: %s", n, src, dst, gdc_rt_cuda_strerror(rc));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

int gdc_rt_cuda_event_done(gdc_rt_cu_event_t event, gdc_status_t *status)
{
    gdc_rt_cu_result_t rc = gdc_rt_cuda.cuEventQuery(event);

    if (rc == GDC_RT_CUDA_ERROR_NOT_READY) {
        return 0;
    }
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("a queued device copy failed: %s", gdc_rt_cuda_strerror(rc));
        *status = GDC_ERR_TRANSPORT;
    }
    return 1;
}

gdc_status_t gdc_rt_cuda_event_wait(gdc_rt_cu_event_t event)
{
    gdc_rt_cu_result_t rc = gdc_rt_cuda.cuEventSynchronize(event);

    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("waiting for a queued device copy failed: %s", gdc_rt_cuda_strerror(rc));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

void gdc_rt_cuda_event_destroy(gdc_rt_cu_event_t event)
{
    if (event != NULL && cuda.available) {
        (void)gdc_rt_cuda.cuEventDestroy(event);
    }
}

int gdc_rt_cuda_pin(void *ptr, size_t n, const void *near)
{
    gdc_rt_cu_context_t pushed;
    gdc_rt_cu_result_t  rc;

    if (!cuda.available || gdc_rt_cuda.cuMemHostRegister == NULL) {
        return 0;
    }
    pushed = gdc_rt_cuda_push_owner(near);
    rc     = gdc_rt_cuda.cuMemHostRegister(ptr, n, GDC_RT_CU_MEMHOSTREGISTER_PORTABLE);
    gdc_rt_cuda_pop_owner(pushed);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_WARN_ONCE("pinning %zu bytes of host memory for staging failed (%s): the device copies of "
                          "staged messages go from pageable memory (slower, and not overlapped)",
                          n, gdc_rt_cuda_strerror(rc));
        return 0;
    }
    return 1;
}

void gdc_rt_cuda_unpin(void *ptr)
{
    if (cuda.available && gdc_rt_cuda.cuMemHostUnregister != NULL) {
        (void)gdc_rt_cuda.cuMemHostUnregister(ptr);
    }
}

gdc_status_t gdc_rt_cuda_wait_caller(const void *near)
{
    gdc_rt_cu_context_t pushed;
    gdc_rt_cu_result_t  rc;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    pushed = gdc_rt_cuda_push_owner(near);
    rc     = gdc_rt_cuda.cuStreamSynchronize(NULL); /* the legacy stream: it waits for blocking streams too */
    gdc_rt_cuda_pop_owner(pushed);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("waiting for the work on the caller's device buffers failed: %s", gdc_rt_cuda_strerror(rc));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

int gdc_rt_cuda_ipc_capable(const void *ptr)
{
    int capable = 0;

    if (!cuda.available) {
        return 0;
    }
    if (gdc_rt_cuda.cuPointerGetAttribute(&capable, GDC_RT_CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
                                          gdc_rt_cuda_ptr(ptr)) != GDC_RT_CUDA_SUCCESS) {
        return 1; /* a driver that does not say has only cuMemAlloc'd memory to share */
    }
    return capable;
}

int gdc_rt_cuda_sole_device(uint32_t *key, char *busid)
{
    gdc_rt_cu_device_t device;
    int                mps = 0;
    uint32_t           hash = 2166136261u; /* FNV-1a */

    if (!cuda.available || cuda.device_count != 1 || gdc_rt_cuda.cuDeviceGet == NULL ||
        gdc_rt_cuda.cuDeviceGetPCIBusId == NULL || gdc_rt_cuda.cuDeviceGet(&device, 0) != GDC_RT_CUDA_SUCCESS ||
        gdc_rt_cuda.cuDeviceGetPCIBusId(busid, 32, device) != GDC_RT_CUDA_SUCCESS) {
        return 0;
    }
    busid[31] = '\0';
    if (gdc_rt_cuda.cuDeviceGetAttribute != NULL &&
        gdc_rt_cuda.cuDeviceGetAttribute(&mps, GDC_RT_CU_DEVICE_ATTRIBUTE_MPS_ENABLED, device) == GDC_RT_CUDA_SUCCESS &&
        mps) {
        return 0;
    }
    for (const char *c = busid; *c != '\0'; c++) {
        hash = (hash ^ (uint8_t)*c) * 16777619u;
    }
    *key = hash;
    return 1;
}

gdc_status_t gdc_rt_cuda_alloc(const void *near, size_t n, void **out)
{
    gdc_rt_cu_context_t   pushed;
    gdc_rt_cu_deviceptr_t ptr = 0;
    gdc_rt_cu_result_t    rc;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    pushed = gdc_rt_cuda_push_owner(near);
    rc     = gdc_rt_cuda.cuMemAlloc(&ptr, n > 0 ? n : 1);
    gdc_rt_cuda_pop_owner(pushed);
    if (rc != GDC_RT_CUDA_SUCCESS) {
        GDC_LOG_ERROR("cuMemAlloc of %zu bytes failed: %s", n, gdc_rt_cuda_strerror(rc));
        return GDC_ERR_NO_MEMORY;
    }
    *out = (void *)(uintptr_t)ptr;
    return GDC_SUCCESS;
}

void gdc_rt_cuda_free(void *ptr)
{
    if (cuda.available && ptr != NULL) {
        (void)gdc_rt_cuda.cuMemFree(gdc_rt_cuda_ptr(ptr));
    }
}
