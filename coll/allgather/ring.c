/* allgather ring: every block travels n-1 hops around the ring, pipelined in chunks;
 * bandwidth-optimal. */
#include "algos.h"

#include "gdc_rt.h"
#include "phase/ring.h"

GDC_COLL_BUILDER(gdc_coll_allgather_ring)
{
    int                n      = args->size;
    gdc_coll_vec_t     out    = {GDC_COLL_OUTPUT, 0, args->count * (size_t)n, n, NULL};
    int                chunks = gdc_coll_ring_chunks(sched, &out, n - 1, gdc_coll_flat_across(args));
    gdc_coll_ring_ag_t ag     = {
        .group = gdc_coll_group_all(args), .owned = args->rank, .chunks = chunks, .slot_base = 0, .out = out,
        .first_buf  = args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT,
        .first_base = args->in_place ? args->count * (size_t)args->rank : 0,
    };

    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, args->count * (size_t)args->rank, args->count),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), -1);
    }
    gdc_coll_ring_allgather(sched, &ag);
    return GDC_SUCCESS;
}
