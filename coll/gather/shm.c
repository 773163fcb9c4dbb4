/*
 * gather shm: every other rank copies its block chunk by chunk into its ring (a chunk a
 * slot: gdc_coll_shm_chunks) and raises a counter; the root copies each chunk out as soon
 * as it is there. Two copies of the data, the senders' in parallel with each other and with
 * the root's: where the binomial tree sends subtrees through UCX, a node's gather needs no
 * message at all.
 */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

/* Where my chunk j may be written: its slot a ring before was this call's (j >= ring), read
 * by the root alone, which says so with DONE; or an earlier call's, which anyone may have
 * read (and every other sender raises DONE only when its call ends). */
static int place_free(gdc_coll_sched_t *sched, const gdc_coll_shm_chunks_t *c, size_t j)
{
    if (j < GDC_RT_SHM_RING_SLOTS) {
        return gdc_coll_shm_chunk_free(sched, c, j, -1);
    }
    return gdc_coll_wait_back(sched, sched->args.root, GDC_COLL_SHM_DONE, (uint32_t)j + 1, GDC_RT_SHM_RING_SLOTS, -1);
}

static void build_sender(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_shm_chunks_t *c)
{
    int               me = args->rank, published = -1;
    size_t            blk = args->count;
    gdc_coll_region_t mine = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);

    for (size_t j = 0; j < c->count; j++) {
        size_t            first = j * c->elems, len = blk - first < c->elems ? blk - first : c->elems;
        uint32_t          now  = (uint32_t)j + 1;
        gdc_coll_region_t part = mine;
        int               copied;

        part.offset += first * args->dsize;
        part.length = len * args->dsize;
        copied = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(c, me, me, j, 0, part.length), part,
                               place_free(sched, c, j));
        /* the root hears of chunk j-1 before chunk j is copied in (see bcast shm) */
        gdc_coll_after(sched, copied, published);
        published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
    }
}

static void build_root(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_shm_chunks_t *c)
{
    int    n = args->size, me = args->rank, done = -1;
    size_t blk = args->count;

    if (!args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)me, blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk), -1);
    }
    for (size_t j = 0; j < c->count; j++) {
        size_t   first = j * c->elems, len = blk - first < c->elems ? blk - first : c->elems;
        uint32_t now   = (uint32_t)j + 1;

        /* chunk by chunk, so that the senders may refill their places soonest */
        for (int p = 0; p < n; p++) {
            int there;
            if (p == me) {
                continue;
            }
            there = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, now, done);
            done  = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p + first, len),
                                  gdc_coll_shm_chunk_place(c, p, me, j, 0, len * args->dsize), there);
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
    }
}

GDC_COLL_BUILDER(gdc_coll_gather_shm)
{
    gdc_coll_shm_chunks_t c = gdc_coll_shm_chunks(args, 1);

    if (args->rank == args->root) {
        build_root(sched, args, &c);
    } else {
        build_sender(sched, args, &c);
    }
    return GDC_SUCCESS;
}

static size_t slot_start(const gdc_coll_args_t *args, int p)
{
    return gdc_coll_shm_place_data_at(args, 1);
}

static size_t block_of(const gdc_coll_args_t *args, int p)
{
    return args->count * args->dsize * (size_t)p;
}

/* The fast path, for blocks of one ring slot: the others publish theirs, the root copies
 * them out. */
GDC_COLL_RUN_BLOCKING(gdc_coll_gather_shm_run_blocking)
{
    int    me    = fast->shm->local_index;
    size_t bytes = args->count * args->dsize;
    int    ring  = 1;

    if (!gdc_coll_shm_in_ring(args)) {
        return 0;
    }
    if (me != args->root) {
        if ((*status = gdc_coll_fast_wait_free(fast, ring)) == GDC_SUCCESS) {
            gdc_coll_copy_host((char *)gdc_coll_fast_place(fast, me, ring) + slot_start(args, me), bufs->input, bytes);
            gdc_coll_fast_publish(fast, ring);
        }
        return 1;
    }
    if (!args->in_place) {
        gdc_coll_copy_host((char *)bufs->output + block_of(args, me), bufs->input, bytes);
    }
    *status = gdc_coll_fast_collect(fast, args, bufs->output, ring, slot_start, block_of);
    return 1;
}
