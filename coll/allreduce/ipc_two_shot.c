/*
 * allreduce ipc_two_shot: a reduce-scatter by direct reads, then an allgather by direct
 * reads. Rank r reduces part r of every rank's vector, reading its peers' device buffers
 * where they lie (CUDA IPC), into part r of its output and says so (REDUCED); then it
 * copies every other part p from rank p's output. Each byte is reduced once on the node,
 * where the one-shot reduces it on every rank: the bandwidth path for device buffers.
 *
 * In place too: rank r's part r is its own to overwrite (only r reads it), reduced from its
 * own input first; part p of its buffer is overwritten only after rank p said REDUCED,
 * that is, after p read it.
 */
#include "algos.h"

#include "phase/ipc.h"
#include "phase/shm.h"

/* Part p of n of count elements: [start, start + len). */
static void part_of(size_t count, int n, int p, size_t *start, size_t *len)
{
    size_t lo = count * (size_t)p / (size_t)n, hi = count * (size_t)(p + 1) / (size_t)n;

    *start = lo;
    *len   = hi - lo;
}

GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_two_shot)
{
    int    n = args->size, me = args->rank, last;
    size_t at, len;

    gdc_coll_cma_publish(sched);
    part_of(args->count, n, me, &at, &len);
    last = -1;
    if (len > 0) {
        gdc_coll_region_t mine = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, at, len);

        last = gdc_coll_ipc_reduce_inputs(sched, mine, at, len, me, -1);
        if (args->op == GDC_AVG) {
            last = gdc_coll_avg(sched, mine, last);
        }
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_REDUCED, 1, last);
    for (int i = 1; i < n; i++) {
        int    p = (me + i) % n;
        size_t p_at, p_len;

        part_of(args->count, n, p, &p_at, &p_len);
        if (p_len == 0) {
            continue;
        }
        last = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, p_at, p_len),
                             gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, p, p_at * args->dsize, p_len * args->dsize),
                             gdc_coll_wait(sched, p, GDC_COLL_SHM_REDUCED, 1, last));
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1);
    return GDC_SUCCESS;
}
