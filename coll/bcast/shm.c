/*
 * bcast shm: the root copies the message chunk by chunk into its shared memory, every other
 * rank copies each chunk out as soon as the root's counter says it is there. Two copies of
 * the data in all, the readers in parallel. The chunks go through the root's ring, one a
 * slot (gdc_coll_shm_chunks).
 */
#include "algos.h"

#include "engine/fast.h"
#include "phase/shm.h"

/* A call of one ring slot from GDC_COLL_BCAST_PIECES_FROM bytes on goes in pieces on the
 * fast path: the root raises its progress word (rt_shm.h) after each piece but the last,
 * which it publishes with the call, and the readers copy each piece out while the root
 * copies the next one in. Such a call's data starts on a line of its own, apart from the
 * stamp's, as every call's of more than a stamp's line holds (gdc_coll_shm_ring_data_at,
 * which gdc_coll_shm_chunks follows too). A rank that runs the schedule publishes the
 * whole at once, at the same place, which the readers' waits for pieces see too. Where the
 * ranks outnumber the cores, one piece: each wait may cost a context switch. */
#define GDC_COLL_BCAST_PIECES_FROM ((size_t)4096)
#define GDC_COLL_BCAST_PIECES_MAX  4
_Static_assert(GDC_COLL_BCAST_PIECES_FROM > GDC_RT_SHM_RING_ALIGNED, "pieces start on a line of their own");

/* Bytes of a piece; the whole message where it goes at once. A piece of about 4 KiB, 2 to
 * 4 of them: on 2 ranks (bench/RESULTS.md 2026-12-06), 4 KiB in 2 pieces took 0.75 of the
 * whole's time, 8 KiB in 2 0.85 (in 4: 0.91), 16 KiB to 64 KiB in 4 0.86 to 0.90. */
static size_t piece_bytes(const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize, pieces = bytes / GDC_COLL_BCAST_PIECES_FROM;

    if (pieces == 0 || gdc_coll_oversubscribed(args)) {
        return bytes;
    }
    pieces = pieces < 2 ? 2 : pieces > GDC_COLL_BCAST_PIECES_MAX ? GDC_COLL_BCAST_PIECES_MAX : pieces;
    return ((bytes + pieces - 1) / pieces + 63) & ~(size_t)63; /* whole lines */
}

GDC_COLL_BUILDER(gdc_coll_bcast_shm)
{
    int                   me = args->rank, root = args->root;
    gdc_coll_shm_chunks_t c  = gdc_coll_shm_chunks(args, 1);
    int                   published = -1; /* the root's signal of the chunk before */

    for (size_t j = 0; j < c.count; j++) {
        size_t            first = j * c.elems, len = args->count - first < c.elems ? args->count - first : c.elems;
        uint32_t          now  = (uint32_t)j + 1;
        gdc_coll_region_t data = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, first, len);

        if (me == root) {
            int readers = gdc_coll_shm_chunk_free(sched, &c, j, -1);
            int copied  = gdc_coll_copy(sched, gdc_coll_shm_chunk_place(&c, me, me, j, 0, data.length), data, readers);
            /* the readers hear of chunk j-1 before chunk j is copied: the engine runs ready
             * steps in order, and the copy of chunk 1, ready from the start, came before
             * the signal of chunk 0, so two ranks took turns instead of copying at once */
            gdc_coll_after(sched, copied, published);
            published = gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, copied);
        } else {
            int there = gdc_coll_wait(sched, root, GDC_COLL_SHM_COPIED, now, -1);
            int done  = gdc_coll_copy(sched, data, gdc_coll_shm_chunk_place(&c, root, me, j, 0, data.length), there);
            gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, done);
        }
    }
    return GDC_SUCCESS;
}

/* The fast path, for a message of one ring slot: the root publishes once its readers are
 * done with the call a ring before, the others copy it out (in pieces, above). */
GDC_COLL_RUN_BLOCKING(gdc_coll_bcast_shm_run_blocking)
{
    int    me    = fast->shm->local_index, root = args->root;
    size_t bytes = args->count * args->dsize, piece, start, at = 0;
    char  *place, *user = bufs->output;

    if (!gdc_coll_shm_in_ring(args)) {
        return 0;
    }
    piece = piece_bytes(args);
    start = gdc_coll_shm_ring_data_at(bytes);
    place = (char *)gdc_coll_fast_place(fast, root, 1) + start;
    if (me == root && (*status = gdc_coll_fast_wait_free(fast, 1)) != GDC_SUCCESS) {
        return 1;
    }
    for (unsigned j = 1; at + piece < bytes; at += piece, j++) {
        if (me == root) {
            gdc_coll_copy_host(place + at, user + at, piece);
            gdc_coll_fast_publish_pieces(fast, j);
        } else if ((*status = gdc_coll_fast_wait_pieces(fast, root, j)) == GDC_SUCCESS) {
            gdc_coll_copy_host(user + at, place + at, piece);
        } else {
            return 1;
        }
    }
    if (me == root) {
        gdc_coll_copy_host(place + at, user + at, bytes - at);
        gdc_coll_fast_publish(fast, 1);
        *status = GDC_SUCCESS;
    } else if ((*status = gdc_coll_fast_wait_published(fast, root, 1, start + at, bytes - at)) == GDC_SUCCESS) {
        gdc_coll_copy_host(user + at, place + at, bytes - at);
    }
    return 1;
}
