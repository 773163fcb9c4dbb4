/* barrier shm: raise my counter, wait for everyone's: one cache-line hop per peer. */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_barrier_shm)
{
    int arrived = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);

    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, arrived);
    return GDC_SUCCESS;
}

/* The fast path: raise, wait for everyone. */
GDC_COLL_RUN_BLOCKING(gdc_coll_barrier_shm_run_blocking)
{
    gdc_coll_fast_publish(fast, 0);
    *status = fast->wait(fast, GDC_COLL_SHM_COPIED, fast->base + 1, -1);
    return 1;
}
