/* TEMPORARY (replaced by the kernels branch): the reduction kernel interface. */
#ifndef GDC_COLL_REDUCE_H
#define GDC_COLL_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include <gdc.h>

void gdc_coll_reduce_host(void *dst, const void *a, const void *b, size_t count,
                          gdc_dtype_t dtype, gdc_op_t op);
void gdc_coll_avg_finish_host(void *buf, size_t count, gdc_dtype_t dtype, int n);
int gdc_coll_reduce_cuda(void *dst, const void *a, const void *b, size_t count,
                         gdc_dtype_t dtype, gdc_op_t op);
int gdc_coll_avg_finish_cuda(void *buf, size_t count, gdc_dtype_t dtype, int n);
float    gdc_coll_half_to_float(uint16_t h);
uint16_t gdc_coll_float_to_half(float f);
float    gdc_coll_bf16_to_float(uint16_t b);
uint16_t gdc_coll_float_to_bf16(float f);

#endif
