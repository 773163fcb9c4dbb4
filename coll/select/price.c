/*
 * The fast model (see price.h): the phases algorithms are made of, priced in closed form
 * with the simulator's rules. A message costs the sender one step overhead o, then
 * latency + bytes / bandwidth on its link (a rank's own link inside a node, the node's
 * NICs between nodes: ranks sending off the node at once share them), then o at the
 * receiver; a reduction or copy costs o + bytes / rate of the rank's one CPU; a
 * shared-memory signal is seen signal_latency after it is raised. Pipelines overlap their
 * chunks: a phase of R rounds of C chunks costs the longer of its steady stream and of one
 * chunk's way through every round.
 */
#include "select/price.h"

#include "builder.h"
#include "hier/common.h"
#include "phase/phase.h"
#include "phase/ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/heap.h"
#include "select/price_phases.h"

static int node(const gdc_coll_args_t *args, int r)
{
    return args->node_of != NULL && args->num_nodes > 1 ? args->node_of[r] : 0;
}

/* Rank r's partner in the fold of a non-power of two (2j hands its data to 2j + 1), or -1. */
static int fold_partner(const gdc_coll_args_t *args, int r)
{
    gdc_coll_fold_t fold = gdc_coll_fold(args->size, r);

    return fold.newrank < 0 ? r + 1 : -1;
}

/* For each rank, the most boundaries a chain of rotation rounds crosses on its way there:
 * after the round of distance d, the most of its own and of its partner d behind (plus one
 * if that partner is on another node). */
static int most_off_on_a_chain(const gdc_coll_args_t *args)
{
    int *crossed = calloc((size_t)args->size * 2, sizeof(int)), *prev, *next, most = 0;

    if (crossed == NULL) {
        return GDC_COLL_LAYOUT_DISTANCES; /* as if every round crossed */
    }
    prev = crossed;
    next = crossed + args->size;
    for (int d = 1; d < args->size; d *= 2) {
        for (int r = 0; r < args->size; r++) {
            int from = (r - d % args->size + args->size) % args->size;
            int via  = prev[from] + (node(args, from) != node(args, r));
            next[r]  = via > prev[r] ? via : prev[r];
        }
        int *swap = prev;
        prev      = next;
        next      = swap;
    }
    for (int r = 0; r < args->size; r++) {
        most = prev[r] > most ? prev[r] : most;
    }
    free(crossed);
    return most;
}

/* The most ranks of one node whose partner is on another node; off[] is per node. */
static int most_off_in_fold(const gdc_coll_args_t *args, int *off, int nodes)
{
    int most = 0;

    memset(off, 0, (size_t)nodes * sizeof(int));
    for (int r = 0; r < args->size; r++) {
        int q = fold_partner(args, r);
        if (q >= 0 && node(args, q) != node(args, r)) {
            off[node(args, r)]++;
        }
    }
    for (int d = 0; d < nodes; d++) {
        most = off[d] > most ? off[d] : most;
    }
    return most;
}

/* ---------------------------------------------------------------------------------------
 * Trees' slowest ways. A tree's time is that of its slowest way from the root to a rank (or
 * back): each hop a message, after the sender's earlier sends to its other children (one
 * step overhead each, and their transfers when they share the link), behind the node's
 * other ranks' messages of the same level on its NICs, before the receiver's reductions of
 * its later children. Which way is the slowest depends on the costs (one with more hops
 * between nodes, or one behind more queued transfers), so the layout keeps the slowest for
 * each of a few regimes, priced later at the call's own costs.
 */

/* The NICs per node the layout counts the sharing for (the price takes the nearest below). */
static const int tree_nics[GDC_COLL_TREE_NICS] = {1, 2, 4, 8};

/* Every NIC of a node, were its NICs each count of tree_nics: 1 + 2 + 4 + 8 slots. */
#define NIC_SLOTS 15

/* The slot of the NIC a rank of index `local` in its node uses where the node has
 * tree_nics[k] of them (its index modulo their count, as the simulator picks it). */
static int nic_slot(int k, int local)
{
    return tree_nics[k] - 1 + local % tree_nics[k];
}

static int tree_nics_index(int nics)
{
    int i = 0;

    while (i + 1 < GDC_COLL_TREE_NICS && tree_nics[i + 1] <= nics) {
        i++;
    }
    return i;
}

/* What each count of a path costs: a step, a latency out or in, a transfer out or in, a
 * transfer queued behind the sender's own (what its steps do not hide), a reduction, a
 * transfer behind the node's other ranks' on its NICs. */
typedef struct tree_weights {
    double w[9];
    int    nics; /* index in tree_nics */
} tree_weights_t;

static tree_weights_t tree_weights(double o, double lat_out, double lat_in, double x_out, double x_in, double reduce,
                                   int nics)
{
    tree_weights_t t = {{o, lat_out, lat_in, x_out, x_in, x_out > o ? x_out - o : 0, x_in > o ? x_in - o : 0, reduce,
                         x_out},
                        tree_nics_index(nics)};

    return t;
}

/* A regime: the costs of the default machine (one NIC) or of dgx-h100 (eight) at 8 B,
 * 64 KiB or 1 MiB (microseconds; bytes per microsecond): larger sizes weigh the counts as
 * 1 MiB does. */
static tree_weights_t tree_regime(int regime)
{
    static const double machines[2][7] = {
        /* o, lat_out, lat_in, bw_out, bw_in, gamma, nics */
        {0.05, 15, 0.4, 1.2e3, 8e3, 12e3, 1},
        {1, 5, 3, 48e3, 390e3, 1000e3, 8},
    };
    static const double sizes[3] = {8, 65536, 1 << 20};
    const double       *m = machines[regime / 3];
    double              b = sizes[regime % 3];

    return tree_weights(m[0], m[1], m[2], b / m[3], b / m[4], m[0] + b / m[5], (int)m[6]);
}

static double tree_path_cost(const gdc_coll_tree_path_t *t, const tree_weights_t *c)
{
    const double *w = c->w;

    return w[0] * t->steps + w[1] * t->out + w[2] * t->in + w[3] * t->xfer_out + w[4] * t->xfer_in +
           w[5] * t->queued_out + w[6] * t->queued_in + w[7] * t->reduces + w[8] * t->shared_out[c->nics];
}

/* A tree of the radix over args's ranks (vrank = rank: rooted at 0), with the off-node
 * messages of each node at each level, sent (down: the parents' nodes) and received (up:
 * the children's), which share the node's NICs: per NIC, by their senders' NICs. */
typedef struct tree_walk {
    const gdc_coll_args_t *args;
    int                    radix, levels, nodes, root;
    int                   *down_off, *up_off; /* [(node * levels + level) * NIC_SLOTS + slot] */
    int                   *local;             /* [rank]: its index in its node */
} tree_walk_t;

/* The hop's parent and level (distance radix^level) of vrank v > 0. */
static int tree_up(int v, int radix, long *dist, int *level)
{
    *dist  = 1;
    *level = 0;
    while (v % (*dist * radix) == 0) {
        *dist *= radix;
        (*level)++;
    }
    return (int)(v - v % (*dist * radix));
}

/* The level of vrank x > 0's hop from its parent (its trailing zero digits in the radix):
 * no other rank of its subtree has it, so its slot keeps its way while they need it. */
static int tree_level_of(int x, int radix)
{
    int level = 0;

    while (x % radix == 0) {
        x /= radix;
        level++;
    }
    return level;
}

/* The node of vrank v: the trees are rooted at args->root (vrank 0). */
static int vnode(const tree_walk_t *tw, int v)
{
    return node(tw->args, (v + tw->root) % tw->args->size);
}

/* The level's counts (NIC_SLOTS of them) of vrank v's node in `counts`. */
static int *tree_nic_counts(const tree_walk_t *tw, int *counts, int v, int level)
{
    return &counts[((size_t)vnode(tw, v) * (size_t)tw->levels + (size_t)level) * NIC_SLOTS];
}

static int tree_walk_init(tree_walk_t *tw, const gdc_coll_args_t *args, int radix)
{
    tw->args   = args;
    tw->radix  = radix;
    tw->root   = args->root >= 0 && args->root < args->size ? args->root : 0;
    tw->nodes  = args->node_of != NULL && args->num_nodes > 1 ? args->num_nodes : 1;
    tw->levels = 1;
    for (long d = 1; d * radix < args->size; d *= radix) {
        tw->levels++;
    }
    size_t cells = (size_t)tw->nodes * (size_t)tw->levels * NIC_SLOTS;

    tw->down_off = calloc(cells * 2 + (size_t)args->size + (size_t)tw->nodes, sizeof(int));
    if (tw->down_off == NULL) {
        return -1;
    }
    tw->up_off = tw->down_off + cells;
    tw->local  = tw->up_off + cells;
    for (int r = 0, *seen = tw->local + args->size; r < args->size; r++) {
        tw->local[r] = seen[node(args, r)]++;
    }
    for (int v = 1; v < args->size; v++) {
        long dist;
        int  level, u = tree_up(v, radix, &dist, &level);
        if (vnode(tw, u) != vnode(tw, v)) {
            int *down = tree_nic_counts(tw, tw->down_off, u, level), *up = tree_nic_counts(tw, tw->up_off, v, level);
            int  lu = tw->local[(u + tw->root) % args->size], lv = tw->local[(v + tw->root) % args->size];
            for (int i = 0; i < GDC_COLL_TREE_NICS; i++) {
                down[nic_slot(i, lu)]++;
                up[nic_slot(i, lv)]++;
            }
        }
    }
    return 0;
}

static void tree_path_add(gdc_coll_tree_path_t *t, int crosses, int steps, int xfers, int queued, int reduces)
{
    t->steps += steps;
    t->reduces += reduces;
    if (crosses) {
        t->out++;
        t->xfer_out += xfers;
        t->queued_out += queued;
    } else {
        t->in++;
        t->xfer_in += xfers;
        t->queued_in += queued;
    }
}

/* The transfers (of `unit` each) a message between nodes from a rank of index `local` in
 * its node waits behind on its NIC: those of the node's level on that NIC (counts), of
 * which the sender's own `own` are counted already. (Spread evenly over the node's NICs,
 * a root's messages queued behind other ranks' on NICs of their own: allreduce knomial,
 * 1 MiB on 12 ranks dealt round robin to 4 nodes, dgx-h100, came out at 1.13 times the
 * simulator's time.) */
static void tree_path_share(gdc_coll_tree_path_t *t, const int *counts, int local, int own, int unit)
{
    for (int i = 0; i < GDC_COLL_TREE_NICS; i++) {
        int total = counts[nic_slot(i, local)];
        t->shared_out[i] += (total > own ? total - own : 0) * unit;
    }
}

/* The ranks of the subtree of binomial vrank v (v itself included). */
static int subtree_size(int v, int n)
{
    int end = v == 0 ? n : v + (v & -v);

    return (end < n ? end : n) - v;
}

/* The hop from u to its child v (at level `level`), added to each kind's way: the broadcast
 * (the children sent to from the farthest down: those at or after v in the builders' list
 * go first), the reduce (the siblings of v's level send when it does, those before it
 * arriving first on the same link; v's data is reduced, then those of the children after
 * it), and with radix 2 the scatter (subtrees' blocks, the largest first) and the gather
 * (v's subtree's blocks; the smaller subtrees' are in before, not in its way). */
static void tree_hop(const tree_walk_t *tw, int u, int v, int level, gdc_coll_tree_path_t *paths[4])
{
    const gdc_coll_args_t *args = tw->args;
    int n = args->size, radix = tw->radix, crosses = vnode(tw, u) != vnode(tw, v);
    int after = 0, same_after = 0, blocks_after = 0, level_ahead = 0, level_off = 0, ahead_from_mine = 0, l = 0;
    int gathered_with = 0;

    for (long d = 1; d < n && u % (d * radix) == 0; d *= radix, l++) {
        for (int j = 1; j < radix && u + j * d < n; j++) {
            int w = (int)(u + j * d), same = (vnode(tw, u) != vnode(tw, w)) == crosses;
            /* a gather's sibling below v whose subtree is no smaller (v's is cut short by
             * the end of the ranks) sends no later than v, on the same link into u */
            gathered_with += w < v && same && subtree_size(w, n) >= subtree_size(v, n) ? subtree_size(w, n) : 0;
            /* a sibling after v with a larger subtree sends later, and where it is ready
             * before v's blocks are in, its blocks follow them on the link: the way through
             * v takes both (never more than the sibling's own way then; a gather of 1 MiB
             * blocks on 7 ranks of one node of dgx-h100, rank 4's three blocks queued behind
             * rank 2's two on the root's link: priced without, 0.90 of the simulator's time) */
            gathered_with += w > v && same && subtree_size(w, n) > subtree_size(v, n) ? subtree_size(w, n) : 0;
            level_ahead += w < v && same &&
                           (l == level || (radix == 2 && subtree_size(w, n) >= subtree_size(v, n)));
            ahead_from_mine += l == level && w < v && same && vnode(tw, w) == vnode(tw, v);
            level_off += l == level && vnode(tw, u) != vnode(tw, w);
            if (w >= v) {
                after++;
                same_after += same;
                blocks_after += same ? subtree_size(w, n) : 0;
            }
        }
    }
    tree_path_add(paths[0], crosses, after + 1, 1, same_after - 1, 0);
    tree_path_add(paths[1], crosses, 2, 1 + level_ahead, 0, after);
    if (crosses) {
        int lu = tw->local[(u + tw->root) % n], lv = tw->local[(v + tw->root) % n];
        tree_path_share(paths[0], tree_nic_counts(tw, tw->down_off, u, level), lu, level_off, 1);
        /* the siblings ahead of v from v's own node are in both queues: counted once */
        tree_path_share(paths[1], tree_nic_counts(tw, tw->up_off, v, level), lv, 1 + ahead_from_mine, 1);
    }
    if (paths[2] != NULL) {
        tree_path_add(paths[2], crosses, after + 1, blocks_after, 0, 0);
        tree_path_add(paths[3], crosses, 2, subtree_size(v, n) + gathered_with, 0, 0);
        /* a scatter's senders of one level send when their own subtree's blocks are in, at
         * different times: their node's NICs (tree_nic_load) bound them, not a queue per level */
        if (crosses) {
            tree_path_share(paths[3], tree_nic_counts(tw, tw->up_off, v, level), tw->local[(v + tw->root) % n], 1,
                            subtree_size(v, n));
        }
    }
}

/* A tree kind's messages go from the root down (bcast, scatter), not up to it; carry a
 * subtree's blocks (scatter, gather), not the whole vector; are reduced on the way. */
static int tree_kind_down(int kind)
{
    return kind == GDC_COLL_TREE_BCAST || kind == GDC_COLL_TREE_RADIX_BCAST || kind == GDC_COLL_TREE_SCATTER;
}

static int tree_kind_blocks(int kind)
{
    return kind == GDC_COLL_TREE_SCATTER || kind == GDC_COLL_TREE_GATHER;
}

/* What of a way's cost is queueing behind other messages: its NIC share, and where the
 * kind carries the whole vector (one transfer a hop), its transfers beyond one a hop. */
static double tree_path_queues(const gdc_coll_tree_path_t *t, const tree_weights_t *c, int kind)
{
    const double *w = c->w;
    double        q = w[8] * t->shared_out[c->nics];

    if (!tree_kind_blocks(kind)) {
        q += w[3] * (t->xfer_out > t->out ? t->xfer_out - t->out : 0) +
             w[4] * (t->xfer_in > t->in ? t->xfer_in - t->in : 0);
    }
    return q;
}

static int tree_kind_reduces(int kind)
{
    return kind == GDC_COLL_TREE_REDUCE || kind == GDC_COLL_TREE_RADIX_REDUCE;
}

/* Whether the layout makes this kind's trees (layout->tree_kinds). */
static int tree_kind_made(const gdc_coll_layout_t *layout, int kind)
{
    return (layout->tree_kinds & (1u << kind)) != 0;
}

/* ---------------------------------------------------------------------------------------
 * A tree's transfers between nodes through their dependencies, as the simulator runs them
 * with only the NICs' time counted. A rank sends on once its message is in (bcast,
 * scatter) or its children's are (reduce, gather); a transfer takes a time unit per vector
 * or block on the sender's NIC, in the order they are sent, and on the receiver's, in its
 * first free gaps from then; hops inside a node take none. The last arrival is the tree's
 * slowest chain of NIC queues: the busiest NIC's load where its transfers do not wait for
 * other queues, more where one does (a message that left a busy NIC late queues again on a
 * busy receiver, then the one it enables on the next). Per layout, O(ranks log ranks).
 * Run again with the hops inside a node taking time (a parent's, one after another on its
 * link), the chain also sees a NIC that waits for the hops inside its node before its
 * first message (a scatter's, in round robin), or hops inside the root's node after its
 * last (a gather's in blocks: the blocks of the other node come in to one rank, which
 * sends them on to the root): 97.4 to 98.3% of the four binomial trees' prices were
 * within 10% of the simulator's time, then 97.9 to 99.5% (97.8 to 99.5% with their NICs
 * counted per sender).
 */

typedef struct chain_event {
    long t;
    int  prio, v, rx; /* the hop into or out of vrank v (by its child side); rx: its arrival */
} chain_event_t;

/* A receiving NIC's busy spans [start, end), in order: a message takes its first gaps. */
typedef struct chain_rx {
    long *span; /* start, end, ... */
    int   len, cap;
} chain_rx_t;

typedef struct chain {
    const tree_walk_t *tw;
    int                down, blocks, len;
    long               nic_w, inside_w;  /* time units of a transfer on a NIC, on a link inside */
    long               hop_w, lat_w;     /* of a hop's latency and steps inside a node, between nodes */
    chain_event_t     *heap;
    long              *at, *tx_free;     /* at: [vrank]; tx_free: [node][8] */
    long              *link_free;        /* [vrank]: a parent's link inside its node */
    chain_rx_t        *rx;               /* [node][8]: the receivers' booked time */
    int               *parent, *tx, *to; /* [vrank]: the hop into or out of it and its NICs (tx -1:
                                            inside a node) */
    int               *cell;             /* [vrank]: node * 8 + its index in the node (mod 8) */
    int               *hops, *pending;   /* hops: between nodes on the way to at[v] */
    long              *inside;           /* [vrank]: transfers inside nodes on that way */
    gdc_coll_chain_way_t *way;           /* [vrank]: that way's hops inside nodes and reductions */
    long               last, last_inside;
    int                last_hops;
    gdc_coll_chain_way_t last_way;
} chain_t;

static int event_before(const chain_event_t *a, const chain_event_t *b)
{
    if (a->t != b->t) {
        return a->t < b->t;
    }
    return a->prio != b->prio ? a->prio < b->prio : a->rx < b->rx;
}

static void chain_push(chain_t *c, long t, int prio, int v, int rx)
{
    chain_event_t e = {t, prio, v, rx};

    GDC_COLL_HEAP_PUSH(c->heap, c->len, e, event_before);
}

static chain_event_t chain_pop(chain_t *c)
{
    chain_event_t top;

    GDC_COLL_HEAP_POP(c->heap, c->len, top, event_before);
    return top;
}

static void chain_arrive(chain_t *c, int v, long t, int hops, long inside, gdc_coll_chain_way_t way);

static long chain_units(const chain_t *c, int v)
{
    return c->blocks ? subtree_size(v, c->tw->args->size) : 1;
}

/* The hop of child vrank v, its sender ready at t: inside a node on the parent's link, in
 * turn (at once where inside_w is 0), between nodes in turn on the NICs (chain_hop). */
static void chain_send(chain_t *c, int v, long t, int prio)
{
    int from = c->down ? c->parent[v] : v;

    if (c->tx[v] < 0) {
        long                 w    = chain_units(c, v);
        long                *link = &c->link_free[c->parent[v]];
        long                 end  = (t > *link ? t : *link) + w * c->inside_w;
        gdc_coll_chain_way_t way  = c->way[from];

        way.inside_hops++;
        *link = end;
        chain_arrive(c, v, end + c->hop_w, c->hops[from], c->inside[from] + w, way);
    } else {
        chain_push(c, t, prio, v, 0);
    }
}

/* The hops out of vrank u (down): its children's, the farthest first as the builders send. */
static void chain_send_down(chain_t *c, int u, long t)
{
    int  n = c->tw->args->size, radix = c->tw->radix;
    long d = 1;

    while (d * radix < n && u % (d * radix * radix) == 0) {
        d *= radix;
    }
    for (; d >= 1; d /= radix) {
        if (u % (d * radix) != 0) {
            continue;
        }
        for (int j = radix - 1; j >= 1; j--) {
            if (u + j * d < n) {
                chain_send(c, (int)(u + j * d), t, -(int)(u + j * d));
            }
        }
    }
}

/* The children of binomial vrank u farther than its child v (reduced after v's data). */
static int chain_children_after(const chain_t *c, int u, int v)
{
    int  n = c->tw->args->size, radix = c->tw->radix, after = 0;
    long top = u == 0 ? n : (long)(u & -u);

    for (long d = (long)(v - u) * radix; radix == 2 && d < top && u + d < n; d *= 2) {
        after++;
    }
    return after;
}

static void chain_arrive(chain_t *c, int v, long t, int hops, long inside, gdc_coll_chain_way_t way)
{
    int u = c->parent[v];

    if (c->down) {
        c->at[v]     = t;
        c->hops[v]   = hops;
        c->inside[v] = inside;
        c->way[v]    = way;
        if (t > c->last || (t == c->last && hops > c->last_hops)) {
            c->last        = t;
            c->last_hops   = hops;
            c->last_inside = inside;
            c->last_way    = way;
        }
        chain_send_down(c, v, t);
        return;
    }
    if (t > c->at[u] || (t == c->at[u] && hops > c->hops[u])) {
        c->at[u]     = t;
        c->hops[u]   = hops;
        c->inside[u] = inside;
        /* v's data reduced, then that of u's children after v (the farther ones) */
        way.reduces += 1 + chain_children_after(c, u, v);
        c->way[u]    = way;
    }
    if (--c->pending[u] > 0) {
        return;
    }
    if (u == 0) {
        c->last        = c->at[0];
        c->last_hops   = c->hops[0];
        c->last_inside = c->inside[0];
        c->last_way    = c->way[0];
    } else {
        chain_send(c, u, c->at[u], u);
    }
}

/* Books w of rx's time from `at` on, in its first gaps (as the simulator's receivers do:
 * a message too long for a gap goes on after the span that ends it), spans over by `now`
 * dropped; returns the end of the last piece (-1: out of memory). */
static long chain_book(chain_rx_t *rx, long now, long at, long w)
{
    int gone = 0, i = 0;

    while (gone < rx->len && rx->span[2 * gone + 1] <= now) {
        gone++;
    }
    if (gone > 0) {
        rx->len -= gone;
        memmove(rx->span, rx->span + 2 * gone, (size_t)rx->len * 2 * sizeof(long));
    }
    while (w > 0) {
        long piece;

        while (i < rx->len && rx->span[2 * i + 1] <= at) {
            i++;
        }
        if (i < rx->len && rx->span[2 * i] <= at) {
            at = rx->span[2 * i + 1];
            continue;
        }
        piece = i < rx->len && rx->span[2 * i] - at < w ? rx->span[2 * i] - at : w;
        if (i > 0 && rx->span[2 * i - 1] == at) {
            rx->span[2 * i - 1] = at + piece;
        } else {
            if (rx->len == rx->cap) {
                int   cap  = rx->cap * 2 + 8;
                long *span = realloc(rx->span, (size_t)cap * 2 * sizeof(long));
                if (span == NULL) {
                    return -1;
                }
                rx->span = span;
                rx->cap  = cap;
            }
            memmove(rx->span + 2 * i + 2, rx->span + 2 * i, (size_t)(rx->len - i) * 2 * sizeof(long));
            rx->span[2 * i]     = at;
            rx->span[2 * i + 1] = at + piece;
            rx->len++;
            i++;
        }
        at += piece;
        w -= piece;
    }
    return at;
}

/* The hop of child vrank v between nodes, its sender ready at e.t: queued on the sender's
 * NIC and booked on the receiver's then, in the order the senders are ready (as the
 * simulator books them), and in at the end of both (e.rx). */
static void chain_hop(chain_t *c, chain_event_t e)
{
    int   v = e.v, from = c->down ? c->parent[v] : v;
    long  w = chain_units(c, v) * c->nic_w, start, in;
    long *tx = &c->tx_free[c->tx[v]];

    if (e.rx) {
        chain_arrive(c, v, e.t, c->hops[from] + 1, c->inside[from], c->way[from]);
        return;
    }
    start = e.t > *tx ? e.t : *tx;
    *tx   = start + w;
    in    = chain_book(&c->rx[c->to[v]], e.t, start, w);
    chain_push(c, (in >= 0 ? in : start + w) + c->lat_w, v, v, 1); /* out of memory: as if the receiver were free */
}

/* The tree's last arrival: its time but that of the transfers inside nodes on its way and
 * its hops' latencies (units: in NIC transfers where inside is NULL, else in time units;
 * what it waited for links inside nodes counted as time on NICs), the hops between nodes
 * on the way, the transfers inside nodes and the rest of the way (inside and way; both
 * NULL or neither). */
static void chain_run(chain_t *c, int nics, int *units, int *hops, int *inside, gdc_coll_chain_way_t *way)
{
    int n = c->tw->args->size, nodes = c->tw->nodes;

    for (int v = 1; v < n; v++) {
        int from = c->down ? c->parent[v] : v, to = c->down ? v : c->parent[v]; /* vranks */
        int cell = c->cell[from] & ~7, nic = c->cell[from] & (nics - 1);
        c->tx[v] = cell == (c->cell[to] & ~7) ? -1 : cell + nic;
        c->to[v] = (c->cell[to] & ~7) + (c->cell[to] & (nics - 1));
    }
    c->len         = 0;
    c->last        = 0;
    c->last_hops   = 0;
    c->last_inside = 0;
    memset(&c->last_way, 0, sizeof(c->last_way));
    memset(c->at, 0, (size_t)n * sizeof(long));
    memset(c->link_free, 0, (size_t)n * sizeof(long));
    memset(c->inside, 0, (size_t)n * sizeof(long));
    memset(c->hops, 0, (size_t)n * sizeof(int));
    memset(c->way, 0, (size_t)n * sizeof(*c->way));
    memset(c->tx_free, 0, (size_t)nodes * 8 * sizeof(long));
    for (int i = 0; i < nodes * 8; i++) {
        c->rx[i].len = 0;
    }
    memset(c->pending, 0, (size_t)n * sizeof(int));
    if (c->down) {
        chain_send_down(c, 0, 0);
    } else {
        for (int v = 1; v < n; v++) {
            c->pending[c->parent[v]]++;
        }
        for (int v = 1; v < n; v++) {
            if (c->pending[v] == 0) {
                chain_send(c, v, 0, v);
            }
        }
    }
    while (c->len > 0) {
        chain_hop(c, chain_pop(c));
    }
    *units = (int)(c->last - c->last_inside * c->inside_w - c->last_way.inside_hops * c->hop_w -
                   c->last_hops * c->lat_w);
    *hops  = c->last_hops;
    if (inside != NULL) {
        *inside = (int)c->last_inside;
        *way    = c->last_way;
    }
}

/* A kind's chain (chain_run) were the node's NICs 1, 2, 4 or 8 (more than a node's ranks:
 * as many, each its own; the most that matter: most). NICs beyond a node's ranks change
 * nothing (no two ranks share one then); where the fewest and the most give the same
 * chain, the counts between are taken to give it too (a NIC's queue only shortens as its
 * ranks spread over more of them): in the common layouts half the runs. */
static void chain_run_at(chain_t *c, int i, int *units, int *hops, int *inside, gdc_coll_chain_way_t *way)
{
    chain_run(c, tree_nics[i], &units[i], &hops[i], inside != NULL ? &inside[i] : NULL, way != NULL ? &way[i] : NULL);
}

static void chain_runs(chain_t *c, int most, int *units, int *hops, int *inside, gdc_coll_chain_way_t *way)
{
    chain_run_at(c, 0, units, hops, inside, way);
    if (most > 0) {
        chain_run_at(c, most, units, hops, inside, way);
    }
    for (int i = 1; i < GDC_COLL_TREE_NICS; i++) {
        int same = units[0] == units[most] && hops[0] == hops[most] &&
                   (inside == NULL || (inside[0] == inside[most] && way[0].inside_hops == way[most].inside_hops &&
                                       way[0].reduces == way[most].reduces));
        if (i > most || same) {
            int from = i > most ? most : 0;
            units[i] = units[from];
            hops[i]  = hops[from];
            if (inside != NULL) {
                inside[i] = inside[from];
                way[i]    = way[from];
            }
        } else if (i < most) {
            chain_run_at(c, i, units, hops, inside, way);
        }
    }
}

/* Each kind's slowest chain of NIC queues (above), were the node's NICs 1, 2, 4 or 8; and
 * again with the hops inside nodes taking time (GDC_COLL_CHAIN_NIC_W). */
static void tree_chains(const tree_walk_t *tw, const int kinds[4], int count, gdc_coll_layout_t *layout)
{
    int     n = tw->args->size, most_local = 0;
    chain_t c;

    if (tw->nodes < 2) {
        return;
    }
    memset(&c, 0, sizeof(c));
    c.tw      = tw;
    c.heap    = malloc((size_t)n * 2 * sizeof(*c.heap)); /* a send and an arrival per hop */
    c.at      = malloc((size_t)n * sizeof(long));
    c.tx_free = malloc((size_t)tw->nodes * 8 * sizeof(long));
    c.rx      = calloc((size_t)tw->nodes * 8, sizeof(*c.rx));
    c.parent  = malloc((size_t)n * 6 * sizeof(int));
    c.way     = malloc((size_t)n * sizeof(*c.way));
    c.link_free = malloc((size_t)n * 2 * sizeof(long));
    if (c.heap == NULL || c.at == NULL || c.tx_free == NULL || c.rx == NULL || c.parent == NULL ||
        c.link_free == NULL || c.way == NULL) {
        goto out; /* left at 0: the NICs' loads alone */
    }
    c.inside  = c.link_free + n;
    c.tx      = c.parent + n;
    c.to      = c.parent + 2 * (size_t)n;
    c.hops    = c.parent + 3 * (size_t)n;
    c.pending = c.parent + 4 * (size_t)n;
    c.cell    = c.parent + 5 * (size_t)n;
    for (int v = 0; v < n; v++) {
        long dist;
        int  level, r = (v + tw->root) % n;
        c.parent[v] = v > 0 ? tree_up(v, tw->radix, &dist, &level) : 0;
        c.cell[v]   = node(tw->args, r) * 8 + tw->local[r] % 8;
        most_local  = tw->local[r] + 1 > most_local ? tw->local[r] + 1 : most_local;
    }
    for (int k = 0; k < count; k++) {
        int *units = layout->tree_nic_chain[kinds[k]], *hops = layout->tree_nic_chain_hops[kinds[k]];

        if (!tree_kind_made(layout, kinds[k])) {
            continue;
        }

        c.down   = tree_kind_down(kinds[k]);
        c.blocks = tree_kind_blocks(kinds[k]);
        int most = 0;
        while (most + 1 < GDC_COLL_TREE_NICS && tree_nics[most] < most_local) {
            most++;
        }
        c.nic_w    = 1;
        c.inside_w = 0;
        c.hop_w    = 0;
        c.lat_w    = 0;
        chain_runs(&c, most, units, hops, NULL, NULL);
        c.nic_w    = GDC_COLL_CHAIN_NIC_W;
        c.inside_w = 1;
        c.hop_w    = GDC_COLL_CHAIN_HOP_W;
        for (int l = 0; l < (c.down ? 1 : GDC_COLL_CHAIN_LATENCIES); l++) {
            c.lat_w = l == 0 ? GDC_COLL_CHAIN_HOP_W : GDC_COLL_CHAIN_LATENT_W;
            chain_runs(&c, most, layout->tree_slow_chain[kinds[k]][l], layout->tree_slow_chain_hops[kinds[k]][l],
                       layout->tree_slow_chain_inside[kinds[k]][l], layout->tree_slow_chain_way[kinds[k]][l]);
        }
    }
out:
    for (int i = 0; c.rx != NULL && i < tw->nodes * 8; i++) {
        free(c.rx[i].span);
    }
    free(c.way);
    free(c.link_free);
    free(c.parent);
    free(c.rx);
    free(c.tx_free);
    free(c.at);
    free(c.heap);
}

/* The reductions of binomial vrank u's data from the last message in on its link inside
 * its node on: the children there ready last (the largest subtree, of equals the farthest)
 * send last, and u reduces in the builders' order, the nearest first, so those farther
 * than it come after. (reduce of 16 MiB on 5 ranks of one node: rank 4's vector is in
 * before rank 2's, which waits for rank 3's, yet is reduced after it; priced with one
 * reduction after the link's last message, 0.89 of the simulator's time.) */
static int tree_link_reduces_at(const tree_walk_t *tw, int u)
{
    int  n = tw->args->size, last = 0, after = 0;
    long top = u == 0 ? n : (long)(u & -u);

    for (long d = 1; d < top && u + d < n; d *= 2) {
        int v = (int)(u + d);
        if (vnode(tw, v) == vnode(tw, u) && (last == 0 || subtree_size(v, n) >= subtree_size(last, n))) {
            last  = v;
            after = 0;
        }
        after++;
    }
    return after > 0 ? after : 1;
}

/* Each kind's busiest NIC and busiest rank's own link over the whole tree (the layout's
 * tree_nic_load and tree_link_load), in one walk: every hop between nodes loads the
 * sender's NIC and the receiver's, the NIC a rank's index in its node modulo the node's
 * NICs (as the simulator picks it); every hop inside a node the two ranks' links. */
static void tree_loads(const tree_walk_t *tw, const int kinds[4], int count, gdc_coll_layout_t *layout)
{
    const gdc_coll_args_t *args = tw->args;
    int                    n = args->size, nodes = tw->nodes, cells = nodes * 8 * 2; /* [tx, rx][node][nic] */
    const int             *local = tw->local;
    int                   *nic   = calloc((size_t)GDC_COLL_TREE_NICS * (size_t)cells, sizeof(int));
    int                   *link  = malloc((size_t)n * 2 * sizeof(int)); /* [tx, rx][vrank] */

    if (nic == NULL || link == NULL) {
        free(link);
        free(nic);
        return; /* left at 0: the ways alone */
    }
    for (int k = 0; k < count; k++) {
        int down = tree_kind_down(kinds[k]), blocks = tree_kind_blocks(kinds[k]);
        int most_nic[GDC_COLL_TREE_NICS] = {0}, most_link = 0;

        if (!tree_kind_made(layout, kinds[k])) {
            continue;
        }

        memset(nic, 0, (size_t)GDC_COLL_TREE_NICS * (size_t)cells * sizeof(int));
        memset(link, 0, (size_t)n * 2 * sizeof(int));
        for (int v = 1; v < n; v++) {
            long dist;
            int  level, u = tree_up(v, tw->radix, &dist, &level);
            int  from = down ? u : v, to = down ? v : u, units = blocks ? subtree_size(v, n) : 1;

            if (vnode(tw, u) == vnode(tw, v)) {
                link[from] += units;
                link[n + to] += units;
                most_link = link[from] > most_link ? link[from] : most_link;
                most_link = link[n + to] > most_link ? link[n + to] : most_link;
                continue;
            }
            from = (from + tw->root) % n; /* ranks */
            to   = (to + tw->root) % n;
            for (int i = 0; i < GDC_COLL_TREE_NICS; i++) {
                int *tx = &nic[i * cells + node(args, from) * 8 + local[from] % tree_nics[i]];
                int *rx = &nic[i * cells + (nodes + node(args, to)) * 8 + local[to] % tree_nics[i]];
                *tx += units;
                *rx += units;
                most_nic[i] = *tx > most_nic[i] ? *tx : most_nic[i];
                most_nic[i] = *rx > most_nic[i] ? *rx : most_nic[i];
            }
        }
        memcpy(layout->tree_nic_load[kinds[k]], most_nic, sizeof(most_nic));
        layout->tree_link_load[kinds[k]]    = most_link;
        layout->tree_link_reduces[kinds[k]] = 1;
        if (tree_kind_reduces(kinds[k]) && tw->radix == 2 && most_link > 0) {
            for (int u = 0; u < n; u++) {
                int after = link[n + u] == most_link ? tree_link_reduces_at(tw, u) : 0;
                layout->tree_link_reduces[kinds[k]] =
                    after > layout->tree_link_reduces[kinds[k]] ? after : layout->tree_link_reduces[kinds[k]];
            }
        }
    }
    tree_chains(tw, kinds, count, layout);
    free(link);
    free(nic);
}

/* Every rank's ways in the trees of the radix, the slowest of each kind per regime kept in
 * the layout. Vranks in order walk the tree depth first (a subtree is a range after its
 * root), so the ways of a rank's ancestors are all it needs: one per level. */
static void tree_ways(const gdc_coll_args_t *args, int radix, const int kinds[4], gdc_coll_layout_t *layout)
{
    int                   count = kinds[2] >= 0 ? 4 : 2;
    tree_weights_t        regime[GDC_COLL_TREE_REGIMES];
    double                best[4][GDC_COLL_TREE_REGIMES];
    tree_walk_t           tw;
    gdc_coll_tree_path_t *ways;

    if (tree_walk_init(&tw, args, radix) != 0) {
        return; /* left at 0: priced as one hop, as a job that runs out of memory will anyway */
    }
    tree_loads(&tw, kinds, count, layout);
    ways = calloc((size_t)(tw.levels + 1) * 4, sizeof(*ways)); /* [level][kind]; the root's last */
    if (ways == NULL) {
        free(tw.down_off);
        return;
    }
    for (int r = 0; r < GDC_COLL_TREE_REGIMES; r++) {
        regime[r] = tree_regime(r);
        for (int k = 0; k < 4; k++) {
            best[k][r] = -1;
        }
    }
    for (int v = 1; v < args->size; v++) {
        long                  dist;
        int                   level, u = tree_up(v, radix, &dist, &level);
        int                   above = u == 0 ? tw.levels : tree_level_of(u, radix);
        gdc_coll_tree_path_t *paths[4];

        for (int k = 0; k < 4; k++) {
            ways[level * 4 + k] = ways[above * 4 + k];
            paths[k]            = k < count ? &ways[level * 4 + k] : NULL;
        }
        tree_hop(&tw, u, v, level, paths);
        if (v % radix == 0 && v + 1 < args->size) {
            continue; /* it has children, whose ways are longer */
        }
        for (int k = 0; k < count; k++) {
            for (int r = 0; r < GDC_COLL_TREE_REGIMES; r++) {
                double cost = tree_path_cost(paths[k], &regime[r]);
                if (cost > best[k][r]) {
                    best[k][r]                      = cost;
                    layout->tree_paths[kinds[k]][r] = *paths[k];
                }
            }
        }
    }
    free(tw.down_off);
    free(ways);
}

static void tree_layout(const gdc_coll_args_t *args, gdc_coll_layout_t *layout)
{
    static const int binomial[4] = {GDC_COLL_TREE_BCAST, GDC_COLL_TREE_REDUCE, GDC_COLL_TREE_SCATTER,
                                    GDC_COLL_TREE_GATHER};
    static const int knomial[4]  = {GDC_COLL_TREE_RADIX_BCAST, GDC_COLL_TREE_RADIX_REDUCE, -1, -1};
    int              radix       = args->config != NULL ? args->config->tree_radix : 2;

    tree_ways(args, 2, binomial, layout);
    if (!tree_kind_made(layout, GDC_COLL_TREE_RADIX_BCAST) && !tree_kind_made(layout, GDC_COLL_TREE_RADIX_REDUCE)) {
        return;
    }
    if (radix == 2) {
        memcpy(layout->tree_paths[GDC_COLL_TREE_RADIX_BCAST], layout->tree_paths[GDC_COLL_TREE_BCAST],
               sizeof(layout->tree_paths[0]));
        memcpy(layout->tree_paths[GDC_COLL_TREE_RADIX_REDUCE], layout->tree_paths[GDC_COLL_TREE_REDUCE],
               sizeof(layout->tree_paths[0]));
    } else {
        tree_ways(args, radix, knomial, layout);
    }
}

/* xor_off, shift_off and xor_fold_waiting/crossing for every distance in one pass over the ranks
 * (each rank's fold made once; a node's counts side by side); 0 on success. */
static int most_off_by_distance(const gdc_coll_args_t *args, int nodes, gdc_coll_layout_t *layout)
{
    int  distances = 0;
    int *off;

    while (distances < GDC_COLL_LAYOUT_DISTANCES && (1 << distances) < args->size) {
        distances++;
    }
    off = calloc((size_t)nodes * (size_t)distances * 3, sizeof(int));
    if (off == NULL) {
        return -1;
    }
    for (int i = 0; i < distances; i++) {
        layout->xor_first_cross[i] = args->size;
    }
    for (int r = 0; r < args->size; r++) {
        gdc_coll_fold_t fold = gdc_coll_fold(args->size, r);
        int             me   = node(args, r);
        for (int i = 0; i < distances; i++) {
            int by_bits = fold.newrank < 0 || (fold.newrank ^ (1 << i)) >= fold.p
                              ? -1
                              : gdc_coll_fold_real(&fold, fold.newrank ^ (1 << i));
            int crosses = by_bits >= 0 && node(args, by_bits) != me;
            off[(me * distances + i) * 3] += crosses;
            off[(me * distances + i) * 3 + 2] += crosses && fold.newrank < fold.rem; /* waited */
            if (crosses && (fold.newrank & -(2 << i)) < layout->xor_first_cross[i]) {
                layout->xor_first_cross[i] = fold.newrank & -(2 << i);
            }
            if (crosses && fold.rem > 0) {
                /* the participants a folded one's news reaches before the round: in doubling
                 * order any lower bits changed, in halving order any higher ones */
                int block = 1 << i;
                layout->xor_cross_after_fold[0][i] |= fold.newrank < (fold.rem + block - 1) / block * block;
                layout->xor_cross_after_fold[1][i] |= fold.newrank % (2 * block) < fold.rem;
            }
            int ahead = r + (1 << i) < args->size ? r + (1 << i) : r + (1 << i) - args->size;
            off[(me * distances + i) * 3 + 1] += node(args, ahead) != me;
        }
    }
    for (int i = 0; i < distances; i++) {
        for (int d = 0; d < nodes; d++) {
            const int *here = &off[(d * distances + i) * 3];
            layout->xor_off[i]   = here[0] > layout->xor_off[i] ? here[0] : layout->xor_off[i];
            layout->shift_off[i] = here[1] > layout->shift_off[i] ? here[1] : layout->shift_off[i];
            if (here[2] > 0) {
                int *waiting = &layout->xor_fold_waiting[i], *crossing = &layout->xor_fold_crossing[i];
                *waiting  = here[2] > *waiting ? here[2] : *waiting;
                *crossing = here[0] > *crossing ? here[0] : *crossing;
            }
        }
    }
    free(off);
    return 0;
}

/* xor_gather_nic and xor_gather_nic_plain for distance i: a rank on NIC local index % nics
 * of its node (as the simulator has it). load holds a node's counts, per NIC slot
 * (nic_slot), of every message taken in, then of those alone whose sender's group held no
 * extra's block. */

static void gathered_on_a_nic(const gdc_coll_args_t *args, const int *local, int *load, int nodes, int i,
                              gdc_coll_layout_t *layout)
{
    int d = 1 << i;

    memset(load, 0, (size_t)nodes * 2 * NIC_SLOTS * sizeof(int));
    for (int r = 0; r < args->size; r++) {
        gdc_coll_fold_t fold = gdc_coll_fold(args->size, r);
        int             j = fold.newrank;
        if (j < 0 || (j ^ d) >= fold.p) {
            continue;
        }
        int to = gdc_coll_fold_real(&fold, j ^ d), extras = fold.rem - (j & ~(d - 1));
        int blocks = d + (extras < 0 ? 0 : extras > d ? d : extras);
        if (node(args, to) == node(args, r)) {
            continue;
        }
        for (int k = 0; k < GDC_COLL_TREE_NICS; k++) {
            int *in = &load[node(args, to) * 2 * NIC_SLOTS + nic_slot(k, local[to])];
            in[0] += blocks;
            in[NIC_SLOTS] += blocks == d ? blocks : 0;
        }
    }
    for (int q = 0; q < nodes; q++) {
        for (int k = 0; k < GDC_COLL_TREE_NICS; k++) {
            for (int c = 0; c < tree_nics[k]; c++) {
                const int *in    = &load[q * 2 * NIC_SLOTS + nic_slot(k, c)];
                int       *most  = &layout->xor_gather_nic[i][k];
                int       *plain = &layout->xor_gather_nic_plain[i][k];
                *most  = in[0] > *most ? in[0] : *most;
                *plain = in[NIC_SLOTS] > *plain ? in[NIC_SLOTS] : *plain;
            }
        }
    }
}

/* xor_gather_nic for every distance. Left 0, priced as if every crossing rank sent as much
 * (xor_off), where that is so, on a power of two (no extras), and where memory is short. */
static void most_gathered_on_a_nic(const gdc_coll_args_t *args, int nodes, gdc_coll_layout_t *layout)
{
    int *local, *load;

    if ((args->size & (args->size - 1)) == 0) {
        return;
    }
    local = calloc((size_t)args->size, sizeof(int));
    load  = calloc((size_t)nodes * 2 * NIC_SLOTS, sizeof(int));
    if (local != NULL && load != NULL) {
        for (int r = 0; r < args->size; r++) {
            local[r] = load[node(args, r)]++; /* the node's ranks so far, counted in load for now */
        }
        for (int i = 0; i < GDC_COLL_LAYOUT_DISTANCES && (1 << i) < args->size; i++) {
            gathered_on_a_nic(args, local, load, nodes, i, layout);
        }
    }
    free(load);
    free(local);
}

unsigned gdc_coll_tree_kinds_of(gdc_coll_type_t coll)
{
    switch (coll) {
    case GDC_COLL_BCAST: return 1u << GDC_COLL_TREE_BCAST | 1u << GDC_COLL_TREE_SCATTER;
    case GDC_COLL_REDUCE: return 1u << GDC_COLL_TREE_REDUCE | 1u << GDC_COLL_TREE_GATHER;
    case GDC_COLL_GATHER: return 1u << GDC_COLL_TREE_GATHER;
    case GDC_COLL_SCATTER: return 1u << GDC_COLL_TREE_SCATTER;
    default: return GDC_COLL_TREE_ALL;
    }
}

void gdc_coll_layout_root(const gdc_coll_args_t *args, gdc_coll_layout_t *layout)
{
    gdc_coll_layout_root_kinds(args, layout, GDC_COLL_TREE_ALL);
}

/* The messages a binomial tree over k members (farthest first) sends from the root before
 * its way reaches member v. */
static int node_tree_ahead(int v, int k)
{
    int ahead = 0, u = 0, top = 1;

    while (top < k) {
        top *= 2;
    }
    for (int d = top / 2; d >= 1; d /= 2) {
        if ((v & d) == 0) {
            continue;
        }
        for (int e = 2 * d; e < (u == 0 ? top : (u & -u)); e *= 2) {
            ahead += u + e < k;
        }
        u += d;
    }
    return ahead;
}

/* The layout's smallest_way, the nodes' tree rooted at node `from`: per[d] ranks on node d. */
static void smallest_ways(const int *per, int from, gdc_coll_layout_t *layout)
{
    int k = layout->nodes;

    for (int d = 0; d < k; d++) {
        int v = (d - from + k) % k, hops = __builtin_popcount((unsigned)v), ahead = node_tree_ahead(v, k);
        int *deep = layout->smallest_way[0], *most = layout->smallest_way[1];

        if (d == from || per[d] != layout->min_local) {
            continue;
        }
        if (hops > deep[0] || (hops == deep[0] && ahead > deep[1])) {
            deep[0] = hops;
            deep[1] = ahead;
        }
        if (hops + ahead > most[0] + most[1] || (hops + ahead == most[0] + most[1] && hops > most[0])) {
            most[0] = hops;
            most[1] = ahead;
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * bcast hier_rails's ways through smaller nodes (gdc_coll_layout_t.rails_ways): the
 * builder's messages, timed at a regime's costs with the counts each time is made of.
 */

typedef struct rails_time {
    double t;
    int    steps, out, in, xfer_out, xfer_in;
} rails_time_t;

typedef struct rails_walk {
    const int     *per; /* ranks per node */
    int            nodes, blocks, root_node;
    tree_weights_t c;
    rails_time_t  *part; /* [node * blocks + b]: when part b is at its owner there */
    rails_time_t  *cpu, *tx, *rx; /* [node * blocks + local]: a rank's CPU and NIC free */
} rails_walk_t;

static rails_time_t rails_later(rails_time_t a, rails_time_t b)
{
    return a.t >= b.t ? a : b;
}

static rails_time_t rails_plus(rails_time_t a, const tree_weights_t *c, int steps, int out, int in, int xfer_out,
                               int xfer_in)
{
    a.t += c->w[0] * steps + c->w[1] * out + c->w[2] * in + c->w[3] * xfer_out + c->w[4] * xfer_in;
    a.steps += steps;
    a.out += out;
    a.in += in;
    a.xfer_out += xfer_out;
    a.xfer_in += xfer_in;
    return a;
}

/* The root (index `root_index` of its node) hands each of its node's ranks its parts, in
 * the builder's order, one message each on its link; its own rails after. */
static void rails_scatter(rails_walk_t *w, int root_index)
{
    int          d = w->root_node, L = w->per[d], B = w->blocks;
    rails_time_t cpu = {0}, link = {0};

    for (int k = 1; k < L; k++) {
        int          i     = (root_index + k) % L;
        int          first = gdc_coll_rails_first(B, L, i), end = gdc_coll_rails_first(B, L, i + 1);
        rails_time_t start;

        cpu   = rails_plus(cpu, &w->c, 1, 0, 0, 0, 0);
        start = rails_later(cpu, link);
        link  = rails_plus(start, &w->c, 0, 0, 0, 0, end - first);
        for (int b = first; b < end; b++) {
            w->part[d * B + b] = rails_plus(link, &w->c, 1, 0, 1, 0, 0);
        }
    }
    w->cpu[d * B + root_index] = cpu;
}

/* Node d's rank j passes part b on to every child of its node in the rails' tree (vrank
 * v; its children v + s for s below `above`, the farthest first), after its earlier
 * sends, on its NIC. */
static void rails_pass_on(rails_walk_t *w, int v, int above, int j, int b)
{
    int d = (w->root_node + v) % w->nodes, B = w->blocks;

    for (int s = above / 2; s >= 1; s /= 2) {
        int           c = (w->root_node + v + s) % w->nodes, owner;
        rails_time_t *cpu = &w->cpu[d * B + j], *tx = &w->tx[d * B + j], *rx, start;

        if (v + s >= w->nodes) {
            continue;
        }
        owner = gdc_coll_rails_owner(B, w->per[c], b);
        rx    = &w->rx[c * B + owner];
        *cpu  = rails_plus(rails_later(*cpu, w->part[d * B + b]), &w->c, 1, 0, 0, 0, 0);
        start = rails_later(*cpu, *tx);
        *tx   = rails_plus(start, &w->c, 0, 0, 0, 1, 0);
        *rx   = rails_plus(rails_later(start, *rx), &w->c, 0, 0, 0, 1, 0);
        w->part[c * B + b] = rails_plus(*rx, &w->c, 1, 1, 0, 0, 0);
    }
}

/* One regime's slowest node: its last part's way and its ranks; a node's ring priced
 * roughly (a block of B / m parts a step) to rank it. */
static void rails_walk_regime(rails_walk_t *w, int root_index, int regime, gdc_coll_layout_t *layout)
{
    int    B = w->blocks, top = 1;
    double worst = -1;

    while (top < w->nodes) {
        top *= 2;
    }
    memset(w->part, 0, (size_t)w->nodes * (size_t)B * 4 * sizeof(rails_time_t));
    rails_scatter(w, root_index);
    for (int v = 0; v < w->nodes; v++) {
        int          d = (w->root_node + v) % w->nodes, m = w->per[d], above = v == 0 ? top : v & -v;
        rails_time_t last = w->part[d * B];
        double       ring = (m - 1) * (w->c.w[0] + w->c.w[2] + w->c.w[4] * B / m);

        for (int j = 0; j < m; j++) {
            for (int b = gdc_coll_rails_first(B, m, j); b < gdc_coll_rails_first(B, m, j + 1); b++) {
                rails_pass_on(w, v, above, j, b);
                last = rails_later(last, w->part[d * B + b]);
            }
        }
        if (last.t + ring > worst) {
            gdc_coll_tree_path_t *way = &layout->rails_ways[regime];

            worst = last.t + ring;
            memset(way, 0, sizeof(*way));
            way->steps                      = last.steps;
            way->out                        = last.out;
            way->in                         = last.in;
            way->xfer_out                   = last.xfer_out;
            way->xfer_in                    = last.xfer_in;
            layout->rails_way_local[regime] = m;
        }
    }
}

static void rails_ways(const int *per, int root_node, int root_index, gdc_coll_layout_t *layout)
{
    rails_walk_t w    = {per, layout->nodes, layout->max_local, root_node, {{0}, 0}, NULL, NULL, NULL, NULL};
    size_t       each = (size_t)w.nodes * (size_t)w.blocks;

    w.part = calloc(each * 4, sizeof(rails_time_t));
    if (w.part == NULL) {
        return; /* none kept: priced by the rails' other terms */
    }
    w.cpu = w.part + each;
    w.tx  = w.cpu + each;
    w.rx  = w.tx + each;
    for (int r = 0; r < GDC_COLL_RAILS_REGIMES; r++) {
        w.c = tree_regime(GDC_COLL_TREE_REGIMES - GDC_COLL_RAILS_REGIMES + r);
        rails_walk_regime(&w, root_index, r, layout);
    }
    free(w.part);
}

void gdc_coll_layout_root_kinds(const gdc_coll_args_t *args, gdc_coll_layout_t *layout, unsigned kinds)
{
    int  root = args->root >= 0 && args->root < args->size ? args->root : 0;
    int *per  = layout->nodes > 1 ? calloc((size_t)layout->nodes, sizeof(int)) : NULL;

    memset(layout->tree_paths, 0, sizeof(layout->tree_paths));
    memset(layout->tree_nic_load, 0, sizeof(layout->tree_nic_load));
    memset(layout->tree_nic_chain, 0, sizeof(layout->tree_nic_chain));
    memset(layout->tree_nic_chain_hops, 0, sizeof(layout->tree_nic_chain_hops));
    memset(layout->tree_slow_chain, 0, sizeof(layout->tree_slow_chain));
    memset(layout->tree_slow_chain_hops, 0, sizeof(layout->tree_slow_chain_hops));
    memset(layout->tree_slow_chain_inside, 0, sizeof(layout->tree_slow_chain_inside));
    memset(layout->tree_slow_chain_way, 0, sizeof(layout->tree_slow_chain_way));
    memset(layout->tree_link_load, 0, sizeof(layout->tree_link_load));
    memset(layout->tree_link_reduces, 0, sizeof(layout->tree_link_reduces));
    layout->tree_kinds  = kinds;
    layout->root        = root;
    layout->root_local  = layout->nodes > 1 ? layout->max_local : args->size;
    layout->root_index  = root;
    layout->other_local = 0;
    memset(layout->leader_local, 0, sizeof(layout->leader_local));
    memset(layout->smallest_way, 0, sizeof(layout->smallest_way));
    memset(layout->rails_ways, 0, sizeof(layout->rails_ways));
    memset(layout->rails_way_local, 0, sizeof(layout->rails_way_local));
    tree_layout(args, layout);
    if (per == NULL) {
        return; /* one node (or out of memory: the root's node priced as the largest) */
    }
    for (int r = 0; r < args->size; r++) {
        layout->root_index = r == root ? per[node(args, r)] : layout->root_index;
        per[node(args, r)]++;
    }
    layout->root_local = per[node(args, root)];
    for (int d = 0; d < layout->nodes; d++) {
        int hops = __builtin_popcount((unsigned)((d - node(args, root) + layout->nodes) % layout->nodes));

        if (d != node(args, root) && per[d] > layout->other_local) {
            layout->other_local = per[d];
        }
        if (d != node(args, root) && hops <= GDC_COLL_LAYOUT_DISTANCES && per[d] > layout->leader_local[hops]) {
            layout->leader_local[hops] = per[d];
        }
    }
    smallest_ways(per, node(args, root), layout);
    if ((kinds & 1u << GDC_COLL_TREE_BCAST) && layout->min_local < layout->max_local &&
        layout->max_local <= tree_nics[GDC_COLL_TREE_NICS - 1]) {
        rails_ways(per, node(args, root), layout->root_index, layout);
    }
    free(per);
}

static void most_in_node_groups(const int *per, int nodes, gdc_coll_layout_t *layout)
{
    for (int i = 0; i < GDC_COLL_LAYOUT_DISTANCES && (1 << i) < nodes; i++) {
        int size = 1 << i, most = 0;

        for (int first = 0; first < nodes; first += size) {
            int held = 0;

            for (int d = first; d < first + size && d < nodes; d++) {
                held += per[d];
            }
            most = held > most ? held : most;
        }
        layout->node_group_most[i] = most;
    }
}

static void fewest_in_folding_nodes(const int *per, int nodes, gdc_coll_layout_t *layout)
{
    layout->fold_nodes_min_local = 0;
    for (int d = 0; d < 2 * (nodes - gdc_coll_pof2_floor(nodes)); d++) {
        if (layout->fold_nodes_min_local == 0 || per[d] < layout->fold_nodes_min_local) {
            layout->fold_nodes_min_local = per[d];
        }
    }
}

void gdc_coll_layout_of(const gdc_coll_args_t *args, gdc_coll_layout_t *layout)
{
    int  nodes = args->node_of != NULL && args->num_nodes > 1 ? args->num_nodes : 1;
    int *per   = calloc((size_t)nodes, sizeof(int));

    memset(layout, 0, sizeof(*layout));
    layout->nodes     = nodes;
    layout->max_local = args->size;
    layout->min_local = args->size;
    layout->largest   = 1;
    layout->smallest  = 1;
    layout->blocks    = 1;
    if (nodes == 1 || per == NULL) {
        free(per);
        gdc_coll_layout_root(args, layout);
        return;
    }
    for (int r = 0; r < args->size; r++) {
        per[node(args, r)]++;
        layout->ring_cross += node(args, r) != node(args, (r + 1) % args->size);
        if (r > 0 && node(args, r) != node(args, r - 1) && node(args, r) != node(args, r - 1) + 1) {
            layout->blocks = 0;
        }
    }
    layout->max_local = 0;
    for (int d = 0; d < nodes; d++) {
        layout->max_local = per[d] > layout->max_local ? per[d] : layout->max_local;
        layout->min_local = per[d] < layout->min_local ? per[d] : layout->min_local;
    }
    layout->largest = layout->smallest = 0;
    for (int d = 0; d < nodes; d++) {
        layout->largest += per[d] == layout->max_local;
        layout->smallest += per[d] == layout->min_local;
    }
    if (most_off_by_distance(args, nodes, layout) != 0) {
        for (int i = 0; i < GDC_COLL_LAYOUT_DISTANCES && (1 << i) < args->size; i++) {
            layout->xor_off[i] = layout->shift_off[i] = layout->max_local; /* as if all crossed */
        }
    }
    most_gathered_on_a_nic(args, nodes, layout);
    most_in_node_groups(per, nodes, layout);
    fewest_in_folding_nodes(per, nodes, layout);
    layout->fold_off        = most_off_in_fold(args, per, nodes);
    layout->shift_chain_off = most_off_on_a_chain(args);
    free(per);
    gdc_coll_layout_root(args, layout);
}

/* ---------------------------------------------------------------------------------------
 * Links
 */

void gdc_coll_price_init(gdc_coll_price_t *p, const gdc_coll_machine_t *m, const gdc_coll_args_t *args,
                         const gdc_coll_layout_t *layout)
{
    int                   dev = args->on_device;
    gdc_coll_host_rates_t host;

    memset(p, 0, sizeof(*p));
    p->m      = m;
    p->args   = args;
    p->lay    = layout;
    p->n      = args->size;
    p->dev    = dev;
    p->o      = m->step_overhead;
    p->sig    = m->signal_latency + gdc_coll_machine_wait(m, args);
    host      = gdc_coll_machine_host_rates(m, args);
    p->host   = host;
    p->gamma  = dev ? m->reduce_bw_gpu : host.reduce;
    p->kappa  = dev ? m->copy_bw_gpu : host.copy;
    p->gamma_peer = dev ? m->reduce_bw_gpu : host.reduce_peer;
    p->cma_bw = host.cma;
    p->in     = m->link[dev ? m->intra_device : m->intra_host];
    /* on an oversubscribed node, two peers that may not be running: the receiver, and the
     * sender learning the message was taken (as the simulator has it) */
    p->in.latency += 2 * gdc_coll_machine_wait(m, args);
    if (!dev) {
        p->in.bandwidth = host.shm;
    }
    p->out    = m->link[dev ? m->inter_device : m->inter_host];
    p->nics   = m->nics_per_node > 0 ? m->nics_per_node : 1;
    p->dsize  = args->dsize > 0 ? args->dsize : 1;
}

gdc_coll_hop_t gdc_coll_price_hop(const gdc_coll_price_t *p, int crosses, int senders)
{
    gdc_coll_hop_t h;

    h.crosses = crosses != 0;
    h.shared  = 1;
    if (!crosses) {
        h.lat = p->in.latency;
        h.bw  = p->in.bandwidth;
        return h;
    }
    senders = senders < 1 ? 1 : senders;
    h.lat   = p->out.latency;
    /* the node's NICs carry everything its ranks send off the node at once */
    h.shared = ceil((double)senders / p->nics);
    h.bw     = p->out.bandwidth / h.shared;
    return h;
}

static int log2_exact(int dist)
{
    int i = 0;

    while ((1 << i) < dist) {
        i++;
    }
    return (1 << i) == dist && i < GDC_COLL_LAYOUT_DISTANCES ? i : -1;
}

gdc_coll_hop_t gdc_coll_price_ring_hop(const gdc_coll_price_t *p)
{
    return gdc_coll_price_shift_hop(p, 1);
}

gdc_coll_hop_t gdc_coll_price_shift_hop(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist), off;

    if (p->lay->nodes == 1) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    if (i >= 0) {
        off = p->lay->shift_off[i];
    } else if (p->lay->blocks) {
        off = dist < p->lay->max_local ? dist : p->lay->max_local;
    } else {
        off = p->lay->max_local;
    }
    return gdc_coll_price_hop(p, off > 0, off);
}

gdc_coll_hop_t gdc_coll_price_fold_hop(const gdc_coll_price_t *p)
{
    return gdc_coll_price_hop(p, p->lay->fold_off > 0, p->lay->fold_off);
}

int gdc_coll_price_shift_full(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist);

    return p->lay->nodes > 1 && (i < 0 || p->lay->shift_off[i] >= p->lay->min_local);
}

gdc_coll_hop_t gdc_coll_price_xor_hop_after_fold(const gdc_coll_price_t *p, int dist, int halving)
{
    int i = log2_exact(dist);

    if (p->lay->nodes == 1 || i < 0) {
        return gdc_coll_price_xor_hop(p, dist);
    }
    return p->lay->xor_cross_after_fold[halving != 0][i] ? gdc_coll_price_xor_hop(p, dist) : gdc_coll_price_hop(p, 0, 1);
}

double gdc_coll_price_xor_gather_nic(const gdc_coll_price_t *p, int dist, int plain)
{
    int i = log2_exact(dist), k = tree_nics_index(p->nics);

    if (p->lay->nodes == 1 || i < 0) {
        return 0;
    }
    return plain ? p->lay->xor_gather_nic_plain[i][k] : p->lay->xor_gather_nic[i][k];
}

gdc_coll_hop_t gdc_coll_price_xor_hop(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist), off;

    if (p->lay->nodes == 1) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    off = i >= 0 ? p->lay->xor_off[i] : p->lay->max_local;
    return gdc_coll_price_hop(p, off > 0, off);
}

int gdc_coll_price_xor_fold_queue(const gdc_coll_price_t *p, int dist, int *crossing)
{
    int i = log2_exact(dist);

    if (p->lay->nodes < 2 || i < 0 || p->lay->xor_fold_waiting[i] == 0) {
        return 0;
    }
    *crossing = p->lay->xor_fold_crossing[i];
    return p->lay->xor_fold_waiting[i];
}

int gdc_coll_price_xor_quiet(const gdc_coll_price_t *p, int dist, size_t used)
{
    int i = log2_exact(dist);

    return p->lay->nodes > 1 && i >= 0 && p->lay->xor_off[i] > 0 && used <= (size_t)p->lay->xor_first_cross[i];
}

/* ---------------------------------------------------------------------------------------
 * Steps and phases
 */

double gdc_coll_price_msg(const gdc_coll_price_t *p, gdc_coll_hop_t h, double bytes)
{
    return 2 * p->o + h.lat + bytes / h.bw;
}

double gdc_coll_price_reduce(const gdc_coll_price_t *p, double bytes)
{
    return p->o + bytes / p->gamma;
}

double gdc_coll_price_copy(const gdc_coll_price_t *p, double bytes)
{
    return p->o + bytes / p->kappa;
}

double gdc_coll_price_copy_peer(const gdc_coll_price_t *p, double bytes)
{
    return p->o + (p->dev ? bytes / p->kappa : gdc_coll_machine_copy_peer_time(&p->host, bytes));
}

double gdc_coll_price_copy_shared(const gdc_coll_price_t *p, double bytes)
{
    return p->o + bytes / (p->dev ? p->kappa : p->host.copy_shared);
}

double gdc_coll_price_reduce_peer(const gdc_coll_price_t *p, double bytes)
{
    return p->o + bytes / (p->gamma_peer < p->gamma ? p->gamma_peer : p->gamma);
}

double gdc_coll_price_cma(const gdc_coll_price_t *p, double bytes)
{
    if (p->dev) { /* the ipc algorithms: a copy-engine copy from or into a peer's mapping */
        return p->o + p->m->gpu_latency + bytes / p->m->copy_bw_gpu;
    }
    return p->o + p->m->cma_latency + bytes / p->cma_bw;
}

double gdc_coll_price_pipeline(double rounds, double chunks, double item, double hop)
{
    double stream = rounds * chunks * item;
    double wave   = (rounds - 1) * hop + chunks * item;

    if (rounds <= 0 || chunks <= 0) {
        return 0;
    }
    return (stream > wave ? stream : wave) + (hop > item ? hop - item : 0);
}

/* The ring's hops: inside a node, and off it for one message alone (a chunk on its way) and
 * shared (each node's boundary rank alone in blocks; every rank, sharing the NICs, when the
 * ranks are scattered and all send at once). */
static void ring_hops(const gdc_coll_price_t *p, gdc_coll_hop_t *in, gdc_coll_hop_t *out, gdc_coll_hop_t *shared,
                      double *cross)
{
    *in     = gdc_coll_price_hop(p, 0, 1);
    *out    = gdc_coll_price_hop(p, 1, 1);
    *shared = gdc_coll_price_shift_hop(p, 1);
    *cross  = p->lay->nodes > 1 ? (double)p->lay->ring_cross / p->n : 0;
}

int gdc_coll_price_ring_way_crossings(const gdc_coll_price_t *p, int owner, int reduces)
{
    const gdc_coll_args_t *args = p->args;
    int                    n = p->n, left = reduces ? owner : (owner + n - 1) % n;

    return p->lay->nodes > 1 ? p->lay->ring_cross - (node(args, left) != node(args, (left + 1) % n)) : 0;
}

/* With fewer elements than ranks only the first blocks travel, each around the whole ring
 * but one link: the hops between nodes on the way of the one that crosses most (0 where
 * there are too many blocks to follow them: the ring's average share is taken then). (An
 * allreduce ring of 8 B on 5 ranks on 2 nodes, blocks, was priced with one crossing more
 * than either non-empty block takes: 1.30 times the simulator's time.) */
static int ring_sparse_crossings(const gdc_coll_price_t *p, const gdc_coll_ring_t *ring, double *x_rs, double *x_ag)
{
    int n = p->n, blocks = (int)(ring->fill * n + 0.5), most = -1;

    if (ring->fill >= 1 || p->lay->nodes < 2 || ring->first_owner < 0 || blocks > GDC_COLL_RING_SPARSE_BLOCKS ||
        (ring->reduce_rounds != 0 && ring->reduce_rounds != n - 1) ||
        (ring->gather_rounds != 0 && ring->gather_rounds != n - 1)) {
        return 0;
    }
    for (int j = 0; j < blocks; j++) {
        int o  = (ring->first_owner + j) % n;
        int rs = ring->reduce_rounds > 0 ? gdc_coll_price_ring_way_crossings(p, o, 1) : 0;
        int ag = ring->gather_rounds > 0 ? gdc_coll_price_ring_way_crossings(p, o, 0) : 0;
        if (rs + ag > most) {
            most  = rs + ag;
            *x_rs = rs;
            *x_ag = ag;
        }
    }
    return most >= 0;
}

double gdc_coll_price_ring(const gdc_coll_price_t *p, const gdc_coll_ring_t *ring)
{
    gdc_coll_hop_t in, out, shared;
    double         cross, b = ring->block_bytes / ring->chunks, red = gdc_coll_price_reduce(p, b);
    double         x_rs, x_ag, wave, stream, slow;
    int            r = ring->reduce_rounds, a = ring->gather_rounds;

    if (ring->block_bytes <= 0 || r + a <= 0) {
        return 0;
    }
    ring_hops(p, &in, &out, &shared, &cross);
    slow = cross > 0 ? shared.bw : in.bw;
    /* one chunk's way: every hop a message (and a reduction in the reduce-scatter), a share of
     * them across nodes as the ring crosses them */
    if (!ring_sparse_crossings(p, ring, &x_rs, &x_ag)) {
        x_rs = floor(r * cross + 0.5);
        x_ag = ceil((r + a) * cross) - x_rs;
    }
    wave = x_rs * (gdc_coll_price_msg(p, out, b) + red) + (r - x_rs) * (gdc_coll_price_msg(p, in, b) + red) +
           x_ag * gdc_coll_price_msg(p, out, b) + (a - x_ag) * gdc_coll_price_msg(p, in, b);
    /* the busiest rank's stream: every round a chunk out on the slowest link, and its CPU */
    stream = ring->fill * ring->chunks *
             (r * fmax(2 * p->o + b / p->gamma, b / slow) + a * fmax(p->o, b / slow));
    wave += (ring->chunks - 1) * fmax(r > 0 ? 2 * p->o + b / p->gamma : p->o, b / slow);
    return fmax(wave, stream + (cross > 0 ? out.lat : in.lat) + p->o); /* as gdc_coll_price_group_ring's */
}

double gdc_coll_price_chain(const gdc_coll_price_t *p, int hops, int chunks, double bytes)
{
    gdc_coll_hop_t in, out, shared;
    double         cross, b = bytes / chunks, x, slow, item, full, wave;

    if (hops <= 0 || bytes <= 0) {
        return 0;
    }
    ring_hops(p, &in, &out, &shared, &cross);
    if (hops == p->n - 1 && p->lay->nodes > 1) {
        /* the ring of ranks from the root: every edge of it but the one into the root */
        int root = p->args->root, before = (root + p->n - 1) % p->n;
        x        = p->lay->ring_cross - (p->args->node_of[before] != p->args->node_of[root]);
    } else {
        /* in blocks a chain crosses each boundary between nodes once */
        x = p->lay->blocks ? fmin(hops, p->lay->nodes - 1) : ceil(hops * cross);
    }
    /* scattered, each of a node's forwarders (the chain's ranks there but its last) sends
     * every chunk through the node's NICs: they carry forwarders x bytes, however few the
     * chunks, while the first chunk's way down the chain goes at the links' full rate
     * (test_price: with the share capped at the chunks and taken for the first chunk's way
     * too, 97.0% of bcast chain's prices were within 10% of the simulator's time, the worst
     * 1.61 times off, at 1 MiB round robin; now 99.9%, 1.13) */
    {
        int forwarders = (hops + p->lay->nodes - 1) / p->lay->nodes;
        slow = cross > 0 ? gdc_coll_price_hop(p, 1, p->lay->blocks ? 1 : forwarders).bw : in.bw;
    }
    item = fmax(p->o, b / slow);
    full = fmax(p->o, b / (cross > 0 ? out.bw : in.bw));
    wave = x * gdc_coll_price_msg(p, out, b) + (hops - x) * gdc_coll_price_msg(p, in, b) + (chunks - 1) * full;
    return fmax(wave, chunks * item + gdc_coll_price_msg(p, cross > 0 ? out : in, b) - full);
}

int gdc_coll_price_chunks(const gdc_coll_price_t *p, int across, double bytes, int rounds)
{
    return gdc_coll_chunks(p->args, across, (size_t)bytes, rounds);
}

int gdc_coll_price_ring_chunks(const gdc_coll_price_t *p, int across, double block_bytes, int rounds)
{
    return gdc_coll_ring_chunk_count(p->args, across, (size_t)block_bytes, rounds);
}

/* The run of the slow chains that a call's messages of `unit` bytes take: the one with
 * the long latencies (GDC_COLL_CHAIN_LATENT_W) where a hop's latency between nodes is
 * GDC_COLL_CHAIN_LATENT_FROM transfers inside a node or more. */
static int tree_chain_latency(const gdc_coll_price_t *p, double unit)
{
    return p->out.latency * p->in.bandwidth >= GDC_COLL_CHAIN_LATENT_FROM * unit;
}

/* The slow chain (tree_chains) at the call's costs: its NICs' queues, its hops between
 * nodes, its transfers inside them. */
static double tree_slow_chain(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind, int l, int nics, double unit)
{
    return p->lay->tree_slow_chain[kind][l][nics] * unit / GDC_COLL_CHAIN_NIC_W / p->out.bandwidth +
           p->lay->tree_slow_chain_hops[kind][l][nics] * p->out.latency +
           p->lay->tree_slow_chain_inside[kind][l][nics] * unit / p->in.bandwidth + 2 * p->o;
}

double gdc_coll_price_tree(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind, double unit)
{
    tree_weights_t c    = tree_weights(p->o, p->out.latency, p->in.latency, unit / p->out.bandwidth,
                                       unit / p->in.bandwidth, gdc_coll_price_reduce(p, unit), p->nics);
    int            nics = tree_nics_index(p->nics), l = tree_kind_down(kind) ? 0 : tree_chain_latency(p, unit);
    double         most = 0, unqueued = 0, chain;
    double         nic  = p->lay->tree_nic_load[kind][nics] * unit / p->out.bandwidth;
    double         link = p->lay->tree_link_load[kind] * unit / p->in.bandwidth;
    /* a reduce's last message in is reduced before its way goes on */
    double         last = tree_kind_reduces(kind) ? c.w[7] : 0;

    for (int r = 0; r < GDC_COLL_TREE_REGIMES; r++) {
        const gdc_coll_tree_path_t *way = &p->lay->tree_paths[kind][r];
        double                      t   = tree_path_cost(way, &c);

        most     = fmax(most, t);
        unqueued = fmax(unqueued, t - tree_path_queues(way, &c, kind));
    }
    /* A way's queues take every message of its level on the NIC, and a reduce's siblings
     * on the same link, as ahead of its own: at most that, as the others may have left
     * before the way's message was ready, or come in one by one from the level before. The
     * slow chain runs the queues in turn; where it comes out lower it stands, never below
     * the ways without their queues. (bcast binomial, 1 MiB on 4 ranks dealt round robin
     * to 2 nodes: the root's message off its node had left when the other rank there had
     * the data to send, yet was priced ahead of it, at 1.12 times the simulator's time;
     * reduce binomial of 1 MiB on 12 ranks on 8 nodes of dgx-h100, a sibling's message
     * ahead on the root's NIC, 1.23.) */
    if (p->lay->tree_slow_chain[kind][l][nics] > 0) {
        const gdc_coll_chain_way_t *way  = &p->lay->tree_slow_chain_way[kind][l][nics];
        double                      rest = way->inside_hops * (p->in.latency + 2 * p->o) +
                                           (tree_kind_reduces(kind) ? way->reduces * c.w[7] : 0);

        most = fmax(unqueued, fmin(most, tree_slow_chain(p, kind, l, nics, unit) + rest));
    }
    most = link > 0 ? fmax(most, link + last * p->lay->tree_link_reduces[kind] + p->in.latency + 2 * p->o) : most;
    most = nic > 0 ? fmax(most, nic + last + p->out.latency + 2 * p->o) : most;
    /* the NICs' slowest chain: a latency a hop between nodes on its way, the last message
     * reduced (reductions on the way overlap other queues); not where the latencies are
     * many transfers: its queues meet, the run of the slow chains that has them a latency
     * apart does not (reduce binomial of 1 KiB on 64 ranks round robin on 8 nodes, 1.16
     * times the simulator's time with it) */
    chain = p->lay->tree_nic_chain[kind][nics] * unit / p->out.bandwidth +
            p->lay->tree_nic_chain_hops[kind][nics] * p->out.latency + 2 * p->o + last;
    most  = p->lay->tree_nic_chain[kind][nics] > 0 && l == 0 ? fmax(most, chain) : most;
    /* the same with the hops inside nodes on its way, each a message of its own */
    return p->lay->tree_slow_chain[kind][l][nics] > 0 ? fmax(most, tree_slow_chain(p, kind, l, nics, unit) + last)
                                                     : most;
}

double gdc_coll_price_rails_way(const gdc_coll_price_t *p, int regime, double part, int *local)
{
    tree_weights_t c = tree_weights(p->o, p->out.latency, p->in.latency, part / p->out.bandwidth,
                                    part / p->in.bandwidth, 0, p->nics);

    *local = p->lay->rails_way_local[regime];
    return *local > 0 ? tree_path_cost(&p->lay->rails_ways[regime], &c) : 0;
}

double gdc_coll_price_tree_nic_queue(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind, double unit)
{
    int load = p->lay->tree_nic_load[kind][tree_nics_index(p->nics)];

    return load > 1 ? (load - 1) * unit / p->out.bandwidth : 0;
}

int gdc_coll_price_log2(int n)
{
    int rounds = 0;

    while ((1 << rounds) < n) {
        rounds++;
    }
    return rounds;
}

int gdc_coll_price_pof2(int n)
{
    int p = 1;

    while (p * 2 <= n) {
        p *= 2;
    }
    return p;
}

/* ---------------------------------------------------------------------------------------
 * Phases over a group whose every message takes one hop (a node's ranks, the node
 * leaders, a rail)
 */

double gdc_coll_price_group_ring(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double block_bytes, int chunks,
                                 int rs_rounds, int ag_rounds)
{
    return gdc_coll_price_group_ring_uneven(p, g, h, block_bytes, block_bytes, chunks, rs_rounds, ag_rounds);
}

double gdc_coll_price_group_ring_uneven(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double most_bytes,
                                        double mean_bytes, int chunks, int rs_rounds, int ag_rounds)
{
    double b = most_bytes / chunks, red = gdc_coll_price_reduce(p, b), m = mean_bytes / chunks;
    double rs_item = fmax(2 * p->o + b / p->gamma, b / h.bw), ag_item = fmax(p->o, b / h.bw);
    double wave, stream;

    if (g < 2 || most_bytes <= 0) {
        return 0;
    }
    wave   = rs_rounds * (gdc_coll_price_msg(p, h, b) + red) + ag_rounds * gdc_coll_price_msg(p, h, b) +
           (chunks - 1) * (rs_rounds > 0 ? rs_item : ag_item);
    /* the items hold each send's overhead: after them the last one's latency and its
     * receive's overhead (with 2 overheads there, allreduce hier_rails's small calls were
     * priced an overhead per phase over the simulator's time: 93.4% of its prices within
     * 10% of it, now 95.7%); a link carries blocks of every size, the mean's pace */
    stream = chunks * (rs_rounds * fmax(2 * p->o + m / p->gamma, m / h.bw) + ag_rounds * fmax(p->o, m / h.bw)) +
             h.lat + p->o;
    return fmax(wave, stream);
}

double gdc_coll_price_group_rd(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int reduces)
{
    int    pof2 = gdc_coll_price_pof2(g);
    double t    = 0, red = reduces ? gdc_coll_price_reduce(p, bytes) : 0;

    if (g < 2) {
        return 0;
    }
    if (pof2 != g) { /* in, reduced, and out again (allreduce recursive doubling's rules) */
        t += 2 * gdc_coll_price_msg(p, h, bytes) + (reduces ? red : bytes / h.bw);
    }
    for (int d = 1; d < pof2; d *= 2) {
        t += gdc_coll_price_msg(p, h, bytes) + red;
    }
    return t;
}

/* Recursive halving then doubling over a power-of-two group: halves, quarters ... of the
 * vector each way, the halves reduced as they come. */
static double group_halving(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes)
{
    double t = 0;

    for (int d = g / 2; d >= 1; d /= 2) {
        double part = bytes * d / g;
        t += 2 * gdc_coll_price_msg(p, h, part) + gdc_coll_price_reduce(p, part);
    }
    return t;
}

/* Whether a group of g runs recursive doubling on `bytes` (gdc_coll_group_allreduce). */
static int group_doubles(const gdc_coll_price_t *p, int g, double bytes, uint32_t slots)
{
    return g == 2 || bytes <= (double)p->args->config->hier_ring_bytes ||
           (!gdc_coll_group_halving_fits(g, slots) && slots < (uint32_t)(2 * (g - 1)));
}

double gdc_coll_price_group_allreduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int across,
                                      uint32_t slots)
{
    if (g < 2) {
        return 0;
    }
    if (group_doubles(p, g, bytes, slots)) {
        return gdc_coll_price_group_rd(p, g, h, bytes, 1);
    }
    if (gdc_coll_group_halving_fits(g, slots)) {
        return group_halving(p, g, h, bytes);
    }
    {
        double block = bytes / g;
        return gdc_coll_price_group_ring(p, g, h, block, gdc_coll_price_ring_chunks(p, across, block, 2 * (g - 1)),
                                         g - 1, g - 1);
    }
}

/* A group of a rank a node, off a power of two: the NIC of a participant that waited for an
 * extra takes in the extra's vector and its rounds' messages, and sends its rounds' and the
 * result back, one vector a round each way and one for the fold. Where the nodes' ranks are
 * uneven, the extras are the first nodes, the largest (in blocks and round robin alike),
 * whose rings inside take longest: their vectors come in behind the partners' round
 * messages, and the sends that wait for them start that much later, a whole vector more
 * (priced so on 3 nodes of 4 ranks each, allreduce hier_rails of 1 MiB came out at 1.26
 * times the simulator's time; on 6 of 16, 1.23). */
static int folds_behind_rounds(const gdc_coll_price_t *p)
{
    return p->lay->min_local < p->lay->max_local;
}

double gdc_coll_price_group_allreduce_stream(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                             uint32_t slots)
{
    int pof2 = gdc_coll_price_pof2(g);

    if (g < 2) {
        return 0;
    }
    if (group_doubles(p, g, bytes, slots)) {
        /* recursive doubling: the whole vector every round, and the fold's off a power of two */
        return (__builtin_ctz((unsigned)pof2) + (pof2 != g ? 1 + folds_behind_rounds(p) : 0)) * bytes / h.bw;
    }
    return 2 * bytes * (g - 1) / g / h.bw; /* halving-doubling or ring: each way, all but a 1/g */
}

double gdc_coll_price_group_allreduce_fill(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                           uint32_t slots)
{
    int folds = g > 2 && gdc_coll_price_pof2(g) != g && group_doubles(p, g, bytes, slots);

    return folds && !folds_behind_rounds(p) ? gdc_coll_price_msg(p, h, bytes) : 0;
}

double gdc_coll_price_group_fold_queue(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                       uint32_t slots, double lead)
{
    int rem = g - gdc_coll_price_pof2(g);

    if (rem % 2 == 0 || !h.crosses || !group_doubles(p, g, bytes, slots) || 2 * (rem - 1) >= p->lay->largest ||
        2 * rem < p->lay->largest) {
        return 0;
    }
    return lead > 0 ? fmax(0, bytes / h.bw - lead) : 0;
}

/* The most non-zero digits in the radix (2 at least) of a number from 1 to m (0 where m <
 * 1): m's own, or those of a number below it that keeps m's digits above some digit, that
 * digit one less, and every digit below it radix - 1. */
static int most_digits_to(int m, int radix)
{
    int digit[32], length = 0, most = 0, above = 0;

    radix = radix < 2 ? 2 : radix;
    for (int x = m; x > 0; x /= radix) {
        digit[length++] = x % radix;
    }
    for (int i = length - 1; i >= 0; i--) {
        if (digit[i] > 0) {
            int lowered = above + (digit[i] > 1) + i;
            most        = lowered > most ? lowered : most;
        }
        above += digit[i] != 0;
    }
    return above > most ? above : most;
}

/* Each level: its children's vectors in at once, one after the other on the link, each
 * reduced as it comes; a message a hop of the longest way in, as a fan-in's (a message a
 * level, allreduce hier_leader of 8 B on 17 ranks on 4 nodes of dgx-h100 came out at 1.17
 * times the simulator's time). */
double gdc_coll_price_group_tree_reduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, int radix, double bytes)
{
    double t = 0, red = gdc_coll_price_reduce(p, bytes);

    for (long d = 1; d < g; d *= radix) {
        long children = (g - 1) / d < radix - 1 ? (g - 1) / d : radix - 1;
        t += red + (double)(children - 1) * fmax(red, bytes / h.bw);
    }
    return t + most_digits_to(g - 1, radix) * gdc_coll_price_msg(p, h, bytes);
}

/* A fan-in over a k-nomial tree: the leaves send at once, and a rank sends once its
 * children are in, so the longest way in is that of the most hops, a vrank with the most
 * non-zero digits (priced a level a hop, the barrier hier of 17 ranks on 4 nodes of
 * dgx-h100, five ranks on the largest, came out a hop over the simulator's time, 1.13). */
double gdc_coll_price_group_fanin(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, int radix)
{
    return most_digits_to(g - 1, radix) * gdc_coll_price_msg(p, h, 0);
}

double gdc_coll_price_group_bcast(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int chunks)
{
    return gdc_coll_price_group_bcast_to(p, g, most_digits_to(g - 1, 2), h, bytes, chunks);
}

double gdc_coll_price_group_bcast_to(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes,
                                     int chunks)
{
    double b = bytes / chunks;
    int    depth = gdc_coll_price_log2(g);

    if (g < 2 || bytes <= 0) {
        return 0;
    }
    if (gdc_coll_pipe_bcast_chains(g, chunks)) {
        double item = fmax(p->o, b / h.bw);
        return fmax((g - 1) * gdc_coll_price_msg(p, h, b) + (chunks - 1) * item,
                    chunks * item + gdc_coll_price_msg(p, h, b) - item);
    }
    /* a binomial tree per chunk: the root sends each chunk depth times */
    return gdc_coll_price_group_tree_way_of(p, g, hops, h, b) + (chunks - 1) * depth * fmax(p->o, b / h.bw);
}

double gdc_coll_price_group_bcast_chunk(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes,
                                        int chunks)
{
    double b = bytes / chunks;

    if (g < 2 || bytes <= 0) {
        return 0;
    }
    if (gdc_coll_pipe_bcast_chains(g, chunks)) {
        return (g - 1) * gdc_coll_price_msg(p, h, b);
    }
    return gdc_coll_price_group_tree_way_of(p, g, hops >= 0 ? hops : most_digits_to(g - 1, 2), h, b);
}

double gdc_coll_price_group_bcast_stream(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int chunks)
{
    return gdc_coll_price_group_bcast_stream_shared(p, g, h, bytes, chunks, 1);
}

double gdc_coll_price_group_bcast_stream_shared(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                                int chunks, int shared)
{
    double item = fmax(p->o, bytes / chunks / h.bw);
    int    depth = gdc_coll_price_log2(g), root_sends, member_sends;

    if (g < 2 || bytes <= 0) {
        return 0;
    }
    /* what the busiest NIC carries per chunk: the root's sends to its children (one in a
     * chain), or a sharing member's: its streams in, and out to its children (in a binomial
     * tree, one fewer than the root's at most) */
    root_sends   = gdc_coll_pipe_bcast_chains(g, chunks) ? 1 : depth;
    member_sends = shared * (root_sends > 1 ? root_sends - 1 : 1);
    return chunks * (root_sends > member_sends ? root_sends : member_sends) * item;
}

double gdc_coll_price_group_tree_way(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes)
{
    return gdc_coll_price_group_tree_way_of(p, g, most_digits_to(g - 1, 2), h, bytes);
}

double gdc_coll_price_group_tree_way_of(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes)
{
    int    depth = gdc_coll_price_log2(g);
    double x = bytes / h.bw, queued = x > p->o ? x - p->o : 0;

    /* the way to a rank of `hops` hops, each after the parent's sends to its farther
     * children: depth steps in all at the senders, the transfers they do not hide queued */
    return depth * p->o + hops * (h.lat + x + p->o) + (depth - hops) * queued;
}

double gdc_coll_price_group_allgather(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, gdc_coll_hop_t fold,
                                      double total, double largest, double smallest, int across)
{
    int    pof2 = gdc_coll_price_pof2(g);
    double t = 0, even = total / g, big = largest > 0 ? largest : even, small = smallest > 0 ? smallest : even;

    if (g < 2) {
        return 0;
    }
    if (total > (double)p->args->config->hier_ring_bytes && g > 2) {
        /* even shares: the ring's chunks of large and small shares overlap (priced with the
         * largest share, allgather hier went from 94.8% to 87.8% within 10% of the
         * simulator) */
        return gdc_coll_price_group_ring(p, g, h, even, gdc_coll_price_ring_chunks(p, across, even, g - 1), 0, g - 1);
    }
    /* round d: what a participant holds, the shares of its group of d participants and of
     * the extras they took (the first group's min(d, extras)), at most that many of the
     * largest and all but the others' smallest (counted without the extras', allgather hier
     * of 64 KiB on 4 to 8 ranks on 3 nodes, whose leaders send less than they hold, came out
     * at 0.85 of the simulator's time) */
    for (int d = 1; d < pof2; d *= 2) {
        int    m    = d + (d < g - pof2 ? d : g - pof2);
        double have = fmax(total / pof2 * d, fmin(m * big, total - (g - m) * small));
        t += gdc_coll_price_msg(p, h, have);
    }
    if (pof2 != g) {
        t += gdc_coll_price_msg(p, fold, big) +
             gdc_coll_price_fold_out(g, p->o, gdc_coll_price_msg(p, h, total / 2), gdc_coll_price_msg(p, fold, total),
                                     total / 2 / fold.bw);
    }
    return t;
}

double gdc_coll_price_fold_out(int g, double o, double last, double out, double queued)
{
    int pof2 = gdc_coll_price_pof2(g), extras = g - pof2;

    /* with extras for at most half the participants, the last round's partner of one that
     * waited for an extra did not, and its message is in before: the result goes back to the
     * extra while the participant's own last message is on its way (behind it on the link
     * when both take the same one) */
    return extras > 0 && extras <= pof2 / 2 ? fmax(o + queued + out, last) - last : out;
}

double gdc_coll_price_group_dissemination(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h)
{
    return gdc_coll_price_log2(g) * gdc_coll_price_msg(p, h, 0);
}
