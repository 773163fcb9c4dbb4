/*
 * allreduce hier_rails: inside every node a ring reduce-scatter leaves each rank with the
 * node's sum of its part of the vector; the ranks owning the same part on every node (a
 * "rail", one NIC each) allreduce it among themselves; a ring allgather inside every node
 * puts the parts back together. Only 1/L of the vector crosses each NIC, and all of a
 * node's NICs work at once, where a flat ring crosses the network on one NIC per node.
 *
 * Uneven nodes: the vector is cut into B blocks, B the ranks of the largest node; a node's
 * L ranks own consecutive blocks (a rank of a small node owns several, and sits on several
 * rails); block b's rail is its owner on every node. Large vectors go in segments, so that
 * one segment's rails overlap the next one's reduce-scatter.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

typedef struct rails {
    const gdc_coll_args_t *args;
    gdc_coll_nodes_t       nodes;
    int                    blocks; /* B */
    size_t                *bounds; /* [L + 1] elements of the segment where each local rank's part starts */
    int                   *rail;   /* [nodes] the ranks of one rail */
} rails_t;

/* Phase 1: the node's ring reduce-scatter over the parts; my part's sum lands in OUTPUT. */
static size_t reduce_in_node(gdc_coll_sched_t *sched, rails_t *r, const gdc_coll_hier_seg_t *seg, int chunks)
{
    const gdc_coll_args_t *args = r->args;
    int                    L    = r->nodes.local.size, me = r->nodes.local.me;
    gdc_coll_buf_t         src  = args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT;
    int                   *done = malloc((size_t)chunks * sizeof(int));
    int                   *sends = malloc((size_t)(L - 1) * (size_t)chunks * sizeof(int));
    size_t                 used  = 0;

    if (done == NULL || sends == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
    } else {
        gdc_coll_ring_rs_t rs = {
            .group = r->nodes.local, .owned = me, .chunks = chunks, .slot_base = seg->slot_base,
            .input   = {src, seg->offset, seg->count, L, r->bounds},
            .partial = {GDC_COLL_OUTPUT, seg->offset, seg->count, L, r->bounds},
            .result_buf = GDC_COLL_OUTPUT, .result_base = seg->offset + r->bounds[me],
            .scratch_base = seg->scratch_base, .avg = 0, .done = done, .sends = sends,
        };
        used = gdc_coll_ring_reduce_scatter(sched, &rs);
    }
    free(done);
    free(sends);
    return used;
}

/* Phase 2: one allreduce per block I own, among that block's owners on every node. */
static size_t allreduce_rails(gdc_coll_sched_t *sched, rails_t *r, const gdc_coll_hier_seg_t *seg)
{
    const gdc_coll_args_t *args  = r->args;
    const gdc_coll_nodes_t *nodes = &r->nodes;
    int                    L      = nodes->local.size, me = nodes->local.me, B = r->blocks;
    gdc_coll_buf_t         in_buf = L > 1 || args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT;
    uint32_t               per_rail = seg->slots / (uint32_t)B;
    size_t                 at       = seg->scratch_base;

    for (int b = gdc_coll_rails_first(B, L, me); b < gdc_coll_rails_first(B, L, me + 1); b++) {
        size_t off = seg->offset + gdc_coll_block_offset(seg->count, B, b);
        size_t cnt = gdc_coll_block_count(seg->count, B, b);

        if (cnt == 0) {
            continue;
        }
        {
            gdc_coll_group_allreduce_t ar = {
                .group = gdc_coll_rails_group(nodes, B, b, r->rail),
                .in = gdc_coll_rgn(sched, in_buf, off, cnt), .out = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, off, cnt),
                .slot_base = seg->slot_base + (uint32_t)b * per_rail, .slots = per_rail, .scratch_base = at,
                .avg = args->op == GDC_AVG, .across = GDC_COLL_ACROSS_NODES,
            };
            gdc_coll_group_allreduce(sched, &ar);
            at += ar.scratch_used; /* my rails run at once: each its own scratch */
        }
    }
    return at - seg->scratch_base;
}

static gdc_status_t rails_segment(gdc_coll_sched_t *sched, void *ctx, const gdc_coll_hier_seg_t *seg,
                                  size_t *scratch_used, int *gate)
{
    rails_t *r     = ctx;
    int      L     = r->nodes.local.size, me = r->nodes.local.me;
    int      chunks = 1;
    size_t   used1 = 0, used2;
    uint32_t first = sched->num_steps;
    int      reduced, railed;

    gdc_coll_rails_bounds(&r->nodes, r->blocks, seg->count, r->bounds);
    if (L > 1) {
        gdc_coll_vec_t parts = {GDC_COLL_OUTPUT, seg->offset, seg->count, L, r->bounds};
        uint32_t       cap   = seg->slots / (uint32_t)(2 * (L - 1));

        chunks = gdc_coll_ring_chunks(sched, &parts, 2 * (L - 1), GDC_COLL_IN_NODE);
        chunks = (uint32_t)chunks > cap ? (int)cap : chunks;
        used1  = reduce_in_node(sched, r, seg, chunks);
    }
    reduced = gdc_coll_join_range(sched, first, -1);
    *gate   = reduced;

    first = sched->num_steps;
    used2 = allreduce_rails(sched, r, seg);
    gdc_coll_after_range(sched, first, reduced);
    railed = gdc_coll_join_range(sched, first, reduced);

    if (L > 1) {
        /* Phase 3: the node's ring allgather of the parts (their places were read or written
         * by phase 1: it starts after everything before) */
        gdc_coll_ring_ag_t ag = {
            .group = r->nodes.local, .owned = me, .chunks = chunks,
            .slot_base = seg->slot_base + (uint32_t)((L - 1) * chunks),
            .out = {GDC_COLL_OUTPUT, seg->offset, seg->count, L, r->bounds},
            .first_buf = GDC_COLL_OUTPUT, .first_base = seg->offset + r->bounds[me],
        };
        first = sched->num_steps;
        gdc_coll_ring_allgather(sched, &ag);
        gdc_coll_after_range(sched, first, railed);
    }
    /* the phases run one after the other: they can share the scratch */
    *scratch_used = used1 > used2 ? used1 : used2;
    return sched->status;
}

GDC_COLL_BUILDER(gdc_coll_allreduce_hier_rails)
{
    rails_t r = {.args = args};
    gdc_status_t status;

    if ((status = gdc_coll_nodes_init(&r.nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    r.blocks = r.nodes.max_local;
    r.bounds = malloc(((size_t)r.nodes.local.size + 1) * sizeof(size_t));
    r.rail   = malloc((size_t)r.nodes.num_nodes * sizeof(int));
    if (r.bounds == NULL || r.rail == NULL) {
        status = GDC_ERR_NO_MEMORY;
    } else {
        int segments = gdc_coll_hier_num_segments_overlapped(
            args, r.nodes.max_local, gdc_coll_rails_slots(r.blocks, gdc_coll_group_allreduce_min_slots(r.nodes.num_nodes)));
        status       = gdc_coll_hier_segmented(sched, segments, args->count, rails_segment, &r);
    }
    free(r.rail);
    free(r.bounds);
    gdc_coll_nodes_fini(&r.nodes);
    return status;
}

int gdc_coll_allreduce_hier_rails_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_rails_fit(args, gdc_coll_group_allreduce_min_slots(args->num_nodes));
}
