/*
 * Recursive-doubling allgather(v) over a group: in round k a participant swaps everything
 * it has with the participant 2^k away. Non-powers of two fold in (an extra hands its block
 * to its partner first and gets everything back at the end). Participants hold consecutive
 * group indices' blocks, so every exchange is one contiguous range of the vector, whatever
 * the block sizes.
 */
#include "phase/phase.h"

/* Blocks [lo, hi) of vec as one region. */
static gdc_coll_region_t blocks(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec, int lo, int hi)
{
    size_t first = gdc_coll_vec_block_offset(vec, lo);
    size_t end   = hi < vec->n ? gdc_coll_vec_block_offset(vec, hi) : vec->count;

    return gdc_coll_rgn(sched, vec->buf, vec->base + first, end - first);
}

static int both(gdc_coll_sched_t *sched, int a, int b)
{
    int deps[2] = {a, b};

    if (a < 0 || b < 0) {
        return a < 0 ? b : a;
    }
    return gdc_coll_join(sched, deps, 2);
}

int gdc_coll_rd_allgatherv(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, const gdc_coll_vec_t *vec,
                           const gdc_coll_region_t *own, uint32_t slot_base, int dep)
{
    int               n = group->size, me = group->me, rounds = 0, have = dep;
    gdc_coll_fold_t   fold = gdc_coll_fold(n, me);
    gdc_coll_region_t mine = own != NULL ? *own : blocks(sched, vec, me, me + 1), all = blocks(sched, vec, 0, n);
    uint32_t          result_slot;

    while ((1 << rounds) < fold.p) {
        rounds++;
    }
    result_slot = slot_base + (uint32_t)rounds + 1;
    if (fold.newrank < 0) {
        int sent = mine.length ? gdc_coll_send(sched, gdc_coll_group_rank(group, me + 1), slot_base, mine, dep) : dep;
        return gdc_coll_recv(sched, gdc_coll_group_rank(group, me + 1), result_slot, all, sent);
    }
    if (me < 2 * fold.rem) {
        gdc_coll_region_t theirs = blocks(sched, vec, me - 1, me);
        if (theirs.length) {
            have = both(sched, have, gdc_coll_recv(sched, gdc_coll_group_rank(group, me - 1), slot_base, theirs, -1));
        }
    }
    for (int k = 0; k < rounds; k++) {
        int               d       = 1 << k;
        int               lo      = fold.newrank & ~(d - 1), partner_lo = (fold.newrank ^ d) & ~(d - 1);
        int               peer    = gdc_coll_group_rank(group, gdc_coll_fold_real(&fold, fold.newrank ^ d));
        gdc_coll_region_t out     = blocks(sched, vec, gdc_coll_fold_first(&fold, lo), gdc_coll_fold_first(&fold, lo + d));
        gdc_coll_region_t in      = blocks(sched, vec, gdc_coll_fold_first(&fold, partner_lo),
                                           gdc_coll_fold_first(&fold, partner_lo + d));
        int               got     = -1;

        if (out.length) {
            gdc_coll_send(sched, peer, slot_base + (uint32_t)k + 1, out, have);
        }
        if (in.length) {
            got = gdc_coll_recv(sched, peer, slot_base + (uint32_t)k + 1, in, -1);
        }
        have = both(sched, have, got);
    }
    if (me < 2 * fold.rem) {
        gdc_coll_send(sched, gdc_coll_group_rank(group, me - 1), result_slot, all, have);
    }
    return have;
}
