/* What the blocking fast paths share (see fast.h). */
#include "engine/fast.h"

#include <string.h>

#include "phase/shm.h"

gdc_status_t gdc_coll_fast_collect(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output,
                                   gdc_coll_fast_place_t from, gdc_coll_fast_place_t to)
{
    const gdc_rt_shm_t *shm   = fast->shm;
    size_t              bytes = args->count * args->dsize;
    gdc_status_t        status;

    for (int p = 0; p < shm->local_size; p++) {
        if (p == shm->local_index) {
            continue;
        }
        if ((status = fast->wait(fast, GDC_COLL_SHM_COPIED, fast->base + 1, p)) != GDC_SUCCESS) {
            return status;
        }
        memcpy((char *)output + to(args, p), (char *)gdc_rt_shm_data(shm, p) + from(args, p), bytes);
    }
    return GDC_SUCCESS;
}

void gdc_coll_fast_publish(const gdc_coll_fast_t *fast)
{
    gdc_rt_shm_raise(gdc_rt_shm_counter(fast->shm, fast->shm->local_index, GDC_COLL_SHM_COPIED), fast->base + 1);
}

void gdc_coll_fast_finish(const gdc_coll_fast_t *fast)
{
    gdc_rt_shm_raise_all(fast->shm, fast->base + 1);
}
