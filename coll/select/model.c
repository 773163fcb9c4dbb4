#include "select/model.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "engine/sched.h"
#include "config.h"
#include "gdc_rt.h"
#include "select/heap.h"

/* ---------------------------------------------------------------------------------------
 * Machines
 */

static void set_link(gdc_coll_machine_t *m, gdc_link_class_t c, double latency_us, double bandwidth_gbs)
{
    m->link[c].latency   = latency_us * 1e-6;
    m->link[c].bandwidth = bandwidth_gbs * 1e9;
}

void gdc_coll_machine_default(gdc_coll_machine_t *m)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->name, sizeof(m->name), "default");
    snprintf(m->description, sizeof(m->description),
             "host memory over UCX shared memory inside a node, TCP-class network between nodes");
    /* measured on the development machines: UCX sysv/cma and loopback TCP (the shared
     * memory's rate as default.prof says) */
    set_link(m, GDC_LINK_SELF, 0.1, 20);
    set_link(m, GDC_LINK_SHM, 0.4, 5);
    set_link(m, GDC_LINK_NVLINK, 3, 450);
    set_link(m, GDC_LINK_PCIE, 5, 25);
    set_link(m, GDC_LINK_NET_GDR, 5, 24);
    set_link(m, GDC_LINK_NET, 15, 1.2);
    m->reduce_bw     = 12e9;
    m->reduce_bw_gpu = 1000e9;
    m->copy_bw       = 20e9;
    m->copy_bw_gpu   = 1000e9;
    /* bench/membw --cma: 2.2 to 3.4x memcpy's time from 1 MiB; a call's system call and
     * page pinning: the forced 2-rank cma calls of 16 KiB take 3 to 4 us, bcast cma's on 2
     * ranks 4.2 us + 16 us per MiB from 64 to 256 KiB (RESULTS.md 2026-12-04, 2026-12-05) */
    m->cma_bw        = 8e9;
    m->cma_latency   = 4e-6;
    /* while the node's buffers fit its last-level cache (which select.c takes from the
     * topology): bcast shm and cma forced on 2 ranks, 64 KiB to 1 MiB, take 1 us + 33 us
     * per MiB and 3.6 us + 21 us per MiB (half a MiB read by each rank) on the development
     * VM (bench/RESULTS.md 2026-12-05) */
    m->copy_bw_cached   = 40e9;
    m->cma_bw_cached    = 24e9;
    m->reduce_bw_cached = 24e9; /* twice its rate from memory, as memcpy's */
    /* an H200 in a Firecracker VM: 10.7 us per 8-byte cuMemcpyAsync and stream wait
     * (tests/gpu/ipc_probe, bench/RESULTS.md 2026-12-04) */
    m->gpu_latency   = 10e-6;
    m->step_overhead  = 0.05e-6;
    m->signal_latency = 0.1e-6;
    /* measured on 2 cores: allreduce shm_direct of 256 B to 4 KiB, one wait on every peer,
     * 6.3 to 7.5 us on 3 ranks and 9.8 to 11.0 on 4; priced with this, 7.0 to 7.9 and
     * 10.4 to 11.6 (bench/RESULTS.md, 2026-12-04 21:40) */
    m->switch_time    = 20e-6;
    m->cores_per_node = 0;
    m->llc_mib        = 0;
    m->core_cache_kib = 0;
    m->nics_per_node = 1;
    m->gpus_per_node = 0;
    m->intra_host    = GDC_LINK_SHM;
    m->intra_device  = GDC_LINK_SHM;
    m->inter_host    = GDC_LINK_NET;
    m->inter_device  = GDC_LINK_NET;
}

static int class_by_name(const char *name, gdc_link_class_t *c)
{
    for (int i = 0; i < GDC_LINK_NUM_CLASSES; i++) {
        if (strcmp(name, gdc_link_class_name((gdc_link_class_t)i)) == 0) {
            *c = (gdc_link_class_t)i;
            return 0;
        }
    }
    return -1;
}

/* The numbers a profile or GDC_LINK_* may give: wide enough for any machine, narrow
 * enough that every price the model adds up stays finite (a rate of 0, nan or inf, or a
 * word atof read as 0, made prices infinite or meaningless). */
#define PROFILE_MAX_US  1e9  /* microseconds: latencies, step overhead, signals */
#define PROFILE_MIN_GBS 1e-6 /* GB/s: bandwidths and rates */
#define PROFILE_MAX_GBS 1e9

/* A whole word that is a number from min to max (so neither nan nor inf); 0 on success. */
static int read_number(const char *word, double min, double max, double *value)
{
    char *end;

    errno  = 0;
    *value = strtod(word, &end);
    return end != word && *end == '\0' && errno == 0 && *value >= min && *value <= max ? 0 : -1;
}

/* A whole word that is a whole number from min to max; 0 on success. */
static int read_count(const char *word, int min, int max, int *value)
{
    char *end;
    long  v;

    errno = 0;
    v     = strtol(word, &end, 10);
    if (!isdigit((unsigned char)word[0]) || *end != '\0' || errno != 0 || v < min || v > max) {
        return -1;
    }
    *value = (int)v;
    return 0;
}

/* What a key of the profile sets, and in which unit. */
typedef enum {
    PROFILE_RATE,  /* GB/s into bytes per second */
    PROFILE_TIME,  /* microseconds into seconds */
    PROFILE_COUNT, /* a whole number per node */
    PROFILE_CLASS  /* a link class by name */
} profile_kind_t;

typedef struct profile_key {
    const char    *key;
    profile_kind_t kind;
    size_t         offset; /* of the field in gdc_coll_machine_t */
    int            min;    /* PROFILE_COUNT: the least value */
} profile_key_t;

#define PROFILE_KEY(_key, _kind, _field, _min) {_key, _kind, offsetof(gdc_coll_machine_t, _field), _min}

static const profile_key_t profile_keys[] = {
    PROFILE_KEY("reduce_GBs", PROFILE_RATE, reduce_bw, 0),
    PROFILE_KEY("reduce_gpu_GBs", PROFILE_RATE, reduce_bw_gpu, 0),
    PROFILE_KEY("reduce_cached_GBs", PROFILE_RATE, reduce_bw_cached, 0),
    PROFILE_KEY("reduce_peer_cached_GBs", PROFILE_RATE, reduce_bw_peer_cached, 0),
    PROFILE_KEY("copy_GBs", PROFILE_RATE, copy_bw, 0),
    PROFILE_KEY("copy_gpu_GBs", PROFILE_RATE, copy_bw_gpu, 0),
    PROFILE_KEY("copy_cached_GBs", PROFILE_RATE, copy_bw_cached, 0),
    PROFILE_KEY("copy_peer_cached_GBs", PROFILE_RATE, copy_bw_peer_cached, 0),
    PROFILE_KEY("copy_shared_cached_GBs", PROFILE_RATE, copy_bw_shared_cached, 0),
    PROFILE_KEY("copy_peer_small_GBs", PROFILE_RATE, copy_bw_peer_small, 0),
    PROFILE_KEY("cma_GBs", PROFILE_RATE, cma_bw, 0),
    PROFILE_KEY("cma_us", PROFILE_TIME, cma_latency, 0),
    PROFILE_KEY("cma_cached_GBs", PROFILE_RATE, cma_bw_cached, 0),
    PROFILE_KEY("llc_MiB", PROFILE_COUNT, llc_mib, 0),
    PROFILE_KEY("gpu_us", PROFILE_TIME, gpu_latency, 0),
    PROFILE_KEY("step_overhead_us", PROFILE_TIME, step_overhead, 0),
    PROFILE_KEY("signal_us", PROFILE_TIME, signal_latency, 0),
    PROFILE_KEY("switch_us", PROFILE_TIME, switch_time, 0),
    PROFILE_KEY("cores_per_node", PROFILE_COUNT, cores_per_node, 0),
    PROFILE_KEY("nics_per_node", PROFILE_COUNT, nics_per_node, 1),
    PROFILE_KEY("gpus_per_node", PROFILE_COUNT, gpus_per_node, 0),
    PROFILE_KEY("intra_host", PROFILE_CLASS, intra_host, 0),
    PROFILE_KEY("intra_device", PROFILE_CLASS, intra_device, 0),
    PROFILE_KEY("inter_host", PROFILE_CLASS, inter_host, 0),
    PROFILE_KEY("inter_device", PROFILE_CLASS, inter_device, 0),
};

static void profile_bad_value(const profile_key_t *key, const char *word, const char *where, int lineno)
{
    switch (key->kind) {
    case PROFILE_RATE:
        GDC_LOG_ERROR("%s:%d: %s %s: expected a number of GB/s from %g to %g", where, lineno, key->key, word,
                      PROFILE_MIN_GBS, PROFILE_MAX_GBS);
        break;
    case PROFILE_TIME:
        GDC_LOG_ERROR("%s:%d: %s %s: expected a number of microseconds from 0 to %g", where, lineno, key->key, word,
                      PROFILE_MAX_US);
        break;
    case PROFILE_COUNT:
        GDC_LOG_ERROR("%s:%d: %s %s: expected a whole number from %d to %d", where, lineno, key->key, word, key->min,
                      GDC_COLL_MACHINE_MAX_PER_NODE);
        break;
    default:
        GDC_LOG_ERROR("%s:%d: %s %s: expected a link class (self shm nvlink pcie net-gdr net)", where, lineno,
                      key->key, word);
        break;
    }
}

static int profile_set(gdc_coll_machine_t *m, const profile_key_t *key, const char *word)
{
    void            *field = (char *)m + key->offset;
    double           number;
    gdc_link_class_t cls;

    switch (key->kind) {
    case PROFILE_RATE:
        if (read_number(word, PROFILE_MIN_GBS, PROFILE_MAX_GBS, &number) != 0) {
            return -1;
        }
        *(double *)field = number * 1e9;
        return 0;
    case PROFILE_TIME:
        if (read_number(word, 0, PROFILE_MAX_US, &number) != 0) {
            return -1;
        }
        *(double *)field = number * 1e-6;
        return 0;
    case PROFILE_COUNT: return read_count(word, key->min, GDC_COLL_MACHINE_MAX_PER_NODE, (int *)field);
    default:
        if (class_by_name(word, &cls) != 0) {
            return -1;
        }
        *(gdc_link_class_t *)field = cls;
        return 0;
    }
}

/* "link CLASS LATENCY_US BANDWIDTH_GBS" */
static gdc_status_t profile_link(gdc_coll_machine_t *m, char **words, const char *where, int lineno)
{
    gdc_link_class_t cls;
    double           latency, bandwidth;

    if (class_by_name(words[1], &cls) != 0) {
        GDC_LOG_ERROR("%s:%d: link %s: not a link class (self shm nvlink pcie net-gdr net)", where, lineno, words[1]);
        return GDC_ERR_INVALID_ARG;
    }
    if (read_number(words[2], 0, PROFILE_MAX_US, &latency) != 0 ||
        read_number(words[3], PROFILE_MIN_GBS, PROFILE_MAX_GBS, &bandwidth) != 0) {
        GDC_LOG_ERROR("%s:%d: link %s %s %s: expected a latency of 0 to %g microseconds and a bandwidth of %g to %g "
                      "GB/s",
                      where, lineno, words[1], words[2], words[3], PROFILE_MAX_US, PROFILE_MIN_GBS, PROFILE_MAX_GBS);
        return GDC_ERR_INVALID_ARG;
    }
    set_link(m, cls, latency, bandwidth);
    return GDC_SUCCESS;
}

/* "description TEXT...": the rest of the line, as it is written. */
static gdc_status_t profile_description(gdc_coll_machine_t *m, const char *line)
{
    const char *text = line + strspn(line, " \t\r\n\v\f") + strlen("description");
    size_t      len;

    text += strspn(text, " \t\r\n\v\f");
    len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1])) {
        len--;
    }
    len = len < sizeof(m->description) ? len : sizeof(m->description) - 1;
    memcpy(m->description, text, len);
    m->description[len] = '\0';
    return GDC_SUCCESS;
}

/* One line of a profile, split into words (n of them, at most 4; 5 means more). */
static gdc_status_t profile_words(gdc_coll_machine_t *m, const char *line, char **words, int n, const char *where,
                                  int lineno)
{
    if (strcmp(words[0], "description") == 0 && n >= 2) {
        return profile_description(m, line);
    }
    if (strcmp(words[0], "name") == 0 && n == 2) {
        snprintf(m->name, sizeof(m->name), "%s", words[1]);
        return GDC_SUCCESS;
    }
    if (strcmp(words[0], "link") == 0 && n == 4) {
        return profile_link(m, words, where, lineno);
    }
    for (size_t i = 0; i < sizeof(profile_keys) / sizeof(profile_keys[0]); i++) {
        const profile_key_t *key = &profile_keys[i];

        if (strcmp(words[0], key->key) != 0 || n != 2) {
            continue;
        }
        if (profile_set(m, key, words[1]) != 0) {
            profile_bad_value(key, words[1], where, lineno);
            return GDC_ERR_INVALID_ARG;
        }
        return GDC_SUCCESS;
    }
    GDC_LOG_ERROR("%s:%d: cannot read \"%s\": not a key, or not the number of values it takes (see "
                  "share/profiles/README)",
                  where, lineno, words[0]);
    return GDC_ERR_INVALID_ARG;
}

static gdc_status_t profile_line(gdc_coll_machine_t *m, const char *line, const char *where, int lineno)
{
    char        *copy = strdup(line), *words[4];
    int          n;
    gdc_status_t status;

    if (copy == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    n      = gdc_rt_split_words(copy, words, 4);
    status = n == 0 ? GDC_SUCCESS : profile_words(m, line, words, n, where, lineno);
    free(copy);
    return status;
}

static FILE *open_profile(const char *name_or_path, char *where, size_t where_len)
{
    const char *dirs[] = {getenv("GDC_PROFILE_DIR"), GDC_PKGDATADIR "/profiles", GDC_SRCDIR "/share/profiles"};
    FILE       *f;

    if (strchr(name_or_path, '/') != NULL) {
        snprintf(where, where_len, "%s", name_or_path);
        return fopen(where, "r");
    }
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (dirs[i] == NULL) {
            continue;
        }
        snprintf(where, where_len, "%s/%s.prof", dirs[i], name_or_path);
        if ((f = fopen(where, "r")) != NULL) {
            return f;
        }
    }
    return NULL;
}

gdc_status_t gdc_coll_machine_read(gdc_coll_machine_t *m, FILE *f, const char *where)
{
    char        *line = NULL;
    size_t       cap  = 0;
    int          lineno = 0;
    gdc_status_t status = GDC_SUCCESS;

    /* getline: a line of any length is one line (a fixed buffer would read the rest of a
     * long one as a line of its own) */
    while (status == GDC_SUCCESS && getline(&line, &cap, f) != -1) {
        status = profile_line(m, line, where, ++lineno);
    }
    free(line);
    return status;
}

gdc_status_t gdc_coll_machine_load(gdc_coll_machine_t *m, const char *name_or_path)
{
    char         where[512];
    gdc_status_t status;
    FILE        *f = open_profile(name_or_path, where, sizeof(where));

    if (f == NULL) {
        GDC_LOG_ERROR("no machine profile \"%s\" (a name from share/profiles, or a path): %s", name_or_path,
                      strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    status = gdc_coll_machine_read(m, f, where);
    fclose(f);
    return status;
}

/* "LATENCY_US,BANDWIDTH_GBS", each a number in the profile's ranges, nothing else. */
static int read_link_value(const char *value, double *latency, double *bandwidth)
{
    const char *comma = strchr(value, ',');
    char       *first;
    int         rc;

    if (comma == NULL || (first = strndup(value, (size_t)(comma - value))) == NULL) {
        return -1;
    }
    rc = read_number(first, 0, PROFILE_MAX_US, latency) == 0 &&
                 read_number(comma + 1, PROFILE_MIN_GBS, PROFILE_MAX_GBS, bandwidth) == 0
             ? 0
             : -1;
    free(first);
    return rc;
}

gdc_status_t gdc_coll_machine_env(gdc_coll_machine_t *m)
{
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        char        var[64], *p;
        const char *value;
        double      latency, bandwidth;

        snprintf(var, sizeof(var), "GDC_LINK_%s", gdc_link_class_name((gdc_link_class_t)c));
        for (p = var; *p; p++) {
            *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
        }
        value = getenv(var);
        if (value == NULL || value[0] == '\0') {
            continue;
        }
        if (read_link_value(value, &latency, &bandwidth) != 0) {
            GDC_LOG_ERROR("%s=%s is not valid: expected LATENCY_US,BANDWIDTH_GBS such as 0.5,8 (latency 0 to %g, "
                          "bandwidth %g to %g)",
                          var, value, PROFILE_MAX_US, PROFILE_MIN_GBS, PROFILE_MAX_GBS);
            return GDC_ERR_INVALID_ARG;
        }
        set_link(m, (gdc_link_class_t)c, latency, bandwidth);
    }
    return GDC_SUCCESS;
}

/* An in-cache rate out of a peer's shared memory: its own where a profile or a measurement
 * gave one (> 0), else one's own cache's. */
static double peer_rate(double peer, double own)
{
    return peer > 0 ? peer : own;
}

void gdc_coll_machine_print(const gdc_coll_machine_t *m, FILE *out)
{
    fprintf(out, "# machine %s: %s\n", m->name, m->description);
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        fprintf(out, "#   %-8s %8.2f us %9.1f GB/s\n", gdc_link_class_name((gdc_link_class_t)c),
                m->link[c].latency * 1e6, m->link[c].bandwidth / 1e9);
    }
    fprintf(out, "#   reduce %.1f GB/s (GPU %.0f), copy %.1f GB/s (GPU %.0f), cross-memory attach %.2f us and "
                 "%.1f GB/s, GPU step %.1f us, %.2f us per step, shared-memory signal %.2f us, %d NIC(s) per node\n",
            m->reduce_bw / 1e9, m->reduce_bw_gpu / 1e9, m->copy_bw / 1e9, m->copy_bw_gpu / 1e9,
            m->cma_latency * 1e6, m->cma_bw / 1e9, m->gpu_latency * 1e6, m->step_overhead * 1e6,
            m->signal_latency * 1e6, m->nics_per_node);
    if (m->llc_mib > 0) {
        fprintf(out, "#   %d MiB of last-level cache per node: while a call's buffers fit it, reduce %.1f GB/s "
                     "(an operand out of a peer's shared memory %.1f), copy %.1f GB/s (out of it %.1f, into one's "
                     "own for peers %.1f), cross-memory attach %.1f GB/s\n",
                m->llc_mib, m->reduce_bw_cached / 1e9, peer_rate(m->reduce_bw_peer_cached, m->reduce_bw_cached) / 1e9,
                m->copy_bw_cached / 1e9, peer_rate(m->copy_bw_peer_cached, m->copy_bw_cached) / 1e9,
                peer_rate(m->copy_bw_shared_cached, m->copy_bw_cached) / 1e9, m->cma_bw_cached / 1e9);
    }
    if (m->copy_bw_peer_small > 0) {
        fprintf(out, "#   a copy of under %zu KiB out of a peer's shared memory: %.1f GB/s\n",
                GDC_COLL_PEER_SMALL_BYTES >> 10, m->copy_bw_peer_small / 1e9);
    }
    if (m->core_cache_kib > 0) {
        fprintf(out, "#   %d KiB of cache per core: shm_direct while what a rank touches fits twice it\n",
                m->core_cache_kib);
    }
    if (m->cores_per_node > 0) {
        fprintf(out, "#   %d cores per node: on one node with more ranks, a wait on a peer costs (1 - cores/ranks) x "
                     "%.1f us more, and host copies, reductions and shared-memory messages run at cores/ranks of "
                     "their rates\n",
                m->cores_per_node, m->switch_time * 1e6);
    }
}

static int fits_cache(const gdc_coll_machine_t *m, const gdc_coll_args_t *args)
{
    return m->llc_mib > 0 && gdc_coll_node_buffer_bytes(args) <= (double)m->llc_mib * 1024 * 1024;
}

/* A cached rate, where the profile gives one (0: the rate from memory throughout). */
static double rate_of(int cached, double from_memory, double in_cache)
{
    return cached && in_cache > 0 ? in_cache : from_memory;
}

gdc_coll_host_rates_t gdc_coll_machine_host_rates(const gdc_coll_machine_t *m, const gdc_coll_args_t *args)
{
    int                   cached = fits_cache(m, args);
    double                share  = gdc_coll_machine_core_share(m, args);
    gdc_coll_host_rates_t r = {
        rate_of(cached, m->copy_bw, m->copy_bw_cached) / share,
        rate_of(cached, m->reduce_bw, m->reduce_bw_cached) / share,
        rate_of(cached, m->cma_bw, m->cma_bw_cached) / share,
        rate_of(cached, m->copy_bw, peer_rate(m->copy_bw_peer_cached, m->copy_bw_cached)) / share,
        rate_of(cached, m->copy_bw,
                peer_rate(m->copy_bw_peer_small, peer_rate(m->copy_bw_peer_cached, m->copy_bw_cached))) / share,
        rate_of(cached, m->copy_bw, peer_rate(m->copy_bw_shared_cached, m->copy_bw_cached)) / share,
        rate_of(cached, m->reduce_bw, peer_rate(m->reduce_bw_peer_cached, m->reduce_bw_cached)) / share,
        m->link[m->intra_host].bandwidth / share};

    return r;
}

double gdc_coll_machine_copy_peer_time(const gdc_coll_host_rates_t *r, double bytes)
{
    return bytes / (bytes < (double)GDC_COLL_PEER_SMALL_BYTES ? r->copy_peer_small : r->copy_peer);
}

double gdc_coll_machine_core_share(const gdc_coll_machine_t *m, const gdc_coll_args_t *args)
{
    if (!gdc_coll_outnumbered(args->size, args->num_nodes, m->cores_per_node)) {
        return 1;
    }
    return (double)args->size / m->cores_per_node;
}

double gdc_coll_machine_wait(const gdc_coll_machine_t *m, const gdc_coll_args_t *args)
{
    if (!gdc_coll_outnumbered(args->size, args->num_nodes, m->cores_per_node)) {
        return 0;
    }
    return (1 - (double)m->cores_per_node / args->size) * m->switch_time;
}

static size_t chunk_for(const gdc_coll_machine_t *m, gdc_link_class_t cls)
{
    const gdc_coll_link_cost_t *lc     = &m->link[cls];
    double                      wanted = 4 * (lc->latency + 2 * m->step_overhead) * lc->bandwidth;
    size_t                      chunk  = GDC_COLL_CHUNK_MIN;

    while ((double)chunk < wanted && chunk < ((size_t)16 << 20)) {
        chunk *= 2;
    }
    return chunk;
}

void gdc_coll_machine_chunks(const gdc_coll_machine_t *m, gdc_coll_args_t *args)
{
    if (args->config->chunk_bytes != 0) {
        args->chunk_in = args->chunk_out = args->config->chunk_bytes;
        return;
    }
    args->chunk_in  = chunk_for(m, args->on_device ? m->intra_device : m->intra_host);
    args->chunk_out = chunk_for(m, args->on_device ? m->inter_device : m->inter_host);
}

gdc_link_class_t gdc_coll_machine_class(const gdc_coll_machine_t *m, const gdc_coll_args_t *args, int a, int b,
                                        int on_device)
{
    int same_node;

    if (a == b) {
        return GDC_LINK_SELF;
    }
    same_node = args->node_of == NULL || args->node_of[a] == args->node_of[b];
    if (same_node) {
        return on_device ? m->intra_device : m->intra_host;
    }
    return on_device ? m->inter_device : m->inter_host;
}

/* ---------------------------------------------------------------------------------------
 * The timed run
 */

/* A link's receive side (a NIC's, or a rank's own inside the node), or a NIC's send side:
 * the spans it is booked, in time order. A message takes the free time from when it can
 * start, gap after gap, which may come before spans booked for messages that were sent
 * earlier but start later (behind their own sender's queue): a link receiving from several
 * others interleaves them, it does not idle for a message still queued elsewhere; and a
 * NIC sending for several ranks takes each message from its own time on, whichever rank's
 * steps the model ran first. */
typedef struct model_spans {
    gdc_coll_span_t *spans;
    uint32_t         len, cap;
} model_spans_t;

/* A shared-memory counter in the model: when it reached each value, and who waits. */
typedef struct model_waiter {
    int                  rank;
    uint32_t             step;
    uint32_t             target;
    double               ready;
    struct model_waiter *next;
} model_waiter_t;

typedef struct model_counter {
    double         *reached; /* [value]: when the counter reached it */
    uint32_t        value, cap;
    model_waiter_t *waiters;
} model_counter_t;

typedef struct model_rank {
    gdc_coll_sched_t *sched;
    uint32_t         *waiting;
    double           *ready;
    double            cpu_free;
    double            tx_free; /* its own link inside the node, sending */
    model_spans_t     rx;      /* and receiving */
    model_counter_t   counters[GDC_RT_SHM_COUNTERS];
    int               local_index;  /* among the ranks of its node: picks its NIC */
} model_rank_t;

typedef struct model_event {
    double   time;
    uint64_t seq; /* when it was pushed: steps ready at the same time run in that order */
    int      rank;
    uint32_t step;
} model_event_t;

/* A send that arrived before its receive was ready, or a receive waiting for its send. */
typedef struct model_post {
    int                src, dst;
    uint32_t           slot;
    int                is_send;
    double             time;  /* arrival (send) or ready (receive) */
    int                rank;
    uint32_t           step;
    struct model_post *next;
} model_post_t;

#define MODEL_BUCKETS 4096

typedef struct model {
    const gdc_coll_machine_t *m;
    const gdc_coll_args_t    *args;
    int                       on_device;
    int                       gpu_steps; /* each local step a kernel or copy started and waited for */
    double                    wait;   /* gdc_coll_machine_wait of the call */
    gdc_coll_host_rates_t     host; /* the call's host rates */
    model_rank_t             *ranks;
    model_event_t            *heap;
    size_t                    heap_len, heap_cap;
    uint64_t                  pushed;
    model_post_t             *posts[MODEL_BUCKETS];
    model_spans_t            *nic_tx; /* [nodes * nics] */
    model_spans_t            *nic_rx; /* [nodes * nics] */
    int                       num_nics;
    double                    now;    /* of the event running: no span ending before it matters */
    double                    finish;
    unsigned                  done_steps;
    gdc_coll_prediction_t    *out;
    gdc_status_t              status;
} model_t;

/* Earlier first; at the same time, the one ready first, as the engine's queue of ready
 * steps runs them (a parent's sends to its children in the order the builder wrote them). */
static int runs_before(const model_event_t *a, const model_event_t *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static gdc_status_t heap_push(model_t *md, double time, int rank, uint32_t step)
{
    model_event_t event;

    if (md->heap_len == md->heap_cap) {
        size_t         cap = md->heap_cap ? md->heap_cap * 2 : 1024;
        model_event_t *h   = realloc(md->heap, cap * sizeof(*h));
        if (h == NULL) {
            return md->status = GDC_ERR_NO_MEMORY;
        }
        md->heap     = h;
        md->heap_cap = cap;
    }
    event = (model_event_t){time, md->pushed++, rank, step};
    GDC_COLL_HEAP_PUSH(md->heap, md->heap_len, event, runs_before);
    return GDC_SUCCESS;
}

static model_event_t heap_pop(model_t *md)
{
    model_event_t top;

    GDC_COLL_HEAP_POP(md->heap, md->heap_len, top, runs_before);
    return top;
}

static void complete(model_t *md, int r, uint32_t s, double done)
{
    model_rank_t          *mr   = &md->ranks[r];
    const gdc_coll_step_t *step = &mr->sched->steps[s];

    md->done_steps++;
    md->finish = done > md->finish ? done : md->finish;
    for (uint32_t i = 0; i < step->succ_count; i++) {
        uint32_t next = mr->sched->succ[step->succ_first + i];
        mr->ready[next] = done > mr->ready[next] ? done : mr->ready[next];
        if (--mr->waiting[next] == 0) {
            heap_push(md, mr->ready[next], r, next);
        }
    }
}

static model_post_t **bucket(model_t *md, int src, int dst, uint32_t slot)
{
    return &md->posts[((unsigned)src * 40503u + (unsigned)dst * 2654435761u + slot * 97u) % MODEL_BUCKETS];
}

static model_post_t *take(model_t *md, int src, int dst, uint32_t slot, int is_send)
{
    for (model_post_t **link = bucket(md, src, dst, slot); *link != NULL; link = &(*link)->next) {
        model_post_t *p = *link;
        if (p->src == src && p->dst == dst && p->slot == slot && p->is_send == is_send) {
            *link = p->next;
            return p;
        }
    }
    return NULL;
}

static void post(model_t *md, int src, int dst, uint32_t slot, int is_send, double time, int rank, uint32_t step)
{
    model_post_t  *p = malloc(sizeof(*p));
    model_post_t **b = bucket(md, src, dst, slot);

    if (p == NULL) {
        md->status = GDC_ERR_NO_MEMORY;
        return;
    }
    *p    = (model_post_t){src, dst, slot, is_send, time, rank, step, *b};
    *b    = p;
}

/* Room for one more span in link; 0 on success. */
static int spans_grow(model_t *md, model_spans_t *link)
{
    if (link->len == link->cap) {
        uint32_t         cap   = link->cap > 0 ? 2 * link->cap : 8;
        gdc_coll_span_t *spans = realloc(link->spans, cap * sizeof(*spans));
        if (spans == NULL) {
            md->status = GDC_ERR_NO_MEMORY;
            return -1;
        }
        link->spans = spans;
        link->cap   = cap;
    }
    return 0;
}

double gdc_coll_spans_book(gdc_coll_span_t *spans, uint32_t *count, double now, double earliest, double len)
{
    uint32_t gone = 0, i = 0, n = *count;
    double   at = earliest, left = len;

    while (gone < n && spans[gone].end <= now) {
        gone++;
    }
    if (gone > 0) {
        n -= gone;
        memmove(spans, spans + gone, n * sizeof(*spans));
    }
    while (left > 0) {
        double piece;

        while (i < n && spans[i].end <= at) {
            i++;
        }
        if (i < n && spans[i].start <= at) { /* busy at `at`: on after that span */
            at = spans[i].end;
            continue;
        }
        piece = i < n && spans[i].start - at < left ? spans[i].start - at : left;
        if (i > 0 && spans[i - 1].end == at) { /* joins the span before */
            spans[i - 1].end = at + piece;
        } else { /* only the first piece: every later one starts where a span ends */
            memmove(spans + i + 1, spans + i, (n - i) * sizeof(*spans));
            spans[i] = (gdc_coll_span_t){at, at + piece};
            n++;
            i++;
        }
        at += piece;
        left -= piece;
    }
    *count = n;
    return at;
}

/* gdc_coll_spans_book on one of the model's links (-1 when out of memory). */
static double book_spans(model_t *md, model_spans_t *link, double earliest, double len)
{
    if (spans_grow(md, link) != 0) {
        return -1;
    }
    return gdc_coll_spans_book(link->spans, &link->len, md->now, earliest, len);
}

/* When a message of len bytes from a, ready at t, is all there at b. A link carries one
 * message at a time each way, latency overlapping: messages between nodes queue on the
 * sender's NIC and take the receiver's NIC's first free gap, messages inside a node queue
 * on the two ranks' own links. */
static double arrival(model_t *md, int a, int b, size_t len, double t)
{
    const gdc_coll_machine_t  *m   = md->m;
    gdc_link_class_t           cls = gdc_coll_machine_class(m, md->args, a, b, md->on_device);
    const gdc_coll_link_cost_t *lc = &m->link[cls];
    /* inside a node, host buffers: the cores the copies run on, maybe shared */
    double                     xfer = (double)len / (!md->on_device && cls == m->intra_host ? md->host.shm : lc->bandwidth);
    double                     start;

    md->out->bytes[cls] += (double)len;
    md->out->messages[cls]++;
    if (cls == GDC_LINK_NET || cls == GDC_LINK_NET_GDR) {
        int            nics = m->nics_per_node;
        model_spans_t *tx   = &md->nic_tx[md->args->node_of[a] * nics + md->ranks[a].local_index % nics];

        /* the sender's NIC is busy while it sends, the receiver's while it receives; a busy
         * receiver delays the arrival, not the sender's next message. (The send side as one
         * time it is free from, a message of a rank whose steps the model ran later waited
         * behind a later one of another rank: alltoall pairwise of 8 B on 32 ranks on 3 nodes
         * of dgx-h100 took the simulator 43 us, 38 now.) */
        start = book_spans(md, tx, t, xfer) - xfer;
        return book_spans(md, &md->nic_rx[md->args->node_of[b] * nics + md->ranks[b].local_index % nics], start, xfer) +
               lc->latency;
    }
    {
        double *tx = &md->ranks[a].tx_free;

        start = t > *tx ? t : *tx;
        *tx   = start + xfer;
        /* on an oversubscribed node, two peers that may not be running: the receiver takes
         * the message in, the sender learns it was taken (UCX's rendezvous) */
        return book_spans(md, &md->ranks[b].rx, start, xfer) + lc->latency + 2 * md->wait;
    }
}

/* The bytes a step's kernel moves, in units of a two-operand reduction's (which reads two
 * vectors and writes one): a reduce_all reads every rank's and writes one or every one. */
double gdc_coll_model_reduce_all_units(int ranks, int to_every)
{
    return (ranks + (to_every ? ranks : 1)) / 3.0;
}

/* What an operand out of a peer's shared memory adds to a reduction, seconds per byte. */
static double peer_extra(const model_t *md)
{
    return md->host.reduce_peer < md->host.reduce ? 1 / md->host.reduce_peer - 1 / md->host.reduce : 0;
}

/* A reduction's operands read out of peers' shared memory. */
static int peer_operands(const gdc_coll_step_t *step)
{
    return (step->b.buf == GDC_COLL_PEER) + (step->c.buf == GDC_COLL_PEER);
}

static double local_cost(const model_t *md, const gdc_coll_step_t *step)
{
    const gdc_coll_machine_t *m      = md->m;
    double                    reduce = md->on_device ? m->reduce_bw_gpu : md->host.reduce;
    double                    copy   = md->on_device ? m->copy_bw_gpu : md->host.copy;

    if (step->kind == GDC_COLL_STEP_REDUCE_ALL) {
        return m->step_overhead + (md->gpu_steps ? m->gpu_latency : 0) +
               gdc_coll_model_reduce_all_units(md->args->size, step->slot) * (double)step->a.length / reduce;
    }
    if (md->gpu_steps) {
        double rate = step->kind == GDC_COLL_STEP_COPY ? copy : reduce;

        return step->kind == GDC_COLL_STEP_NOP ? 0 : m->step_overhead + m->gpu_latency + (double)step->a.length / rate;
    }
    switch (step->kind) {
    case GDC_COLL_STEP_REDUCE:
        return m->step_overhead + (double)step->a.length / reduce +
               (md->on_device ? 0 : peer_operands(step) * (double)step->a.length * peer_extra(md));
    case GDC_COLL_STEP_AVG: return m->step_overhead + (double)step->a.length / reduce;
    case GDC_COLL_STEP_COPY:
        if (gdc_coll_rgn_is_peer_user(&step->a) || gdc_coll_rgn_is_peer_user(&step->b)) {
            return m->step_overhead + m->cma_latency + (double)step->a.length / md->host.cma;
        }
        if (!md->on_device && step->b.buf == GDC_COLL_PEER) { /* out of a peer's shared memory */
            return m->step_overhead + gdc_coll_machine_copy_peer_time(&md->host, (double)step->a.length);
        }
        if (!md->on_device && step->a.buf == GDC_COLL_SHM) { /* into mine, for peers */
            return m->step_overhead + (double)step->a.length / md->host.copy_shared;
        }
        return m->step_overhead + (double)step->a.length / copy;
    default: return 0;
    }
}

/* A shared-memory signal is seen by a peer one cache-line transfer later. */
static double seen_at(const model_t *md, double raised)
{
    return raised + md->m->signal_latency + md->wait;
}

static void raise_counter(model_t *md, int r, int c, uint32_t value, double t)
{
    model_counter_t *mc = &md->ranks[r].counters[c];

    if (value >= mc->cap) {
        uint32_t cap     = value * 2 + 8;
        double  *reached = realloc(mc->reached, cap * sizeof(double));
        if (reached == NULL) {
            md->status = GDC_ERR_NO_MEMORY;
            return;
        }
        mc->reached = reached;
        mc->cap     = cap;
    }
    while (mc->value < value) {
        mc->reached[++mc->value] = t;
    }
    for (model_waiter_t **link = &mc->waiters; *link != NULL;) {
        model_waiter_t *w = *link;
        if (w->target <= mc->value) {
            double at = seen_at(md, mc->reached[w->target]);
            *link     = w->next;
            complete(md, w->rank, w->step, at > w->ready ? at : w->ready);
            free(w);
        } else {
            link = &w->next;
        }
    }
}

static void wait_counter(model_t *md, const model_event_t *ev, const gdc_coll_step_t *step)
{
    model_counter_t *mc = &md->ranks[step->peer].counters[step->counter];
    model_waiter_t  *w;
    uint32_t         target = step->slot - step->msg; /* in this call: the schedules start at 0 */

    if (step->slot <= step->msg) {
        /* what the calls before did: done, but the readers of the call just before (no
         * ring: msg 0) may be waiting for a core where ranks outnumber the cores */
        complete(md, ev->rank, ev->step, ev->time + (step->msg == 0 ? md->wait : 0));
        return;
    }
    if (mc->value >= target) {
        double at = seen_at(md, mc->reached[target]);
        complete(md, ev->rank, ev->step, at > ev->time ? at : ev->time);
        return;
    }
    w = malloc(sizeof(*w));
    if (w == NULL) {
        md->status = GDC_ERR_NO_MEMORY;
        return;
    }
    *w          = (model_waiter_t){ev->rank, ev->step, target, ev->time, mc->waiters};
    mc->waiters = w;
}

static void run_step(model_t *md, const model_event_t *ev)
{
    model_rank_t          *mr    = &md->ranks[ev->rank];
    const gdc_coll_step_t *step  = &mr->sched->steps[ev->step];
    double                 start = ev->time > mr->cpu_free ? ev->time : mr->cpu_free;
    int                    me = ev->rank, peer = step->peer;
    model_post_t          *match;

    switch (step->kind) {
    case GDC_COLL_STEP_SEND: {
        double at;
        mr->cpu_free = start + md->m->step_overhead;
        at           = arrival(md, me, peer, step->a.length, mr->cpu_free);
        match        = take(md, me, peer, step->slot, 0);
        if (match != NULL) {
            double got = (at > match->time ? at : match->time) + md->m->step_overhead;
            complete(md, match->rank, match->step, got);
            free(match);
        } else {
            post(md, me, peer, step->slot, 1, at, me, ev->step);
        }
        complete(md, me, ev->step, at); /* the sender learns about delivery when it happens */
        break;
    }
    case GDC_COLL_STEP_RECV:
        match = take(md, peer, me, step->slot, 1);
        if (match != NULL) {
            complete(md, me, ev->step, (match->time > ev->time ? match->time : ev->time) + md->m->step_overhead);
            free(match);
        } else {
            post(md, peer, me, step->slot, 0, ev->time, me, ev->step);
        }
        break;
    case GDC_COLL_STEP_SIGNAL:
        mr->cpu_free = start + md->m->step_overhead;
        raise_counter(md, me, step->counter, step->slot, mr->cpu_free);
        complete(md, me, ev->step, mr->cpu_free);
        break;
    case GDC_COLL_STEP_WAIT:
        wait_counter(md, ev, step);
        break;
    default:
        mr->cpu_free = start + local_cost(md, step);
        complete(md, me, ev->step, mr->cpu_free);
        break;
    }
}

static void model_free(model_t *md, int n)
{
    for (int r = 0; r < n && md->ranks != NULL; r++) {
        gdc_coll_sched_free(md->ranks[r].sched);
        free(md->ranks[r].waiting);
        free(md->ranks[r].ready);
        free(md->ranks[r].rx.spans);
        for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
            model_counter_t *mc = &md->ranks[r].counters[c];
            free(mc->reached);
            while (mc->waiters != NULL) {
                model_waiter_t *next = mc->waiters->next;
                free(mc->waiters);
                mc->waiters = next;
            }
        }
    }
    for (int b = 0; b < MODEL_BUCKETS; b++) {
        while (md->posts[b] != NULL) {
            model_post_t *next = md->posts[b]->next;
            free(md->posts[b]);
            md->posts[b] = next;
        }
    }
    free(md->ranks);
    free(md->heap);
    for (int q = 0; md->nic_rx != NULL && md->nic_tx != NULL && q < md->num_nics; q++) {
        free(md->nic_tx[q].spans);
        free(md->nic_rx[q].spans);
    }
    free(md->nic_tx);
    free(md->nic_rx);
}

/* The steps ready at the start, ranks taken from the root on (rank 0 on when there is
 * none): steps ready at the same time run in the order they were pushed, and a rooted
 * call's schedules are the same shape from whichever root, so its time should not depend
 * on which rank that is (two leaves sending to one parent at once are taken in the order
 * the parent asks for them, not in the order of their rank numbers). */
static gdc_status_t push_first_steps(model_t *md)
{
    int n = md->args->size, first = gdc_coll_is_rooted(md->args->coll) ? md->args->root : 0;

    for (int i = 0; i < n; i++) {
        int           r  = (first + i) % n;
        model_rank_t *mr = &md->ranks[r];

        for (uint32_t s = 0; s < mr->sched->num_steps; s++) {
            if (mr->waiting[s] == 0 && heap_push(md, 0, r, s) != GDC_SUCCESS) {
                return GDC_ERR_NO_MEMORY;
            }
        }
    }
    return GDC_SUCCESS;
}

static gdc_status_t build_ranks(model_t *md, const gdc_coll_algo_t *algo)
{
    const gdc_coll_args_t *args  = md->args;
    int                    nodes = args->node_of != NULL ? args->num_nodes : 1;
    int                   *seen  = calloc((size_t)nodes, sizeof(int));

    md->ranks  = calloc((size_t)args->size, sizeof(model_rank_t));
    md->num_nics = nodes * md->m->nics_per_node;
    md->nic_tx   = calloc((size_t)md->num_nics, sizeof(model_spans_t));
    md->nic_rx   = calloc((size_t)md->num_nics, sizeof(model_spans_t));
    if (seen == NULL || md->ranks == NULL || md->nic_tx == NULL || md->nic_rx == NULL) {
        free(seen);
        return GDC_ERR_NO_MEMORY;
    }
    for (int r = 0; r < args->size; r++) {
        gdc_coll_args_t a  = *args;
        model_rank_t   *mr = &md->ranks[r];
        gdc_status_t    status;

        a.rank          = r;
        mr->local_index = seen[args->node_of != NULL ? args->node_of[r] : 0]++;
        status          = gdc_coll_sched_build(algo, &a, &mr->sched);
        if (status != GDC_SUCCESS) {
            free(seen);
            return status;
        }
        mr->waiting = malloc(((size_t)mr->sched->num_steps + 1) * sizeof(uint32_t));
        mr->ready   = calloc((size_t)mr->sched->num_steps + 1, sizeof(double));
        if (mr->waiting == NULL || mr->ready == NULL) {
            free(seen);
            return GDC_ERR_NO_MEMORY;
        }
        md->out->steps += mr->sched->num_steps;
        for (uint32_t s = 0; s < mr->sched->num_steps; s++) {
            mr->waiting[s] = mr->sched->steps[s].deps;
        }
    }
    free(seen);
    return push_first_steps(md);
}

gdc_status_t gdc_coll_predict(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                              int on_device, gdc_coll_prediction_t *out)
{
    model_t md;
    gdc_status_t status;

    memset(&md, 0, sizeof(md));
    memset(out, 0, sizeof(*out));
    md.m         = m;
    md.wait      = gdc_coll_machine_wait(m, args);
    md.host      = gdc_coll_machine_host_rates(m, args);
    md.args      = args;
    md.on_device = on_device;
    /* The ipc algorithms' steps are each a kernel or copy-engine copy gdc starts and waits
     * for (the message algorithms' device steps are too, but their closed-form prices do
     * not count that yet: bench/RESULTS.md 2026-12-04) */
    md.gpu_steps = on_device && (algo->flags & GDC_COLL_ALGO_FLAG_IPC);
    md.out       = out;
    status       = build_ranks(&md, algo);
    while (status == GDC_SUCCESS && md.status == GDC_SUCCESS && md.heap_len > 0) {
        model_event_t ev = heap_pop(&md);
        md.now           = ev.time;
        run_step(&md, &ev);
    }
    if (status == GDC_SUCCESS && md.status != GDC_SUCCESS) {
        status = md.status;
    }
    if (status == GDC_SUCCESS) {
        unsigned total = out->steps;
        if (md.done_steps != total) {
            GDC_LOG_ERROR("internal: the model of %s(%s) stalled with %u of %u steps done", gdc_coll_type_name(args->coll),
                          algo->name, md.done_steps, total);
            status = GDC_ERR_INTERNAL;
        }
        out->seconds = md.finish;
    }
    model_free(&md, args->size);
    return status;
}
