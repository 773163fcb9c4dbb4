/*
 * allreduce rabenseifner: a recursive-halving reduce-scatter (each round a participant
 * keeps half of its range, sends the other half to its partner and combines what it
 * receives) leaves participant j with block j reduced; a recursive-doubling allgather
 * brings the blocks back together. 2 log2(p) rounds moving about 2 count elements in all:
 * bandwidth-optimal with log latency. Non-powers of two fold in as in recursive doubling.
 */
#include "algos.h"

#include "builder.h"

/* Elements [first, end) of the participant-block range [lo, hi) of a vector cut into p blocks. */
static gdc_coll_region_t range(const gdc_coll_sched_t *sched, gdc_coll_buf_t buf, int p, int lo, int hi)
{
    size_t count = sched->args.count;
    size_t first = gdc_coll_block_offset(count, p, lo);

    return gdc_coll_rgn(sched, buf, first, gdc_coll_block_offset(count, p, hi) - first);
}

static gdc_coll_region_t scratch_like(gdc_coll_region_t r, size_t at)
{
    return gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, at, r.length);
}

GDC_COLL_BUILDER(gdc_coll_allreduce_rabenseifner)
{
    gdc_coll_fold_t fold   = gdc_coll_fold(args->size, args->rank);
    int             p      = fold.p, me = fold.newrank, lo = 0, hi = p, rounds = 0;
    gdc_coll_buf_t  cur    = GDC_COLL_INPUT;
    size_t          at     = 0; /* scratch in use */
    int             last   = -1;
    int             sent[32];
    gdc_coll_region_t out  = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);

    while ((1 << rounds) < p) {
        rounds++;
    }
    if (me < 0) {
        int s = gdc_coll_send(sched, args->rank + 1, 0, gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), -1);
        gdc_coll_recv(sched, args->rank + 1, (uint32_t)(2 * rounds + 1), out, s);
        return GDC_SUCCESS;
    }
    if (args->rank < 2 * fold.rem) {
        gdc_coll_region_t tmp  = scratch_like(out, 0);
        int               recv = gdc_coll_recv(sched, args->rank - 1, 0, tmp, -1);
        last = gdc_coll_reduce(sched, out, tmp, gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count), recv);
        cur  = GDC_COLL_OUTPUT;
        at   = tmp.length;
    }
    /* reduce-scatter by recursive halving: distance p/2 first */
    for (int k = rounds - 1; k >= 0; k--) {
        int               d       = 1 << k;
        int               partner = gdc_coll_fold_real(&fold, me ^ d);
        int               mid     = lo + (hi - lo) / 2;
        int               lower   = (me & d) == 0;
        gdc_coll_region_t keep    = lower ? range(sched, GDC_COLL_OUTPUT, p, lo, mid)
                                          : range(sched, GDC_COLL_OUTPUT, p, mid, hi);
        gdc_coll_region_t give    = lower ? range(sched, cur, p, mid, hi) : range(sched, cur, p, lo, mid);
        gdc_coll_region_t mine    = keep;
        gdc_coll_region_t tmp     = scratch_like(keep, at);
        uint32_t          slot    = (uint32_t)(rounds - k);
        int               recv;

        mine.buf   = (uint8_t)cur;
        sent[k]    = give.length ? gdc_coll_send(sched, partner, slot, give, last) : -1;
        recv       = keep.length ? gdc_coll_recv(sched, partner, slot, tmp, -1) : -1;
        if (keep.length) {
            int prev = last; /* wrote the part of `mine` this round reads */
            last = partner < args->rank ? gdc_coll_reduce(sched, keep, tmp, mine, recv)
                                        : gdc_coll_reduce(sched, keep, mine, tmp, recv);
            gdc_coll_after(sched, last, prev);
        }
        at += tmp.length;
        if (lower) {
            hi = mid;
        } else {
            lo = mid;
        }
        cur = GDC_COLL_OUTPUT;
    }
    if (args->op == GDC_AVG && hi > lo) {
        last = gdc_coll_avg(sched, range(sched, GDC_COLL_OUTPUT, p, lo, hi), last);
    }
    gdc_coll_scratch(sched, at);
    /* allgather by recursive doubling: distance 1 first; round k receives the range that
     * halving round k sent from, so it waits for that send */
    for (int k = 0; k < rounds; k++) {
        int               d       = 1 << k;
        int               partner = gdc_coll_fold_real(&fold, me ^ d);
        int               plo     = (me & d) ? lo - (hi - lo) : hi;
        int               phi     = plo + (hi - lo);
        gdc_coll_region_t mine    = range(sched, GDC_COLL_OUTPUT, p, lo, hi);
        gdc_coll_region_t theirs  = range(sched, GDC_COLL_OUTPUT, p, plo, phi);
        uint32_t          slot    = (uint32_t)(rounds + 1 + k);
        int               recv    = -1;

        if (mine.length) {
            gdc_coll_send(sched, partner, slot, mine, last);
        }
        if (theirs.length) {
            recv = gdc_coll_recv(sched, partner, slot, theirs, sent[k]);
        }
        /* the next round sends the union: it waits for this receive too */
        if (recv >= 0) {
            int both[2] = {last, recv};
            last        = gdc_coll_join(sched, both, 2);
        }
        lo = plo < lo ? plo : lo;
        hi = phi > hi ? phi : hi;
    }
    if (args->rank < 2 * fold.rem) {
        gdc_coll_send(sched, args->rank - 1, (uint32_t)(2 * rounds + 1), out, last);
    }
    return GDC_SUCCESS;
}
