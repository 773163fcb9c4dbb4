/* Test data for collectives: rank r's input element i in any datatype, and the reference
 * result of reducing element i over n ranks, shared by the simulator and the multi-rank
 * tests so that both check the same thing. */
#ifndef GDC_TEST_VALUES_H
#define GDC_TEST_VALUES_H

#include <stddef.h>

#include <gdc.h>

/* Integers small enough that sums and products stay exact (and fit int8 products); reals
 * for float32/float64 that do not add up exactly. */
double test_value(gdc_dtype_t dtype, gdc_op_t op, int rank, size_t i);
/* The same, as stored in dtype (rounded). */
double test_stored(gdc_dtype_t dtype, gdc_op_t op, int rank, size_t i);
void   test_put(gdc_dtype_t dtype, void *buf, size_t i, double v);
double test_get(gdc_dtype_t dtype, const void *buf, size_t i);
int    test_is_float(gdc_dtype_t dtype);
/* The reduction of element i over ranks 0..n-1 in double (integers exact), and the
 * tolerance a result may differ by (0: must be exact). */
double test_reference(gdc_dtype_t dtype, gdc_op_t op, int n, size_t i, double *tol);

#endif
