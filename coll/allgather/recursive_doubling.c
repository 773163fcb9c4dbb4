/*
 * allgather recursive_doubling: in round k a participant swaps everything it has with the
 * participant 2^k away; log2(p) rounds. Non-powers of two fold in: an extra rank gives its
 * block to its partner first and receives the whole result at the end. Participants hold
 * consecutive ranks' blocks, so every exchange is one contiguous range. The phase itself
 * (over any group, blocks of any sizes) is in phase/allgather.c.
 */
#include "algos.h"

#include "phase/phase.h"

GDC_COLL_BUILDER(gdc_coll_allgather_recursive_doubling)
{
    gdc_coll_fold_t   fold = gdc_coll_fold(args->size, args->rank);
    size_t            blk  = args->count;
    gdc_coll_region_t mine = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk)
                                            : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    gdc_coll_vec_t    all  = {GDC_COLL_OUTPUT, 0, blk * (size_t)args->size, args->size, NULL};
    gdc_coll_group_t  everyone = gdc_coll_group_all(args);
    int               have = -1;

    /* a participant's own block goes in place first; an extra's leaves from where it is */
    if (fold.newrank >= 0 && !args->in_place) {
        have = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk), mine, -1);
    }
    gdc_coll_rd_allgatherv(sched, &everyone, &all, &mine, 0, have);
    return GDC_SUCCESS;
}
