/*
 * bcast cma: every other rank reads most of the vector straight from the root's buffer by
 * cross-memory attach (process_vm_readv), while the root writes the rest into each of them
 * (process_vm_writev): the last 1/n of the vector, so that on a node with a core per rank
 * the root's writes to the n-1 others take as long as each one's read. One copy of the
 * data per rank, made by two cores at once even on 2 ranks, where bcast shm makes two (a
 * copy into the root's segment and one out of it), pipelined.
 *
 * Each rank publishes its buffer and raises COPIED; the root writes into a rank once that
 * rank has; a rank reads once the root has, and returns once the root has written into it
 * (the root's DONE); the root returns once every rank has read (their DONE).
 */
#include "algos.h"

#include <stdlib.h>

#include "phase/shm.h"

/* The part of the vector the root writes into each rank: its last elements. */
static size_t root_part(const gdc_coll_args_t *args)
{
    return args->count / (size_t)args->size;
}

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    int    n = args->size, me = args->rank, num = 0, wrote = -1;
    size_t part = root_part(args), first = args->count - part;
    int   *read = malloc((size_t)(n + 1) * sizeof(int));

    if (read == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my buffer is published */
    for (int i = 1; i < n; i++) {
        int p     = (me + i) % n;
        int there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, 1, -1);

        int prior = wrote;

        wrote = gdc_coll_copy(sched,
                              gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, p, first * args->dsize, part * args->dsize),
                              gdc_coll_rgn(sched, GDC_COLL_INPUT, first, part), there);
        gdc_coll_after(sched, wrote, prior); /* one core makes them, one after another */
        read[num++] = gdc_coll_wait(sched, p, GDC_COLL_SHM_DONE, 1, -1);
    }
    read[num++] = gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, wrote);
    gdc_coll_join(sched, read, num);
    free(read);
}

static void build_reader(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    size_t part = root_part(args), first = args->count - part;
    int    there, done;

    gdc_coll_share_user(sched);
    gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1); /* my buffer is published */
    there = gdc_coll_wait(sched, args->root, GDC_COLL_SHM_COPIED, 1, -1);
    done  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, first),
                          gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, args->root, 0, first * args->dsize), there);
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, done);
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
