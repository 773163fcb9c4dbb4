/*
 * The CUDA driver wrapper (runtime/rt_cuda.c) as it loads here; the machine decides which
 * half runs. Without a driver, or with one that shows no device: nothing changes, no error:
 * every entry point NULL, every buffer host memory, copies and scratch unsupported. With a
 * device: every entry point resolved, and the few calls that prove the table's prototypes
 * and structures on the real driver (memory types, copies both ways, scratch, an IPC
 * handle, the VMM granularity).
 * tests/unit/test_cuda_abi.c checks the same table against cuda.h at compile time.
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

#include "rt_cuda.h"
#include "rt_memtype.h"

static void test_load_is_idempotent(void **state)
{
    int available = gdc_rt_cuda_available();

    assert_int_equal(gdc_rt_cuda_load(), available);
    assert_int_equal(gdc_rt_cuda_load(), available);
    assert_int_equal(gdc_rt_cuda_available(), available);
    assert_true(available ? gdc_rt_cuda_device_count() > 0 : gdc_rt_cuda_device_count() == 0);
}

/* ---------------------------------------------------------------------------------------
 * Without a driver (or a device)
 */

static void test_without_driver_everything_is_host(void **state)
{
    char  host[64] = "host bytes";
    void *out      = (void *)&out;
    int   resolved = 0;

#define COUNT_RESOLVED(name, version, params) resolved += gdc_rt_cuda.name != NULL;
    GDC_RT_CUDA_ENTRY_POINTS(COUNT_RESOLVED)
#undef COUNT_RESOLVED
    assert_int_equal(resolved, 0);
    assert_int_equal(gdc_rt_memtype_of(host), GDC_RT_MEM_HOST);
    assert_int_equal(gdc_rt_memtype_of(NULL), GDC_RT_MEM_HOST);
    assert_null(gdc_rt_cuda_push_owner(host));
    gdc_rt_cuda_pop_owner(NULL);
    assert_int_equal(gdc_rt_cuda_copy(host, host + 32, 8), GDC_ERR_UNSUPPORTED);
    assert_int_equal(gdc_rt_cuda_alloc(host, 16, &out), GDC_ERR_UNSUPPORTED);
    assert_ptr_equal(out, (void *)&out); /* output untouched on failure */
    gdc_rt_cuda_free(host);               /* not ours to free: ignored */
    assert_string_equal(host, "host bytes");
}

static void test_strerror_without_names(void **state)
{
    assert_string_equal(gdc_rt_cuda_strerror(GDC_RT_CUDA_ERROR_OUT_OF_MEMORY), "CUDA error 2");
    assert_string_equal(gdc_rt_cuda_strerror(GDC_RT_CUDA_ERROR_NOT_READY), "CUDA error 600");
}

/* ---------------------------------------------------------------------------------------
 * With a device
 */

static void test_every_entry_point_resolved(void **state)
{
    int missing = 0;

    /* Each is older than cuGetProcAddress (CUDA 11.3), which the loader needs anyway. */
#define CHECK_RESOLVED(name, version, params)                          \
    if (gdc_rt_cuda.name == NULL) {                                    \
        print_message("# %s (ABI %d) not resolved\n", #name, version); \
        missing++;                                                     \
    }
    GDC_RT_CUDA_ENTRY_POINTS(CHECK_RESOLVED)
#undef CHECK_RESOLVED
    assert_int_equal(missing, 0);
    assert_true(gdc_rt_cuda_driver_version() >= 11030);
    assert_non_null(strstr(gdc_rt_cuda_strerror(GDC_RT_CUDA_ERROR_OUT_OF_MEMORY), "CUDA_ERROR_OUT_OF_MEMORY"));
}

/* Device 0's primary context, current on this thread; 0 on success. */
static int push_primary(gdc_rt_cu_device_t *dev, gdc_rt_cu_context_t *ctx)
{
    return gdc_rt_cuda.cuDeviceGet(dev, 0) != GDC_RT_CUDA_SUCCESS ||
           gdc_rt_cuda.cuDevicePrimaryCtxRetain(ctx, *dev) != GDC_RT_CUDA_SUCCESS ||
           gdc_rt_cuda.cuCtxPushCurrent(*ctx) != GDC_RT_CUDA_SUCCESS;
}

static void pop_primary(gdc_rt_cu_device_t dev)
{
    gdc_rt_cu_context_t popped = NULL;

    assert_int_equal(gdc_rt_cuda.cuCtxPopCurrent(&popped), GDC_RT_CUDA_SUCCESS);
    assert_int_equal(gdc_rt_cuda.cuDevicePrimaryCtxRelease(dev), GDC_RT_CUDA_SUCCESS);
}

static void test_device_memory(void **state)
{
    const size_t          n = (1 << 20) + 3;
    unsigned char        *host, *back;
    void                 *dev_buf = NULL, *pinned = NULL;
    gdc_rt_cu_device_t    dev;
    gdc_rt_cu_context_t   ctx, popped;
    gdc_rt_cu_deviceptr_t base = 0;
    size_t                size = 0;

    host = malloc(n);
    back = calloc(1, n);
    assert_non_null(host);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++) {
        host[i] = (unsigned char)(i * 7 + 3);
    }
    /* scratch with no user buffer near it: in the current context */
    assert_int_equal(push_primary(&dev, &ctx), 0);
    assert_int_equal(gdc_rt_cuda_alloc(NULL, n, &dev_buf), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda.cuCtxPopCurrent(&popped), GDC_RT_CUDA_SUCCESS);

    /* with no context current, the copies make the owner's current */
    assert_int_equal(gdc_rt_memtype_of(dev_buf), GDC_RT_MEM_CUDA);
    assert_int_equal(gdc_rt_memtype_of(host), GDC_RT_MEM_HOST);
    assert_int_equal(gdc_rt_cuda_copy(dev_buf, host, n), GDC_SUCCESS);
    assert_int_equal(gdc_rt_cuda_copy(back, dev_buf, n), GDC_SUCCESS);
    assert_memory_equal(back, host, n);

    assert_int_equal(gdc_rt_cuda.cuCtxPushCurrent(ctx), GDC_RT_CUDA_SUCCESS);
    assert_int_equal(gdc_rt_cuda.cuMemGetAddressRange(&base, &size, gdc_rt_cuda_ptr((char *)dev_buf + 100)),
                     GDC_RT_CUDA_SUCCESS);
    assert_true(base == gdc_rt_cuda_ptr(dev_buf));
    assert_true(size >= n);
    /* pinned host memory is host memory to gdc */
    assert_int_equal(gdc_rt_cuda.cuMemAllocHost(&pinned, 4096), GDC_RT_CUDA_SUCCESS);
    assert_int_equal(gdc_rt_memtype_of(pinned), GDC_RT_MEM_HOST);
    assert_int_equal(gdc_rt_cuda.cuMemFreeHost(pinned), GDC_RT_CUDA_SUCCESS);
    gdc_rt_cuda_free(dev_buf);
    pop_primary(dev);
    free(back);
    free(host);
}

/* The table's structures on the real driver: an IPC handle and the allocation properties
 * of cuMemCreate. */
static void test_structures_on_the_driver(void **state)
{
    gdc_rt_cu_device_t         dev;
    gdc_rt_cu_context_t        ctx;
    gdc_rt_cu_deviceptr_t      ptr = 0;
    gdc_rt_cu_ipc_mem_handle_t handle;
    gdc_rt_cu_mem_prop_t       prop;
    size_t                     granularity = 0;
    int                        vmm         = 0;

    assert_int_equal(push_primary(&dev, &ctx), 0);
    assert_int_equal(gdc_rt_cuda.cuMemAlloc(&ptr, 1 << 16), GDC_RT_CUDA_SUCCESS);
    assert_int_equal(gdc_rt_cuda.cuIpcGetMemHandle(&handle, ptr), GDC_RT_CUDA_SUCCESS);
    assert_int_equal(gdc_rt_cuda.cuMemFree(ptr), GDC_RT_CUDA_SUCCESS);

    assert_int_equal(gdc_rt_cuda.cuDeviceGetAttribute(
                         &vmm, GDC_RT_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev),
                     GDC_RT_CUDA_SUCCESS);
    if (vmm) {
        memset(&prop, 0, sizeof(prop));
        prop.type                 = GDC_RT_CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.requestedHandleTypes = GDC_RT_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        prop.location.type        = GDC_RT_CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id          = dev;
        assert_int_equal(gdc_rt_cuda.cuMemGetAllocationGranularity(&granularity, &prop,
                                                                   GDC_RT_CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                         GDC_RT_CUDA_SUCCESS);
        assert_true(granularity > 0 && (granularity & (granularity - 1)) == 0);
    }
    pop_primary(dev);
}

int main(void)
{
    const struct CMUnitTest without_device[] = {
        cmocka_unit_test(test_load_is_idempotent),
        cmocka_unit_test(test_without_driver_everything_is_host),
        cmocka_unit_test(test_strerror_without_names),
    };
    const struct CMUnitTest with_device[] = {
        cmocka_unit_test(test_load_is_idempotent),
        cmocka_unit_test(test_every_entry_point_resolved),
        cmocka_unit_test(test_device_memory),
        cmocka_unit_test(test_structures_on_the_driver),
    };

    /* The machine decides which half runs; each says what it covers. */
    if (gdc_rt_cuda_load()) {
        return cmocka_run_group_tests_name("with a CUDA device", with_device, NULL, NULL);
    }
    return cmocka_run_group_tests_name("without a CUDA driver or device", without_device, NULL, NULL);
}
