/*
 * allreduce shm: pipelined through the node's shared memory. Each chunk of the vector is cut
 * into one part per rank. A rank copies the parts its peers own into its segment; each
 * rank reduces its own part from its input and the peers' copies, publishes the result in
 * its segment and its output, and copies the other parts' results from their owners.
 * Memory traffic per rank is about one read of the input and one write of the output, the
 * rest stays in cache when parts are small (each part up to GDC_SHM_CHUNK: a chunk is n
 * of them, so every copy and reduction is a whole pipelining unit): the fast path for large
 * messages inside a node.
 *
 * Segment layout, double buffered by chunk parity s: in[s][p] (part p of the chunk, as
 * copied for its owner p) then res[s] (my part's result). A call of one chunk whose ring
 * fits a core's cache goes in its ring slot instead, in[p] then res, each part on lines of
 * its own (gdc_coll_shm_allreduce_in_ring).
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/shm.h"

typedef struct layout {
    size_t chunk; /* elements per chunk */
    size_t part;  /* bytes of the largest part */
    size_t room;  /* in the ring: bytes between two parts (a part on lines of its own) */
    int    n, me;
    int    ring;  /* the call in its ring slot (gdc_coll_shm_allreduce_in_ring) */
} layout_t;

/* Part p of chunk parity s as copied for its owner p, in owner's shared memory. */
static gdc_coll_region_t in_slot(const layout_t *l, int owner, int s, int p, size_t length)
{
    if (l->ring) {
        return gdc_coll_rgn_ring(owner, l->me, 0, GDC_RT_SHM_RING_ALIGNED + (size_t)p * l->room, length);
    }
    return gdc_coll_rgn_shm(owner, l->me, ((size_t)s * (size_t)l->n + (size_t)p) * l->part, length);
}

/* owner's result of chunk parity s. */
static gdc_coll_region_t res_slot(const layout_t *l, int owner, int s, size_t length)
{
    if (l->ring) {
        return gdc_coll_rgn_ring(owner, l->me, 0, GDC_RT_SHM_RING_ALIGNED + (size_t)l->n * l->room, length);
    }
    return gdc_coll_rgn_shm(owner, l->me, (2 * (size_t)l->n + (size_t)s) * l->part, length);
}

GDC_COLL_BUILDER(gdc_coll_allreduce_shm)
{
    int      n = args->size, me = args->rank;
    layout_t l;
    size_t   nchunks;
    int     *copied = malloc((size_t)n * sizeof(int));

    if (copied == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    l.n     = n;
    l.me    = me;
    l.chunk = gdc_coll_shm_allreduce_chunk_elems(args);
    l.part  = gdc_coll_block_count(l.chunk, n, 0) * args->dsize;
    l.room  = gdc_coll_shm_allreduce_room(args);
    l.ring  = gdc_coll_shm_allreduce_in_ring(args);
    nchunks = (args->count + l.chunk - 1) / l.chunk;
    /* before writing anything in my segment: everyone is done reading it in the calls
     * before (any rank may have read any part of it there); in the ring, in the call a
     * ring before */
    int earlier = l.ring ? gdc_coll_shm_wait_free(sched, 1, 0, -1)
                         : gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 0, -1);

    for (size_t j = 0; j < nchunks; j++) {
        int      s     = (int)(j % 2);
        uint32_t now   = (uint32_t)j + 1;
        uint32_t prior = j >= 2 ? (uint32_t)j - 1 : 0; /* chunk j-2 used these slots */
        size_t   first = j * l.chunk;
        size_t   len   = args->count - first < l.chunk ? args->count - first : l.chunk;
        size_t   mine  = first + gdc_coll_block_offset(len, n, me);
        size_t   mlen  = gdc_coll_block_count(len, n, me);
        int      step, reduced;

        /* 1. hand out the parts others own */
        for (int p = 0; p < n; p++) {
            size_t off = first + gdc_coll_block_offset(len, n, p), cnt = gdc_coll_block_count(len, n, p);
            copied[p]  = -1;
            if (p == me) {
                continue;
            }
            /* in this call only p reads my in[s][p]: it has, for chunk j-2, once it reduced it */
            step      = j >= 2 ? gdc_coll_wait(sched, p, GDC_COLL_SHM_REDUCED, prior, -1) : earlier;
            copied[p] = gdc_coll_copy(sched, in_slot(&l, me, s, p, cnt * args->dsize),
                                      gdc_coll_rgn(sched, GDC_COLL_INPUT, off, cnt), step);
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, now, gdc_coll_join(sched, copied, n));

        /* 2. reduce my part; res[s] is free once everyone copied chunk j-2's result out */
        reduced = l.ring ? earlier : gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, prior, -1);
        {
            gdc_coll_region_t res = res_slot(&l, me, s, mlen * args->dsize);
            gdc_coll_region_t acc = gdc_coll_rgn(sched, GDC_COLL_INPUT, mine, mlen);
            for (int p = 0; p < n; p++) {
                int arrived;
                if (p == me || mlen == 0) {
                    continue;
                }
                arrived = gdc_coll_wait(sched, p, GDC_COLL_SHM_COPIED, now, -1);
                step    = gdc_coll_reduce(sched, res, acc, in_slot(&l, p, s, me, res.length),
                                          arrived);
                gdc_coll_after(sched, step, reduced);
                reduced = step;
                acc     = res;
            }
            if (mlen > 0 && args->op == GDC_AVG) {
                reduced = gdc_coll_avg(sched, res, reduced);
            }
            gdc_coll_signal(sched, GDC_COLL_SHM_REDUCED, now, reduced);
            if (mlen > 0) {
                gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, mine, mlen), res, reduced);
            }
        }

        /* 3. collect the other parts' results (in place, my input part p was copied first) */
        for (int p = 0; p < n; p++) {
            size_t off = first + gdc_coll_block_offset(len, n, p), cnt = gdc_coll_block_count(len, n, p);
            int    ready;
            if (p == me) {
                continue;
            }
            ready     = gdc_coll_wait(sched, p, GDC_COLL_SHM_REDUCED, now, copied[p]);
            copied[p] = cnt > 0 ? gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, off, cnt),
                                                res_slot(&l, p, s, cnt * args->dsize), ready)
                                : ready;
        }
        gdc_coll_signal(sched, GDC_COLL_SHM_DONE, now, gdc_coll_join(sched, copied, n));
    }
    free(copied);
    return GDC_SUCCESS;
}
