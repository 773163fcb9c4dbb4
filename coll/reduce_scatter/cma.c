/*
 * reduce_scatter cma: each rank reduces its own block of every rank's vector into its
 * output, reading the other ranks' blocks straight from their inputs by cross-memory attach
 * (process_vm_readv), a cache-sized chunk at a time into its scratch (allreduce cma's first
 * half, gdc_coll_cma_reduce_inputs). Each rank moves (n-1)/n of the vector once, by the
 * kernel's copy, and reduces it once; reduce_scatter shm_direct copies the whole vector
 * into its segment first and applies only while that fits the core's cache, and ring sends
 * it in n-1 messages. A rank says it is done reading (DONE) and returns once every rank has
 * (they read its input until then). In place the result goes through scratch: a rank's
 * output is the first block of its input, which rank 0 reads until it says DONE.
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_cma)
{
    size_t            count = args->count;
    size_t            at    = args->in_place ? gdc_coll_cma_reduce_chunk_elems(args) : 0; /* past the reads */
    gdc_coll_buf_t    buf   = args->in_place ? GDC_COLL_SCRATCH : GDC_COLL_OUTPUT;
    gdc_coll_region_t result = gdc_coll_rgn(sched, buf, at, count);
    int               last;

    gdc_coll_cma_publish(sched);
    if (args->in_place) {
        gdc_coll_scratch(sched, (at + count) * args->dsize);
    }
    last = gdc_coll_cma_reduce_inputs(sched, buf, at, count * (size_t)args->rank, count);
    if (args->op == GDC_AVG) {
        last = gdc_coll_avg(sched, result, last);
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    last = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, last);
    if (args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, count), result, last);
    }
    return GDC_SUCCESS;
}
