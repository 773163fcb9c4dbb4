/*
 * An independent scalar reference for the reduction kernels, and test inputs.
 *
 * Written apart from coll/: integers in 64-bit arithmetic truncated to the type's width,
 * float32 in double then rounded to float, fp16 / bf16 decoded with ldexp to double,
 * computed in double and rounded by ref_round_* (frexp / floor, ties to even by hand),
 * with the NaN and signed-zero rules spelled out with isnan / signbit.
 */
#ifndef GDC_TEST_KERNELS_REFERENCE_H
#define GDC_TEST_KERNELS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

/* Canonical NaNs the kernels produce. */
#define REF_HALF_NAN 0x7e00u
#define REF_BF16_NAN 0x7fc0u
#define REF_F32_NAN  0x7fc00000u
#define REF_F64_NAN  0x7ff8000000000000ull

/* fp16 / bf16 bits -> double, exactly. */
double ref_half_value(uint16_t bits);
double ref_bf16_value(uint16_t bits);
/* double -> fp16 / bf16 bits, rounded to nearest even; any NaN -> the canonical NaN. */
uint16_t ref_round_half(double x);
uint16_t ref_round_bf16(double x);

/* IEEE minimumNumber / maximumNumber in double: NaN loses, -0 < +0. */
double ref_min(double a, double b);
double ref_max(double a, double b);

/* dst[i] = a[i] OP b[i], one element at a time. dst must not alias a or b. */
void ref_reduce(void *dst, const void *a, const void *b, size_t count, gdc_dtype_t dtype,
                gdc_op_t op);
/* buf[i] = buf[i] / n as GDC_AVG finishes. */
void ref_avg_finish(void *buf, size_t count, gdc_dtype_t dtype, int n);

/* A deterministic generator (splitmix64) and inputs that mix raw random bits, values of
 * similar magnitude (so sums round), and the special values of the type. */
uint64_t ref_random(uint64_t *state);
void     ref_fill(void *buf, size_t count, gdc_dtype_t dtype, uint64_t *state);

/* Index of the first element whose bits differ, or count when all match; on a mismatch
 * prints what, where, and the operands' bits (a and b may be NULL). */
size_t ref_compare(const char *what, const void *expected, const void *actual, const void *a,
                   const void *b, size_t count, gdc_dtype_t dtype);

/* Short names for messages ("int8", "sum"). */
const char *ref_dtype_name(gdc_dtype_t dtype);
const char *ref_op_name(gdc_op_t op);
int         ref_is_float(gdc_dtype_t dtype);

#endif
