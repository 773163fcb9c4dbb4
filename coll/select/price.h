/*
 * The fast model: the price of an algorithm for a call shape in closed form, from the same
 * machine and the same inputs the simulator (model.c) uses, at a cost that does not grow
 * with the job: each algorithm is a few phases (rings, trees, recursive doubling, pairwise
 * exchange, shared-memory pipelines), each priced from its rounds, bytes, chunks and link
 * class. The simulator stays the reference that tests hold these prices to.
 */
#ifndef GDC_COLL_PRICE_H
#define GDC_COLL_PRICE_H

#include "coll.h"
#include "select/model.h"

/* Distances 2^i the layout says how rounds between partners that far apart cross nodes. */
#define GDC_COLL_LAYOUT_DISTANCES 31

/* The trees whose slowest way the layout keeps: binomial (radix 2) and k-nomial (the
 * configured radix) broadcasts and reduces of a whole vector, binomial scatters and gathers
 * of blocks. Rooted at the layout's root (args->root where it was made). */
typedef enum {
    GDC_COLL_TREE_BCAST,
    GDC_COLL_TREE_REDUCE,
    GDC_COLL_TREE_RADIX_BCAST,
    GDC_COLL_TREE_RADIX_REDUCE,
    GDC_COLL_TREE_SCATTER,
    GDC_COLL_TREE_GATHER,
    GDC_COLL_TREE_KINDS
} gdc_coll_tree_kind_t;

#define GDC_COLL_TREE_ALL ((1u << GDC_COLL_TREE_KINDS) - 1) /* every kind (bit 1 << kind) */

#define GDC_COLL_TREE_NICS 4

/* A tree chain's way (the layout's slow chains): its hops inside nodes, and the reductions
 * on it (each message's, and those of the children its receiver reduces after it). */
typedef struct gdc_coll_chain_way {
    int inside_hops, reduces;
} gdc_coll_chain_way_t;

/* One way through a tree, from the root to a rank (broadcast, scatter) or from a rank to
 * the root (reduce, gather), in the counts its time is made of; a transfer is of the whole
 * vector, or of one block for a scatter or a gather. */
typedef struct gdc_coll_tree_path {
    int steps;                 /* step overheads */
    int out, in;               /* hops between nodes, inside a node: a latency each */
    int xfer_out, xfer_in;     /* transfers, those waited behind on the same link included */
    int queued_out, queued_in; /* transfers behind the sender's own earlier ones to its other
                                  children, overlapping its step overheads */
    int reduces;               /* reductions after the arrival, before the next hop */
    /* transfers waited behind on the NICs, other ranks' of the node at the same level, were
     * the node's NICs 1, 2, 4 or 8 */
    int shared_out[GDC_COLL_TREE_NICS];
} gdc_coll_tree_path_t;

/* Which way is the slowest depends on the machine and the size: the layout keeps the
 * slowest for each of a few regimes (gdc_coll_tree_regimes in price.c), the price takes
 * the dearest of them at its own costs. */
#define GDC_COLL_TREE_REGIMES 6
#define GDC_COLL_RAILS_REGIMES 3 /* the last three of those: several NICs a node */

/* Where the ranks of a call are, in the few numbers the prices need. */
/* A transfer between nodes takes this many of one inside a node, in the layout's slower
 * chains: between the built-in machine's 6.7 and dgx-h100's 8.1 (test_price: with 6, 8 or
 * 12, 10 to 40 prices fewer within 10% of the simulator's time). The chain found so is
 * priced at the machine's own rates. */
#define GDC_COLL_CHAIN_NIC_W 7
/* A hop's latency and its two steps, in the same chains, in transfers inside a node: about
 * one at the sizes whose NIC queues matter (dgx-h100 at 1 MiB: 5 us against 2.7; the
 * built-in machine at 64 KiB: 15 against 8.2). With 0, the chains ran ahead of the
 * simulator's ranks to their NICs, and met other queues there (bcast binomial, 1 MiB on 32
 * ranks round robin on 2 nodes of dgx-h100, at 0.89 of the simulator's time). */
#define GDC_COLL_CHAIN_HOP_W 1
/* The slower chains of the trees that go up (reduce, gather) run twice: with that
 * latency, and with a hop between nodes taking GDC_COLL_CHAIN_LATENT_W transfers inside a
 * node (small messages: the built-in machine's 15 us are 117 transfers of 1 KiB). There a
 * tree's levels reach a NIC one latency apart, not all at once: with the first run alone,
 * gather binomial of 1 KiB blocks on 64 ranks round robin on 8 nodes came out at 1.20 times
 * the simulator's time. A call takes the run nearer its own ratio (GDC_COLL_CHAIN_LATENT_FROM
 * or more: the second). The trees that go down gain nothing from it (test_price), and a
 * broadcast's layout for another root would take 40% longer. */
#define GDC_COLL_CHAIN_LATENCIES  2
#define GDC_COLL_CHAIN_LATENT_W   64
#define GDC_COLL_CHAIN_LATENT_FROM 8

typedef struct gdc_coll_layout {
    int nodes;
    int max_local;   /* ranks of the largest node */
    int min_local;   /* ranks of the smallest node */
    int largest;     /* nodes of max_local ranks */
    int smallest;    /* nodes of min_local ranks */
    /* The trees below are rooted at `root`, as are these two. */
    int root;
    int root_local;  /* ranks of the root's node */
    int root_index;  /* the root's place among them */
    int other_local; /* ranks of the largest node without the root (0 on one node) */
    /* Of the binomial tree over the nodes from the root's (node order, as the hier
     * algorithms' leaders): the ranks of the largest node h hops down it (0: none). */
    int leader_local[GDC_COLL_LAYOUT_DISTANCES + 1];
    /* In that tree, the way to a node of min_local ranks: its hops and the messages its
     * senders send to siblings before it (the farthest first); of the deepest such node,
     * and of the one with the most hops and messages ahead together (0: none). */
    int smallest_way[2][2];
    /* bcast hier_rails where some nodes have fewer ranks than the largest (B of them): each
     * of the B parts down its rail's binomial tree over the nodes, a rank of a smaller node
     * taking in several parts and passing each on to every child, one after another on its
     * NIC. The way to the last part on the slowest node (a transfer one part; the root's
     * scatter inside its node included), each rank on a NIC of its own (so kept only for
     * nodes of at most 8 ranks), per regime of a machine of several NICs, and the ranks of
     * that node (0: none kept). */
    gdc_coll_tree_path_t rails_ways[GDC_COLL_RAILS_REGIMES];
    int                  rails_way_local[GDC_COLL_RAILS_REGIMES];
    int blocks;      /* every node's ranks are consecutive */
    int ring_cross;  /* edges r -> r+1 (mod n) between two nodes */
    /* For partners 2^i apart, by bits (recursive doubling's participants, folded as the
     * builders fold a non-power of two) and by rotation ((r + 2^i) mod n): the most ranks of
     * one node whose partner is on another node (0: the round stays inside nodes; they share
     * the node's NICs). The same for the fold of a non-power of two (rank 2j hands its data
     * to 2j + 1). */
    int xor_off[GDC_COLL_LAYOUT_DISTANCES];
    int shift_off[GDC_COLL_LAYOUT_DISTANCES];
    /* By bits, the participants in groups of 2^(i+1) (those that exchange in the round of
     * partners 2^i apart): the first of the lowest group with a pair across nodes. A vector
     * of fewer elements than participants has them in its first blocks: the groups from
     * there on carry nothing (0: as if the first group crossed). */
    int xor_first_cross[GDC_COLL_LAYOUT_DISTANCES];
    /* Of a non-power of two's rounds by bits: does the round of partners 2^i apart cross
     * between nodes for a participant that the news of a fold reaches by then, rounds in
     * doubling order (1, 2, 4, ...) and in halving order (..., 4, 2, 1)? Those that waited
     * for an extra are behind the others: their way is the one to price. */
    int xor_cross_after_fold[2][GDC_COLL_LAYOUT_DISTANCES];
    /* Of the same rounds, on the nodes where a participant that waited for an extra
     * crosses between nodes in the round of partners 2^i apart: the most such participants
     * on one, and the most that cross on one (those that did not wait send while the fold
     * comes in; 0 where none waited). */
    int xor_fold_waiting[GDC_COLL_LAYOUT_DISTANCES];
    int xor_fold_crossing[GDC_COLL_LAYOUT_DISTANCES];
    /* allgather recursive_doubling's rounds by bits: a participant sends its group's blocks,
     * one more for each extra's the group holds. The most blocks one NIC of a node takes in
     * from off the node in the round of partners 2^i apart, were the node's NICs 1, 2, 4 or
     * 8 (0: none cross, or not counted); and of those alone whose sender's group held no
     * extra's block (those that did not wait for the fold). */
    int xor_gather_nic[GDC_COLL_LAYOUT_DISTANCES][GDC_COLL_TREE_NICS];
    int xor_gather_nic_plain[GDC_COLL_LAYOUT_DISTANCES][GDC_COLL_TREE_NICS];
    int fold_off;
    /* For groups of 2^i nodes in node order, aligned (recursive doubling among the nodes,
     * the rails of allgather hier_rails): the most ranks one of them holds. */
    int node_group_most[GDC_COLL_LAYOUT_DISTANCES];
    /* Of the nodes that fold where recursive doubling among the nodes is off a power of two
     * (node 2j hands its share to node 2j + 1, for j below the extras' count): the fewest
     * ranks one of them holds (0: a power of two of nodes). */
    int fold_nodes_min_local;
    /* Rotation rounds (partners 1, 2, 4, ... ahead) as a chain: a rank's round waits for its
     * partner's previous one. The most node boundaries one chain of them crosses. */
    int shift_chain_off;
    /* Each tree's slowest ways, a few regimes' worth. */
    gdc_coll_tree_path_t tree_paths[GDC_COLL_TREE_KINDS][GDC_COLL_TREE_REGIMES];
    /* Each tree's busiest NIC, sending or receiving, over the whole tree: its transfers
     * (of the vector, or blocks for a scatter or a gather), were the node's NICs 1, 2, 4 or
     * 8. The levels of a tree overlap in time, so these may queue behind each other on a
     * NIC where the ways' counts, level by level, do not see it. */
    int tree_nic_load[GDC_COLL_TREE_KINDS][GDC_COLL_TREE_NICS];
    /* Each tree's slowest chain of NIC queues through its dependencies (price.c): where a
     * message that waited on one NIC waits again on the next, more than the busiest NIC's
     * load. Its transfers and the hops between nodes on its way, were the node's NICs 1, 2,
     * 4 or 8. */
    int tree_nic_chain[GDC_COLL_TREE_KINDS][GDC_COLL_TREE_NICS];
    int tree_nic_chain_hops[GDC_COLL_TREE_KINDS][GDC_COLL_TREE_NICS];
    /* The same with the hops inside nodes taking time, each 1 / GDC_COLL_CHAIN_NIC_W of a
     * transfer between nodes, on the parent's link in turn, and every hop's latency
     * GDC_COLL_CHAIN_HOP_W (and, for the trees that go up, again with the hops between
     * nodes taking GDC_COLL_CHAIN_LATENT_W): the chain's time but that of its transfers
     * inside nodes (in those units) and its hops' latencies, its hops between nodes, its
     * transfers inside nodes and the rest of its way (the hops inside nodes, the
     * reductions). */
    int tree_slow_chain[GDC_COLL_TREE_KINDS][GDC_COLL_CHAIN_LATENCIES][GDC_COLL_TREE_NICS];
    int tree_slow_chain_hops[GDC_COLL_TREE_KINDS][GDC_COLL_CHAIN_LATENCIES][GDC_COLL_TREE_NICS];
    int tree_slow_chain_inside[GDC_COLL_TREE_KINDS][GDC_COLL_CHAIN_LATENCIES][GDC_COLL_TREE_NICS];
    gdc_coll_chain_way_t tree_slow_chain_way[GDC_COLL_TREE_KINDS][GDC_COLL_CHAIN_LATENCIES][GDC_COLL_TREE_NICS];
    /* The same for the busiest rank's own link inside a node; and for the reduce trees,
     * the reductions from the last message in on it on (at least 1). */
    int tree_link_load[GDC_COLL_TREE_KINDS];
    int tree_link_reduces[GDC_COLL_TREE_KINDS];
    /* The kinds whose trees above are made (bit 1 << kind): all of them for the
     * communicator's root, a rooted call's own for another root. */
    unsigned tree_kinds;

} gdc_coll_layout_t;

/* The layout of args's ranks: O(ranks log ranks), once per communicator. */
void gdc_coll_layout_of(const gdc_coll_args_t *args, gdc_coll_layout_t *layout);

/* Re-root a layout of the same ranks (from gdc_coll_layout_of) at args->root: its trees
 * and the root's node, O(ranks log ranks), once for each root a communicator's calls use. */
void gdc_coll_layout_root(const gdc_coll_args_t *args, gdc_coll_layout_t *layout);

/* The same with only the trees of `kinds` made (gdc_coll_tree_kinds_of: what a rooted
 * call's algorithms price), about a third of the work for a broadcast's or a reduce's. */
void gdc_coll_layout_root_kinds(const gdc_coll_args_t *args, gdc_coll_layout_t *layout, unsigned kinds);

/* The tree kinds (bit 1 << kind) that coll's prices read. */
unsigned gdc_coll_tree_kinds_of(gdc_coll_type_t coll);

/* The price of algo for args on machine m (args->on_device says where the buffers are),
 * in seconds. GDC_ERR_UNSUPPORTED for a call the closed forms do not cover (alltoallv, whose
 * counts are per rank). */
gdc_status_t gdc_coll_price(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                            const gdc_coll_layout_t *layout, double *seconds);

#endif
