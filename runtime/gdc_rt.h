/* The runtime's interface to the layers above it (collectives, tools). */
#ifndef GDC_RT_H
#define GDC_RT_H

#include <gdc.h>

#include "rt_args.h"
#include "rt_boot.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_log.h"
#include "rt_memtype.h"
#include "rt_msg.h"
#include "rt_p2p.h"
#include "rt_request.h"
#include "rt_tag.h"
#include "rt_ucx.h"

/* The collectives layer, started and stopped by gdc_init / gdc_finalize. */
int  gdc_coll_init(void);
void gdc_coll_finalize(void);
/* Its parameter table, registered before the configuration is read. */
void gdc_coll_register_params(void);

#endif
