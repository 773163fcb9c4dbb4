/*
 * What a call is to the algorithms, in one place for the API and for the simulator: the
 * collectives' names, whether it is in place, which memory is INPUT and OUTPUT, and how
 * large they are.
 */
#include "coll.h"

#include <gdc.h>

static const char *const coll_names[GDC_COLL_TYPE_COUNT] = {
    [GDC_COLL_BARRIER] = "barrier",     [GDC_COLL_BCAST] = "bcast",
    [GDC_COLL_REDUCE] = "reduce",       [GDC_COLL_ALLREDUCE] = "allreduce",
    [GDC_COLL_ALLGATHER] = "allgather", [GDC_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [GDC_COLL_ALLTOALL] = "alltoall",   [GDC_COLL_ALLTOALLV] = "alltoallv",
    [GDC_COLL_GATHER] = "gather",       [GDC_COLL_SCATTER] = "scatter",
};

const char *gdc_coll_type_name(gdc_coll_type_t coll)
{
    return (unsigned)coll < GDC_COLL_TYPE_COUNT ? coll_names[coll] : "unknown";
}

int gdc_coll_is_rooted(gdc_coll_type_t coll)
{
    return coll == GDC_COLL_BCAST || coll == GDC_COLL_REDUCE || coll == GDC_COLL_GATHER || coll == GDC_COLL_SCATTER;
}

int gdc_coll_is_in_place(gdc_coll_type_t coll, int rank, int root, const void *sendbuf, const void *recvbuf)
{
    switch (coll) {
    case GDC_COLL_REDUCE:
    case GDC_COLL_GATHER:
        return rank == root && sendbuf == GDC_IN_PLACE;
    case GDC_COLL_SCATTER:
        return rank == root && recvbuf == GDC_IN_PLACE;
    case GDC_COLL_ALLREDUCE:
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_REDUCE_SCATTER:
    case GDC_COLL_ALLTOALL:
    case GDC_COLL_ALLTOALLV:
        return sendbuf == GDC_IN_PLACE;
    default:
        return 0;
    }
}

void gdc_coll_map_buffers(const gdc_coll_args_t *args, const void *sendbuf, void *recvbuf, const void **input,
                          void **output)
{
    size_t block   = args->count * args->dsize;
    int    is_root = args->rank == args->root;

    *input  = args->in_place ? recvbuf : sendbuf;
    *output = recvbuf;
    switch (args->coll) {
    case GDC_COLL_BCAST:
        *input = recvbuf;
        break;
    case GDC_COLL_REDUCE:
        *output = is_root ? recvbuf : NULL;
        break;
    case GDC_COLL_ALLGATHER:
        if (args->in_place) {
            *input = (char *)recvbuf + block * (size_t)args->rank; /* my block, in its place */
        }
        break;
    case GDC_COLL_GATHER:
        if (args->in_place) {
            *input = (char *)recvbuf + block * (size_t)args->root;
        }
        *output = is_root ? recvbuf : NULL;
        break;
    case GDC_COLL_SCATTER:
        *input  = is_root ? sendbuf : NULL;
        *output = args->in_place ? (char *)sendbuf + block * (size_t)args->root : recvbuf;
        break;
    case GDC_COLL_BARRIER:
        *input  = NULL;
        *output = NULL;
        break;
    default:
        break;
    }
}

static size_t extent(const size_t *counts, const size_t *displs, int n)
{
    size_t end = 0;

    if (counts == NULL || displs == NULL) {
        return 0; /* a cached schedule keeps no per-call arrays */
    }
    for (int p = 0; p < n; p++) {
        if (counts[p] > 0 && displs[p] + counts[p] > end) {
            end = displs[p] + counts[p];
        }
    }
    return end;
}

size_t gdc_coll_input_bytes(const gdc_coll_args_t *args)
{
    size_t n = (size_t)args->size, c = args->count;

    switch (args->coll) {
    case GDC_COLL_BCAST:
    case GDC_COLL_REDUCE:
    case GDC_COLL_ALLREDUCE:
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_GATHER: return c * args->dsize;
    case GDC_COLL_REDUCE_SCATTER:
    case GDC_COLL_ALLTOALL: return n * c * args->dsize;
    case GDC_COLL_ALLTOALLV: return extent(args->sendcounts, args->sdispls, args->size) * args->dsize;
    case GDC_COLL_SCATTER: return args->rank == args->root ? n * c * args->dsize : 0;
    default: return 0;
    }
}

size_t gdc_coll_output_bytes(const gdc_coll_args_t *args)
{
    size_t n = (size_t)args->size, c = args->count;

    switch (args->coll) {
    case GDC_COLL_BCAST:
    case GDC_COLL_ALLREDUCE:
    case GDC_COLL_REDUCE_SCATTER:
    case GDC_COLL_SCATTER: return c * args->dsize;
    case GDC_COLL_REDUCE: return args->rank == args->root ? c * args->dsize : 0;
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_ALLTOALL: return n * c * args->dsize;
    case GDC_COLL_ALLTOALLV: return extent(args->recvcounts, args->rdispls, args->size) * args->dsize;
    case GDC_COLL_GATHER: return args->rank == args->root ? n * c * args->dsize : 0;
    default: return 0;
    }
}

/* One rank's buffers: a bcast's, or an in-place call's, input is its output. */
static double rank_buffer_bytes(const gdc_coll_args_t *args)
{
    size_t in = gdc_coll_input_bytes(args), out = gdc_coll_output_bytes(args);

    if (args->coll == GDC_COLL_BCAST || args->in_place) {
        return (double)(in > out ? in : out);
    }
    return (double)in + (double)out;
}

double gdc_coll_node_buffer_bytes(const gdc_coll_args_t *args)
{
    gdc_coll_args_t one   = *args;
    int             nodes = args->num_nodes > 1 ? args->num_nodes : 1;
    int             local = (args->size + nodes - 1) / nodes;
    double          root;

    one.rank = args->root >= 0 && args->root < args->size ? args->root : 0;
    root     = rank_buffer_bytes(&one);
    one.rank = one.rank == 0 && args->size > 1 ? 1 : 0;
    return root + (local - 1) * rank_buffer_bytes(&one);
}

int gdc_coll_is_empty(const gdc_coll_args_t *args)
{
    return args->coll != GDC_COLL_BARRIER && args->coll != GDC_COLL_ALLTOALLV && args->count == 0;
}

int gdc_coll_outnumbered(int ranks, int nodes, int cores)
{
    return nodes <= 1 && cores > 0 && ranks > cores;
}

int gdc_coll_oversubscribed(const gdc_coll_args_t *args)
{
    return gdc_coll_outnumbered(args->size, args->num_nodes, args->node_cores);
}
