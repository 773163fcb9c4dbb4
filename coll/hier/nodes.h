/*
 * Where the ranks of a call are, for the hierarchical algorithms: the nodes, each node's
 * ranks (in communicator order), the ranks of my node as a group, and the node leaders as a
 * group. Nodes may hold different numbers of ranks, and a node's ranks need not be
 * consecutive in the communicator.
 */
#ifndef GDC_COLL_HIER_H
#define GDC_COLL_HIER_H

#include "builder.h"

typedef struct gdc_coll_nodes {
    int              num_nodes;
    int              my_node;
    int             *node_first;  /* [num_nodes + 1] offsets into members */
    int             *members;     /* [size] ranks grouped by node, communicator order in a node */
    int             *leader;      /* [num_nodes] each node's leader (its first rank, or the root) */
    int              max_local;   /* ranks of the largest node */
    int              min_local;   /* ranks of the smallest node */
    gdc_coll_group_t local;       /* my node's ranks; local.me is my index among them */
    gdc_coll_group_t leaders;     /* one leader per node, in node order; leaders.me = my node when
                                     I lead it, else -1 */
} gdc_coll_nodes_t;

/* Describe args' nodes; root (or -1) leads its node. Without node information (no
 * node_of), every rank is its own node. */
gdc_status_t gdc_coll_nodes_init(gdc_coll_nodes_t *nodes, const gdc_coll_args_t *args, int root);
void gdc_coll_nodes_fini(gdc_coll_nodes_t *nodes);

/* Ranks on node `node` and the i-th of them. */
static inline int gdc_coll_nodes_size(const gdc_coll_nodes_t *nodes, int node)
{
    return nodes->node_first[node + 1] - nodes->node_first[node];
}

static inline int gdc_coll_nodes_member(const gdc_coll_nodes_t *nodes, int node, int i)
{
    return nodes->members[nodes->node_first[node] + i];
}

/* Is this call's communicator spread over more than one node? */
int gdc_coll_spans_nodes(const gdc_coll_args_t *args);

#endif
