/*
 * allreduce knomial: k-nomial tree reduce to rank 0, then k-nomial tree broadcast from it
 * (k = GDC_TREE_RADIX). 2 ceil(log_k n) message latencies of the whole vector: for small
 * messages on large communicators, where it beats recursive doubling's log2(n) rounds.
 */
#include "algos.h"

#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_knomial)
{
    gdc_coll_region_t      whole = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    gdc_coll_group_t       all   = gdc_coll_group_all(args);
    gdc_coll_tree_reduce_t tr    = {
        .group = all, .radix = args->config->tree_radix, .root = 0, .slot = 0,
        .input = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), .acc = whole,
        .scratch_base = 0, .avg = args->op == GDC_AVG,
    };

    gdc_coll_scratch(sched, gdc_coll_tree_reduce(sched, &tr));
    /* a non-root receives the result where it accumulated (and sent) its partial one */
    gdc_coll_tree_bcast(sched, &all, tr.radix, 0, whole, 1, tr.done, tr.send);
    return GDC_SUCCESS;
}
