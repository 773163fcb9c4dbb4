/*
 * alltoall cma: every rank reads its block from each other rank's send buffer by
 * cross-memory attach (process_vm_readv), one copy per block where alltoall shm makes two
 * (into the sender's segment, out of it). Each publishes its send buffer and raises
 * COPIED; reads go round from the next rank on, so that not every rank reads from the same
 * one at once; a rank says it is done reading (DONE) and returns once every other rank has
 * said so (they read its send buffer until then). Not in place: there a rank's buffer is
 * overwritten while the others still read from it.
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_SUPPORTS(gdc_coll_alltoall_cma_supports)
{
    return gdc_coll_cma_supports(args) && !args->in_place;
}

GDC_COLL_BUILDER(gdc_coll_alltoall_cma)
{
    size_t              blk = args->count, me = (size_t)args->rank;
    gdc_coll_own_copy_t own = {gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * me, blk),
                               gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * me, blk)};

    gdc_coll_cma_publish(sched);
    gdc_coll_cma_read_blocks(sched, blk * args->dsize * me, &own);
    return GDC_SUCCESS;
}
