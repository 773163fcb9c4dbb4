/*
 * The CUDA driver, loaded at run time (dlopen of libcuda.so.1) so that the same binary runs
 * where no driver is installed: there gdc_rt_cuda_available() is 0, every entry of the
 * table is NULL and every buffer is host memory. Nothing else in gdc opens libcuda: every
 * driver call goes through gdc_rt_cuda, one table of entry points resolved once with
 * cuGetProcAddress at the ABI version named next to each (so a driver's later change of a
 * signature, such as cuCtxGetDevice's in CUDA 13, cannot reach us).
 *
 * The build needs no cuda.h: the types and constants below have the values and layouts of
 * the driver API. tests/unit/test_cuda.c compiles this header against cuda.h when the
 * toolkit is present and checks every entry point against the driver's own prototype,
 * every structure against its layout and every constant against its value.
 *
 * The members of the table carry the driver's names (gdc_rt_cuda.cuMemcpyAsync). cuda.h
 * renames a few of them by macro (cuMemAlloc -> cuMemAlloc_v2): a file that includes
 * cuda.h as well must include it first, so that declaration and use are renamed alike.
 */
#ifndef GDC_RT_CUDA_H
#define GDC_RT_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

/* ---------------------------------------------------------------------------------------
 * Driver API types. Enumerations of the driver are passed as unsigned int: every one has
 * non-negative values only, so compilers give them that type and the ABI is the same.
 */
typedef unsigned int       gdc_rt_cu_result_t;     /* CUresult */
typedef int                gdc_rt_cu_device_t;     /* CUdevice: an ordinal */
typedef unsigned long long gdc_rt_cu_deviceptr_t;  /* CUdeviceptr (64-bit) */
typedef unsigned long long gdc_rt_cu_mem_handle_t; /* CUmemGenericAllocationHandle */
/* Opaque handles, with cuda.h's own tags so that its CUcontext etc. can be passed as is. */
typedef struct CUctx_st    *gdc_rt_cu_context_t;
typedef struct CUstream_st *gdc_rt_cu_stream_t;
typedef struct CUevent_st  *gdc_rt_cu_event_t;

#define GDC_RT_CU_IPC_HANDLE_SIZE 64

struct gdc_rt_cu_ipc_mem_handle {   /* CUipcMemHandle */
    char reserved[GDC_RT_CU_IPC_HANDLE_SIZE];
};
struct gdc_rt_cu_ipc_event_handle { /* CUipcEventHandle */
    char reserved[GDC_RT_CU_IPC_HANDLE_SIZE];
};
struct gdc_rt_cu_mem_location {     /* CUmemLocation */
    unsigned int type;              /* GDC_RT_CU_MEM_LOCATION_TYPE_* */
    int          id;                /* device ordinal */
};
struct gdc_rt_cu_mem_prop {         /* CUmemAllocationProp, for cuMemCreate */
    unsigned int                  type;                 /* GDC_RT_CU_MEM_ALLOCATION_TYPE_* */
    unsigned int                  requestedHandleTypes; /* GDC_RT_CU_MEM_HANDLE_TYPE_* */
    struct gdc_rt_cu_mem_location location;
    void                         *win32HandleMetaData;  /* NULL on Linux */
    struct {
        unsigned char  compressionType;
        unsigned char  gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char  reserved[4];
    } allocFlags;
};
struct gdc_rt_cu_mem_access_desc {  /* CUmemAccessDesc */
    struct gdc_rt_cu_mem_location location;
    unsigned int                  flags; /* GDC_RT_CU_MEM_ACCESS_FLAGS_PROT_* */
};

#ifdef GDC_RT_CUDA_CHECK_ABI
/* The ABI test: the structures by cuda.h's names, so the prototypes are compared. */
typedef CUipcMemHandle_v1      gdc_rt_cu_ipc_mem_handle_t;
typedef CUipcEventHandle_v1    gdc_rt_cu_ipc_event_handle_t;
typedef CUmemLocation_v1       gdc_rt_cu_mem_location_t;
typedef CUmemAllocationProp_v1 gdc_rt_cu_mem_prop_t;
typedef CUmemAccessDesc_v1     gdc_rt_cu_mem_access_desc_t;
#else
typedef struct gdc_rt_cu_ipc_mem_handle   gdc_rt_cu_ipc_mem_handle_t;
typedef struct gdc_rt_cu_ipc_event_handle gdc_rt_cu_ipc_event_handle_t;
typedef struct gdc_rt_cu_mem_location     gdc_rt_cu_mem_location_t;
typedef struct gdc_rt_cu_mem_prop         gdc_rt_cu_mem_prop_t;
typedef struct gdc_rt_cu_mem_access_desc  gdc_rt_cu_mem_access_desc_t;
#endif

/* ---------------------------------------------------------------------------------------
 * Driver API constants (the driver's name with GDC_RT_ in front)
 */

/* CUresult: the ones gdc tells apart; gdc_rt_cuda_strerror names any. */
#define GDC_RT_CUDA_SUCCESS                       0
#define GDC_RT_CUDA_ERROR_INVALID_VALUE           1
#define GDC_RT_CUDA_ERROR_OUT_OF_MEMORY           2
#define GDC_RT_CUDA_ERROR_NOT_INITIALIZED         3
#define GDC_RT_CUDA_ERROR_DEINITIALIZED           4
#define GDC_RT_CUDA_ERROR_STUB_LIBRARY            34 /* libcuda.so.1 is the toolkit's stub, not a driver */
#define GDC_RT_CUDA_ERROR_NO_DEVICE               100
#define GDC_RT_CUDA_ERROR_INVALID_CONTEXT         201
#define GDC_RT_CUDA_ERROR_ALREADY_MAPPED          208
#define GDC_RT_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED 217
#define GDC_RT_CUDA_ERROR_INVALID_HANDLE          400
#define GDC_RT_CUDA_ERROR_NOT_FOUND               500
#define GDC_RT_CUDA_ERROR_NOT_READY               600 /* cuEventQuery, cuStreamQuery: not yet */
#define GDC_RT_CUDA_ERROR_NOT_SUPPORTED           801

/* CUpointer_attribute */
#define GDC_RT_CU_POINTER_ATTRIBUTE_CONTEXT                    1
#define GDC_RT_CU_POINTER_ATTRIBUTE_MEMORY_TYPE                2
#define GDC_RT_CU_POINTER_ATTRIBUTE_DEVICE_POINTER             3
#define GDC_RT_CU_POINTER_ATTRIBUTE_HOST_POINTER               4
#define GDC_RT_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS                6
#define GDC_RT_CU_POINTER_ATTRIBUTE_BUFFER_ID                  7
#define GDC_RT_CU_POINTER_ATTRIBUTE_IS_MANAGED                 8
#define GDC_RT_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL             9
#define GDC_RT_CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE 10
#define GDC_RT_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR           11
#define GDC_RT_CU_POINTER_ATTRIBUTE_RANGE_SIZE                 12
#define GDC_RT_CU_POINTER_ATTRIBUTE_MAPPED                     13
#define GDC_RT_CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES       14
#define GDC_RT_CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE 15
#define GDC_RT_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE             17

/* CUmemorytype */
#define GDC_RT_CU_MEMORYTYPE_HOST    1
#define GDC_RT_CU_MEMORYTYPE_DEVICE  2
#define GDC_RT_CU_MEMORYTYPE_ARRAY   3
#define GDC_RT_CU_MEMORYTYPE_UNIFIED 4

/* CUdevice_attribute */
#define GDC_RT_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT                        16
#define GDC_RT_CU_DEVICE_ATTRIBUTE_INTEGRATED                                  18
#define GDC_RT_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID                                  33
#define GDC_RT_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID                               34
#define GDC_RT_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING                          41
#define GDC_RT_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID                               50
#define GDC_RT_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR                    75
#define GDC_RT_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR                    76
#define GDC_RT_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED         102
#define GDC_RT_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED 103
#define GDC_RT_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED     110
#define GDC_RT_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED                      115
#define GDC_RT_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED                   116
#define GDC_RT_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED                           124
#define GDC_RT_CU_DEVICE_ATTRIBUTE_MPS_ENABLED                                 133
#define GDC_RT_CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED                         125

/* Flags of cuStreamCreate, cuEventCreate, cuIpcOpenMemHandle, cuMemHostRegister */
#define GDC_RT_CU_STREAM_DEFAULT                  0x0
#define GDC_RT_CU_STREAM_NON_BLOCKING             0x1
#define GDC_RT_CU_EVENT_DEFAULT                   0x0
#define GDC_RT_CU_EVENT_BLOCKING_SYNC             0x1
#define GDC_RT_CU_EVENT_DISABLE_TIMING            0x2
#define GDC_RT_CU_EVENT_INTERPROCESS              0x4 /* needs DISABLE_TIMING too */
#define GDC_RT_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 0x1
#define GDC_RT_CU_MEMHOSTREGISTER_PORTABLE        0x1
#define GDC_RT_CU_MEMHOSTREGISTER_DEVICEMAP       0x2

/* Virtual memory management (cuMemCreate and friends) */
#define GDC_RT_CU_MEM_ALLOCATION_TYPE_PINNED            0x1
#define GDC_RT_CU_MEM_LOCATION_TYPE_DEVICE              0x1
#define GDC_RT_CU_MEM_HANDLE_TYPE_NONE                  0x0
#define GDC_RT_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR 0x1
#define GDC_RT_CU_MEM_HANDLE_TYPE_FABRIC                0x8
#define GDC_RT_CU_MEM_ACCESS_FLAGS_PROT_NONE            0x0
#define GDC_RT_CU_MEM_ACCESS_FLAGS_PROT_READ            0x1
#define GDC_RT_CU_MEM_ACCESS_FLAGS_PROT_READWRITE       0x3
#define GDC_RT_CU_MEM_ALLOC_GRANULARITY_MINIMUM         0x0
#define GDC_RT_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED     0x1

/* ---------------------------------------------------------------------------------------
 * The entry points: X(name, ABI version, parameters), every one returning a CUresult.
 * The version is the one whose signature is written here (cudaTypedefs.h calls the type
 * PFN_<name>_v<version>); cuGetProcAddress gives that ABI whatever the driver's version.
 * To add one: a line here; the loader, the table and the ABI test follow.
 */
#define GDC_RT_CUDA_ENTRY_POINTS(X)                                                                                \
    /* the driver */                                                                                               \
    X(cuInit, 2000, (unsigned int flags))                                                                          \
    X(cuDriverGetVersion, 2020, (int *version))                                                                    \
    X(cuGetErrorName, 6000, (gdc_rt_cu_result_t error, const char **name))                                         \
    X(cuGetErrorString, 6000, (gdc_rt_cu_result_t error, const char **text))                                       \
    /* devices */                                                                                                  \
    X(cuDeviceGet, 2000, (gdc_rt_cu_device_t *device, int ordinal))                                                \
    X(cuDeviceGetCount, 2000, (int *count))                                                                        \
    X(cuDeviceGetAttribute, 2000, (int *value, unsigned int attribute, gdc_rt_cu_device_t device))                 \
    X(cuDeviceGetPCIBusId, 4010, (char *busid, int len, gdc_rt_cu_device_t device))                                \
    X(cuDeviceCanAccessPeer, 4000, (int *can, gdc_rt_cu_device_t device, gdc_rt_cu_device_t peer))                 \
    /* contexts */                                                                                                 \
    X(cuDevicePrimaryCtxRetain, 7000, (gdc_rt_cu_context_t *ctx, gdc_rt_cu_device_t device))                       \
    X(cuDevicePrimaryCtxRelease, 11000, (gdc_rt_cu_device_t device))                                               \
    X(cuCtxGetCurrent, 4000, (gdc_rt_cu_context_t *ctx))                                                           \
    X(cuCtxSetCurrent, 4000, (gdc_rt_cu_context_t ctx))                                                            \
    X(cuCtxPushCurrent, 4000, (gdc_rt_cu_context_t ctx))                                                           \
    X(cuCtxPopCurrent, 4000, (gdc_rt_cu_context_t *ctx))                                                           \
    X(cuCtxGetDevice, 2000, (gdc_rt_cu_device_t *device)) /* of the current context */                             \
    /* pointers */                                                                                                 \
    X(cuPointerGetAttribute, 4000, (void *value, unsigned int attribute, gdc_rt_cu_deviceptr_t ptr))               \
    X(cuPointerGetAttributes, 7000,                                                                                \
      (unsigned int count, unsigned int *attributes, void **values, gdc_rt_cu_deviceptr_t ptr))                    \
    X(cuPointerSetAttribute, 6000, (const void *value, unsigned int attribute, gdc_rt_cu_deviceptr_t ptr))         \
    X(cuMemGetAddressRange, 3020, (gdc_rt_cu_deviceptr_t *base, size_t *size, gdc_rt_cu_deviceptr_t ptr))          \
    /* memory */                                                                                                   \
    X(cuMemAlloc, 3020, (gdc_rt_cu_deviceptr_t *ptr, size_t size))                                                 \
    X(cuMemFree, 3020, (gdc_rt_cu_deviceptr_t ptr))                                                                \
    X(cuMemAllocHost, 3020, (void **ptr, size_t size))                                                             \
    X(cuMemFreeHost, 2000, (void *ptr))                                                                            \
    X(cuMemHostRegister, 6050, (void *ptr, size_t size, unsigned int flags))                                       \
    X(cuMemHostUnregister, 4000, (void *ptr))                                                                      \
    X(cuMemcpy, 4000, (gdc_rt_cu_deviceptr_t dst, gdc_rt_cu_deviceptr_t src, size_t size))                         \
    X(cuMemcpyAsync, 4000,                                                                                         \
      (gdc_rt_cu_deviceptr_t dst, gdc_rt_cu_deviceptr_t src, size_t size, gdc_rt_cu_stream_t stream))              \
    /* streams and events */                                                                                       \
    X(cuStreamCreate, 2000, (gdc_rt_cu_stream_t *stream, unsigned int flags))                                      \
    X(cuStreamDestroy, 4000, (gdc_rt_cu_stream_t stream))                                                          \
    X(cuStreamQuery, 2000, (gdc_rt_cu_stream_t stream))                                                            \
    X(cuStreamSynchronize, 2000, (gdc_rt_cu_stream_t stream))                                                      \
    X(cuStreamWaitEvent, 3020, (gdc_rt_cu_stream_t stream, gdc_rt_cu_event_t event, unsigned int flags))           \
    X(cuEventCreate, 2000, (gdc_rt_cu_event_t *event, unsigned int flags))                                         \
    X(cuEventRecord, 2000, (gdc_rt_cu_event_t event, gdc_rt_cu_stream_t stream))                                   \
    X(cuEventQuery, 2000, (gdc_rt_cu_event_t event))                                                               \
    X(cuEventSynchronize, 2000, (gdc_rt_cu_event_t event))                                                         \
    X(cuEventDestroy, 4000, (gdc_rt_cu_event_t event))                                                             \
    /* legacy IPC: cuMemAlloc'd memory and interprocess events */                                                  \
    X(cuIpcGetMemHandle, 4010, (gdc_rt_cu_ipc_mem_handle_t *handle, gdc_rt_cu_deviceptr_t ptr))                    \
    X(cuIpcOpenMemHandle, 11000,                                                                                   \
      (gdc_rt_cu_deviceptr_t *ptr, gdc_rt_cu_ipc_mem_handle_t handle, unsigned int flags))                         \
    X(cuIpcCloseMemHandle, 4010, (gdc_rt_cu_deviceptr_t ptr))                                                      \
    X(cuIpcGetEventHandle, 4010, (gdc_rt_cu_ipc_event_handle_t *handle, gdc_rt_cu_event_t event))                  \
    X(cuIpcOpenEventHandle, 4010, (gdc_rt_cu_event_t *event, gdc_rt_cu_ipc_event_handle_t handle))                 \
    /* virtual memory management: cuMemCreate'd memory, shared as file descriptors */                              \
    X(cuMemCreate, 10020,                                                                                          \
      (gdc_rt_cu_mem_handle_t *handle, size_t size, const gdc_rt_cu_mem_prop_t *prop,                              \
       unsigned long long flags))                                                                                  \
    X(cuMemRelease, 10020, (gdc_rt_cu_mem_handle_t handle))                                                        \
    X(cuMemMap, 10020,                                                                                             \
      (gdc_rt_cu_deviceptr_t ptr, size_t size, size_t offset, gdc_rt_cu_mem_handle_t handle,                       \
       unsigned long long flags))                                                                                  \
    X(cuMemUnmap, 10020, (gdc_rt_cu_deviceptr_t ptr, size_t size))                                                 \
    X(cuMemSetAccess, 10020,                                                                                       \
      (gdc_rt_cu_deviceptr_t ptr, size_t size, const gdc_rt_cu_mem_access_desc_t *desc, size_t count))             \
    X(cuMemAddressReserve, 10020,                                                                                  \
      (gdc_rt_cu_deviceptr_t *ptr, size_t size, size_t alignment, gdc_rt_cu_deviceptr_t addr,                      \
       unsigned long long flags))                                                                                  \
    X(cuMemAddressFree, 10020, (gdc_rt_cu_deviceptr_t ptr, size_t size))                                           \
    X(cuMemExportToShareableHandle, 10020,                                                                         \
      (void *shareable, gdc_rt_cu_mem_handle_t handle, unsigned int type, unsigned long long flags))               \
    X(cuMemImportFromShareableHandle, 10020, (gdc_rt_cu_mem_handle_t *handle, void *shareable, unsigned int type)) \
    X(cuMemGetAllocationGranularity, 10020,                                                                        \
      (size_t *granularity, const gdc_rt_cu_mem_prop_t *prop, unsigned int option))                                \
    X(cuMemGetAllocationPropertiesFromHandle, 10020, (gdc_rt_cu_mem_prop_t *prop, gdc_rt_cu_mem_handle_t handle))  \
    X(cuMemRetainAllocationHandle, 11000, (gdc_rt_cu_mem_handle_t *handle, void *addr))

/* The table. Every member is NULL until gdc_rt_cuda_load() has found a driver with a device,
 * and stays NULL for an entry point the driver does not have: check before calling one
 * that is not in the set gdc_rt_cuda_load() requires (see rt_cuda.c). */
typedef struct gdc_rt_cuda_api {
#define GDC_RT_CUDA_MEMBER(name, version, params) gdc_rt_cu_result_t (*name) params;
    GDC_RT_CUDA_ENTRY_POINTS(GDC_RT_CUDA_MEMBER)
#undef GDC_RT_CUDA_MEMBER
} gdc_rt_cuda_api_t;

extern gdc_rt_cuda_api_t gdc_rt_cuda;

/* cuGetProcAddress, the one entry point found by name (dlsym): _v2 since CUDA 12.0, the
 * first version since 11.3. Its flags and answers: */
#define GDC_RT_CU_GET_PROC_ADDRESS_LEGACY_STREAM 0x1 /* what a plain dlsym of the name gives */
#define GDC_RT_CU_GET_PROC_ADDRESS_SUCCESS       0
typedef gdc_rt_cu_result_t (*gdc_rt_cu_get_proc_address_v2_fn_t)(const char *symbol, void **fn, int version,
                                                                  uint64_t flags, unsigned int *found);
typedef gdc_rt_cu_result_t (*gdc_rt_cu_get_proc_address_v1_fn_t)(const char *symbol, void **fn, int version,
                                                                  uint64_t flags);

/* ---------------------------------------------------------------------------------------
 * Loading, and what the driver says
 */

/* Load the driver, resolve the table and initialise the driver (cuInit) if a driver with
 * at least one device is there; 1 then, else 0. Never fails: without a driver, CUDA
 * support is simply absent. The first call decides; later calls return its answer. Call it
 * from one thread (gdc_init does), before any other thread uses the table. */
int gdc_rt_cuda_load(void);

/* 1 when the driver was loaded and reports at least one device. */
int gdc_rt_cuda_available(void);
/* The driver's version as 13000 for 13.0 (also when it has no device), or 0. */
int gdc_rt_cuda_driver_version(void);
/* Number of devices the driver shows this process, or 0. */
int gdc_rt_cuda_device_count(void);

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for log lines; valid until this thread's next
 * call. */
const char *gdc_rt_cuda_strerror(gdc_rt_cu_result_t result);

/* A host pointer as the driver's device pointer type (unified addressing: the same value). */
static inline gdc_rt_cu_deviceptr_t gdc_rt_cuda_ptr(const void *ptr)
{
    return (gdc_rt_cu_deviceptr_t)(uintptr_t)ptr;
}

/* ---------------------------------------------------------------------------------------
 * Helpers on the table
 */

/* Make the context that owns ptr current on the calling thread, which may have none or
 * another. Returns the context pushed, NULL when none was (host memory, or the push
 * failed and the call goes on in the current context); pass it to gdc_rt_cuda_pop_owner. */
gdc_rt_cu_context_t gdc_rt_cuda_push_owner(const void *ptr);
void                gdc_rt_cuda_pop_owner(gdc_rt_cu_context_t pushed);

/* Copy n bytes between any two of host and device memory (unified addressing), blocking. */
gdc_status_t gdc_rt_cuda_copy(void *dst, const void *src, size_t n);

/* Queue a copy of n bytes on gdc's copy stream of the context that owns `owner` (a device
 * buffer of the copy), and record *event after it (created there when NULL; destroy it
 * with gdc_rt_cuda_event_destroy). The stream is a blocking one: the copy follows what the
 * caller queued on the legacy default stream. */
gdc_status_t gdc_rt_cuda_copy_async(void *dst, const void *src, size_t n, const void *owner,
                                    gdc_rt_cu_event_t *event);
/* 1 when the work before event is done (also when it failed: *status is then set and the
 * error logged), 0 while it runs. Never blocks. */
int          gdc_rt_cuda_event_done(gdc_rt_cu_event_t event, gdc_status_t *status);
gdc_status_t gdc_rt_cuda_event_wait(gdc_rt_cu_event_t event);
void         gdc_rt_cuda_event_destroy(gdc_rt_cu_event_t event);

/* Page-lock n bytes of host memory at ptr for every context (cuMemHostRegister, portable),
 * in the context that owns near (a device buffer) when there is one: 1 when done, 0 when
 * not (no driver, host memory near, or it refused: warned once; the memory stays usable,
 * pageable). gdc_rt_cuda_unpin undoes it. */
int  gdc_rt_cuda_pin(void *ptr, size_t n, const void *near);
void gdc_rt_cuda_unpin(void *ptr);

/* Wait for the work queued on the legacy default stream of the context that owns near
 * (and so on every blocking stream): before peers in other processes read the caller's
 * buffers, what the caller queued into them must have landed. */
gdc_status_t gdc_rt_cuda_wait_caller(const void *near);

/* Device memory on the device (and in the context) that owns `near`, for scratch space
 * next to a user's device buffer. */
gdc_status_t gdc_rt_cuda_alloc(const void *near, size_t n, void **out);
void         gdc_rt_cuda_free(void *ptr);

/* Whether peers can map ptr's allocation with legacy CUDA IPC (cuMemAlloc'd memory can;
 * cuMemCreate'd and memory-pool memory cannot). */
int gdc_rt_cuda_ipc_capable(const void *ptr);

/* Whether this process sees exactly one device and its contexts there are its own (not
 * shared through MPS): then *key names the device (its PCI bus id, hashed), so that
 * processes can tell whether they share it, and *busid (32 bytes) spells it. */
int gdc_rt_cuda_sole_device(uint32_t *key, char *busid);

#endif
