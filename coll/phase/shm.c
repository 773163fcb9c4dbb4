#include "algos.h"

#include "phase/shm.h"

#include <stdlib.h>

#include "gdc_rt.h"

int gdc_coll_shm_supports(const gdc_coll_args_t *args)
{
    return args->shm_bytes > 0 && !args->on_device && args->size > 1 &&
           (args->node_of == NULL || args->num_nodes == 1);
}

int gdc_coll_shm_direct_supports(const gdc_coll_args_t *args, size_t vector, size_t reads)
{
    return gdc_coll_shm_supports(args) && vector <= args->shm_bytes &&
           (args->core_cache == 0 || (double)vector * 2 + (double)reads <= 2.0 * (double)args->core_cache);
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

size_t gdc_coll_shm_allreduce_room(const gdc_coll_args_t *args)
{
    size_t chunk = gdc_coll_shm_allreduce_chunk_elems(args);
    size_t part  = gdc_coll_block_count(args->count < chunk ? args->count : chunk, args->size, 0) * args->dsize;

    return (part + 63) / 64 * 64;
}

int gdc_coll_shm_allreduce_in_ring(const gdc_coll_args_t *args)
{
    double slot = ((double)args->size + 1) * (double)gdc_coll_shm_allreduce_room(args);

    return args->count <= gdc_coll_shm_allreduce_chunk_elems(args) &&
           GDC_RT_SHM_RING_ALIGNED + slot <= (double)GDC_RT_SHM_RING_SLOT_BYTES &&
           (double)GDC_RT_SHM_RING_SLOTS * args->size * slot <= (double)args->core_cache;
}

int gdc_coll_shm_wait_all(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep)
{
    return wait_all_back(sched, counter, value, 0, dep);
}

int gdc_coll_cma_publish(gdc_coll_sched_t *sched)
{
    gdc_coll_share_user(sched);
    return gdc_coll_signal(sched, GDC_COLL_SHM_COPIED, 1, -1);
}

int gdc_coll_cma_copy(gdc_coll_sched_t *sched, int peer, gdc_coll_region_t dst, gdc_coll_region_t src, int dep)
{
    int copy = gdc_coll_copy(sched, dst, src, gdc_coll_wait(sched, peer, GDC_COLL_SHM_COPIED, 1, -1));

    gdc_coll_after(sched, copy, dep);
    return copy;
}

int gdc_coll_cma_own_last(const gdc_coll_args_t *args)
{
    return !args->on_device && !gdc_coll_oversubscribed(args);
}

void gdc_coll_cma_read_blocks(gdc_coll_sched_t *sched, size_t at, const gdc_coll_own_copy_t *own)
{
    const gdc_coll_args_t *args = &sched->args;
    int                    n = args->size, me = args->rank, said;
    int                    own_last = gdc_coll_cma_own_last(args);
    int                    first    = own != NULL && !own_last ? 0 : 1; /* reads[0]: my own block's copy */
    size_t                 blk      = args->count;
    int                   *reads    = malloc((size_t)n * sizeof(*reads));

    if (reads == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    if (first == 0) {
        reads[0] = gdc_coll_copy(sched, own->dst, own->src, -1);
    }
    /* each read waits for its own peer alone: a peer that comes late (its rank not running,
     * where ranks outnumber cores) holds up no other's block; with every peer there, they
     * go round from the next rank on, so that not every rank reads from the same one */
    for (int i = 1; i < n; i++) {
        int p = (me + i) % n;

        reads[i] = gdc_coll_cma_copy(sched, p, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, blk * (size_t)p, blk),
                                     gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, at, blk * args->dsize), -1);
    }
    said = gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, gdc_coll_join(sched, reads + first, n - first));
    free(reads);
    if (own != NULL && own_last) {
        gdc_coll_copy(sched, own->dst, own->src, said);
    }
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1);
}

/* Part p of n of count elements: [*start, *start + *len). */
static void two_shot_part(size_t count, int n, int p, size_t *start, size_t *len)
{
    size_t lo = count * (size_t)p / (size_t)n, hi = count * (size_t)(p + 1) / (size_t)n;

    *start = lo;
    *len   = hi - lo;
}

int gdc_coll_cma_reduce_inputs(gdc_coll_sched_t *sched, gdc_coll_buf_t out_buf, size_t out_at, size_t in_at,
                               size_t count)
{
    const gdc_coll_args_t *args = &sched->args;
    int                    n = args->size, me = args->rank;
    size_t                 chunk = gdc_coll_cma_reduce_chunk_elems(args);
    int                    last  = gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_COPIED, 1, -1);

    chunk = chunk < count ? chunk : count;
    gdc_coll_scratch(sched, chunk * args->dsize);
    for (size_t done = 0; done < count; done += chunk) {
        size_t            k    = count - done < chunk ? count - done : chunk;
        gdc_coll_region_t out  = gdc_coll_rgn(sched, out_buf, out_at + done, k);
        gdc_coll_region_t read = gdc_coll_rgn(sched, GDC_COLL_SCRATCH, 0, k);

        for (int i = 1; i < n; i++) {
            int p = (me + i) % n;

            last = gdc_coll_copy(
                sched, read, gdc_coll_rgn_peer_user(GDC_COLL_PEER_INPUT, p, (in_at + done) * args->dsize, k * args->dsize),
                last);
            last = gdc_coll_reduce(sched, out, i == 1 ? gdc_coll_rgn(sched, GDC_COLL_INPUT, in_at + done, k) : out, read,
                                   last);
        }
    }
    return last;
}

void gdc_coll_two_shot(gdc_coll_sched_t *sched, gdc_coll_reduce_part_fn reduce_part)
{
    const gdc_coll_args_t *args = &sched->args;
    int                    n = args->size, me = args->rank, last = -1;
    size_t                 at, len;

    gdc_coll_cma_publish(sched);
    two_shot_part(args->count, n, me, &at, &len);
    if (len > 0) {
        gdc_coll_region_t mine = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, at, len);

        last = reduce_part(sched, at, len);
        if (args->op == GDC_AVG) {
            last = gdc_coll_avg(sched, mine, last);
        }
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_REDUCED, 1, last);
    for (int i = 1; i < n; i++) {
        int    p = (me + i) % n;
        size_t p_at, p_len;

        two_shot_part(args->count, n, p, &p_at, &p_len);
        if (p_len == 0) {
            continue;
        }
        last = gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, p_at, p_len),
                             gdc_coll_rgn_peer_user(GDC_COLL_PEER_OUTPUT, p, p_at * args->dsize, p_len * args->dsize),
                             gdc_coll_wait(sched, p, GDC_COLL_SHM_REDUCED, 1, last));
    }
    gdc_coll_signal(sched, GDC_COLL_SHM_DONE, 1, last);
    gdc_coll_shm_wait_all(sched, GDC_COLL_SHM_DONE, 1, -1);
}

size_t gdc_coll_cma_reduce_chunk_elems(const gdc_coll_args_t *args)
{
    size_t elems = args->config->shm_chunk_bytes / args->dsize;

    return elems > 0 ? elems : 1;
}

size_t gdc_coll_shm_published_bytes(const gdc_coll_args_t *args)
{
    size_t block = args->count * args->dsize;

    switch (args->coll) {
    case GDC_COLL_SCATTER:
    case GDC_COLL_ALLTOALL:
    case GDC_COLL_REDUCE_SCATTER:
        return block * (size_t)args->size;
    default:
        return block;
    }
}

int gdc_coll_shm_in_ring(const gdc_coll_args_t *args)
{
    return gdc_coll_shm_published_bytes(args) <= GDC_RT_SHM_RING_SLOT_BYTES;
}

size_t gdc_coll_shm_ring_data_at(size_t bytes)
{
    /* the stamp's line holds GDC_RT_SHM_RING_ALIGNED bytes of data: the next line's offset */
    return bytes > GDC_RT_SHM_RING_ALIGNED ? GDC_RT_SHM_RING_ALIGNED : 0;
}

size_t gdc_coll_shm_place_data_at(const gdc_coll_args_t *args, int ring)
{
    return ring ? gdc_coll_shm_ring_data_at(gdc_coll_shm_published_bytes(args)) : 0;
}

gdc_coll_region_t gdc_coll_shm_place(int owner, int me, int ring, size_t offset, size_t length)
{
    return ring ? gdc_coll_rgn_ring(owner, me, 0, offset, length) : gdc_coll_rgn_shm(owner, me, offset, length);
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
    return ring ? wait_all_back(sched, GDC_COLL_SHM_DONE, 1, GDC_RT_SHM_RING_SLOTS, dep)
                : wait_all_back(sched, GDC_COLL_SHM_DONE, prior, 0, dep);
}

gdc_coll_shm_chunks_t gdc_coll_shm_chunks(const gdc_coll_args_t *args, size_t rooms)
{
    gdc_coll_shm_chunks_t c = {.one_slot = gdc_coll_shm_in_ring(args), .rooms = rooms};
    size_t                most = GDC_RT_SHM_RING_SLOT_BYTES / rooms / args->dsize;

    c.elems = gdc_coll_shm_chunk_elems(args, rooms);
    c.ring  = c.one_slot || rooms == 1 ||
             (gdc_coll_oversubscribed(args) && most > 0 &&
              gdc_coll_shm_published_bytes(args) <= (size_t)GDC_RT_SHM_RING_SLOTS * GDC_RT_SHM_RING_SLOT_BYTES);
    if (c.one_slot) {
        c.elems = args->count;
        c.at    = gdc_coll_shm_ring_data_at(gdc_coll_shm_published_bytes(args));
    } else if (c.ring) {
        c.elems = c.elems < most ? c.elems : most;
        c.at    = GDC_RT_SHM_RING_ALIGNED;
    }
    c.room  = c.elems * args->dsize;
    c.count = c.elems > 0 ? (args->count + c.elems - 1) / c.elems : 0;
    return c;
}

gdc_coll_region_t gdc_coll_shm_chunk_place(const gdc_coll_shm_chunks_t *c, int owner, int me, size_t j, size_t part,
                                           size_t length)
{
    if (!c->ring) {
        return gdc_coll_rgn_shm(owner, me, ((j % 2) * c->rooms + part) * c->room, length);
    }
    return gdc_coll_rgn_ring(owner, me, j, c->at + part * c->room, length);
}

int gdc_coll_shm_chunk_free(gdc_coll_sched_t *sched, const gdc_coll_shm_chunks_t *c, size_t j, int dep)
{
    if (!c->ring) {
        return wait_all_back(sched, GDC_COLL_SHM_DONE, j >= 2 ? (uint32_t)j - 1 : 0, 0, dep);
    }
    /* DONE at the value a ring before, whichever call published there */
    return wait_all_back(sched, GDC_COLL_SHM_DONE, (uint32_t)j + 1, GDC_RT_SHM_RING_SLOTS, dep);
}
