/*
 * Benchmark buffers in host memory or, with -d cuda, in GPU memory (cudaMalloc). Built
 * with CUDA when configure found the toolkit (GDC_HAVE_CUDA); otherwise -d cuda says so.
 * The same code serves every backend: buffers are the harness's business.
 */
#include "config.h"
#include "gdbench.h"

#include <stdlib.h>
#include <string.h>

#ifdef GDC_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* Host buffers are page-aligned, as OSU's are, so that no size straddles pages oddly. */
#define HOST_ALIGNMENT 4096

const char *gdbench_memory_name(gdbench_memory_t memory)
{
    switch (memory) {
    case GDBENCH_MEM_HOST: return "host";
    case GDBENCH_MEM_CUDA: return "cuda";
    case GDBENCH_MEM_CUDA_POOL: return "cuda-pool";
    }
    return "?";
}

int gdbench_mem_cuda_built(void)
{
#ifdef GDC_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

#ifdef GDC_HAVE_CUDA
/* The launcher's idea of this process's index on its node, to spread ranks over GPUs. */
static int local_rank_from_environment(int rank)
{
    static const char *const variables[] = {"GDRUN_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                            "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID"};

    for (size_t i = 0; i < sizeof(variables) / sizeof(variables[0]); i++) {
        const char *value = getenv(variables[i]);
        if (value != NULL && *value != '\0') {
            return atoi(value);
        }
    }
    return rank;
}
#endif

int gdbench_mem_init(gdbench_memory_t memory, int rank)
{
    if (memory == GDBENCH_MEM_HOST) {
        return GDBENCH_OK;
    }
#ifdef GDC_HAVE_CUDA
    int         ndevices = 0;
    cudaError_t err      = cudaGetDeviceCount(&ndevices);

    if (err != cudaSuccess || ndevices == 0) {
        gdbench_set_error("-d cuda: no CUDA device is usable here (cudaGetDeviceCount: %s)",
                          err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return GDBENCH_ERR;
    }
    int device = local_rank_from_environment(rank) % ndevices;
    err        = cudaSetDevice(device);
    if (err != cudaSuccess) {
        gdbench_set_error("-d cuda: cudaSetDevice(%d) failed: %s", device, cudaGetErrorString(err));
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
#else
    (void)rank;
    gdbench_set_error("-d cuda: this gdbench was built without CUDA (configure found no CUDA toolkit; "
                      "see --with-cuda)");
    return GDBENCH_UNSUPPORTED;
#endif
}

int gdbench_mem_alloc(gdbench_memory_t memory, size_t bytes, void **ptr)
{
    void *p = NULL;

    /* never a zero-byte buffer: every rank passes a valid pointer, used or not */
    bytes = bytes < HOST_ALIGNMENT ? HOST_ALIGNMENT : bytes;
    if (memory == GDBENCH_MEM_HOST) {
        if (posix_memalign(&p, HOST_ALIGNMENT, bytes) != 0) {
            gdbench_set_error("cannot allocate %zu bytes of host memory", bytes);
            return GDBENCH_ERR;
        }
        memset(p, 0, bytes); /* touch every page before timing */
        *ptr = p;
        return GDBENCH_OK;
    }
#ifdef GDC_HAVE_CUDA
    cudaError_t err = memory == GDBENCH_MEM_CUDA_POOL ? cudaMallocAsync(&p, bytes, 0) : cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
        gdbench_set_error("%s(%zu) failed: %s", memory == GDBENCH_MEM_CUDA_POOL ? "cudaMallocAsync" : "cudaMalloc",
                          bytes, cudaGetErrorString(err));
        return GDBENCH_ERR;
    }
    err = cudaMemset(p, 0, bytes);
    if (err != cudaSuccess) {
        cudaFree(p);
        gdbench_set_error("cudaMemset(%zu) failed: %s", bytes, cudaGetErrorString(err));
        return GDBENCH_ERR;
    }
    *ptr = p;
    return GDBENCH_OK;
#else
    gdbench_set_error("built without CUDA");
    return GDBENCH_UNSUPPORTED;
#endif
}

void gdbench_mem_free(gdbench_memory_t memory, void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    if (memory == GDBENCH_MEM_HOST) {
        free(ptr);
        return;
    }
#ifdef GDC_HAVE_CUDA
    if (memory == GDBENCH_MEM_CUDA_POOL) {
        cudaFreeAsync(ptr, 0);
        cudaStreamSynchronize(0);
        return;
    }
    cudaFree(ptr);
#endif
}

#ifdef GDC_HAVE_CUDA
static int cuda_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    cudaError_t err = cudaMemcpy(dst, src, bytes, kind);

    /* From pageable memory cudaMemcpy returns before the data is on the device; a CUDA-aware
     * library may read the buffer on another stream, or from another process, as soon as it
     * is called (MPI's rule: the caller's work on the buffer is complete). */
    if (err == cudaSuccess && kind == cudaMemcpyHostToDevice) {
        err = cudaStreamSynchronize(0);
    }
    if (err != cudaSuccess) {
        gdbench_set_error("cudaMemcpy of %zu bytes failed: %s", bytes, cudaGetErrorString(err));
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}
#endif

#ifdef GDC_HAVE_CUDA
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}
#endif

double gdbench_mem_cuda_copy_gbps(void)
{
#ifdef GDC_HAVE_CUDA
    enum { BYTES = 64 << 20, REPS = 5 };
    void       *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    double      ms[REPS], gbps = 0;
    int         done = 0;

    if (cudaMalloc(&a, BYTES) == cudaSuccess && cudaMalloc(&b, BYTES) == cudaSuccess &&
        cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess &&
        cudaMemcpy(b, a, BYTES, cudaMemcpyDeviceToDevice) == cudaSuccess) {
        for (done = 0; done < REPS; done++) {
            float elapsed = 0;

            if (cudaEventRecord(start, 0) != cudaSuccess ||
                cudaMemcpyAsync(b, a, BYTES, cudaMemcpyDeviceToDevice, 0) != cudaSuccess ||
                cudaEventRecord(stop, 0) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess ||
                cudaEventElapsedTime(&elapsed, start, stop) != cudaSuccess || elapsed <= 0) {
                break;
            }
            ms[done] = elapsed;
        }
    }
    if (done == REPS) {
        qsort(ms, REPS, sizeof(ms[0]), by_value);
        gbps = BYTES / (ms[REPS / 2] * 1e-3) / 1e9;
    }
    cudaGetLastError(); /* an error here is the floor's, not the benchmark's */
    if (stop != NULL) {
        cudaEventDestroy(stop);
    }
    if (start != NULL) {
        cudaEventDestroy(start);
    }
    cudaFree(b);
    cudaFree(a);
    return gbps;
#else
    return 0;
#endif
}

int gdbench_mem_put(gdbench_memory_t memory, void *dst, const void *host_src, size_t bytes)
{
    if (bytes == 0) {
        return GDBENCH_OK;
    }
    if (memory == GDBENCH_MEM_HOST) {
        memcpy(dst, host_src, bytes);
        return GDBENCH_OK;
    }
#ifdef GDC_HAVE_CUDA
    return cuda_copy(dst, host_src, bytes, cudaMemcpyHostToDevice);
#else
    return GDBENCH_UNSUPPORTED;
#endif
}

int gdbench_mem_get(gdbench_memory_t memory, void *host_dst, const void *src, size_t bytes)
{
    if (bytes == 0) {
        return GDBENCH_OK;
    }
    if (memory == GDBENCH_MEM_HOST) {
        memcpy(host_dst, src, bytes);
        return GDBENCH_OK;
    }
#ifdef GDC_HAVE_CUDA
    return cuda_copy(host_dst, src, bytes, cudaMemcpyDeviceToHost);
#else
    return GDBENCH_UNSUPPORTED;
#endif
}
