/*
 * barrier hier: a k-nomial fan-in of empty messages to every node's leader, a
 * dissemination barrier among the leaders, and a fan-out down a binomial tree inside every
 * node. ceil(log2 nodes) rounds cross the network instead of ceil(log2 ranks).
 */
#include "algos.h"

#include "gdc_rt.h"
#include "hier/common.h"
#include "phase/tree.h"

GDC_COLL_BUILDER(gdc_coll_barrier_hier)
{
    gdc_coll_nodes_t  nodes;
    gdc_coll_region_t none = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, 0, 0);
    int               heard, sent, released;
    gdc_status_t status;

    if ((status = gdc_coll_nodes_init(&nodes, args, -1)) != GDC_SUCCESS) {
        return status;
    }
    /* slot 0 up, slot 1 down inside a node; the leaders' rounds from 0 (other pairs) */
    heard    = gdc_coll_tree_fanin(sched, &nodes.local, args->config->tree_radix, 0, 0, &sent);
    released = nodes.leaders.me >= 0 ? gdc_coll_dissemination(sched, &nodes.leaders, 0, heard) : -1;
    gdc_coll_tree_bcast(sched, &nodes.local, 2, 0, none, 1, released, sent);
    gdc_coll_nodes_fini(&nodes);
    return sched->status;
}
