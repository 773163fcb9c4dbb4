/*
 * allreduce ipc (one shot): every rank reduces every rank's whole vector itself, reading
 * its peers' device buffers where they lie (CUDA IPC), in rank order, so every rank gets
 * the same bits. One hand-off and n-1 kernels: the latency path for device buffers inside
 * a node. In place the result goes through device scratch, copied out once every peer has
 * said it is done reading this rank's input (which is its output).
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc)
{
    gdc_coll_ipc_reduce_to_output(sched, 0);
    return GDC_SUCCESS;
}
