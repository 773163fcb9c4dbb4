/* A broadcast over a group, cut in chunks that each take the k-nomial tree: chunk c+1
 * leaves the root while chunk c goes on down, so a deep tree costs about one message time
 * per level plus the whole message once. */
#include "phase.h"
#include "tree.h"

void gdc_coll_pipe_bcast(gdc_coll_sched_t *sched, const gdc_coll_pipe_bcast_t *pb)
{
    size_t ds    = sched->args.dsize;
    size_t count = pb->region.length / ds;

    for (int c = 0; c < pb->chunks; c++) {
        gdc_coll_region_t piece = gdc_coll_rgn_bytes((gdc_coll_buf_t)pb->region.buf,
                                                     pb->region.offset + gdc_coll_block_offset(count, pb->chunks, c) * ds,
                                                     gdc_coll_block_count(count, pb->chunks, c) * ds);
        int root_dep = pb->root_deps != NULL ? pb->root_deps[c] : pb->root_dep;
        int have     = pb->group.me == pb->root ? root_dep : pb->recv_dep;

        if (piece.length > 0) {
            have = gdc_coll_tree_bcast(sched, &pb->group, pb->radix, pb->root, piece, pb->slot_base + (uint32_t)c,
                                       root_dep, pb->recv_dep);
        }
        if (pb->have != NULL) {
            pb->have[c] = have;
        }
    }
}
