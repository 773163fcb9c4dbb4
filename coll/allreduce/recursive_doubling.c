/*
 * allreduce recursive_doubling: in round k every participant exchanges its whole partial
 * result with the participant 2^k away and combines; log2(p) rounds. Non-powers of two
 * fold in: the extra ranks hand their vector to a partner first and get the result back at
 * the end. Partners combine in the same operand order (lower rank first), so the result is
 * bit-identical on every rank. The phase itself (over any group) is in phase/allreduce.c.
 */
#include "algos.h"

#include "phase/phase.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_recursive_doubling)
{
    gdc_coll_group_allreduce_t ar = {
        .group = gdc_coll_group_all(args), .in = gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, args->count),
        .out = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count), .slot_base = 0,
        .slots = GDC_COLL_MAX_SLOTS, .scratch_base = 0, .avg = args->op == GDC_AVG,
    };

    gdc_coll_rd_allreduce(sched, &ar);
    gdc_coll_scratch(sched, ar.scratch_used);
    return GDC_SUCCESS;
}
