/*
 * allreduce ipc (one shot): every rank reduces every rank's whole vector itself, reading
 * its peers' device buffers where they lie (CUDA IPC), in rank order, so every rank gets
 * the same bits. One hand-off and n-1 kernels: the latency path for device buffers inside
 * a node. In place the result goes through device scratch, copied out once every peer has
 * said it is done reading this rank's input (which is its output).
 */
#include "algos.h"

#include "phase/ipc.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc)
{
    gdc_coll_region_t out = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    gdc_coll_region_t result = out;
    int               last;

    if (args->in_place) {
        gdc_coll_scratch(sched, args->count * args->dsize);
        result = gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, args->count);
    }
    gdc_coll_cma_publish(sched);
    last = gdc_coll_ipc_reduce_inputs(sched, result, 0, args->count, 0, -1);
    gdc_coll_ipc_finish(sched, result, out, last);
    return GDC_SUCCESS;
}
