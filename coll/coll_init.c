/*
 * The collectives layer's life: its GDC_* parameters (declared here once, with their
 * defaults, read by the runtime's configuration), and its start and stop.
 */
#include "gdc_coll.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gdc_rt.h"
#include "rt_topo.h"
#include "select/select.h"

const gdc_coll_config_t gdc_coll_config_defaults = {
    .chunk_bytes     = 0, /* auto, as GDC_CHUNK_SIZE is by default */
    .shm_chunk_bytes = 256 * 1024,
    .stream_bytes    = 16 * 1024 * 1024,
    .hier_ring_bytes = 512 * 1024,
    .tree_radix      = 4,
};

static gdc_coll_config_t        live;
static gdc_coll_select_config_t live_select;

const gdc_coll_config_t *gdc_coll_config_get(void)
{
    return &live;
}

const struct gdc_coll_select_config *gdc_coll_select_config_get(void)
{
    return &live_select;
}

/* ---------------------------------------------------------------------------------------
 * Parameters
 */

/* A string, NULL when empty. */
static int parse_name(const char *value, void *dest, const char **why)
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

/* "auto" (0): the selection sizes chunks per link class. */
static int parse_auto_chunk(const char *value, void *dest, const char **why)
{
    if (strcmp(value, "auto") == 0) {
        *(size_t *)dest = 0;
        return 0;
    }
    if (parse_chunk(value, dest, why) != 0) {
        *why = "\"auto\" or a byte count of at least 1K, such as 256K";
        return -1;
    }
    return 0;
}

static int parse_bytes(const char *value, void *dest, const char **why)
{
    *why = "a byte count, such as 512K";
    return gdc_rt_parse_bytes(value, dest) != 0 ? -1 : 0;
}

static int parse_radix(const char *value, void *dest, const char **why)
{
    char *end;
    long  radix;

    /* not sscanf("%d"): it took "4x" as 4, and "4294967300" as 4 too (int overflow) */
    *why  = "an integer from 2 to 16";
    errno = 0;
    radix = strtol(value, &end, 10);
    if (!isdigit((unsigned char)value[0]) || *end != '\0' || errno != 0 || radix < 2 || radix > 16) {
        return -1;
    }
    *(int *)dest = (int)radix;
    return 0;
}

#define FORCE_PARAM(COLL, NAME, name)                                                                \
    {"GDC_" NAME "_ALGO", "", "force the " name " algorithm (gdinfo --algorithms lists them)", parse_name, \
     &live_select.forced[COLL]}

static const gdc_rt_param_t coll_params[] = {
    FORCE_PARAM(GDC_COLL_BARRIER, "BARRIER", "barrier"),
    FORCE_PARAM(GDC_COLL_BCAST, "BCAST", "bcast"),
    FORCE_PARAM(GDC_COLL_REDUCE, "REDUCE", "reduce"),
    FORCE_PARAM(GDC_COLL_ALLREDUCE, "ALLREDUCE", "allreduce"),
    FORCE_PARAM(GDC_COLL_ALLGATHER, "ALLGATHER", "allgather"),
    FORCE_PARAM(GDC_COLL_REDUCE_SCATTER, "REDUCE_SCATTER", "reduce_scatter"),
    FORCE_PARAM(GDC_COLL_ALLTOALL, "ALLTOALL", "alltoall"),
    FORCE_PARAM(GDC_COLL_ALLTOALLV, "ALLTOALLV", "alltoallv"),
    FORCE_PARAM(GDC_COLL_GATHER, "GATHER", "gather"),
    FORCE_PARAM(GDC_COLL_SCATTER, "SCATTER", "scatter"),
    {"GDC_CHUNK_SIZE", "auto",
     "pipelining unit of large collectives (bytes); auto: each link's own, long enough that a chunk's latency is "
     "a quarter of its transfer at most (256K at least: megabytes on NVLink)",
     parse_auto_chunk, &live.chunk_bytes},
    {"GDC_TREE_RADIX", "4", "k of the k-nomial tree algorithms", parse_radix, &live.tree_radix},
    {"GDC_SHM_CHUNK", "256K", "pipelining unit of the shared-memory algorithms (bytes; sized to stay in cache)",
     parse_chunk, &live.shm_chunk_bytes},
    {"GDC_STREAM_SIZE", "auto",
     "collective outputs from this size on are copied with non-temporal stores (around the cache); auto: half "
     "the last-level cache, 16M where unknown",
     parse_stream, &live.stream_bytes},
    {"GDC_HIER_RING_MIN", "512K",
     "hierarchical algorithms' phases among nodes (leaders, rails) run a pipelined ring above this many bytes "
     "and recursive doubling up to it",
     parse_bytes, &live.hier_ring_bytes},
    {"GDC_CHECK", "0",
     "1: before each collective, compare every rank's call (collective, count, dtype, op, root, device or host "
     "memory) and fail mismatches with GDC_ERR_INVALID_ARG on every rank instead of moving wrong data (costs "
     "about one small allgather per call); 0: off",
     gdc_rt_parse_flag, &live.check},
    {"GDC_DEVICE_QUEUE", "0",
     "1: the ipc algorithms queue their kernels and copies on gdc's stream and wait only before telling a peer "
     "(a signal), a message or the end of the call (the ipc_leader ones always do); 0: each is waited for (the "
     "path proven on a GPU; 1 has run there for speed, not yet with its results checked)",
     gdc_rt_parse_flag, &live.device_queue},
    {"GDC_DEVICE_FUSED", "0",
     "1: the ipc_leader allreduce and reduce_scatter reduce every rank's input with one kernel that reads each "
     "input once and writes each output once; 0: two inputs at a time, then copies (the path proven on a GPU; "
     "1 has not run on one yet)",
     gdc_rt_parse_flag, &live.device_fused},
    {"GDC_PROFILE", "", "machine profile for the cost model: a name (share/profiles) or a path", parse_name,
     &live_select.profile},
    {"GDC_TUNING", "", "tuning file pinning algorithms by size: lines \"COLLECTIVE MIN-MAX ALGORITHM\"", parse_name,
     &live_select.tuning},
};

void gdc_coll_register_params(void)
{
    gdc_rt_config_register("collectives", coll_params, (int)(sizeof(coll_params) / sizeof(coll_params[0])));
}

/* ---------------------------------------------------------------------------------------
 * Start and stop
 */

/* Outputs larger than about half the last-level cache would evict what the ranks read
 * next anyway (measured here: 16M beats 8M and off, see bench/RESULTS.md). */
static void resolve_stream_size(void)
{
    const gdc_topo_node_t *node = gdc_rt_topo_my_node();
    size_t                 llc  = node != NULL ? node->llc_bytes : 0;

    if (live.stream_bytes != 0) {
        return;
    }
    live.stream_bytes = llc >= 2 * 1024 ? llc / 2 : gdc_coll_config_defaults.stream_bytes;
    GDC_LOG_DEBUG("GDC_STREAM_SIZE auto: %zu bytes (%s)", live.stream_bytes,
                  llc >= 2 * 1024 ? "half the last-level cache" : "last-level cache unknown");
}

gdc_status_t gdc_coll_init(void)
{
    gdc_status_t status;

    resolve_stream_size();
    status = gdc_coll_select_init(&live_select);
    if (status != GDC_SUCCESS) {
        return status;
    }
    gdc_coll_engine_init();
    return GDC_SUCCESS;
}

gdc_status_t gdc_coll_init_world(void)
{
    return gdc_coll_select_remeasured();
}

void gdc_coll_finalize(void)
{
    gdc_coll_engine_finalize();
    gdc_coll_select_finalize();
}
