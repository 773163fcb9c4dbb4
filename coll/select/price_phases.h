/* What the closed-form prices are built from (price.c), for the per-algorithm prices
 * (price_algos.c). Internal to the selection. */
#ifndef GDC_COLL_PRICE_PHASES_H
#define GDC_COLL_PRICE_PHASES_H

#include "builder.h"
#include "select/price.h"

typedef struct gdc_coll_price {
    const gdc_coll_machine_t *m;
    const gdc_coll_args_t    *args;
    const gdc_coll_layout_t  *lay;
    int                       n;
    int                       dev;
    double                    o;     /* seconds of CPU per step */
    double                    sig;   /* a shared-memory signal seen by a peer */
    double                    gamma; /* bytes reduced per second */
    double                    kappa;  /* bytes copied per second */
    double                    gamma_peer; /* ... with an operand out of a peer's shared memory */
    double                    cma_bw; /* bytes per second of a host cross-memory-attach copy */
    gdc_coll_host_rates_t     host;  /* the call's host rates */
    gdc_coll_link_cost_t      in;    /* a link inside a node */
    gdc_coll_link_cost_t      out;   /* between nodes, per NIC */
    int                       nics;
    size_t                    dsize;
} gdc_coll_price_t;

/* One message's way: latency and the bandwidth it gets. */
typedef struct gdc_coll_hop {
    double lat;
    double bw;
    int    crosses; /* between nodes */
    double shared;  /* of those, the messages of the node's ranks on its NIC at once */
} gdc_coll_hop_t;

void gdc_coll_price_init(gdc_coll_price_t *p, const gdc_coll_machine_t *m, const gdc_coll_args_t *args,
                         const gdc_coll_layout_t *layout);

/* A hop inside a node, or off it with `senders` of the node's ranks sending at once. */
gdc_coll_hop_t gdc_coll_price_hop(const gdc_coll_price_t *p, int crosses, int senders);
/* The slowest hop of a round where every rank sends to its ring neighbour, to the rank dist
 * further (r + dist), or to its partner dist away by bits (r ^ dist). */
gdc_coll_hop_t gdc_coll_price_ring_hop(const gdc_coll_price_t *p);
gdc_coll_hop_t gdc_coll_price_shift_hop(const gdc_coll_price_t *p, int dist);
/* allgather recursive_doubling's round of partners dist apart: the most blocks one NIC of
 * a node takes in from off it (gdc_coll_layout_t.xor_gather_nic; 0: none), or (plain) of
 * those whose sender did not wait for the fold. */
double gdc_coll_price_xor_gather_nic(const gdc_coll_price_t *p, int dist, int plain);
gdc_coll_hop_t gdc_coll_price_xor_hop(const gdc_coll_price_t *p, int dist);
/* The same on the way of a participant that waited for an extra (layout's
 * xor_cross_after_fold), rounds in doubling or in halving order. */
gdc_coll_hop_t gdc_coll_price_xor_hop_after_fold(const gdc_coll_price_t *p, int dist, int halving);
/* Does a round by bits that crosses between nodes stay inside them where only the first
 * `used` participants' blocks hold anything (a vector of fewer elements than participants:
 * the groups that cross carry nothing)? */
int gdc_coll_price_xor_quiet(const gdc_coll_price_t *p, int dist, size_t used);
/* The layout's xor_fold_waiting (returned, 0: none) and xor_fold_crossing (in *crossing)
 * for the round of partners dist apart. */
int gdc_coll_price_xor_fold_queue(const gdc_coll_price_t *p, int dist, int *crossing);
/* The fold of a non-power of two: rank 2j hands its data to 2j + 1. */
gdc_coll_hop_t gdc_coll_price_fold_hop(const gdc_coll_price_t *p);
/* Does every rank of every node send off it in a rotation by dist? (when only some do, a
 * rank waiting for one of them can take the news by way of the others) */
int gdc_coll_price_shift_full(const gdc_coll_price_t *p, int dist);

/* A message from the sender's step to the receiver's completion. */
double gdc_coll_price_msg(const gdc_coll_price_t *p, gdc_coll_hop_t h, double bytes);
double gdc_coll_price_reduce(const gdc_coll_price_t *p, double bytes);
double gdc_coll_price_copy(const gdc_coll_price_t *p, double bytes);
/* ... out of a peer's shared memory (its lines from the core that wrote them) */
double gdc_coll_price_copy_peer(const gdc_coll_price_t *p, double bytes);
/* ... into one's own shared memory, for peers to read (its lines taken back from their caches) */
double gdc_coll_price_copy_shared(const gdc_coll_price_t *p, double bytes);
/* A reduction with one operand out of a peer's shared memory. */
double gdc_coll_price_reduce_peer(const gdc_coll_price_t *p, double bytes);
/* A copy from or into another process's buffer (cross-memory attach). */
double gdc_coll_price_cma(const gdc_coll_price_t *p, double bytes);

/* R rounds of C chunks: each chunk takes `item` of the bottleneck per round, `hop` to get
 * from one round to the next. */
double gdc_coll_price_pipeline(double rounds, double chunks, double item, double hop);
/* A pipelined ring over all ranks: reduce_rounds of a reduce-scatter (each received chunk
 * reduced), then gather_rounds of an allgather, over blocks of block_bytes in chunks; fill is
 * the share of blocks that are not empty (count < ranks leaves some empty: all but the
 * first count); block j is reduced at, or gathered from, rank first_owner + j. */
typedef struct gdc_coll_ring {
    int    reduce_rounds;
    int    gather_rounds;
    double block_bytes;
    int    chunks;
    double fill;
    int    first_owner;
} gdc_coll_ring_t;

double gdc_coll_price_ring(const gdc_coll_price_t *p, const gdc_coll_ring_t *ring);
/* The most non-empty blocks whose ways the ring prices follow one by one: with more, the
 * average way is taken. */
#define GDC_COLL_RING_SPARSE_BLOCKS 64
/* The hops between nodes on the way of the block that a ring over all ranks reduces at
 * `owner` (reduces), or that its allgather takes from there: every link of the ring but
 * the one out of the owner, or into it. */
int gdc_coll_price_ring_way_crossings(const gdc_coll_price_t *p, int owner, int reduces);
/* A pipelined chain r -> r+1 -> ... of hops links: chunks of bytes / chunks, every rank
 * forwarding each once. */
double gdc_coll_price_chain(const gdc_coll_price_t *p, int hops, int chunks, double bytes);
/* The builders' chunk count (gdc_coll_chunks) for bytes in a pipeline of `rounds` messages. */
int gdc_coll_price_chunks(const gdc_coll_price_t *p, int across, double bytes, int rounds);
/* The same for the blocks of a ring (gdc_coll_ring_chunk_count). */
int gdc_coll_price_ring_chunks(const gdc_coll_price_t *p, int across, double block_bytes, int rounds);

/* Phases over a group of g ranks whose every message takes hop h: a pipelined ring
 * (reduce-scatter rounds, then allgather rounds), recursive doubling (reducing or not), the
 * group allreduce of phase/allreduce.c (recursive doubling or a ring by size), a k-nomial
 * tree reduce, phase/bcast.c's pipelined broadcast (chain or tree by its chunks), the
 * recursive-doubling (or ring) allgather of a total, a dissemination barrier. */
double gdc_coll_price_group_ring(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double block_bytes, int chunks,
                                 int rs_rounds, int ag_rounds);
/* ... of blocks of different sizes: the largest's wave round the ring, the mean's pace
 * through each link. */
double gdc_coll_price_group_ring_uneven(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double most_bytes,
                                        double mean_bytes, int chunks, int rs_rounds, int ag_rounds);
double gdc_coll_price_group_rd(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int reduces);
double gdc_coll_price_group_allreduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int across,
                                      uint32_t slots);
/* How long that group allreduce keeps each rank's link busy: what one more of it adds where
 * it overlaps another on the same links (its latencies hide behind the other's bytes). */
double gdc_coll_price_group_allreduce_stream(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                             uint32_t slots);
/* Before that stream, on a group of a rank a node that folds: the extra's vector in, ahead
 * of the first round's sends (0 where the folds come in behind the rounds and the stream
 * counts them whole). */
double gdc_coll_price_group_allreduce_fill(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                           uint32_t slots);
/* Off a power of two, with an odd count of extras: the last participant that waits for an
 * extra has a partner that does not, whose first message takes its NIC before the
 * extra's vector where the partner's node is done with what comes before `lead` sooner
 * (the extras are the first nodes, the largest). What that adds to the group's allreduce
 * (gdc_coll_price_group_allreduce, recursive doubling). */
double gdc_coll_price_group_fold_queue(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                       uint32_t slots, double lead);
double gdc_coll_price_group_tree_reduce(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, int radix, double bytes);
/* The slowest way of one message of `bytes` down a binomial tree over g ranks; the empty
 * messages of a k-nomial fan-in (a barrier's). */
double gdc_coll_price_group_tree_way(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes);
/* ... of the way to a member `hops` hops down it (the slowest: the most bits of g - 1). */
double gdc_coll_price_group_tree_way_of(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes);
double gdc_coll_price_group_fanin(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, int radix);
/* What the broadcast's root sends, the time it takes further segments to follow. */
double gdc_coll_price_group_bcast_stream(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int chunks);
/* The same where a member takes in `shared` such broadcasts on one NIC (a rank of a smaller
 * node, on several rails) and passes each on. */
double gdc_coll_price_group_bcast_stream_shared(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes,
                                                int chunks, int shared);
double gdc_coll_price_group_bcast(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, double bytes, int chunks);
/* ... until a member `hops` hops down its tree has it (a chain's: the last member). */
double gdc_coll_price_group_bcast_to(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes,
                                     int chunks);
/* One chunk's way through that broadcast (a chain's or a tree's, as its chunks choose) to a
 * member `hops` hops down (-1: the farthest). */
double gdc_coll_price_group_bcast_chunk(const gdc_coll_price_t *p, int g, int hops, gdc_coll_hop_t h, double bytes,
                                        int chunks);
/* Shares of `total` from each of g members, of `largest` and `smallest` bytes at most and
 * at least (0: even shares); off a power of two, the fold's messages on `fold` (between the
 * members that fold), the rounds' on h. */
double gdc_coll_price_group_allgather(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h, gdc_coll_hop_t fold,
                                      double total, double largest, double smallest, int across);
double gdc_coll_price_group_dissemination(const gdc_coll_price_t *p, int g, gdc_coll_hop_t h);

/* A tree's slowest way (price.h), each transfer `unit` bytes. */
double gdc_coll_price_tree(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind, double unit);
/* The layout's rails_ways[regime] at the call's costs, a transfer `part` bytes (0: none
 * kept), and in *local the ranks of the node it ends at. */
double gdc_coll_price_rails_way(const gdc_coll_price_t *p, int regime, double part, int *local);
/* What the tree's busiest NIC carries after its first transfer of `unit` bytes (0: none
 * queue there). */
double gdc_coll_price_tree_nic_queue(const gdc_coll_price_t *p, gdc_coll_tree_kind_t kind, double unit);

/* Recursive doubling over g ranks folded to a power of two: what handing the result back to
 * the extras (a message of `out`) adds after a last round of `last`, whose transfer it waits
 * behind (`queued`) when they take the same link. */
double gdc_coll_price_fold_out(int g, double o, double last, double out, double queued);

/* A small call walked rank by rank (price_walk.c): each rank's steps in order (its
 * program, gdc_coll_walk_program_t, adds them to a list with gdc_coll_walk_add), its
 * messages booked on their links in the order they leave, as the simulator books them. A
 * send leaves once the steps before it are done and its rank's CPU is free; a receive is
 * done a step after its message is in; a local step takes its cost of the CPU. A step
 * waits for the one before it, but for a send, whose delivery it waits for only where the
 * send `waits`. Up to GDC_COLL_WALK_RANKS ranks. 1 with
 * the time the last step ends in *seconds; 0 where the walk could not keep its links'
 * queues (the caller prices in closed form). */
#define GDC_COLL_WALK_RANKS 128
#define GDC_COLL_WALK_STEPS 40

typedef enum {
    GDC_COLL_WALK_SEND,
    GDC_COLL_WALK_RECV,
    GDC_COLL_WALK_LOCAL,
    GDC_COLL_WALK_JOIN_SENT /* waits for the rank's sends so far to be in; its receives from
                               here on are posted then (a phase that rewrites what it sent) */
} gdc_coll_walk_kind_t;

typedef struct gdc_coll_walk_op {
    double  amount; /* send: bytes; local: seconds */
    int32_t peer;   /* send, receive */
    int16_t kind;   /* gdc_coll_walk_kind_t */
    int16_t waits;  /* send: the next step waits for its delivery */
    int32_t after;  /* send: an earlier send whose delivery it waits for (its step; -1: none) */
} gdc_coll_walk_op_t;

typedef struct gdc_coll_walk_list {
    gdc_coll_walk_op_t *op;
    int                 n, most; /* most: room for that many */
} gdc_coll_walk_list_t;

typedef void (*gdc_coll_walk_program_t)(const gdc_coll_price_t *p, const void *arg, int rank,
                                        gdc_coll_walk_list_t *steps);

void gdc_coll_walk_add(gdc_coll_walk_list_t *list, gdc_coll_walk_kind_t kind, int peer, double amount, int waits);
/* A send that also waits for the delivery of the rank's earlier send at step `after`. */
void gdc_coll_walk_send_after(gdc_coll_walk_list_t *list, int peer, double bytes, int after);
/* Programs of up to `steps` steps a rank (GDC_COLL_WALK_STEPS for most). */
int  gdc_coll_price_walk(const gdc_coll_price_t *p, gdc_coll_walk_program_t program, const void *arg, int steps,
                         double *seconds);

int gdc_coll_price_log2(int n); /* ceil */
int gdc_coll_price_pof2(int n); /* the largest power of two <= n */

#endif
