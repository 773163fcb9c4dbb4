/* barrier dissemination: in round k rank r signals r+2^k and waits for r-2^k; after
 * ceil(log2 n) rounds every rank has heard, directly or not, from every other. The phase
 * (over any group) is in phase/barrier.c. */
#include "algos.h"

#include "phase/phase.h"

GDC_COLL_BUILDER(gdc_coll_barrier_dissemination)
{
    gdc_coll_group_t all = gdc_coll_group_all(args);

    gdc_coll_dissemination(sched, &all, 0, -1);
    return GDC_SUCCESS;
}
