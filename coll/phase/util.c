/* Ordering whole phases: every step of the next one after (a join of) the previous one. */
#include "phase/phase.h"

void gdc_coll_after_range(gdc_coll_sched_t *sched, uint32_t first, int dep)
{
    if (dep < 0) {
        return;
    }
    for (uint32_t s = first; s < sched->num_steps; s++) {
        if ((int)s != dep) {
            gdc_coll_after(sched, (int)s, dep);
        }
    }
}

int gdc_coll_join_range(gdc_coll_sched_t *sched, uint32_t first, int dep)
{
    uint32_t end = sched->num_steps;
    int      joined;

    if (first >= end) {
        return dep;
    }
    if (end - first == 1) {
        return (int)first;
    }
    joined = gdc_coll_join(sched, NULL, 0);
    for (uint32_t s = first; s < end; s++) {
        gdc_coll_after(sched, joined, (int)s);
    }
    return joined;
}
