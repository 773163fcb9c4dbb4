/* Choosing an algorithm for a call. */
#ifndef GDC_COLL_SELECT_H
#define GDC_COLL_SELECT_H

#include "coll.h"
#include "select/model.h"

/* What the choice follows besides the model: GDC_PROFILE, GDC_TUNING, GDC_<COLL>_ALGO. */
typedef struct gdc_coll_select_config {
    const char *profile;                     /* machine profile: a name or a path; NULL: built-in */
    const char *tuning;                      /* tuning file; NULL: none */
    const char *forced[GDC_COLL_TYPE_COUNT]; /* algorithm names; NULL: choose */
} gdc_coll_select_config_t;

/* Take config (copied; its strings must outlive the selection): load the machine and the
 * tuning file, check the forced names (listing the valid ones on error). */
gdc_status_t gdc_coll_select_init(const gdc_coll_select_config_t *config);
void         gdc_coll_select_finalize(void);
/* The machine again, from the numbers in force now: the world's creation may have measured
 * the job's own (GDC_CALIBRATION=job, rt_calib.h). */
gdc_status_t gdc_coll_select_remeasured(void);
/* A node's cores, last-level cache and core cache, for the machine priced with (and the
 * built-in one a measured choice is held against); gdc_coll_select_init takes them from
 * the topology, tools without a job set them. */
void gdc_coll_select_node_counts(int cores, int llc_mib, int core_cache_kib);

/* The algorithm for a call (args->on_device says where its buffers are): the forced one
 * when set, else the tuning file's rule for its size, else the cheapest on the cost model;
 * a choice that does not support the call gives way to the next cheapest (logged at info,
 * once per algorithm). Every rank of a call chooses the same: the model prices all ranks'
 * schedules from inputs they share. NULL when no algorithm applies. */
const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args);

/* Set args's pipelining units for the live machine (gdc_coll_machine_chunks). */
void gdc_coll_select_chunks(gdc_coll_args_t *args);

/* The machine the live job's choices are priced on (set by gdc_coll_select_init; tests may
 * set it themselves). */
extern gdc_coll_machine_t gdc_coll_machine;

#endif
