/*
 * The price of each algorithm in closed form, in the terms of price_phases.h: what its
 * builder does, phase by phase, counted in rounds, bytes, chunks and hops. Each mirrors
 * its builder (coll/<collective>/<algorithm>.c); tests/coll/test_price.c holds them to the
 * simulator.
 */
#include <math.h>
#include <string.h>

#include "algos.h"
#include "alltoall/alltoall.h"
#include "hier/common.h"
#include "phase/shm.h"
#include "phase/tree.h"
#include "select/price_phases.h"
#include "select/table.h"

typedef double (*price_fn_t)(const gdc_coll_price_t *p);

static double bytes_of(const gdc_coll_price_t *p, size_t count)
{
    return (double)count * (double)p->dsize;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* ---------------------------------------------------------------------------------------
 * Phases over all ranks
 */

/* A round by bits: the partner's distance, the bytes sent, the bytes reduced after. */
typedef struct xor_round {
    int    dist;
    double bytes, reduced;
    int    order;        /* the rounds before it: 0 at lower distances, 1 at higher, 2 at every one */
    double after_bytes;  /* on the way of a participant that waited for an extra (0: bytes) */
    int    not_after;    /* that participant receives nothing in this round */
    double nic_bytes;    /* what the busiest NIC takes in from off its node in the round, for
                            the way of a participant that waited for an extra and for the
                            others' (0: the bytes of each of the node's ranks that cross) */
    double nic_bytes_plain;
    int    quiet;        /* what crosses between nodes in the round is empty */
    int    fold_queue;   /* the first round after the fold, whose messages from participants
                            that did not wait go out on the node's NIC meanwhile (fold_queue) */
    int    partner_ahead; /* a participant that waited for an extra has its partner's message
                             in before its own lands there: the partner never waited */
} xor_round_t;

/* A way through rounds by bits, each on its hop: a round that crosses behind the node's
 * other messages on its NIC leaves the ranks staggered, and the next round that crosses
 * keeps the NIC busy meanwhile: its latency hides behind that queue. Where fewer of a
 * node's ranks cross in the next round and their own queue is shorter than the latency,
 * the ranks come staggered by more than that round's messages need, and the last of them
 * pays the latency in full: only the round's own queue hides. (reduce_scatter
 * recursive_halving, 1 KiB on 12 ranks, 3 nodes: one node's four ranks cross in the first
 * round, two of each other node in the second. It was priced at 0.73 of the simulator's
 * time, and chosen over the ring, which takes 0.86 of its time; now 0.93.) */
typedef struct xor_way {
    double t, queue, shared;
} xor_way_t;

/* h, where the node's busiest NIC carries nic_bytes in the round, for a message of sent
 * bytes: sharing the NIC with the rest. */
static gdc_coll_hop_t nic_carrying(const gdc_coll_price_t *p, gdc_coll_hop_t h, double nic_bytes, double sent)
{
    if (!h.crosses || nic_bytes <= 0 || sent <= 0) {
        return h;
    }
    h.shared = nic_bytes > sent ? nic_bytes / sent : 1;
    h.bw     = p->out.bandwidth / h.shared;
    return h;
}

static double xor_step(const gdc_coll_price_t *p, xor_way_t *w, gdc_coll_hop_t h, double bytes, double red)
{
    double msg    = gdc_coll_price_msg(p, h, bytes);
    double behind = (h.shared - 1) * bytes / (h.bw * h.shared);
    double cap    = h.shared < w->shared && behind < h.lat ? behind : h.lat;
    double hidden = h.crosses ? (w->queue < cap ? w->queue : cap) : 0;

    w->t += msg - hidden + red;
    w->queue  = h.crosses ? behind : 0; /* behind the others */
    w->shared = h.crosses ? h.shared : 0;
    return msg;
}

/* How long the first message (of `sent` bytes) of a participant that waited for an extra
 * takes on its node's one NIC, from the fold in, queue included (`queued`: as the hop
 * prices it): those of the node's participants that cross at once are on the NIC
 * meanwhile, those that waited too are ahead of it. (allreduce rabenseifner, 1 MiB on 5
 * ranks in blocks on 2 nodes: rank 1 takes in rank 0's vector while rank 2's first message
 * crosses; priced as if that message came after the fold, 1.15 times the simulator's
 * time.) */
static double fold_queue(const gdc_coll_price_t *p, int dist, double sent, double fold_in, double queued)
{
    int    crossing = 0, waiting = gdc_coll_price_xor_fold_queue(p, dist, &crossing);
    double x        = sent / p->out.bandwidth;

    return waiting > 0 ? max2(waiting * x, crossing * x - fold_in) : queued;
}

/* The way of the participants that did not wait for an extra: at[j], when round j starts
 * (at[rounds], when they are done). */
static void xor_plain_way(const gdc_coll_price_t *p, const xor_round_t *round, int rounds, double *at)
{
    xor_way_t all = {0, 0, 0};

    at[0] = 0;
    for (int j = 0; j < rounds; j++) {
        double         red = round[j].reduced > 0 ? gdc_coll_price_reduce(p, round[j].reduced) : 0;
        gdc_coll_hop_t way = round[j].quiet ? gdc_coll_price_hop(p, 0, 1) : gdc_coll_price_xor_hop(p, round[j].dist);

        xor_step(p, &all, nic_carrying(p, way, round[j].nic_bytes_plain, round[j].bytes), round[j].bytes, red);
        at[j + 1] = all.t;
    }
}

/* Rounds by bits over the power of two that the fold of the ranks above it leaves. Those
 * that did not wait for an extra start at once, every round at its slowest hop; those
 * that did start after the fold in (fold_in), each round at the hops their news meets,
 * then hand the result back (out_bytes; none below 0), the last round's message on its
 * way meanwhile where it can be (may_hide: nothing waits for the participant's own last
 * message; gdc_coll_price_fold_out). The slower way.
 * gathers: nothing is combined (allgather), so what a participant that waited receives
 * does not wait for what it sends: it has the whole once the others' rounds are in (and
 * those of partners that waited too, at distances below the extras' count), and hands it
 * back once its link to the extra is free; the ranks its late messages reach finish at
 * the end of its way. */
static double xor_rounds(const gdc_coll_price_t *p, const xor_round_t *round, int rounds, double fold_in,
                         double out_bytes, int may_hide, int gathers)
{
    xor_way_t      after = {0, 0, 0};
    double         plain[2 * GDC_COLL_LAYOUT_DISTANCES + 1];
    double         last = 0, queued = 0;
    gdc_coll_hop_t h = gdc_coll_price_fold_hop(p), hop = h;
    /* gathers: when the extra's block (the first round's size) is in; when the rounds of
     * partners that waited too are in (0: none waited); when the participant's link to its
     * extra is free (each of its messages on that link leaves once the round before is in,
     * behind the one before it) */
    double first_in = gathers && rounds > 0 ? gdc_coll_price_msg(p, h, round[0].bytes) : 0, late_in = 0;
    double link     = first_in;
    int    extras   = p->n - gdc_coll_price_pof2(p->n);
    double all_t;

    xor_plain_way(p, round, rounds, plain);
    all_t = plain[rounds];
    for (int j = 0; j < rounds; j++) {
        double red  = round[j].reduced > 0 ? gdc_coll_price_reduce(p, round[j].reduced) : 0;
        double sent = round[j].after_bytes > 0 ? round[j].after_bytes : round[j].bytes;
        gdc_coll_hop_t way = round[j].quiet ? gdc_coll_price_hop(p, 0, 1) : gdc_coll_price_xor_hop(p, round[j].dist);
        hop         = round[j].quiet || round[j].order == 2
                          ? way
                          : gdc_coll_price_xor_hop_after_fold(p, round[j].dist, round[j].order);
        hop = nic_carrying(p, hop, round[j].nic_bytes, sent);
        if (!round[j].not_after) {
            if (gathers && hop.crosses == h.crosses) {
                link = max2(link, max2(plain[j], late_in)) + sent / hop.bw;
            }
            last = xor_step(p, &after, hop, sent, red);
            if (round[j].partner_ahead) {
                after.t -= p->o; /* its message in before its own lands: its receive step hidden */
            }
            if (round[j].fold_queue && hop.crosses && p->nics == 1) {
                after.t += fold_queue(p, round[j].dist, sent, fold_in, sent / hop.bw) - sent / hop.bw;
            }
        }
        late_in = round[j].dist < extras ? fold_in + after.t : late_in;
    }
    if (extras == 0) {
        return all_t;
    }
    if (gathers && out_bytes >= 0) {
        double whole = max2(max2(all_t, first_in), late_in);
        return max2(fold_in + after.t, max2(whole, link) + gdc_coll_price_msg(p, h, out_bytes));
    }
    if (out_bytes < 0) { /* the result goes back later */
        return max2(all_t, fold_in + after.t);
    }
    if (!may_hide) {
        return max2(all_t, fold_in + after.t + gdc_coll_price_msg(p, h, out_bytes));
    }
    /* the last round's hop and the fold's: the same link when both stay in the node or both
     * leave it (a rank's NIC is always the same one); the result waits for the last
     * reduction, the link for the participant's own last message */
    if (rounds > 0 && hop.crosses == h.crosses) {
        double red = round[rounds - 1].reduced > 0 ? gdc_coll_price_reduce(p, round[rounds - 1].reduced) : 0;
        queued     = max2(round[rounds - 1].bytes / hop.bw - red, 0);
    }
    return max2(all_t, fold_in + after.t +
                           gdc_coll_price_fold_out(p->n, p->o, last, gdc_coll_price_msg(p, h, out_bytes), queued));
}

/* The fold in: the extras' vectors, reduced (the participant's first message goes after
 * the reduction, and its way is the longer) or not (its first message leaves once the
 * extra's block is in: priced as if it also queued behind that block, 92.1% of allgather
 * recursive_doubling's prices were within 10% of the simulator's time; now 93.3%). */
static double fold_in(const gdc_coll_price_t *p, double bytes, int reduces)
{
    gdc_coll_hop_t h = gdc_coll_price_fold_hop(p);

    return gdc_coll_price_msg(p, h, bytes) + (reduces ? gdc_coll_price_reduce(p, bytes) : 0);
}

/* The NICs the ranks of a node of `ranks` ranks send on (a rank keeps to one). */
static int nics_of(const gdc_coll_price_t *p, int ranks)
{
    return ranks < p->nics ? ranks : p->nics;
}

static gdc_coll_hop_t inside(const gdc_coll_price_t *p)
{
    return gdc_coll_price_hop(p, 0, 1);
}

/* The sum of the k largest of the n values of v (reorders v). */
static double dearest(double *v, int n, int k)
{
    double sum = 0;

    for (int i = 0; i < k && i < n; i++) {
        int most = i;
        for (int j = i + 1; j < n; j++) {
            most = v[j] > v[most] ? j : most;
        }
        sum += v[most];
        v[most] = v[i];
    }
    return sum;
}

/* ---------------------------------------------------------------------------------------
 * allreduce
 */

/* A ring over the vector's n blocks (the largest one priced): rs rounds reducing, ag not;
 * block j reduced at, or gathered from, rank first_owner + j. */
static double ring_of(const gdc_coll_price_t *p, size_t count, int rs, int ag, int chunk_rounds, int first_owner)
{
    double          block = bytes_of(p, (count + (size_t)p->n - 1) / (size_t)p->n);
    gdc_coll_ring_t ring  = {rs, ag, block,
                             gdc_coll_price_ring_chunks(p, gdc_coll_flat_across(p->args), block, chunk_rounds),
                             count < (size_t)p->n ? (double)count / p->n : 1, first_owner};

    return gdc_coll_price_ring(p, &ring);
}

static double allreduce_ring(const gdc_coll_price_t *p)
{
    /* rank r finishes block r + 1 */
    return ring_of(p, p->args->count, p->n - 1, p->n - 1, 2 * (p->n - 1), p->n - 1) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes_of(p, p->args->count) / p->n) : 0);
}

/* A walk's steps (gdc_coll_walk_add). */
static void send_to(gdc_coll_walk_list_t *l, int peer, double bytes, int waits)
{
    gdc_coll_walk_add(l, GDC_COLL_WALK_SEND, peer, bytes, waits);
}

static void recv_from(gdc_coll_walk_list_t *l, int peer)
{
    gdc_coll_walk_add(l, GDC_COLL_WALK_RECV, peer, 0, 0);
}

static void local(gdc_coll_walk_list_t *l, double cost)
{
    gdc_coll_walk_add(l, GDC_COLL_WALK_LOCAL, -1, cost, 0);
}

/* The fold of a non-power of two into rank r's steps (f: its fold): an extra hands its
 * `bytes` to the participant above it and takes its result back, all it does (1); a
 * participant that waits for an extra takes them in and reduces them. */
static int fold_steps(const gdc_coll_price_t *p, const gdc_coll_fold_t *f, int r, double bytes,
                      gdc_coll_walk_list_t *l)
{
    if (f->newrank < 0) {
        send_to(l, r + 1, bytes, 0);
        recv_from(l, r + 1);
        return 1;
    }
    if (f->newrank < f->rem) {
        recv_from(l, r - 1);
        local(l, gdc_coll_price_reduce(p, bytes));
    }
    return 0;
}

/* Whether a call is walked rank by rank (gdc_coll_price_walk), its programs of up to
 * `steps` steps, rather than priced in closed form: on several nodes, up to
 * GDC_COLL_WALK_RANKS ranks. */
static int walked_in(const gdc_coll_price_t *p, gdc_coll_walk_program_t program, int steps, double *t)
{
    return p->n <= GDC_COLL_WALK_RANKS && p->lay->nodes > 1 && gdc_coll_price_walk(p, program, NULL, steps, t);
}

static int walked(const gdc_coll_price_t *p, gdc_coll_walk_program_t program, double *t)
{
    return walked_in(p, program, GDC_COLL_WALK_STEPS, t);
}

/* The steps of all ranks together past which a call is not walked along its rails or down
 * its chain (up to it, a price costs up to about 110 microseconds: bench/RESULTS.md,
 * 2026-12-07 21:30). */
#define GDC_COLL_WALK_BUDGET 4096

/* What a walk along rails needs of the nodes (up to GDC_COLL_WALK_RANKS ranks): node d's
 * ranks in rank order, member[first[d]] on, each rank's place on its node, the rails, and
 * what a rank of node d does before and after them (the phases inside the node, in closed
 * form: a node's are even, the nodes' are not). allgather hier_rails's rails are the
 * owners of each of B parts of every node's package; allgather hier's one rail is the
 * leaders, each carrying its node's whole package. */
typedef struct rails_nodes {
    int    first[GDC_COLL_WALK_RANKS + 1];
    int    member[GDC_COLL_WALK_RANKS];
    int    local[GDC_COLL_WALK_RANKS];
    int    blocks;                       /* B: the rails, the parts of a package */
    int    chunks;                       /* the rails' rings' (0: the rails double) */
    int    copy_parts;                   /* a rank copies its parts in before its rails (hier_rails) */
    int    reduces;                      /* the rails allreduce their part (recursive doubling) */
    double before[GDC_COLL_WALK_RANKS];  /* node d's phases before its rails */
    double after[GDC_COLL_WALK_RANKS];   /* ... after them */
} rails_nodes_t;

static int rails_node_size(const rails_nodes_t *rn, int d)
{
    return rn->first[d + 1] - rn->first[d];
}

static int rails_consecutive(const rails_nodes_t *rn, int d)
{
    return rn->member[rn->first[d + 1] - 1] - rn->member[rn->first[d]] == rails_node_size(rn, d) - 1;
}

/* Bytes of part b of node d's package (its ranks' blocks cut in B parts). */
static double rails_part(const gdc_coll_price_t *p, const rails_nodes_t *rn, int d, int b)
{
    size_t package = p->args->count * (size_t)rails_node_size(rn, d);

    return bytes_of(p, gdc_coll_block_count(package, rn->blocks, b));
}

/* ... of parts b of nodes [lo, hi): what a rail's recursive doubling moves in a round. */
static double rails_parts(const gdc_coll_price_t *p, const rails_nodes_t *rn, int lo, int hi, int b)
{
    double bytes = 0;

    for (int d = lo; d < hi; d++) {
        bytes += rails_part(p, rn, d, b);
    }
    return bytes;
}

/* A ring allgather inside a node of L ranks (coll/phase/ring.c), in chunks of its largest
 * block's. */
static double rails_ring(const gdc_coll_price_t *p, int L, double most, double total)
{
    return gdc_coll_price_group_ring_uneven(p, L, inside(p), most, total / L,
                                            gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, most, 2 * (L - 1)), 0,
                                            L - 1);
}

/* The copies that put the other nodes' parts (and node d's own package, where its ranks
 * are not consecutive) in place: one a part, or one a rank's block it spans. */
static double rails_unpack(const gdc_coll_price_t *p, const rails_nodes_t *rn, int d)
{
    size_t blk = p->args->count;
    double t   = 0;

    for (int e = 0; e < p->lay->nodes; e++) {
        size_t package = blk * (size_t)rails_node_size(rn, e);

        if (e == d) {
            t += rails_consecutive(rn, d) ? 0 : rails_node_size(rn, d) * gdc_coll_price_copy(p, bytes_of(p, blk));
            continue;
        }
        for (int b = 0; b < rn->blocks; b++) {
            size_t from = gdc_coll_block_offset(package, rn->blocks, b);
            size_t end  = from + gdc_coll_block_count(package, rn->blocks, b);

            for (size_t at = from; at < end;) {
                size_t upto = rails_consecutive(rn, e) ? end : (at / blk + 1) * blk;

                upto = upto < end ? upto : end;
                t += gdc_coll_price_copy(p, bytes_of(p, upto - at));
                at = upto;
            }
        }
    }
    return t;
}

/* Node d's ranks in rank order (their blocks of the output one range or not). */
static void rails_nodes_init(const gdc_coll_price_t *p, rails_nodes_t *rn, int blocks)
{
    int K = p->lay->nodes, fill[GDC_COLL_WALK_RANKS + 1] = {0};

    memset(rn->first, 0, sizeof(int) * (size_t)(K + 1));
    for (int r = 0; r < p->n; r++) {
        rn->first[p->args->node_of[r] + 1]++;
    }
    for (int d = 0; d < K; d++) {
        rn->first[d + 1] += rn->first[d];
    }
    for (int r = 0; r < p->n; r++) {
        int d = p->args->node_of[r];

        rn->local[r]                         = fill[d];
        rn->member[rn->first[d] + fill[d]++] = r;
    }
    rn->blocks     = blocks;
    rn->chunks     = 0;
    rn->copy_parts = 0;
    rn->reduces    = 0;
}

/* allgather hier_rails's phases inside node d: before its rails, its rank's block copied
 * into its package and the package round the node; after them, the parts its ranks
 * brought round the node (local rank i brings every node's parts of its rails) and the
 * other nodes' parts to their places. */
static void rails_in_node(const gdc_coll_price_t *p, rails_nodes_t *rn, int d)
{
    int    K = p->lay->nodes, L = rails_node_size(rn, d);
    double block = bytes_of(p, p->args->count), most = 0, total = 0;

    for (int i = 0; i < L; i++) {
        double brought = 0;

        for (int b = gdc_coll_rails_first(rn->blocks, L, i); b < gdc_coll_rails_first(rn->blocks, L, i + 1); b++) {
            brought += rails_parts(p, rn, 0, K, b);
        }
        most = max2(most, brought);
        total += brought;
    }
    rn->before[d] = (p->args->in_place && rails_consecutive(rn, d) ? 0 : gdc_coll_price_copy(p, block)) +
                    rails_ring(p, L, block, block * L);
    rn->after[d]  = rails_ring(p, L, most, total) + rails_unpack(p, rn, d);
}

/* Rail b's member on node e. */
static int rails_member(const rails_nodes_t *rn, int e, int b)
{
    return rn->member[rn->first[e] + gdc_coll_rails_owner(rn->blocks, rails_node_size(rn, e), b)];
}

/* Round k of rail b's recursive doubling for the participant of fold f: what its group of
 * nodes holds (mine) or its partner's does, and the partner's rank on the rail. */
static double rails_round(const gdc_coll_price_t *p, const rails_nodes_t *rn, const gdc_coll_fold_t *f, int b,
                          int k, int mine, int *peer)
{
    int dist = 1 << k, lo = (mine ? f->newrank : f->newrank ^ dist) & ~(dist - 1);

    *peer = rails_member(rn, gdc_coll_fold_real(f, f->newrank ^ dist), b);
    return rails_parts(p, rn, gdc_coll_fold_first(f, lo), gdc_coll_fold_first(f, lo + dist), b);
}

/* The rails' recursive doublings of a rank that runs rails [b0, b1) on node d
 * (coll/phase/allgather.c, gdc_coll_rd_allgatherv): the rails' rounds interleaved, as the
 * executor runs them, each rail's next send once its receive of the round before is in. */
static void rails_rd_steps(const gdc_coll_price_t *p, const rails_nodes_t *rn, int d, int b0, int b1,
                           gdc_coll_walk_list_t *l)
{
    int             K = p->lay->nodes, rounds = gdc_coll_price_log2(gdc_coll_price_pof2(K)), peer;
    gdc_coll_fold_t f = gdc_coll_fold(K, d);
    double          bytes;

    for (int b = b0; b < b1; b++) {
        if (f.newrank < 0 && rails_part(p, rn, d, b) > 0) {
            send_to(l, rails_member(rn, d + 1, b), rails_part(p, rn, d, b), 0);
        } else if (f.newrank >= 0 && d < 2 * f.rem && rails_part(p, rn, d - 1, b) > 0) {
            recv_from(l, rails_member(rn, d - 1, b));
        }
    }
    for (int b = b0; b < b1 && f.newrank >= 0 && rounds > 0; b++) {
        if ((bytes = rails_round(p, rn, &f, b, 0, 1, &peer)) > 0) {
            send_to(l, peer, bytes, 0);
        }
    }
    for (int k = 0; k < rounds && f.newrank >= 0; k++) {
        for (int b = b0; b < b1; b++) {
            if (rails_round(p, rn, &f, b, k, 0, &peer) > 0) {
                recv_from(l, peer);
            }
            if (k + 1 < rounds && (bytes = rails_round(p, rn, &f, b, k + 1, 1, &peer)) > 0) {
                send_to(l, peer, bytes, 0);
            }
        }
    }
    for (int b = b0; b < b1; b++) {
        if (rails_parts(p, rn, 0, K, b) <= 0) {
            continue;
        }
        if (f.newrank >= 0 && d < 2 * f.rem) {
            send_to(l, rails_member(rn, d - 1, b), rails_parts(p, rn, 0, K, b), 0);
        } else if (f.newrank < 0) {
            recv_from(l, rails_member(rn, d + 1, b));
        }
    }
}

/* Bytes of part b of a rank's vector (allreduce hier_rails: B parts of the whole). */
static double rails_vector_part(const gdc_coll_price_t *p, const rails_nodes_t *rn, int b)
{
    return bytes_of(p, gdc_coll_block_count(p->args->count, rn->blocks, b));
}

/* The rails' recursive-doubling allreduces of a rank that runs rails [b0, b1) on node d
 * (coll/phase/allreduce.c, gdc_coll_rd_allreduce), rail by rail a round at a time: an
 * extra hands its part up and takes the result back; a participant reduces its extra's
 * in, then each round sends its part, takes the partner's and reduces it; a rail's send
 * leaves once the one before it is in (the reduction overwrote what that one sent). */
static void rails_rd_allreduce_steps(const gdc_coll_price_t *p, const rails_nodes_t *rn, int d, int b0, int b1,
                                     gdc_coll_walk_list_t *l)
{
    int             K = p->lay->nodes, rounds = gdc_coll_price_log2(gdc_coll_price_pof2(K)), peer;
    gdc_coll_fold_t f = gdc_coll_fold(K, d);
    int             sent[GDC_COLL_WALK_RANKS]; /* each rail's last send, its step */

    for (int b = b0; b < b1; b++) {
        double part = rails_vector_part(p, rn, b);

        if (f.newrank < 0) {
            send_to(l, rails_member(rn, d + 1, b), part, 0);
            continue;
        }
        if (d < 2 * f.rem) {
            recv_from(l, rails_member(rn, d - 1, b));
            local(l, gdc_coll_price_reduce(p, part));
        }
        (void)rails_round(p, rn, &f, b, 0, 1, &peer);
        sent[b - b0] = l->n;
        send_to(l, peer, part, 0);
    }
    for (int k = 0; k < rounds && f.newrank >= 0; k++) {
        for (int b = b0; b < b1; b++) {
            double part = rails_vector_part(p, rn, b);
            int    to   = k + 1 < rounds ? -1 : d < 2 * f.rem ? rails_member(rn, d - 1, b) : -2;

            (void)rails_round(p, rn, &f, b, k, 0, &peer);
            recv_from(l, peer);
            local(l, gdc_coll_price_reduce(p, part) +
                         (k + 1 == rounds && p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, part) : 0));
            if (to == -1) {
                (void)rails_round(p, rn, &f, b, k + 1, 1, &to);
            }
            if (to >= 0) {
                int after = sent[b - b0];

                sent[b - b0] = l->n;
                gdc_coll_walk_send_after(l, to, part, after);
            }
        }
    }
    for (int b = b0; b < b1 && f.newrank < 0; b++) {
        recv_from(l, rails_member(rn, d + 1, b));
    }
}

/* Chunk c of node e's part b, bytes. */
static double rails_chunk(const gdc_coll_price_t *p, const rails_nodes_t *rn, int e, int b, int c)
{
    size_t part = gdc_coll_block_count(p->args->count * (size_t)rails_node_size(rn, e), rn->blocks, b);

    return bytes_of(p, gdc_coll_block_count(part, rn->chunks, c));
}

/* The rails' ring allgathers of a rank that runs rails [b0, b1) on node d
 * (coll/phase/ring.c): each chunk it takes in goes on to the next node's rank the round
 * after, the rails and chunks interleaved as they come in. */
static void rails_ring_steps(const gdc_coll_price_t *p, const rails_nodes_t *rn, int d, int b0, int b1,
                             gdc_coll_walk_list_t *l)
{
    int K = p->lay->nodes;

    for (int k = 0; k < K; k++) {
        int block = (d - k + K) % K; /* what round k - 1 brought and round k sends on */

        for (int c = 0; c < rn->chunks; c++) {
            for (int b = b0; b < b1; b++) {
                if (k > 0 && rails_chunk(p, rn, block, b, c) > 0) {
                    recv_from(l, rails_member(rn, (d - 1 + K) % K, b));
                }
                if (k < K - 1 && rails_chunk(p, rn, block, b, c) > 0) {
                    send_to(l, rails_member(rn, (d + 1) % K, b), rails_chunk(p, rn, block, b, c), 0);
                }
            }
        }
    }
}

/* Bytes of the share of local rank i of a node of L ranks: the parts of the vector it owns
 * (allreduce hier_rails). */
static double rails_share(const gdc_coll_price_t *p, const rails_nodes_t *rn, int L, int i)
{
    double bytes = 0;

    for (int b = gdc_coll_rails_first(rn->blocks, L, i); b < gdc_coll_rails_first(rn->blocks, L, i + 1); b++) {
        bytes += rails_vector_part(p, rn, b);
    }
    return bytes;
}

/* The steps of rank r on a walk along rails: its node's phases before them (one local
 * step), its parts copied in (allgather hier_rails: into X), each allgathered (allreduce
 * hier_rails: allreduced) along its rail, where the rails of the nodes done sooner are
 * ahead; its node's phases after them (one local step). A rank on no rail (allgather hier:
 * not a leader) walks nothing: its node's phases, its leader's steps, hold its time. */
static void rails_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    const rails_nodes_t *rn = arg;
    int                  d = p->args->node_of[r], L = rails_node_size(rn, d), me = rn->local[r];
    int                  b0 = gdc_coll_rails_first(rn->blocks, L, me), b1 = gdc_coll_rails_first(rn->blocks, L, me + 1);
    double               mine = 0;

    if (b0 == b1) {
        return;
    }
    for (int b = b0; b < b1 && rn->copy_parts; b++) {
        mine += rails_part(p, rn, d, b) > 0 ? gdc_coll_price_copy(p, rails_part(p, rn, d, b)) : 0;
    }
    local(l, rn->before[d] + mine);
    if (rn->reduces) {
        rails_rd_allreduce_steps(p, rn, d, b0, b1, l);
    } else if (rn->chunks > 0) {
        rails_ring_steps(p, rn, d, b0, b1, l);
    } else {
        rails_rd_steps(p, rn, d, b0, b1, l);
    }
    gdc_coll_walk_add(l, GDC_COLL_WALK_JOIN_SENT, -1, 0, 0);
    local(l, rn->after[d]);
}

/* How the rails go (coll/hier/allgather_rails.c, coll/hier/allgather.c): 1 where each
 * doubles (rn->chunks 0), or each rings in rn->chunks chunks; 0 where some do one and some
 * the other. */
static int rails_way(const gdc_coll_price_t *p, rails_nodes_t *rn)
{
    int      K = p->lay->nodes, doubles = 0;
    uint32_t per_rail = GDC_COLL_MAX_SLOTS / (uint32_t)rn->blocks;
    double   most = 0;

    for (int b = 0; b < rn->blocks; b++) {
        doubles += rails_parts(p, rn, 0, K, b) <= (double)p->args->config->hier_ring_bytes || per_rail < (uint32_t)(K - 1);
        for (int e = 0; e < K; e++) {
            most = max2(most, rails_part(p, rn, e, b));
        }
    }
    rn->chunks = 0;
    if (doubles == 0) {
        int chunks = gdc_coll_price_ring_chunks(p, GDC_COLL_ACROSS_NODES, most, K - 1);
        int cap    = (int)(per_rail / (uint32_t)(K - 1));

        rn->chunks = chunks < cap ? chunks : cap;
    }
    return doubles == 0 || doubles == rn->blocks;
}

/* The steps of a rank's program on a walk along rails (rn: the nodes and the rails), or 0
 * where the call is not walked: where its rails neither all double nor all ring, or its
 * steps of all ranks together are more than GDC_COLL_WALK_BUDGET. Asked before the phases
 * inside the nodes are priced: a call not walked costs their pricing nothing. */
static int rails_walk_steps(const gdc_coll_price_t *p, rails_nodes_t *rn)
{
    int K = p->lay->nodes, rails, steps;

    if (!rn->reduces && !rails_way(p, rn)) {
        return 0;
    }
    /* the most rails a rank runs (one of the smallest node's): each doubling has a fold in
     * and out and two steps a round (three, reducing), each ring two steps a chunk a round;
     * three steps more */
    rails = (rn->blocks + p->lay->min_local - 1) / p->lay->min_local;
    steps = rails * (rn->reduces    ? 3 * (gdc_coll_price_log2(K) + 2)
                     : rn->chunks > 0 ? 2 * rn->chunks * (K - 1)
                                      : 2 * (gdc_coll_price_log2(K) + 2)) +
            3;
    return steps * p->n <= GDC_COLL_WALK_BUDGET ? steps : 0;
}

/* Whether a call can be walked along its rails at all: on up to GDC_COLL_WALK_RANKS ranks
 * of several nodes. */
static int rails_may_walk(const gdc_coll_price_t *p)
{
    return p->n <= GDC_COLL_WALK_RANKS && p->lay->nodes > 1 && p->args->node_of != NULL;
}

/* allreduce recursive_doubling's steps for rank r (phase/allreduce.c): an extra hands its
 * vector up and takes the result back; a participant reduces its extra's in, then each
 * round sends its partial result, takes the partner's and reduces it once its own send is
 * done (the reduction overwrites what it sends). */
static void allreduce_rd_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    gdc_coll_fold_t f     = gdc_coll_fold(p->n, r);
    double          bytes = bytes_of(p, p->args->count), red = gdc_coll_price_reduce(p, bytes);

    (void)arg;
    if (fold_steps(p, &f, r, bytes, l)) {
        return;
    }
    for (int d = 1; d < f.p; d *= 2) {
        int peer = gdc_coll_fold_real(&f, f.newrank ^ d);

        send_to(l, peer, bytes, 1);
        recv_from(l, peer);
        local(l, red);
    }
    if (p->args->op == GDC_AVG) {
        local(l, red);
    }
    if (f.newrank < f.rem) {
        send_to(l, r - 1, bytes, 0);
    }
}

/* allreduce_recursive_doubling in closed form, where it is not walked. */
static double allreduce_rd_rounds(const gdc_coll_price_t *p)
{
    double      bytes = bytes_of(p, p->args->count);
    int         pof2  = gdc_coll_price_pof2(p->n), rounds = 0;
    xor_round_t round[GDC_COLL_LAYOUT_DISTANCES] = {{0}};

    /* the rounds at distances from the extras' count on pair a participant that waited with
     * one that did not, and none of whose partners before did (in doubling order): its
     * message is in first, and the round takes one step less than a message's two (priced
     * with both, 8 B on 17 ranks of dgx-h100, a step a microsecond: 1.13 times the
     * simulator's time) */
    for (int d = 1; d < pof2 && rounds < GDC_COLL_LAYOUT_DISTANCES; d *= 2) {
        round[rounds++] = (xor_round_t){.dist = d, .bytes = bytes, .reduced = bytes, .partner_ahead = d >= p->n - pof2};
    }
    /* each round's reduction writes what its send reads: it waits for the send, whose link
     * the partner's message does not hold up, and the result for the last one */
    return xor_rounds(p, round, rounds,
                      gdc_coll_price_msg(p, gdc_coll_price_fold_hop(p), bytes) + gdc_coll_price_reduce(p, bytes), bytes,
                      0, 0) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes) : 0);
}

static double allreduce_recursive_doubling(const gdc_coll_price_t *p)
{
    double t;

    return walked(p, allreduce_rd_step, &t) ? t : allreduce_rd_rounds(p);
}

/* The doubling rounds a participant that waited for an extra takes part in: with fewer
 * elements than participants, blocks count.. are empty, so participant j < extras is
 * sent nothing in the rounds above both the elements and j's highest bit. */
static int rabenseifner_after_below(const gdc_coll_price_t *p, int pof2)
{
    int extras = p->n - pof2, below = 1;

    if (p->args->count >= (size_t)pof2 || extras <= 0) {
        return pof2;
    }
    while (below <= extras - 1) {
        below *= 2;
    }
    return (size_t)below > p->args->count ? below : (int)p->args->count;
}

/* A message a latency bounds: its transfer, its NIC shared, an eighth of a hop's latency
 * between nodes or less. */
#define LATENCY_BOUND_SHARE 8

/* The elements of participant blocks [lo, hi) of a vector of count cut into pof2 blocks. */
static double tiny_elements(size_t count, int pof2, int lo, int hi)
{
    return (double)gdc_coll_block_offset(count, pof2, hi) - (double)gdc_coll_block_offset(count, pof2, lo);
}

/* Halving (half of what is left each round, reduced), then doubling back, as rounds by
 * bits; after the halving a folded participant's news is everywhere. */
static double rabenseifner_rounds(const gdc_coll_price_t *p, double bytes, int pof2)
{
    int         rounds = 0, below = rabenseifner_after_below(p, pof2);
    double      fold   = fold_in(p, bytes, 1);
    xor_round_t round[2 * GDC_COLL_LAYOUT_DISTANCES] = {{0}};
    /* fewer elements than participants: the first count blocks hold one each, and a group
     * of a round from there on exchanges nothing */
    size_t      used = p->args->count;

    for (int d = pof2 / 2; d >= 1 && rounds < GDC_COLL_LAYOUT_DISTANCES; d /= 2) {
        round[rounds++] = (xor_round_t){.dist       = d,
                                        .bytes      = bytes * d / pof2,
                                        .reduced    = bytes * d / pof2,
                                        .order      = 1,
                                        .quiet      = gdc_coll_price_xor_quiet(p, d, used),
                                        .fold_queue = d == pof2 / 2};
    }
    for (int d = 1; d < pof2 && rounds < 2 * GDC_COLL_LAYOUT_DISTANCES; d *= 2) {
        round[rounds++] = (xor_round_t){.dist      = d,
                                        .bytes     = bytes * d / pof2,
                                        .order     = 2,
                                        .not_after = d >= below,
                                        .quiet     = gdc_coll_price_xor_quiet(p, d, used)};
    }
    if (rounds > 0 && below < pof2 && 2 * (p->n - pof2) <= pof2) {
        /* every participant that waited for an extra sits in the lower half, which gives
         * away only empty blocks in the first round: the extra's vector and the upper
         * half's come in at once */
        double h1 = gdc_coll_price_msg(p, gdc_coll_price_xor_hop_after_fold(p, round[0].dist, 1), round[0].bytes);
        double in = gdc_coll_price_msg(p, gdc_coll_price_fold_hop(p), bytes);

        round[0].not_after = 1;
        fold = max2(in, h1) + gdc_coll_price_reduce(p, bytes) + gdc_coll_price_reduce(p, round[0].reduced);
    }
    return xor_rounds(p, round, rounds, fold, bytes, 0, 0);
}

/* allreduce rabenseifner's steps for rank r (coll/allreduce/rabenseifner.c): the fold as
 * recursive doubling's; halving rounds that send the half given away, take the half kept
 * and reduce it; doubling rounds that send the range held and take the partner's; each
 * message only where its range holds elements. */
static void rabenseifner_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    gdc_coll_fold_t f     = gdc_coll_fold(p->n, r);
    size_t          count = p->args->count;
    double          bytes = bytes_of(p, count);
    int             me = f.newrank, lo = 0, hi = f.p;

    (void)arg;
    if (fold_steps(p, &f, r, bytes, l)) {
        return;
    }
    for (int d = f.p / 2; d >= 1; d /= 2) {
        int    peer = gdc_coll_fold_real(&f, me ^ d), mid = lo + (hi - lo) / 2, lower = (me & d) == 0;
        double keep = lower ? tiny_elements(count, f.p, lo, mid) : tiny_elements(count, f.p, mid, hi);
        double give = lower ? tiny_elements(count, f.p, mid, hi) : tiny_elements(count, f.p, lo, mid);

        if (give > 0) {
            send_to(l, peer, give * p->dsize, 0);
        }
        if (keep > 0) {
            recv_from(l, peer);
            local(l, gdc_coll_price_reduce(p, keep * p->dsize));
        }
        lo = lower ? lo : mid;
        hi = lower ? mid : hi;
    }
    if (p->args->op == GDC_AVG && hi > lo) {
        local(l, gdc_coll_price_reduce(p, tiny_elements(count, f.p, lo, hi) * p->dsize));
    }
    for (int d = 1; d < f.p; d *= 2) {
        int    peer = gdc_coll_fold_real(&f, me ^ d), plo = (me & d) ? lo - (hi - lo) : hi, phi = plo + (hi - lo);

        if (tiny_elements(count, f.p, lo, hi) > 0) {
            send_to(l, peer, tiny_elements(count, f.p, lo, hi) * p->dsize, 0);
        }
        if (tiny_elements(count, f.p, plo, phi) > 0) {
            recv_from(l, peer);
        }
        lo = plo < lo ? plo : lo;
        hi = phi > hi ? phi : hi;
    }
    if (me < f.rem) {
        send_to(l, r - 1, bytes, 0);
    }
}

static double allreduce_rabenseifner(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count), t;
    int    pof2  = gdc_coll_price_pof2(p->n);

    if (walked(p, rabenseifner_step, &t)) {
        return t;
    }
    return rabenseifner_rounds(p, bytes, pof2) + (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes / pof2) : 0);
}

static double allreduce_knomial(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);
    int    radix = p->args->config->tree_radix;

    (void)radix;
    return gdc_coll_price_tree(p, GDC_COLL_TREE_RADIX_REDUCE, bytes) +
           gdc_coll_price_tree(p, GDC_COLL_TREE_RADIX_BCAST, bytes) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes) : 0);
}

/* ---------------------------------------------------------------------------------------
 * bcast, reduce
 */

/* The binomial trees' steps for rank r (phase/tree.c), rooted at the call's root: a
 * broadcast takes the vector from its parent and sends it to its children, the largest
 * subtree first; a reduce takes its children's, the smallest subtree first, reducing
 * each, and sends the sum to its parent. */
static void bcast_tree_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int    n = p->n, root = p->args->root, v = gdc_coll_vrank(r, root, n), children[32];
    int    num    = gdc_coll_tree_children(v, n, 2, children, 32), parent = gdc_coll_tree_parent(v, n, 2);
    double bytes  = bytes_of(p, p->args->count);

    (void)arg;
    if (parent >= 0) {
        recv_from(l, gdc_coll_real_rank(parent, root, n));
    }
    for (int i = num - 1; i >= 0; i--) {
        send_to(l, gdc_coll_real_rank(children[i], root, n), bytes, 0);
    }
}

static void reduce_tree_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int    n = p->n, root = p->args->root, v = gdc_coll_vrank(r, root, n), children[32];
    int    num    = gdc_coll_tree_children(v, n, 2, children, 32), parent = gdc_coll_tree_parent(v, n, 2);
    double bytes  = bytes_of(p, p->args->count);

    (void)arg;
    for (int i = 0; i < num; i++) {
        recv_from(l, gdc_coll_real_rank(children[i], root, n));
        local(l, gdc_coll_price_reduce(p, bytes));
    }
    if (parent >= 0) {
        send_to(l, gdc_coll_real_rank(parent, root, n), bytes, 0);
    } else if (p->args->op == GDC_AVG) {
        local(l, gdc_coll_price_reduce(p, bytes));
    }
}

static double bcast_binomial(const gdc_coll_price_t *p)
{
    double t;

    return walked(p, bcast_tree_step, &t) ? t : gdc_coll_price_tree(p, GDC_COLL_TREE_BCAST, bytes_of(p, p->args->count));
}

/* bcast chain's steps for rank r (coll/bcast/chain.c): each chunk from the rank before it
 * down the chain, on to the next. */
static void bcast_chain_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int n = p->n, v = gdc_coll_vrank(r, p->args->root, n);
    int chunks = *(const int *)arg;

    for (int c = 0; c < chunks; c++) {
        double piece = bytes_of(p, gdc_coll_block_count(p->args->count, chunks, c));

        if (piece > 0 && v > 0) {
            recv_from(l, gdc_coll_real_rank(v - 1, p->args->root, n));
        }
        if (piece > 0 && v + 1 < n) {
            send_to(l, gdc_coll_real_rank(v + 1, p->args->root, n), piece, 0);
        }
    }
}

/* On several nodes the chain is walked (within GDC_COLL_WALK_BUDGET): where the ranks sit
 * round robin, every hop crosses, and a node's NIC carries the chunks of each of its ranks
 * on the chain at once (priced as one stream, 1 MiB on 5 ranks round robin on 2 nodes came
 * out at 0.88 of the simulator's time). */
static double bcast_chain(const gdc_coll_price_t *p)
{
    double bytes  = bytes_of(p, p->args->count), t;
    int    chunks = gdc_coll_price_chunks(p, gdc_coll_flat_across(p->args), bytes, 1);

    if (rails_may_walk(p) && 2 * chunks * p->n <= GDC_COLL_WALK_BUDGET &&
        gdc_coll_price_walk(p, bcast_chain_step, &chunks, 2 * chunks, &t)) {
        return t;
    }
    return gdc_coll_price_chain(p, p->n - 1, chunks, bytes);
}

/* A binomial scatter or gather of the vector's n blocks. With fewer elements than ranks
 * only the first `count` blocks have any and the other ranks' messages are left out: a
 * tree over the first `count` ranks (on the first node when it holds them). */
static double blocks_tree(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind)
{
    double block = bytes_of(p, (p->args->count + (size_t)p->n - 1) / (size_t)p->n);
    int    some  = (int)p->args->count;

    if (p->args->count >= (size_t)p->n) {
        return gdc_coll_price_tree(p, kind, block);
    }
    return gdc_coll_price_group_tree_way(p, some, gdc_coll_price_hop(p, !(p->lay->blocks && some <= p->lay->min_local), 1),
                                         block);
}

/* The message between vranks up and v (its parent) in a binomial tree of the vector's
 * blocks: v's subtree's non-empty ones. */
static double block_tree_hop(const gdc_coll_price_t *p, int up, int v)
{
    const gdc_coll_args_t *args = p->args;
    int    n = p->n, blocks = args->count < (size_t)n ? (int)args->count : n, d = v - up;
    int    span = d < blocks - v ? d : blocks - v;
    int    crosses = args->node_of[(v + args->root) % n] != args->node_of[(up + args->root) % n];
    size_t per = (args->count + (size_t)n - 1) / (size_t)n;

    return gdc_coll_price_msg(p, gdc_coll_price_hop(p, crosses, 1), bytes_of(p, (size_t)span * per));
}

/* scatter_allgather and reduce_scatter_gather where each block's way can be followed (0
 * where not): block j between the root and vrank j in the binomial tree and around the
 * ring from or to there; the slowest of those ways. That is all of the price with fewer
 * elements than ranks (only the first count blocks travel), and scatter_allgather's where
 * latencies bound its messages; with larger ones the ring's stream bounds it, and
 * reduce_scatter_gather's gather waits for every rank's whole ring. (Priced apart, the
 * slowest ring way and the slowest tree way added up to a way no block takes: 8 B on 3
 * ranks on 2 nodes, blocks, came out at 1.48 times the simulator's time, scatter_allgather
 * of 1 KiB 1.47.) */
static int ring_tree_ways(const gdc_coll_price_t *p, int reduces, double *t)
{
    const gdc_coll_args_t *args = p->args;
    int                    n = p->n, root = args->root;
    int                    count = args->count < (size_t)n ? (int)args->count : n;
    double                 b   = bytes_of(p, (args->count + (size_t)n - 1) / (size_t)n);
    double                 red = reduces ? gdc_coll_price_reduce(p, b) : 0;
    double                 out = gdc_coll_price_msg(p, gdc_coll_price_hop(p, 1, 1), b) + red;
    double                 in  = gdc_coll_price_msg(p, gdc_coll_price_hop(p, 0, 1), b) + red;
    int latency_bound = !reduces && b / gdc_coll_price_shift_hop(p, 1).bw * LATENCY_BOUND_SHARE <= p->out.latency;

    if ((args->count >= (size_t)n && !latency_bound) || count > GDC_COLL_RING_SPARSE_BLOCKS || p->lay->nodes < 2) {
        return 0;
    }
    *t = 0;
    for (int j = 0; j < count; j++) {
        int    x   = gdc_coll_price_ring_way_crossings(p, (root + j) % n, reduces);
        double way = x * out + (n - 1 - x) * in, done = 0;

        for (int v = j; v > 0; v &= v - 1) {
            way += p->o + block_tree_hop(p, v & (v - 1), v);
        }
        /* a scatter's rank starts its ring once its own sends are in, the farthest first */
        for (int d = j > 0 ? (j & -j) / 2 : gdc_coll_price_pof2(n - 1), sent = 0; !reduces && d > 0; d /= 2) {
            if (j + d < count) {
                sent++;
                done = fmax(done, sent * p->o + block_tree_hop(p, j, j + d));
            }
        }
        *t = fmax(*t, way + done);
    }
    return 1;
}

/* The bytes of blocks [lo, hi) of the call's vector cut into n blocks. */
static double blocks_bytes(const gdc_coll_price_t *p, int lo, int hi)
{
    return tiny_elements(p->args->count, p->n, lo, hi) * p->dsize;
}

/* The bytes of blocks [lo, hi) of a call's blocks of count elements each. */
static double equal_blocks_bytes(const gdc_coll_price_t *p, int lo, int hi)
{
    return bytes_of(p, p->args->count) * (hi - lo);
}

/* The binomial scatter's steps for rank r (phase/tree.c, gdc_coll_binomial_scatter), its
 * blocks in the order of the ranks from the root, `bytes` those of blocks [lo, hi): its
 * subtree's blocks from its parent, then each child's subtree's, the largest first. */
static void binomial_scatter_steps(const gdc_coll_price_t *p, int r, double (*bytes)(const gdc_coll_price_t *, int, int),
                                   gdc_coll_walk_list_t *l)
{
    int n = p->n, root = p->args->root, v = gdc_coll_vrank(r, root, n), end = gdc_coll_binomial_subtree_end(v, n);
    int d = 1;

    if (v > 0 && bytes(p, v, end) > 0) {
        recv_from(l, gdc_coll_real_rank(v - (v & -v), root, n));
    }
    while (v + d < end) {
        d *= 2;
    }
    for (d /= 2; d >= 1; d /= 2) {
        double part = v + d < end ? bytes(p, v + d, gdc_coll_binomial_subtree_end(v + d, n)) : 0;

        if (part > 0) {
            send_to(l, gdc_coll_real_rank(v + d, root, n), part, 0);
        }
    }
}

/* bcast scatter_allgather's steps for rank r (coll/bcast/scatter_allgather.c), where a
 * block goes round the ring in one chunk: the binomial scatter of the blocks (in the
 * order of the ranks from the root), then, once its scatter sends are in, the ring
 * allgather, block v - k sent and block v - k - 1 taken in round k. */
static void scatter_allgather_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int n = p->n, v = gdc_coll_vrank(r, p->args->root, n);

    (void)arg;
    binomial_scatter_steps(p, r, blocks_bytes, l);
    gdc_coll_walk_add(l, GDC_COLL_WALK_JOIN_SENT, -1, 0, 0);
    for (int k = 0; k < n - 1; k++) {
        int out = ((v - k) % n + n) % n, in = ((v - k - 1) % n + n) % n;

        if (blocks_bytes(p, out, out + 1) > 0) {
            send_to(l, (r + 1) % n, blocks_bytes(p, out, out + 1), 0);
        }
        if (blocks_bytes(p, in, in + 1) > 0) {
            recv_from(l, (r + n - 1) % n);
        }
    }
}

/* Whether a ring over every rank, of `per_round` steps a round, is walked: where it moves
 * each block in one chunk (its rounds then wait for the round before as a walk's steps
 * do: in chunks, a chunk waits only for its own), and its steps and a tree's fit a rank's
 * program. */
static int ring_walks(const gdc_coll_price_t *p, int per_round)
{
    double largest = bytes_of(p, (p->args->count + (size_t)p->n - 1) / (size_t)p->n);

    return (p->n - 1) * per_round + 2 * gdc_coll_price_log2(p->n) + 3 <= GDC_COLL_WALK_STEPS &&
           gdc_coll_price_ring_chunks(p, gdc_coll_flat_across(p->args), largest, p->n - 1) == 1;
}

static double bcast_scatter_allgather(const gdc_coll_price_t *p)
{
    double ways;

    if (ring_walks(p, 2) && walked(p, scatter_allgather_step, &ways)) {
        return ways;
    }
    if (ring_tree_ways(p, 0, &ways)) {
        return ways;
    }
    return blocks_tree(p, GDC_COLL_TREE_SCATTER) + ring_of(p, p->args->count, 0, p->n - 1, p->n - 1, p->args->root);
}

static double reduce_binomial(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count), t;

    if (walked(p, reduce_tree_step, &t)) {
        return t;
    }
    return gdc_coll_price_tree(p, GDC_COLL_TREE_REDUCE, bytes) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes) : 0);
}

/* The ranks whose ring brings its last chunk in from their own node finish first, ahead of
 * the others by what the chunk takes more across nodes; where each rank has a NIC of its
 * own, their blocks leave for the root meanwhile, and the gather's queue on its busiest
 * NIC shortens by as much. (reduce 1 MiB on 3 and 5 ranks dealt round robin to 2 and 4
 * nodes, device: priced at 1.16 and 1.08 times the simulator's time, and the binomial tree
 * chosen, which takes 1.16 and 1.11 times as long. Where a node's ranks share a NIC, the
 * simulator has those blocks queue behind the node's ring messages: with the lead taken
 * there too, 95.3% of these prices were within 10% of its time, not 97.8%.) */
static double gather_behind_ring(const gdc_coll_price_t *p, double block)
{
    int    chunks = gdc_coll_price_ring_chunks(p, gdc_coll_flat_across(p->args), block, p->n - 1);
    double b = block / chunks, ahead;

    if (p->lay->nodes < 2 || p->lay->ring_cross >= p->n || p->args->count < (size_t)p->n ||
        p->nics < p->lay->max_local) {
        return 0;
    }
    ahead = gdc_coll_price_msg(p, gdc_coll_price_hop(p, 1, 1), b) - gdc_coll_price_msg(p, inside(p), b);
    return fmin(fmax(ahead, 0), gdc_coll_price_tree_nic_queue(p, GDC_COLL_TREE_GATHER, block));
}

/* reduce_scatter_gather's steps for rank r (coll/reduce/scatter_gather.c), where a block
 * goes round the ring in one chunk: the ring reduce-scatter (block v - k - 1 sent and
 * block v - k - 2 taken in and reduced in round k), then, once its ring sends are in, the
 * binomial gather of the reduced blocks to the root. */
static void reduce_scatter_gather_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int n = p->n, root = p->args->root, v = gdc_coll_vrank(r, root, n), end = gdc_coll_binomial_subtree_end(v, n);

    (void)arg;
    for (int k = 0; k < n - 1; k++) {
        int out = ((v - k - 1) % n + 2 * n) % n, in = ((v - k - 2) % n + 2 * n) % n;

        if (blocks_bytes(p, out, out + 1) > 0) {
            send_to(l, (r + 1) % n, blocks_bytes(p, out, out + 1), 0);
        }
        if (blocks_bytes(p, in, in + 1) > 0) {
            recv_from(l, (r + n - 1) % n);
            local(l, gdc_coll_price_reduce(p, blocks_bytes(p, in, in + 1)));
        }
    }
    if (p->args->op == GDC_AVG && blocks_bytes(p, v, v + 1) > 0) {
        local(l, gdc_coll_price_reduce(p, blocks_bytes(p, v, v + 1)));
    }
    gdc_coll_walk_add(l, GDC_COLL_WALK_JOIN_SENT, -1, 0, 0);
    for (int d = 1; v + d < end; d *= 2) {
        if (blocks_bytes(p, v + d, gdc_coll_binomial_subtree_end(v + d, n)) > 0) {
            recv_from(l, gdc_coll_real_rank(v + d, root, n));
        }
    }
    if (v > 0 && blocks_bytes(p, v, end) > 0) {
        send_to(l, gdc_coll_real_rank(v - (v & -v), root, n), blocks_bytes(p, v, end), 0);
    }
}

static double reduce_scatter_gather(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, (p->args->count + (size_t)p->n - 1) / (size_t)p->n), ways;

    if (ring_walks(p, 3) && walked(p, reduce_scatter_gather_step, &ways)) {
        return ways;
    }
    if (ring_tree_ways(p, 1, &ways)) {
        return ways + (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
    }
    return ring_of(p, p->args->count, p->n - 1, 0, p->n - 1, p->args->root) + blocks_tree(p, GDC_COLL_TREE_GATHER) -
           gather_behind_ring(p, block) + (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
}

/* ---------------------------------------------------------------------------------------
 * allgather, reduce_scatter
 */

static double allgather_ring(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    return (p->args->in_place ? 0 : gdc_coll_price_copy(p, block)) +
           ring_of(p, p->args->count * (size_t)p->n, 0, p->n - 1, p->n - 1, 0);
}

/* allgather recursive_doubling's steps for rank r (phase/allgather.c): an extra hands its
 * block to the participant above it and takes the whole back; a participant copies its
 * own block in place, takes its extra's, then in each round sends its group's blocks to
 * its partner and takes the partner's group's. */
static void allgather_rd_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    gdc_coll_fold_t f     = gdc_coll_fold(p->n, r);
    double          block = bytes_of(p, p->args->count);

    (void)arg;
    if (f.newrank < 0) {
        send_to(l, r + 1, block, 0);
        recv_from(l, r + 1);
        return;
    }
    if (!p->args->in_place) {
        local(l, gdc_coll_price_copy(p, block));
    }
    if (f.newrank < f.rem) {
        recv_from(l, r - 1);
    }
    for (int d = 1; d < f.p; d *= 2) {
        int lo = f.newrank & ~(d - 1), peer = gdc_coll_fold_real(&f, f.newrank ^ d);

        send_to(l, peer, block * (gdc_coll_fold_first(&f, lo + d) - gdc_coll_fold_first(&f, lo)), 0);
        recv_from(l, peer);
    }
    if (f.newrank < f.rem) {
        send_to(l, r - 1, block * p->n, 0);
    }
}

/* allgather_recursive_doubling in closed form, where it is not walked. */
static double allgather_rd_rounds(const gdc_coll_price_t *p)
{
    double      block = bytes_of(p, p->args->count);
    int         pof2  = gdc_coll_price_pof2(p->n), rounds = 0;
    int         extras = p->n - pof2;
    xor_round_t round[GDC_COLL_LAYOUT_DISTANCES] = {{0}};

    /* the participants that took an extra's block hold two: the lowest ones, whose group of
     * a round holds the most, d + min(d, extras) blocks. A node's NIC takes in what its
     * crossing ranks' partners send, and those differ in size: each way's round crosses at
     * the pace of the busiest NIC's load (gdc_coll_price_xor_gather_nic; priced as if every
     * crossing rank sent the most, 93.1% of these prices were within 10% of the simulator's
     * time; now 96.7%) */
    for (int d = 1; d < pof2 && rounds < GDC_COLL_LAYOUT_DISTANCES; d *= 2) {
        round[rounds++] = (xor_round_t){.dist            = d,
                                        .bytes           = block * d,
                                        .after_bytes     = block * (d + (d < extras ? d : extras)),
                                        .nic_bytes       = block * gdc_coll_price_xor_gather_nic(p, d, 0),
                                        .nic_bytes_plain = block * gdc_coll_price_xor_gather_nic(p, d, 1)};
    }
    return xor_rounds(p, round, rounds, fold_in(p, block, 0), block * p->n, 1, 1) +
           (p->args->in_place ? 0 : gdc_coll_price_copy(p, block));
}

static double allgather_recursive_doubling(const gdc_coll_price_t *p)
{
    double t;

    return walked(p, allgather_rd_step, &t) ? t : allgather_rd_rounds(p);
}

static double rotation_rounds(const gdc_coll_price_t *p, double (*round)(const gdc_coll_price_t *, int, gdc_coll_hop_t));

/* Round d of Bruck's allgather: the d blocks gathered so far (fewer in the last round). */
static double bruck_round(const gdc_coll_price_t *p, int d, gdc_coll_hop_t h)
{
    double block = bytes_of(p, p->args->count);

    return gdc_coll_price_msg(p, h, block * (d < p->n - d ? d : p->n - d));
}

/* allgather bruck's steps for rank r (coll/allgather/bruck.c): its block copied in, each
 * round's blocks sent to r - d and taken from r + d, the whole rotated into place. */
static void allgather_bruck_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    double block = bytes_of(p, p->args->count);
    int    n     = p->n;

    (void)arg;
    local(l, gdc_coll_price_copy(p, block));
    for (int d = 1; d < n; d *= 2) {
        send_to(l, (r - d + n) % n, block * (d < n - d ? d : n - d), 0);
        recv_from(l, (r + d) % n);
    }
    local(l, gdc_coll_price_copy(p, block * (n - r)) + (r > 0 ? gdc_coll_price_copy(p, block * r) : 0));
}

/* A rank's round forwards what its partner's previous round brought: the rounds are a
 * chain, which crosses few node boundaries (rotation_rounds); but every rank's bytes of a
 * round cross the node's links at once, which bounds large blocks. */
static double allgather_bruck(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), bytes = 0, t;

    if (walked(p, allgather_bruck_step, &t)) {
        return t;
    }
    for (int d = 1; d < p->n; d *= 2) {
        bytes += block * (d < p->n - d ? d : p->n - d) / gdc_coll_price_shift_hop(p, d).bw;
    }
    return gdc_coll_price_copy(p, block) +
           max2(rotation_rounds(p, bruck_round), bytes + (p->lay->nodes > 1 ? p->out.latency : p->in.latency) + 2 * p->o) +
           gdc_coll_price_copy(p, block * p->n) + p->o;
}

static double reduce_scatter_ring(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    return ring_of(p, p->args->count * (size_t)p->n, p->n - 1, 0, p->n - 1, 0) +
           (p->args->in_place ? gdc_coll_price_copy(p, block) : 0) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
}

/* The participants that waited for an extra are priced one by one, each hop between the
 * two ranks' own nodes, where that takes at most HALVING_HOPS hops (extras x rounds x
 * rounds: a way and its news in every round); beyond, participant 0's way alone, each hop
 * the round's own where the news of a fold crosses in it (the layout's
 * xor_cross_after_fold). One by one, 5 extras on 1,029 ranks cost 6 us a price. */
#define HALVING_HOPS 256

/* The hop between participants q and r in the round at distance d (d 0: the fold into q). */
static gdc_coll_hop_t halving_hop(const gdc_coll_price_t *p, const gdc_coll_fold_t *f, int q, int r, int d, int each)
{
    int a, b;

    if (!each) {
        return d == 0 ? gdc_coll_price_fold_hop(p) : gdc_coll_price_xor_hop_after_fold(p, d, 1);
    }
    a = gdc_coll_fold_real(f, q);
    b = d == 0 ? a - 1 : gdc_coll_fold_real(f, r);
    if (p->lay->nodes < 2 || p->args->node_of[a] == p->args->node_of[b]) {
        return gdc_coll_price_hop(p, 0, 1);
    }
    return d == 0 ? gdc_coll_price_fold_hop(p) : gdc_coll_price_xor_hop(p, d);
}

/* The blocks of participants [lo, lo + 2d)'s half that holds q (keep) or not: the lowest
 * f->rem hold two (gdc_coll_fold_first). */
static double halving_half(const gdc_coll_fold_t *f, int q, int d, int keep)
{
    int lo = q & ~(2 * d - 1), mid = lo + d, lower = (q & d) == 0;

    return lower == keep ? gdc_coll_fold_first(f, mid) - gdc_coll_fold_first(f, lo)
                         : gdc_coll_fold_first(f, lo + 2 * d) - gdc_coll_fold_first(f, mid);
}

/* The news of participant q, which waited for an extra, as it leaves in the round at
 * distance d, sent at `start`: each participant it reaches sends on the half of its range
 * it does not keep, and the last one reduces (and hands its block back to its extra, where
 * it waited for one too). */
static double halving_news(const gdc_coll_price_t *p, const gdc_coll_fold_t *f, double block, int q, int d,
                           double start, int each)
{
    double t = start;

    for (; d >= 1; d /= 2) {
        double give = block * halving_half(f, q, d, 0);

        t += gdc_coll_price_msg(p, halving_hop(p, f, q, q ^ d, d, each), give) + gdc_coll_price_reduce(p, give);
        q ^= d;
    }
    return t + (q < f->rem ? gdc_coll_price_msg(p, halving_hop(p, f, q, q, 0, each), block) : 0);
}

/* recursive_halving with extras: participant q takes in the fold, then keeps a half of its
 * range each round, its partners' messages on its link behind the fold's; each round's
 * reduction waits for its partner's message (sent at once by a partner no fold reached,
 * else as late as q's own) and the one before. Its news leaves in every round, and the
 * slowest of those ways (halving_news) or its own, with the result back to the extra, ends
 * the call. (The halves are uneven: the lower ones hold the extras' blocks. Priced as a
 * message and a reduction of half the vector after the fold each round, 16 MiB on 5 ranks
 * on one node came out at 1.11 times the simulator's time.) */
static double halving_waiter(const gdc_coll_price_t *p, const gdc_coll_fold_t *f, double block, int q,
                             const double *plain, int each)
{
    int            j    = gdc_coll_price_log2(f->p);
    gdc_coll_hop_t h    = halving_hop(p, f, q, q, 0, each);
    double         fold = gdc_coll_price_msg(p, h, block * p->n);
    double         link = fold, mine = fold + gdc_coll_price_reduce(p, block * p->n), end = 0;
    double         tail[GDC_COLL_LAYOUT_DISTANCES + 1];

    /* one by one, each news on its way (halving_news); else participant 0's news in rounds
     * of d blocks (those of the participants past the extras; from the rounds below the
     * extras' count on it carries up to twice that), summed once from the last round up */
    tail[j] = 0;
    for (int d = 1; !each && j > 0; d *= 2, j--) {
        gdc_coll_hop_t hop = halving_hop(p, f, q, q ^ d, d, each);
        tail[j - 1]        = tail[j] + gdc_coll_price_msg(p, hop, block * d) + gdc_coll_price_reduce(p, block * d);
    }
    j = 0;
    for (int d = f->p / 2; d >= 1; d /= 2, j++) {
        gdc_coll_hop_t hop  = halving_hop(p, f, q, q ^ d, d, each);
        double         keep = block * halving_half(f, q, d, 1);
        int            late = ((q ^ d) & (2 * d - 1)) < f->rem;
        double         in   = (late ? mine : plain[j]) + gdc_coll_price_msg(p, hop, keep);

        end = max2(end, each ? halving_news(p, f, block, q, d, mine, each) : mine + tail[j]);
        if (hop.crosses == h.crosses) {
            in   = max2(in, link + keep / hop.bw);
            link = in;
        }
        mine = max2(mine, in) + gdc_coll_price_reduce(p, keep);
    }
    return max2(end, mine + gdc_coll_price_msg(p, h, block));
}

static double halving_after_fold(const gdc_coll_price_t *p, double block, const double *plain)
{
    gdc_coll_fold_t f      = gdc_coll_fold(p->n, 0);
    int             rounds = gdc_coll_price_log2(f.p);
    int             each   = f.rem * rounds * rounds <= HALVING_HOPS;
    double          t      = 0;

    for (int q = 0; q < (each ? f.rem : 1); q++) {
        t = max2(t, halving_waiter(p, &f, block, q, plain, each));
    }
    return t;
}

/* No round of the halving (either way) has a node's ranks share a NIC. */
static int halving_unshared(const gdc_coll_price_t *p)
{
    for (int d = gdc_coll_price_pof2(p->n) / 2; d >= 1; d /= 2) {
        if (gdc_coll_price_xor_hop_after_fold(p, d, 1).shared > 1 || gdc_coll_price_xor_hop(p, d).shared > 1) {
            return 0;
        }
    }
    return 1;
}

/* reduce_scatter recursive_halving's steps for rank r: an extra hands its whole vector up
 * and takes its block back; a participant reduces its extra's in, then each round sends
 * the half it gives away, takes the half it keeps and reduces it, and at the end hands its
 * extra its block and copies its own out. */
static void halving_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    gdc_coll_fold_t f     = gdc_coll_fold(p->n, r);
    double          block = bytes_of(p, p->args->count), whole = block * p->n;
    int             me = f.newrank, lo = 0, hi = f.p;

    (void)arg;
    if (fold_steps(p, &f, r, whole, l)) {
        return;
    }
    for (int d = f.p / 2; d >= 1; d /= 2) {
        int    peer = gdc_coll_fold_real(&f, me ^ d), mid = lo + (hi - lo) / 2, lower = (me & d) == 0;
        int    klo = lower ? lo : mid, khi = lower ? mid : hi, glo = lower ? mid : lo, ghi = lower ? hi : mid;
        double keep = block * (gdc_coll_fold_first(&f, khi) - gdc_coll_fold_first(&f, klo));
        double give = block * (gdc_coll_fold_first(&f, ghi) - gdc_coll_fold_first(&f, glo));

        if (give > 0) {
            send_to(l, peer, give, 0);
        }
        if (keep > 0) {
            recv_from(l, peer);
            local(l, gdc_coll_price_reduce(p, keep));
        }
        lo = klo;
        hi = khi;
    }
    if (p->args->op == GDC_AVG) {
        local(l, gdc_coll_price_reduce(p, block * (gdc_coll_fold_first(&f, hi) - gdc_coll_fold_first(&f, lo))));
    }
    if (me < f.rem) {
        send_to(l, r - 1, block, 0);
    }
    local(l, gdc_coll_price_copy(p, block));
}

/* reduce_scatter_recursive_halving in closed form, where it is not walked. */
static double halving_rounds(const gdc_coll_price_t *p)
{
    double      block = bytes_of(p, p->args->count), whole = block * p->n;
    int         pof2  = gdc_coll_price_pof2(p->n), rounds = 0;
    xor_round_t round[GDC_COLL_LAYOUT_DISTANCES] = {{0}};
    gdc_coll_hop_t h  = gdc_coll_price_fold_hop(p);

    for (int d = pof2 / 2; d >= 1 && rounds < GDC_COLL_LAYOUT_DISTANCES; d /= 2) {
        round[rounds++] = (xor_round_t){.dist = d, .bytes = whole * d / pof2, .reduced = whole * d / pof2, .order = 1};
    }
    /* where a round has a node's ranks share a NIC, the participants that waited send at
     * other times than the others, and the round's share of the NIC overprices their way
     * (12 ranks on 4 nodes in blocks: 1.02 -> 1.23 times the simulator's time): the
     * rounds' way stands there */
    if (pof2 < p->n && halving_unshared(p)) {
        double plain[GDC_COLL_LAYOUT_DISTANCES + 1];

        xor_plain_way(p, round, rounds, plain);
        return max2(plain[rounds], halving_after_fold(p, block, plain)) + gdc_coll_price_copy(p, block) +
               (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
    }
    return xor_rounds(p, round, rounds, gdc_coll_price_msg(p, h, whole) + gdc_coll_price_reduce(p, whole), block, 1, 0) +
           gdc_coll_price_copy(p, block) + (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
}

static double reduce_scatter_recursive_halving(const gdc_coll_price_t *p)
{
    double t;

    return walked(p, halving_step, &t) ? t : halving_rounds(p);
}

/* ---------------------------------------------------------------------------------------
 * alltoall, barrier, gather, scatter
 */

/* Every rank sends every other a block: its own link carries those for its node, the node's
 * NICs all its ranks' blocks for the other nodes, a window of sends at a time. A receiving
 * link fills its gaps (the simulator's link rules), so none is lost to the order of sends.
 * Here: transfer times on the busiest NIC of a node of `local` ranks. */
static double nic_load(const gdc_coll_price_t *p, int local)
{
    return ceil((double)local / nics_of(p, local)) * (p->n - local);
}

/* `sends` blocks to a node's other ranks, a window of them in flight, each taking `each`
 * on the ranks' links; a message's trip, `trip`. Every rank's first window lands on every
 * receiver at once, and a window's first send may be the last its receiver takes in: the
 * next window starts a whole window's bytes later. From then on the ranks are staggered,
 * and a window follows the one before once its first send is in, or once the link has
 * carried the window before; the last ends with its own bytes in. (Off the node the
 * rounds' order spreads a window over the other nodes: there a window waits for one
 * message's trip.) */
static double alltoall_windows_inside(double sends, double each, double trip)
{
    double windows = ceil(sends / GDC_COLL_A2A_WINDOW), full = GDC_COLL_A2A_WINDOW * each;

    if (windows <= 1) {
        return trip + sends * each;
    }
    return trip + full + (windows - 2) * max2(full, trip + each) + trip +
           (sends - (windows - 1) * GDC_COLL_A2A_WINDOW) * each;
}

/* Off the node, a rank of a node of `local` ranks: each window follows the one before a
 * message's trip later; but every rank posts its first window at once, and on a NIC that
 * several share the last rank's waits behind the others' (the NIC takes them in order), so
 * its every later window starts that much later. */
static double alltoall_windows_off(const gdc_coll_price_t *p, int local, double xfer, double trip)
{
    double sends = p->n - local, sharers = ceil((double)local / nics_of(p, local));
    double first = sends < GDC_COLL_A2A_WINDOW ? sends : GDC_COLL_A2A_WINDOW;

    return ceil(sends / GDC_COLL_A2A_WINDOW) * trip + (sharers - 1) * first * xfer;
}

/* alltoall pairwise's steps for rank r (alltoall/common.c): its own block copied, its
 * sends in its rounds' order, each of a link class waiting for the delivery of the one a
 * window before it of the same class, then its receives. */
static void alltoall_pairwise_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    const int *node_of = p->args->node_of;
    double     block   = bytes_of(p, p->args->count);
    int        n = p->n, order[GDC_COLL_WALK_RANKS], window[2][GDC_COLL_A2A_WINDOW], issued[2] = {0, 0};

    (void)arg;
    if (!p->args->in_place) {
        local(l, gdc_coll_price_copy(p, block));
    }
    gdc_coll_a2a_round_order(p->args, r, order);
    for (int t = 0; t < n - 1; t++) {
        int to = (r + order[t]) % n, off = node_of[to] != node_of[r], *mine = &window[off][issued[off] % GDC_COLL_A2A_WINDOW];
        int after = issued[off]++ >= GDC_COLL_A2A_WINDOW ? *mine : -1;

        *mine = l->n;
        gdc_coll_walk_send_after(l, to, block, after);
    }
    for (int k = 1; k < n; k++) {
        recv_from(l, (r - k + n) % n);
    }
}

/* Pairwise exchanges walked up to this many ranks: n - 1 messages a rank. */
#define PAIRWISE_WALK_RANKS 24

static double alltoall_pairwise(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), local = p->lay->max_local, t;

    if (!p->args->in_place && p->n <= PAIRWISE_WALK_RANKS && walked_in(p, alltoall_pairwise_step, 2 * p->n, &t)) {
        return t;
    }
    double lat   = p->lay->nodes > 1 ? p->out.latency : p->in.latency;
    double bw    = p->lay->nodes > 1 ? p->out.bandwidth : p->in.bandwidth;
    double in    = (local - 1) * block / p->in.bandwidth;
    double out   = p->lay->nodes > 1 ? max2(nic_load(p, p->lay->max_local), nic_load(p, p->lay->min_local)) * block /
                                        p->out.bandwidth
                                    : 0;
    /* each window of sends waits for the one a window before it to arrive; the sends off
     * the node and those inside it have a window each */
    double window = alltoall_windows_inside(local - 1, block / p->in.bandwidth, p->o + p->in.latency);

    if (p->lay->nodes > 1) {
        double xfer = block / bw, trip = p->o + lat + xfer;

        window = max2(window, max2(alltoall_windows_off(p, p->lay->min_local, xfer, trip),
                                   alltoall_windows_off(p, p->lay->max_local, xfer, trip)));
    }

    /* a rank sends off its node first, then inside it (alltoall/common.c): the last send off
     * the node leaves once those of a rank of the smallest node are posted (after the sends
     * inside it where more than a window of them wait for the first ones to arrive), the
     * last inside once all are */
    double last = max2((p->n - 1) * p->o, p->o + in) + p->in.latency + p->o;

    if (p->lay->nodes > 1) {
        int off = p->n - p->lay->min_local, posted = off > GDC_COLL_A2A_WINDOW ? p->n - 1 : off;

        last = max2(max2(posted * p->o, p->o + out) + lat + p->o,
                    max2((p->n - 1) * p->o, (p->n - p->lay->max_local) * p->o + in) + p->in.latency + p->o);
    }
    return (p->args->in_place ? 0 : gdc_coll_price_copy(p, block)) + max2(last, window + p->o) +
           (p->args->in_place ? (p->n - 1) * gdc_coll_price_copy(p, block) : 0);
}

/* The ranks of a node that come to the rounds in which all of them cross before the others
 * do: the rounds before (`partial`, the first ones) brought each rank the blocks of the
 * 2^partial ranks from it on, and those whose span is all on its node waited for no
 * crossing. In blocks, counted on the smallest node, a share each NIC. */
static int lanes_ahead(const gdc_coll_price_t *p, int partial)
{
    int inside = p->lay->min_local - (1 << partial) + 1;

    return p->lay->blocks && inside > 0 ? inside / p->nics : 0;
}

/* A round in which every rank of a node sends off it, each once its own previous round is
 * in: the NIC takes the messages as the ranks come, and the ranks keep their order from
 * round to round (a tandem queue), so the last one waits behind the others once, in the
 * round of the largest messages, not in every round. Returns the message alone, and keeps
 * in *behind the most waited behind the others (less the `ahead` through before them).
 * (Priced behind the others in every round, allgather bruck of 1 KiB blocks on 12 ranks
 * round robin on 3 nodes came out at 1.22 times the simulator's time, alltoall bruck of
 * 1 KiB blocks on 16 ranks in blocks on 4 nodes at 1.28; now 1.00 and 1.03.) */
static double lane_of_queue(double alone, double queued, double shared, int ahead, double *behind)
{
    double others = shared - 1 - ahead;

    if (shared > 1 && others > 0) {
        *behind = max2(*behind, (queued - alone) * others / (shared - 1));
    }
    return alone;
}

/* The blocks Bruck's alltoall moves in round d: those whose index (1 to n - 1) has bit d. */
static int bruck_moved(int n, int d)
{
    int span = 2 * d, rest = n % span - d;

    return n / span * d + (rest > 0 ? rest : 0);
}

/* Each round moves blocks that came in from every partner before: unlike allgather's, the
 * rounds are not one chain, and each round's crossing counts. A round whose every rank's
 * partner is off its node queues the node's messages on its NICs as a lane each
 * (lane_of_queue); in one where only some cross, they send when their own earlier rounds
 * are in, at different times, and the NICs' bytes over all such rounds bound them instead
 * (priced as if they queued together, 1 KiB blocks on 12 ranks in blocks on 2 nodes came
 * out at 1.31 times the simulator's time). */
/* alltoall bruck's steps for rank r (coll/alltoall/bruck.c): its vector rotated in (one
 * copy or two); each round its blocks packed a copy each, sent, the partner's taken and
 * unpacked once the send is done with the pack; each block copied out. */
static void alltoall_bruck_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    double block = bytes_of(p, p->args->count);
    int    n     = p->n;

    (void)arg;
    local(l, gdc_coll_price_copy(p, block * (n - r)) + (r > 0 ? gdc_coll_price_copy(p, block * r) : 0));
    for (int d = 1; d < n; d *= 2) {
        int    moved  = bruck_moved(n, d);
        double copies = moved * gdc_coll_price_copy(p, block);

        local(l, copies);
        send_to(l, (r + d) % n, block * moved, 1);
        recv_from(l, (r - d + n) % n);
        local(l, copies);
    }
    local(l, n * gdc_coll_price_copy(p, block));
}

/* alltoall_bruck in closed form, where it is not walked. */
static double alltoall_bruck_rounds(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), chain = 0, queues = 0, behind = 0;
    double t     = 2 * p->o + block * p->n / p->kappa + p->n * gdc_coll_price_copy(p, block);
    int    partial = 0, full = 0, ahead = 0, i = 0;

    for (int d = 1; d < p->n; d *= 2, i++) {
        double         bytes  = block * bruck_moved(p->n, d);
        double         copies = 2 * bruck_moved(p->n, d) * gdc_coll_price_copy(p, block);
        gdc_coll_hop_t queued = gdc_coll_price_shift_hop(p, d);

        if (!gdc_coll_price_shift_full(p, d)) {
            chain += copies + gdc_coll_price_msg(p, gdc_coll_price_hop(p, queued.crosses, 1), bytes);
            partial++;
        } else if (queued.crosses) {
            ahead = full++ == 0 && i == partial ? lanes_ahead(p, partial) : ahead;
            chain += copies + lane_of_queue(gdc_coll_price_msg(p, gdc_coll_price_hop(p, 1, 1), bytes),
                                            gdc_coll_price_msg(p, queued, bytes), queued.shared, ahead, &behind);
        } else {
            chain += copies + gdc_coll_price_msg(p, queued, bytes);
        }
        queues += copies + bytes / queued.bw;
    }
    return t + max2(chain + behind, queues + (p->lay->nodes > 1 ? p->out.latency : p->in.latency) + 2 * p->o);
}

static double alltoall_bruck(const gdc_coll_price_t *p)
{
    double t;

    return walked(p, alltoall_bruck_step, &t) ? t : alltoall_bruck_rounds(p);
}

/* Rounds of a rotation where every rank's partner is off its node cost a crossing each,
 * and the node's messages queue on its NIC as a lane each (lane_of_queue); of
 * the others, a chain of rounds crosses as many more as the layout lets one chain cross
 * (the dearest of them), each at the NIC's whole rate: the ranks of a node that cross in
 * such a round send when their own earlier rounds are in, at different times (where they
 * were priced sharing the NIC, allgather bruck's prices were within 10% of the simulator's
 * in 95.3% of test_price's cases, 1.42 times off at worst at 1 KiB; now 96.2%; the bytes
 * of every round through the NICs bound larger blocks, allgather_bruck). */
static double rotation_rounds(const gdc_coll_price_t *p, double (*round)(const gdc_coll_price_t *, int, gdc_coll_hop_t))
{
    gdc_coll_hop_t in = gdc_coll_price_hop(p, 0, 1), alone = gdc_coll_price_hop(p, 1, 1);
    double         t = 0, extra[GDC_COLL_LAYOUT_DISTANCES], behind = 0;
    int            full = 0, partial = 0, ahead = 0, i = 0;

    for (int d = 1; d < p->n && i < GDC_COLL_LAYOUT_DISTANCES; d *= 2, i++) {
        gdc_coll_hop_t h = gdc_coll_price_shift_hop(p, d);
        if (gdc_coll_price_shift_full(p, d)) {
            ahead = full++ == 0 && i == partial ? lanes_ahead(p, partial) : ahead;
            t += lane_of_queue(round(p, d, alone), round(p, d, h), h.shared, ahead, &behind);
        } else {
            t += round(p, d, in);
            extra[partial++] = round(p, d, alone) - round(p, d, in);
        }
    }
    return t + behind + dearest(extra, partial, p->lay->shift_chain_off - full);
}

static double empty_round(const gdc_coll_price_t *p, int d, gdc_coll_hop_t h)
{
    return gdc_coll_price_msg(p, h, 0);
}

static double barrier_dissemination(const gdc_coll_price_t *p)
{
    return rotation_rounds(p, empty_round);
}

/* The root copies its own block while the others' come in; its own link carries its
 * children's subtrees on its node, its NIC those from other nodes, whenever they send
 * (log2 n children: the price stays O(log n)). */
static double gather_binomial(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), in = 0, out = 0, link;
    int    root  = p->args->root;

    for (long d = 1; d < p->n; d *= 2) {
        double subtree = (double)(d < p->n - d ? d : p->n - d);
        int    crosses = p->lay->nodes > 1 && p->args->node_of[(d + root) % p->n] != p->args->node_of[root];
        in += crosses ? 0 : subtree;
        out += crosses ? subtree : 0;
    }
    link = max2(in * block / p->in.bandwidth + p->in.latency, out > 0 ? out * block / p->out.bandwidth + p->out.latency : 0) +
           2 * p->o;

    return max2(max2(gdc_coll_price_tree(p, GDC_COLL_TREE_GATHER, block), link), gdc_coll_price_copy(p, block)) +
           (p->args->root != 0 ? 2 * p->o + block * p->n / p->kappa : 0);
}

/* scatter binomial's steps for rank r (coll/scatter/binomial.c): a root other than rank 0
 * rotates its blocks in first; a rank takes its subtree's blocks from its parent, sends
 * each child its subtree's, the largest first, and copies its own block out (a leaf
 * takes its block in place). */
static void scatter_tree_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    int    n = p->n, root = p->args->root, v = gdc_coll_vrank(r, root, n), end = gdc_coll_binomial_subtree_end(v, n);
    double block = bytes_of(p, p->args->count);

    (void)arg;
    if (v == 0 && root != 0) {
        local(l, gdc_coll_price_copy(p, block * (n - root)) + gdc_coll_price_copy(p, block * root));
    }
    binomial_scatter_steps(p, r, equal_blocks_bytes, l);
    if (end > v + 1 && !(v == 0 && p->args->in_place)) {
        local(l, gdc_coll_price_copy(p, block));
    }
}

/* A rank copies its own block out of its subtree's while it sends its children theirs
 * (the leaves receive theirs in place). */
static double scatter_binomial(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), t;

    if (walked(p, scatter_tree_step, &t)) {
        return t;
    }
    return max2(gdc_coll_price_tree(p, GDC_COLL_TREE_SCATTER, block), gdc_coll_price_copy(p, block)) +
           (p->args->root != 0 ? 2 * p->o + block * p->n / p->kappa : 0);
}

/* ---------------------------------------------------------------------------------------
 * Shared memory inside a node
 */

/* A call through the data area first waits for every reader of the call before to be done
 * there, a peer that may be waiting for a core where ranks outnumber the cores; a call in a
 * ring slot waits for the call a ring before, long done (coll/phase/shm.h). */
static double reuse_wait(const gdc_coll_price_t *p)
{
    return gdc_coll_shm_in_ring(p->args) ? 0 : gdc_coll_machine_wait(p->m, p->args);
}

/* One hop, or where the ranks outnumber the cores two: in to rank 0, out from it. */
static double barrier_shm(const gdc_coll_price_t *p)
{
    return (gdc_coll_oversubscribed(p->args) ? 2 : 1) * (p->o + p->sig);
}

static double allreduce_shm_direct(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);

    /* every peer's vector read once, out of its shared memory */
    return reuse_wait(p) + gdc_coll_price_copy_shared(p, bytes) + p->o + p->sig +
           (p->n - 1) * gdc_coll_price_reduce_peer(p, bytes) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes) : 0);
}

static double reduce_scatter_shm_direct(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    return reuse_wait(p) + gdc_coll_price_copy_shared(p, block * p->n) +
           p->o + p->sig + (p->n - 1) * gdc_coll_price_reduce_peer(p, block) +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, block) : 0);
}

static double bcast_shm(const gdc_coll_price_t *p)
{
    double bytes  = bytes_of(p, p->args->count);
    double chunks = (double)gdc_coll_shm_chunks(p->args, 1).count, c = bytes / chunks;

    /* through the ring, a chunk a slot: the readers, a chunk behind the root, are done with
     * a slot long before the root comes back to it; a pipeline of two stages, the root's
     * copy in and signal, a reader's copy out and signal, as fast as the slower one (the
     * root's where a copy into one's shared memory is the slower, as on the development VM) */
    double in = gdc_coll_price_copy_shared(p, c) + p->o, out = gdc_coll_price_copy_peer(p, c) + p->o;

    return in + p->sig + out + (chunks - 1) * max2(in, out);
}

/* Through the ring (gdc_coll_shm_chunks), as bcast shm: no reader keeps a writer waiting. */
static double allgather_shm(const gdc_coll_price_t *p)
{
    double block  = bytes_of(p, p->args->count);
    double chunks = (double)gdc_coll_shm_chunks(p->args, 1).count, c = block / chunks;

    return (p->args->in_place ? 0 : gdc_coll_price_copy(p, block)) +
           chunks * (gdc_coll_price_copy_shared(p, c) + (p->n - 1) * gdc_coll_price_copy_peer(p, c) + 2 * p->o) +
           p->sig;
}

static double alltoall_shm(const gdc_coll_price_t *p)
{
    gdc_coll_shm_chunks_t plan   = gdc_coll_shm_chunks(p->args, (size_t)p->n);
    double                block  = bytes_of(p, p->args->count);
    double                chunks = (double)plan.count, c = block / chunks;

    /* my own block while (in the data area) I wait for the readers of the call before */
    return max2(plan.ring ? 0 : gdc_coll_machine_wait(p->m, p->args),
                p->args->in_place ? 0 : gdc_coll_price_copy(p, block)) +
           chunks * ((p->n - 1) * (gdc_coll_price_copy_shared(p, c) + gdc_coll_price_copy_peer(p, c)) + 2 * p->o) +
           p->sig;
}

/* The root copies its own block while the others copy their first chunks in, then every
 * chunk out, one after another, while they copy the next ones in. */
static double gather_shm(const gdc_coll_price_t *p)
{
    double block  = bytes_of(p, p->args->count);
    double chunks = (double)gdc_coll_shm_chunks(p->args, 1).count, c = block / chunks;
    double own    = p->args->in_place ? 0 : gdc_coll_price_copy(p, block);

    return max2(own, gdc_coll_price_copy_shared(p, c) + p->o + p->sig) +
           chunks * ((p->n - 1) * gdc_coll_price_copy_peer(p, c) + p->o);
}

/* The root copies the others' chunks in one after another, then its own block while they
 * copy the last ones out. */
static double scatter_shm(const gdc_coll_price_t *p)
{
    gdc_coll_shm_chunks_t plan   = gdc_coll_shm_chunks(p->args, (size_t)p->n);
    double                block  = bytes_of(p, p->args->count);
    double                chunks = (double)plan.count, c = block / chunks;
    double                own    = p->args->in_place ? 0 : gdc_coll_price_copy(p, block);

    return (plan.ring ? 0 : gdc_coll_machine_wait(p->m, p->args)) +
           chunks * ((p->n - 1) * gdc_coll_price_copy_shared(p, c) + p->o) +
           max2(own, gdc_coll_price_copy_peer(p, c) + p->o + p->sig);
}

/* The root publishes its buffer and copies its own block while every other rank reads its
 * own from it; it returns when the last has said so. */
static double scatter_cma(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);
    double own   = p->args->in_place ? 0 : gdc_coll_price_copy(p, block);

    return max2(own, p->o + p->sig + gdc_coll_price_cma(p, block) + p->o + p->sig);
}

/* gather cma: scatter cma's hand-offs, the copies made by the senders into the root. */
static double gather_cma(const gdc_coll_price_t *p)
{
    return scatter_cma(p);
}

/* Each rank reads all but the last 1/n while the root writes that into the ranks one after
 * another (small host vectors: all, the root none); a rank returns once both are done, the
 * root once every rank has said so. */
static double bcast_cma(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count), part = bytes_of(p, gdc_coll_bcast_cma_root_part(p->args));
    double read  = p->o + p->sig + gdc_coll_price_cma(p, bytes - part);
    double write = p->o + p->sig + (part > 0 ? (p->n - 1) * gdc_coll_price_cma(p, part) : 0) + p->o;

    /* every rank is done once both have been signalled */
    return max2(read + p->o, write) + p->sig;
}

/* A rank's copy of its own block: on the device (the ipc twins) a copy-engine copy started
 * and waited for. */
static double own_copy(const gdc_coll_price_t *p, double bytes)
{
    return (p->dev ? p->m->gpu_latency : 0) + gdc_coll_price_copy(p, bytes);
}

/* Each rank reads the n-1 others' blocks one after another, says so and waits for the others
 * to have said so, copying its own block meanwhile (or before the reads, while it waits for
 * the others to publish: gdc_coll_cma_own_last). */
static double cma_read_blocks(const gdc_coll_price_t *p, double own)
{
    double reads = (p->n - 1) * gdc_coll_price_cma(p, bytes_of(p, p->args->count));

    if (!gdc_coll_cma_own_last(p->args)) {
        return max2(p->o + own, p->o + p->sig) + reads + p->o + p->sig;
    }
    return p->o + p->sig + reads + p->o + max2(own, p->sig);
}

static double alltoall_cma(const gdc_coll_price_t *p)
{
    return cma_read_blocks(p, own_copy(p, bytes_of(p, p->args->count)));
}

/* alltoall cma's, with the own block's copy only out of place. */
static double allgather_cma(const gdc_coll_price_t *p)
{
    return cma_read_blocks(p, p->args->in_place ? 0 : own_copy(p, bytes_of(p, p->args->count)));
}

/* The ipc reductions: each kernel over `bytes` is started and waited for. */
static double ipc_reduce(const gdc_coll_price_t *p, double bytes)
{
    return p->o + p->m->gpu_latency + bytes / p->gamma;
}

/* The copy an in-place ipc reduction makes out of its scratch, after everyone's DONE. */
static double ipc_copy_out(const gdc_coll_price_t *p, double bytes)
{
    return p->args->in_place ? p->sig + p->o + p->m->gpu_latency + bytes / p->kappa : 0;
}

/* Publish, n-1 kernels over the whole vector, DONE (and the in-place copy). */
static double allreduce_ipc(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);

    return p->o + p->sig + (p->n - 1) * ipc_reduce(p, bytes) + p->o + p->sig + ipc_copy_out(p, bytes);
}

/* The largest part of a two-shot allreduce (gdc_coll_two_shot), in elements. */
static size_t two_shot_part(const gdc_coll_price_t *p)
{
    return (p->args->count + (size_t)p->n - 1) / (size_t)p->n;
}

/* A two-shot allreduce: publish, the rank's part reduced (`reduced`), REDUCED, a copy of
 * each other part, DONE. Where the vector has fewer elements than there are ranks only
 * that many parts hold any, and the slowest rank is one without a part of its own, which
 * copies every one of them. */
static double two_shot(const gdc_coll_price_t *p, double reduced)
{
    size_t copies = p->args->count < (size_t)p->n ? p->args->count : (size_t)p->n - 1;

    return p->o + p->sig + reduced + p->o + p->sig +
           (double)copies * gdc_coll_price_cma(p, bytes_of(p, two_shot_part(p))) + p->o + p->sig;
}

/* n-1 kernels over a part, each reading a peer's input where it lies. */
static double allreduce_ipc_two_shot(const gdc_coll_price_t *p)
{
    return two_shot(p, (p->n - 1) * ipc_reduce(p, bytes_of(p, two_shot_part(p))));
}

/* `count` elements of a peer's input read into scratch by the kernel, then reduced. */
static double cma_read_reduce(const gdc_coll_price_t *p, size_t count)
{
    double bytes = bytes_of(p, count);

    return gdc_coll_price_cma(p, bytes) + gdc_coll_price_reduce(p, bytes);
}

/* gdc_coll_cma_reduce_inputs of `count` elements: each other input's part read and
 * reduced a chunk at a time; with AVG's division. */
static double cma_reduce_inputs(const gdc_coll_price_t *p, size_t count)
{
    size_t chunk = gdc_coll_cma_reduce_chunk_elems(p->args);
    size_t whole = count / chunk, rest = count % chunk;
    double reads = (double)whole * cma_read_reduce(p, chunk) + (rest > 0 ? cma_read_reduce(p, rest) : 0);

    return (p->n - 1) * reads + (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, bytes_of(p, count)) : 0);
}

static double allreduce_cma(const gdc_coll_price_t *p)
{
    return two_shot(p, cma_reduce_inputs(p, two_shot_part(p)));
}

/* Publish, the rank's block reduced, DONE and the wait for everyone's; in place, the copy
 * of the block out of scratch. */
static double reduce_scatter_cma(const gdc_coll_price_t *p)
{
    return p->o + p->sig + cma_reduce_inputs(p, p->args->count) + p->o + p->sig +
           (p->args->in_place ? gdc_coll_price_copy(p, bytes_of(p, p->args->count)) : 0);
}

/* The root's n-1 kernels; the others only publish. */
static double reduce_ipc(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);

    return p->o + p->sig + (p->n - 1) * ipc_reduce(p, bytes) + p->o + p->sig + ipc_copy_out(p, bytes);
}

/* Each rank's n-1 kernels over its block. */
static double reduce_scatter_ipc(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    return p->o + p->sig + (p->n - 1) * ipc_reduce(p, block) + p->o + p->sig + ipc_copy_out(p, block);
}

/* The ipc_leader algorithms: the followers publish, the leader makes every step one after
 * another (kernels over `reduced` bytes, copies between two ranks' buffers of `copied`
 * bytes, and `own` copies inside its own buffers of `owned`), then DONE. */
static double ipc_leader(const gdc_coll_price_t *p, double kernels, double reduced, double copies, double copied,
                         double own, double owned)
{
    return p->o + p->sig + kernels * ipc_reduce(p, reduced) + copies * gdc_coll_price_cma(p, copied) +
           own * own_copy(p, owned) + p->o + p->sig;
}

/* n-1 two-operand kernels, then n-1 copies; fused, one kernel reducing every input into
 * every output. */
static double allreduce_ipc_leader(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);

    if (p->args->config->device_fused) {
        return ipc_leader(p, 1, gdc_coll_model_reduce_all_units(p->n, 1) * bytes, 0, 0, 0, 0);
    }
    return ipc_leader(p, p->n - 1, bytes, p->n - 1, bytes, 0, 0);
}

static double bcast_ipc_leader(const gdc_coll_price_t *p)
{
    double bytes = bytes_of(p, p->args->count);

    return ipc_leader(p, 0, 0, p->n - 1, bytes, 0, 0);
}

/* Every block into every output: the leader's own block into its own output out of place,
 * every other copy between two ranks. */
static double allgather_ipc_leader(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), n = p->n;

    return p->args->in_place ? ipc_leader(p, 0, 0, n * n - n, block, 0, 0)
                             : ipc_leader(p, 0, 0, n * n - 1, block, 1, block);
}

static double alltoall_ipc_leader(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count), n = p->n;

    return ipc_leader(p, 0, 0, n * n - 1, block, 1, block);
}

/* n blocks, each reduced from every rank's input by n-1 kernels (fused: by one). */
static double reduce_scatter_ipc_leader(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    if (p->args->config->device_fused) {
        return ipc_leader(p, p->n, gdc_coll_model_reduce_all_units(p->n, 0) * block, 0, 0, 0, 0);
    }
    return ipc_leader(p, (double)p->n * (p->n - 1), block, 0, 0, 0, 0);
}

/* The root's copy of each other rank's block, and its own out of place. */
static double gather_ipc_leader(const gdc_coll_price_t *p)
{
    double block = bytes_of(p, p->args->count);

    return ipc_leader(p, 0, 0, p->n - 1, block, !p->args->in_place, block);
}

static double allreduce_shm(const gdc_coll_price_t *p)
{
    double chunk  = bytes_of(p, gdc_coll_shm_allreduce_chunk_elems(p->args));
    double bytes  = bytes_of(p, p->args->count);
    double chunks = ceil(bytes / chunk), part = bytes / chunks / p->n;
    /* a chunk of fewer elements than ranks leaves some parts empty: no result to copy */
    double in_one = ceil((double)p->args->count / chunks), owners = in_one < p->n ? in_one : p->n;
    double per    = (p->n - 1) * gdc_coll_price_copy_shared(p, part) + gdc_coll_price_copy(p, part) +
                 (owners - 1) * gdc_coll_price_copy_peer(p, part) +
                 (p->n - 1) * gdc_coll_price_reduce_peer(p, part) + 3 * p->o;

    /* in the data area it first waits for the readers of the call before, and from chunk 2
     * on for its peers' reductions of the chunk two back (double buffering); in its ring
     * slot for the readers a ring before, long done */
    double waits = gdc_coll_shm_allreduce_in_ring(p->args) ? 0 : 1 + (chunks > 2 ? chunks - 2 : 0);

    return waits * gdc_coll_machine_wait(p->m, p->args) + chunks * per + 2 * p->sig +
           (p->args->op == GDC_AVG ? gdc_coll_price_reduce(p, part) * chunks : 0);
}

/* ---------------------------------------------------------------------------------------
 * Hierarchical: a phase inside the nodes, one among them, one inside again; large vectors
 * in segments whose phases overlap: every phase once, then once per further segment the
 * busier of the links, the nodes' own (which the two inside phases of neighbouring
 * segments share) or the network
 */

static double segmented(int segments, const double phase[3])
{
    return phase[0] + phase[1] + phase[2] + (segments - 1) * max2(phase[0] + phase[2], phase[1]);
}

/* The same when the phase among nodes is a pipeline whose chunks of every segment follow
 * one another down it: it fills once, then each further segment costs its stream. */
static double segmented_stream(int segments, const double phase[3], double stream)
{
    return phase[0] + phase[1] + phase[2] + (segments - 1) * max2(phase[0] + phase[2], stream);
}

/* One rank of each node among the nodes (leaders), or all of a node's ranks at once on
 * their rails: the L parts of a node's share go through its NICs, fewest to a NIC on the
 * smallest node (a rank there carries several parts, one rail after another). */
static gdc_coll_hop_t among_leaders(const gdc_coll_price_t *p)
{
    return gdc_coll_price_hop(p, 1, 1);
}

static gdc_coll_hop_t along_rails(const gdc_coll_price_t *p)
{
    gdc_coll_hop_t rail  = gdc_coll_price_hop(p, 1, 1);
    int            users = nics_of(p, p->lay->min_local);

    rail.shared = ceil((double)p->lay->max_local / users);
    rail.bw     = p->out.bandwidth / rail.shared;
    return rail;
}

/* How much sooner the leader of a node of the fewest ranks has its node's sum than one of
 * the most (whose reduce takes `largest`): the children its leader takes in one after
 * another, as many or more (a tree one hop deeper but as wide at the leader, its leader
 * done at the same time, 6 ranks against 5 on radix 4: with the trees' prices apart,
 * allreduce hier_leader of 64 KiB on 16 ranks on 3 nodes came out at 1.15 times the
 * simulator's time). */
static double leaders_lead(const gdc_coll_price_t *p, double seg, double largest)
{
    int radix = p->args->config->tree_radix, most = 0, fewest = 0;

    for (long d = 1; d < p->lay->max_local; d *= radix) {
        most += (int)fmin(radix - 1, (p->lay->max_local - 1) / d);
        fewest += d < p->lay->min_local ? (int)fmin(radix - 1, (p->lay->min_local - 1) / d) : 0;
    }
    return most > fewest ? largest - gdc_coll_price_group_tree_reduce(p, p->lay->min_local, inside(p), radix, seg) : 0;
}

static double allreduce_hier_leader(const gdc_coll_price_t *p)
{
    int    L = p->lay->max_local, K = p->lay->nodes;
    int    segs = gdc_coll_hier_num_segments(p->args, L, gdc_coll_group_allreduce_min_slots(K) + 2);
    double seg  = bytes_of(p, p->args->count) / segs;
    double phase[3];

    phase[0] = gdc_coll_price_group_tree_reduce(p, L, inside(p), p->args->config->tree_radix, seg);
    phase[1] = gdc_coll_price_group_allreduce(p, K, among_leaders(p), seg, GDC_COLL_ACROSS_NODES,
                                              GDC_COLL_MAX_SLOTS / (uint32_t)segs);
    phase[1] += gdc_coll_price_group_fold_queue(p, K, among_leaders(p), seg, GDC_COLL_MAX_SLOTS / (uint32_t)segs,
                                                leaders_lead(p, seg, phase[0]));
    phase[2] = gdc_coll_price_group_bcast(p, L, inside(p), seg, gdc_coll_price_chunks(p, GDC_COLL_IN_NODE, seg, 1));
    return segmented(segs, phase);
}

/* The rails' allreduces among the K nodes, where a node's rails share its NICs: a rail's
 * message waits behind the others' on the NIC, and its latency hides behind their bytes;
 * the busiest NIC's bytes, once the first messages are on their way, bound them. */
static double rails_allreduce(const gdc_coll_price_t *p, int K, double part, uint32_t slots)
{
    gdc_coll_hop_t alone = gdc_coll_price_hop(p, 1, 1);
    double         one   = gdc_coll_price_group_allreduce(p, K, alone, part, GDC_COLL_ACROSS_NODES, slots);

    double         busiest = gdc_coll_price_group_allreduce_stream(p, K, along_rails(p), part, slots);

    return max2(one, gdc_coll_price_msg(p, alone, 0) + gdc_coll_price_group_allreduce_fill(p, K, alone, part, slots) +
                         busiest);
}

/* A node's ring over its g ranks of a segment cut in L parts (L: the largest node's ranks),
 * reducing (rs) or gathering: on a smaller node some ranks own several parts. A share in
 * one chunk goes round in step with the others, every round at the pace of the largest;
 * in chunks, a link carries what passes it, the parts of every share but one. */
static double rails_node_ring(const gdc_coll_price_t *p, int g, double part, int rs)
{
    int    L = p->lay->max_local;
    double share = part * ((L + g - 1) / g);
    int    chunks = gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, share, 2 * (g - 1));

    if (chunks > 1) {
        share  = part * L / g;
        chunks = gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, share, 2 * (g - 1));
    }
    return gdc_coll_price_group_ring(p, g, inside(p), share, chunks, rs ? g - 1 : 0, rs ? 0 : g - 1);
}

/* allreduce hier_rails walked along its rails (coll/hier/allreduce_rails.c) where it runs
 * in one segment, its rails double and each node's ranks own as many parts each: each
 * node's ring reduce-scatter of its ranks' shares before them, its ring allgather after,
 * in closed form. (Where a node's shares differ, its ranks end the reduce-scatter at
 * different times, which the closed form does not follow; its rings walked step by step
 * came out further off, the order of messages ready at the same time the walk's own.) */
static int allreduce_hier_rails_walked(const gdc_coll_price_t *p, double *t)
{
    int           L = p->lay->max_local, K = p->lay->nodes, steps;
    rails_nodes_t rn;

    if (!rails_may_walk(p) ||
        gdc_coll_hier_num_segments_overlapped(p->args, L, gdc_coll_rails_slots(L, gdc_coll_group_allreduce_min_slots(K))) !=
            1) {
        return 0;
    }
    rails_nodes_init(p, &rn, L);
    rn.reduces = 1;
    for (int b = 0; b < L; b++) {
        if (K > 2 && rails_vector_part(p, &rn, b) > (double)p->args->config->hier_ring_bytes) {
            return 0; /* halving and doubling, or a ring: not walked */
        }
    }
    for (int d = 0; d < K; d++) {
        if (L % rails_node_size(&rn, d) != 0) {
            return 0;
        }
    }
    if ((steps = rails_walk_steps(p, &rn)) == 0) {
        return 0;
    }
    for (int d = 0; d < K; d++) {
        int    Ld = rails_node_size(&rn, d), chunks;
        double share = rails_share(p, &rn, Ld, 0);

        rn.before[d] = rn.after[d] = 0;
        if (Ld > 1) {
            chunks = gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, share, 2 * (Ld - 1));
            chunks = chunks < (int)(GDC_COLL_MAX_SLOTS / (uint32_t)(2 * (Ld - 1)))
                         ? chunks
                         : (int)(GDC_COLL_MAX_SLOTS / (uint32_t)(2 * (Ld - 1)));
            rn.before[d] = gdc_coll_price_group_ring(p, Ld, inside(p), share, chunks, Ld - 1, 0);
            rn.after[d]  = gdc_coll_price_group_ring(p, Ld, inside(p), share, chunks, 0, Ld - 1);
        }
    }
    return gdc_coll_price_walk(p, rails_step, &rn, steps, t);
}

/* allreduce hier_rails in closed form, where it is not walked. The rails of neighbouring
 * segments overlap on the NICs (hier/common.h): a further segment costs the NICs' bytes of
 * its rails, or its phases inside the nodes. */
static double allreduce_hier_rails_phases(const gdc_coll_price_t *p)
{
    int      L = p->lay->max_local, K = p->lay->nodes;
    int      segs = gdc_coll_hier_num_segments_overlapped(p->args, L,
                                                          gdc_coll_rails_slots(L, gdc_coll_group_allreduce_min_slots(K)));
    double   seg  = bytes_of(p, p->args->count) / segs, part = seg / L;
    int      chunks = gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, part, 2 * (L - 1));
    uint32_t slots  = GDC_COLL_MAX_SLOTS / (uint32_t)segs / (uint32_t)L;
    double   phase[3];

    double   small[3], stream = gdc_coll_price_group_allreduce_stream(p, K, along_rails(p), part, slots);

    phase[0] = gdc_coll_price_group_ring(p, L, inside(p), part, chunks, L - 1, 0);
    phase[1] = rails_allreduce(p, K, part, slots);
    phase[2] = gdc_coll_price_group_ring(p, L, inside(p), part, chunks, 0, L - 1);
    /* the smallest node's rings take longer where some of its ranks own several parts; its
     * rails' messages then leave late: on NICs of their own, they take the rails' time
     * after; on a NIC its ranks share, they join its queue, long anyway, and its way counts
     * a rail's allreduce alone (with the rails' time there too, allreduce hier_rails's
     * prices on the built-in machine came out up to 1.3 times the simulator's time) */
    small[0] = rails_node_ring(p, p->lay->min_local, part, 1);
    small[1] = nics_of(p, p->lay->min_local) >= p->lay->min_local
                   ? phase[1]
                   : gdc_coll_price_group_allreduce(p, K, gdc_coll_price_hop(p, 1, 1), part, GDC_COLL_ACROSS_NODES,
                                                    slots);
    small[2] = rails_node_ring(p, p->lay->min_local, part, 0);
    /* the extras' nodes are the largest, their rings the longest: a rail's fold can come in
     * behind its partner's first message (gdc_coll_price_group_fold_queue); where a part
     * goes in chunks, the rails' streams hide it (priced there too, 1 MiB on 7 ranks on 3
     * nodes came out at 1.19 times the simulator's time, from 1.09) */
    if (chunks == 1) {
        phase[1] += gdc_coll_price_group_fold_queue(p, K, gdc_coll_price_hop(p, 1, 1), part, slots, phase[0] - small[0]);
    }
    return max2(segmented_stream(segs, phase, stream),
                p->lay->min_local < L ? segmented_stream(segs, small, stream) : 0);
}

static double allreduce_hier_rails(const gdc_coll_price_t *p)
{
    double t;

    return allreduce_hier_rails_walked(p, &t) ? t : allreduce_hier_rails_phases(p);
}

/* Two pipelined broadcasts, the second fed chunk by chunk by the first: the longer stream,
 * plus a chunk's way through the other (one_first, one_second: a chunk alone through each;
 * the last chunk in goes down the whole of the second, a chain's hops and all, where
 * priced as a chunk's share of its stream, bcast hier of 16 MiB on 2 nodes of 8 came out
 * at 0.86 of the simulator's time). */
static double feeding(double first, double second, double one_first, double one_second)
{
    return max2(first + one_second, second + one_first);
}

/* bcast hier's walk: the nodes, each node's leader (the root on the root's node, else its
 * first rank), and the chunks. */
typedef struct bcast_hier_walk {
    rails_nodes_t nodes;
    int           leader[GDC_COLL_WALK_RANKS];
    int           chunks;
} bcast_hier_walk_t;

/* Group member `me` of ranks[0..n) on a chunk (`piece` bytes) of gdc_coll_pipe_bcast from
 * member `root` (phase/bcast.c): its receive from its parent (where `recv`), then its
 * sends to its children, the largest subtree first (a chain: the next member). */
static void pipe_bcast_steps(const gdc_coll_price_t *p, const int *ranks, int n, int root, int me, double piece,
                             int chunks, int recv, gdc_coll_walk_list_t *l)
{
    int v = gdc_coll_vrank(me, root, n), children[32], num;

    if (n < 2 || piece <= 0) {
        return;
    }
    if (gdc_coll_pipe_bcast_chains(n, chunks)) {
        if (v > 0 && recv) {
            recv_from(l, ranks[gdc_coll_real_rank(v - 1, root, n)]);
        }
        if (v + 1 < n) {
            send_to(l, ranks[gdc_coll_real_rank(v + 1, root, n)], piece, 0);
        }
        return;
    }
    num = gdc_coll_tree_children(v, n, 2, children, 32);
    if (gdc_coll_tree_parent(v, n, 2) >= 0 && recv) {
        recv_from(l, ranks[gdc_coll_real_rank(gdc_coll_tree_parent(v, n, 2), root, n)]);
    }
    for (int i = num - 1; i >= 0; i--) {
        send_to(l, ranks[gdc_coll_real_rank(children[i], root, n)], piece, 0);
    }
}

/* bcast hier's steps for rank r (coll/hier/bcast.c), chunk by chunk: a leader takes a
 * chunk from its parent among the leaders, passes it on to its children there and then
 * inside its node; the others take it from their parent inside the node and pass it on.
 * The root has every chunk at once: it sends them all to the leaders first. */
static void bcast_hier_step(const gdc_coll_price_t *p, const void *arg, int r, gdc_coll_walk_list_t *l)
{
    const bcast_hier_walk_t *w = arg;
    const rails_nodes_t     *rn = &w->nodes;
    int                      K = p->lay->nodes, d = p->args->node_of[r], L = rails_node_size(rn, d);
    int                      top = p->args->node_of[p->args->root], lead = rn->local[w->leader[d]];
    int                      root = r == p->args->root;

    /* the root: a pass down the leaders, then one inside its node; the others: one pass */
    for (int pass = root ? 0 : 1; pass < 2; pass++) {
        for (int c = 0; c < w->chunks; c++) {
            double piece = bytes_of(p, gdc_coll_block_count(p->args->count, w->chunks, c));

            if (w->leader[d] == r && pass == !root) {
                pipe_bcast_steps(p, w->leader, K, top, d, piece, w->chunks, 1, l);
            }
            if (!root || pass == 1) {
                pipe_bcast_steps(p, rn->member + rn->first[d], L, lead, rn->local[r], piece, w->chunks,
                                 w->leader[d] != r, l);
            }
        }
    }
}

/* Whether bcast hier is walked: on up to GDC_COLL_WALK_RANKS ranks of several nodes,
 * within GDC_COLL_WALK_BUDGET. */
static int bcast_hier_walked(const gdc_coll_price_t *p, double *t)
{
    bcast_hier_walk_t w;
    int               K = p->lay->nodes, steps;

    if (!rails_may_walk(p)) {
        return 0;
    }
    rails_nodes_init(p, &w.nodes, 1);
    w.chunks = gdc_coll_price_chunks(p, GDC_COLL_ACROSS_NODES, bytes_of(p, p->args->count), 1);
    for (int d = 0; d < K; d++) {
        w.leader[d] = d == p->args->node_of[p->args->root] ? p->args->root : w.nodes.member[w.nodes.first[d]];
    }
    /* a chunk: a receive and a send to each child among the leaders and inside the node */
    steps = w.chunks * (1 + gdc_coll_price_log2(K) + gdc_coll_price_log2(p->lay->max_local));
    return steps * p->n <= GDC_COLL_WALK_BUDGET && gdc_coll_price_walk(p, bcast_hier_step, &w, steps, t);
}

/* bcast hier in closed form, where it is not walked. The root's node broadcasts once the
 * root has sent to the other leaders; another node as its leader gets the chunks (priced
 * for the root's node as rank 0's): the slowest of the largest nodes at each depth of the
 * leaders' tree, the deepest not always among the largest (7 ranks on 4 nodes of 2, 2, 2
 * and 1: the node of 1 is the deepest). */
static double bcast_hier_phases(const gdc_coll_price_t *p)
{
    double bytes  = bytes_of(p, p->args->count);
    int    chunks = gdc_coll_price_chunks(p, GDC_COLL_ACROSS_NODES, bytes, 1);
    double others = 0;

    for (int hops = 1; hops <= GDC_COLL_LAYOUT_DISTANCES; hops++) {
        int local = p->lay->leader_local[hops];

        if (local > 0) {
            double among = gdc_coll_price_group_bcast_to(p, p->lay->nodes, hops, among_leaders(p), bytes, chunks);
            double inner = gdc_coll_price_group_bcast(p, local, inside(p), bytes, chunks);
            double one_among =
                gdc_coll_price_group_bcast_chunk(p, p->lay->nodes, hops, among_leaders(p), bytes, chunks);
            double one_inner = gdc_coll_price_group_bcast_chunk(p, local, -1, inside(p), bytes, chunks);
            others           = max2(others, feeding(among, inner, one_among, one_inner));
        }
    }
    return max2(others, gdc_coll_price_log2(p->lay->nodes) * chunks * p->o +
                            gdc_coll_price_group_bcast(p, p->lay->root_local, inside(p), bytes, chunks));
}

static double bcast_hier(const gdc_coll_price_t *p)
{
    double t;

    return bcast_hier_walked(p, &t) ? t : bcast_hier_phases(p);
}

static int min_count(int n, size_t count)
{
    return count < (size_t)n ? (int)count : n;
}

/* The ring allgather of a segment inside a node of g ranks (each holding seg / g of it). */
static double node_ring(const gdc_coll_price_t *p, int g, double seg)
{
    double block = g > 0 ? seg / g : 0;

    return gdc_coll_price_group_ring(p, g, inside(p), block,
                                     gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, block, g - 1), 0, g - 1);
}

/* bcast hier_rails's nodes but the root's and the smallest: each puts its segment together
 * once the rails reach it, the slowest of the largest nodes at each depth of the rails'
 * trees over the nodes (bcast_hier); `root_stream` what the root's node's NICs send. */
static double rails_reach_nodes(const gdc_coll_price_t *p, double part, int chunks, double scatter, double first,
                                double root_stream, double seg)
{
    gdc_coll_hop_t alone  = gdc_coll_price_hop(p, 1, 1);
    double         stream = gdc_coll_price_group_bcast_stream(p, p->lay->nodes, alone, part, chunks), slowest = 0;

    for (int hops = 1; hops <= GDC_COLL_LAYOUT_DISTANCES; hops++) {
        int local = p->lay->leader_local[hops];

        if (local > 0) {
            double whole = gdc_coll_price_group_bcast_to(p, p->lay->nodes, hops, alone, part, chunks);
            double rails = max2(whole, whole - stream + root_stream);
            slowest      = max2(slowest, max2(scatter + whole, first + rails) + node_ring(p, local, seg));
        }
    }
    return slowest;
}

/* How much later than at `first` and one part after another the smallest node's first
 * rank has its own parts (ceil(L / its ranks)): where a NIC of the root's node carries
 * several rails, each rail's owner sends its part to the root's children (`sends`) once
 * the root's scatter reached it (a `step` a part) and the parts before it on that NIC are
 * out; the rank's own NIC takes its parts in as they come. (Left out, bcast of 16 MiB on
 * 32 ranks on 3 nodes of dgx-h100, 11 ranks on 8 NICs, rooted at the middle node's sixth
 * rank, was priced at 0.78 of the simulator's time.) */
#define SMALLEST_PARTS_MAX 16 /* of the smallest node's first rank, looked at one by one */

static double smallest_parts_late(const gdc_coll_price_t *p, int own, int sends, double first, double step, double xfer)
{
    int    L = p->lay->root_local, B = p->lay->max_local, nics = nics_of(p, L), holders = min_count(L, p->args->count);
    double at[SMALLEST_PARTS_MAX], last = 0;

    own = own < SMALLEST_PARTS_MAX ? own : SMALLEST_PARTS_MAX;
    for (int b = 0; b < own && L > nics; b++) {
        int    owner = gdc_coll_rails_owner(B, L, b), k = b;
        double free = 0, start = 0;

        for (int i = 1; i <= L; i++) {
            /* the scatter's order, the root's own rail once its scatter is in (between the
             * last two it hands out: their receive and send steps) */
            int    q = i < L - 1 ? i : (i == L - 1 ? L : L - 1), j = (p->lay->root_index + q) % L, from, to;
            double ready, begin;

            if (j % nics != owner % nics) {
                continue;
            }
            from  = gdc_coll_rails_first(B, L, j);
            to    = gdc_coll_rails_first(B, L, j + 1);
            ready = q == L ? first + max2(holders - 2, 0) * step + p->o
                           : first + (min_count(q, holders) - 1) * step + 2 * p->o;
            begin = max2(ready, free);
            if (j == owner) {
                start = begin + (b - from) * sends * xfer;
                break;
            }
            free = begin + (min_count(to, p->args->count) - min_count(from, p->args->count)) * sends * xfer;
        }
        for (; k > 0 && at[k - 1] > start; k--) {
            at[k] = at[k - 1];
        }
        at[k] = start;
    }
    for (int k = 0; k < own && L > nics; k++) {
        last = max2(last, at[k] + (own - k) * xfer);
    }
    return max2(last - (first + own * xfer), 0);
}

/* A rank of a smaller node takes in the parts of several rails (ceil(L / its ranks)), one
 * after another on its NIC, and passes them on down their trees as they come: its way is a
 * part's, hop by hop, behind the parts its senders sent to siblings before it, and the
 * other parts after (the layout's smallest_way, the deepest and the most behind; in one
 * chunk, where a part goes at once); then its node's ring goes at the pace of its largest
 * share (rails_node_ring). With these left to the NICs' streams, 1 MiB on 5 ranks on 4
 * nodes and 16 MiB on 17 on 2 of dgx-h100 were priced at 0.81 and 0.85 of the simulator's
 * time. Its parts may also leave the root's node late, behind other rails' on their NICs
 * (smallest_parts_late). */
static double smallest_node_rails(const gdc_coll_price_t *p, double part, int chunks, double first, double step)
{
    double parts = ceil((double)p->lay->max_local / p->lay->min_local), most = 0;
    double msg   = gdc_coll_price_msg(p, gdc_coll_price_hop(p, 1, 1), part), xfer = part / p->out.bandwidth;

    if (chunks > 1 || p->lay->min_local >= p->lay->max_local) {
        return 0;
    }
    for (int w = 0; w < 2; w++) {
        const int *way = p->lay->smallest_way[w];
        most           = max2(most, way[0] > 0 ? way[0] * msg + (parts - 1 + way[1]) * xfer : 0);
    }
    return most + smallest_parts_late(p, (int)parts, gdc_coll_price_log2(p->lay->nodes), first, step, xfer);
}

/* Where some nodes have fewer ranks than the largest, a rank there takes in several parts
 * and passes each on to every child of its node, one after another on its NIC: the nodes
 * below it get their parts that much later (the layout's rails_ways, with each rank on a
 * NIC of its own, one chunk a part). Left to the terms above, 1 MiB on 12 ranks in blocks
 * on 8 nodes of dgx-h100, rooted at the fourth node, was priced at 0.81 of the simulator's
 * time. */
static double rails_through_smaller_nodes(const gdc_coll_price_t *p, double part, double seg)
{
    double most = 0;

    for (int r = 0; r < GDC_COLL_RAILS_REGIMES; r++) {
        int    local;
        double way = gdc_coll_price_rails_way(p, r, part, &local);

        most = local > 0 ? max2(most, way + node_ring(p, local, seg)) : most;
    }
    return most;
}

/* The root and the ranks of its node it hands a part to: with fewer elements than parts,
 * only the first count parts hold any, and their owners are the node's first ranks, the
 * root among them or not. (Counted as the first count ranks, the root and one other, 8 B
 * on 7 ranks on 3 nodes of dgx-h100 rooted at the second node, whose root owns both
 * elements, came out at 1.32 times the simulator's time.) */
static int root_node_holders(const gdc_coll_price_t *p)
{
    int B = p->lay->max_local, L = p->lay->root_local;
    int owners = p->args->count >= (size_t)B ? L : gdc_coll_rails_owner(B, L, (int)p->args->count - 1) + 1;

    return 1 + owners - (p->lay->root_index < owners);
}

static double bcast_hier_rails(const gdc_coll_price_t *p)
{
    int            L = p->lay->max_local, K = p->lay->nodes;
    int            segs = gdc_coll_hier_num_segments(p->args, L, gdc_coll_rails_slots(L, 1) + 1);
    double         seg  = bytes_of(p, p->args->count) / segs, part = seg / L;
    gdc_coll_hop_t in   = inside(p);
    int            chunks = gdc_coll_price_chunks(p, GDC_COLL_ACROSS_NODES, part, 1);
    /* the node's rails share its NICs, and a rank of a smaller node takes in several parts,
     * whose chunks share its NIC: the rails' stream is the busiest NIC's, a tree's root
     * sending each chunk to its children or that rank taking in its parts' (along_rails) */
    gdc_coll_hop_t rail = gdc_coll_price_hop(p, 1, L);
    /* a rail's root's sends; the root's node's ranks may carry several parts each */
    double         root_stream = gdc_coll_price_group_bcast_stream(p, K, rail, part, chunks);
    double         root_shared = ceil(ceil((double)L / nics_of(p, p->lay->root_local)) / rail.shared);
    double         stream = max2(gdc_coll_price_group_bcast_stream_shared(p, K, rail, part, chunks,
                                                                          (int)ceil(along_rails(p).shared / rail.shared)),
                                 root_shared * root_stream);
    /* the pipeline's fill: a chunk crosses each hop at the NIC's whole bandwidth (the
     * node's other rails queue behind it, not beside it) */
    gdc_coll_hop_t alone = gdc_coll_price_hop(p, 1, 1);
    double         whole = gdc_coll_price_group_bcast(p, K, alone, part, chunks);
    double         fill  = whole - gdc_coll_price_group_bcast_stream(p, K, alone, part, chunks);
    double         scatter, rails, shared, first, through;
    int            holders;

    /* the root hands its node's ranks their parts, only those that hold elements (fewer
     * for a tiny vector): a send's overhead on its CPU beside the one before on its link */
    holders = root_node_holders(p);
    first   = holders > 1 ? gdc_coll_price_msg(p, in, part) : 0;
    scatter = holders > 1 ? first + (holders - 2) * max2(p->o, part / in.bw) : 0;
    rails   = max2(whole, fill + root_shared * root_stream);
    /* where some nodes are smaller and a part goes in one chunk, the way through them
     * (rails_through_smaller_nodes) has their NICs' several parts one after another: no
     * pipeline streams them (with the busiest NIC's stream too, 16 MiB on 100 ranks round
     * robin on 13 nodes of dgx-h100 came out at 1.14 times the simulator's time) */
    through = chunks == 1 && segs == 1 && p->nics >= L && p->args->count >= (size_t)L
                  ? rails_through_smaller_nodes(p, part, seg)
                  : 0;
    /* the busiest NIC's stream, once the pipeline has reached it */
    shared  = through > 0 ? rails : max2(rails, fill + stream);
    /* a node puts its parts together once they are in: the root's node after the scatter,
     * the others once the rails reach them, the smallest node (its NIC taking in several
     * parts) last; a part goes down its rail once its owner has it, so the rails run beside
     * the scatter, from its first part on, and the last part scattered takes its rail alone
     * after it (first: the first part in); further segments overlap (segmented_stream) */
    return max2(max2(max2(max2(rails_reach_nodes(p, part, chunks, scatter, first, root_shared * root_stream, seg),
                               max2(scatter + whole, first + shared) + node_ring(p, p->lay->min_local, seg)),
                          scatter + node_ring(p, p->lay->root_local, seg)),
                     first + smallest_node_rails(p, part, chunks, first, max2(p->o, part / in.bw)) +
                         rails_node_ring(p, p->lay->min_local, part, 0)),
                through) +
           (segs - 1) * max2(scatter + node_ring(p, L, seg), stream);
}

/* A copy step per region: their overheads and their bytes, one after the other. */
static double copies(const gdc_coll_price_t *p, double count, double bytes)
{
    return count * p->o + bytes / p->kappa;
}

/* A leader's gather of its node's `ranks` blocks, one after another on its link. */
static double leader_gather(const gdc_coll_price_t *p, int ranks, double block)
{
    gdc_coll_hop_t in = inside(p);

    return ranks > 1 ? (ranks - 1) * block / in.bw + gdc_coll_price_msg(p, in, block) : 0;
}

/* A leader's gather of its node's `ranks` blocks with its own block's copy: the copy runs
 * while the others' blocks come in, the last one's receive step after it. (Priced one after
 * the other, allgather hier of 8 B on 3 ranks on 2 nodes of dgx-h100 came out a step over
 * the simulator's time, 1.13.) */
static double leader_gathered(const gdc_coll_price_t *p, int ranks, double block)
{
    double copy = gdc_coll_price_copy(p, block);

    return ranks > 1 ? max2(leader_gather(p, ranks, block), copy + p->o) : copy;
}

/* allgather hier walked along the leaders (one rail of the nodes' whole packages): each
 * starts once its node's blocks are in, and ends with their broadcast round its node. */
static int allgather_hier_walked(const gdc_coll_price_t *p, double *t)
{
    double        block = bytes_of(p, p->args->count), total = block * p->n;
    /* out of node order into rank order: a copy step per run of consecutive ranks */
    double        order = p->lay->blocks ? 0 : copies(p, p->n, total);
    rails_nodes_t rn;
    int           steps;

    if (!rails_may_walk(p)) {
        return 0;
    }
    rails_nodes_init(p, &rn, 1);
    if ((steps = rails_walk_steps(p, &rn)) == 0) {
        return 0;
    }
    for (int d = 0; d < p->lay->nodes; d++) {
        int L = rails_node_size(&rn, d);

        rn.before[d] = leader_gathered(p, L, block);
        rn.after[d]  = order + gdc_coll_price_group_bcast(p, L, inside(p), total,
                                                          gdc_coll_price_chunks(p, GDC_COLL_IN_NODE, total, 2));
    }
    return gdc_coll_price_walk(p, rails_step, &rn, steps, t);
}

/* allgather hier in closed form, where it is not walked. */
static double allgather_hier_phases(const gdc_coll_price_t *p)
{
    int    L = p->lay->max_local, K = p->lay->nodes, S = p->lay->min_local;
    double block = bytes_of(p, p->args->count), total = block * p->n;
    double gather = leader_gathered(p, L, block);
    /* out of node order into rank order: a copy step per run of consecutive ranks */
    double order = p->lay->blocks ? 0 : copies(p, p->n, total);
    double among = gdc_coll_price_group_allgather(p, K, among_leaders(p), among_leaders(p), total, block * L, block * S,
                                                  GDC_COLL_ACROSS_NODES);
    double bcast = gdc_coll_price_group_bcast(p, L, inside(p), total,
                                              gdc_coll_price_chunks(p, GDC_COLL_IN_NODE, total, 2));

    if (p->lay->largest == 1 && S < L && K >= 4 && gdc_coll_price_pof2(K) == K) {
        /* one node larger than the others: its leader's partners among the leaders, whose
         * gathers end first, have their messages on the way while it still gathers, and it
         * takes each round's in a step; they have its blocks a gather later (on 5 ranks on 4
         * nodes of dgx-h100, priced in sequence, 1.25 times the simulator's time) */
        double late = max2(gather + gdc_coll_price_log2(K) * 2 * p->o,
                           leader_gathered(p, S, block) + among);

        return max2(gather + among + order + (S > 1 ? bcast : 0), late + order + bcast);
    }
    return gather + among + order + bcast;
}

static double allgather_hier(const gdc_coll_price_t *p)
{
    double t;

    return allgather_hier_walked(p, &t) ? t : allgather_hier_phases(p);
}

/* A rail's hop between the nodes that fold (off a power of two of nodes): their NICs carry
 * as many of the node's rails as theirs do, not always as many as the smallest node's
 * (rail: along_rails). (At the smallest node's share, allgather hier_rails of 64 KiB on 5
 * ranks on 3 nodes of dgx-h100, 2, 2 and 1, came out at 1.22 times the simulator's time.) */
static gdc_coll_hop_t rails_of_folding_nodes(const gdc_coll_price_t *p, gdc_coll_hop_t rail)
{
    int    folding = p->lay->fold_nodes_min_local;
    double shared  = folding > 0 ? ceil((double)p->lay->max_local / nics_of(p, folding)) : rail.shared;

    if (shared < rail.shared) {
        rail.shared = shared;
        rail.bw     = p->out.bandwidth / shared;
    }
    return rail;
}

/* The rails' allgathers among the K nodes, where rail.shared of a node's rails share a
 * NIC: in recursive doubling, a rail's next round starts once its message of the round
 * before is in, while the NIC may still carry the other rails' messages of that round, so
 * a round's latency hides behind the bytes of the round before; the NIC carries each
 * round's messages one after another. A node's part of a rail is `per_rank` bytes for each
 * of its ranks: where the nodes are uneven, the busiest sender of round d is a node of the
 * group of d nodes that holds the most ranks. */
static double rails_allgather(const gdc_coll_price_t *p, int K, gdc_coll_hop_t rail, double per_rank)
{
    const gdc_coll_layout_t *lay   = p->lay;
    double                   alone = rail.bw * rail.shared, first = 0, nic = 0;

    if (gdc_coll_price_pof2(K) != K || per_rank * p->n > (double)p->args->config->hier_ring_bytes) {
        return gdc_coll_price_group_allgather(p, K, rail, rails_of_folding_nodes(p, rail), per_rank * p->n, 0, 0,
                                              GDC_COLL_ACROSS_NODES);
    }
    for (int d = 1, i = 0; d < K; d *= 2, i++) {
        double bytes = per_rank * lay->node_group_most[i], start = max2(first, nic);

        nic   = start + bytes / rail.bw;
        first = start + 2 * p->o + rail.lat + bytes / alone;
    }
    return max2(first, nic + rail.lat + 2 * p->o);
}

/* allgather hier_rails walked along its rails (rails_step): each node's phases inside it
 * in closed form before and after them (rails_in_node), each rank's parts copied in. */
static int allgather_hier_rails_walked(const gdc_coll_price_t *p, double *t)
{
    rails_nodes_t rn;
    int           steps;

    if (!rails_may_walk(p)) {
        return 0;
    }
    rails_nodes_init(p, &rn, p->lay->max_local);
    rn.copy_parts = 1;
    if ((steps = rails_walk_steps(p, &rn)) == 0) {
        return 0;
    }
    for (int d = 0; d < p->lay->nodes; d++) {
        rails_in_node(p, &rn, d);
    }
    return gdc_coll_price_walk(p, rails_step, &rn, steps, t);
}

/* allgather hier_rails in closed form, where it is not walked. */
static double allgather_hier_rails_phases(const gdc_coll_price_t *p)
{
    int            L = p->lay->max_local, K = p->lay->nodes;
    double         block = bytes_of(p, p->args->count), part = block; /* a package of L blocks in L parts */
    /* a rank of the smallest node carries this many parts along its rail, one after another */
    double         parts = ceil((double)L / p->lay->min_local);
    gdc_coll_hop_t rail  = along_rails(p);
    gdc_coll_hop_t in    = inside(p);

    /* the other nodes' parts to their places, one copy each (and the own package's blocks
     * from scratch where a node's ranks are not consecutive) */
    double         unpack = copies(p, (double)(K - 1) * L + (p->lay->blocks ? 0 : L), block * p->n);

    /* a rail carries part b of every package, a package being its node's blocks: 1/L of
     * the whole (K parts of a block where the nodes are even) */
    double         railed = block * p->n / L;

    return gdc_coll_price_copy(p, block) +
           gdc_coll_price_group_ring(p, L, in, block,
                                     gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, block, 2 * (L - 1)), 0, L - 1) +
           parts * gdc_coll_price_copy(p, part) +
           max2(rails_allgather(p, K, rail, block / L),
                /* the smallest node's NICs take in every other node's package */
                rail.lat + (p->n - p->lay->min_local) * block /
                               (p->out.bandwidth * nics_of(p, p->lay->min_local))) +
           gdc_coll_price_group_ring(p, L, in, railed,
                                     gdc_coll_price_ring_chunks(p, GDC_COLL_IN_NODE, railed, L - 1), 0, L - 1) +
           unpack;
}

static double allgather_hier_rails(const gdc_coll_price_t *p)
{
    double t;

    return allgather_hier_rails_walked(p, &t) ? t : allgather_hier_rails_phases(p);
}

/* alltoall hier's packing on a node of L ranks: a block at a time for and from each rank
 * of the other nodes whose ranks are not consecutive (in round robin, those of more than
 * one rank). */
static double alltoall_hier_packing(const gdc_coll_price_t *p, int L)
{
    const gdc_coll_layout_t *lay = p->lay;
    double                   scattered;

    if (lay->blocks || lay->max_local < 2) {
        return 0;
    }
    scattered = lay->min_local >= 2 ? p->n - L : lay->largest * lay->max_local - (L == lay->max_local ? L : 0);
    return scattered * gdc_coll_price_copy(p, bytes_of(p, p->args->count));
}

/* Node-aware aggregation (coll/hier/alltoall.c): every rank's blocks for each other node
 * to that node's aggregator in its own node (with the blocks for its own node's ranks
 * straight to them), one message per node pair between nodes (the pairs spread over the
 * node's ranks and NICs), each aggregator handing out the other node's blocks, one copy
 * step per block. Ranks not consecutive in a node pack and unpack their blocks for and
 * from each other node block by block.
 *
 * When node e's aggregator for node d (e of Le ranks) has its pack: its own blocks copied
 * in and its node's ranks' in from them. */
static double alltoall_hier_packed(const gdc_coll_price_t *p, int Le)
{
    int            K = p->lay->nodes;
    double         block   = bytes_of(p, p->args->count);
    double         other   = (double)(p->n - Le) / (K - 1); /* ranks of another node */
    double         pairs   = ceil((double)(K - 1) / Le);    /* of the busiest aggregator */
    gdc_coll_hop_t in      = inside(p);
    double         packing = alltoall_hier_packing(p, Le);
    double         out, own, collect;

    /* my blocks out: to my node's ranks and to the aggregators (a send's overhead on my CPU
     * beside the one before on my link), then into my own packs */
    out   = (Le - 1) * max2(p->o, block / in.bw) + (K - 1 - pairs) * max2(p->o, other * block / in.bw) + packing;
    own   = pairs * gdc_coll_price_copy(p, other * block);
    /* an aggregator's packs in from its node's ranks, on its link, sent as its own are: they
     * come in while it copies its own blocks into its packs (after them, 8 B on 16 ranks
     * round robin on 8 nodes of dgx-h100 came out at 1.14 times the simulator's time) */
    collect = pairs * (Le - 1) * other * block / in.bw;
    return gdc_coll_price_copy(p, block) + (Le > 1 ? max2(out + own, max2(out, collect) + in.lat + p->o) : out + own);
}

/* What node d's aggregator (d of Ld ranks) does with a pack from a node of Le ranks: its
 * own blocks copied into place, each other rank's copied into a message of its own where
 * there are several, and sent. */
static double alltoall_hier_hand(const gdc_coll_price_t *p, double Le, int Ld)
{
    double         block  = bytes_of(p, p->args->count);
    gdc_coll_hop_t in     = inside(p);
    double         own    = Ld == 1 && p->lay->blocks ? gdc_coll_price_copy(p, Le * block) : copies(p, Le, Le * block);
    double         repack = Le > 1 ? copies(p, Le, Le * block) : 0;

    return own + (Ld - 1) * (repack + p->o + Le * block / in.bw);
}

/* Packs on the busiest NIC of a node of L ranks. */
static double alltoall_hier_queued(const gdc_coll_price_t *p, int L)
{
    int K = p->lay->nodes, spread = nics_of(p, L) < K - 1 ? nics_of(p, L) : K - 1;

    return ceil((K - 1.0) / spread);
}

/* When the last pack is in at a largest node of uneven ones whose NICs queue packs, sent
 * and taken in (0 where there is none such). An aggregator's pack is ready once its node's
 * ranks' blocks are in, so the packs for the smallest nodes are ready and go first; a
 * largest node is then nobody's first destination (or, with one smallest node, not every
 * one's) and takes in nothing until the first packs are out, then every other node's on
 * its own NICs. Where it is the only largest node and its aggregators have NICs of their
 * own, its busiest aggregator's packs come from nodes d + 1, d + 1 + Ld, ..., in the
 * order those send them (node d + k's pack for d is its (K - k)th, of its aggregator's
 * every Le-th): the first after (K - 2) % Ld / Le packs of Le x Le blocks, the others one
 * after another (with the smallest nodes' first packs ahead, 1 MiB on 17 ranks in blocks
 * on 8 nodes of dgx-h100 came out at 1.21 times the simulator's time). Nodes of one rank
 * collect nothing: where they are the only other nodes (one largest node), their blocks
 * for each other leave at once and the largest node's pack, packed first where its ranks
 * are scattered, after them all (priced in the builder's order there, 1 MiB on 5 ranks
 * round robin on 4 nodes of dgx-h100 came out at 0.74 of the simulator's time); in blocks
 * it leaves in the builder's order. */
static double alltoall_hier_late(const gdc_coll_price_t *p, int Ld)
{
    const gdc_coll_layout_t *lay = p->lay;
    int                      K   = lay->nodes;
    int                      ones = lay->min_local == 1 && lay->largest == 1; /* one largest, nodes of one rank */
    double                   per_block = bytes_of(p, p->args->count) / p->out.bandwidth; /* on a NIC */
    int                      own = lay->largest == 1 && !ones && p->nics >= Ld; /* aggregators' own NICs */
    double                   first = ones  ? (lay->smallest - 1) * per_block
                                     : own ? (double)((K - 2) % Ld / lay->min_local) * lay->min_local *
                                                 lay->min_local * per_block
                                           : lay->min_local * (lay->smallest > 1 ? lay->min_local : lay->max_local) *
                                                 per_block;

    if (lay->max_local == lay->min_local || Ld != lay->max_local || alltoall_hier_queued(p, lay->min_local) < 2 ||
        alltoall_hier_queued(p, Ld) < 2 || (ones && lay->blocks)) {
        return 0;
    }
    return first + alltoall_hier_queued(p, Ld) * Ld * ((p->n - Ld) / (K - 1.0)) * per_block;
}

/* The packs d's busiest NIC takes in, `packed` of them, each priced as `pack` (a pack from
 * a node of Le ranks). Where d's aggregators have NICs of their own, the packs from the
 * largest nodes are the largest, and there are only so many of them (as packs of Le ranks
 * each, alltoall hier of 1 MiB on 17 ranks round robin on 8 nodes of dgx-h100, one node of
 * 3, came out at 1.31 times the simulator's time). */
static double alltoall_hier_packs_in(const gdc_coll_price_t *p, int Ld, double packed, double pack)
{
    const gdc_coll_layout_t *lay = p->lay;
    double                   big, from_big;

    if (packed < 2 || p->nics < Ld || lay->max_local == lay->min_local) {
        return packed * pack;
    }
    big      = lay->largest - (Ld == lay->max_local ? 1 : 0); /* other nodes of max_local ranks */
    from_big = packed < big ? packed : big;
    return (from_big * lay->max_local + (packed - from_big) * lay->min_local) * Ld * bytes_of(p, p->args->count) /
           p->out.bandwidth;
}

/* From then until node d's ranks (Ld of them) have e's blocks. An aggregator's packs go
 * one after the other on its NIC, their latencies overlapping; d's aggregator hands each
 * pack it gets out while the next one comes in. A rank unpacks each pack from a node whose
 * ranks are not consecutive as it comes in, on the CPU that also hands out its own: the
 * busiest aggregator hands out the most, the least busy unpacks the most. A node of one
 * rank has none to unpack from: its aggregator's own copies put the blocks in place (with
 * an unpack after them, 8 B on 3 ranks round robin on 2 nodes of dgx-h100 came out at 1.13
 * times the simulator's time). */
static double alltoall_hier_handed(const gdc_coll_price_t *p, int Le, int Ld)
{
    int    K       = p->lay->nodes;
    double block   = bytes_of(p, p->args->count);
    double most    = ceil((double)(K - 1) / Ld); /* pairs of d's busiest aggregator */
    double least   = floor((double)(K - 1) / Ld);
    double xfer    = Le * ((p->n - Le) / (K - 1.0)) * block / p->out.bandwidth;
    double others  = (p->n - Ld) / (K - 1.0);    /* ranks of a node that sends to d */
    double inward  = Ld > 1 ? inside(p).lat + p->o : 0;
    /* ... and packs for a node of scattered ranks (not in blocks, several on the node) are
     * packed first and leave after the direct blocks, at once from every node: d's busiest
     * NIC takes them in one after another, each of Le x Ld blocks (with the senders' side
     * alone, 5 and 12 ranks dealt round robin to 4 and 8 nodes were priced at 0.71 to 0.84
     * of the simulator's time). Otherwise they leave in the nodes' order, one by one. */
    double pack    = (double)Le * Ld * block / p->out.bandwidth;
    double packed  = p->lay->blocks || Ld < 2 ? 1 : alltoall_hier_queued(p, Ld);
    double last_in = max2(max2(alltoall_hier_queued(p, Le) * xfer, alltoall_hier_packs_in(p, Ld, packed, pack)),
                          alltoall_hier_late(p, Ld));
    double unpack  = p->lay->blocks || Le < 2 || Ld < 2 ? 0 : copies(p, Le, Le * block);
    double unpacks = p->lay->blocks || others < 2 ? 0 : copies(p, others, others * block);
    double hand    = alltoall_hier_hand(p, others, Ld);
    double cpu     = max2(most * hand + (K - 1 - most) * unpacks, least * hand + (K - 1 - least) * unpacks);

    return 2 * p->o + p->out.latency +
           max2(last_in + alltoall_hier_hand(p, Le, Ld) + unpack, xfer + cpu) + inward;
}

/* The slowest pair of nodes, a pack's way from the one to the other: of the largest and
 * the smallest size (one size where the nodes are even), where there are two such nodes. */
static double alltoall_hier(const gdc_coll_price_t *p)
{
    int    sizes[2] = {p->lay->max_local, p->lay->min_local};
    int    count[2] = {p->lay->largest, p->lay->smallest};
    int    kinds    = sizes[0] != sizes[1] ? 2 : 1;
    double worst    = 0;

    for (int i = 0; i < kinds; i++) {
        for (int j = 0; j < kinds; j++) {
            if (i != j || count[i] > 1) {
                worst = max2(worst, alltoall_hier_packed(p, sizes[i]) + alltoall_hier_handed(p, sizes[i], sizes[j]));
            }
        }
    }
    return worst;
}

/* A leader joins the leaders' rounds once its node is in, and its node leaves once the
 * rounds are done: the largest node's ranks come in last. With a power of two of leaders,
 * none of a leader's rounds waits on its own start (the rounds' distances sum to less than
 * the leaders); so where one node is the largest (rank 0's, in blocks), it may leave
 * before the others, which wait for it: priced for it and for the next largest. */
static double barrier_hier(const gdc_coll_price_t *p)
{
    int            most = p->lay->max_local, next = p->lay->other_local, radix = p->args->config->tree_radix;
    int            K    = p->lay->nodes;
    gdc_coll_hop_t in   = inside(p);
    double         among = gdc_coll_price_group_dissemination(p, K, among_leaders(p));
    double         first_in = gdc_coll_price_group_fanin(p, most, in, radix);

    if ((K & (K - 1)) != 0 || p->lay->root_local != most || next >= most) {
        return first_in + among + gdc_coll_price_group_tree_way(p, most, in, 0);
    }
    return max2(first_in + among + gdc_coll_price_group_tree_way(p, next, in, 0),
                gdc_coll_price_group_fanin(p, next, in, radix) + among + gdc_coll_price_group_tree_way(p, most, in, 0));
}

/* ---------------------------------------------------------------------------------------
 * The table
 */

static const price_fn_t prices[GDC_COLL_ALGO_COUNT] = {
    [GDC_COLL_ALGO_ALLREDUCE_RING]                 = allreduce_ring,
    [GDC_COLL_ALGO_ALLREDUCE_RECURSIVE_DOUBLING]   = allreduce_recursive_doubling,
    [GDC_COLL_ALGO_ALLREDUCE_RABENSEIFNER]         = allreduce_rabenseifner,
    [GDC_COLL_ALGO_ALLREDUCE_KNOMIAL]              = allreduce_knomial,
    [GDC_COLL_ALGO_ALLREDUCE_SHM]                  = allreduce_shm,
    [GDC_COLL_ALGO_ALLREDUCE_SHM_DIRECT]           = allreduce_shm_direct,
    [GDC_COLL_ALGO_BCAST_BINOMIAL]                 = bcast_binomial,
    [GDC_COLL_ALGO_BCAST_CHAIN]                    = bcast_chain,
    [GDC_COLL_ALGO_BCAST_SCATTER_ALLGATHER]        = bcast_scatter_allgather,
    [GDC_COLL_ALGO_BCAST_SHM]                      = bcast_shm,
    [GDC_COLL_ALGO_REDUCE_BINOMIAL]                = reduce_binomial,
    [GDC_COLL_ALGO_REDUCE_SCATTER_GATHER]          = reduce_scatter_gather,
    [GDC_COLL_ALGO_ALLGATHER_RING]                 = allgather_ring,
    [GDC_COLL_ALGO_ALLGATHER_RECURSIVE_DOUBLING]   = allgather_recursive_doubling,
    [GDC_COLL_ALGO_ALLGATHER_BRUCK]                = allgather_bruck,
    [GDC_COLL_ALGO_ALLGATHER_SHM]                  = allgather_shm,
    [GDC_COLL_ALGO_REDUCE_SCATTER_RING]            = reduce_scatter_ring,
    [GDC_COLL_ALGO_REDUCE_SCATTER_RECURSIVE_HALVING] = reduce_scatter_recursive_halving,
    [GDC_COLL_ALGO_REDUCE_SCATTER_SHM_DIRECT]      = reduce_scatter_shm_direct,
    [GDC_COLL_ALGO_ALLTOALL_PAIRWISE]              = alltoall_pairwise,
    [GDC_COLL_ALGO_ALLTOALL_BRUCK]                 = alltoall_bruck,
    [GDC_COLL_ALGO_ALLTOALL_SHM]                   = alltoall_shm,
    [GDC_COLL_ALGO_BARRIER_DISSEMINATION]          = barrier_dissemination,
    [GDC_COLL_ALGO_BARRIER_SHM]                    = barrier_shm,
    [GDC_COLL_ALGO_ALLREDUCE_HIER_LEADER]          = allreduce_hier_leader,
    [GDC_COLL_ALGO_ALLREDUCE_HIER_RAILS]           = allreduce_hier_rails,
    [GDC_COLL_ALGO_BCAST_HIER]                     = bcast_hier,
    [GDC_COLL_ALGO_BCAST_HIER_RAILS]               = bcast_hier_rails,
    [GDC_COLL_ALGO_ALLGATHER_HIER]                 = allgather_hier,
    [GDC_COLL_ALGO_ALLGATHER_HIER_RAILS]           = allgather_hier_rails,
    [GDC_COLL_ALGO_ALLTOALL_HIER]                  = alltoall_hier,
    [GDC_COLL_ALGO_BARRIER_HIER]                   = barrier_hier,
    [GDC_COLL_ALGO_GATHER_BINOMIAL]                = gather_binomial,
    [GDC_COLL_ALGO_GATHER_SHM]                     = gather_shm,
    [GDC_COLL_ALGO_SCATTER_BINOMIAL]               = scatter_binomial,
    [GDC_COLL_ALGO_SCATTER_SHM]                    = scatter_shm,
    [GDC_COLL_ALGO_SCATTER_CMA]                    = scatter_cma,
    [GDC_COLL_ALGO_GATHER_CMA]                     = gather_cma,
    [GDC_COLL_ALGO_BCAST_CMA]                      = bcast_cma,
    [GDC_COLL_ALGO_ALLTOALL_CMA]                   = alltoall_cma,
    [GDC_COLL_ALGO_ALLGATHER_CMA]                  = allgather_cma,
    [GDC_COLL_ALGO_ALLREDUCE_IPC]                  = allreduce_ipc,
    [GDC_COLL_ALGO_ALLREDUCE_CMA]                  = allreduce_cma,
    [GDC_COLL_ALGO_ALLREDUCE_IPC_TWO_SHOT]         = allreduce_ipc_two_shot,
    [GDC_COLL_ALGO_ALLREDUCE_IPC_LEADER]           = allreduce_ipc_leader,
    [GDC_COLL_ALGO_BCAST_IPC_LEADER]               = bcast_ipc_leader,
    [GDC_COLL_ALGO_ALLGATHER_IPC_LEADER]           = allgather_ipc_leader,
    [GDC_COLL_ALGO_REDUCE_SCATTER_IPC_LEADER]      = reduce_scatter_ipc_leader,
    [GDC_COLL_ALGO_ALLTOALL_IPC_LEADER]            = alltoall_ipc_leader,
    [GDC_COLL_ALGO_GATHER_IPC_LEADER]              = gather_ipc_leader,
    [GDC_COLL_ALGO_SCATTER_IPC_LEADER]             = gather_ipc_leader, /* the same copies the other way */
    [GDC_COLL_ALGO_REDUCE_IPC]                     = reduce_ipc,
    [GDC_COLL_ALGO_REDUCE_SCATTER_IPC]             = reduce_scatter_ipc,
    [GDC_COLL_ALGO_REDUCE_SCATTER_CMA]             = reduce_scatter_cma,
    [GDC_COLL_ALGO_SCATTER_IPC]                    = scatter_cma,
    [GDC_COLL_ALGO_GATHER_IPC]                     = gather_cma,
    [GDC_COLL_ALGO_BCAST_IPC]                      = bcast_cma,
    [GDC_COLL_ALGO_ALLTOALL_IPC]                   = alltoall_cma,
    [GDC_COLL_ALGO_ALLGATHER_IPC]                  = allgather_cma,
};

gdc_status_t gdc_coll_price(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                            const gdc_coll_layout_t *layout, double *seconds)
{
    gdc_coll_price_t  p;
    gdc_coll_layout_t own;
    unsigned          kinds = gdc_coll_tree_kinds_of(args->coll);

    if (prices[algo->id] == NULL) {
        return GDC_ERR_UNSUPPORTED;
    }
    if (layout == NULL) {
        gdc_coll_layout_of(args, &own);
        layout = &own;
    } else if (layout->root != args->root || (layout->tree_kinds & kinds) != kinds) {
        own = *layout; /* a caller's layout with trees rooted elsewhere, or not this call's */
        gdc_coll_layout_root_kinds(args, &own, kinds);
        layout = &own;
    }
    gdc_coll_price_init(&p, m, args, layout);
    *seconds = args->size <= 1 || gdc_coll_is_empty(args) ? 0 : prices[algo->id](&p);
    /* no price where the builder cannot cut the call (a ring of more rounds than there are
     * slots gets no chunk: 0 / 0): a NaN would win every comparison by losing none */
    return isfinite(*seconds) ? GDC_SUCCESS : GDC_ERR_UNSUPPORTED;
}
