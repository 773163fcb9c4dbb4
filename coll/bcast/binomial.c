/* bcast binomial: the root's message goes down a binomial tree; ceil(log2 n) rounds of the
 * whole message. The choice for small messages. */
#include "algos.h"

#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_bcast_binomial)
{
    gdc_coll_group_t all = gdc_coll_group_all(args);

    gdc_coll_tree_bcast(sched, &all, 2, args->root, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count), 0,
                        -1, -1);
    return GDC_SUCCESS;
}
