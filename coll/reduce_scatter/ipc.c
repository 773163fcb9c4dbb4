/*
 * reduce_scatter ipc: every rank reduces its own block of every rank's vector, reading its
 * peers' device buffers where they lie (CUDA IPC), in rank order. One hand-off, n-1 kernels
 * over one block each. In place the block goes through device scratch: this rank's output
 * overlays its input's first block, which rank 0 reads until it says it is done.
 */
#include "algos.h"

#include "phase/ipc.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ipc)
{
    gdc_coll_ipc_reduce_to_output(sched, args->count * (size_t)args->rank);
    return GDC_SUCCESS;
}
