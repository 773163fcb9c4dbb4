/* Choosing an algorithm for a call. */
#ifndef GDC_COLL_SELECT_H
#define GDC_COLL_SELECT_H

#include "coll.h"

#include "select/model.h"

/* The algorithm for a call: GDC_<COLL>_ALGO when set, else the tuning file's rule for its
 * size, else the cheapest on the cost model; a choice that does not support the call gives
 * way to the next cheapest (logged at info). Every rank of a call chooses the same: the
 * model prices all ranks' schedules from inputs they share. */
const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args, int on_device);

/* Load the machine (GDC_PROFILE, GDC_LINK_*) and tuning file (GDC_TUNING), check
 * GDC_<COLL>_ALGO names (listing the valid ones on error). */
int  gdc_coll_select_init(void);
void gdc_coll_select_finalize(void);
int  gdc_coll_select_check_forced(void);

/* The machine the live job's choices are priced on. */
extern gdc_coll_machine_t gdc_coll_machine;

#endif
