#include "algos.h"

#include "hier/common.h"

#include <math.h>
#include <stdlib.h>

#include "builder.h"
#include "gdc_rt.h"
#include "select/price.h"

/* n segments, or fewer: four units per rank of a `width`-rank phase in each at least, at
 * most GDC_COLL_HIER_MAX_SEGMENTS, slots_needed slots for each. */
static int fit_segments(const gdc_coll_args_t *args, int width, uint32_t slots_needed, size_t n)
{
    size_t bytes = args->count * args->dsize;
    size_t unit  = gdc_coll_chunk_bytes(args, GDC_COLL_ACROSS_NODES);
    size_t most  = bytes / (4 * unit * (size_t)(width > 1 ? width : 1));

    n = n < most ? n : most;
    n = n < 1 ? 1 : n > GDC_COLL_HIER_MAX_SEGMENTS ? GDC_COLL_HIER_MAX_SEGMENTS : n;
    while (n > 1 && GDC_COLL_MAX_SLOTS / n < slots_needed) {
        n--;
    }
    return (int)n;
}

int gdc_coll_hier_num_segments(const gdc_coll_args_t *args, int width, uint32_t slots_needed)
{
    size_t bytes   = args->count * args->dsize;
    size_t unit    = gdc_coll_chunk_bytes(args, GDC_COLL_ACROSS_NODES);
    size_t w       = (size_t)(width > 1 ? width : 1);
    /* Segments overlap the phases: the first segment's phases inside the nodes are paid
     * alone (their work over the segment count, about the network's: 2 bytes / width),
     * and every segment's phase among nodes pays its rounds' latency again (each worth a
     * quarter of the unit). Their sum is least at the square root of the ratio. */
    int    k       = args->num_nodes > 1 ? args->num_nodes : 2;
    double rounds  = gdc_coll_group_halving_fits(k, GDC_COLL_MAX_SLOTS) ? 2 * (31 - __builtin_clz((unsigned)k))
                                                                          : 2 * (k - 1);

    return fit_segments(args, width, slots_needed,
                        (size_t)sqrt(2.0 * (double)bytes / (double)w / (rounds * (double)unit / 4)));
}

int gdc_coll_hier_num_segments_overlapped(const gdc_coll_args_t *args, int width, uint32_t slots_needed)
{
    return fit_segments(args, width, slots_needed, GDC_COLL_HIER_MAX_SEGMENTS);
}

gdc_status_t gdc_coll_hier_segmented(gdc_coll_sched_t *sched, int segments, size_t count, gdc_coll_hier_seg_fn_t fn,
                                     void *ctx)
{
    size_t   scratch = 0;
    int      gate    = -1;
    uint32_t slots   = GDC_COLL_MAX_SLOTS / (uint32_t)segments;

    for (int s = 0; s < segments; s++) {
        gdc_coll_hier_seg_t seg = {
            .index = s, .offset = gdc_coll_block_offset(count, segments, s),
            .count = gdc_coll_block_count(count, segments, s), .slot_base = (uint32_t)s * slots, .slots = slots,
            .scratch_base = scratch,
        };
        uint32_t first = sched->num_steps;
        size_t   used  = 0;
        int      next  = -1;
        gdc_status_t status;

        if (seg.count == 0) {
            continue;
        }
        if ((status = fn(sched, ctx, &seg, &used, &next)) != GDC_SUCCESS) {
            return status;
        }
        gdc_coll_after_range(sched, first, gate);
        gate = next >= 0 ? next : gate;
        scratch += used;
    }
    gdc_coll_scratch(sched, scratch);
    return sched->status;
}

int gdc_coll_rails_owner(int blocks, int local, int b)
{
    int base = blocks / local, extra = blocks % local;

    /* the first `extra` ranks own base + 1 blocks */
    return b < extra * (base + 1) ? b / (base + 1) : extra + (b - extra * (base + 1)) / base;
}

void gdc_coll_rails_bounds(const gdc_coll_nodes_t *nodes, int blocks, size_t count, size_t *bounds)
{
    for (int i = 0; i <= nodes->local.size; i++) {
        bounds[i] = gdc_coll_block_offset(count, blocks, gdc_coll_rails_first(blocks, nodes->local.size, i));
    }
}

gdc_coll_group_t gdc_coll_rails_group(const gdc_coll_nodes_t *nodes, int blocks, int b, int *ranks)
{
    gdc_coll_group_t rail = {nodes->num_nodes, nodes->my_node, ranks};

    for (int d = 0; d < nodes->num_nodes; d++) {
        ranks[d] = gdc_coll_nodes_member(nodes, d, gdc_coll_rails_owner(blocks, gdc_coll_nodes_size(nodes, d), b));
    }
    return rail;
}

uint32_t gdc_coll_rails_slots(int max_local, uint32_t per_rail)
{
    uint32_t rings = (uint32_t)(2 * (max_local - 1)), rails = (uint32_t)max_local * per_rail;

    return rings > rails ? rings : rails;
}

int gdc_coll_rails_fit(const gdc_coll_args_t *args, uint32_t per_rail)
{
    int *ranks, most = 0, ok;

    if (!gdc_coll_hier_supports(args)) {
        return 0;
    }
    if (args->layout != NULL) { /* counted once for the communicator: a choice stays O(1) */
        return gdc_coll_rails_slots(args->layout->max_local, per_rail) <= GDC_COLL_MAX_SLOTS;
    }
    ranks = calloc((size_t)args->num_nodes, sizeof(int));
    if (ranks == NULL) {
        return 0;
    }
    for (int r = 0; r < args->size; r++) {
        most = ++ranks[args->node_of[r]] > most ? ranks[args->node_of[r]] : most;
    }
    ok = gdc_coll_rails_slots(most, per_rail) <= GDC_COLL_MAX_SLOTS;
    free(ranks);
    return ok;
}

/* More than one node, and few enough that the phases' slots fit. */
int gdc_coll_hier_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_spans_nodes(args) && args->num_nodes <= (int)GDC_COLL_MAX_SLOTS / 2;
}
