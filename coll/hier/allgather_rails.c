/*
 * allgather hier_rails: a ring allgather inside every node gives each rank its node's
 * "package" (the blocks of the node's ranks); each package is cut into B parts (B = ranks
 * of the largest node, a node's ranks owning consecutive parts, as in allreduce
 * hier_rails) and the owners of part b on every node allgather their packages' parts b
 * along their rail (one NIC each); a ring allgather inside every node shares the parts
 * every rank brought; they go to their places. Each NIC carries 1/L of what crosses the
 * network, all of a node's NICs at once: for large blocks.
 *
 * Parts travel in a part-major scratch vector X (part 0 of every package in node order,
 * then part 1, ...), where a rail's parts are one range and a rank's parts are one range.
 * A node whose ranks are not consecutive in the communicator (round-robin placement)
 * gathers its package in scratch too.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

typedef struct ag_rails {
    const gdc_coll_args_t *args;
    gdc_coll_nodes_t       nodes;
    int                    blocks;   /* B */
    int                    in_order; /* my node's ranks are consecutive: its package is in the output */
    gdc_coll_buf_t         pkg_buf;  /* my node's package: where */
    size_t                 pkg_base; /*   and from which element */
    size_t                 x_base;   /* X in scratch, elements */
    size_t                *x;        /* [B * K + 1] element offsets in X of part b of package d */
    size_t                *bounds;   /* [max(K, L) + 1] */
    int                   *rail;     /* [K] */
} ag_rails_t;

static size_t package(const ag_rails_t *t, int d)
{
    return t->args->count * (size_t)gdc_coll_nodes_size(&t->nodes, d);
}

/* Part b of package d: its first element in the package, and its size. */
static size_t part_offset(const ag_rails_t *t, int d, int b)
{
    return gdc_coll_block_offset(package(t, d), t->blocks, b);
}

static size_t part_count(const ag_rails_t *t, int d, int b)
{
    return gdc_coll_block_count(package(t, d), t->blocks, b);
}

static gdc_coll_region_t in_x(const gdc_coll_sched_t *sched, const ag_rails_t *t, size_t lo, size_t hi)
{
    return gdc_coll_rgn(sched, GDC_COLL_SCRATCH, t->x_base + lo, hi - lo);
}

/* Phase 1: my node's package, everywhere in my node. */
static void package_in_node(gdc_coll_sched_t *sched, ag_rails_t *t)
{
    const gdc_coll_args_t *args = t->args;
    size_t                 blk  = args->count;
    int                    L    = t->nodes.local.size, me = t->nodes.local.me;
    gdc_coll_region_t      own  = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk)
                                                 : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    gdc_coll_region_t      place = gdc_coll_rgn(sched, t->pkg_buf, t->pkg_base + blk * (size_t)me, blk);

    if (!(t->in_order && args->in_place)) {
        gdc_coll_copy(sched, place, own, -1);
    }
    if (L > 1) {
        gdc_coll_vec_t     vec = {t->pkg_buf, t->pkg_base, blk * (size_t)L, L, NULL};
        gdc_coll_ring_ag_t ag  = {
            .group = t->nodes.local, .owned = me, .chunks = gdc_coll_ring_chunks(sched, &vec, 2 * (L - 1), GDC_COLL_IN_NODE),
            .slot_base = 0, .out = vec, .first_buf = (gdc_coll_buf_t)own.buf, .first_base = own.offset / args->dsize,
        };
        gdc_coll_ring_allgather(sched, &ag);
    }
}

/* Phase 2: my parts of my package into X, then each allgathered along its rail. */
static void allgather_rails(gdc_coll_sched_t *sched, ag_rails_t *t)
{
    const gdc_coll_nodes_t *nodes = &t->nodes;
    int                     B = t->blocks, K = nodes->num_nodes, L = nodes->local.size, me = nodes->local.me;
    int                     d = nodes->my_node;
    uint32_t                per_rail = GDC_COLL_MAX_SLOTS / (uint32_t)B;

    for (int b = gdc_coll_rails_first(B, L, me); b < gdc_coll_rails_first(B, L, me + 1); b++) {
        size_t           lo   = t->x[b * K], hi = t->x[(b + 1) * K];
        gdc_coll_group_t rail = gdc_coll_rails_group(nodes, B, b, t->rail);
        gdc_coll_vec_t   vec  = {GDC_COLL_SCRATCH, t->x_base + lo, hi - lo, K, t->bounds};
        int              mine;

        if (hi == lo) {
            continue;
        }
        mine = part_count(t, d, b) > 0
                   ? gdc_coll_copy(sched, in_x(sched, t, t->x[b * K + d], t->x[b * K + d + 1]),
                                   gdc_coll_rgn(sched, t->pkg_buf, t->pkg_base + part_offset(t, d, b), part_count(t, d, b)),
                                   -1)
                   : -1;
        for (int e = 0; e <= K; e++) {
            t->bounds[e] = t->x[b * K + e] - lo;
        }
        if ((hi - lo) * t->args->dsize <= t->args->config->hier_ring_bytes || per_rail < (uint32_t)(K - 1)) {
            gdc_coll_rd_allgatherv(sched, &rail, &vec, NULL, (uint32_t)b * per_rail, mine);
        } else {
            int                chunks = gdc_coll_ring_chunks(sched, &vec, K - 1, GDC_COLL_ACROSS_NODES);
            uint32_t           cap    = per_rail / (uint32_t)(K - 1);
            uint32_t           first  = sched->num_steps;
            gdc_coll_ring_ag_t ag     = {
                .group = rail, .owned = d, .chunks = (uint32_t)chunks > cap ? (int)cap : chunks,
                .slot_base = (uint32_t)b * per_rail, .out = vec, .first_buf = GDC_COLL_SCRATCH,
                .first_base = vec.base + t->bounds[d],
            };
            gdc_coll_ring_allgather(sched, &ag);
            gdc_coll_after_range(sched, first, mine);
        }
    }
}

/* Phase 3: the parts every rank of my node brought, to all of them (after phase 1's slots). */
static void parts_in_node(gdc_coll_sched_t *sched, ag_rails_t *t)
{
    int            B = t->blocks, K = t->nodes.num_nodes, L = t->nodes.local.size, me = t->nodes.local.me;
    gdc_coll_vec_t vec = {GDC_COLL_SCRATCH, t->x_base, t->x[B * K], L, t->bounds};
    gdc_coll_vec_t pkg = {t->pkg_buf, t->pkg_base, t->args->count * (size_t)L, L, NULL};

    for (int i = 0; i <= L; i++) {
        t->bounds[i] = t->x[gdc_coll_rails_first(B, L, i) * K];
    }
    {
        gdc_coll_ring_ag_t ag = {
            .group = t->nodes.local, .owned = me, .chunks = gdc_coll_ring_chunks(sched, &vec, 2 * (L - 1), GDC_COLL_IN_NODE),
            .slot_base = (uint32_t)((L - 1) * gdc_coll_ring_chunks(sched, &pkg, 2 * (L - 1), GDC_COLL_IN_NODE)), .out = vec,
            .first_buf = GDC_COLL_SCRATCH, .first_base = t->x_base + t->bounds[me],
        };
        gdc_coll_ring_allgather(sched, &ag);
    }
}

/* Elements [offset, offset + count) of node d's package (node order, blk per rank) from
 * `from` to their places in the output, one copy per rank block they touch (one copy when
 * the node's ranks are consecutive). */
static void to_places(gdc_coll_sched_t *sched, const ag_rails_t *t, int d, size_t offset, size_t count,
                      gdc_coll_region_t from, int consecutive)
{
    size_t blk = t->args->count, done = 0;

    while (done < count) {
        size_t x      = offset + done;
        size_t within = x % blk;
        size_t len    = consecutive ? count - done : (blk - within < count - done ? blk - within : count - done);
        int    rank   = gdc_coll_nodes_member(&t->nodes, d, (int)(x / blk));

        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)rank + within, len),
                      gdc_coll_rgn_bytes((gdc_coll_buf_t)from.buf, from.offset + done * t->args->dsize,
                                         len * t->args->dsize),
                      -1);
        done += len;
    }
}

static int is_consecutive(const gdc_coll_nodes_t *nodes, int d)
{
    for (int i = 1; i < gdc_coll_nodes_size(nodes, d); i++) {
        if (gdc_coll_nodes_member(nodes, d, i) != gdc_coll_nodes_member(nodes, d, 0) + i) {
            return 0;
        }
    }
    return 1;
}

/* Phase 4: the other nodes' parts from X (and my package from scratch) to their places. */
static void unpack(gdc_coll_sched_t *sched, const ag_rails_t *t)
{
    int B = t->blocks, K = t->nodes.num_nodes;

    for (int d = 0; d < K; d++) {
        int consecutive = is_consecutive(&t->nodes, d);
        if (d == t->nodes.my_node) {
            if (!t->in_order) {
                to_places(sched, t, d, 0, package(t, d),
                          gdc_coll_rgn(sched, GDC_COLL_SCRATCH, t->pkg_base, package(t, d)), 0);
            }
            continue;
        }
        for (int b = 0; b < B; b++) {
            if (part_count(t, d, b) > 0) {
                to_places(sched, t, d, part_offset(t, d, b), part_count(t, d, b),
                          in_x(sched, t, t->x[b * K + d], t->x[b * K + d + 1]), consecutive);
            }
        }
    }
}

static gdc_status_t build(gdc_coll_sched_t *sched, ag_rails_t *t)
{
    int      B = t->blocks, K = t->nodes.num_nodes, L = t->nodes.local.size;
    uint32_t first = sched->num_steps;
    int      prev;
    size_t   at = 0;

    /* X: part-major offsets */
    for (int b = 0; b < B; b++) {
        for (int d = 0; d < K; d++) {
            t->x[b * K + d + 1] = t->x[b * K + d] + part_count(t, d, b);
        }
    }
    t->in_order = is_consecutive(&t->nodes, t->nodes.my_node);
    t->pkg_buf  = t->in_order ? GDC_COLL_OUTPUT : GDC_COLL_SCRATCH;
    t->pkg_base = t->in_order ? t->args->count * (size_t)gdc_coll_nodes_member(&t->nodes, t->nodes.my_node, 0) : 0;
    at          = t->in_order ? 0 : package(t, t->nodes.my_node);
    t->x_base   = at;
    gdc_coll_scratch(sched, (at + t->x[B * K]) * t->args->dsize);

    /* the phases one after the other, each after everything before it */
    package_in_node(sched, t);
    prev  = gdc_coll_join_range(sched, first, -1);
    first = sched->num_steps;
    allgather_rails(sched, t);
    gdc_coll_after_range(sched, first, prev);
    prev = gdc_coll_join_range(sched, first, prev);
    if (L > 1) {
        first = sched->num_steps;
        parts_in_node(sched, t);
        gdc_coll_after_range(sched, first, prev);
        prev = gdc_coll_join_range(sched, first, prev);
    }
    first = sched->num_steps;
    unpack(sched, t);
    gdc_coll_after_range(sched, first, prev);
    return sched->status;
}

GDC_COLL_BUILDER(gdc_coll_allgather_hier_rails)
{
    ag_rails_t t = {.args = args};
    int        most;
    gdc_status_t status;

    if ((status = gdc_coll_nodes_init(&t.nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    t.blocks = t.nodes.max_local;
    most     = t.nodes.num_nodes > t.nodes.local.size ? t.nodes.num_nodes : t.nodes.local.size;
    t.x      = calloc((size_t)t.blocks * (size_t)t.nodes.num_nodes + 1, sizeof(size_t));
    t.bounds = malloc(((size_t)most + 1) * sizeof(size_t));
    t.rail   = malloc((size_t)t.nodes.num_nodes * sizeof(int));
    status   = t.x == NULL || t.bounds == NULL || t.rail == NULL ? GDC_ERR_NO_MEMORY : build(sched, &t);
    free(t.rail);
    free(t.bounds);
    free(t.x);
    gdc_coll_nodes_fini(&t.nodes);
    return status;
}

int gdc_coll_allgather_hier_rails_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_rails_fit(args, gdc_coll_group_allreduce_min_slots(args->num_nodes));
}
