/*
 * k-nomial trees over "virtual ranks" (group index - root mod n, so the root is 0), the shape
 * shared by the tree algorithms: reduce to the root and broadcast from it. Radix 2 is the
 * binomial tree.
 */
#ifndef GDC_COLL_TREE_H
#define GDC_COLL_TREE_H

#include "builder.h"

static inline int gdc_coll_vrank(int rank, int root, int n)
{
    return (rank - root + n) % n;
}

static inline int gdc_coll_real_rank(int vrank, int root, int n)
{
    return (vrank + root) % n;
}

/* The communicator rank of vrank v in group g rooted at group index root. */
static inline int gdc_coll_tree_peer(const gdc_coll_group_t *g, int v, int root)
{
    return gdc_coll_group_rank(g, gdc_coll_real_rank(v, root, g->size));
}

/* Parent of vrank v (-1 for the root) in the k-nomial tree over n. */
int gdc_coll_tree_parent(int v, int n, int radix);

/* Children of v in the order a reduce combines them (small subtrees first); returns how
 * many were written to children[] (at most (radix-1) * ceil(log_radix n)). */
int gdc_coll_tree_children(int v, int n, int radix, int *children, int max);

typedef struct gdc_coll_tree_reduce {
    gdc_coll_group_t  group;
    int               radix;
    int               root;         /* index in the group */
    uint32_t          slot;
    gdc_coll_region_t input;        /* my contribution */
    gdc_coll_region_t acc;          /* where my subtree's partial result accumulates */
    size_t            scratch_base; /* bytes: receive slots from here */
    int               avg;          /* the root finishes with GDC_AVG's division */
    int               send;         /* out: the send to the parent (-1 at the root) */
    int               done;         /* out: the step after which acc holds the result (root) */
} gdc_coll_tree_reduce_t;

/* Append the reduce; returns scratch bytes used from scratch_base. */
size_t gdc_coll_tree_reduce(gdc_coll_sched_t *sched, gdc_coll_tree_reduce_t *tr);

/* Append a broadcast of region from the root; the root's sends wait for root_dep, a
 * non-root's receive waits for recv_dep. Returns the receive (or root_dep at the root). */
int gdc_coll_tree_bcast(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, int radix, int root,
                        gdc_coll_region_t region, uint32_t slot, int root_dep, int recv_dep);

/*
 * Binomial scatter and gather of block ranges: vrank v's subtree is [v, v + lowbit(v)) (the
 * root's is [0, n)), so a subtree's blocks are one contiguous range when blocks are kept in
 * vrank order. range(ctx, lo, hi) gives the region holding blocks [lo, hi) at this rank.
 */
typedef gdc_coll_region_t (*gdc_coll_range_fn_t)(const gdc_coll_sched_t *sched, const void *ctx,
                                                 int lo, int hi);

/* One past the last vrank of v's subtree. */
int gdc_coll_binomial_subtree_end(int v, int n);

/* Receive my subtree's blocks from my parent (after recv_dep), pass the children's on.
 * Returns the step after which my range is here (the receive, or root_dep at the root). */
int gdc_coll_binomial_scatter(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, int root,
                              gdc_coll_range_fn_t range, const void *ctx, uint32_t slot, int root_dep,
                              int recv_dep);

/* Collect the children's blocks (their receives wait for recv_dep), then (after own_dep)
 * send my whole range to my parent. Returns the step after which my range is complete here;
 * *send is the send to the parent (-1 at the root). */
int gdc_coll_binomial_gather(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, int root,
                             gdc_coll_range_fn_t range, const void *ctx, uint32_t slot, int own_dep,
                             int recv_dep, int *send);

/* range callback: blocks of a vector of ctx->count elements cut into n blocks, stored at
 * their places from element ctx->base of ctx->buf. */
typedef struct gdc_coll_blocks {
    gdc_coll_buf_t buf;
    size_t         base;
    size_t         count;
    int            n;
} gdc_coll_blocks_t;

gdc_coll_region_t gdc_coll_blocks_range(const gdc_coll_sched_t *sched, const void *ctx, int lo, int hi);

#endif
