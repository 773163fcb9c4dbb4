/* barrier shm: raise my counter, wait for everyone's: one cache-line hop per peer. */
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_barrier_shm)
{
    int arrived = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);

    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, arrived);
    return GDC_SUCCESS;
}
