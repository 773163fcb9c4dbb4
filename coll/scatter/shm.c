/*
 * scatter shm: the root copies every other rank's block, chunk by chunk, into its shared
 * memory (double buffered, a room per rank) and raises a counter; each rank copies its
 * own out as soon as it is there. Two copies of the data, the readers' in parallel with
 * each other and with the root's next chunk.
 */
#include "algos.h"

#include <string.h>

#include "engine/fast.h"
#include "phase/shm.h"

/* A block's room in the root's place: a chunk, or in a ring slot the block itself. */
static size_t room(const gdc_coll_args_t *args, int ring)
{
    return ring ? args->count * args->dsize : gdc_coll_shm_chunk_elems(args, (size_t)args->size) * args->dsize;
}

static size_t chunk_elems(const gdc_coll_args_t *args, int ring)
{
    return ring && args->count > 0 ? args->count : gdc_coll_shm_chunk_elems(args, (size_t)args->size);
}

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, int ring)
{
    int    n = args->size, me = args->rank, published = -1;
    size_t blk = args->count, chunk = chunk_elems(args, ring), nchunks = (blk + chunk - 1) / chunk;

    for (size_t j = 0; j < nchunks; j++) {
        size_t   first = j * chunk, len = blk - first < chunk ? blk - first : chunk;
        size_t   slot  = ring ? 0 : (j % 2) * (size_t)n * room(args, ring);
        uint32_t now = (uint32_t)j + 1, prior = j >= 2 ? (uint32_t)j - 1 : 0;
        int      readers = gdc_coll_shm_wait_free(sched, ring, prior, -1), copied = -1;

        for (int p = 0; p < n; p++) {
            if (p != me) {
                copied = gdc_coll_copy(sched,
                                       gdc_coll_shm_place(me, me, ring, slot + (size_t)p * room(args, ring),
                                                          len * args->dsize),
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

static void build_reader(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, int ring)
{
    int    root = args->root, me = args->rank, done = -1;
    size_t blk = args->count, chunk = chunk_elems(args, ring), nchunks = (blk + chunk - 1) / chunk;

    for (size_t j = 0; j < nchunks; j++) {
        size_t   first = j * chunk, len = blk - first < chunk ? blk - first : chunk;
        size_t   slot  = ring ? 0 : (j % 2) * (size_t)args->size * room(args, ring);
        uint32_t now   = (uint32_t)j + 1;
        int      there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);

        done = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len),
                             gdc_coll_shm_place(root, me, ring, slot + (size_t)me * room(args, ring), len * args->dsize),
                             there);
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
}

GDC_COLL_BUILDER(gdc_coll_scatter_shm)
{
    if (args->rank == args->root) {
        build_root(sched, args, gdc_coll_shm_in_ring(args));
    } else {
        build_reader(sched, args, gdc_coll_shm_in_ring(args));
    }
    return GDC_SUCCESS;
}

/* The fast path, for blocks of one chunk: the root publishes every other rank's block at
 * its room, each copies its own out. */
GDC_COLL_RUN_BLOCKING(gdc_coll_scatter_shm_run_blocking)
{
    int    me    = fast->shm->local_index, root = args->root;
    size_t bytes = args->count * args->dsize;
    int    ring  = gdc_coll_shm_in_ring(args);

    if (!ring && args->count > gdc_coll_shm_chunk_elems(args, (size_t)args->size)) {
        return 0;
    }
    if (me != root) {
        if ((*status = gdc_coll_fast_wait_published(fast, root, ring)) == GDC_SUCCESS) {
            memcpy(bufs->output, (const char *)gdc_coll_fast_place(fast, root, ring) + room(args, ring) * (size_t)me,
                   bytes);
        }
        return 1;
    }
    if ((*status = gdc_coll_fast_wait_free(fast, ring)) != GDC_SUCCESS) {
        return 1;
    }
    for (int p = 0; p < fast->shm->local_size; p++) {
        if (p != me) {
            memcpy((char *)gdc_coll_fast_place(fast, me, ring) + room(args, ring) * (size_t)p,
                   (const char *)bufs->input + bytes * (size_t)p, bytes);
        }
    }
    gdc_coll_fast_publish(fast, ring);
    if (!args->in_place) {
        memcpy(bufs->output, (const char *)bufs->input + bytes * (size_t)me, bytes);
    }
    return 1;
}
