/* What algorithm builders share: the schedule they build, chunking and rank arithmetic. */
#ifndef GDC_COLL_BUILDER_H
#define GDC_COLL_BUILDER_H

#include "engine/sched.h"

/* Slots available for the messages between one pair of ranks in one collective (the tag
 * field is 12 bits); builders keep their slot numbers below it. */
#define GDC_COLL_MAX_SLOTS 4096u

/* Where a phase's messages go: inside a node, or between nodes. */
enum { GDC_COLL_IN_NODE = 0, GDC_COLL_ACROSS_NODES = 1 };

/* A flat algorithm's messages: across nodes when its ranks span several. */
static inline int gdc_coll_flat_across(const gdc_coll_args_t *args)
{
    return args->node_of != NULL && args->num_nodes > 1 ? GDC_COLL_ACROSS_NODES : GDC_COLL_IN_NODE;
}

/* The pipelining unit of a phase inside a node or across nodes. */
size_t gdc_coll_chunk_bytes(const gdc_coll_args_t *args, int across);

/* How many chunks to cut `bytes` into for a pipeline of `rounds` messages per pair, so that
 * every chunk is at most the phase's chunk size and rounds * chunks stays within the slots. */
int gdc_coll_chunks(const gdc_coll_args_t *args, int across, size_t bytes, int rounds);

/* Largest power of two <= n. */
static inline int gdc_coll_pof2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n) {
        p *= 2;
    }
    return p;
}

/*
 * A group of the communicator's ranks that a phase runs over (the whole communicator, the
 * ranks of one node, the node leaders, ...): phases number their peers 0..size-1 in the group
 * and the group maps them to communicator ranks.
 */
typedef struct gdc_coll_group {
    int        size;
    int        me;    /* my index in the group */
    const int *ranks; /* [size] communicator ranks; NULL: index i is rank i */
} gdc_coll_group_t;

static inline gdc_coll_group_t gdc_coll_group_all(const gdc_coll_args_t *args)
{
    gdc_coll_group_t g = {args->size, args->rank, NULL};
    return g;
}

static inline int gdc_coll_group_rank(const gdc_coll_group_t *g, int i)
{
    return g->ranks != NULL ? g->ranks[i] : i;
}

/*
 * Non-powers of two for the recursive algorithms: with p the largest power of two <= n
 * and rem = n - p, ranks below 2*rem pair up; the even one of each pair (an "extra") hands
 * its data to the odd one and waits, the odd ones and the ranks from 2*rem on are the p
 * participants, numbered 0..p-1.
 */
typedef struct gdc_coll_fold {
    int p;
    int rem;
    int newrank; /* -1 for an extra */
} gdc_coll_fold_t;

static inline gdc_coll_fold_t gdc_coll_fold(int n, int rank)
{
    gdc_coll_fold_t f;

    f.p       = gdc_coll_pof2_floor(n);
    f.rem     = n - f.p;
    f.newrank = rank < 2 * f.rem ? (rank % 2 ? rank / 2 : -1) : rank - f.rem;
    return f;
}

/* The real rank of participant newrank. */
static inline int gdc_coll_fold_real(const gdc_coll_fold_t *f, int newrank)
{
    return newrank < f->rem ? 2 * newrank + 1 : newrank + f->rem;
}

/* The first real rank whose data participant newrank holds (participants in order hold
 * consecutive ranks: 2j and 2j+1 for j < rem, j + rem after). */
static inline int gdc_coll_fold_first(const gdc_coll_fold_t *f, int newrank)
{
    return newrank < f->rem ? 2 * newrank : newrank + f->rem;
}

#endif
