/*
 * reduce_scatter recursive_halving: log2(p) rounds; in each a participant keeps half of
 * its range of blocks, sends the other half to its partner and combines what it receives.
 * Participants own consecutive ranks' blocks (non-powers of two fold in: an extra rank hands
 * its whole vector to its partner and gets its block back at the end), so every exchange
 * is one contiguous range. Work happens in a scratch copy of the vector.
 */
#include "algos.h"

#include "builder.h"

typedef struct halving {
    gdc_coll_fold_t fold;
    size_t          blk; /* elements per rank's block */
} halving_t;

/* Participant range [lo, hi) as elements of buffer buf (laid out like the input vector). */
static gdc_coll_region_t prange(const gdc_coll_sched_t *sched, const halving_t *h, gdc_coll_buf_t buf,
                                size_t base, int lo, int hi)
{
    size_t first = (size_t)gdc_coll_fold_first(&h->fold, lo) * h->blk;
    size_t end   = (size_t)gdc_coll_fold_first(&h->fold, hi) * h->blk;

    return gdc_coll_rgn(sched, buf, base + first, end - first);
}

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_recursive_halving)
{
    halving_t         h      = {gdc_coll_fold(args->size, args->rank), args->count};
    size_t            total  = args->count * (size_t)args->size;
    size_t            vbytes = total * args->dsize;
    int               me = h.fold.newrank, lo = 0, hi = h.fold.p, rounds = 0, last = -1, first_send = -1;
    gdc_coll_buf_t    cur    = GDC_COLL_INPUT;
    size_t            cur_base = 0, at = 2 * vbytes;
    gdc_coll_region_t whole  = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, total);

    while ((1 << rounds) < h.fold.p) {
        rounds++;
    }
    if (me < 0) {
        int sent = gdc_coll_send(sched, args->rank + 1, 0, whole, -1);
        gdc_coll_recv(sched, args->rank + 1, (uint32_t)rounds + 1,
                      gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count), sent);
        return GDC_SUCCESS;
    }
    if (args->rank < 2 * h.fold.rem) {
        gdc_coll_region_t theirs = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, vbytes, vbytes);
        int               recv   = gdc_coll_recv(sched, args->rank - 1, 0, theirs, -1);
        last = gdc_coll_reduce(sched, gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, vbytes), theirs, whole, recv);
        cur  = GDC_COLL_SCRATCH;
    }
    for (int k = rounds - 1; k >= 0; k--) {
        int               d       = 1 << k;
        int               partner = gdc_coll_fold_real(&h.fold, me ^ d);
        int               mid     = lo + (hi - lo) / 2;
        int               lower   = (me & d) == 0;
        int               klo     = lower ? lo : mid, khi = lower ? mid : hi;
        gdc_coll_region_t keep    = prange(sched, &h, GDC_COLL_SCRATCH, 0, klo, khi);
        gdc_coll_region_t mine    = prange(sched, &h, cur, cur_base, klo, khi);
        gdc_coll_region_t give    = lower ? prange(sched, &h, cur, cur_base, mid, hi)
                                          : prange(sched, &h, cur, cur_base, lo, mid);
        gdc_coll_region_t tmp     = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, at, keep.length);
        uint32_t          slot    = (uint32_t)(rounds - k);
        int               send = -1, recv, prev = last;

        if (give.length) {
            send = gdc_coll_send(sched, partner, slot, give, last);
        }
        if (first_send < 0) {
            first_send = send;
        }
        if (keep.length) {
            recv = gdc_coll_recv(sched, partner, slot, tmp, -1);
            last = partner < args->rank ? gdc_coll_reduce(sched, keep, tmp, mine, recv)
                                        : gdc_coll_reduce(sched, keep, mine, tmp, recv);
            gdc_coll_after(sched, last, prev);
        }
        at += keep.length;
        lo       = klo;
        hi       = khi;
        cur      = GDC_COLL_SCRATCH;
        cur_base = 0;
    }
    gdc_coll_scratch(sched, at);
    if (args->op == GDC_AVG) {
        last = gdc_coll_avg(sched, prange(sched, &h, GDC_COLL_SCRATCH, 0, lo, hi), last);
    }
    if (args->rank < 2 * h.fold.rem) {
        gdc_coll_send(sched, args->rank - 1, (uint32_t)rounds + 1,
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, h.blk * (size_t)(args->rank - 1), h.blk), last);
    }
    {
        int copy = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, h.blk),
                                 gdc_coll_rgn(sched, GDC_COLL_SCRATCH, h.blk * (size_t)args->rank, h.blk), last);
        /* in place, the output is the start of the input, which the first round may read */
        gdc_coll_after(sched, copy, args->in_place ? first_send : -1);
    }
    return GDC_SUCCESS;
}
