/*
 * allreduce ipc_two_shot: a reduce-scatter by direct reads, then an allgather by direct
 * reads (gdc_coll_two_shot). Rank r reduces part r of every rank's vector, reading its
 * peers' device buffers where they lie (CUDA IPC), into part r of its output; then it
 * copies every other part p from rank p's output. Each byte is reduced once on the node,
 * where the one-shot reduces it on every rank: the bandwidth path for device buffers.
 */
#include "algos.h"

#include "phase/ipc.h"
#include "phase/shm.h"

/* In place, my part of my input is read first, before the result overwrites it. */
static int reduce_part_in_place(gdc_coll_sched_t *sched, size_t at, size_t count)
{
    return gdc_coll_ipc_reduce_inputs(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, at, count), at, count,
                                      sched->args.rank, -1);
}

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_two_shot)
{
    gdc_coll_two_shot(sched, reduce_part_in_place);
    return GDC_SUCCESS;
}
