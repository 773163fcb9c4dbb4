/*
 * gather binomial: blocks climb a binomial tree to the root, each rank forwarding its
 * subtree's blocks as one message (kept in vrank order in scratch); ceil(log2 n) rounds.
 * The root with rank 0 gathers straight into its output; another root rotates at the end.
 */
#include "algos.h"

#include "phase/tree.h"

typedef struct gather_ctx {
    size_t         blk;
    int            v;    /* my vrank: scratch block 0 is mine */
    gdc_coll_buf_t buf;  /* where my subtree's blocks collect */
    size_t         base; /* element of block v there */
    int            leaf; /* no children: my block goes out straight from the input */
    gdc_coll_region_t own;
} gather_ctx_t;

static gdc_coll_region_t subtree_range(const gdc_coll_sched_t *sched, const void *arg, int lo, int hi)
{
    const gather_ctx_t *g = arg;

    if (g->leaf && lo == g->v) {
        return g->own;
    }
    return gdc_coll_rgn(sched, g->buf, g->base + (size_t)(lo - g->v) * g->blk, (size_t)(hi - lo) * g->blk);
}

GDC_COLL_BUILDER(gdc_coll_gather_binomial)
{
    int          n = args->size, root = args->root;
    int          v = gdc_coll_vrank(args->rank, root, n), end = gdc_coll_binomial_subtree_end(v, n);
    size_t       blk = args->count;
    gather_ctx_t g = {blk, v, GDC_COLL_SCRATCH, 0, end == v + 1, {0}};
    int          own = -1, send, done;
    gdc_coll_group_t all = gdc_coll_group_all(args);

    g.own = args->in_place ? gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)args->rank, blk)
                           : gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk);
    if (v == 0 && root == 0) {
        g.buf = GDC_COLL_OUTPUT; /* vrank order is rank order */
    } else if (!g.leaf) {
        gdc_coll_scratch(sched, (size_t)(end - v) * blk * args->dsize);
    }
    if (!g.leaf && !(g.buf == GDC_COLL_OUTPUT && args->in_place)) {
        own = gdc_coll_copy(sched, subtree_range(sched, &g, v, v + 1), g.own, -1);
    }
    done = gdc_coll_binomial_gather(sched, &all, root, subtree_range, &g, 0, own, -1, &send);
    if (v == 0 && root != 0) {
        /* scratch block i holds rank (i + root) % n */
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)root, blk * (size_t)(n - root)),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk * (size_t)(n - root)), done);
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk * (size_t)root),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)(n - root), blk * (size_t)root), done);
    }
    return GDC_SUCCESS;
}
