/*
 * reduce_scatter ring: the pipelined ring reduce-scatter, n-1 rounds of one block; rank r
 * ends with block r. Partial results live in scratch. In place, the output (the start of
 * the receive buffer) is also input block 0: the result is finished in scratch and copied
 * out once the ring has read everything.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/ring.h"

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ring)
{
    int            n       = args->size;
    size_t         total   = args->count * (size_t)n;
    size_t         vbytes  = total * args->dsize;
    gdc_coll_vec_t input   = {GDC_COLL_INPUT, 0, total, n, NULL};
    gdc_coll_vec_t partial = {GDC_COLL_SCRATCH, 0, total, n, NULL};
    int            chunks  = gdc_coll_ring_chunks(sched, &input, n - 1, gdc_coll_flat_across(args));
    int           *done    = malloc((size_t)chunks * sizeof(int));
    int           *sends   = malloc((size_t)(n - 1) * (size_t)chunks * sizeof(int));
    size_t         used;

    if (done == NULL || sends == NULL) {
        free(done);
        free(sends);
        return GDC_ERR_NO_MEMORY;
    }
    {
        gdc_coll_ring_rs_t rs = {
            .group = gdc_coll_group_all(args), .owned = args->rank, .chunks = chunks, .slot_base = 0, .input = input, .partial = partial,
            .result_buf  = args->in_place ? GDC_COLL_SCRATCH : GDC_COLL_OUTPUT,
            .result_base = args->in_place ? args->count * (size_t)args->rank : 0,
            .scratch_base = vbytes, .avg = args->op == GDC_AVG, .done = done, .sends = sends,
        };
        used = gdc_coll_ring_reduce_scatter(sched, &rs);
    }
    gdc_coll_scratch(sched, vbytes + used);
    if (args->in_place) {
        int all = gdc_coll_join(sched, done, chunks);
        for (int i = 0; i < (n - 1) * chunks; i++) {
            gdc_coll_after(sched, all, sends[i]);
        }
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count),
                      gdc_coll_rgn(sched, GDC_COLL_SCRATCH, args->count * (size_t)args->rank, args->count), all);
    }
    free(done);
    free(sends);
    return GDC_SUCCESS;
}
