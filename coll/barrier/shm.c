/*
 * barrier shm: raise my counter, wait for everyone's: one cache-line hop per peer.
 *
 * Where the ranks outnumber the node's cores, rank 0 gathers and releases instead: it waits
 * for everyone's counter, then raises its own, which the others wait for. A barrier's
 * ranks leave it when each next gets a core; this order lets rank 0 out first, so that a
 * call rooted there that follows (a bcast, a scatter) has its data out before its readers
 * look, instead of readers spending their slices waiting for a root that is itself still
 * waiting for a core to leave the barrier. On 4 ranks of 2 cores the bcast after it takes
 * 0.06 to 0.10 of its time, the barrier 1.6 to 2 times as long (0.80 and 0.99 of ob1's in
 * two runs), and the two together as long as before (bench/RESULTS.md 2026-12-05).
 */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_barrier_shm)
{
    if (!gdc_coll_oversubscribed(args)) {
        int arrived = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);

        gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, arrived);
    } else if (args->rank == 0) {
        gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1));
    } else {
        gdc_coll_wait(sched, 0, GDC_COLL_SHM_COPIED, 1, gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1));
    }
    return GDC_SUCCESS;
}

/* The fast path: the same, with the call's one counter value. */
GDC_COLL_RUN_BLOCKING(gdc_coll_barrier_shm_run_blocking)
{
    if (!gdc_coll_oversubscribed(args)) {
        gdc_coll_fast_publish(fast, 0);
        *status = gdc_coll_fast_wait_counter(fast, GDC_COLL_SHM_COPIED, fast->base + 1, -1);
    } else if (fast->shm->local_index == 0) {
        if ((*status = gdc_coll_fast_wait_counter(fast, GDC_COLL_SHM_COPIED, fast->base + 1, -1)) == GDC_SUCCESS) {
            gdc_coll_fast_publish(fast, 0);
        }
    } else {
        gdc_coll_fast_publish(fast, 0);
        *status = gdc_coll_fast_wait_counter(fast, GDC_COLL_SHM_COPIED, fast->base + 1, 0);
    }
    return 1;
}
