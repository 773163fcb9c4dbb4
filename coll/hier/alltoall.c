/*
 * alltoall hier: node-aware aggregation. For every pair of nodes (d, e) one rank of d, its
 * aggregator for e, collects what all of d's ranks send to e's ranks and exchanges it with
 * e's aggregator for d in one message each way; each aggregator then hands every rank of
 * its node the blocks from e that are its. Blocks between ranks of one node go directly.
 * Between nodes: one message per node pair instead of one per rank pair, and the
 * aggregators of a node (spread over its ranks, so over its NICs) share the work.
 *
 * Slots inside a node: e for what goes to the aggregator for node e, the own node's number
 * for the direct blocks, nodes + e for what comes back from e; between nodes: 0.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

typedef struct a2a {
    const gdc_coll_args_t *args;
    gdc_coll_nodes_t       nodes;
    size_t                 blk;   /* elements per block */
    gdc_coll_buf_t         src;   /* where my blocks are (the output, in place) */
    size_t                 at;    /* scratch in use, bytes */
    int                   *read;  /* [nodes] the step after which I am done reading my blocks for node e */
} a2a_t;

/* The local index of node d's aggregator for node e: the pairs spread over d's ranks. */
static int aggregator(const gdc_coll_nodes_t *nodes, int d, int e)
{
    int K = nodes->num_nodes;

    return ((e - d + K) % K - 1) % gdc_coll_nodes_size(nodes, d);
}

static int consecutive(const gdc_coll_nodes_t *nodes, int e)
{
    for (int j = 1; j < gdc_coll_nodes_size(nodes, e); j++) {
        if (gdc_coll_nodes_member(nodes, e, j) != gdc_coll_nodes_member(nodes, e, 0) + j) {
            return 0;
        }
    }
    return 1;
}

static gdc_coll_region_t scratch_blocks(gdc_coll_sched_t *sched, a2a_t *t, size_t blocks)
{
    gdc_coll_region_t r = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, t->at, blocks * t->blk * t->args->dsize);

    t->at += r.length;
    return r;
}

/* Block i of a packed run of blocks from `packed` with a stride of `stride` blocks. */
static gdc_coll_region_t packed_block(const a2a_t *t, gdc_coll_region_t packed, size_t i, size_t stride, size_t blocks)
{
    size_t bytes = t->blk * t->args->dsize;

    return gdc_coll_rgn_bytes((gdc_coll_buf_t)packed.buf, packed.offset + i * stride * bytes, blocks * bytes);
}

/* Copy node e's blocks between their places in rank order in `spread` (block of rank p at
 * p) and a packed run (block of e's i-th rank at i * stride), one copy per run that is
 * consecutive on both sides; returns the join of the copies. */
static int copy_node_blocks(gdc_coll_sched_t *sched, const a2a_t *t, int e, gdc_coll_buf_t spread,
                            gdc_coll_region_t packed, size_t stride, int to_spread, int dep)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    int                     Le    = gdc_coll_nodes_size(nodes, e);
    uint32_t                first = sched->num_steps;

    for (int i = 0, end; i < Le; i = end) {
        int p = gdc_coll_nodes_member(nodes, e, i);
        gdc_coll_region_t run, place;

        for (end = i + 1; stride == 1 && end < Le && gdc_coll_nodes_member(nodes, e, end) == p + (end - i); end++) {
        }
        run   = packed_block(t, packed, (size_t)i, stride, (size_t)(end - i));
        place = gdc_coll_rgn(sched, spread, t->blk * (size_t)p, t->blk * (size_t)(end - i));
        gdc_coll_copy(sched, to_spread ? place : run, to_spread ? run : place, dep);
    }
    return gdc_coll_join_range(sched, first, dep);
}

/* My blocks for node e to its aggregator (me, maybe: then into `out`, my row of the pack). */
static void to_aggregator(gdc_coll_sched_t *sched, a2a_t *t, int e, gdc_coll_region_t out)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    int                     d = nodes->my_node, me = nodes->local.me, a = aggregator(nodes, d, e);
    int                     Le = gdc_coll_nodes_size(nodes, e);
    gdc_coll_region_t       mine;

    if (consecutive(nodes, e)) {
        mine = gdc_coll_rgn(sched, t->src, t->blk * (size_t)gdc_coll_nodes_member(nodes, e, 0), t->blk * (size_t)Le);
        t->read[e] = a == me ? gdc_coll_copy(sched, out, mine, -1)
                             : gdc_coll_send(sched, gdc_coll_local_rank(nodes, a), (uint32_t)e, mine, -1);
        return;
    }
    mine       = a == me ? out : scratch_blocks(sched, t, (size_t)Le);
    t->read[e] = copy_node_blocks(sched, t, e, t->src, mine, 1, 0, -1);
    if (a != me) {
        gdc_coll_send(sched, gdc_coll_local_rank(nodes, a), (uint32_t)e, mine, t->read[e]);
    }
}

/* As node d's aggregator for e: collect d's blocks for e, swap with e's aggregator for d,
 * hand each rank of d its blocks from e (to me: straight into place). */
static void aggregate(gdc_coll_sched_t *sched, a2a_t *t, int e)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    const gdc_coll_args_t  *args  = t->args;
    int                     d = nodes->my_node, me = nodes->local.me, Ld = nodes->local.size;
    int                     Le = gdc_coll_nodes_size(nodes, e), K = nodes->num_nodes;
    int                     partner = gdc_coll_nodes_member(nodes, e, aggregator(nodes, e, d));
    gdc_coll_region_t       out = scratch_blocks(sched, t, (size_t)(Ld * Le)); /* [my node's i][e's j] */
    gdc_coll_region_t       in  = scratch_blocks(sched, t, (size_t)(Le * Ld)); /* [e's i][my node's j] */
    uint32_t                first = sched->num_steps;
    int                     full, got;

    for (int i = 0; i < Ld; i++) {
        gdc_coll_region_t row = packed_block(t, out, (size_t)(i * Le), 1, (size_t)Le);
        if (i == me) {
            to_aggregator(sched, t, e, row);
        } else {
            gdc_coll_recv(sched, gdc_coll_local_rank(nodes, i), (uint32_t)e, row, -1);
        }
    }
    full = gdc_coll_join_range(sched, first, -1);
    gdc_coll_send(sched, partner, 0, out, full);
    got = gdc_coll_recv(sched, partner, 0, in, -1);
    for (int j = 0; j < Ld; j++) {
        gdc_coll_region_t column = packed_block(t, in, (size_t)j, 1, 1); /* e's rank 0's block for j */
        if (j == me) {
            int deps[2] = {got, args->in_place ? t->read[e] : -1};
            copy_node_blocks(sched, t, e, GDC_COLL_OUTPUT, column, (size_t)Ld, 1, gdc_coll_join(sched, deps, 2));
            continue;
        }
        if (Le > 1) {
            gdc_coll_region_t packed = scratch_blocks(sched, t, (size_t)Le);
            uint32_t          from   = sched->num_steps;
            for (int i = 0; i < Le; i++) {
                gdc_coll_copy(sched, packed_block(t, packed, (size_t)i, 1, 1),
                              packed_block(t, in, (size_t)(i * Ld + j), 1, 1), got);
            }
            gdc_coll_send(sched, gdc_coll_local_rank(nodes, j), (uint32_t)(K + e), packed,
                          gdc_coll_join_range(sched, from, got));
        } else {
            gdc_coll_send(sched, gdc_coll_local_rank(nodes, j), (uint32_t)(K + e), column, got);
        }
    }
}

/* My blocks from node e, from my node's aggregator for e. */
static void from_aggregator(gdc_coll_sched_t *sched, a2a_t *t, int e)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    int                     a     = aggregator(nodes, nodes->my_node, e), Le = gdc_coll_nodes_size(nodes, e);
    int                     from  = gdc_coll_local_rank(nodes, a);
    uint32_t                slot  = (uint32_t)(nodes->num_nodes + e);
    int                     after = t->args->in_place ? t->read[e] : -1; /* in place: where my blocks for e were */

    if (consecutive(nodes, e)) {
        gdc_coll_recv(sched, from, slot,
                      gdc_coll_rgn(sched, GDC_COLL_OUTPUT, t->blk * (size_t)gdc_coll_nodes_member(nodes, e, 0),
                                   t->blk * (size_t)Le),
                      after);
    } else {
        gdc_coll_region_t packed = scratch_blocks(sched, t, (size_t)Le);
        int               deps[2] = {gdc_coll_recv(sched, from, slot, packed, -1), after};
        copy_node_blocks(sched, t, e, GDC_COLL_OUTPUT, packed, 1, 1, gdc_coll_join(sched, deps, 2));
    }
}

/* Blocks between the ranks of my node: straight to each other. */
static void within_node(gdc_coll_sched_t *sched, a2a_t *t)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    int                     Ld = nodes->local.size, me = nodes->local.me, r = t->args->rank;
    uint32_t                slot = (uint32_t)nodes->my_node;
    int                    *sent = malloc((size_t)Ld * sizeof(int));

    if (sent == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    if (!t->args->in_place) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, t->blk * (size_t)r, t->blk),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, t->blk * (size_t)r, t->blk), -1);
    }
    for (int k = 1; k < Ld; k++) {
        int to = gdc_coll_local_rank(nodes, (me + k) % Ld);
        sent[(me + k) % Ld] = gdc_coll_send(sched, to, slot, gdc_coll_rgn(sched, t->src, t->blk * (size_t)to, t->blk), -1);
    }
    for (int k = 1; k < Ld; k++) {
        int               i = (me - k + Ld) % Ld, from = gdc_coll_local_rank(nodes, i);
        gdc_coll_region_t place = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, t->blk * (size_t)from, t->blk);

        if (!t->args->in_place) {
            gdc_coll_recv(sched, from, slot, place, -1);
        } else {
            /* the block from `from` lands where my block for it is: in scratch first (a receive
             * waiting for my send would wait for `from`'s, which waits for mine) */
            gdc_coll_region_t tmp  = scratch_blocks(sched, t, 1);
            int               deps[2] = {gdc_coll_recv(sched, from, slot, tmp, -1), sent[i]};
            gdc_coll_copy(sched, place, tmp, gdc_coll_join(sched, deps, 2));
        }
    }
    free(sent);
}

GDC_COLL_BUILDER(gdc_coll_alltoall_hier)
{
    a2a_t t = {.args = args, .blk = args->count, .src = args->in_place ? GDC_COLL_OUTPUT : GDC_COLL_INPUT};
    int   d;
    gdc_status_t status;

    if ((status = gdc_coll_nodes_init(&t.nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    t.read = malloc((size_t)t.nodes.num_nodes * sizeof(int));
    if (t.read == NULL) {
        gdc_coll_nodes_fini(&t.nodes);
        return GDC_ERR_NO_MEMORY;
    }
    d = t.nodes.my_node;
    within_node(sched, &t);
    /* everything I send first (my aggregations include my own blocks), then what comes back;
     * node d starts with node d + 1, so that no node is every node's first destination */
    for (int k = 1; k < t.nodes.num_nodes; k++) {
        int e = (d + k) % t.nodes.num_nodes;

        if (aggregator(&t.nodes, d, e) == t.nodes.local.me) {
            aggregate(sched, &t, e);
        } else {
            to_aggregator(sched, &t, e, gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, 0));
        }
    }
    for (int k = 1; k < t.nodes.num_nodes; k++) {
        int e = (d - k + t.nodes.num_nodes) % t.nodes.num_nodes;

        if (aggregator(&t.nodes, d, e) != t.nodes.local.me) {
            from_aggregator(sched, &t, e);
        }
    }
    gdc_coll_scratch(sched, t.at);
    free(t.read);
    gdc_coll_nodes_fini(&t.nodes);
    return sched->status;
}
