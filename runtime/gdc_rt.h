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

/*
 * The runtime's part of gdc_init and gdc_finalize, which run the layers above in between
 * (api/gdc.c). gdc_init: gdc_rt_check_can_init; the layers register their parameters;
 * gdc_rt_init (configuration, bootstrap, UCX, topology, progress); the layers start;
 * gdc_rt_init_world (the world communicator, whose creation calls the layers' communicator
 * hooks). gdc_rt_init_undo unwinds gdc_rt_init when a layer fails to start. gdc_finalize:
 * gdc_rt_finalize_begin (requests aborted, everyone past a barrier, communicators freed:
 * returns the barrier's status); the layers stop; gdc_rt_finalize_end.
 */
gdc_status_t gdc_rt_check_can_init(void);
gdc_status_t gdc_rt_init(void);
void         gdc_rt_init_undo(void);
gdc_status_t gdc_rt_init_world(void);
gdc_status_t gdc_rt_finalize_begin(void);
void         gdc_rt_finalize_end(void);

#endif
