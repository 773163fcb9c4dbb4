/*
 * allreduce recursive_doubling: in round k every participant exchanges its whole partial
 * result with the participant 2^k away and combines; log2(p) rounds. Non-powers of two
 * fold in: the extra ranks hand their vector to a partner first and get the result back at
 * the end. Partners combine in the same operand order (lower rank first), so the result is
 * bit-identical on every rank.
 */
#include "coll_algo.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_recursive_doubling)
{
    gdc_coll_fold_t   fold  = gdc_coll_fold(args->size, args->rank);
    gdc_coll_region_t in    = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count);
    gdc_coll_region_t out   = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    size_t            bytes = in.length;
    gdc_coll_region_t tmp[2] = {gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, bytes),
                                gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, bytes, bytes)};
    gdc_coll_region_t cur   = in;
    int               rounds = 0, last = -1, reduced[2] = {-1, -1};
    uint32_t          slot   = 1;

    while ((1 << rounds) < fold.p) {
        rounds++;
    }
    gdc_coll_scratch(sched, 2 * bytes);
    if (fold.newrank < 0) {
        /* an extra: give my vector to my partner, get the result back */
        int sent = gdc_coll_send(sched, args->rank + 1, 0, in, -1);
        gdc_coll_recv(sched, args->rank + 1, (uint32_t)rounds + 1, out, sent);
        return GDC_SUCCESS;
    }
    if (args->rank < 2 * fold.rem) {
        int recv = gdc_coll_recv(sched, args->rank - 1, 0, tmp[0], -1);
        last     = gdc_coll_reduce(sched, out, tmp[0], in, recv); /* lower rank's data first */
        reduced[0] = last;
        cur        = out;
    }
    for (int k = 0; k < rounds; k++, slot++) {
        int               partner = gdc_coll_fold_real(&fold, fold.newrank ^ (1 << k));
        gdc_coll_region_t t       = tmp[(k + 1) % 2];
        int               send    = gdc_coll_send(sched, partner, slot, cur, last);
        int               recv    = gdc_coll_recv(sched, partner, slot, t, reduced[(k + 1) % 2]);

        last = partner < args->rank ? gdc_coll_reduce(sched, out, t, cur, recv)
                                    : gdc_coll_reduce(sched, out, cur, t, recv);
        gdc_coll_after(sched, last, send); /* out is overwritten: the send must be done with it */
        gdc_coll_after(sched, last, reduced[k % 2]);
        reduced[(k + 1) % 2] = last;
        cur                  = out;
    }
    if (args->op == GDC_AVG) {
        last = gdc_coll_avg(sched, out, last);
    }
    if (args->rank < 2 * fold.rem) {
        gdc_coll_send(sched, args->rank - 1, (uint32_t)rounds + 1, out, last);
    }
    return GDC_SUCCESS;
}
