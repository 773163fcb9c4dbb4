/*
 * allgather cma: every rank reads each other rank's block straight from that rank's input
 * by cross-memory attach (process_vm_readv): one copy per block, where allgather shm makes
 * one into the owner's segment and one out per reader. Each publishes its input and raises
 * COPIED; reads go round from the next rank on, so that not every rank reads from the same
 * one at once; a rank says it is done reading (DONE) and returns once every other rank has
 * said so (they read its input until then). In place too: a rank's input is its own block
 * of its output, which no step of its own writes.
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_allgather_cma)
{
    size_t              blk = args->count;
    gdc_coll_own_copy_t own = {gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk),
                               gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk)};

    gdc_coll_cma_publish(sched);
    gdc_coll_cma_read_blocks(sched, 0, args->in_place ? NULL : &own);
    return GDC_SUCCESS;
}
