/*
 * bcast hier_rails: the root hands each rank of its node one part of the message; each part
 * goes down its rail in pipelined chunks (the part's owner on every node, one NIC
 * each); a ring allgather inside every node puts the parts together. 1/L of the message
 * crosses each NIC, and all of a node's NICs work at once: for large messages, where the
 * leaders' tree (bcast hier) is bounded by one NIC per node.
 *
 * Parts as in allreduce hier_rails: B blocks (B = ranks of the largest node), a node's L
 * ranks owning consecutive blocks, one rail per block. Large messages go in segments, so
 * that one segment's rails overlap the next one's scatter and the previous one's allgather.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

typedef struct bcast_rails {
    const gdc_coll_args_t *args;
    gdc_coll_nodes_t       nodes;
    int                    blocks;
    int                    root_node;
    int                    root_local; /* the root's index in its node */
    size_t                *bounds;     /* [L + 1] */
    int                   *rail;       /* [nodes] */
} bcast_rails_t;

static gdc_coll_region_t part(gdc_coll_sched_t *sched, const bcast_rails_t *br, const gdc_coll_hier_seg_t *seg, int i)
{
    return gdc_coll_rgn(sched, GDC_COLL_OUTPUT, seg->offset + br->bounds[i], br->bounds[i + 1] - br->bounds[i]);
}

/* Phase 1, in the root's node: every rank gets its part from the root. */
static void scatter_in_root_node(gdc_coll_sched_t *sched, const bcast_rails_t *br, const gdc_coll_hier_seg_t *seg)
{
    const gdc_coll_nodes_t *nodes = &br->nodes;
    int                     me    = nodes->local.me;

    if (me != br->root_local) {
        gdc_coll_region_t mine = part(sched, br, seg, me);
        if (mine.length > 0) {
            gdc_coll_recv(sched, gdc_coll_local_rank(nodes, br->root_local), seg->slot_base, mine, -1);
        }
        return;
    }
    for (int k = 1; k < nodes->local.size; k++) {
        int               i = (me + k) % nodes->local.size;
        gdc_coll_region_t theirs = part(sched, br, seg, i);
        if (theirs.length > 0) {
            gdc_coll_send(sched, gdc_coll_local_rank(nodes, i), seg->slot_base, theirs, -1);
        }
    }
}

/* Phase 2: each of my blocks down its rail from the root's node. Returns a step after
 * which my blocks are here (the receives, not the forwarding: the node's allgather need not
 * wait for a slower node down the rail), or -1 when I hold no block. */
static int bcast_rails(gdc_coll_sched_t *sched, bcast_rails_t *br, const gdc_coll_hier_seg_t *seg)
{
    const gdc_coll_nodes_t *nodes = &br->nodes;
    int                     B = br->blocks, L = nodes->local.size, me = nodes->local.me;
    uint32_t                per_rail = seg->slots / (uint32_t)B;
    int                     first = gdc_coll_rails_first(B, L, me), end = gdc_coll_rails_first(B, L, me + 1);
    int                     arrived, got = 0;
    int                    *have = malloc((size_t)(end - first) * per_rail * sizeof(int) + 1);

    if (have == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return -1;
    }
    for (int b = first; b < end; b++) {
        size_t                cnt = gdc_coll_block_count(seg->count, B, b);
        gdc_coll_pipe_bcast_t pb  = {
            .group = gdc_coll_rails_group(nodes, B, b, br->rail), .radix = 0, .root = br->root_node,
            .region = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, seg->offset + gdc_coll_block_offset(seg->count, B, b), cnt),
            .chunks = gdc_coll_chunks(&sched->args, GDC_COLL_ACROSS_NODES, cnt * sched->args.dsize, 1), .slot_base = seg->slot_base + (uint32_t)b * per_rail,
            .root_dep = -1, .recv_dep = -1, .have = have + got,
        };

        if (cnt == 0) {
            continue;
        }
        pb.chunks = (uint32_t)pb.chunks > per_rail ? (int)per_rail : pb.chunks;
        gdc_coll_pipe_bcast(sched, &pb);
        got += pb.chunks;
    }
    arrived = got > 0 ? gdc_coll_join(sched, have, got) : -1;
    free(have);
    return arrived;
}

static gdc_status_t bcast_rails_segment(gdc_coll_sched_t *sched, void *ctx, const gdc_coll_hier_seg_t *seg,
                                        size_t *scratch_used, int *gate)
{
    bcast_rails_t *br    = ctx;
    int            L     = br->nodes.local.size, me = br->nodes.local.me;
    uint32_t       first = sched->num_steps;
    int            scattered, arrived, ready, deps[2];

    gdc_coll_rails_bounds(&br->nodes, br->blocks, seg->count, br->bounds);
    if (br->nodes.my_node == br->root_node) {
        scatter_in_root_node(sched, br, seg);
    }
    scattered = gdc_coll_join_range(sched, first, -1);
    *gate     = scattered;

    first   = sched->num_steps;
    arrived = bcast_rails(sched, br, seg);
    gdc_coll_after_range(sched, first, scattered);

    if (L > 1) {
        /* Phase 3 (slot 0 was the scatter's), once my parts are here. It writes only the
         * others' parts, which my rails do not send; at the root it rewrites them with the
         * same bytes, once its scatter is done with them. */
        gdc_coll_vec_t     parts = {GDC_COLL_OUTPUT, seg->offset, seg->count, L, br->bounds};
        uint32_t           cap   = (seg->slots - 1) / (uint32_t)(L - 1);
        int                chunks = gdc_coll_ring_chunks(sched, &parts, L - 1, GDC_COLL_IN_NODE);
        gdc_coll_ring_ag_t ag    = {
            .group = br->nodes.local, .owned = me, .chunks = (uint32_t)chunks > cap ? (int)cap : chunks,
            .slot_base = seg->slot_base + 1, .out = parts, .first_buf = GDC_COLL_OUTPUT,
            .first_base = seg->offset + br->bounds[me],
        };
        deps[0] = scattered;
        deps[1] = arrived;
        ready   = gdc_coll_join(sched, deps, 2);
        first   = sched->num_steps;
        gdc_coll_ring_allgather(sched, &ag);
        gdc_coll_after_range(sched, first, ready);
    }
    *scratch_used = 0;
    return sched->status;
}

GDC_COLL_BUILDER(gdc_coll_bcast_hier_rails)
{
    bcast_rails_t br = {.args = args};
    gdc_status_t  status;

    if ((status = gdc_coll_nodes_init(&br.nodes, args, args->root)) != GDC_SUCCESS) {
        return status;
    }
    br.blocks    = br.nodes.max_local;
    br.root_node = args->node_of != NULL ? args->node_of[args->root] : args->root;
    br.bounds    = malloc(((size_t)br.nodes.local.size + 1) * sizeof(size_t));
    br.rail      = malloc((size_t)br.nodes.num_nodes * sizeof(int));
    for (int i = 0; i < gdc_coll_nodes_size(&br.nodes, br.root_node); i++) {
        if (gdc_coll_nodes_member(&br.nodes, br.root_node, i) == args->root) {
            br.root_local = i;
        }
    }
    if (br.bounds == NULL || br.rail == NULL) {
        status = GDC_ERR_NO_MEMORY;
    } else {
        /* a segment needs a slot per rail and the node's ring */
        int segments = gdc_coll_hier_num_segments(args, br.blocks, gdc_coll_rails_slots(br.blocks, 1) + 1);
        status       = gdc_coll_hier_segmented(sched, segments, args->count, bcast_rails_segment, &br);
    }
    free(br.rail);
    free(br.bounds);
    gdc_coll_nodes_fini(&br.nodes);
    return status;
}

int gdc_coll_bcast_hier_rails_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_rails_fit(args, 1);
}
