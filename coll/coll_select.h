/* Choosing an algorithm for a call. */
#ifndef GDC_COLL_SELECT_H
#define GDC_COLL_SELECT_H

#include "coll.h"

/* GDC_<COLL>_ALGO when set, else the default for the call's size. */
const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args);
/* Fail (listing the valid names) when a GDC_<COLL>_ALGO names no algorithm. */
int gdc_coll_select_check_forced(void);

#endif
