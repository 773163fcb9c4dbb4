/*
 * allgather bruck: blocks are kept rotated (position i holds rank r+i's block); in round k
 * a rank sends the first min(2^k, n - have) blocks it holds to rank r - 2^k and receives as
 * many from r + 2^k. ceil(log2 n) rounds for any n, then one rotation into place: the
 * latency choice for small messages on non-powers of two.
 */
#include "algos.h"

#include "builder.h"

GDC_COLL_BUILDER(gdc_coll_allgather_bruck)
{
    int               n    = args->size, r = args->rank, have = 1;
    size_t            blk  = args->count;
    gdc_coll_region_t mine = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)r, blk)
                                            : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    int               recvs[32], num_recvs = 0, start;
    uint32_t          slot = 0;

    gdc_coll_scratch(sched, (size_t)n * blk * args->dsize);
    start = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk), mine, -1);
    recvs[num_recvs++] = start;
    for (int dist = 1; dist < n; dist *= 2, slot++) {
        int count = dist < n - have ? dist : n - have;
        int to    = (r - dist + n) % n, from = (r + dist) % n;
        /* what this round sends arrived in earlier rounds */
        int ready = gdc_coll_join(sched, recvs, num_recvs);

        gdc_coll_send(sched, to, slot, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk * (size_t)count), ready);
        recvs[num_recvs++] = gdc_coll_recv(sched, from, slot,
                                           gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)have, blk * (size_t)count), -1);
        have += count;
    }
    {
        int all = gdc_coll_join(sched, recvs, num_recvs);
        /* position i holds rank (r + i) % n: two contiguous pieces */
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)r, blk * (size_t)(n - r)),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk * (size_t)(n - r)), all);
        if (r > 0) {
            gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk * (size_t)r),
                          gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)(n - r), blk * (size_t)r), all);
        }
    }
    return GDC_SUCCESS;
}
