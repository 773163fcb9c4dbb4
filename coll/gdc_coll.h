/* The collectives layer's interface to gdc_init and gdc_finalize (api/) and to the tools. */
#ifndef GDC_COLL_LAYER_H
#define GDC_COLL_LAYER_H

#include "coll.h"

/* Register the layer's GDC_* parameters with the runtime's configuration (before it is read). */
void gdc_coll_register_params(void);

/* Start the layer once the runtime is up (the configuration read, the topology known): the
 * live parameters, the selection, the engine's hooks. Stop it. */
gdc_status_t gdc_coll_init(void);
void         gdc_coll_finalize(void);
/* Once the world exists: price with what its creation measured (GDC_CALIBRATION=job). */
gdc_status_t gdc_coll_init_world(void);

/* The live parameters every call of the job follows (valid after the configuration is read;
 * GDC_STREAM_SIZE=auto is resolved by gdc_coll_init). */
const gdc_coll_config_t *gdc_coll_config_get(void);

/* The live selection parameters (GDC_PROFILE, GDC_TUNING, GDC_<COLL>_ALGO), for gdinfo. */
struct gdc_coll_select_config;
const struct gdc_coll_select_config *gdc_coll_select_config_get(void);

#endif
