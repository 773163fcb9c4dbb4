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
#include "phase/phase.h"
#include "phase/ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/price_phases.h"

static int node(const gdc_coll_args_t *args, int r)
{
    return args->node_of != NULL && args->num_nodes > 1 ? args->node_of[r] : 0;
}

typedef enum { BY_BITS, BY_ROTATION, DOWN_TREE, FOLD } pattern_t;

/* Rank r's partner at distance dist in the pattern, or -1 when it has none there. */
static int partner(const gdc_coll_args_t *args, pattern_t pattern, int r, int dist)
{
    gdc_coll_fold_t fold;

    switch (pattern) {
    case BY_BITS:
        fold = gdc_coll_fold(args->size, r);
        return fold.newrank < 0 || (fold.newrank ^ dist) >= fold.p ? -1 : gdc_coll_fold_real(&fold, fold.newrank ^ dist);
    case BY_ROTATION:
        return (r + dist) % args->size;
    case FOLD:
        fold = gdc_coll_fold(args->size, r);
        return fold.newrank < 0 ? r + 1 : -1;
    default:
        return r % (2 * dist) == 0 && r + dist < args->size ? r + dist : -1;
    }
}

/* Off-node children of a k-nomial level at distance dist, per node of their parent. */
static int most_off_knomial(const gdc_coll_args_t *args, int *off, int nodes, long dist, int radix)
{
    int most = 0;

    memset(off, 0, (size_t)nodes * sizeof(int));
    for (long v = 0; v < args->size; v += dist * radix) {
        for (int j = 1; j < radix && v + j * dist < args->size; j++) {
            off[node(args, (int)v)] += node(args, (int)(v + j * dist)) != node(args, (int)v);
        }
    }
    for (int d = 0; d < nodes; d++) {
        most = off[d] > most ? off[d] : most;
    }
    return most;
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
static int most_off(const gdc_coll_args_t *args, int *off, int nodes, int dist, pattern_t pattern)
{
    int most = 0;

    memset(off, 0, (size_t)nodes * sizeof(int));
    for (int r = 0; r < args->size; r++) {
        int q = partner(args, pattern, r, dist);
        if (q >= 0 && node(args, q) != node(args, r)) {
            off[node(args, r)]++;
        }
    }
    for (int d = 0; d < nodes; d++) {
        most = off[d] > most ? off[d] : most;
    }
    return most;
}

void gdc_coll_layout_of(const gdc_coll_args_t *args, gdc_coll_layout_t *layout)
{
    int  nodes = args->node_of != NULL && args->num_nodes > 1 ? args->num_nodes : 1;
    int *per   = calloc((size_t)nodes, sizeof(int));

    memset(layout, 0, sizeof(*layout));
    layout->nodes     = nodes;
    layout->max_local = args->size;
    layout->min_local = args->size;
    layout->blocks    = 1;
    if (nodes == 1 || per == NULL) {
        free(per);
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
    for (int i = 0; i < GDC_COLL_LAYOUT_DISTANCES && (1 << i) < args->size; i++) {
        layout->xor_off[i]   = most_off(args, per, nodes, 1 << i, BY_BITS);
        layout->shift_off[i] = most_off(args, per, nodes, 1 << i, BY_ROTATION);
        layout->tree_off[i]  = most_off(args, per, nodes, 1 << i, DOWN_TREE);
    }
    {
        int  radix = args->config != NULL ? args->config->tree_radix : 2;
        long dist  = 1;
        for (int l = 0; l < GDC_COLL_LAYOUT_DISTANCES && dist < args->size; l++, dist *= radix) {
            layout->knomial_off[l] = most_off_knomial(args, per, nodes, dist, radix);
        }
    }
    layout->fold_off        = most_off(args, per, nodes, 1, FOLD);
    layout->shift_chain_off = most_off_on_a_chain(args);
    free(per);
}

/* ---------------------------------------------------------------------------------------
 * Links
 */

void gdc_coll_price_init(gdc_coll_price_t *p, const gdc_coll_machine_t *m, const gdc_coll_args_t *args,
                         const gdc_coll_layout_t *layout)
{
    int dev = args->on_device;

    memset(p, 0, sizeof(*p));
    p->m      = m;
    p->args   = args;
    p->lay    = *layout;
    p->n      = args->size;
    p->dev    = dev;
    p->o      = m->step_overhead;
    p->sig    = m->signal_latency;
    p->gamma  = dev ? m->reduce_bw_gpu : m->reduce_bw;
    p->kappa  = dev ? m->copy_bw_gpu : m->copy_bw;
    p->in     = m->link[dev ? m->intra_device : m->intra_host];
    p->out    = m->link[dev ? m->inter_device : m->inter_host];
    p->nics   = m->nics_per_node > 0 ? m->nics_per_node : 1;
    p->dsize  = args->dsize > 0 ? args->dsize : 1;
}

gdc_coll_hop_t gdc_coll_price_hop(const gdc_coll_price_t *p, int crosses, int senders)
{
    gdc_coll_hop_t h;

    if (!crosses) {
        h.lat = p->in.latency;
        h.bw  = p->in.bandwidth;
        return h;
    }
    senders = senders < 1 ? 1 : senders;
    h.lat   = p->out.latency;
    /* the node's NICs carry everything its ranks send off the node at once */
    h.bw = p->out.bandwidth / ceil((double)senders / p->nics);
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

    if (p->lay.nodes == 1) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    if (i >= 0) {
        off = p->lay.shift_off[i];
    } else if (p->lay.blocks) {
        off = dist < p->lay.max_local ? dist : p->lay.max_local;
    } else {
        off = p->lay.max_local;
    }
    return gdc_coll_price_hop(p, off > 0, off);
}

gdc_coll_hop_t gdc_coll_price_tree_hop(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist), off;

    if (p->lay.nodes == 1) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    if (i >= 0) {
        off = p->lay.tree_off[i];
    } else {
        off = p->lay.blocks && dist < p->lay.min_local ? 0 : 1; /* k-nomial: one parent per node, roughly */
    }
    return gdc_coll_price_hop(p, off > 0, off);
}

gdc_coll_hop_t gdc_coll_price_knomial_hop(const gdc_coll_price_t *p, int level)
{
    int off = p->lay.nodes > 1 && level < GDC_COLL_LAYOUT_DISTANCES ? p->lay.knomial_off[level] : 0;

    return gdc_coll_price_hop(p, off > 0, off);
}

gdc_coll_hop_t gdc_coll_price_fold_hop(const gdc_coll_price_t *p)
{
    return gdc_coll_price_hop(p, p->lay.fold_off > 0, p->lay.fold_off);
}

int gdc_coll_price_shift_full(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist);

    return p->lay.nodes > 1 && (i < 0 || p->lay.shift_off[i] >= p->lay.min_local);
}

gdc_coll_hop_t gdc_coll_price_xor_hop(const gdc_coll_price_t *p, int dist)
{
    int i = log2_exact(dist), off;

    if (p->lay.nodes == 1) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    off = i >= 0 ? p->lay.xor_off[i] : p->lay.max_local;
    return gdc_coll_price_hop(p, off > 0, off);
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
    *cross  = p->lay.nodes > 1 ? (double)p->lay.ring_cross / p->n : 0;
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
    x_rs = floor(r * cross + 0.5);
    x_ag = ceil((r + a) * cross) - x_rs;
    wave = x_rs * (gdc_coll_price_msg(p, out, b) + red) + (r - x_rs) * (gdc_coll_price_msg(p, in, b) + red) +
           x_ag * gdc_coll_price_msg(p, out, b) + (a - x_ag) * gdc_coll_price_msg(p, in, b);
    /* the busiest rank's stream: every round a chunk out on the slowest link, and its CPU */
    stream = ring->fill * ring->chunks *
             (r * fmax(2 * p->o + b / p->gamma, b / slow) + a * fmax(p->o, b / slow));
    wave += (ring->chunks - 1) * fmax(r > 0 ? 2 * p->o + b / p->gamma : p->o, b / slow);
    return fmax(wave, stream + (cross > 0 ? out.lat : in.lat) + 2 * p->o);
}

double gdc_coll_price_chain(const gdc_coll_price_t *p, int hops, int chunks, double bytes)
{
    gdc_coll_hop_t in, out, shared;
    double         cross, b = bytes / chunks, x, slow, item, wave;

    if (hops <= 0 || bytes <= 0) {
        return 0;
    }
    ring_hops(p, &in, &out, &shared, &cross);
    /* in blocks a chain crosses each boundary between nodes once */
    x = p->lay.blocks ? fmin(hops, p->lay.nodes - 1) : ceil(hops * cross);
    /* scattered, a node's forwarders (the chain's ranks there but its last) send different
     * chunks at once, as many as there are chunks */
    {
        int forwarders = (hops + p->lay.nodes - 1) / p->lay.nodes;
        forwarders     = forwarders < chunks ? forwarders : chunks;
        slow = cross > 0 ? gdc_coll_price_hop(p, 1, p->lay.blocks ? 1 : forwarders).bw : in.bw;
    }
    item = fmax(p->o, b / slow);
    wave = x * gdc_coll_price_msg(p, out, b) + (hops - x) * gdc_coll_price_msg(p, in, b) + (chunks - 1) * item;
    return fmax(wave, chunks * item + gdc_coll_price_msg(p, cross > 0 ? out : in, b) - item);
}

int gdc_coll_price_chunks(const gdc_coll_price_t *p, int across, double bytes, int rounds)
{
    return gdc_coll_chunks(p->args, across, (size_t)bytes, rounds);
}

int gdc_coll_price_ring_chunks(const gdc_coll_price_t *p, int across, double block_bytes, int rounds)
{
    return gdc_coll_ring_chunk_count(p->args, across, (size_t)block_bytes, rounds);
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
    double b = block_bytes / chunks, red = gdc_coll_price_reduce(p, b);
    double rs_item = fmax(2 * p->o + b / p->gamma, b / h.bw), ag_item = fmax(p->o, b / h.bw);
    double wave, stream;

    if (g < 2 || block_bytes <= 0) {
        return 0;
    }
    wave   = rs_rounds * (gdc_coll_price_msg(p, h, b) + red) + ag_rounds * gdc_coll_price_msg(p, h, b) +
           (chunks - 1) * (rs_rounds > 0 ? rs_item : ag_item);
    stream = chunks * (rs_rounds * rs_item + ag_rounds * ag_item) + h.lat + 2 * p->o;
    return fmax(wave, stream);
}

double gdc_coll_price_group_rd(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int reduces)
{
    int    pof2 = gdc_coll_price_pof2(g);
    double t    = 0, red = reduces ? gdc_coll_price_reduce(p, bytes) : 0;

    if (g < 2) {
        return 0;
    }
    if (pof2 != g) {
        t += 2 * gdc_coll_price_msg(p, h, bytes) + bytes / h.bw + red;
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

double gdc_coll_price_group_allreduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int across,
                                      uint32_t slots)
{
    if (g < 2) {
        return 0;
    }
    if (g == 2 || bytes <= (double)p->args->config->hier_ring_bytes) {
        return gdc_coll_price_group_rd(p, g, h, bytes, 1);
    }
    if (gdc_coll_group_halving_fits(g, slots)) {
        return group_halving(p, g, h, bytes);
    }
    if (slots < (uint32_t)(2 * (g - 1))) {
        return gdc_coll_price_group_rd(p, g, h, bytes, 1);
    }
    {
        double block = bytes / g;
        return gdc_coll_price_group_ring(p, g, h, block, gdc_coll_price_ring_chunks(p, across, block, 2 * (g - 1)),
                                         g - 1, g - 1);
    }
}

double gdc_coll_price_group_tree_reduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, int radix, double bytes)
{
    double t = 0, red = gdc_coll_price_reduce(p, bytes);

    for (long d = 1; d < g; d *= radix) {
        t += gdc_coll_price_msg(p, h, bytes) + red + (radix - 2) * fmax(red, bytes / h.bw);
    }
    return t;
}

/* phase/bcast.c's choice: a chain when its chunks fill it sooner than a tree's root sends them */
static int chain_is_faster(int n, int chunks)
{
    int depth = gdc_coll_price_log2(n);

    return n > 2 && (long)(depth - 1) * chunks - (n - 2) > n - 1 - depth;
}

double gdc_coll_price_group_bcast(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int chunks)
{
    double b = bytes / chunks;
    int    depth = gdc_coll_price_log2(g);

    if (g < 2 || bytes <= 0) {
        return 0;
    }
    if (chain_is_faster(g, chunks)) {
        double item = fmax(p->o, b / h.bw);
        return fmax((g - 1) * gdc_coll_price_msg(p, h, b) + (chunks - 1) * item,
                    chunks * item + gdc_coll_price_msg(p, h, b) - item);
    }
    /* a binomial tree per chunk: the root sends each chunk depth times */
    return depth * gdc_coll_price_msg(p, h, b) + (chunks - 1) * depth * fmax(p->o, b / h.bw);
}

double gdc_coll_price_group_allgather(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double total, int across)
{
    int    pof2 = gdc_coll_price_pof2(g);
    double t = 0, have = total / g * g / pof2;

    if (g < 2) {
        return 0;
    }
    if (total > (double)p->args->config->hier_ring_bytes && g > 2) {
        double block = total / g;
        return gdc_coll_price_group_ring(p, g, h, block, gdc_coll_price_ring_chunks(p, across, block, g - 1), 0, g - 1);
    }
    if (pof2 != g) {
        t += gdc_coll_price_msg(p, h, total / g) + gdc_coll_price_msg(p, h, total);
    }
    for (int d = 1; d < pof2; d *= 2, have *= 2) {
        t += gdc_coll_price_msg(p, h, have);
    }
    return t;
}

double gdc_coll_price_group_dissemination(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h)
{
    return gdc_coll_price_log2(g) * gdc_coll_price_msg(p, h, 0);
}
