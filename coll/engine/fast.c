/* What the blocking fast paths share (see fast.h). */
#include "engine/fast.h"

#include <string.h>

#include "kernels/reduce.h"
#include "phase/shm.h"

void *gdc_coll_fast_place(const gdc_coll_fast_t *fast, int owner, int ring)
{
    return ring ? gdc_rt_shm_ring_slot(fast->shm, owner, fast->base) : gdc_rt_shm_data(fast->shm, owner);
}

gdc_status_t gdc_coll_fast_wait_free(const gdc_coll_fast_t *fast, int ring)
{
    if (!ring) {
        return fast->wait(fast, GDC_COLL_SHM_DONE, fast->base, -1);
    }
    if (fast->base + 1 <= GDC_RT_SHM_RING_SLOTS) {
        return GDC_SUCCESS; /* no call a ring before */
    }
    return fast->wait(fast, GDC_COLL_SHM_DONE, fast->base + 1 - GDC_RT_SHM_RING_SLOTS, -1);
}

gdc_status_t gdc_coll_fast_share_all(const gdc_coll_fast_t *fast, const void *input, size_t bytes, int ring)
{
    gdc_status_t status = gdc_coll_fast_wait_free(fast, ring);

    if (status != GDC_SUCCESS) {
        return status;
    }
    memcpy(gdc_coll_fast_place(fast, fast->shm->local_index, ring), input, bytes);
    gdc_coll_fast_publish(fast, ring);
    return gdc_coll_fast_wait_published(fast, -1, ring);
}

void gdc_coll_fast_reduce_places(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                 size_t offset)
{
    gdc_coll_reduce_host(output, (const char *)gdc_coll_fast_place(fast, 0, ring) + offset,
                         (const char *)gdc_coll_fast_place(fast, 1, ring) + offset, args->count, args->dtype,
                         args->op);
    for (int p = 2; p < fast->shm->local_size; p++) {
        gdc_coll_reduce_host(output, output, (const char *)gdc_coll_fast_place(fast, p, ring) + offset, args->count,
                             args->dtype, args->op);
    }
    if (args->op == GDC_AVG) {
        gdc_coll_avg_finish_host(output, args->count, args->dtype, args->size);
    }
}

gdc_status_t gdc_coll_fast_collect(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                   gdc_coll_fast_offset_t from, gdc_coll_fast_offset_t to)
{
    const gdc_rt_shm_t *shm   = fast->shm;
    size_t              bytes = args->count * args->dsize;
    gdc_status_t        status;

    for (int p = 0; p < shm->local_size; p++) {
        if (p == shm->local_index) {
            continue;
        }
        if ((status = gdc_coll_fast_wait_published(fast, p, ring)) != GDC_SUCCESS) {
            return status;
        }
        memcpy((char *)output + to(args, p), (char *)gdc_coll_fast_place(fast, p, ring) + from(args, p), bytes);
    }
    return GDC_SUCCESS;
}

void gdc_coll_fast_publish(const gdc_coll_fast_t *fast, int ring)
{
    if (ring) {
        gdc_rt_shm_raise(gdc_rt_shm_ring_stamp(fast->shm, fast->shm->local_index, fast->base), fast->base + 1);
        return;
    }
    gdc_rt_shm_raise(gdc_rt_shm_counter(fast->shm, fast->shm->local_index, GDC_COLL_SHM_COPIED), fast->base + 1);
}

gdc_status_t gdc_coll_fast_wait_published(const gdc_coll_fast_t *fast, int peer, int ring)
{
    return fast->wait(fast, ring ? GDC_COLL_FAST_PUBLISHED : GDC_COLL_SHM_COPIED, fast->base + 1, peer);
}

int gdc_coll_fast_reached(const gdc_coll_fast_t *fast, int peer, int counter, uint64_t target, unsigned polls)
{
    if (counter == GDC_COLL_FAST_PUBLISHED) {
        /* the stamp is the call's value exactly, or an earlier call's in this slot */
        if (gdc_rt_shm_read(gdc_rt_shm_ring_stamp(fast->shm, peer, target - 1)) == target) {
            return 1;
        }
        if (polls % GDC_COLL_FAST_COPIED_POLLS != 0) {
            return 0;
        }
        counter = GDC_COLL_SHM_COPIED;
    }
    return gdc_rt_shm_reached(fast->shm, peer, counter, target);
}

void gdc_coll_fast_finish(const gdc_coll_fast_t *fast)
{
    gdc_rt_shm_raise_all(fast->shm, fast->base + 1);
}
