/* What the blocking fast paths share (see fast.h). */
#include "engine/fast.h"

#include "kernels/reduce.h"
#include "phase/shm.h"

void *gdc_coll_fast_place(const gdc_coll_fast_t *fast, int owner, int ring)
{
    return ring ? gdc_rt_shm_ring_slot(fast->shm, owner, fast->base) : gdc_rt_shm_data(fast->shm, owner);
}

gdc_status_t gdc_coll_fast_wait_counter(const gdc_coll_fast_t *fast, int counter, uint64_t target, int peer)
{
    gdc_coll_fast_want_t want = {counter, target, peer, 1, 0, 0};

    return fast->wait(fast, &want);
}

gdc_status_t gdc_coll_fast_wait_free(const gdc_coll_fast_t *fast, int ring)
{
    if (!ring) {
        return gdc_coll_fast_wait_counter(fast, GDC_COLL_SHM_DONE, fast->base, -1);
    }
    if (fast->base + 1 <= GDC_RT_SHM_RING_SLOTS) {
        return GDC_SUCCESS; /* no call a ring before */
    }
    return gdc_coll_fast_wait_counter(fast, GDC_COLL_SHM_DONE, fast->base + 1 - GDC_RT_SHM_RING_SLOTS, -1);
}

gdc_status_t gdc_coll_fast_share_all(const gdc_coll_fast_t *fast, const void *input, size_t bytes, int ring,
                                     size_t base, size_t at, size_t reads, int mine_unread)
{
    gdc_status_t status = gdc_coll_fast_wait_free(fast, ring);
    char        *place  = (char *)gdc_coll_fast_place(fast, fast->shm->local_index, ring) + base;

    if (status != GDC_SUCCESS) {
        return status;
    }
    if (mine_unread) {
        gdc_coll_copy_host(place, input, at);
        gdc_coll_copy_host(place + at + reads, (const char *)input + at + reads, bytes - at - reads);
    } else {
        gdc_coll_copy_host(place, input, bytes);
    }
    gdc_coll_fast_publish(fast, ring);
    return gdc_coll_fast_wait_published(fast, -1, ring, base + at, reads);
}

/* Local rank p's operand of a reduction of places. */
static const void *operand(const gdc_coll_fast_t *fast, int p, int ring, size_t offset, const void *own)
{
    return own != NULL && p == fast->shm->local_index ? own
                                                      : (const char *)gdc_coll_fast_place(fast, p, ring) + offset;
}

void gdc_coll_fast_reduce_places(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                 size_t offset, const void *own)
{
    gdc_coll_reduce_host(output, operand(fast, 0, ring, offset, own), operand(fast, 1, ring, offset, own), args->count,
                         args->dtype, args->op);
    for (int p = 2; p < fast->shm->local_size; p++) {
        gdc_coll_reduce_host(output, output, operand(fast, p, ring, offset, own), args->count, args->dtype, args->op);
    }
    if (args->op == GDC_AVG) {
        gdc_coll_avg_finish_host(output, args->count, args->dtype, args->size);
    }
}

gdc_status_t gdc_coll_fast_collect(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                   gdc_coll_fast_offset_t from, gdc_coll_fast_offset_t to)
{
    const gdc_rt_shm_t *shm   = fast->shm;
    size_t              bytes = args->count * args->dsize;
    gdc_status_t        status;

    for (int p = 0; p < shm->local_size; p++) {
        if (p == shm->local_index) {
            continue;
        }
        if ((status = gdc_coll_fast_wait_published(fast, p, ring, from(args, p), bytes)) != GDC_SUCCESS) {
            return status;
        }
        gdc_coll_copy_host((char *)output + to(args, p), (char *)gdc_coll_fast_place(fast, p, ring) + from(args, p),
                           bytes);
    }
    return GDC_SUCCESS;
}

void gdc_coll_fast_publish(const gdc_coll_fast_t *fast, int ring)
{
    if (ring) {
        gdc_rt_shm_raise(gdc_rt_shm_ring_stamp(fast->shm, fast->shm->local_index, fast->base), fast->base + 1);
        return;
    }
    gdc_rt_shm_raise(gdc_rt_shm_counter(fast->shm, fast->shm->local_index, GDC_COLL_SHM_COPIED), fast->base + 1);
}

/* A small read's lines of a slot past the stamp's: fetched with the stamp on every poll,
 * they come over with it, not one transfer after it is seen (on 2 ranks, allreduce of 64
 * to 256 B took 0.71 to 0.77 us polling the stamp alone, 0.62 to 0.69 fetching its lines
 * along; alltoall 0.63 to 0.67 and 0.52 to 0.53: bench/RESULTS.md 2026-12-05 12:44). Not a
 * larger one's: lines polled while their writer fills them are taken from it again and
 * again (allreduce of 1 and 2 KiB took 1.1 to 1.2 and 1.4 to 1.5 us polling the stamp
 * alone, 1.3 to 1.4 and 2.0 to 2.1 fetching 1 KiB of them along). */
#define GDC_COLL_FAST_FETCH_ALONG 256

/* The lines (counted from the stamp's) that a reader of `bytes` at `at` of a slot's data
 * fetches along with the stamp, in [*first, *last]: none where *first > *last. */
static void lines_along(size_t at, size_t bytes, size_t *first, size_t *last)
{
    *first = (GDC_RT_SHM_RING_STAMP + at) / 64;
    *first = *first > 0 ? *first : 1; /* the stamp's own line comes with it */
    *last  = bytes > 0 && bytes <= GDC_COLL_FAST_FETCH_ALONG ? (GDC_RT_SHM_RING_STAMP + at + bytes - 1) / 64 : 0;
}

gdc_status_t gdc_coll_fast_wait_published(const gdc_coll_fast_t *fast, int peer, int ring, size_t at, size_t bytes)
{
    gdc_coll_fast_want_t want = {ring ? GDC_COLL_FAST_PUBLISHED : GDC_COLL_SHM_COPIED, fast->base + 1, peer, 1, 0, 0};

    lines_along(at, bytes, &want.first_line, &want.last_line);
    return fast->wait(fast, &want);
}

static uint64_t progress_value(uint64_t target, unsigned pieces)
{
    return (target << GDC_RT_SHM_PIECE_SHIFT) + pieces;
}

void gdc_coll_fast_publish_pieces(const gdc_coll_fast_t *fast, unsigned pieces)
{
    gdc_rt_shm_raise(gdc_rt_shm_progress(fast->shm, fast->shm->local_index), progress_value(fast->base + 1, pieces));
}

gdc_status_t gdc_coll_fast_wait_pieces(const gdc_coll_fast_t *fast, int peer, unsigned pieces)
{
    gdc_coll_fast_want_t want = {GDC_COLL_FAST_PIECES, fast->base + 1, peer, 1, 0, pieces};

    return fast->wait(fast, &want);
}

int gdc_coll_fast_reached(const gdc_coll_fast_t *fast, int peer, const gdc_coll_fast_want_t *want, unsigned polls)
{
    if (want->counter == GDC_COLL_FAST_PIECES) {
        /* the progress word's line alone, and the whole call's signs now and then: the
         * stamp's line is not pulled from the root on every poll */
        if (gdc_rt_shm_read(gdc_rt_shm_progress(fast->shm, peer)) >=
            progress_value(want->target, want->pieces)) {
            return 1;
        }
        if (polls % GDC_COLL_FAST_COPIED_POLLS != 0) {
            return 0;
        }
        return gdc_rt_shm_read(gdc_rt_shm_ring_stamp(fast->shm, peer, want->target - 1)) == want->target ||
               gdc_rt_shm_raised(fast->shm, peer, GDC_COLL_SHM_COPIED, want->target);
    }
    if (want->counter == GDC_COLL_FAST_PUBLISHED) {
        volatile uint64_t *stamp = gdc_rt_shm_ring_stamp(fast->shm, peer, want->target - 1);
        uint64_t           seen  = gdc_rt_shm_read(stamp);

        /* here, not in a function of its own: GCC takes one that only prefetches for one
         * without effects, and drops its calls */
        for (size_t line = want->first_line; line <= want->last_line; line++) {
            __builtin_prefetch((const char *)stamp + line * 64);
        }
        /* the stamp is the call's value exactly, or an earlier call's in this slot */
        if (seen == want->target) {
            return 1;
        }
        if (polls % GDC_COLL_FAST_COPIED_POLLS != 0) {
            return 0;
        }
        return gdc_rt_shm_raised(fast->shm, peer, GDC_COLL_SHM_COPIED, want->target);
    }
    /* raised, not reached: every rank raises the counters that a fast path waits for in the
     * call itself, and the DONE line of a peer, which it writes at every call's end, is not
     * pulled across on every poll (on 2 ranks, with it polled beside COPIED in the barrier
     * between gdbench's calls, allreduce of 4 to 64 B took 1.00 of its time before DONE
     * stood for the others; without, 0.90 and 0.92: bench/RESULTS.md 2026-12-05 15:05) */
    return gdc_rt_shm_raised(fast->shm, peer, want->counter, want->target);
}

void gdc_coll_fast_finish(const gdc_coll_fast_t *fast)
{
    gdc_rt_shm_finish(fast->shm, fast->base + 1);
}
