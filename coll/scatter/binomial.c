/*
 * scatter binomial: the root's blocks go down a binomial tree, each rank receiving its
 * subtree's blocks as one message (in vrank order, in scratch) and passing its children
 * theirs; ceil(log2 n) rounds. A root other than rank 0 rotates its input first.
 */
#include "algos.h"

#include "phase/tree.h"

typedef struct scatter_ctx {
    size_t         blk;
    int            v;
    gdc_coll_buf_t buf;
    size_t         base;
    int            leaf; /* no children: my block arrives straight in the output */
} scatter_ctx_t;

static gdc_coll_region_t subtree_range(const gdc_coll_sched_t *sched, const void *arg, int lo, int hi)
{
    const scatter_ctx_t *s = arg;

    if (s->leaf && lo == s->v) {
        return gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, s->blk);
    }
    return gdc_coll_rgn(sched, s->buf, s->base + (size_t)(lo - s->v) * s->blk, (size_t)(hi - lo) * s->blk);
}

GDC_COLL_BUILDER(gdc_coll_scatter_binomial)
{
    int           n = args->size, root = args->root;
    int           v = gdc_coll_vrank(args->rank, root, n), end = gdc_coll_binomial_subtree_end(v, n);
    size_t        blk = args->count;
    scatter_ctx_t s   = {blk, v, GDC_COLL_SCRATCH, 0, end == v + 1};
    int           have = -1;
    gdc_coll_group_t all = gdc_coll_group_all(args);

    if (v == 0 && root == 0) {
        s.buf = GDC_COLL_INPUT;
    } else if (!s.leaf) {
        gdc_coll_scratch(sched, (size_t)(end - v) * blk * args->dsize);
    }
    if (v == 0 && root != 0) {
        /* scratch block i <- input block (i + root) % n */
        int deps[2];
        deps[0] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, blk * (size_t)(n - root)),
                                gdc_coll_rgn(sched, GDC_COLL_INPUT, blk * (size_t)root, blk * (size_t)(n - root)), -1);
        deps[1] = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_SCRATCH, blk * (size_t)(n - root), blk * (size_t)root),
                                gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, blk * (size_t)root), -1);
        have    = gdc_coll_join(sched, deps, 2);
    }
    have = gdc_coll_binomial_scatter(sched, &all, root, subtree_range, &s, 0, have, -1);
    /* my own block: from the subtree range to the output (the root in place keeps it in
     * its input, where it already is) */
    if (!s.leaf && !(v == 0 && args->in_place)) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, blk), subtree_range(sched, &s, v, v + 1), have);
    }
    return GDC_SUCCESS;
}
