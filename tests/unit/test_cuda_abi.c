/*
 * runtime/rt_cuda.h against the toolkit's cuda.h, at compile time: every entry point of the
 * table has the driver's own prototype at the ABI version the table names (cudaTypedefs.h's
 * PFN_<name>_v<version>), the structures have cuda.h's layouts and the constants its
 * values. A mismatch fails the build of this program, so no GPU is needed to find one.
 * Built without the CUDA toolkit there is nothing to compare with: skipped, saying so.
 */
#include "config.h"

#include <stdio.h>

#ifdef GDC_HAVE_CUDA

#include <stddef.h>

/* cuda.h first: its macros (cuMemAlloc -> cuMemAlloc_v2) then rename the table's members
 * and their uses alike. */
#include <cuda.h>
#include <cudaTypedefs.h>

#define GDC_RT_CUDA_CHECK_ABI
#include "rt_cuda.h"

/* ---- entry points ------------------------------------------------------------------------ */

#define SAME_PROTOTYPE(name, version, params)                                                         \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((gdc_rt_cuda_api_t *)NULL)->name),        \
                                                PFN_##name##_v##version),                             \
                   #name " has the prototype of PFN_" #name "_v" #version);
GDC_RT_CUDA_ENTRY_POINTS(SAME_PROTOTYPE)

_Static_assert(__builtin_types_compatible_p(gdc_rt_cu_get_proc_address_v2_fn_t, PFN_cuGetProcAddress_v12000),
               "cuGetProcAddress_v2");
_Static_assert(__builtin_types_compatible_p(gdc_rt_cu_get_proc_address_v1_fn_t, PFN_cuGetProcAddress_v11030),
               "cuGetProcAddress");

/* ---- types and structures ---------------------------------------------------------------- */

#define SAME_SIZE(ours, theirs) \
    _Static_assert(sizeof(ours) == sizeof(theirs) && _Alignof(ours) == _Alignof(theirs), #ours " is " #theirs);
#define SAME_FIELD(ours, theirs, field)                                                          \
    _Static_assert(offsetof(ours, field) == offsetof(theirs, field) &&                           \
                       sizeof(((ours *)NULL)->field) == sizeof(((theirs *)NULL)->field),         \
                   #ours "." #field);

SAME_SIZE(gdc_rt_cu_result_t, CUresult)
SAME_SIZE(gdc_rt_cu_device_t, CUdevice)
SAME_SIZE(gdc_rt_cu_deviceptr_t, CUdeviceptr)
SAME_SIZE(gdc_rt_cu_mem_handle_t, CUmemGenericAllocationHandle)

SAME_SIZE(struct gdc_rt_cu_ipc_mem_handle, CUipcMemHandle)
SAME_FIELD(struct gdc_rt_cu_ipc_mem_handle, CUipcMemHandle, reserved)
SAME_SIZE(struct gdc_rt_cu_ipc_event_handle, CUipcEventHandle)
SAME_FIELD(struct gdc_rt_cu_ipc_event_handle, CUipcEventHandle, reserved)

SAME_SIZE(struct gdc_rt_cu_mem_location, CUmemLocation)
SAME_FIELD(struct gdc_rt_cu_mem_location, CUmemLocation, type)
SAME_FIELD(struct gdc_rt_cu_mem_location, CUmemLocation, id)

SAME_SIZE(struct gdc_rt_cu_mem_prop, CUmemAllocationProp)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, type)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, requestedHandleTypes)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, location)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, location.type)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, location.id)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, win32HandleMetaData)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, allocFlags)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, allocFlags.compressionType)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, allocFlags.gpuDirectRDMACapable)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, allocFlags.usage)
SAME_FIELD(struct gdc_rt_cu_mem_prop, CUmemAllocationProp, allocFlags.reserved)

SAME_SIZE(struct gdc_rt_cu_mem_access_desc, CUmemAccessDesc)
SAME_FIELD(struct gdc_rt_cu_mem_access_desc, CUmemAccessDesc, location)
SAME_FIELD(struct gdc_rt_cu_mem_access_desc, CUmemAccessDesc, flags)

/* ---- constants ----------------------------------------------------------------------------- */

#define SAME_VALUE(name) _Static_assert(GDC_RT_##name == name, "GDC_RT_" #name " is " #name);

SAME_VALUE(CU_IPC_HANDLE_SIZE)
SAME_VALUE(CUDA_SUCCESS)
SAME_VALUE(CUDA_ERROR_INVALID_VALUE)
SAME_VALUE(CUDA_ERROR_OUT_OF_MEMORY)
SAME_VALUE(CUDA_ERROR_NOT_INITIALIZED)
SAME_VALUE(CUDA_ERROR_DEINITIALIZED)
SAME_VALUE(CUDA_ERROR_STUB_LIBRARY)
SAME_VALUE(CUDA_ERROR_NO_DEVICE)
SAME_VALUE(CUDA_ERROR_INVALID_CONTEXT)
SAME_VALUE(CUDA_ERROR_ALREADY_MAPPED)
SAME_VALUE(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
SAME_VALUE(CUDA_ERROR_INVALID_HANDLE)
SAME_VALUE(CUDA_ERROR_NOT_FOUND)
SAME_VALUE(CUDA_ERROR_NOT_READY)
SAME_VALUE(CUDA_ERROR_NOT_SUPPORTED)
SAME_VALUE(CU_POINTER_ATTRIBUTE_CONTEXT)
SAME_VALUE(CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
SAME_VALUE(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)
SAME_VALUE(CU_POINTER_ATTRIBUTE_HOST_POINTER)
SAME_VALUE(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
SAME_VALUE(CU_POINTER_ATTRIBUTE_BUFFER_ID)
SAME_VALUE(CU_POINTER_ATTRIBUTE_IS_MANAGED)
SAME_VALUE(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
SAME_VALUE(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE)
SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
SAME_VALUE(CU_POINTER_ATTRIBUTE_RANGE_SIZE)
SAME_VALUE(CU_POINTER_ATTRIBUTE_MAPPED)
SAME_VALUE(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES)
SAME_VALUE(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE)
SAME_VALUE(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE)
SAME_VALUE(CU_MEMORYTYPE_HOST)
SAME_VALUE(CU_MEMORYTYPE_DEVICE)
SAME_VALUE(CU_MEMORYTYPE_ARRAY)
SAME_VALUE(CU_MEMORYTYPE_UNIFIED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_INTEGRATED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MPS_ENABLED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)
SAME_VALUE(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED)
SAME_VALUE(CU_STREAM_DEFAULT)
SAME_VALUE(CU_STREAM_NON_BLOCKING)
SAME_VALUE(CU_EVENT_DEFAULT)
SAME_VALUE(CU_EVENT_BLOCKING_SYNC)
SAME_VALUE(CU_EVENT_DISABLE_TIMING)
SAME_VALUE(CU_EVENT_INTERPROCESS)
SAME_VALUE(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
SAME_VALUE(CU_MEMHOSTREGISTER_PORTABLE)
SAME_VALUE(CU_MEMHOSTREGISTER_DEVICEMAP)
SAME_VALUE(CU_MEM_ALLOCATION_TYPE_PINNED)
SAME_VALUE(CU_MEM_LOCATION_TYPE_DEVICE)
SAME_VALUE(CU_MEM_HANDLE_TYPE_NONE)
SAME_VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
SAME_VALUE(CU_MEM_HANDLE_TYPE_FABRIC)
SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_NONE)
SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READ)
SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
SAME_VALUE(CU_MEM_ALLOC_GRANULARITY_MINIMUM)
SAME_VALUE(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
SAME_VALUE(CU_GET_PROC_ADDRESS_LEGACY_STREAM)
SAME_VALUE(CU_GET_PROC_ADDRESS_SUCCESS)

/* The table's entry points, counted as the loader counts them. */
#define COUNT_ENTRY_POINT(name, version, params) +1
enum { NUM_ENTRY_POINTS = 0 GDC_RT_CUDA_ENTRY_POINTS(COUNT_ENTRY_POINT) };

int main(void)
{
    printf("1..1\n");
    printf("ok 1 - rt_cuda.h matches cuda.h %d.%d: %d entry points, their structures and constants\n",
           CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, (int)NUM_ENTRY_POINTS);
    return 0;
}

#else

int main(void)
{
    printf("1..0 # SKIP built without the CUDA toolkit: no cuda.h to compare rt_cuda.h with\n");
    return 0;
}

#endif
