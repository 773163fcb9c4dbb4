/*
 * allreduce cma: the two-shot allreduce by cross-memory attach (gdc_coll_two_shot). Rank r
 * reads part r of every other rank's input with process_vm_readv, a cache-sized chunk at a
 * time into its scratch, and reduces it there into part r of its output (starting from its
 * own input, which it reads in place); then it reads every other part p from rank p's
 * output. Each rank moves (n-1)/n of the vector twice, by the kernel's copy, where allreduce
 * shm copies the whole vector into its segment and (n-1)/n of it out: the single-copy path
 * where cross-memory attach runs near memcpy's rate.
 */
#include "algos.h"

#include "phase/shm.h"

static int reduce_part_by_cma(gdc_coll_sched_t *sched, size_t at, size_t count)
{
    return gdc_coll_cma_reduce_inputs(sched, GDC_COLL_OUTPUT, at, at, count);
}

GDC_COLL_BUILDER(gdc_coll_allreduce_cma)
{
    gdc_coll_two_shot(sched, reduce_part_by_cma);
    return GDC_SUCCESS;
}
