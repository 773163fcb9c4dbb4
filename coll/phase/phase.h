/*
 * Phases over a group of ranks that the hierarchical algorithms compose (inside a node,
 * among node leaders, along a rail): an allreduce (recursive doubling or ring, by size), a
 * pipelined tree broadcast, a recursive-doubling allgatherv, a dissemination barrier and a
 * tree fan-in; and the glue that orders one phase after another.
 *
 * Phases take regions, not buffers: a phase reads and writes only what it is given (and
 * its own scratch from scratch_base), so a builder can run several of them on the parts of
 * one vector. Slot numbers: a phase uses [slot_base, slot_base + what it says).
 */
#ifndef GDC_COLL_PHASE_H
#define GDC_COLL_PHASE_H

#include "builder.h"
#include "phase/ring.h"

/* Make every step appended from index `first` on wait for dep (dep < 0: nothing). The way
 * to start a phase after another one without threading dependencies through it. */
void gdc_coll_after_range(gdc_coll_sched_t *sched, uint32_t first, int dep);

/* A step that completes when every step appended from `first` on has; `dep` when there is
 * none. The end of a phase, reads included: what follows may overwrite what it read. */
int gdc_coll_join_range(gdc_coll_sched_t *sched, uint32_t first, int dep);

/*
 * Allreduce of `in` into `out` (the same length; the same region for in place) over a
 * group: recursive doubling (whole vector, log2 rounds; non-powers of two fold in) when the
 * vector is small or the group has two ranks, else a pipelined ring (reduce-scatter then
 * allgather). Every rank of the group ends with the same bits. A group of one copies.
 */
typedef struct gdc_coll_group_allreduce {
    gdc_coll_group_t  group;
    gdc_coll_region_t in, out;
    uint32_t          slot_base;
    uint32_t          slots;        /* slots it may use (at least gdc_coll_group_allreduce_min_slots) */
    size_t            scratch_base; /* bytes */
    int               avg;          /* finish with GDC_AVG's division by the communicator size */
    int               across;       /* the group's messages cross nodes (GDC_COLL_ACROSS_NODES) */
    int               done;         /* out: the step after which out holds the result (-1: none) */
    size_t            scratch_used; /* out: bytes from scratch_base */
} gdc_coll_group_allreduce_t;

uint32_t gdc_coll_group_allreduce_min_slots(int n);
void     gdc_coll_group_allreduce(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar);

/* Does the group allreduce take recursive halving and doubling for a large vector (a power of
 * two of 8 ranks or more, the slots for 2 log2(n) rounds)? */
int gdc_coll_group_halving_fits(int n, uint32_t slots);

/* The recursive-doubling allreduce alone (ar->slots >= its log2 rounds + 2). */
void gdc_coll_rd_allreduce(gdc_coll_sched_t *sched, gdc_coll_group_allreduce_t *ar);

/*
 * Broadcast of `region` from group index root, cut into `chunks` pieces that each go down
 * a k-nomial tree (slot slot_base + c), so that a deep tree pipelines; radix 0 chooses: a
 * chain (every rank forwards each chunk once: the bandwidth shape) when there are chunks
 * enough to fill it sooner than a binomial tree's root sends them all, else the tree. Chunk c's sends at
 * the root wait for root_deps[c] (or root_dep when root_deps is NULL); every receive waits
 * for recv_dep. have[c] (optional, [chunks]) gets the step after which chunk c is here.
 */
typedef struct gdc_coll_pipe_bcast {
    gdc_coll_group_t  group;
    int               radix;        /* 0: chain or binomial by the chunks */
    int               root;
    gdc_coll_region_t region;
    int               chunks;
    uint32_t          slot_base;
    const int        *root_deps;
    int               root_dep;
    int               recv_dep;
    int              *have;
} gdc_coll_pipe_bcast_t;

void gdc_coll_pipe_bcast(gdc_coll_sched_t *sched, const gdc_coll_pipe_bcast_t *pb);
/* Whether gdc_coll_pipe_bcast (radix 0) takes each chunk down a chain of the group's n
 * ranks rather than a binomial tree: where its chunks fill the chain sooner than the
 * tree's root sends them. */
int  gdc_coll_pipe_bcast_chains(int n, int chunks);

/*
 * Recursive-doubling allgather of the blocks of vec over a group (group index i owns block
 * i): log2 rounds for powers of two, non-powers fold in (2 more). Blocks may differ in size
 * (vec->bounds). A participant's block is in place in vec after `dep`; an extra's is read
 * from *own (NULL: its place in vec). Receives go only where nothing was before: they wait
 * for nothing. Slots: log2 rounds + 2. Returns the step after which every block is here.
 */
int gdc_coll_rd_allgatherv(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, const gdc_coll_vec_t *vec,
                           const gdc_coll_region_t *own, uint32_t slot_base, int dep);

/* Dissemination barrier over a group: ceil(log2 n) rounds of empty messages from slot_base.
 * Returns the last receive (dep for a group of one). */
int gdc_coll_dissemination(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, uint32_t slot_base, int dep);

/* Fan-in of empty messages up a k-nomial tree to group index root (slot `slot`): returns the
 * step after which this rank's subtree has all arrived (at the root: everyone); *send is
 * the message to the parent (-1 at the root). */
int gdc_coll_tree_fanin(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, int radix, int root, uint32_t slot,
                        int *send);

#endif
