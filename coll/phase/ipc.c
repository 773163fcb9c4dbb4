#include "phase/ipc.h"

#include "kernels/reduce_cuda.h"
#include "phase/shm.h"

int gdc_coll_ipc_supports(const gdc_coll_args_t *args)
{
    return args->shm_bytes > 0 && args->shm_ipc && args->on_device && args->size > 1 &&
           (args->node_of == NULL || args->num_nodes == 1);
}

int gdc_coll_ipc_out_of_place_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_ipc_supports(args) && !args->in_place;
}

int gdc_coll_ipc_leader_supports(const gdc_coll_args_t *args)
{
    /* a kernel takes every rank's buffers at once; more processes than that on one GPU
     * would be past their memory anyway (each context holds hundreds of MiB) */
    return gdc_coll_ipc_supports(args) && args->shm_one_gpu && args->size <= GDC_COLL_CUDA_MANY_MAX;
}

int gdc_coll_ipc_leader_out_of_place_supports(const gdc_coll_args_t *args)
{
    return gdc_coll_ipc_leader_supports(args) && !args->in_place;
}

int gdc_coll_ipc_follow(gdc_coll_sched_t *sched, int leader, int *all_published)
{
    gdc_coll_cma_publish(sched);
    if (sched->args.rank != leader) {
        gdc_coll_wait(sched, leader, GDC_COLL_SHM_DONE, 1, -1);
        return 1;
    }
    sched->gpu_queue = 1;
    *all_published   = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1);
    return 0;
}

gdc_coll_region_t gdc_coll_ipc_user(const gdc_coll_sched_t *sched, gdc_coll_buf_t buf, int p, size_t at,
                                    size_t count)
{
    size_t dsize = sched->args.dsize;

    if (p == sched->args.rank) {
        return gdc_coll_rgn(sched, buf, at, count);
    }
    return gdc_coll_rgn_peer_user(buf == GDC_COLL_INPUT ? GDC_COLL_PEER_INPUT : GDC_COLL_PEER_OUTPUT, p, at * dsize,
                                  count * dsize);
}

void gdc_coll_ipc_lead_done(gdc_coll_sched_t *sched, int last)
{
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
}

void gdc_coll_ipc_lead_blocks(gdc_coll_sched_t *sched, int alltoall)
{
    const gdc_coll_args_t *args = &sched->args;
    size_t                 blk  = args->count;
    int                    last;

    if (gdc_coll_ipc_follow(sched, 0, &last)) {
        return;
    }
    for (int to = 0; to < args->size; to++) {
        for (int from = 0; from < args->size; from++) {
            if (args->in_place && from == to) {
                continue;
            }
            last = gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, to, blk * (size_t)from, blk),
                                 gdc_coll_ipc_user(sched, GDC_COLL_INPUT, from, alltoall ? blk * (size_t)to : 0, blk),
                                 last);
        }
    }
    gdc_coll_ipc_lead_done(sched, last);
}

void gdc_coll_ipc_lead_rooted(gdc_coll_sched_t *sched, int into_root)
{
    const gdc_coll_args_t *args = &sched->args;
    size_t                 blk  = args->count;
    int                    last;

    if (gdc_coll_ipc_follow(sched, args->root, &last)) {
        return;
    }
    for (int p = 0; p < args->size; p++) {
        gdc_coll_region_t mine = gdc_coll_rgn(sched, into_root ? GDC_COLL_OUTPUT : GDC_COLL_INPUT, blk * (size_t)p, blk);

        if (args->in_place && p == args->root) {
            continue;
        }
        last = into_root ? gdc_coll_copy(sched, mine, gdc_coll_ipc_user(sched, GDC_COLL_INPUT, p, 0, blk), last)
                         : gdc_coll_copy(sched, gdc_coll_ipc_user(sched, GDC_COLL_OUTPUT, p, 0, blk), mine, last);
    }
    gdc_coll_ipc_lead_done(sched, last);
}

/* Element `at` of rank p's input, as a region of this rank's schedule. */
static gdc_coll_region_t input_of(const gdc_coll_sched_t *sched, int p, size_t at, size_t count)
{
    size_t dsize = sched->args.dsize;

    return p == sched->args.rank ? gdc_coll_rgn(sched, GDC_COLL_INPUT, at, count)
                                 : gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, at * dsize, count * dsize);
}

/* A step after dep that also waits for p's publication (none for my own input). */
static int after_published(gdc_coll_sched_t *sched, int p, int dep)
{
    int published;

    if (p == sched->args.rank) {
        return dep;
    }
    published = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, 1, -1);
    if (dep >= 0) {
        int both[2] = {dep, published};
        return gdc_coll_join(sched, both, 2);
    }
    return published;
}

int gdc_coll_ipc_reduce_inputs(gdc_coll_sched_t *sched, gdc_coll_region_t out, size_t at, size_t count, int first,
                               int dep)
{
    int n = sched->args.size, p0 = first % n, p1 = (first + 1) % n, last;

    last = gdc_coll_reduce(sched, out, input_of(sched, p0, at, count), input_of(sched, p1, at, count),
                           after_published(sched, p1, after_published(sched, p0, dep)));
    for (int i = 2; i < n; i++) {
        int p = (first + i) % n;

        last = gdc_coll_reduce(sched, out, out, input_of(sched, p, at, count), after_published(sched, p, last));
    }
    return last;
}

int gdc_coll_ipc_finish(gdc_coll_sched_t *sched, gdc_coll_region_t result, gdc_coll_region_t out, int dep)
{
    int last = sched->args.op == GDC_AVG ? gdc_coll_avg(sched, result, dep) : dep, all_done;

    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    all_done = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1);
    if (result.buf == out.buf && result.offset == out.offset) {
        return all_done;
    }
    gdc_coll_after(sched, all_done, last);
    return gdc_coll_copy(sched, out, result, all_done);
}

gdc_coll_region_t gdc_coll_ipc_result(gdc_coll_sched_t *sched)
{
    const gdc_coll_args_t *args = &sched->args;

    if (!args->in_place) {
        return gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
    }
    gdc_coll_scratch(sched, args->count * args->dsize);
    return gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, args->count);
}

void gdc_coll_ipc_reduce_to_output(gdc_coll_sched_t *sched, size_t at)
{
    gdc_coll_region_t result = gdc_coll_ipc_result(sched);
    int               last;

    gdc_coll_cma_publish(sched);
    last = gdc_coll_ipc_reduce_inputs(sched, result, at, sched->args.count, 0, -1);
    gdc_coll_ipc_finish(sched, result, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, sched->args.count), last);
}
