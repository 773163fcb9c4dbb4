/*
 * allgather recursive_doubling: in round k a participant swaps everything it has with the
 * participant 2^k away; log2(p) rounds. Non-powers of two fold in: an extra rank gives its
 * block to its partner first and receives the whole result at the end. Participants hold
 * consecutive ranks' blocks, so every exchange is one contiguous range.
 */
#include "coll_algo.h"

GDC_COLL_BUILDER(gdc_coll_allgather_recursive_doubling)
{
    gdc_coll_fold_t   fold  = gdc_coll_fold(args->size, args->rank);
    size_t            blk   = args->count;
    gdc_coll_region_t mine  = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk)
                                             : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    gdc_coll_region_t all   = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk * (size_t)args->size);
    int               rounds = 0, have = -1;

    while ((1 << rounds) < fold.p) {
        rounds++;
    }
    if (fold.newrank < 0) {
        int sent = gdc_coll_send(sched, args->rank + 1, 0, mine, -1);
        gdc_coll_recv(sched, args->rank + 1, (uint32_t)rounds + 1, all, sent);
        return GDC_SUCCESS;
    }
    if (!args->in_place) {
        have = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk), mine, -1);
    }
    if (args->rank < 2 * fold.rem) {
        int got    = gdc_coll_recv(sched, args->rank - 1, 0,
                                   gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)(args->rank - 1), blk), -1);
        int both[2] = {have, got};
        have        = gdc_coll_join(sched, both, 2);
    }
    for (int k = 0; k < rounds; k++) {
        int d       = 1 << k;
        int lo      = fold.newrank & ~(d - 1), partner_lo = (fold.newrank ^ d) & ~(d - 1);
        int partner = gdc_coll_fold_real(&fold, fold.newrank ^ d);
        int first   = gdc_coll_fold_first(&fold, lo), end = gdc_coll_fold_first(&fold, lo + d);
        int pfirst  = gdc_coll_fold_first(&fold, partner_lo), pend = gdc_coll_fold_first(&fold, partner_lo + d);
        int got;

        gdc_coll_send(sched, partner, (uint32_t)k + 1,
                      gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)first, blk * (size_t)(end - first)), have);
        got = gdc_coll_recv(sched, partner, (uint32_t)k + 1,
                            gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)pfirst, blk * (size_t)(pend - pfirst)),
                            -1);
        {
            int both[2] = {have, got};
            have        = gdc_coll_join(sched, both, 2);
        }
    }
    if (args->rank < 2 * fold.rem) {
        gdc_coll_send(sched, args->rank - 1, (uint32_t)rounds + 1, all, have);
    }
    return GDC_SUCCESS;
}
