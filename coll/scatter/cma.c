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

#include <stdlib.h>

#include "phase/shm.h"

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    int    n = args->size, me = args->rank, num = 0;
    size_t blk = args->count;
    int   *read = malloc((size_t)n * sizeof(int));

    if (read == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my buffer is published */
    if (!args->in_place) {
        read[num++] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk),
                                    gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)me, blk), -1);
    }
    for (int p = 0; p < n; p++) {
        if (p != me) {
            read[num++] = gdc_coll_wait(sched, p, GDC_COLL_SHM_DONE, 1, -1);
        }
    }
    gdc_coll_join(sched, read, num);
    free(read);
}

static void build_reader(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize;
    int    there = gdc_coll_wait(sched, args->root, GDC_COLL_SHM_COPIED, 1, -1);
    int    done  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count),
                                 gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, args->root, bytes * (size_t)args->rank,
                                                        bytes),
                                 there);

    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, done);
}

GDC_COLL_BUILDER(gdc_coll_scatter_cma)
{
    if (args->rank == args->root) {
        build_root(sched, args);
    } else {
        build_reader(sched, args);
    }
    return GDC_SUCCESS;
}
