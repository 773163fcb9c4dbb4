/*
 * allgather hier: every node's ranks send their block to the node's leader; the leaders
 * allgather their nodes' blocks (an allgatherv: nodes differ in size; recursive doubling
 * for small totals, a ring for large ones); every leader broadcasts the whole result
 * inside its node in pipelined chunks (a binomial tree, or a chain for long messages). The network carries each block once into
 * every node, in one message per leader and round.
 *
 * The leaders work in node order (node 0's ranks, then node 1's, ...), where a node's
 * blocks are one range; when the communicator's order differs (round-robin placement) they
 * gather in scratch and put the blocks in rank order before broadcasting.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

/* Is node order rank order? */
static int node_order_is_rank_order(const gdc_coll_nodes_t *nodes, int n)
{
    for (int p = 0; p < n; p++) {
        if (nodes->members[p] != p) {
            return 0;
        }
    }
    return 1;
}

/* Phase 1: my block to my leader, or (the leader) every block of my node into its place in
 * area, node order. Returns the step after which this rank is done with it. */
static int gather_in_node(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_nodes_t *nodes,
                          gdc_coll_buf_t area, int in_area)
{
    size_t            blk   = args->count;
    size_t            at    = (size_t)nodes->node_first[nodes->my_node];
    gdc_coll_region_t own   = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk)
                                             : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    uint32_t          first = sched->num_steps;

    if (nodes->local.me != 0) {
        return gdc_coll_send(sched, gdc_coll_local_rank(nodes, 0), 0, own, -1);
    }
    for (int i = 1; i < nodes->local.size; i++) {
        gdc_coll_recv(sched, gdc_coll_local_rank(nodes, i), 0, gdc_coll_rgn(sched, area, blk * (at + (size_t)i), blk), -1);
    }
    if (!in_area) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, area, blk * at, blk), own, -1);
    }
    return gdc_coll_join_range(sched, first, -1);
}

/* Phase 2 (leaders): allgatherv of the nodes' ranges of area. */
static int allgather_leaders(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_nodes_t *nodes,
                             gdc_coll_buf_t area, int dep)
{
    int            K      = nodes->num_nodes;
    size_t        *bounds = malloc(((size_t)K + 1) * sizeof(size_t));
    uint32_t       first  = sched->num_steps;
    gdc_coll_vec_t vec    = {area, 0, args->count * (size_t)args->size, K, bounds};

    if (bounds == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return dep;
    }
    for (int d = 0; d <= K; d++) {
        bounds[d] = args->count * (size_t)nodes->node_first[d];
    }
    if (vec.count * args->dsize <= args->config->hier_ring_bytes) {
        gdc_coll_rd_allgatherv(sched, &nodes->leaders, &vec, NULL, 0, dep);
    } else {
        int                d  = nodes->my_node;
        gdc_coll_ring_ag_t ag = {
            .group = nodes->leaders, .owned = d, .chunks = gdc_coll_ring_chunks(sched, &vec, K - 1, GDC_COLL_ACROSS_NODES), .slot_base = 0,
            .out = vec, .first_buf = area, .first_base = bounds[d],
        };
        gdc_coll_ring_allgather(sched, &ag);
        gdc_coll_after_range(sched, first, dep);
    }
    free(bounds);
    return gdc_coll_join_range(sched, first, dep);
}

/* Scratch (node order) to the output (rank order), one copy per run of consecutive ranks. */
static int to_rank_order(gdc_coll_sched_t *sched, const gdc_coll_args_t *args, const gdc_coll_nodes_t *nodes, int dep)
{
    size_t   blk   = args->count;
    uint32_t first = sched->num_steps;

    for (int p = 0, end; p < args->size; p = end) {
        for (end = p + 1; end < args->size && nodes->members[end] == nodes->members[end - 1] + 1; end++) {
        }
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)nodes->members[p], blk * (size_t)(end - p)),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)p, blk * (size_t)(end - p)), dep);
    }
    return gdc_coll_join_range(sched, first, dep);
}

GDC_COLL_BUILDER(gdc_coll_allgather_hier)
{
    gdc_coll_nodes_t nodes;
    int              gathered, result = -1, in_order;
    gdc_status_t status;
    gdc_coll_buf_t   area;

    if ((status = gdc_coll_nodes_init(&nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    in_order = node_order_is_rank_order(&nodes, args->size);
    area     = in_order ? GDC_COLL_OUTPUT : GDC_COLL_SCRATCH;
    if (nodes.leaders.me >= 0 && !in_order) {
        gdc_coll_scratch(sched, args->count * (size_t)args->size * args->dsize);
    }
    gathered = gather_in_node(sched, args, &nodes, area, in_order && args->in_place);
    if (nodes.leaders.me >= 0) {
        result = nodes.num_nodes > 1 ? allgather_leaders(sched, args, &nodes, area, gathered) : gathered;
        if (!in_order) {
            result = to_rank_order(sched, args, &nodes, result);
        }
    }
    {
        /* a rank's receives overwrite the block it sent from (in place) */
        gdc_coll_pipe_bcast_t pb = {
            .group = nodes.local, .radix = 0, .root = 0,
            .region = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count * (size_t)args->size),
            .chunks = gdc_coll_chunks(args, GDC_COLL_IN_NODE, args->count * (size_t)args->size * args->dsize, 2), .slot_base = 1,
            .root_dep = result, .recv_dep = gathered,
        };
        gdc_coll_pipe_bcast(sched, &pb);
    }
    gdc_coll_nodes_fini(&nodes);
    return sched->status;
}
