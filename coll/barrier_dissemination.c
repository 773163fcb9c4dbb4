/* barrier dissemination: in round k rank r signals r+2^k and waits for r-2^k; after
 * ceil(log2 n) rounds every rank has heard, directly or not, from every other. */
#include "coll_algo.h"

GDC_COLL_BUILDER(gdc_coll_barrier_dissemination)
{
    int               n = args->size, r = args->rank, heard = -1;
    gdc_coll_region_t none = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, 0);
    uint32_t          slot = 0;

    for (int dist = 1; dist < n; dist *= 2, slot++) {
        gdc_coll_send(sched, (r + dist) % n, slot, none, heard);
        heard = gdc_coll_recv(sched, (r - dist + n) % n, slot, none, heard);
    }
    return GDC_SUCCESS;
}
