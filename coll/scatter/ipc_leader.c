/*
 * scatter ipc_leader: ranks sharing one GPU. The root copies each rank's block into its
 * output, queued on its stream and waited for once; the others publish and wait for its
 * DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_scatter_ipc_leader)
{
    gdc_coll_ipc_lead_rooted(sched, 0);
    return GDC_SUCCESS;
}
