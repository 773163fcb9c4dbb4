/* A broadcast over a group, cut in chunks that each take the k-nomial tree or the chain:
 * chunk c+1 leaves the root while chunk c goes on down, so a deep tree costs about one
 * message time per level plus the whole message once per child of the root, a chain the
 * whole message once per rank plus one chunk time per rank. */
#include "phase/phase.h"
#include "phase/tree.h"

/* In chunk times, a chain takes n - 2 + chunks, a binomial tree about ceil(log2 n) * chunks
 * (its root sends each chunk that often); the chain has n - 1 - ceil(log2 n) more hops, a
 * latency each, counted as a chunk time (the builder does not know the machine). */
int gdc_coll_pipe_bcast_chains(int n, int chunks)
{
    int depth = 0;

    while ((1 << depth) < n) {
        depth++;
    }
    return n > 2 && (long)(depth - 1) * chunks - (n - 2) > n - 1 - depth;
}

/* Chunk `piece` down the chain root, root+1, ... (group order); returns its arrival. */
static int chain(gdc_coll_sched_t *sched, const gdc_coll_group_t *g, int root, gdc_coll_region_t piece,
                 uint32_t slot, int root_dep, int recv_dep)
{
    int n = g->size, v = gdc_coll_vrank(g->me, root, n), have = root_dep;

    if (v > 0) {
        have = gdc_coll_recv(sched, gdc_coll_tree_peer(g, v - 1, root), slot, piece, recv_dep);
    }
    if (v + 1 < n) {
        gdc_coll_send(sched, gdc_coll_tree_peer(g, v + 1, root), slot, piece, have);
    }
    return have;
}

void gdc_coll_pipe_bcast(gdc_coll_sched_t *sched, const gdc_coll_pipe_bcast_t *pb)
{
    size_t ds    = sched->args.dsize;
    size_t count = pb->region.length / ds;
    int    use_chain = pb->radix == 0 && gdc_coll_pipe_bcast_chains(pb->group.size, pb->chunks);
    int    radix     = pb->radix > 0 ? pb->radix : 2;

    for (int c = 0; c < pb->chunks; c++) {
        gdc_coll_region_t piece = gdc_coll_rgn_bytes((gdc_coll_buf_t)pb->region.buf,
                                                     pb->region.offset + gdc_coll_block_offset(count, pb->chunks, c) * ds,
                                                     gdc_coll_block_count(count, pb->chunks, c) * ds);
        int root_dep = pb->root_deps != NULL ? pb->root_deps[c] : pb->root_dep;
        int have     = pb->group.me == pb->root ? root_dep : pb->recv_dep;

        if (piece.length > 0 && use_chain) {
            have = chain(sched, &pb->group, pb->root, piece, pb->slot_base + (uint32_t)c, root_dep, pb->recv_dep);
        } else if (piece.length > 0) {
            have = gdc_coll_tree_bcast(sched, &pb->group, radix, pb->root, piece, pb->slot_base + (uint32_t)c,
                                       root_dep, pb->recv_dep);
        }
        if (pb->have != NULL) {
            pb->have[c] = have;
        }
    }
}
