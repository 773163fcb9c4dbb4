/*
 * allreduce cma: the two-shot allreduce by cross-memory attach (gdc_coll_two_shot). Rank r
 * reads part r of every other rank's input with process_vm_readv, a cache-sized chunk at a
 * time into its scratch, and reduces it there into part r of its output (starting from its
 * own input, which it reads in place); then it reads every other part p from rank p's
 * output. Each rank moves (n-1)/n of the vector twice, by the kernel's copy, where allreduce
 * shm copies the whole vector into its segment and (n-1)/n of it out: the single-copy path
 * where cross-memory attach runs near memcpy's rate.
 */
#include "algos.h"

#include "phase/shm.h"

/* Chunk by chunk (gdc_coll_cma_reduce_chunk_elems), each peer's part of it read and
 * reduced in turn. */
static int reduce_part_by_cma(gdc_coll_sched_t *sched, size_t at, size_t count)
{
    const gdc_coll_args_t *args = &sched->args;
    int                    n = args->size, me = args->rank;
    size_t                 chunk = gdc_coll_cma_reduce_chunk_elems(args);
    int                    last  = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1);

    chunk = chunk < count ? chunk : count;
    gdc_coll_scratch(sched, chunk * args->dsize);
    for (size_t done = 0; done < count; done += chunk) {
        size_t            k    = count - done < chunk ? count - done : chunk;
        size_t            here = at + done;
        gdc_coll_region_t out  = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, here, k);
        gdc_coll_region_t read = gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, k);

        for (int i = 1; i < n; i++) {
            int p = (me + i) % n;

            last = gdc_coll_copy(sched, read,
                                 gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, here * args->dsize, k * args->dsize),
                                 last);
            last = gdc_coll_reduce(sched, out, i == 1 ? gdc_coll_rgn(sched, GDC_COLL_INPUT, here, k) : out, read,
                                   last);
        }
    }
    return last;
}

GDC_COLL_BUILDER(gdc_coll_allreduce_cma)
{
    gdc_coll_two_shot(sched, reduce_part_by_cma);
    return GDC_SUCCESS;
}
