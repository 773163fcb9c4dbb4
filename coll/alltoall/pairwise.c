/* alltoall pairwise: n-1 rounds, in round k rank r sends its block for r+k and receives the
 * block from r-k; a window of sends in flight inside the node and one off it, the rounds in
 * an order that spreads a node's messages over the other nodes' ranks, a rank's rounds off
 * its node first (alltoall/common.c). The bandwidth choice. */
#include "algos.h"

#include "alltoall/alltoall.h"

static size_t block_offset(const gdc_coll_args_t *args, int p)
{
    return args->count * (size_t)p;
}

static size_t block_count(const gdc_coll_args_t *args, int p)
{
    return args->count;
}

static const gdc_coll_a2a_layout_t equal_blocks = {block_offset, block_count, block_offset, block_count};

GDC_COLL_BUILDER(gdc_coll_alltoall_pairwise)
{
    return gdc_coll_a2a_pairwise(sched, args, &equal_blocks);
}
