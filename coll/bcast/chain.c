/* bcast chain: the message flows root -> root+1 -> ... in pipelined chunks, so every link
 * carries the whole message once at the same time: bandwidth-optimal for large messages,
 * latency n-1 chunk hops. */
#include "algos.h"

#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_bcast_chain)
{
    int n      = args->size;
    int v      = gdc_coll_vrank(args->rank, args->root, n);
    int chunks = gdc_coll_chunks(args, gdc_coll_flat_across(args), args->count * args->dsize, 1);
    int next   = v + 1 < n ? gdc_coll_real_rank(v + 1, args->root, n) : -1;
    int prev   = v > 0 ? gdc_coll_real_rank(v - 1, args->root, n) : -1;

    for (int c = 0; c < chunks; c++) {
        gdc_coll_region_t chunk = gdc_coll_rgn(sched, GDC_COLL_OUTPUT,
                                               gdc_coll_block_offset(args->count, chunks, c),
                                               gdc_coll_block_count(args->count, chunks, c));
        int have = -1;

        if (chunk.length == 0) {
            continue;
        }
        if (prev >= 0) {
            have = gdc_coll_recv(sched, prev, (uint32_t)c, chunk, -1);
        }
        if (next >= 0) {
            gdc_coll_send(sched, next, (uint32_t)c, chunk, have);
        }
    }
    return GDC_SUCCESS;
}
