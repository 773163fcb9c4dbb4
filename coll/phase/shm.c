#include "algos.h"

#include "phase/shm.h"

#include <stdlib.h>

#include "gdc_rt.h"

int gdc_coll_shm_supports(const gdc_coll_args_t *args)
{
    return args->shm_bytes > 0 && !args->on_device && args->size > 1 &&
           (args->node_of == NULL || args->num_nodes == 1);
}

int gdc_coll_cma_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_shm_supports(args) && args->shm_cma;
}

static int wait_all_back(gdc_coll_sched_t *sched, int counter, uint32_t value, uint32_t back, int dep)
{
    int  n     = sched->args.size;
    int *waits = malloc((size_t)n * sizeof(int));
    int  num   = 0, joined;

    if (waits == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return -1;
    }
    for (int p = 0; p < n; p++) {
        if (p != sched->args.rank) {
            waits[num++] = gdc_coll_wait_back(sched, p, counter, value, back, dep);
        }
    }
    joined = num == 1 ? waits[0] : gdc_coll_join(sched, waits, num);
    free(waits);
    return joined;
}

size_t gdc_coll_shm_chunk_elems(const gdc_coll_args_t *args, size_t slots_per_chunk)
{
    size_t fit   = args->shm_bytes / 2 / slots_per_chunk / args->dsize;
    size_t cache = args->config->shm_chunk_bytes / args->dsize;
    size_t elems = fit < cache ? fit : cache;

    return elems > 0 ? elems : 1;
}

size_t gdc_coll_shm_allreduce_chunk_elems(const gdc_coll_args_t *args)
{
    return gdc_coll_shm_chunk_elems(args, (size_t)args->size + 1) * (size_t)args->size;
}

int gdc_coll_shm_wait_all(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep)
{
    return wait_all_back(sched, counter, value, 0, dep);
}

int gdc_coll_shm_in_ring(size_t bytes)
{
    return bytes <= GDC_RT_SHM_RING_SLOT_BYTES;
}

gdc_coll_region_t gdc_coll_shm_place(int owner, int me, int ring, size_t offset, size_t length)
{
    return ring ? gdc_coll_rgn_ring(owner, me, offset, length) : gdc_coll_rgn_shm(owner, me, offset, length);
}

int gdc_coll_shm_reduce_places(gdc_coll_sched_t *sched, gdc_coll_region_t out, int ring, size_t offset, int dep,
                               int also)
{
    int    me  = sched->args.rank;
    size_t len = out.length;
    int    last;

    last = gdc_coll_reduce(sched, out, gdc_coll_shm_place(0, me, ring, offset, len),
                           gdc_coll_shm_place(1, me, ring, offset, len), dep);
    gdc_coll_after(sched, last, also);
    for (int p = 2; p < sched->args.size; p++) {
        last = gdc_coll_reduce(sched, out, out, gdc_coll_shm_place(p, me, ring, offset, len), last);
    }
    return sched->args.op == GDC_AVG ? gdc_coll_avg(sched, out, last) : last;
}

int gdc_coll_shm_wait_free(gdc_coll_sched_t *sched, int ring, uint32_t prior, int dep)
{
    /* DONE at the value the call a ring before ended with (its first + 1) */
    return ring ? wait_all_back(sched, GDC_COLL_SHM_DONE, 1, GDC_RT_SHM_RING_SLOTS, dep)
                : wait_all_back(sched, GDC_COLL_SHM_DONE, prior, 0, dep);
}
