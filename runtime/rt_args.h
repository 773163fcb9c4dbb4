/* Argument checks shared by every public function: each logs the function and the
 * argument at fault, and returns GDC_ERR_INVALID_ARG (or GDC_ERR_NOT_INITIALIZED). */
#ifndef GDC_RT_ARGS_H
#define GDC_RT_ARGS_H

#include <stddef.h>

#include <gdc.h>

int gdc_rt_is_initialized(void);

gdc_status_t gdc_rt_check_init(const char *fn);
/* Quietly: is comm a live communicator of an initialized gdc? */
int gdc_rt_comm_usable(gdc_comm_t comm);
gdc_status_t gdc_rt_check_comm(const char *fn, gdc_comm_t comm);
gdc_status_t gdc_rt_check_dtype(const char *fn, gdc_dtype_t dtype);
gdc_status_t gdc_rt_check_op(const char *fn, gdc_op_t op, gdc_dtype_t dtype);
/* A rank of comm (0..size-1); name is the argument's name ("dest", "root"). */
gdc_status_t gdc_rt_check_rank(const char *fn, const char *name, int rank, gdc_comm_t comm);
/* buf may be NULL only when count is 0; count * dtype size must not overflow. */
gdc_status_t gdc_rt_check_buffer(const char *fn, const char *name, const void *buf, size_t count,
                                 gdc_dtype_t dtype);
gdc_status_t gdc_rt_check_pointer(const char *fn, const char *name, const void *ptr);

/* Is dtype a floating-point type? (Bitwise ops are integer-only.) */
int gdc_rt_dtype_is_float(gdc_dtype_t dtype);
int gdc_rt_dtype_valid(gdc_dtype_t dtype);
int gdc_rt_op_valid(gdc_op_t op);
const char *gdc_rt_dtype_name(gdc_dtype_t dtype);
const char *gdc_rt_op_name(gdc_op_t op);

#endif
