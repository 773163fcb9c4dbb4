#include "shm.h"

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
    size_t cache = gdc_coll_config.shm_chunk_bytes / args->dsize;
    size_t elems = fit < cache ? fit : cache;

    return elems > 0 ? elems : 1;
}

void gdc_coll_shm_finish(gdc_coll_sched_t *sched, uint32_t epochs)
{
    unsigned used = 0;
    uint32_t last = sched->num_steps;
    int      end;

    for (uint32_t s = 0; s < last; s++) {
        if (sched->steps[s].kind == GDC_COLL_STEP_SIGNAL) {
            used |= 1u << sched->steps[s].counter;
        }
    }
    /* after everything (every step nothing else waits for): no read of a peer's segment
     * can follow */
    {
        uint8_t *has_succ = calloc((size_t)last + 1, 1);
        if (has_succ == NULL) {
            sched->status = GDC_ERR_NO_MEMORY;
            return;
        }
        for (uint32_t e = 0; e < sched->num_edges; e++) {
            has_succ[sched->edges[e].from] = 1;
        }
        end = gdc_coll_join(sched, NULL, 0);
        for (uint32_t s = 0; s < last; s++) {
            if (!has_succ[s]) {
                gdc_coll_after(sched, end, (int)s);
            }
        }
        free(has_succ);
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, epochs, end);
    for (int c = 0; c < GDC_COLL_SHM_USED; c++) {
        if (c != GDC_COLL_SHM_DONE && !(used & (1u << c))) {
            gdc_coll_signal(sched, c, epochs, -1);
        }
    }
}
