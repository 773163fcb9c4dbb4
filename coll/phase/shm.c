#include "algos.h"

#include "phase/shm.h"

#include <stdlib.h>

#include "gdc_rt.h"

int gdc_coll_shm_supports(const gdc_coll_args_t *args)
{
    return args->shm_bytes > 0 && !args->on_device && args->size > 1 &&
           (args->node_of == NULL || args->num_nodes == 1);
}

int gdc_coll_shm_wait_all(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep)
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
            waits[num++] = gdc_coll_wait(sched, p, counter, value, dep);
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

