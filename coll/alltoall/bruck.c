/*
 * alltoall bruck: rotate so that position i holds the block for rank r+i; in round k send
 * every block whose position has bit k set to rank r+2^k (packed into one message) and put
 * what arrives from r-2^k at the same positions; after ceil(log2 n) rounds position i holds
 * the block from rank r-i, which one more pass puts in place. ceil(log2 n) messages of
 * about n/2 blocks instead of n-1 messages: for small blocks.
 */
#include "algos.h"

#include <stdlib.h>

#include "builder.h"
#include "gdc_rt.h"

GDC_COLL_BUILDER(gdc_coll_alltoall_bruck)
{
    int      n = args->size, r = args->rank;
    size_t   blk   = args->count;
    size_t   nb    = (size_t)n * blk;             /* elements of the rotated vector */
    size_t   pack  = (size_t)(n / 2 + 1) * blk;   /* elements of one packed message, at most */
    int      ready, rounds = 0;
    uint32_t slot  = 0;
    int     *deps  = malloc(((size_t)n + 2) * sizeof(int));

    if (deps == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (int dist = 1; dist < n; dist *= 2) {
        rounds++;
    }
    /* scratch: rotated vector, one send pack, a receive pack per round */
    gdc_coll_scratch(sched, (nb + pack * (size_t)(1 + rounds)) * args->dsize);
    {
        /* position i <- input block (r + i) % n: two contiguous pieces */
        gdc_coll_buf_t src = args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT;
        deps[0] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk * (size_t)(n - r)),
                                gdc_coll_rgn(sched, src, blk * (size_t)r, blk * (size_t)(n - r)), -1);
        deps[1] = r > 0 ? gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)(n - r), blk * (size_t)r),
                                        gdc_coll_rgn(sched, src, 0, blk * (size_t)r), -1)
                        : -1;
        ready = gdc_coll_join(sched, deps, 2);
    }
    for (int dist = 1, k = 0; dist < n; dist *= 2, k++, slot++) {
        size_t send_pack = nb, recv_pack = nb + pack * (size_t)(1 + k);
        size_t packed    = 0;
        int    num       = 0, sent, got;

        for (int i = 1; i < n; i++) {
            if (i & dist) {
                deps[num++] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, send_pack + packed, blk),
                                            gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)i, blk), ready);
                packed += blk;
            }
        }
        /* the pack may be refilled only after the previous round's send is done with it */
        sent = gdc_coll_send(sched, (r + dist) % n, slot, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, send_pack, packed),
                             gdc_coll_join(sched, deps, num));
        got  = gdc_coll_recv(sched, (r - dist + n) % n, slot,
                             gdc_coll_rgn(sched, GDC_COLL_SCRATCH, recv_pack, packed), -1);
        {
            /* unpack after the packs of this round have read the old blocks */
            int both[2] = {got, sent};
            int start   = gdc_coll_join(sched, both, 2);
            size_t at   = 0;
            num         = 0;
            for (int i = 1; i < n; i++) {
                if (i & dist) {
                    deps[num++] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)i, blk),
                                                gdc_coll_rgn(sched, GDC_COLL_SCRATCH, recv_pack + at, blk), start);
                    at += blk;
                }
            }
            ready = gdc_coll_join(sched, deps, num);
        }
    }
    /* position i now holds the block from rank (r - i) % n */
    for (int i = 0; i < n; i++) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)((r - i + n) % n), blk),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)i, blk), ready);
    }
    free(deps);
    return GDC_SUCCESS;
}
