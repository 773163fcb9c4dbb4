/* reduce binomial: partial results climb a binomial tree to the root, ceil(log2 n) rounds
 * of the whole vector. Ranks that are not the root accumulate in scratch. */
#include "algos.h"

#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_reduce_binomial)
{
    size_t                 bytes   = args->count * args->dsize;
    int                    is_root = args->rank == args->root;
    gdc_coll_tree_reduce_t tr      = {
        .group = gdc_coll_group_all(args), .radix = 2, .root = args->root, .slot = 0, .input = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count),
        .acc   = is_root ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count)
                         : gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, bytes),
        .scratch_base = is_root ? 0 : bytes, .avg = args->op == GDC_AVG,
    };

    gdc_coll_scratch(sched, tr.scratch_base + gdc_coll_tree_reduce(sched, &tr));
    return GDC_SUCCESS;
}
