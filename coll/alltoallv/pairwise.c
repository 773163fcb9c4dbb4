/* alltoallv pairwise: the pairwise exchange with per-peer counts and displacements. In
 * place, the receive counts and displacements describe both directions. */
#include "algos.h"

#include "alltoall/alltoall.h"

static size_t send_offset(const gdc_coll_args_t *args, int p)
{
    return args->in_place ? args->rdispls[p] : args->sdispls[p];
}

static size_t send_count(const gdc_coll_args_t *args, int p)
{
    return args->in_place ? args->recvcounts[p] : args->sendcounts[p];
}

static size_t recv_offset(const gdc_coll_args_t *args, int p)
{
    return args->rdispls[p];
}

static size_t recv_count(const gdc_coll_args_t *args, int p)
{
    return args->recvcounts[p];
}

static const gdc_coll_a2a_layout_t per_peer = {send_offset, send_count, recv_offset, recv_count};

GDC_COLL_BUILDER(gdc_coll_alltoallv_pairwise)
{
    return gdc_coll_a2a_pairwise(sched, args, &per_peer);
}
