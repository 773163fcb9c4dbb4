/*
 * reduce ipc: the root reduces every rank's vector, reading its peers' device buffers where
 * they lie (CUDA IPC), in rank order; the others publish their input and return once the
 * root says it is done reading (DONE). In place the root's result goes through device
 * scratch, since its output is one of the inputs it reads.
 */
#include "algos.h"

#include "phase/ipc.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_reduce_ipc)
{
    gdc_coll_region_t out, result;
    int               last;

    gdc_coll_cma_publish(sched);
    if (args->rank != args->root) {
        gdc_coll_wait(sched, args->root, GDC_COLL_SHM_DONE, 1, -1);
        return GDC_SUCCESS;
    }
    out    = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    result = gdc_coll_ipc_result(sched);
    last = gdc_coll_ipc_reduce_inputs(sched, result, 0, args->count, 0, -1);
    last = args->op == GDC_AVG ? gdc_coll_avg(sched, result, last) : last;
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    if (args->in_place) {
        gdc_coll_copy(sched, out, result, last);
    }
    return GDC_SUCCESS;
}
