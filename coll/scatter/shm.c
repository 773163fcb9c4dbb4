/*
 * scatter shm: the root copies every other rank's block, chunk by chunk, into its shared
 * memory (a chunk a ring slot, a part per rank, or the data area: gdc_coll_shm_chunks) and
 * raises a counter; each rank copies its own out as soon as it is there. Two copies of the
 * data, the readers' in parallel with each other and with the root's next chunk.
 */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_shm_chunks_t *c)
{
    int    n = args->size, me = args->rank, published = -1;
    size_t blk = args->count;

    for (size_t j = 0; j < c->count; j++) {
        size_t   first = j * c->elems, len = blk - first < c->elems ? blk - first : c->elems;
        uint32_t now     = (uint32_t)j + 1;
        int      readers = gdc_coll_shm_chunk_free(sched, c, j, -1), copied = -1;

        for (int p = 0; p < n; p++) {
            if (p != me) {
                copied = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(c, me, me, j, (size_t)p, len * args->dsize),
                                       gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)p + first, len),
                                       readers);
                /* the readers hear of chunk j-1 before chunk j is copied in (see bcast shm);
                 * the copies of one chunk follow one another */
                gdc_coll_after(sched, copied, published);
                published = copied;
            }
        }
        published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
    }
    if (!args->in_place) {
        /* my own block once the others' are out: they copy theirs meanwhile */
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)me, blk), published);
    }
}

static void build_reader(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_shm_chunks_t *c)
{
    int    root = args->root, me = args->rank, done = -1;
    size_t blk = args->count;

    for (size_t j = 0; j < c->count; j++) {
        size_t   first = j * c->elems, len = blk - first < c->elems ? blk - first : c->elems;
        uint32_t now   = (uint32_t)j + 1;
        int      there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);

        done = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len),
                             gdc_coll_shm_chunk_place(c, root, me, j, (size_t)me, len * args->dsize), there);
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
}

GDC_COLL_BUILDER(gdc_coll_scatter_shm)
{
    gdc_coll_shm_chunks_t c = gdc_coll_shm_chunks(args, (size_t)args->size);

    if (args->rank == args->root) {
        build_root(sched, args, &c);
    } else {
        build_reader(sched, args, &c);
    }
    return GDC_SUCCESS;
}

/* The fast path, for blocks of one chunk (in the call's ring slot, or in the data area):
 * the root publishes every other rank's block at its room, each copies its own out. */
GDC_COLL_RUN_BLOCKING(gdc_coll_scatter_shm_run_blocking)
{
    gdc_coll_shm_chunks_t c     = gdc_coll_shm_chunks(args, (size_t)args->size);
    int                   me    = fast->shm->local_index, root = args->root;
    size_t                bytes = args->count * args->dsize;
    int                   ring  = c.one_slot;

    if (!c.one_slot && (c.ring || c.count != 1)) {
        return 0;
    }
    if (me != root) {
        if ((*status = gdc_coll_fast_wait_published(fast, root, ring, c.at + c.room * (size_t)me, bytes)) ==
            GDC_SUCCESS) {
            gdc_coll_copy_host(bufs->output,
                               (const char *)gdc_coll_fast_place(fast, root, ring) + c.at + c.room * (size_t)me, bytes);
        }
        return 1;
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    for (int p = 0; p < fast->shm->local_size; p++) {
        if (p != me) {
            gdc_coll_copy_host((char *)gdc_coll_fast_place(fast, me, ring) + c.at + c.room * (size_t)p,
                               (const char *)bufs->input + bytes * (size_t)p, bytes);
        }
    }
    gdc_coll_fast_publish(fast, ring);
    if (!args->in_place) {
        gdc_coll_copy_host(bufs->output, (const char *)bufs->input + bytes * (size_t)me, bytes);
    }
    return 1;
}
