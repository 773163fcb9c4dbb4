/* Empty-message phases: a dissemination barrier and a tree fan-in over a group. */
#include <stdlib.h>

#include "gdc_rt.h"
#include "phase/phase.h"
#include "phase/tree.h"

int gdc_coll_dissemination(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, uint32_t slot_base, int dep)
{
    int               n = group->size, me = group->me, heard = dep;
    gdc_coll_region_t none = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, 0);
    uint32_t          slot = slot_base;

    for (int dist = 1; dist < n; dist *= 2, slot++) {
        gdc_coll_send(sched, gdc_coll_group_rank(group, (me + dist) % n), slot, none, heard);
        heard = gdc_coll_recv(sched, gdc_coll_group_rank(group, (me - dist + n) % n), slot, none, heard);
    }
    return heard;
}

int gdc_coll_tree_fanin(gdc_coll_sched_t *sched, const gdc_coll_group_t *group, int radix, int root, uint32_t slot,
                        int *send)
{
    int               n = group->size, v = gdc_coll_vrank(group->me, root, n);
    int               parent = gdc_coll_tree_parent(v, n, radix), num, all = -1;
    int              *children = malloc((size_t)n * sizeof(int));
    gdc_coll_region_t none     = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, 0);

    *send = -1;
    if (children == NULL) {
        sched->status = GDC_ERR_NO_MEMORY;
        return -1;
    }
    num = gdc_coll_tree_children(v, n, radix, children, n);
    for (int i = 0; i < num; i++) {
        children[i] = gdc_coll_recv(sched, gdc_coll_tree_peer(group, children[i], root), slot, none, -1);
    }
    if (num > 0) {
        all = num == 1 ? children[0] : gdc_coll_join(sched, children, num);
    }
    if (parent >= 0) {
        *send = gdc_coll_send(sched, gdc_coll_tree_peer(group, parent, root), slot, none, all);
    }
    free(children);
    return all;
}
