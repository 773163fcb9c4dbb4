/*
 * The table of algorithms, the collectives' parameters, and the choice of an algorithm for
 * a call: GDC_<COLL>_ALGO when set, else a size-threshold default (the topology-aware cost
 * model replaces the default later).
 */
#include <stdio.h>
#include <string.h>

#include "coll_algo.h"
#include "coll_select.h"
#include "gdc_rt.h"

gdc_coll_config_t gdc_coll_config = {
    .chunk_bytes  = 256 * 1024,
    .small_bytes  = 8 * 1024,
    .medium_bytes = 512 * 1024,
    .tree_radix   = 4,
};

const gdc_coll_algo_t gdc_coll_algos[] = {
    {GDC_COLL_ALLREDUCE, "ring", "pipelined ring reduce-scatter then ring allgather; bandwidth-optimal",
     gdc_coll_allreduce_ring},
    {GDC_COLL_ALLREDUCE, "recursive_doubling",
     "log2(n) exchanges of the whole vector; latency-optimal for small messages",
     gdc_coll_allreduce_recursive_doubling},
    {GDC_COLL_ALLREDUCE, "rabenseifner",
     "recursive-halving reduce-scatter then recursive-doubling allgather; 2 log2(n) steps, "
     "bandwidth-optimal",
     gdc_coll_allreduce_rabenseifner},
    {GDC_COLL_ALLREDUCE, "knomial", "k-nomial tree reduce to rank 0 then k-nomial tree bcast",
     gdc_coll_allreduce_knomial},
    {GDC_COLL_BCAST, "binomial", "binomial tree from the root; log2(n) rounds of the whole message",
     gdc_coll_bcast_binomial},
    {GDC_COLL_BCAST, "chain", "pipelined chain from the root; bandwidth-optimal for large messages",
     gdc_coll_bcast_chain},
    {GDC_COLL_BCAST, "scatter_allgather",
     "binomial scatter of blocks then ring allgather (van de Geijn); large messages",
     gdc_coll_bcast_scatter_allgather},
    {GDC_COLL_REDUCE, "binomial", "binomial tree reduce to the root", gdc_coll_reduce_binomial},
    {GDC_COLL_REDUCE, "reduce_scatter_gather",
     "ring reduce-scatter then binomial gather of the blocks to the root; large messages",
     gdc_coll_reduce_scatter_gather},
    {GDC_COLL_ALLGATHER, "ring", "pipelined ring; n-1 rounds, bandwidth-optimal", gdc_coll_allgather_ring},
    {GDC_COLL_ALLGATHER, "recursive_doubling",
     "log2(n) exchanges of doubling size (non-powers of two fold in)",
     gdc_coll_allgather_recursive_doubling},
    {GDC_COLL_ALLGATHER, "bruck", "Bruck's ceil(log2 n) rounds for any n; small messages",
     gdc_coll_allgather_bruck},
    {GDC_COLL_REDUCE_SCATTER, "ring", "pipelined ring reduce-scatter; n-1 rounds",
     gdc_coll_reduce_scatter_ring},
    {GDC_COLL_REDUCE_SCATTER, "recursive_halving",
     "log2(n) rounds halving the vector (non-powers of two fold in)",
     gdc_coll_reduce_scatter_recursive_halving},
    {GDC_COLL_ALLTOALL, "pairwise", "n-1 rounds, rank r exchanges with r+k and r-k in round k",
     gdc_coll_alltoall_pairwise},
    {GDC_COLL_ALLTOALL, "bruck", "Bruck's ceil(log2 n) rounds of packed blocks; small messages",
     gdc_coll_alltoall_bruck},
    {GDC_COLL_ALLTOALLV, "pairwise", "n-1 rounds of pairwise exchange with per-peer counts",
     gdc_coll_alltoallv_pairwise},
    {GDC_COLL_BARRIER, "dissemination", "ceil(log2 n) rounds of zero-byte messages",
     gdc_coll_barrier_dissemination},
    {GDC_COLL_GATHER, "binomial", "binomial tree towards the root, subtrees packed",
     gdc_coll_gather_binomial},
    {GDC_COLL_SCATTER, "binomial", "binomial tree from the root, subtrees packed",
     gdc_coll_scatter_binomial},
};

const int gdc_coll_num_algos = (int)(sizeof(gdc_coll_algos) / sizeof(gdc_coll_algos[0]));

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

const gdc_coll_algo_t *gdc_coll_algo_find(gdc_coll_type_t coll, const char *name)
{
    for (int i = 0; i < gdc_coll_num_algos; i++) {
        if (gdc_coll_algos[i].coll == coll && strcmp(gdc_coll_algos[i].name, name) == 0) {
            return &gdc_coll_algos[i];
        }
    }
    return NULL;
}

int gdc_coll_chunks(size_t bytes, int rounds)
{
    size_t chunks     = (bytes + gdc_coll_config.chunk_bytes - 1) / gdc_coll_config.chunk_bytes;
    size_t max_chunks = GDC_COLL_MAX_SLOTS / (size_t)(rounds > 0 ? rounds : 1);

    if (chunks > max_chunks) {
        chunks = max_chunks;
    }
    return chunks > 0 ? (int)chunks : 1;
}

/* ---------------------------------------------------------------------------------------
 * Parameters
 */

static int parse_algo_name(const char *value, void *dest, const char **why)
{
    *(const char **)dest = value[0] != '\0' ? value : NULL;
    return 0;
}

static int parse_chunk(const char *value, void *dest, const char **why)
{
    size_t bytes;

    *why = "a byte count of at least 1K, such as 256K";
    if (gdc_rt_parse_bytes(value, &bytes) != 0 || bytes < 1024) {
        return -1;
    }
    *(size_t *)dest = bytes;
    return 0;
}

static int parse_radix(const char *value, void *dest, const char **why)
{
    int radix = 0;

    *why = "an integer from 2 to 16";
    if (sscanf(value, "%d", &radix) != 1 || radix < 2 || radix > 16) {
        return -1;
    }
    *(int *)dest = radix;
    return 0;
}

#define ALGO_PARAM(COLL, NAME, name)                                                          \
    {"GDC_" NAME "_ALGO", "", "force the " name " algorithm (gdinfo --algorithms lists them)",  \
     parse_algo_name, &gdc_coll_config.algo_env[COLL]}

/* The GDC_<COLL>_ALGO entries come first, in gdc_coll_type_t order. */
static const gdc_rt_param_t coll_params[] = {
    ALGO_PARAM(GDC_COLL_BARRIER, "BARRIER", "barrier"),
    ALGO_PARAM(GDC_COLL_BCAST, "BCAST", "bcast"),
    ALGO_PARAM(GDC_COLL_REDUCE, "REDUCE", "reduce"),
    ALGO_PARAM(GDC_COLL_ALLREDUCE, "ALLREDUCE", "allreduce"),
    ALGO_PARAM(GDC_COLL_ALLGATHER, "ALLGATHER", "allgather"),
    ALGO_PARAM(GDC_COLL_REDUCE_SCATTER, "REDUCE_SCATTER", "reduce_scatter"),
    ALGO_PARAM(GDC_COLL_ALLTOALL, "ALLTOALL", "alltoall"),
    ALGO_PARAM(GDC_COLL_ALLTOALLV, "ALLTOALLV", "alltoallv"),
    ALGO_PARAM(GDC_COLL_GATHER, "GATHER", "gather"),
    ALGO_PARAM(GDC_COLL_SCATTER, "SCATTER", "scatter"),
    {"GDC_CHUNK_SIZE", "256K", "pipelining unit of large collectives (bytes)", parse_chunk,
     &gdc_coll_config.chunk_bytes},
    {"GDC_TREE_RADIX", "4", "k of the k-nomial tree algorithms", parse_radix, &gdc_coll_config.tree_radix},
};

void gdc_coll_register_params(void)
{
    gdc_rt_config_register("collectives", coll_params, (int)(sizeof(coll_params) / sizeof(coll_params[0])));
}

/* Every forced name must exist: checked once at init, so a typo fails gdc_init with the
 * list of valid names instead of surprising later. */
int gdc_coll_select_check_forced(void)
{
    for (int coll = 0; coll < GDC_COLL_TYPE_COUNT; coll++) {
        const char *name = gdc_coll_config.algo_env[coll];
        char        valid[256];
        size_t      used = 0;

        if (name == NULL || gdc_coll_algo_find((gdc_coll_type_t)coll, name) != NULL) {
            continue;
        }
        valid[0] = '\0';
        for (int i = 0; i < gdc_coll_num_algos; i++) {
            if (gdc_coll_algos[i].coll == (gdc_coll_type_t)coll && used < sizeof(valid)) {
                used += (size_t)snprintf(valid + used, sizeof(valid) - used, "%s%s", used ? ", " : "",
                                         gdc_coll_algos[i].name);
            }
        }
        GDC_LOG_ERROR("%s=%s names no %s algorithm; valid names: %s", coll_params[coll].name, name,
                      gdc_coll_type_name((gdc_coll_type_t)coll), valid);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

static const gdc_coll_algo_t *by_name(gdc_coll_type_t coll, const char *name)
{
    const gdc_coll_algo_t *algo = gdc_coll_algo_find(coll, name);

    if (algo == NULL) {
        GDC_LOG_ERROR("internal: no %s algorithm %s", gdc_coll_type_name(coll), name);
    }
    return algo;
}

/* The default before the cost model: latency-bound algorithms for small messages,
 * bandwidth-bound ones for large. */
static const char *default_algo(const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize;
    int    pof2  = (args->size & (args->size - 1)) == 0;

    switch (args->coll) {
    case GDC_COLL_ALLREDUCE:
        if (bytes <= gdc_coll_config.small_bytes || (size_t)args->size > args->count) {
            return "recursive_doubling";
        }
        return (bytes <= gdc_coll_config.medium_bytes && pof2) ? "rabenseifner" : "ring";
    case GDC_COLL_BCAST:
        if (bytes <= gdc_coll_config.small_bytes || args->size <= 2) {
            return "binomial";
        }
        return bytes <= gdc_coll_config.medium_bytes ? "scatter_allgather" : "chain";
    case GDC_COLL_REDUCE:
        return (bytes <= gdc_coll_config.medium_bytes || (size_t)args->size > args->count)
                   ? "binomial"
                   : "reduce_scatter_gather";
    case GDC_COLL_ALLGATHER:
        if (bytes * (size_t)args->size <= gdc_coll_config.small_bytes) {
            return "bruck";
        }
        return (pof2 && bytes * (size_t)args->size <= gdc_coll_config.medium_bytes) ? "recursive_doubling"
                                                                                   : "ring";
    case GDC_COLL_REDUCE_SCATTER:
        return (pof2 && bytes * (size_t)args->size <= gdc_coll_config.medium_bytes) ? "recursive_halving"
                                                                                   : "ring";
    case GDC_COLL_ALLTOALL:
        return (bytes <= 256 && args->size > 2) ? "bruck" : "pairwise";
    case GDC_COLL_ALLTOALLV: return "pairwise";
    case GDC_COLL_BARRIER: return "dissemination";
    case GDC_COLL_GATHER: return "binomial";
    case GDC_COLL_SCATTER: return "binomial";
    case GDC_COLL_TYPE_COUNT: break;
    }
    return NULL;
}

const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args)
{
    const char *forced = gdc_coll_config.algo_env[args->coll];

    if (forced != NULL) {
        return by_name(args->coll, forced);
    }
    return by_name(args->coll, default_algo(args));
}
