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

/* Where the ranks of a call are, in the few numbers the prices need. */
typedef struct gdc_coll_layout {
    int nodes;
    int max_local;   /* ranks of the largest node */
    int min_local;   /* ranks of the smallest node */
    int blocks;      /* every node's ranks are consecutive */
    int ring_cross;  /* edges r -> r+1 (mod n) between two nodes */
    /* For partners 2^i apart, by bits (recursive doubling's participants, folded as the
     * builders fold a non-power of two), by rotation ((r + 2^i) mod n) and down a binomial
     * tree rooted at 0 (parent v, child v + 2^i): the most ranks of one node whose partner is
     * on another node (0: the round stays inside nodes; they share the node's NICs). */
    int xor_off[GDC_COLL_LAYOUT_DISTANCES];
    int shift_off[GDC_COLL_LAYOUT_DISTANCES];
    int tree_off[GDC_COLL_LAYOUT_DISTANCES];
    /* The same for a k-nomial tree of the configured radix, level by level (distance k^l),
     * and for the fold of a non-power of two (rank 2j hands its data to 2j + 1). */
    int knomial_off[GDC_COLL_LAYOUT_DISTANCES];
    int fold_off;
    /* Rotation rounds (partners 1, 2, 4, ... ahead) as a chain: a rank's round waits for its
     * partner's previous one. The most node boundaries one chain of them crosses. */
    int shift_chain_off;

} gdc_coll_layout_t;

/* The layout of args's ranks: O(ranks log ranks), once per communicator. */
void gdc_coll_layout_of(const gdc_coll_args_t *args, gdc_coll_layout_t *layout);

/* The price of algo for args on machine m (args->on_device says where the buffers are),
 * in seconds. GDC_ERR_UNSUPPORTED for a call the closed forms do not cover (alltoallv, whose
 * counts are per rank). */
gdc_status_t gdc_coll_price(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                            const gdc_coll_layout_t *layout, double *seconds);

#endif
