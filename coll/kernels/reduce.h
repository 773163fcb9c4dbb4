/*
 * Reduction kernels of the collectives engine: dst = a OP b, elementwise, for every
 * datatype and operation of gdc.h, on host memory and on CUDA device memory.
 *
 * Results are deterministic and portable: the same inputs give the same bits in every
 * build, on the host and on the GPU, and whatever the order of the operands (every
 * operation is commutative bit for bit). The rules are in coll/kernels/reduce_ops.h: integers
 * wrap, fp16 / bf16 compute in float and round once to nearest even, MIN / MAX follow
 * IEEE minimumNumber / maximumNumber (a NaN loses to a number, -0 < +0), and every NaN
 * result is the type's canonical quiet NaN.
 */
#ifndef GDC_COLL_REDUCE_H
#define GDC_COLL_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of datatypes and operations in gdc.h (for tables indexed by them). */
#define GDC_COLL_NUM_DTYPES ((int)GDC_BYTE + 1)
#define GDC_COLL_NUM_OPS    ((int)GDC_BXOR + 1)

/* 1 when the kernels implement (dtype, op): every op on the integer types, SUM, PROD,
 * MIN, MAX and AVG on the float types; 0 otherwise (GDC_BYTE, bitwise ops on floats,
 * values outside the enums). The API layer can validate arguments with it. */
int gdc_coll_reduce_supported(gdc_dtype_t dtype, gdc_op_t op);

/* 1 when dst overlaps a or b (each of `bytes` bytes) without being the same buffer: the
 * one aliasing the kernels do not allow. */
int gdc_coll_buffers_partially_overlap(const void *dst, const void *a, const void *b,
                                       size_t bytes);

/* dst[i] = a[i] OP b[i] for i < count. dst may be the same pointer as a or b (never a
 * partial overlap). GDC_AVG reduces like GDC_SUM; the division happens once at the end in
 * gdc_coll_avg_finish. Host memory. dtype/op combinations are valid ones (the API layer
 * has rejected GDC_BYTE and bitwise ops on floats before). */
void gdc_coll_reduce_host(void *dst, const void *a, const void *b, size_t count,
                          gdc_dtype_t dtype, gdc_op_t op);
/* buf[i] = buf[i] / n for GDC_AVG: integers truncate toward zero, floats divide (fp16/bf16
 * through float, rounded to nearest even). */
void gdc_coll_avg_finish_host(void *buf, size_t count, gdc_dtype_t dtype, int n);
/* The same on CUDA device memory, synchronous (returns after the kernel completed) on an
 * internal stream; status GDC_SUCCESS, or GDC_ERR_UNSUPPORTED when built without CUDA or
 * no device, GDC_ERR_TRANSPORT on a CUDA error (logged with the CUDA error string). */
gdc_status_t gdc_coll_reduce_cuda(void *dst, const void *a, const void *b, size_t count,
                                  gdc_dtype_t dtype, gdc_op_t op);
gdc_status_t gdc_coll_avg_finish_cuda(void *buf, size_t count, gdc_dtype_t dtype, int n);
/* fp16 and bf16 conversions (round to nearest even; NaN stays NaN, inf stays inf,
 * subnormals handled), shared by kernels, tests and the simulator's reference. */
float gdc_coll_half_to_float(uint16_t h);  uint16_t gdc_coll_float_to_half(float f);
float gdc_coll_bf16_to_float(uint16_t b);  uint16_t gdc_coll_float_to_bf16(float f);

/* Beyond the contract above:
 * - every NaN result, of the kernels and of float -> fp16 / bf16, is the canonical quiet
 *   NaN of the type (see coll/kernels/half.h), so NaN bits never depend on operand order;
 * - the CUDA functions also say GDC_ERR_INVALID_ARG for what the host ones refuse (no
 *   kernel for dtype/op, partial overlap, n < 1) and for buffers that are not device
 *   memory of one device (see coll/kernels/reduce_cuda.h). */

/* The host kernel set in use: "avx2" (x86-64 with AVX2 and F16C) or "generic" (plain C,
 * vectorized for the target's baseline), chosen from the CPU at first use; for gdinfo
 * and logs. Both give the same bits. */
const char *gdc_coll_reduce_host_isa(void);
/* For tests: run the set called name (NULL: the CPU's best again). GDC_SUCCESS, or
 * GDC_ERR_UNSUPPORTED when this build or CPU does not have it. */
gdc_status_t gdc_coll_reduce_host_select_isa(const char *name);


#ifdef __cplusplus
}
#endif

#endif
