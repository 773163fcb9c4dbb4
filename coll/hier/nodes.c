#include "hier/nodes.h"

#include <stdlib.h>
#include <string.h>

#include "gdc_rt.h"

int gdc_coll_spans_nodes(const gdc_coll_args_t *args)
{
    return args->node_of != NULL && args->num_nodes > 1;
}

static int node_of(const gdc_coll_args_t *args, int r)
{
    return args->node_of != NULL ? args->node_of[r] : r;
}

gdc_status_t gdc_coll_nodes_init(gdc_coll_nodes_t *nodes, const gdc_coll_args_t *args, int root)
{
    int  n     = args->size;
    int  count = args->node_of != NULL ? args->num_nodes : n;
    int *fill;

    memset(nodes, 0, sizeof(*nodes));
    nodes->num_nodes  = count;
    nodes->node_first = calloc((size_t)count + 1, sizeof(int));
    nodes->members    = malloc((size_t)n * sizeof(int));
    nodes->leader     = malloc((size_t)count * sizeof(int));
    fill              = calloc((size_t)count + 1, sizeof(int));
    if (nodes->node_first == NULL || nodes->members == NULL || nodes->leader == NULL || fill == NULL) {
        free(fill);
        gdc_coll_nodes_fini(nodes);
        return GDC_ERR_NO_MEMORY;
    }
    for (int r = 0; r < n; r++) {
        nodes->node_first[node_of(args, r) + 1]++;
    }
    for (int d = 0; d < count; d++) {
        nodes->node_first[d + 1] += nodes->node_first[d];
    }
    for (int r = 0; r < n; r++) {
        int d = node_of(args, r);
        nodes->members[nodes->node_first[d] + fill[d]++] = r;
    }
    free(fill);
    nodes->min_local = n;
    for (int d = 0; d < count; d++) {
        int size         = gdc_coll_nodes_size(nodes, d);
        nodes->leader[d] = gdc_coll_nodes_member(nodes, d, 0);
        nodes->max_local = size > nodes->max_local ? size : nodes->max_local;
        nodes->min_local = size < nodes->min_local ? size : nodes->min_local;
    }
    if (root >= 0) {
        nodes->leader[node_of(args, root)] = root;
    }
    nodes->my_node    = node_of(args, args->rank);
    nodes->local.size = gdc_coll_nodes_size(nodes, nodes->my_node);
    nodes->local.ranks = nodes->members + nodes->node_first[nodes->my_node];
    for (int i = 0; i < nodes->local.size; i++) {
        if (nodes->local.ranks[i] == args->rank) {
            nodes->local.me = i;
        }
    }
    nodes->leaders.size  = count;
    nodes->leaders.ranks = nodes->leader;
    nodes->leaders.me    = nodes->leader[nodes->my_node] == args->rank ? nodes->my_node : -1;
    return GDC_SUCCESS;
}

void gdc_coll_nodes_fini(gdc_coll_nodes_t *nodes)
{
    free(nodes->node_first);
    free(nodes->members);
    free(nodes->leader);
    memset(nodes, 0, sizeof(*nodes));
}
