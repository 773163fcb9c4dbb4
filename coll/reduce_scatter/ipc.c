/*
 * reduce_scatter ipc: every rank reduces its own block of every rank's vector, reading its
 * peers' device buffers where they lie (CUDA IPC), in rank order. One hand-off, n-1 kernels
 * over one block each. In place the block goes through device scratch: this rank's output
 * overlays its input's first block, which rank 0 reads until it says it is done.
 */
#include "algos.h"

#include "phase/ipc.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ipc)
{
    gdc_coll_region_t out = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    gdc_coll_region_t result = out;
    int               last;

    if (args->in_place) {
        gdc_coll_scratch(sched, args->count * args->dsize);
        result = gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, args->count);
    }
    gdc_coll_cma_publish(sched);
    last = gdc_coll_ipc_reduce_inputs(sched, result, args->count * (size_t)args->rank, args->count, 0, -1);
    gdc_coll_ipc_finish(sched, result, out, last);
    return GDC_SUCCESS;
}
