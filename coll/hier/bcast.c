/*
 * bcast hier: the root leads its node; the message goes down the node leaders, then down
 * every node, in pipelined chunks (binomial trees, or chains once there are chunks enough
 * to fill them): a leader passes chunk c on inside its node as soon as it has it. The network carries the message
 * once into every node, however the ranks are placed.
 */
#include "algos.h"

#include <stdlib.h>

#include "gdc_rt.h"
#include "hier/common.h"

GDC_COLL_BUILDER(gdc_coll_bcast_hier)
{
    gdc_coll_nodes_t nodes;
    gdc_status_t     status;
    int              chunks = gdc_coll_chunks(args, GDC_COLL_ACROSS_NODES, args->count * args->dsize, 1);
    int             *have   = malloc((size_t)chunks * sizeof(int));

    if (have == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    if ((status = gdc_coll_nodes_init(&nodes, args, args->root)) != GDC_SUCCESS) {
        free(have);
        return status;
    }
    {
        /* leaders and a node's ranks are different pairs: both phases use slots 0..chunks-1 */
        int                   leader = 0;
        gdc_coll_region_t     all    = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, args->count);
        gdc_coll_pipe_bcast_t among  = {
            .group = nodes.leaders, .radix = 0, .root = args->node_of != NULL ? args->node_of[args->root] : args->root,
            .region = all, .chunks = chunks, .root_dep = -1, .recv_dep = -1, .have = have,
        };

        while (gdc_coll_local_rank(&nodes, leader) != nodes.leader[nodes.my_node]) {
            leader++;
        }
        if (nodes.leaders.me >= 0) {
            gdc_coll_pipe_bcast(sched, &among);
        }
        {
            gdc_coll_pipe_bcast_t inside = {
                .group = nodes.local, .radix = 0, .root = leader, .region = all, .chunks = chunks,
                .root_deps = nodes.leaders.me >= 0 ? have : NULL, .root_dep = -1, .recv_dep = -1,
            };
            gdc_coll_pipe_bcast(sched, &inside);
        }
    }
    gdc_coll_nodes_fini(&nodes);
    free(have);
    return sched->status;
}
