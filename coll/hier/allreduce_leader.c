/*
 * allreduce hier_leader: a k-nomial tree reduce inside every node to its leader (its first
 * rank), an allreduce among the leaders (recursive doubling for small vectors, a ring for
 * large ones), and a pipelined tree broadcast inside every node. One message per node
 * crosses the network in each round: for small and medium vectors on many nodes. Large
 * vectors go in segments, so that one segment's leaders' allreduce overlaps the next one's
 * reduce.
 */
#include "algos.h"

#include "gdc_rt.h"
#include "hier/common.h"
#include "phase/tree.h"

/* The leader is local index 0 (gdc_coll_nodes_init without a root). */
#define LEADER 0

typedef struct leader {
    const gdc_coll_args_t *args;
    gdc_coll_nodes_t       nodes;
} leader_t;

static gdc_status_t leader_segment(gdc_coll_sched_t *sched, void *ctx, const gdc_coll_hier_seg_t *seg,
                                   size_t *scratch_used, int *gate)
{
    leader_t              *l     = ctx;
    const gdc_coll_args_t *args  = l->args;
    int                    L     = l->nodes.local.size;
    gdc_coll_region_t      whole = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, seg->offset, seg->count);
    gdc_coll_region_t      have  = gdc_coll_rgn(sched, args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT, seg->offset,
                                                seg->count);
    size_t                 used1 = 0, used2 = 0;
    uint32_t               first = sched->num_steps;
    int                    reduced, result;

    if (L > 1) {
        gdc_coll_tree_reduce_t tr = {
            .group = l->nodes.local, .radix = sched->args.config->tree_radix, .root = LEADER, .slot = seg->slot_base,
            .input = have, .acc = whole, .scratch_base = seg->scratch_base, .avg = 0,
        };
        used1 = gdc_coll_tree_reduce(sched, &tr);
        have  = whole;
    }
    reduced = gdc_coll_join_range(sched, first, -1);
    *gate   = reduced;
    result  = reduced;
    if (l->nodes.leaders.me >= 0) {
        gdc_coll_group_allreduce_t ar = {
            .group = l->nodes.leaders, .in = have, .out = whole, .slot_base = seg->slot_base, .slots = seg->slots,
            .scratch_base = seg->scratch_base, .avg = args->op == GDC_AVG, .across = GDC_COLL_ACROSS_NODES,
        };
        first = sched->num_steps;
        gdc_coll_group_allreduce(sched, &ar);
        gdc_coll_after_range(sched, first, reduced);
        used2  = ar.scratch_used;
        result = ar.done >= 0 ? ar.done : reduced;
    }
    if (L > 1) {
        /* a rank's receives overwrite what its reduce sent from: they wait for its phase 1 */
        gdc_coll_pipe_bcast_t pb = {
            .group = l->nodes.local, .radix = 0, .root = LEADER, .region = whole,
            .chunks = gdc_coll_chunks(&sched->args, GDC_COLL_IN_NODE, whole.length, 1), .slot_base = seg->slot_base + 1,
            .root_dep = result, .recv_dep = reduced,
        };
        if ((uint32_t)pb.chunks >= seg->slots) {
            pb.chunks = (int)seg->slots - 1;
        }
        gdc_coll_pipe_bcast(sched, &pb);
    }
    *scratch_used = used1 > used2 ? used1 : used2;
    return sched->status;
}

GDC_COLL_BUILDER(gdc_coll_allreduce_hier_leader)
{
    leader_t l = {.args = args};
    int      segments;
    gdc_status_t status;

    if ((status = gdc_coll_nodes_init(&l.nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    segments = gdc_coll_hier_num_segments(args, l.nodes.max_local,
                                          gdc_coll_group_allreduce_min_slots(l.nodes.num_nodes) + 2);
    status   = gdc_coll_hier_segmented(sched, segments, args->count, leader_segment, &l);
    gdc_coll_nodes_fini(&l.nodes);
    return status;
}
