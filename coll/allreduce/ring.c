/*
 * allreduce ring: a pipelined ring reduce-scatter leaves rank r with block r+1 fully
 * reduced, then a pipelined ring allgather passes every block around. 2(n-1) rounds, each
 * moving count/n elements: bandwidth-optimal, latency 2(n-1) messages.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/ring.h"

GDC_COLL_BUILDER(gdc_coll_allreduce_ring)
{
    int            n      = args->size;
    int            owned  = (args->rank + 1) % n;
    gdc_coll_vec_t input  = {GDC_COLL_INPUT, 0, args->count, n, NULL};
    gdc_coll_vec_t output = {GDC_COLL_OUTPUT, 0, args->count, n, NULL};
    int            chunks = gdc_coll_ring_chunks(sched, &input, 2 * (n - 1), gdc_coll_flat_across(args));
    int           *done   = malloc((size_t)chunks * sizeof(int));
    int           *sends  = malloc((size_t)(n - 1) * (size_t)chunks * sizeof(int));
    gdc_coll_ring_rs_t rs = {
        .group = gdc_coll_group_all(args), .owned = owned, .chunks = chunks, .slot_base = 0, .input = input, .partial = output,
        .result_buf = GDC_COLL_OUTPUT, .result_base = gdc_coll_block_offset(args->count, n, owned),
        .scratch_base = 0, .avg = args->op == GDC_AVG, .done = done, .sends = sends,
    };
    gdc_coll_ring_ag_t ag = {
        .group = gdc_coll_group_all(args), .owned = owned, .chunks = chunks, .slot_base = (uint32_t)((n - 1) * chunks), .out = output,
        .first_buf = GDC_COLL_OUTPUT, .first_base = gdc_coll_block_offset(args->count, n, owned),
        .first_dep = done,
        /* round k receives into the block that round k of the reduce-scatter sent from */
        .recv_dep = sends,
    };

    if (done == NULL || sends == NULL) {
        free(done);
        free(sends);
        return GDC_ERR_NO_MEMORY;
    }
    gdc_coll_scratch(sched, gdc_coll_ring_reduce_scatter(sched, &rs));
    gdc_coll_ring_allgather(sched, &ag);
    free(done);
    free(sends);
    return GDC_SUCCESS;
}
