/*
 * CUDA reduction kernels: the element operations of reduce_ops.h (the very code the host
 * kernels use, compiled here as device functions) applied by one grid-stride kernel per
 * datatype x operation, launched on an internal stream per device and waited for.
 *
 * The CUDA runtime is linked statically, so libgdc.so loads where there is no driver;
 * then cudaGetDeviceCount fails, gdc_coll_cuda_available says GDC_ERR_UNSUPPORTED (logged
 * once at debug) and so does every kernel.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/reduce.h"
#include "kernels/reduce_cuda.h"
#include "kernels/reduce_ops.h"

extern "C" {
#include "rt_args.h"
#include "rt_log.h"
}

namespace {

const unsigned threads_per_block = 256;
/* Enough resident blocks to saturate memory; the grid-stride loop covers the rest. */
const unsigned blocks_per_multiprocessor = 16;
const int max_devices = 64;

/* ---- kernels --------------------------------------------------------------------------- */

/* 16 bytes of elements: what one thread loads and stores at once when the buffers are
 * 16-byte aligned (a warp then moves 512 contiguous bytes per instruction). */
template <typename T>
struct pack_t {
    static const unsigned count = 16 / sizeof(T);
    union {
        uint4 raw;
        T     elem[count];
    };
};

/*
 * dst[i] = a[i] OP b[i], grid-stride. With `packed` (all three buffers 16-byte aligned)
 * whole packs first, then the few elements after the last pack one by one; without it
 * every element one by one. dst may be a or b: each element is read before it is written,
 * by the same thread.
 */
template <typename Op>
__global__ void reduce_kernel(typename Op::type *dst, const typename Op::type *a,
                              const typename Op::type *b, size_t count, int packed)
{
    typedef typename Op::type T;
    size_t first  = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    size_t packs  = packed ? count / pack_t<T>::count : 0;

    for (size_t p = first; p < packs; p += stride) {
        pack_t<T> x, y;

        x.raw = reinterpret_cast<const uint4 *>(a)[p];
        y.raw = reinterpret_cast<const uint4 *>(b)[p];
#pragma unroll
        for (unsigned k = 0; k < pack_t<T>::count; k++) {
            x.elem[k] = Op::apply(x.elem[k], y.elem[k]);
        }
        reinterpret_cast<uint4 *>(dst)[p] = x.raw;
    }
    for (size_t i = packs * pack_t<T>::count + first; i < count; i += stride) {
        dst[i] = Op::apply(a[i], b[i]);
    }
}

/* Up to GDC_COLL_CUDA_MANY_MAX buffers of each side, by value (a kernel parameter). */
template <typename T>
struct many_t {
    T       *dst[GDC_COLL_CUDA_MANY_MAX];
    const T *src[GDC_COLL_CUDA_MANY_MAX];
    int      ndst;
    int      nsrc;
    int      avg_n; /* GDC_AVG: divide by it before the stores */
};

/* No division: the ops other than GDC_AVG. */
struct no_avg {
    template <typename T>
    static __device__ __forceinline__ T apply(T x, int)
    {
        return x;
    }
};

/*
 * dst[d][i] = Avg(src[0][i] OP src[1][i] OP ... OP src[nsrc-1][i]) for every d, in that
 * order (the bits of the same reduction made two by two), grid-stride, packed as
 * reduce_kernel. Every source is read once and every destination written once, where a
 * chain of two-operand kernels and copies reads and writes each many times. A destination
 * may be a source: a thread reads all of its element before it writes any.
 */
template <typename Op, typename Avg>
__global__ void reduce_many_kernel(many_t<typename Op::type> m, size_t count, int packed)
{
    typedef typename Op::type T;
    size_t first  = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    size_t packs  = packed ? count / pack_t<T>::count : 0;

    for (size_t p = first; p < packs; p += stride) {
        pack_t<T> acc, x;

        acc.raw = reinterpret_cast<const uint4 *>(m.src[0])[p];
        for (int s = 1; s < m.nsrc; s++) {
            x.raw = reinterpret_cast<const uint4 *>(m.src[s])[p];
#pragma unroll
            for (unsigned k = 0; k < pack_t<T>::count; k++) {
                acc.elem[k] = Op::apply(acc.elem[k], x.elem[k]);
            }
        }
#pragma unroll
        for (unsigned k = 0; k < pack_t<T>::count; k++) {
            acc.elem[k] = Avg::apply(acc.elem[k], m.avg_n);
        }
        for (int d = 0; d < m.ndst; d++) {
            reinterpret_cast<uint4 *>(m.dst[d])[p] = acc.raw;
        }
    }
    for (size_t i = packs * pack_t<T>::count + first; i < count; i += stride) {
        T acc = m.src[0][i];

        for (int s = 1; s < m.nsrc; s++) {
            acc = Op::apply(acc, m.src[s][i]);
        }
        acc = Avg::apply(acc, m.avg_n);
        for (int d = 0; d < m.ndst; d++) {
            m.dst[d][i] = acc;
        }
    }
}

/* buf[i] = buf[i] / n, the same way. */
template <typename Avg>
__global__ void avg_kernel(typename Avg::type *buf, size_t count, int n, int packed)
{
    typedef typename Avg::type T;
    size_t first  = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    size_t packs  = packed ? count / pack_t<T>::count : 0;

    for (size_t p = first; p < packs; p += stride) {
        pack_t<T> x;

        x.raw = reinterpret_cast<const uint4 *>(buf)[p];
#pragma unroll
        for (unsigned k = 0; k < pack_t<T>::count; k++) {
            x.elem[k] = Avg::apply(x.elem[k], n);
        }
        reinterpret_cast<uint4 *>(buf)[p] = x.raw;
    }
    for (size_t i = packs * pack_t<T>::count + first; i < count; i += stride) {
        buf[i] = Avg::apply(buf[i], n);
    }
}

/* One functor per element operation of reduce_ops.h: op_sum_u8 calls gdc_coll_sum_u8. */
#define GDC_CUDA_OP(_op, _suffix, _type)                                                      \
    struct op_##_op##_##_suffix {                                                             \
        typedef _type type;                                                                   \
        static __device__ __forceinline__ _type apply(_type a, _type b)                       \
        {                                                                                     \
            return gdc_coll_##_op##_##_suffix(a, b);                                          \
        }                                                                                     \
    };
#define GDC_CUDA_AVG(_suffix, _type)                                                          \
    struct avg_##_suffix {                                                                    \
        typedef _type type;                                                                   \
        static __device__ __forceinline__ _type apply(_type sum, int n)                       \
        {                                                                                     \
            return gdc_coll_avg_##_suffix(sum, n);                                            \
        }                                                                                     \
    };
#define GDC_CUDA_UINT_OPS(_suffix, _type)                                                     \
    GDC_CUDA_OP(sum, _suffix, _type) GDC_CUDA_OP(prod, _suffix, _type)                        \
    GDC_CUDA_OP(min, _suffix, _type) GDC_CUDA_OP(max, _suffix, _type)                         \
    GDC_CUDA_OP(band, _suffix, _type) GDC_CUDA_OP(bor, _suffix, _type)                        \
    GDC_CUDA_OP(bxor, _suffix, _type) GDC_CUDA_AVG(_suffix, _type)
#define GDC_CUDA_SINT_OPS(_suffix, _type)                                                     \
    GDC_CUDA_OP(min, _suffix, _type) GDC_CUDA_OP(max, _suffix, _type) GDC_CUDA_AVG(_suffix, _type)
#define GDC_CUDA_FLOAT_OPS(_suffix, _type)                                                    \
    GDC_CUDA_OP(sum, _suffix, _type) GDC_CUDA_OP(prod, _suffix, _type)                        \
    GDC_CUDA_OP(min, _suffix, _type) GDC_CUDA_OP(max, _suffix, _type) GDC_CUDA_AVG(_suffix, _type)

GDC_CUDA_UINT_OPS(u8, uint8_t)
GDC_CUDA_UINT_OPS(u16, uint16_t)
GDC_CUDA_UINT_OPS(u32, uint32_t)
GDC_CUDA_UINT_OPS(u64, uint64_t)
GDC_CUDA_SINT_OPS(i8, int8_t)
GDC_CUDA_SINT_OPS(i16, int16_t)
GDC_CUDA_SINT_OPS(i32, int32_t)
GDC_CUDA_SINT_OPS(i64, int64_t)
GDC_CUDA_FLOAT_OPS(f16, uint16_t)
GDC_CUDA_FLOAT_OPS(bf16, uint16_t)
GDC_CUDA_FLOAT_OPS(f32, float)
GDC_CUDA_FLOAT_OPS(f64, double)

/* ---- launchers and the (dtype, op) lookup -------------------------------------------- */

/* How a kernel is launched: the grid, the stream, and whether the buffers allow packs. */
struct launch_t {
    unsigned     max_blocks;
    cudaStream_t stream;
    int          packed;
};

typedef void (*reduce_launch_fn)(void *dst, const void *a, const void *b, size_t count,
                                 const launch_t *launch);
typedef void (*avg_launch_fn)(void *buf, size_t count, int n, const launch_t *launch);
/* The buffers of a many-operand reduction, untyped. */
struct many_ptrs_t {
    void       *dst[GDC_COLL_CUDA_MANY_MAX];
    const void *src[GDC_COLL_CUDA_MANY_MAX];
    int         ndst;
    int         nsrc;
    int         avg_n;
};
typedef void (*reduce_many_launch_fn)(const many_ptrs_t *m, size_t count, const launch_t *launch);

/* Enough threads for one pack (or element) each, up to the device's resident limit. */
template <typename T>
unsigned grid_size(size_t count, const launch_t *launch)
{
    size_t units  = launch->packed ? count / pack_t<T>::count + 1 : count;
    size_t blocks = (units + threads_per_block - 1) / threads_per_block;

    return blocks < launch->max_blocks ? (unsigned)blocks : launch->max_blocks;
}

template <typename Op>
void launch_reduce(void *dst, const void *a, const void *b, size_t count, const launch_t *launch)
{
    typedef typename Op::type T;

    reduce_kernel<Op><<<grid_size<T>(count, launch), threads_per_block, 0, launch->stream>>>(
        static_cast<T *>(dst), static_cast<const T *>(a), static_cast<const T *>(b), count,
        launch->packed);
}

template <typename Op, typename Avg>
void launch_reduce_many(const many_ptrs_t *m, size_t count, const launch_t *launch)
{
    typedef typename Op::type T;
    many_t<T> typed;

    for (int d = 0; d < m->ndst; d++) {
        typed.dst[d] = static_cast<T *>(m->dst[d]);
    }
    for (int s = 0; s < m->nsrc; s++) {
        typed.src[s] = static_cast<const T *>(m->src[s]);
    }
    typed.ndst  = m->ndst;
    typed.nsrc  = m->nsrc;
    typed.avg_n = m->avg_n;
    reduce_many_kernel<Op, Avg><<<grid_size<T>(count, launch), threads_per_block, 0, launch->stream>>>(
        typed, count, launch->packed);
}

/* The launcher of a (dtype, op) pair's two-operand kernel and of its many-operand one
 * without division, picked by the same table. */
template <typename Op>
struct two_operands {
    static reduce_launch_fn get() { return launch_reduce<Op>; }
};
template <typename Op>
struct many_operands {
    static reduce_many_launch_fn get() { return launch_reduce_many<Op, no_avg>; }
};

template <typename Avg>
void launch_avg(void *buf, size_t count, int n, const launch_t *launch)
{
    typedef typename Avg::type T;

    avg_kernel<Avg><<<grid_size<T>(count, launch), threads_per_block, 0, launch->stream>>>(
        static_cast<T *>(buf), count, n, launch->packed);
}

int aligned_16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

/* The same mapping as the host table: an integer type's MIN / MAX in its own signedness,
 * everything else on the unsigned bits; GDC_AVG sums. Pick<Op>::get() is the launcher. */
template <template <typename> class Pick, typename Sum, typename Prod, typename Min, typename Max,
          typename Band, typename Bor, typename Bxor>
auto int_launcher(gdc_op_t op) -> decltype(Pick<Sum>::get())
{
    switch (op) {
    case GDC_SUM:
    case GDC_AVG: return Pick<Sum>::get();
    case GDC_PROD: return Pick<Prod>::get();
    case GDC_MIN: return Pick<Min>::get();
    case GDC_MAX: return Pick<Max>::get();
    case GDC_BAND: return Pick<Band>::get();
    case GDC_BOR: return Pick<Bor>::get();
    case GDC_BXOR: return Pick<Bxor>::get();
    }
    return nullptr;
}

template <template <typename> class Pick, typename Sum, typename Prod, typename Min, typename Max>
auto float_launcher(gdc_op_t op) -> decltype(Pick<Sum>::get())
{
    switch (op) {
    case GDC_SUM:
    case GDC_AVG: return Pick<Sum>::get();
    case GDC_PROD: return Pick<Prod>::get();
    case GDC_MIN: return Pick<Min>::get();
    case GDC_MAX: return Pick<Max>::get();
    default: return nullptr;
    }
}

#define GDC_CUDA_INT_LAUNCHER(_suffix, _unsigned)                                             \
    int_launcher<Pick, op_sum_##_unsigned, op_prod_##_unsigned, op_min_##_suffix,             \
                 op_max_##_suffix, op_band_##_unsigned, op_bor_##_unsigned,                   \
                 op_bxor_##_unsigned>(op)
#define GDC_CUDA_FLOAT_LAUNCHER(_suffix)                                                      \
    float_launcher<Pick, op_sum_##_suffix, op_prod_##_suffix, op_min_##_suffix,               \
                   op_max_##_suffix>(op)

template <template <typename> class Pick>
auto find_launcher(gdc_dtype_t dtype, gdc_op_t op) -> decltype(Pick<op_sum_u8>::get())
{
    switch (dtype) {
    case GDC_INT8: return GDC_CUDA_INT_LAUNCHER(i8, u8);
    case GDC_UINT8: return GDC_CUDA_INT_LAUNCHER(u8, u8);
    case GDC_INT16: return GDC_CUDA_INT_LAUNCHER(i16, u16);
    case GDC_UINT16: return GDC_CUDA_INT_LAUNCHER(u16, u16);
    case GDC_INT32: return GDC_CUDA_INT_LAUNCHER(i32, u32);
    case GDC_UINT32: return GDC_CUDA_INT_LAUNCHER(u32, u32);
    case GDC_INT64: return GDC_CUDA_INT_LAUNCHER(i64, u64);
    case GDC_UINT64: return GDC_CUDA_INT_LAUNCHER(u64, u64);
    case GDC_FLOAT16: return GDC_CUDA_FLOAT_LAUNCHER(f16);
    case GDC_BFLOAT16: return GDC_CUDA_FLOAT_LAUNCHER(bf16);
    case GDC_FLOAT32: return GDC_CUDA_FLOAT_LAUNCHER(f32);
    case GDC_FLOAT64: return GDC_CUDA_FLOAT_LAUNCHER(f64);
    case GDC_BYTE: return nullptr;
    }
    return nullptr;
}

reduce_launch_fn find_reduce_launcher(gdc_dtype_t dtype, gdc_op_t op)
{
    return find_launcher<two_operands>(dtype, op);
}

/* GDC_AVG's many-operand kernel: the sum of the dtype's bits, then its own division. */
reduce_many_launch_fn find_avg_many_launcher(gdc_dtype_t dtype)
{
    switch (dtype) {
    case GDC_INT8: return launch_reduce_many<op_sum_u8, avg_i8>;
    case GDC_UINT8: return launch_reduce_many<op_sum_u8, avg_u8>;
    case GDC_INT16: return launch_reduce_many<op_sum_u16, avg_i16>;
    case GDC_UINT16: return launch_reduce_many<op_sum_u16, avg_u16>;
    case GDC_INT32: return launch_reduce_many<op_sum_u32, avg_i32>;
    case GDC_UINT32: return launch_reduce_many<op_sum_u32, avg_u32>;
    case GDC_INT64: return launch_reduce_many<op_sum_u64, avg_i64>;
    case GDC_UINT64: return launch_reduce_many<op_sum_u64, avg_u64>;
    case GDC_FLOAT16: return launch_reduce_many<op_sum_f16, avg_f16>;
    case GDC_BFLOAT16: return launch_reduce_many<op_sum_bf16, avg_bf16>;
    case GDC_FLOAT32: return launch_reduce_many<op_sum_f32, avg_f32>;
    case GDC_FLOAT64: return launch_reduce_many<op_sum_f64, avg_f64>;
    case GDC_BYTE: return nullptr;
    }
    return nullptr;
}

reduce_many_launch_fn find_reduce_many_launcher(gdc_dtype_t dtype, gdc_op_t op)
{
    return op == GDC_AVG ? find_avg_many_launcher(dtype) : find_launcher<many_operands>(dtype, op);
}

avg_launch_fn find_avg_launcher(gdc_dtype_t dtype)
{
    switch (dtype) {
    case GDC_INT8: return launch_avg<avg_i8>;
    case GDC_UINT8: return launch_avg<avg_u8>;
    case GDC_INT16: return launch_avg<avg_i16>;
    case GDC_UINT16: return launch_avg<avg_u16>;
    case GDC_INT32: return launch_avg<avg_i32>;
    case GDC_UINT32: return launch_avg<avg_u32>;
    case GDC_INT64: return launch_avg<avg_i64>;
    case GDC_UINT64: return launch_avg<avg_u64>;
    case GDC_FLOAT16: return launch_avg<avg_f16>;
    case GDC_BFLOAT16: return launch_avg<avg_bf16>;
    case GDC_FLOAT32: return launch_avg<avg_f32>;
    case GDC_FLOAT64: return launch_avg<avg_f64>;
    case GDC_BYTE: return nullptr;
    }
    return nullptr;
}

/* ---- devices ----------------------------------------------------------------------------- */

enum availability_t { AVAILABILITY_UNKNOWN, AVAILABLE, UNAVAILABLE };
availability_t availability = AVAILABILITY_UNKNOWN;

/* Per device, created on first use: the internal stream and the grid size limit. */
struct device_state_t {
    int          ready;
    cudaStream_t stream;
    unsigned     max_blocks;
};
device_state_t devices[max_devices];

/* The device a call runs on (that of its buffers), made current for the call. */
struct call_t {
    const char     *fn;
    int             previous_device;
    int             device;
    device_state_t *state;
};

gdc_status_t cuda_error(const char *fn, const char *what, cudaError_t err)
{
    GDC_LOG_ERROR("%s: %s failed: %s (CUDA error %d)", fn, what, cudaGetErrorString(err),
                  (int)err);
    return GDC_ERR_TRANSPORT;
}

gdc_status_t init_device_state(call_t *call)
{
    device_state_t *state = &devices[call->device];
    int             multiprocessors;
    cudaError_t     err;

    err = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, call->device);
    if (err != cudaSuccess) {
        return cuda_error(call->fn, "cudaDeviceGetAttribute(multiProcessorCount)", err);
    }
    /* A blocking stream: its kernels start after the work the caller left on the legacy
     * default stream (as cuMemcpy's copies do), which a non-blocking one would overtake. */
    err = cudaStreamCreateWithFlags(&state->stream, cudaStreamDefault);
    if (err != cudaSuccess) {
        return cuda_error(call->fn, "cudaStreamCreateWithFlags", err);
    }
    state->max_blocks = (unsigned)multiprocessors * blocks_per_multiprocessor;
    state->ready      = 1;
    GDC_LOG_DEBUG("CUDA reduction kernels ready on device %d (%d multiprocessors)",
                  call->device, multiprocessors);
    return GDC_SUCCESS;
}

/* The device of a CUDA buffer, or an error for any other memory. */
gdc_status_t buffer_device(const call_t *call, const void *ptr, int *device)
{
    cudaPointerAttributes attributes;
    cudaError_t           err = cudaPointerGetAttributes(&attributes, ptr);

    if (err != cudaSuccess) {
        return cuda_error(call->fn, "cudaPointerGetAttributes", err);
    }
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
        GDC_LOG_ERROR("%s: buffer %p is not CUDA device memory", call->fn, ptr);
        return GDC_ERR_INVALID_ARG;
    }
    if (attributes.device < 0 || attributes.device >= max_devices) {
        GDC_LOG_ERROR("%s: device %d is beyond the %d devices gdc handles", call->fn,
                      attributes.device, max_devices);
        return GDC_ERR_UNSUPPORTED;
    }
    *device = attributes.device;
    return GDC_SUCCESS;
}

/*
 * Find the buffers' device (all on one: a kernel touching another device's memory without
 * peer access would leave the context unusable), make it current, and set up its stream
 * on first use.
 */
gdc_status_t enter_device(call_t *call, const void *const *buffers, int num_buffers)
{
    cudaError_t err;
    int         device;
    gdc_status_t status;

    for (int i = 0; i < num_buffers; i++) {
        status = buffer_device(call, buffers[i], &device);
        if (status != GDC_SUCCESS) {
            return status;
        }
        if (i > 0 && device != call->device) {
            GDC_LOG_ERROR("%s: buffers %p and %p are on devices %d and %d; a reduction needs "
                          "them on one device", call->fn, buffers[0], buffers[i], call->device,
                          device);
            return GDC_ERR_INVALID_ARG;
        }
        call->device = device;
    }
    err = cudaGetDevice(&call->previous_device);
    if (err != cudaSuccess) {
        return cuda_error(call->fn, "cudaGetDevice", err);
    }
    if (call->previous_device != call->device) {
        err = cudaSetDevice(call->device);
        if (err != cudaSuccess) {
            return cuda_error(call->fn, "cudaSetDevice", err);
        }
    }
    call->state = &devices[call->device];
    if (!call->state->ready) {
        status = init_device_state(call);
        if (status != GDC_SUCCESS) {
            cudaSetDevice(call->previous_device);
            return status;
        }
    }
    return GDC_SUCCESS;
}

/* Wait for the launched kernel (unless it is queued), report any error, and give back the
 * previous device. */
gdc_status_t leave_device(call_t *call, const char *kernel, int wait = 1)
{
    cudaError_t err    = cudaGetLastError(); /* a launch that did not happen */
    gdc_status_t status = GDC_SUCCESS;

    if (err == cudaSuccess && wait) {
        err = cudaStreamSynchronize(call->state->stream);
    }
    if (err != cudaSuccess) {
        status = cuda_error(call->fn, kernel, err);
    }
    if (call->previous_device != call->device) {
        cudaSetDevice(call->previous_device);
    }
    return status;
}

launch_t launch_config(const call_t *call, int packed)
{
    launch_t launch = {call->state->max_blocks, call->state->stream, packed};

    return launch;
}

} /* namespace */

/* ---- entry points ----------------------------------------------------------------------- */

extern "C" gdc_status_t gdc_coll_cuda_available(void)
{
    if (availability == AVAILABILITY_UNKNOWN) {
        int         count = 0;
        cudaError_t err   = cudaGetDeviceCount(&count);

        if (err != cudaSuccess || count == 0) {
            GDC_LOG_DEBUG("CUDA reduction kernels unavailable: %s",
                          err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device");
            cudaGetLastError(); /* do not leave the error for the next CUDA call to report */
            availability = UNAVAILABLE;
        } else {
            availability = AVAILABLE;
        }
    }
    return availability == AVAILABLE ? GDC_SUCCESS : GDC_ERR_UNSUPPORTED;
}

static gdc_status_t reduce_on_device(const char *fn, void *dst, const void *a, const void *b, size_t count,
                                     gdc_dtype_t dtype, gdc_op_t op, int wait)
{
    call_t            call       = {fn, 0, 0, nullptr};
    const void *const buffers[3] = {dst, a, b};
    launch_t          launch;
    gdc_status_t      status;

    status = gdc_coll_cuda_available();
    if (status != GDC_SUCCESS) {
        return status;
    }
    if (!gdc_coll_reduce_supported(dtype, op)) {
        GDC_LOG_ERROR("%s: no kernel for op %s on dtype %s", call.fn, gdc_rt_op_name(op),
                      gdc_rt_dtype_name(dtype));
        return GDC_ERR_INVALID_ARG;
    }
    if (gdc_coll_buffers_partially_overlap(dst, a, b, count * gdc_dtype_size(dtype))) {
        GDC_LOG_ERROR("%s: dst %p partially overlaps an operand (%p, %p)", call.fn, dst, a, b);
        return GDC_ERR_INVALID_ARG;
    }
    if (count == 0) {
        return GDC_SUCCESS;
    }
    status = enter_device(&call, buffers, 3);
    if (status != GDC_SUCCESS) {
        return status;
    }
    launch = launch_config(&call, aligned_16(dst) && aligned_16(a) && aligned_16(b));
    find_reduce_launcher(dtype, op)(dst, a, b, count, &launch);
    return leave_device(&call, "reduce kernel", wait);
}

static gdc_status_t avg_on_device(const char *fn, void *buf, size_t count, gdc_dtype_t dtype, int n, int wait)
{
    call_t      call      = {fn, 0, 0, nullptr};
    const void *buf_const = buf;
    launch_t    launch;
    gdc_status_t status;

    status = gdc_coll_cuda_available();
    if (status != GDC_SUCCESS) {
        return status;
    }
    if (!gdc_coll_reduce_supported(dtype, GDC_AVG) || n < 1) {
        GDC_LOG_ERROR("%s: cannot average dtype %s over %d contributions", call.fn,
                      gdc_rt_dtype_name(dtype), n);
        return GDC_ERR_INVALID_ARG;
    }
    if (count == 0) {
        return GDC_SUCCESS;
    }
    status = enter_device(&call, &buf_const, 1);
    if (status != GDC_SUCCESS) {
        return status;
    }
    launch = launch_config(&call, aligned_16(buf));
    find_avg_launcher(dtype)(buf, count, n, &launch);
    return leave_device(&call, "average kernel", wait);
}

extern "C" gdc_status_t gdc_coll_reduce_cuda(void *dst, const void *a, const void *b, size_t count,
                                             gdc_dtype_t dtype, gdc_op_t op)
{
    return reduce_on_device("gdc_coll_reduce_cuda", dst, a, b, count, dtype, op, 1);
}

extern "C" gdc_status_t gdc_coll_avg_finish_cuda(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    return avg_on_device("gdc_coll_avg_finish_cuda", buf, count, dtype, n, 1);
}

extern "C" gdc_status_t gdc_coll_reduce_cuda_queued(void *dst, const void *a, const void *b, size_t count,
                                                    gdc_dtype_t dtype, gdc_op_t op)
{
    return reduce_on_device("gdc_coll_reduce_cuda_queued", dst, a, b, count, dtype, op, 0);
}

extern "C" gdc_status_t gdc_coll_avg_finish_cuda_queued(void *buf, size_t count, gdc_dtype_t dtype, int n)
{
    return avg_on_device("gdc_coll_avg_finish_cuda_queued", buf, count, dtype, n, 0);
}

extern "C" gdc_status_t gdc_coll_reduce_many_cuda_queued(void *const *dst, int ndst, const void *const *src, int nsrc,
                                                         size_t count, gdc_dtype_t dtype, gdc_op_t op, int avg_n)
{
    call_t       call = {"gdc_coll_reduce_many_cuda_queued", 0, 0, nullptr};
    const void  *buffers[2 * GDC_COLL_CUDA_MANY_MAX];
    many_ptrs_t  m;
    int          packed = 1;
    gdc_status_t status = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS) {
        return status;
    }
    if (ndst < 1 || ndst > GDC_COLL_CUDA_MANY_MAX || nsrc < 1 || nsrc > GDC_COLL_CUDA_MANY_MAX ||
        (op == GDC_AVG && avg_n < 1) || !gdc_coll_reduce_supported(dtype, op)) {
        GDC_LOG_ERROR("%s: cannot reduce %d buffers into %d (op %s, dtype %s; at most %d of each)", call.fn, nsrc,
                      ndst, gdc_rt_op_name(op), gdc_rt_dtype_name(dtype), GDC_COLL_CUDA_MANY_MAX);
        return GDC_ERR_INVALID_ARG;
    }
    for (int d = 0; d < ndst; d++) {
        for (int s = 0; s < nsrc; s++) {
            if (gdc_coll_buffers_partially_overlap(dst[d], src[s], src[s], count * gdc_dtype_size(dtype))) {
                GDC_LOG_ERROR("%s: dst %p partially overlaps source %p", call.fn, dst[d], src[s]);
                return GDC_ERR_INVALID_ARG;
            }
        }
    }
    if (count == 0) {
        return GDC_SUCCESS;
    }
    for (int d = 0; d < ndst; d++) {
        m.dst[d]          = dst[d];
        buffers[d]        = dst[d];
        packed           &= aligned_16(dst[d]);
    }
    for (int s = 0; s < nsrc; s++) {
        m.src[s]          = src[s];
        buffers[ndst + s] = src[s];
        packed           &= aligned_16(src[s]);
    }
    m.ndst  = ndst;
    m.nsrc  = nsrc;
    m.avg_n = op == GDC_AVG ? avg_n : 1;
    status  = enter_device(&call, buffers, ndst + nsrc);
    if (status != GDC_SUCCESS) {
        return status;
    }
    launch_t launch = launch_config(&call, packed);
    find_reduce_many_launcher(dtype, op)(&m, count, &launch);
    return leave_device(&call, "many-operand reduce kernel", 0);
}

extern "C" gdc_status_t gdc_coll_cuda_copy_queued(void *dst, const void *src, size_t bytes)
{
    call_t            call       = {"gdc_coll_cuda_copy_queued", 0, 0, nullptr};
    const void *const buffers[2] = {dst, src};
    gdc_status_t      status     = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS || bytes == 0) {
        return status;
    }
    status = enter_device(&call, buffers, 2);
    if (status != GDC_SUCCESS) {
        return status;
    }
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, call.state->stream);
    return leave_device(&call, "cudaMemcpyAsync", 0);
}

extern "C" gdc_status_t gdc_coll_cuda_drain(const void *near)
{
    call_t       call   = {"gdc_coll_cuda_drain", 0, 0, nullptr};
    gdc_status_t status = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS) {
        return status;
    }
    status = enter_device(&call, &near, 1);
    if (status != GDC_SUCCESS) {
        return status;
    }
    return leave_device(&call, "queued kernels and copies", 1);
}

extern "C" gdc_status_t gdc_coll_cuda_malloc(void **ptr, size_t bytes)
{
    void       *memory = nullptr;
    cudaError_t err;
    gdc_status_t status = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS) {
        return status;
    }
    err = cudaMalloc(&memory, bytes);
    if (err != cudaSuccess) {
        GDC_LOG_ERROR("gdc_coll_cuda_malloc: cudaMalloc of %zu bytes failed: %s", bytes,
                      cudaGetErrorString(err));
        return GDC_ERR_NO_MEMORY;
    }
    *ptr = memory;
    return GDC_SUCCESS;
}

extern "C" gdc_status_t gdc_coll_cuda_free(void *ptr)
{
    cudaError_t err;
    gdc_status_t status = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS) {
        return status;
    }
    err = cudaFree(ptr);
    return err == cudaSuccess ? GDC_SUCCESS : cuda_error("gdc_coll_cuda_free", "cudaFree", err);
}

extern "C" gdc_status_t gdc_coll_cuda_memcpy(void *dst, const void *src, size_t bytes)
{
    cudaError_t err;
    gdc_status_t status = gdc_coll_cuda_available();

    if (status != GDC_SUCCESS) {
        return status;
    }
    err = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    return err == cudaSuccess ? GDC_SUCCESS
                              : cuda_error("gdc_coll_cuda_memcpy", "cudaMemcpy", err);
}
