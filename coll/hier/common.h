/*
 * What the hierarchical algorithms share beyond the node view (hier/nodes.h): cutting a large
 * vector into segments whose phases overlap (segment s+1 works inside the nodes while
 * segment s crosses the network), the rails partition, and whether an algorithm applies.
 */
#ifndef GDC_COLL_HIER_COMMON_H
#define GDC_COLL_HIER_COMMON_H

#include "hier/nodes.h"
#include "phase/phase.h"

/* At most this many segments: enough to overlap three phases, few enough that each keeps
 * its chunks and slots. */
#define GDC_COLL_HIER_MAX_SEGMENTS 16

typedef struct gdc_coll_hier_seg {
    int      index;
    size_t   offset, count; /* elements of the vector */
    uint32_t slot_base;     /* the segment's slots: [slot_base, slot_base + slots) */
    uint32_t slots;
    size_t   scratch_base;  /* bytes */
} gdc_coll_hier_seg_t;

/* Build one segment: append its steps, say how much scratch it used from seg->scratch_base
 * and which step lets the next segment start (-1: at once). */
typedef gdc_status_t (*gdc_coll_hier_seg_fn_t)(gdc_coll_sched_t *sched, void *ctx, const gdc_coll_hier_seg_t *seg,
                                               size_t *scratch_used, int *gate);

/* How many segments a vector of args->count elements gets: as many as balance the first
 * segment's unoverlapped phases against every segment's latency among nodes, four pipeline
 * chunks per rank of a `width`-rank phase at least, at most GDC_COLL_HIER_MAX_SEGMENTS,
 * and no more than leave each segment slots_needed slots. */
int gdc_coll_hier_num_segments(const gdc_coll_args_t *args, int width, uint32_t slots_needed);
/* The same where the phases among nodes of neighbouring segments run at once on the same
 * links (every rank of a node on its own rail: the first segment's rails run while the
 * second's reduce-scatter does, and the second's join them): a further segment's latency
 * then hides behind the other's bytes, and segments cost only their chunks' steps, so
 * there are as many as the rules above allow. */
int gdc_coll_hier_num_segments_overlapped(const gdc_coll_args_t *args, int width, uint32_t slots_needed);

/* Cut count elements into `segments` segments and build each with fn, every step of one
 * after the previous segment's gate; then reserve the scratch they used. */
gdc_status_t gdc_coll_hier_segmented(gdc_coll_sched_t *sched, int segments, size_t count, gdc_coll_hier_seg_fn_t fn,
                                     void *ctx);

/* Rails: a vector cut into B blocks (B = ranks of the largest node), the L ranks of a node
 * owning consecutive blocks: rank i of the node owns [rails_first(B, L, i),
 * rails_first(B, L, i + 1)). Block b's rail is the owner of b on every node. */
static inline int gdc_coll_rails_first(int blocks, int local, int i)
{
    return (int)gdc_coll_block_offset((size_t)blocks, local, i);
}

int gdc_coll_rails_owner(int blocks, int local, int b);

/* Element bounds of my node's parts of a vector of count elements: bounds[i] is where
 * local rank i's part starts, bounds[L] = count ([L + 1] entries). */
void gdc_coll_rails_bounds(const gdc_coll_nodes_t *nodes, int blocks, size_t count, size_t *bounds);

/* Block b's rail: its owner on every node, in node order (ranks: [num_nodes]). */
gdc_coll_group_t gdc_coll_rails_group(const gdc_coll_nodes_t *nodes, int blocks, int b, int *ranks);

/* Slots one segment of a rails algorithm needs: the nodes' rings (2 (L-1)) and B rails of
 * per_rail slots each. */
uint32_t gdc_coll_rails_slots(int max_local, uint32_t per_rail);

/* Does every segment's slot range have room for it? (the supports of the rails algorithms) */
int gdc_coll_rails_fit(const gdc_coll_args_t *args, uint32_t per_rail);

/* The node's rank at local index i: the local group's i-th. */
static inline int gdc_coll_local_rank(const gdc_coll_nodes_t *nodes, int i)
{
    return gdc_coll_group_rank(&nodes->local, i);
}

#endif
