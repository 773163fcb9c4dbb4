#include "rt_memtype.h"

#include <dlfcn.h>
#include <stdint.h>

#include <gdc.h>

#include "rt_log.h"

/* The few driver API types and entry points we use, declared here so that the build
 * does not need cuda.h. Values are those of the CUDA driver API. */
typedef int                cu_result_t;
typedef unsigned long long cu_deviceptr_t;
typedef void              *cu_context_t;

#define CU_POINTER_ATTRIBUTE_CONTEXT     1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED  8
#define CU_MEMORYTYPE_DEVICE             2
#define CU_MEMORYTYPE_UNIFIED            4

static struct {
    int          tried;
    int          available;
    int          driver_version;
    int          device_count;
    void        *lib;
    cu_result_t (*init)(unsigned);
    cu_result_t (*driver_get_version)(int *);
    cu_result_t (*device_get_count)(int *);
    cu_result_t (*pointer_get_attribute)(void *, int, cu_deviceptr_t);
    cu_result_t (*memcpy)(cu_deviceptr_t, cu_deviceptr_t, size_t);
    cu_result_t (*ctx_push)(cu_context_t);
    cu_result_t (*ctx_pop)(cu_context_t *);
    cu_result_t (*mem_alloc)(cu_deviceptr_t *, size_t);
    cu_result_t (*mem_free)(cu_deviceptr_t);
} cuda;

static int load_symbol(void *lib, const char *name, void *fn_ptr)
{
    void *sym = dlsym(lib, name);

    if (sym == NULL) {
        return -1;
    }
    *(void **)fn_ptr = sym;
    return 0;
}

void gdc_rt_memtype_init(void)
{
    if (cuda.tried) {
        return;
    }
    cuda.tried = 1;
    cuda.lib   = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda.lib == NULL) {
        GDC_LOG_DEBUG("CUDA driver not loaded (%s): all buffers are host memory", dlerror());
        return;
    }
    if (load_symbol(cuda.lib, "cuInit", &cuda.init) ||
        load_symbol(cuda.lib, "cuDriverGetVersion", &cuda.driver_get_version) ||
        load_symbol(cuda.lib, "cuDeviceGetCount", &cuda.device_get_count) ||
        load_symbol(cuda.lib, "cuPointerGetAttribute", &cuda.pointer_get_attribute) ||
        load_symbol(cuda.lib, "cuMemcpy", &cuda.memcpy) ||
        load_symbol(cuda.lib, "cuCtxPushCurrent_v2", &cuda.ctx_push) ||
        load_symbol(cuda.lib, "cuCtxPopCurrent_v2", &cuda.ctx_pop) ||
        load_symbol(cuda.lib, "cuMemAlloc_v2", &cuda.mem_alloc) ||
        load_symbol(cuda.lib, "cuMemFree_v2", &cuda.mem_free)) {
        GDC_LOG_WARN("CUDA driver lacks an entry point gdc needs; treating all buffers as host memory");
        goto err_close;
    }
    cuda.driver_get_version(&cuda.driver_version);
    if (cuda.init(0) != 0 || cuda.device_get_count(&cuda.device_count) != 0 || cuda.device_count == 0) {
        GDC_LOG_DEBUG("CUDA driver %d found but no usable device", cuda.driver_version);
        cuda.device_count = 0;
        goto err_close;
    }
    cuda.available = 1;
    GDC_LOG_DEBUG("CUDA driver %d, %d device(s)", cuda.driver_version, cuda.device_count);
    return;

err_close:
    dlclose(cuda.lib);
    cuda.lib = NULL;
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

gdc_rt_memtype_t gdc_rt_memtype_of(const void *ptr)
{
    unsigned mem_type   = 0;
    int      is_managed = 0;

    if (!cuda.available || ptr == NULL) {
        return GDC_RT_MEM_HOST;
    }
    if (cuda.pointer_get_attribute(&mem_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   (cu_deviceptr_t)(uintptr_t)ptr) != 0) {
        return GDC_RT_MEM_HOST; /* not known to CUDA: ordinary host memory */
    }
    if (cuda.pointer_get_attribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   (cu_deviceptr_t)(uintptr_t)ptr) == 0 && is_managed) {
        return GDC_RT_MEM_CUDA_MANAGED;
    }
    return (mem_type == CU_MEMORYTYPE_DEVICE || mem_type == CU_MEMORYTYPE_UNIFIED) ? GDC_RT_MEM_CUDA
                                                                                  : GDC_RT_MEM_HOST;
}

const char *gdc_rt_memtype_name(gdc_rt_memtype_t type)
{
    switch (type) {
    case GDC_RT_MEM_HOST: return "host";
    case GDC_RT_MEM_CUDA: return "cuda";
    case GDC_RT_MEM_CUDA_MANAGED: return "cuda-managed";
    }
    return "unknown";
}

/* The context that owns a device pointer, made current for the copy: the calling thread
 * may have none current. */
static cu_context_t context_of(const void *ptr)
{
    cu_context_t ctx = NULL;

    if (gdc_rt_memtype_of(ptr) == GDC_RT_MEM_HOST) {
        return NULL;
    }
    cuda.pointer_get_attribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, (cu_deviceptr_t)(uintptr_t)ptr);
    return ctx;
}

int gdc_rt_cuda_copy(void *dst, const void *src, size_t n)
{
    cu_context_t ctx;
    cu_result_t  rc;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    ctx = context_of(dst);
    if (ctx == NULL) {
        ctx = context_of(src);
    }
    if (ctx != NULL && cuda.ctx_push(ctx) != 0) {
        ctx = NULL;
    }
    rc = cuda.memcpy((cu_deviceptr_t)(uintptr_t)dst, (cu_deviceptr_t)(uintptr_t)src, n);
    if (ctx != NULL) {
        cuda.ctx_pop(&ctx);
    }
    if (rc != 0) {
        GDC_LOG_ERROR("cuMemcpy of %zu bytes failed with CUDA error %d", n, rc);
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

int gdc_rt_cuda_alloc(const void *near, size_t n, void **out)
{
    cu_context_t   ctx;
    cu_deviceptr_t ptr = 0;
    cu_result_t    rc;

    if (!cuda.available) {
        return GDC_ERR_UNSUPPORTED;
    }
    ctx = context_of(near);
    if (ctx != NULL && cuda.ctx_push(ctx) != 0) {
        ctx = NULL;
    }
    rc = cuda.mem_alloc(&ptr, n > 0 ? n : 1);
    if (ctx != NULL) {
        cuda.ctx_pop(&ctx);
    }
    if (rc != 0) {
        GDC_LOG_ERROR("cuMemAlloc of %zu bytes failed with CUDA error %d", n, rc);
        return GDC_ERR_NO_MEMORY;
    }
    *out = (void *)(uintptr_t)ptr;
    return GDC_SUCCESS;
}

void gdc_rt_cuda_free(void *ptr)
{
    if (cuda.available && ptr != NULL) {
        cuda.mem_free((cu_deviceptr_t)(uintptr_t)ptr);
    }
}
