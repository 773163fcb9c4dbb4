/*
 * bcast cma: every other rank reads most of the vector straight from the root's buffer by
 * cross-memory attach (process_vm_readv), while the root writes the rest into each of them
 * (process_vm_writev): the last 1/n of the vector, so that on a node with a core per rank
 * the root's writes to the n-1 others take as long as each one's read. One copy of the
 * data per rank, made by two cores at once even on 2 ranks, where bcast shm makes two (a
 * copy into the root's segment and one out of it), pipelined.
 *
 * Host vectors under GDC_COLL_BCAST_CMA_SPLIT_FROM are read whole, the root writing none.
 *
 * Each rank publishes its buffer and raises COPIED; the root writes into a rank once that
 * rank has; a rank reads once the root has, and returns once the root has written into it
 * (the root's DONE); the root returns once every rank has read (their DONE).
 */
#include "algos.h"

#include "phase/shm.h"

#include <stdlib.h>

size_t gdc_coll_bcast_cma_root_part(const gdc_coll_args_t *args)
{
    if (!args->on_device && args->count * args->dsize < GDC_COLL_BCAST_CMA_SPLIT_FROM) {
        return 0;
    }
    return args->count / (size_t)args->size;
}

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    int    n = args->size, me = args->rank, wrote = -1;
    size_t part = gdc_coll_bcast_cma_root_part(args), first = args->count - part;
    int   *writes = malloc((size_t)n * sizeof(*writes));

    if (writes == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    gdc_coll_cma_publish(sched);
    /* one core makes them, one after another, each once its rank has published (a late
     * one holds up no other: gdc_coll_cma_read_blocks) */
    for (int i = 1; i < n && part > 0; i++) {
        int p = (me + i) % n;

        writes[i - 1] = gdc_coll_cma_copy(sched, p,
                                          gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, p, first * args->dsize,
                                                                 part * args->dsize),
                                          gdc_coll_rgn(sched, GDC_COLL_INPUT, first, part), -1);
    }
    if (part > 0) {
        wrote = gdc_coll_join(sched, writes, n - 1);
    }
    free(writes);
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, wrote);
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1); /* every rank has read */
}

static void build_reader(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    size_t part = gdc_coll_bcast_cma_root_part(args), first = args->count - part;
    int    read;

    gdc_coll_cma_publish(sched);
    read = gdc_coll_cma_copy(sched, args->root, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, first),
                             gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, args->root, 0, first * args->dsize), -1);
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, read);
    /* the call ends with its last step: here the root's writes into my buffer */
    gdc_coll_wait(sched, args->root, GDC_COLL_SHM_DONE, 1, -1);
}

GDC_COLL_BUILDER(gdc_coll_bcast_cma)
{
    if (args->rank == args->root) {
        build_root(sched, args);
    } else {
        build_reader(sched, args);
    }
    return GDC_SUCCESS;
}
