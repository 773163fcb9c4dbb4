/*
 * The table of algorithms, the collectives' parameters, and the choice of an algorithm for
 * a call: GDC_<COLL>_ALGO when set, else a size-threshold default (the topology-aware cost
 * model replaces the default later).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "select/model.h"
#include "select/select.h"
#include "gdc_rt.h"

gdc_coll_config_t gdc_coll_config = {
    .chunk_bytes  = 256 * 1024,
    .shm_chunk_bytes = 256 * 1024,
    .stream_bytes    = 0,
    .small_bytes  = 8 * 1024,
    .medium_bytes = 512 * 1024,
    .tree_radix   = 4,
};

const gdc_coll_algo_t gdc_coll_algos[] = {
    {GDC_COLL_ALLREDUCE, "ring", "pipelined ring reduce-scatter then ring allgather; bandwidth-optimal",
     gdc_coll_allreduce_ring, NULL},
    {GDC_COLL_ALLREDUCE, "recursive_doubling",
     "log2(n) exchanges of the whole vector; latency-optimal for small messages",
     gdc_coll_allreduce_recursive_doubling, NULL},
    {GDC_COLL_ALLREDUCE, "rabenseifner",
     "recursive-halving reduce-scatter then recursive-doubling allgather; 2 log2(n) steps, "
     "bandwidth-optimal",
     gdc_coll_allreduce_rabenseifner, NULL},
    {GDC_COLL_ALLREDUCE, "knomial", "k-nomial tree reduce to rank 0 then k-nomial tree bcast",
     gdc_coll_allreduce_knomial, NULL},
    {GDC_COLL_ALLREDUCE, "shm",
     "one node: pipelined reduce-scatter and allgather through shared memory, each rank reducing its part",
     gdc_coll_allreduce_shm, gdc_coll_shm_supports},
    {GDC_COLL_ALLREDUCE, "shm_direct",
     "one node: every rank reduces every rank's vector straight from shared memory; small messages",
     gdc_coll_allreduce_shm_direct, gdc_coll_allreduce_shm_direct_supports},
    {GDC_COLL_ALLREDUCE, "hier_leader",
     "tree reduce to each node's leader, allreduce among leaders, pipelined tree bcast in nodes",
     gdc_coll_allreduce_hier_leader, gdc_coll_hier_supports},
    {GDC_COLL_ALLREDUCE, "hier_rails",
     "reduce-scatter in nodes, allreduce of each part along its rail (all NICs), allgather in nodes",
     gdc_coll_allreduce_hier_rails, gdc_coll_allreduce_hier_rails_supports},
    {GDC_COLL_BCAST, "binomial", "binomial tree from the root; log2(n) rounds of the whole message",
     gdc_coll_bcast_binomial, NULL},
    {GDC_COLL_BCAST, "chain", "pipelined chain from the root; bandwidth-optimal for large messages",
     gdc_coll_bcast_chain, NULL},
    {GDC_COLL_BCAST, "scatter_allgather",
     "binomial scatter of blocks then ring allgather (van de Geijn); large messages",
     gdc_coll_bcast_scatter_allgather, NULL},
    {GDC_COLL_BCAST, "shm", "one node: the root's chunks through its shared memory, copied out by all",
     gdc_coll_bcast_shm, gdc_coll_shm_supports},
    {GDC_COLL_BCAST, "hier", "pipelined trees or chains: among node leaders (the root leads its node), then in nodes",
     gdc_coll_bcast_hier, gdc_coll_hier_supports},
    {GDC_COLL_BCAST, "hier_rails",
     "root scatters its node's parts, each part down its rail (all NICs), allgather in nodes; large messages",
     gdc_coll_bcast_hier_rails, gdc_coll_bcast_hier_rails_supports},
    {GDC_COLL_REDUCE, "binomial", "binomial tree reduce to the root", gdc_coll_reduce_binomial, NULL},
    {GDC_COLL_REDUCE, "reduce_scatter_gather",
     "ring reduce-scatter then binomial gather of the blocks to the root; large messages",
     gdc_coll_reduce_scatter_gather, NULL},
    {GDC_COLL_ALLGATHER, "ring", "pipelined ring; n-1 rounds, bandwidth-optimal", gdc_coll_allgather_ring, NULL},
    {GDC_COLL_ALLGATHER, "recursive_doubling",
     "log2(n) exchanges of doubling size (non-powers of two fold in)",
     gdc_coll_allgather_recursive_doubling, NULL},
    {GDC_COLL_ALLGATHER, "bruck", "Bruck's ceil(log2 n) rounds for any n; small messages",
     gdc_coll_allgather_bruck, NULL},
    {GDC_COLL_ALLGATHER, "shm", "one node: every rank's block through its shared memory, copied out by all",
     gdc_coll_allgather_shm, gdc_coll_shm_supports},
    {GDC_COLL_ALLGATHER, "hier", "gather to node leaders, allgatherv among leaders, pipelined bcast in nodes",
     gdc_coll_allgather_hier, gdc_coll_hier_supports},
    {GDC_COLL_ALLGATHER, "hier_rails",
     "ring allgather in nodes, each part of a node's blocks along its rail (all NICs), ring in nodes",
     gdc_coll_allgather_hier_rails, gdc_coll_allgather_hier_rails_supports},
    {GDC_COLL_REDUCE_SCATTER, "ring", "pipelined ring reduce-scatter; n-1 rounds",
     gdc_coll_reduce_scatter_ring, NULL},
    {GDC_COLL_REDUCE_SCATTER, "recursive_halving",
     "log2(n) rounds halving the vector (non-powers of two fold in)",
     gdc_coll_reduce_scatter_recursive_halving, NULL},
    {GDC_COLL_ALLTOALL, "pairwise", "n-1 rounds, rank r exchanges with r+k and r-k in round k",
     gdc_coll_alltoall_pairwise, NULL},
    {GDC_COLL_ALLTOALL, "bruck", "Bruck's ceil(log2 n) rounds of packed blocks; small messages",
     gdc_coll_alltoall_bruck, NULL},
    {GDC_COLL_ALLTOALL, "shm", "one node: blocks through the sender's shared memory, copied out by their receiver",
     gdc_coll_alltoall_shm, gdc_coll_shm_supports},
    {GDC_COLL_ALLTOALL, "hier", "node-aware aggregation: one message per node pair, aggregators spread over ranks",
     gdc_coll_alltoall_hier, gdc_coll_hier_supports},
    {GDC_COLL_ALLTOALLV, "pairwise", "n-1 rounds of pairwise exchange with per-peer counts",
     gdc_coll_alltoallv_pairwise, NULL},
    {GDC_COLL_BARRIER, "dissemination", "ceil(log2 n) rounds of zero-byte messages",
     gdc_coll_barrier_dissemination, NULL},
    {GDC_COLL_BARRIER, "shm", "one node: raise a shared-memory counter, wait for everyone's",
     gdc_coll_barrier_shm, gdc_coll_shm_supports},
    {GDC_COLL_BARRIER, "hier", "fan-in to node leaders, dissemination among leaders, fan-out in nodes",
     gdc_coll_barrier_hier, gdc_coll_hier_supports},
    {GDC_COLL_GATHER, "binomial", "binomial tree towards the root, subtrees packed",
     gdc_coll_gather_binomial, NULL},
    {GDC_COLL_SCATTER, "binomial", "binomial tree from the root, subtrees packed",
     gdc_coll_scatter_binomial, NULL},
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

/* A string, NULL when empty. */
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

/* "auto" (0) is resolved at init from the node's last-level cache. */
static int parse_stream(const char *value, void *dest, const char **why)
{
    if (strcmp(value, "auto") == 0) {
        *(size_t *)dest = 0;
        return 0;
    }
    if (parse_chunk(value, dest, why) != 0) {
        *why = "\"auto\" or a byte count of at least 1K, such as 16M";
        return -1;
    }
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
    {"GDC_SHM_CHUNK", "256K", "pipelining unit of the shared-memory algorithms (bytes; sized to stay in cache)",
     parse_chunk, &gdc_coll_config.shm_chunk_bytes},
    {"GDC_STREAM_SIZE", "auto",
     "collective outputs from this size on are copied with non-temporal stores (around the cache); auto: half "
     "the last-level cache, 16M where unknown",
     parse_stream, &gdc_coll_config.stream_bytes},
    {"GDC_PROFILE", "", "machine profile for the cost model: a name (share/profiles) or a path", parse_algo_name,
     &gdc_coll_config.profile},
    {"GDC_TUNING", "", "tuning file pinning algorithms by size: lines \"COLLECTIVE MIN-MAX ALGORITHM\"",
     parse_algo_name, &gdc_coll_config.tuning},
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

/* ---------------------------------------------------------------------------------------
 * The tuning file: `COLL MIN-MAX ALGO` lines pin choices by message size
 */

typedef struct tuning_rule {
    gdc_coll_type_t        coll;
    size_t                 min_bytes, max_bytes; /* [min, max] inclusive */
    const gdc_coll_algo_t *algo;
} tuning_rule_t;

static tuning_rule_t *rules;
static int            num_rules;

static int coll_by_name(const char *name, gdc_coll_type_t *coll)
{
    for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
        if (strcmp(name, coll_names[c]) == 0) {
            *coll = (gdc_coll_type_t)c;
            return 0;
        }
    }
    return -1;
}

/* "0-4K", "4K-1M", "1M-" (no upper end), "64K" (exactly). */
static int parse_range(const char *text, size_t *lo, size_t *hi)
{
    char        first[32];
    const char *dash = strchr(text, '-');

    if (dash == NULL) {
        return gdc_rt_parse_bytes(text, lo) != 0 ? -1 : (*hi = *lo, 0);
    }
    if ((size_t)(dash - text) >= sizeof(first)) {
        return -1;
    }
    memcpy(first, text, (size_t)(dash - text));
    first[dash - text] = '\0';
    if (gdc_rt_parse_bytes(first, lo) != 0) {
        return -1;
    }
    if (dash[1] == '\0' || strcmp(dash + 1, "inf") == 0 || strcmp(dash + 1, "max") == 0) {
        *hi = SIZE_MAX;
        return 0;
    }
    return gdc_rt_parse_bytes(dash + 1, hi) != 0 || *hi < *lo ? -1 : 0;
}

static int tuning_line(char *line, const char *path, int lineno)
{
    char           coll_name[32], range[64], algo_name[64];
    int            n = sscanf(line, "%31s %63s %63s", coll_name, range, algo_name);
    tuning_rule_t *grown, rule;

    if (n <= 0 || coll_name[0] == '#') {
        return GDC_SUCCESS;
    }
    if (n != 3 || coll_by_name(coll_name, &rule.coll) != 0 || parse_range(range, &rule.min_bytes, &rule.max_bytes) != 0 ||
        (rule.algo = gdc_coll_algo_find(rule.coll, algo_name)) == NULL) {
        GDC_LOG_ERROR("%s:%d: expected \"COLLECTIVE MIN-MAX ALGORITHM\" (e.g. \"allreduce 0-4K "
                      "recursive_doubling\"; gdinfo --algorithms lists the names), got: %s",
                      path, lineno, line);
        return GDC_ERR_INVALID_ARG;
    }
    grown = realloc(rules, (size_t)(num_rules + 1) * sizeof(*rules));
    if (grown == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    rules              = grown;
    rules[num_rules++] = rule;
    return GDC_SUCCESS;
}

static int load_tuning(const char *path)
{
    char  line[256];
    int   lineno = 0, status = GDC_SUCCESS;
    FILE *f      = fopen(path, "r");

    if (f == NULL) {
        GDC_LOG_ERROR("GDC_TUNING=%s: cannot open it: %s", path, strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    while (status == GDC_SUCCESS && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        status                    = tuning_line(line, path, ++lineno);
    }
    fclose(f);
    if (status == GDC_SUCCESS) {
        GDC_LOG_INFO("tuning file %s: %d rule(s)", path, num_rules);
    }
    return status;
}

static const gdc_coll_algo_t *tuned(const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize;

    for (int i = 0; i < num_rules; i++) {
        if (rules[i].coll == args->coll && bytes >= rules[i].min_bytes && bytes <= rules[i].max_bytes) {
            return rules[i].algo;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Choosing
 */

gdc_coll_machine_t gdc_coll_machine;

static int supports(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    return algo->supports == NULL || algo->supports(args);
}

/* Outputs larger than about half the last-level cache would evict what the ranks read
 * next anyway (measured here: 16M beats 8M and off, see bench/RESULTS.md). */
static void resolve_stream_size(void)
{
    const gdc_topo_node_t *node = gdc_rt_topo_my_node();
    size_t                 llc  = node != NULL ? node->llc_bytes : 0;

    if (gdc_coll_config.stream_bytes != 0) {
        return;
    }
    gdc_coll_config.stream_bytes = llc >= 2 * 1024 ? llc / 2 : (size_t)16 * 1024 * 1024;
    GDC_LOG_DEBUG("GDC_STREAM_SIZE auto: %zu bytes (%s)", gdc_coll_config.stream_bytes,
                  llc >= 2 * 1024 ? "half the last-level cache" : "last-level cache unknown");
}

int gdc_coll_select_init(void)
{
    int status;

    resolve_stream_size();
    gdc_coll_machine_default(&gdc_coll_machine);
    if (gdc_coll_config.profile != NULL &&
        (status = gdc_coll_machine_load(&gdc_coll_machine, gdc_coll_config.profile)) != GDC_SUCCESS) {
        return status;
    }
    if ((status = gdc_coll_machine_env(&gdc_coll_machine)) != GDC_SUCCESS) {
        return status;
    }
    if (gdc_coll_config.tuning != NULL && (status = load_tuning(gdc_coll_config.tuning)) != GDC_SUCCESS) {
        return status;
    }
    return gdc_coll_select_check_forced();
}

void gdc_coll_select_finalize(void)
{
    free(rules);
    rules     = NULL;
    num_rules = 0;
}

/* How many algorithms could run the call (skip aside). */
static int candidates(const gdc_coll_args_t *args, const gdc_coll_algo_t *skip, const gdc_coll_algo_t **first)
{
    int count = 0;

    *first = NULL;
    for (int i = 0; i < gdc_coll_num_algos; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        if (algo->coll == args->coll && algo != skip && supports(algo, args)) {
            *first = *first != NULL ? *first : algo;
            count++;
        }
    }
    return count;
}

/* The cheapest supported algorithm on the model (the first in table order on a tie). The
 * model runs every rank's schedule, so it needs shapes every rank knows: an alltoallv's
 * counts are its own, and it takes the first candidate. */
static const gdc_coll_algo_t *cheapest(const gdc_coll_args_t *args, int on_device, const gdc_coll_algo_t *skip)
{
    const gdc_coll_algo_t *best      = NULL;
    double                 best_time = 0;

    if (candidates(args, skip, &best) <= 1 || args->coll == GDC_COLL_ALLTOALLV) {
        return best;
    }
    best = NULL;
    for (int i = 0; i < gdc_coll_num_algos; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        gdc_coll_prediction_t  p;

        if (algo->coll != args->coll || algo == skip || !supports(algo, args)) {
            continue;
        }
        if (gdc_coll_predict(&gdc_coll_machine, algo, args, on_device, &p) != GDC_SUCCESS) {
            continue;
        }
        if (best == NULL || p.seconds < best_time) {
            best      = algo;
            best_time = p.seconds;
        }
    }
    return best;
}

const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args, int on_device)
{
    const gdc_coll_algo_t *chosen = NULL;
    const char            *how    = NULL;
    const char            *forced = gdc_coll_config.algo_env[args->coll];

    if (forced != NULL) {
        chosen = gdc_coll_algo_find(args->coll, forced);
        how    = "GDC_*_ALGO";
    } else if ((chosen = tuned(args)) != NULL) {
        how = "the tuning file";
    }
    if (chosen != NULL && !supports(chosen, args)) {
        static unsigned char told[64]; /* once per algorithm: a loop would repeat it per call */
        const gdc_coll_algo_t *instead = cheapest(args, on_device, chosen);
        int                    which   = (int)(chosen - gdc_coll_algos);
        if (which < 64 && !told[which]) {
            told[which] = 1;
            GDC_LOG_INFO("%s(%s) from %s does not support this call (%zu x %s on %d ranks, %d node(s)); "
                         "using the next cheapest, %s (said once)",
                         gdc_coll_type_name(args->coll), chosen->name, how, args->count,
                         gdc_rt_dtype_name(args->dtype), args->size, args->num_nodes,
                         instead != NULL ? instead->name : "none");
        }
        return instead;
    }
    return chosen != NULL ? chosen : cheapest(args, on_device, NULL);
}
