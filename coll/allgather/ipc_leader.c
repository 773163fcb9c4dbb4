/*
 * allgather ipc_leader: ranks sharing one GPU. Rank 0 copies every rank's block into every
 * rank's output (in place, each output's own block is already there), queued on its stream
 * and waited for once; the others publish and wait for its DONE (phase/ipc.h).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_allgather_ipc_leader)
{
    gdc_coll_ipc_lead_blocks(sched, 0);
    return GDC_SUCCESS;
}
