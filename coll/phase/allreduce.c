/*
 * Allreduce over a group: recursive doubling for small vectors (log2 rounds of the whole
 * vector); for large ones recursive halving then doubling when the group is a power of two
 * of 8 or more (2 log2(n) rounds, halves then quarters ... of it: on many nodes the ring's
 * 2(n-1) latencies are what costs), else a pipelined ring (2(n-1) rounds of 1/n of it). All
 * give every rank the same bits: recursive doubling partners combine in one operand order
 * (the lower group index first); halving and the ring reduce each block at one rank and pass
 * it around.
 */
#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/phase.h"

static int rd_rounds(int n)
{
    int p = gdc_coll_pof2_floor(n), rounds = 0;

    while ((1 << rounds) < p) {
        rounds++;
    }
    return rounds;
}

uint32_t gdc_coll_group_allreduce_min_slots(int n)
{
    return (uint32_t)rd_rounds(n) + 2;
}

void gdc_coll_rd_allreduce(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar)
{
    const gdc_coll_group_t *g      = &ar->group;
    int                     me     = g->me;
    gdc_coll_fold_t         fold   = gdc_coll_fold(g->size, me);
    size_t                  bytes  = ar->in.length;
    gdc_coll_region_t       tmp[2] = {gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, ar->scratch_base, bytes),
                                      gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, ar->scratch_base + bytes, bytes)};
    gdc_coll_region_t       cur    = ar->in;
    int                     rounds = rd_rounds(g->size), last = -1, reduced[2] = {-1, -1};
    uint32_t                slot   = ar->slot_base + 1, result_slot = ar->slot_base + (uint32_t)rounds + 1;

    ar->scratch_used = 2 * bytes;
    if (fold.newrank < 0) {
        /* an extra: give my vector to my partner, get the result back */
        int sent = gdc_coll_send(sched, gdc_coll_group_rank(g, me + 1), ar->slot_base, ar->in, -1);
        ar->done = gdc_coll_recv(sched, gdc_coll_group_rank(g, me + 1), result_slot, ar->out, sent);
        return;
    }
    if (me < 2 * fold.rem) {
        int recv = gdc_coll_recv(sched, gdc_coll_group_rank(g, me - 1), ar->slot_base, tmp[0], -1);
        last       = gdc_coll_reduce(sched, ar->out, tmp[0], ar->in, recv); /* lower index's data first */
        reduced[0] = last;
        cur        = ar->out;
    }
    for (int k = 0; k < rounds; k++, slot++) {
        int               partner = gdc_coll_fold_real(&fold, fold.newrank ^ (1 << k));
        int               peer    = gdc_coll_group_rank(g, partner);
        gdc_coll_region_t t       = tmp[(k + 1) % 2];
        int               send    = gdc_coll_send(sched, peer, slot, cur, last);
        int               recv    = gdc_coll_recv(sched, peer, slot, t, reduced[(k + 1) % 2]);

        last = partner < me ? gdc_coll_reduce(sched, ar->out, t, cur, recv)
                            : gdc_coll_reduce(sched, ar->out, cur, t, recv);
        gdc_coll_after(sched, last, send); /* out is overwritten: the send must be done with it */
        gdc_coll_after(sched, last, reduced[k % 2]);
        reduced[(k + 1) % 2] = last;
        cur                  = ar->out;
    }
    if (ar->avg) {
        last = gdc_coll_avg(sched, ar->out, last);
    }
    if (me < 2 * fold.rem) {
        gdc_coll_send(sched, gdc_coll_group_rank(g, me - 1), result_slot, ar->out, last);
    }
    ar->done = last;
}

/* Ring reduce-scatter leaving group index i with block i+1, then the ring allgather, both
 * over ar->out (partial results there too). */
static void ring_allreduce(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar)
{
    int            n      = ar->group.size;
    size_t         ds     = sched->args.dsize;
    size_t         count  = ar->in.length / ds;
    int            owned  = (ar->group.me + 1) % n;
    int            rounds = 2 * (n - 1);
    gdc_coll_vec_t input  = {(gdc_coll_buf_t)ar->in.buf, ar->in.offset / ds, count, n, NULL};
    gdc_coll_vec_t output = {(gdc_coll_buf_t)ar->out.buf, ar->out.offset / ds, count, n, NULL};
    int            chunks = gdc_coll_ring_chunks(sched, &input, rounds, ar->across);
    uint32_t       first  = sched->num_steps;
    int           *done, *sends;

    if ((uint32_t)(chunks * rounds) > ar->slots) {
        chunks = (int)(ar->slots / (uint32_t)rounds);
    }
    done  = malloc((size_t)chunks * sizeof(int));
    sends = malloc((size_t)(n - 1) * (size_t)chunks * sizeof(int));
    if (done == NULL || sends == NULL) {
        free(done);
        free(sends);
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    {
        size_t             result_base = output.base + gdc_coll_block_offset(count, n, owned);
        gdc_coll_ring_rs_t rs          = {
            .group = ar->group, .owned = owned, .chunks = chunks, .slot_base = ar->slot_base, .input = input,
            .partial = output, .result_buf = output.buf, .result_base = result_base,
            .scratch_base = ar->scratch_base, .avg = ar->avg, .done = done, .sends = sends,
        };
        gdc_coll_ring_ag_t ag = {
            .group = ar->group, .owned = owned, .chunks = chunks,
            .slot_base = ar->slot_base + (uint32_t)((n - 1) * chunks), .out = output,
            .first_buf = output.buf, .first_base = result_base, .first_dep = done,
            /* round k receives into the block that round k of the reduce-scatter sent from */
            .recv_dep = sends,
        };

        ar->scratch_used = gdc_coll_ring_reduce_scatter(sched, &rs);
        gdc_coll_ring_allgather(sched, &ag);
    }
    ar->done = gdc_coll_join_range(sched, first, -1);
    free(done);
    free(sends);
}

/* Elements [lo, hi) of region r's vector cut into n blocks. */
static gdc_coll_region_t blocks_of(const gdc_coll_sched_t *sched, gdc_coll_region_t r, int n, int lo, int hi)
{
    size_t ds = sched->args.dsize, count = r.length / ds;
    size_t first = gdc_coll_block_offset(count, n, lo), end = gdc_coll_block_offset(count, n, hi);

    r.offset += first * ds;
    r.length = (end - first) * ds;
    return r;
}

int gdc_coll_group_halving_fits(int n, uint32_t slots)
{
    int rounds = rd_rounds(n);

    return n >= 8 && (n & (n - 1)) == 0 && slots >= (uint32_t)(2 * rounds);
}

/* Recursive halving (reduce-scatter: keep half of the range, send the other half, combine
 * what comes back) then recursive doubling (allgather) over a power-of-two group. */
static void halving_doubling(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar)
{
    const gdc_coll_group_t *g = &ar->group;
    int                     n = g->size, me = g->me, lo = 0, hi = n, rounds = rd_rounds(n), last = -1;
    int                     sent[32];
    gdc_coll_region_t       cur  = ar->in;
    size_t                  at   = ar->scratch_base;
    uint32_t                first = sched->num_steps;

    for (int k = rounds - 1; k >= 0; k--) {
        int               d = 1 << k, peer = gdc_coll_group_rank(g, me ^ d), mid = lo + (hi - lo) / 2;
        int               lower = (me & d) == 0, recv;
        gdc_coll_region_t keep  = lower ? blocks_of(sched, ar->out, n, lo, mid) : blocks_of(sched, ar->out, n, mid, hi);
        gdc_coll_region_t mine  = lower ? blocks_of(sched, cur, n, lo, mid) : blocks_of(sched, cur, n, mid, hi);
        gdc_coll_region_t give  = lower ? blocks_of(sched, cur, n, mid, hi) : blocks_of(sched, cur, n, lo, mid);
        gdc_coll_region_t tmp   = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, at, keep.length);
        uint32_t          slot  = ar->slot_base + (uint32_t)(rounds - 1 - k);

        sent[k] = give.length ? gdc_coll_send(sched, peer, slot, give, last) : -1;
        recv    = keep.length ? gdc_coll_recv(sched, peer, slot, tmp, -1) : -1;
        if (keep.length) {
            int prev = last; /* wrote the part of `mine` this round reads */
            last     = (me ^ d) < me ? gdc_coll_reduce(sched, keep, tmp, mine, recv)
                                     : gdc_coll_reduce(sched, keep, mine, tmp, recv);
            gdc_coll_after(sched, last, prev);
        }
        at += tmp.length;
        lo  = lower ? lo : mid;
        hi  = lower ? mid : hi;
        cur = ar->out;
    }
    if (ar->avg && hi > lo) {
        last = gdc_coll_avg(sched, blocks_of(sched, ar->out, n, lo, hi), last);
    }
    ar->scratch_used = at - ar->scratch_base;
    /* doubling: round k receives the range that halving round k sent from */
    for (int k = 0; k < rounds; k++) {
        int               d = 1 << k, peer = gdc_coll_group_rank(g, me ^ d), recv = -1;
        int               plo = (me & d) ? lo - (hi - lo) : hi, phi = plo + (hi - lo);
        gdc_coll_region_t mine   = blocks_of(sched, ar->out, n, lo, hi);
        gdc_coll_region_t theirs = blocks_of(sched, ar->out, n, plo, phi);
        uint32_t          slot   = ar->slot_base + (uint32_t)(rounds + k);

        if (mine.length) {
            gdc_coll_send(sched, peer, slot, mine, last);
        }
        if (theirs.length) {
            recv = gdc_coll_recv(sched, peer, slot, theirs, sent[k]);
        }
        if (recv >= 0) {
            int both[2] = {last, recv};
            last        = last >= 0 ? gdc_coll_join(sched, both, 2) : recv;
        }
        lo = plo < lo ? plo : lo;
        hi = phi > hi ? phi : hi;
    }
    ar->done = gdc_coll_join_range(sched, first, -1);
}

static int same_region(gdc_coll_region_t a, gdc_coll_region_t b)
{
    return a.buf == b.buf && a.offset == b.offset && a.length == b.length;
}

void gdc_coll_group_allreduce(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar)
{
    int n = ar->group.size;

    ar->done         = -1;
    ar->scratch_used = 0;
    if (ar->in.length == 0) {
        return;
    }
    if (n == 1) {
        if (!same_region(ar->in, ar->out)) {
            ar->done = gdc_coll_copy(sched, ar->out, ar->in, -1);
        }
        if (ar->avg) {
            ar->done = gdc_coll_avg(sched, ar->out, ar->done);
        }
        return;
    }
    /* the ring needs 2(n-1) slots; two ranks gain nothing from it (the same bytes, one more
     * latency) */
    if (n == 2 || ar->in.length <= sched->args.config->hier_ring_bytes) {
        gdc_coll_rd_allreduce(sched, ar);
    } else if (gdc_coll_group_halving_fits(n, ar->slots)) {
        halving_doubling(sched, ar);
    } else if (ar->slots >= (uint32_t)(2 * (n - 1))) {
        ring_allreduce(sched, ar);
    } else {
        gdc_coll_rd_allreduce(sched, ar);
    }
}
