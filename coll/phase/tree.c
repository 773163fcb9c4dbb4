#include "phase/tree.h"

#include "gdc_rt.h"

/* Receive slots of a reduce: two, so a child's data can arrive while the previous one is
 * being combined, without holding a whole vector per child. */
#define GDC_COLL_TREE_SLOTS 2
#define GDC_COLL_TREE_MAX_CHILDREN 256

int gdc_coll_tree_parent(int v, int n, int radix)
{
    long d = 1;

    if (v == 0) {
        return -1;
    }
    while (v % (d * radix) == 0) {
        d *= radix;
    }
    (void)n;
    return (int)(v - v % (d * radix));
}

int gdc_coll_tree_children(int v, int n, int radix, int *children, int max)
{
    int num = 0;

    for (long d = 1; d < n && v % (d * radix) == 0; d *= radix) {
        for (int j = 1; j < radix && v + j * d < n && num < max; j++) {
            children[num++] = (int)(v + j * d);
        }
    }
    return num;
}

size_t gdc_coll_tree_reduce(gdc_coll_sched_t *sched, gdc_coll_tree_reduce_t *tr)
{
    const gdc_coll_group_t *g = &tr->group;
    int               n = g->size;
    int               v = gdc_coll_vrank(g->me, tr->root, n);
    int               children[GDC_COLL_TREE_MAX_CHILDREN];
    int               num = gdc_coll_tree_children(v, n, tr->radix, children, GDC_COLL_TREE_MAX_CHILDREN);
    int               reduced[GDC_COLL_TREE_SLOTS] = {-1, -1};
    int               last = -1;
    gdc_coll_region_t cur  = tr->input;
    int               parent = gdc_coll_tree_parent(v, n, tr->radix);

    for (int i = 0; i < num; i++) {
        int               slot = i % GDC_COLL_TREE_SLOTS;
        gdc_coll_region_t tmp  = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH,
                                                    tr->scratch_base + (size_t)slot * tr->acc.length,
                                                    tr->acc.length);
        int recv = gdc_coll_recv(sched, gdc_coll_tree_peer(g, children[i], tr->root), tr->slot, tmp, reduced[slot]);

        last = gdc_coll_reduce(sched, tr->acc, cur, tmp, recv);
        gdc_coll_after(sched, last, i > 0 ? reduced[(i - 1) % GDC_COLL_TREE_SLOTS] : -1);
        reduced[slot] = last;
        cur           = tr->acc;
    }
    tr->send = -1;
    tr->done = last;
    if (parent >= 0) {
        tr->send = gdc_coll_send(sched, gdc_coll_tree_peer(g, parent, tr->root), tr->slot, cur, last);
    } else {
        if (num == 0 && cur.buf != tr->acc.buf) {
            tr->done = gdc_coll_copy(sched, tr->acc, cur, -1);
        }
        if (tr->avg) {
            tr->done = gdc_coll_avg(sched, tr->acc, tr->done);
        }
    }
    return (size_t)(num < GDC_COLL_TREE_SLOTS ? num : GDC_COLL_TREE_SLOTS) * tr->acc.length;
}

int gdc_coll_tree_bcast(gdc_coll_sched_t *sched, const gdc_coll_group_t *g, int radix, int root,
                        gdc_coll_region_t region, uint32_t slot, int root_dep, int recv_dep)
{
    int n = g->size;
    int v = gdc_coll_vrank(g->me, root, n);
    int children[GDC_COLL_TREE_MAX_CHILDREN];
    int num    = gdc_coll_tree_children(v, n, radix, children, GDC_COLL_TREE_MAX_CHILDREN);
    int parent = gdc_coll_tree_parent(v, n, radix);
    int have   = root_dep;

    if (parent >= 0) {
        have = gdc_coll_recv(sched, gdc_coll_tree_peer(g, parent, root), slot, region, recv_dep);
    }
    /* the largest subtrees (last in reduce order) first */
    for (int i = num - 1; i >= 0; i--) {
        gdc_coll_send(sched, gdc_coll_tree_peer(g, children[i], root), slot, region, have);
    }
    return have;
}

int gdc_coll_binomial_subtree_end(int v, int n)
{
    int end = v == 0 ? n : v + (v & -v);

    return end < n ? end : n;
}

int gdc_coll_binomial_scatter(gdc_coll_sched_t *sched, const gdc_coll_group_t *g, int root,
                              gdc_coll_range_fn_t range, const void *ctx, uint32_t slot, int root_dep,
                              int recv_dep)
{
    int n    = g->size;
    int v    = gdc_coll_vrank(g->me, root, n);
    int end  = gdc_coll_binomial_subtree_end(v, n);
    int have = root_dep;
    int d    = 1;

    if (v > 0) {
        gdc_coll_region_t mine = range(sched, ctx, v, end);
        have = mine.length ? gdc_coll_recv(sched, gdc_coll_tree_peer(g, v - (v & -v), root), slot, mine,
                                           recv_dep)
                           : recv_dep;
    }
    while (v + d < end) {
        d *= 2;
    }
    /* largest subtree first: it has the longest way to go */
    for (d /= 2; d >= 1; d /= 2) {
        int               child = v + d;
        gdc_coll_region_t part;

        if (child >= end) {
            continue;
        }
        part = range(sched, ctx, child, gdc_coll_binomial_subtree_end(child, n));
        if (part.length) {
            gdc_coll_send(sched, gdc_coll_tree_peer(g, child, root), slot, part, have);
        }
    }
    return have;
}

int gdc_coll_binomial_gather(gdc_coll_sched_t *sched, const gdc_coll_group_t *g, int root,
                             gdc_coll_range_fn_t range, const void *ctx, uint32_t slot, int own_dep,
                             int recv_dep, int *send)
{
    int n   = g->size;
    int v   = gdc_coll_vrank(g->me, root, n);
    int end = gdc_coll_binomial_subtree_end(v, n);
    int deps[32];
    int num = 0;

    deps[num++] = own_dep;
    for (int d = 1; v + d < end; d *= 2) {
        int               child = v + d;
        gdc_coll_region_t part  = range(sched, ctx, child, gdc_coll_binomial_subtree_end(child, n));

        if (part.length) {
            deps[num++] = gdc_coll_recv(sched, gdc_coll_tree_peer(g, child, root), slot, part, recv_dep);
        }
    }
    {
        int complete = num == 1 ? own_dep : gdc_coll_join(sched, deps, num);
        gdc_coll_region_t mine = range(sched, ctx, v, end);

        *send = -1;
        if (v > 0 && mine.length) {
            *send = gdc_coll_send(sched, gdc_coll_tree_peer(g, v - (v & -v), root), slot, mine, complete);
        }
        return complete;
    }
}

gdc_coll_region_t gdc_coll_blocks_range(const gdc_coll_sched_t *sched, const void *ctx, int lo, int hi)
{
    const gdc_coll_blocks_t *b     = ctx;
    size_t                   first = gdc_coll_block_offset(b->count, b->n, lo);

    return gdc_coll_rgn(sched, b->buf, b->base + first, gdc_coll_block_offset(b->count, b->n, hi) - first);
}
