/*
 * bcast scatter_allgather (van de Geijn): the root scatters the message in n blocks down a
 * binomial tree (vrank v gets block v), then a pipelined ring allgather completes it
 * everywhere. About 2 count elements per link instead of count log2(n): large messages.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/ring.h"
#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_bcast_scatter_allgather)
{
    int               n      = args->size;
    int               v      = gdc_coll_vrank(args->rank, args->root, n);
    gdc_coll_blocks_t blocks = {GDC_COLL_OUTPUT, 0, args->count, n};
    gdc_coll_vec_t    out    = {GDC_COLL_OUTPUT, 0, args->count, n, NULL};
    int               chunks = gdc_coll_ring_chunks(sched, &out, n - 1, gdc_coll_flat_across(args));
    int              *deps   = malloc((size_t)n * (size_t)chunks * sizeof(int));
    int               have, joined;
    gdc_coll_group_t  all    = gdc_coll_group_all(args);

    if (deps == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    have = gdc_coll_binomial_scatter(sched, &all, args->root, gdc_coll_blocks_range, &blocks, 0, -1, -1);
    /* The ring rewrites blocks this rank forwarded in the scatter (with the same data): it
     * waits until the scatter is done with them. */
    joined = gdc_coll_join(sched, NULL, 0);
    for (uint32_t s = 0; s < sched->num_steps; s++) {
        if (sched->steps[s].kind == GDC_COLL_STEP_SEND) {
            gdc_coll_after(sched, joined, (int)s);
        }
    }
    gdc_coll_after(sched, joined, have);
    for (int i = 0; i < n * chunks; i++) {
        deps[i] = joined;
    }
    {
        gdc_coll_ring_ag_t ag = {
            .group = all, .owned = v, .chunks = chunks, .slot_base = 1, .out = out, .first_buf = GDC_COLL_OUTPUT,
            .first_base = gdc_coll_block_offset(args->count, n, v), .first_dep = deps, .recv_dep = deps,
        };
        gdc_coll_ring_allgather(sched, &ag);
    }
    free(deps);
    return GDC_SUCCESS;
}
