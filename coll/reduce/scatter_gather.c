/*
 * reduce reduce_scatter_gather: a pipelined ring reduce-scatter leaves the rank of vrank v
 * with block v reduced, then a binomial gather brings the blocks to the root. About 2
 * count elements per link: for large messages, where the binomial tree moves count log2(n).
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/ring.h"
#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_gather)
{
    int               n       = args->size;
    int               v       = gdc_coll_vrank(args->rank, args->root, n);
    int               is_root = args->rank == args->root;
    size_t            bytes   = args->count * args->dsize;
    gdc_coll_vec_t    input   = {GDC_COLL_INPUT, 0, args->count, n, NULL};
    /* partial reductions in scratch; blocks gathered at the root's output, elsewhere in the
     * same scratch vector (block v is the one this rank finishes) */
    gdc_coll_vec_t    partial = {GDC_COLL_SCRATCH, 0, args->count, n, NULL};
    gdc_coll_blocks_t blocks  = {is_root ? GDC_COLL_OUTPUT : GDC_COLL_SCRATCH, 0, args->count, n};
    int               chunks  = gdc_coll_ring_chunks(sched, &input, n - 1, gdc_coll_flat_across(args));
    int              *done    = malloc((size_t)chunks * sizeof(int));
    int              *sends   = malloc((size_t)(n - 1) * (size_t)chunks * sizeof(int));
    int               own, send;
    gdc_coll_group_t  all     = gdc_coll_group_all(args);
    size_t            used;

    if (done == NULL || sends == NULL) {
        free(done);
        free(sends);
        return GDC_ERR_NO_MEMORY;
    }
    {
        gdc_coll_ring_rs_t rs = {
            .group = gdc_coll_group_all(args), .owned = v, .chunks = chunks, .slot_base = 1, .input = input, .partial = partial,
            .result_buf = blocks.buf, .result_base = gdc_coll_block_offset(args->count, n, v),
            .scratch_base = bytes, .avg = args->op == GDC_AVG, .done = done, .sends = sends,
        };
        used = gdc_coll_ring_reduce_scatter(sched, &rs);
    }
    gdc_coll_scratch(sched, bytes + used);
    own = gdc_coll_join(sched, done, chunks);
    /* Gathered blocks land where the ring read from or kept partials (the root's output may
     * be its input, in place): only once the ring is done with those places. */
    for (int i = 0; i < (n - 1) * chunks; i++) {
        gdc_coll_after(sched, own, sends[i]);
    }
    gdc_coll_binomial_gather(sched, &all, args->root, gdc_coll_blocks_range, &blocks, 0, own, own, &send);
    free(done);
    free(sends);
    return GDC_SUCCESS;
}
