#include "phase/ring.h"

#include <stdlib.h>

#include "algos.h"
#include "gdc_rt.h"

/* Receive slots of the reduce-scatter: a round may receive while the previous ones are
 * still being reduced. */
#define GDC_COLL_RING_DEPTH 3

size_t gdc_coll_vec_block_offset(const gdc_coll_vec_t *vec, int b)
{
    return vec->bounds != NULL ? vec->bounds[b] : gdc_coll_block_offset(vec->count, vec->n, b);
}

size_t gdc_coll_vec_block_count(const gdc_coll_vec_t *vec, int b)
{
    return vec->bounds != NULL ? vec->bounds[b + 1] - vec->bounds[b] : gdc_coll_block_count(vec->count, vec->n, b);
}

/* The largest block (receive slots and chunk strides are sized for it). */
static size_t largest_block(const gdc_coll_vec_t *vec)
{
    size_t most = 0;

    for (int b = 0; b < vec->n; b++) {
        size_t c = gdc_coll_vec_block_count(vec, b);
        most     = c > most ? c : most;
    }
    return most;
}

gdc_coll_region_t gdc_coll_vec_chunk(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec,
                                     int block, int c, int chunks)
{
    size_t bcount = gdc_coll_vec_block_count(vec, block);
    size_t boff   = gdc_coll_vec_block_offset(vec, block);

    return gdc_coll_rgn(sched, vec->buf,
                        vec->base + boff + gdc_coll_block_offset(bcount, chunks, c),
                        gdc_coll_block_count(bcount, chunks, c));
}

gdc_coll_region_t gdc_coll_vec_chunk_at(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec,
                                        int block, int c, int chunks, gdc_coll_buf_t buf, size_t base)
{
    size_t bcount = gdc_coll_vec_block_count(vec, block);

    return gdc_coll_rgn(sched, buf, base + gdc_coll_block_offset(bcount, chunks, c),
                        gdc_coll_block_count(bcount, chunks, c));
}

int gdc_coll_ring_supports(const gdc_coll_args_t *args)
{
    return (unsigned)(args->size - 1) <= GDC_COLL_MAX_SLOTS;
}

int gdc_coll_ring_twice_supports(const gdc_coll_args_t *args)
{
    return 2u * (unsigned)(args->size - 1) <= GDC_COLL_MAX_SLOTS;
}

int gdc_coll_ring_chunks(const gdc_coll_sched_t *sched, const gdc_coll_vec_t *vec, int rounds, int across)
{
    return gdc_coll_ring_chunk_count(&sched->args, across, largest_block(vec) * sched->args.dsize, rounds);
}

/* A ring round waits for the one before it: a block in one chunk pays its latency every
 * round, a block in several hides it behind its own chunks. So a block worth several
 * latencies of its link (a quarter of the chunk unit is about one, by how the unit is
 * sized) goes in at least that many chunks, up to 4. */
int gdc_coll_ring_chunk_count(const gdc_coll_args_t *args, int across, size_t block_bytes, int rounds)
{
    size_t latency_bytes = gdc_coll_chunk_bytes(args, across) / 4;
    int    chunks        = gdc_coll_chunks(args, across, block_bytes, rounds);
    size_t worth         = latency_bytes > 0 ? block_bytes / latency_bytes : 0;
    int    most          = (int)(GDC_COLL_MAX_SLOTS / (unsigned)(rounds > 0 ? rounds : 1));

    if (worth > (size_t)chunks) {
        chunks = worth < 4 ? (int)worth : (chunks > 4 ? chunks : 4);
    }
    return chunks < most ? chunks : most;
}

static int mod(int x, int n)
{
    return ((x % n) + n) % n;
}

size_t gdc_coll_ring_reduce_scatter(gdc_coll_sched_t *sched, gdc_coll_ring_rs_t *rs)
{
    int    n     = rs->group.size;
    int    depth = n - 1 < GDC_COLL_RING_DEPTH ? n - 1 : GDC_COLL_RING_DEPTH;
    int    right = gdc_coll_group_rank(&rs->group, mod(rs->group.me + 1, n));
    int    left  = gdc_coll_group_rank(&rs->group, mod(rs->group.me - 1, n));
    size_t chunk_max = gdc_coll_block_count(largest_block(&rs->input), rs->chunks, 0);
    int   *reduced = malloc((size_t)(n - 1) * (size_t)rs->chunks * sizeof(int));
    /* the last reduce that read each receive slot: the next receive into it waits for it */
    int   *reader  = malloc((size_t)depth * (size_t)rs->chunks * sizeof(int));

    if (reduced == NULL || reader == NULL) {
        free(reduced);
        free(reader);
        sched->status = GDC_ERR_NO_MEMORY;
        return 0;
    }
    for (int i = 0; i < depth * rs->chunks; i++) {
        reader[i] = -1;
    }
    for (int k = 0; k < n - 1; k++) {
        int send_block = mod(rs->owned - k - 1, n);
        int recv_block = mod(rs->owned - k - 2, n);
        int last       = k == n - 2;

        for (int c = 0; c < rs->chunks; c++) {
            int               i    = k * rs->chunks + c;
            gdc_coll_region_t mine = gdc_coll_vec_chunk(sched, &rs->input, recv_block, c, rs->chunks);
            gdc_coll_region_t tmp  = gdc_coll_rgn_bytes(
                GDC_COLL_SCRATCH,
                rs->scratch_base + ((size_t)(k % depth) * (size_t)rs->chunks + (size_t)c) * chunk_max *
                                       sched->args.dsize,
                mine.length);
            gdc_coll_region_t dst =
                last ? gdc_coll_vec_chunk_at(sched, &rs->input, recv_block, c, rs->chunks, rs->result_buf,
                                             rs->result_base)
                     : gdc_coll_vec_chunk(sched, &rs->partial, recv_block, c, rs->chunks);
            gdc_coll_region_t out =
                gdc_coll_vec_chunk(sched, k == 0 ? &rs->input : &rs->partial, send_block, c, rs->chunks);
            int recv;

            rs->sends[i] = -1;
            reduced[i]   = -1;
            if (out.length > 0) {
                rs->sends[i] = gdc_coll_send(sched, right, rs->slot_base + (uint32_t)i, out,
                                             k == 0 ? -1 : reduced[i - rs->chunks]);
            }
            if (mine.length == 0) {
                continue;
            }
            recv = gdc_coll_recv(sched, left, rs->slot_base + (uint32_t)i, tmp,
                                 reader[(k % depth) * rs->chunks + c]);
            reduced[i] = gdc_coll_reduce(sched, dst, mine, tmp, recv);
            reader[(k % depth) * rs->chunks + c] = reduced[i];
        }
    }
    for (int c = 0; c < rs->chunks; c++) {
        int final = reduced[(n - 2) * rs->chunks + c];
        rs->done[c] = final;
        if (rs->avg && final >= 0) {
            rs->done[c] = gdc_coll_avg(sched,
                                       gdc_coll_vec_chunk_at(sched, &rs->input, rs->owned, c, rs->chunks,
                                                             rs->result_buf, rs->result_base),
                                       final);
        }
    }
    free(reduced);
    free(reader);
    return (size_t)depth * (size_t)rs->chunks * chunk_max * sched->args.dsize;
}

void gdc_coll_ring_allgather(gdc_coll_sched_t *sched, const gdc_coll_ring_ag_t *ag)
{
    int  n     = ag->group.size;
    int  right = gdc_coll_group_rank(&ag->group, mod(ag->group.me + 1, n));
    int  left  = gdc_coll_group_rank(&ag->group, mod(ag->group.me - 1, n));
    int *recvd = malloc((size_t)(n - 1) * (size_t)ag->chunks * sizeof(int));

    if (recvd == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    for (int k = 0; k < n - 1; k++) {
        int send_block = mod(ag->owned - k, n);
        int recv_block = mod(ag->owned - k - 1, n);

        for (int c = 0; c < ag->chunks; c++) {
            int               i   = k * ag->chunks + c;
            gdc_coll_region_t out =
                k == 0 ? gdc_coll_vec_chunk_at(sched, &ag->out, send_block, c, ag->chunks, ag->first_buf,
                                               ag->first_base)
                       : gdc_coll_vec_chunk(sched, &ag->out, send_block, c, ag->chunks);
            gdc_coll_region_t in  = gdc_coll_vec_chunk(sched, &ag->out, recv_block, c, ag->chunks);
            int               dep = k == 0 ? (ag->first_dep != NULL ? ag->first_dep[c] : -1)
                                           : recvd[i - ag->chunks];

            if (out.length > 0) {
                gdc_coll_send(sched, right, ag->slot_base + (uint32_t)i, out, dep);
            }
            recvd[i] = -1;
            if (in.length > 0) {
                recvd[i] = gdc_coll_recv(sched, left, ag->slot_base + (uint32_t)i, in,
                                         ag->recv_dep != NULL ? ag->recv_dep[i] : -1);
            }
        }
    }
    free(recvd);
}
