/*
 * scatter cma: one copy of each block, made by the rank it is for. The root publishes its
 * send buffer (raising a counter at once), every other rank reads its block straight from
 * it by cross-memory attach (process_vm_readv) and says so, the root copies its own and
 * returns once all have read. Against scatter shm: one copy instead of two, and one
 * hand-off between root and reader instead of one per chunk, which is what a rank pays
 * where ranks outnumber the cores; but the kernel's copy is slower than memcpy (bench/membw
 * --cma: 2.2 to 6.6 times as long on the development VM), which the model weighs.
 */
#include "algos.h"

#include "phase/shm.h"

GDC_COLL_BUILDER(gdc_coll_scatter_cma)
{
    size_t blk = args->count;

    if (args->rank != args->root) {
        int read = gdc_coll_cma_copy(sched, args->root, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk),
                                     gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, args->root,
                                                            blk * args->dsize * (size_t)args->rank, blk * args->dsize),
                                     -1);
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, read);
        return GDC_SUCCESS;
    }
    gdc_coll_cma_publish(sched);
    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)args->rank, blk), -1);
    }
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1); /* every reader has read */
    return GDC_SUCCESS;
}
