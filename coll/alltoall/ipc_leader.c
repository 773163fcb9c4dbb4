/*
 * alltoall ipc_leader: ranks sharing one GPU. Rank 0 copies block j of every rank i's input
 * into block i of rank j's output, queued on its stream and waited for once; the others
 * publish and wait for its DONE (phase/ipc.h). Not in place: a block would be overwritten
 * before it is read.
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_alltoall_ipc_leader)
{
    gdc_coll_ipc_lead_blocks(sched, 1);
    return GDC_SUCCESS;
}
