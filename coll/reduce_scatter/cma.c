/*
 * reduce_scatter cma: each rank reduces its own block of every rank's vector into its
 * output, reading the other ranks' blocks straight from their inputs by cross-memory attach
 * (process_vm_readv), a cache-sized chunk at a time into its scratch (allreduce cma's first
 * half, gdc_coll_cma_reduce_inputs). Each rank moves (n-1)/n of the vector once, by the
 * kernel's copy, and reduces it once; reduce_scatter shm_direct copies the whole vector
 * into its segment first and applies only while that fits the core's cache, and ring sends
 * it in n-1 messages. A rank says it is done reading (DONE) and returns once every rank has
 * (they read its input until then). Not in place: there a rank's output is the first block
 * of its input, which rank 0 reads.
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_SUPPORTS(gdc_coll_reduce_scatter_cma_supports)
{
    return gdc_coll_cma_supports(args) && !args->in_place;
}

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_cma)
{
    size_t count = args->count;
    int    last;

    gdc_coll_cma_publish(sched);
    last = gdc_coll_cma_reduce_inputs(sched, 0, count * (size_t)args->rank, count);
    if (args->op == GDC_AVG) {
        last = gdc_coll_avg(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, count), last);
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1);
    return GDC_SUCCESS;
}
