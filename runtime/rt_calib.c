/*
 * The calibration's file, its lock and its agreement across nodes (rt_calib.h); the probes
 * are in rt_calib_probe.c.
 */
#include "rt_calib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "gdc_rt.h"
#include "rt_shm.h"

#define CALIB_KEY          "gdc.calib"
/* Seconds a node's first rank waits for its host's prober. The probe takes 26 s on the
 * 2-core development VM with 4 ranks on 2 emulated nodes, 66 s beside a make -j2 check:
 * with 60, run-calibrate.sh's first use gave up on it and priced with the built-in
 * numbers twice in three full runs there. */
#define CALIB_LOCK_WAIT    180.0
#define CALIB_MAGIC        0x67646363u
#define CALIB_MAX_VALUE    1e6 /* GB/s or microseconds: anything larger is no measurement */

gdc_rt_calib_t gdc_rt_calib;
const char    *gdc_rt_calib_setting = "job";

/* This rank's node numbers until the agreement; what it publishes. */
typedef struct calib_record {
    uint32_t               magic;
    uint32_t               valid;
    gdc_rt_calib_numbers_t n;
} calib_record_t;

static calib_record_t mine;
static char           my_source[sizeof(gdc_rt_calib.source)];
static int            probed_here;

typedef struct calib_field {
    const char *key;
    size_t      offset;
    int         is_latency; /* worse is higher */
    int         optional;   /* measured from gdc 0.1.0 of 2026-12-06 on: files before lack it (rt_calib.h) */
} calib_field_t;

#define CALIB_FIELD(_key, _field, _lat, _opt) {_key, offsetof(gdc_rt_calib_numbers_t, _field), _lat, _opt}

static const calib_field_t fields[] = {
    CALIB_FIELD("copy_GBs", copy_gbs, 0, 0),     CALIB_FIELD("reduce_GBs", reduce_gbs, 0, 0),
    CALIB_FIELD("signal_us", signal_us, 1, 0),   CALIB_FIELD("cma_GBs", cma_gbs, 0, 0),
    CALIB_FIELD("cma_us", cma_us, 1, 1),         CALIB_FIELD("copy_cached_GBs", copy_cached_gbs, 0, 1),
    CALIB_FIELD("cma_cached_GBs", cma_cached_gbs, 0, 1), CALIB_FIELD("reduce_cached_GBs", reduce_cached_gbs, 0, 1),
    CALIB_FIELD("ucx_shm_us", ucx_shm_us, 1, 0),
    CALIB_FIELD("ucx_shm_GBs", ucx_shm_gbs, 0, 0),
    CALIB_FIELD("copy_shared_cached_GBs", copy_shared_cached_gbs, 0, 1),
    CALIB_FIELD("copy_peer_small_GBs", copy_peer_small_gbs, 0, 1),
    CALIB_FIELD("cma_copy_ratio", cma_copy_ratio, 1, 1),
};
#define NUM_FIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

static double *field_of(gdc_rt_calib_numbers_t *n, int i)
{
    return (double *)((char *)n + fields[i].offset);
}

static double field_value(const gdc_rt_calib_numbers_t *n, int i)
{
    return *(const double *)((const char *)n + fields[i].offset);
}

void gdc_rt_calib_combine(gdc_rt_calib_numbers_t *worst, const gdc_rt_calib_numbers_t *other)
{
    for (int i = 0; i < NUM_FIELDS; i++) {
        double *w = field_of(worst, i), o = field_value(other, i);
        if (*w == 0 || o == 0) {
            *w = 0;
        } else if (fields[i].is_latency ? o > *w : o < *w) {
            *w = o;
        }
    }
}

void gdc_rt_calib_format(const gdc_rt_calib_numbers_t *n, char *buf, size_t len)
{
    snprintf(buf, len,
             "memcpy %.1f GB/s (in cache %.1f out of a peer's shared memory, %.1f of a few KiB; %.1f into "
             "one's own), reduce %.1f GB/s (in cache %.1f), signal %.2f us, cross-memory attach %.2f us and %.1f "
             "GB/s (in cache %.1f, of 4 MiB %.2f times a copy's time), UCX shared memory %.2f us and %.1f GB/s",
             n->copy_gbs, n->copy_cached_gbs, n->copy_peer_small_gbs, n->copy_shared_cached_gbs, n->reduce_gbs,
             n->reduce_cached_gbs, n->signal_us, n->cma_us, n->cma_gbs, n->cma_cached_gbs, n->cma_copy_ratio,
             n->ucx_shm_us, n->ucx_shm_gbs);
}

/* ---------------------------------------------------------------------------------------
 * The file
 */

static const char *cache_dir(char *buf, size_t len)
{
    const char *xdg  = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");

    if (xdg != NULL && xdg[0] == '/') {
        snprintf(buf, len, "%s/gdc", xdg);
    } else if (home != NULL && home[0] == '/') {
        snprintf(buf, len, "%s/.cache/gdc", home);
    } else {
        return NULL;
    }
    return buf;
}

int gdc_rt_calib_cache_path(char *buf, size_t len)
{
    char dir[PATH_MAX], host[256];
    int  n;

    if (cache_dir(dir, sizeof(dir)) == NULL || gethostname(host, sizeof(host)) != 0) {
        return -1;
    }
    host[sizeof(host) - 1] = '\0';
    n = snprintf(buf, len, "%s/calibration-%s-%s", dir, host, PACKAGE_VERSION);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p of path's directory, private to the user. */
static int make_parent(const char *path)
{
    char dir[PATH_MAX];

    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            return -1;
        }
        *p = '/';
    }
    return 0;
}

gdc_status_t gdc_rt_calib_write(const char *path, const gdc_rt_calib_numbers_t *n, const char *how)
{
    char   tmp[PATH_MAX + 32], host[256] = "?", when[64];
    time_t now = time(NULL);
    FILE  *f;
    int    failed;

    (void)gethostname(host, sizeof(host) - 1);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    if (make_parent(path) != 0 || (f = fopen(tmp, "w")) == NULL) {
        GDC_LOG_WARN("calibration: cannot write %s: %s", path, strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    fprintf(f, "# gdc %s: the costs of host %s, measured %s (%s)\n", PACKAGE_VERSION, host, when, how);
    fprintf(f, "# 0 is a number that could not be measured; gdinfo --calibrate measures again\n");
    for (int i = 0; i < NUM_FIELDS; i++) {
        fprintf(f, "%s %.4g\n", fields[i].key, field_value(n, i));
    }
    failed = ferror(f);
    failed |= fclose(f) != 0;
    if (failed || rename(tmp, path) != 0) {
        GDC_LOG_WARN("calibration: cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

static int parse_line(char *line, gdc_rt_calib_numbers_t *n, unsigned *seen)
{
    char   key[64], extra[2];
    double value;

    line[strcspn(line, "#\n")] = '\0';
    if (strspn(line, " \t") == strlen(line)) {
        return 0;
    }
    if (sscanf(line, "%63s %lf %1s", key, &value, extra) != 2 || !isfinite(value) || value < 0 ||
        value > CALIB_MAX_VALUE) {
        return -1;
    }
    for (int i = 0; i < NUM_FIELDS; i++) {
        if (strcmp(key, fields[i].key) == 0) {
            *field_of(n, i) = value;
            *seen |= 1u << i;
            return 0;
        }
    }
    return -1;
}

static unsigned optional_fields(void)
{
    unsigned mask = 0;

    for (int i = 0; i < NUM_FIELDS; i++) {
        mask |= fields[i].optional ? 1u << i : 0;
    }
    return mask;
}

/* The keys of the fields in mask, in the table's order, for messages: "a, b, c". */
static const char *key_list(unsigned mask, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (int i = 0; i < NUM_FIELDS && at < len; i++) {
        if (mask & (1u << i)) {
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at > 0 ? ", " : "", fields[i].key);
        }
    }
    return buf;
}

gdc_status_t gdc_rt_calib_read_stream(FILE *f, const char *where, gdc_rt_calib_numbers_t *n)
{
    char     line[256], keys[512];
    int      lineno = 0;
    unsigned seen   = 0, all = (1u << NUM_FIELDS) - 1;

    memset(n, 0, sizeof(*n));
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        /* a line longer than the buffer would come back in pieces, and a key at the end of
         * a long comment would be read as a line of its own */
        if (strchr(line, '\n') == NULL && !feof(f)) {
            GDC_LOG_WARN("calibration: %s:%d: line longer than %zu characters", where, lineno, sizeof(line) - 2);
            return GDC_ERR_INVALID_ARG;
        }
        if (parse_line(line, n, &seen) != 0) {
            GDC_LOG_WARN("calibration: %s:%d: expected \"KEY NUMBER\" with a key of %s and a number from 0 to %g",
                         where, lineno, key_list(all, keys, sizeof(keys)), CALIB_MAX_VALUE);
            return GDC_ERR_INVALID_ARG;
        }
    }
    if ((seen | optional_fields()) != all) {
        GDC_LOG_WARN("calibration: %s lacks some of %s", where, key_list(all & ~optional_fields(), keys, sizeof(keys)));
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_calib_read(const char *path, gdc_rt_calib_numbers_t *n)
{
    FILE        *f = fopen(path, "r");
    gdc_status_t status;

    if (f == NULL) {
        memset(n, 0, sizeof(*n));
        GDC_LOG_WARN("calibration: cannot read %s: %s", path, strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    status = gdc_rt_calib_read_stream(f, path, n);
    fclose(f);
    return status;
}

/* ---------------------------------------------------------------------------------------
 * At gdc_init
 */

/* No file: off, or measured by the job itself. */
static int calibration_off(void)
{
    return strcmp(gdc_rt_calib_setting, "off") == 0 || gdc_rt_calib_in_job();
}

int gdc_rt_calib_in_job(void)
{
    return strcmp(gdc_rt_calib_setting, "job") == 0;
}

static int calibration_auto(void)
{
    return strcmp(gdc_rt_calib_setting, "auto") == 0;
}

/* The lock beside the calibration file at path, opened (made where missing); -1 on error. */
static int lock_file(const char *path)
{
    char lock[PATH_MAX + 8];

    snprintf(lock, sizeof(lock), "%s.lock", path);
    return make_parent(lock) == 0 ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
}

/* The winner of the host's lock probes and writes the file; the others go on at once
 * (the node's first rank waits for the file later, in gdc_rt_calib_publish). */
gdc_status_t gdc_rt_calib_prepare(void)
{
    char                   path[PATH_MAX];
    gdc_rt_calib_numbers_t n;
    double                 start;
    int                    fd;

    if (!calibration_auto() || gdc_rt_calib_cache_path(path, sizeof(path)) != 0 || access(path, R_OK) == 0) {
        return GDC_SUCCESS;
    }
    fd = lock_file(path);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return GDC_SUCCESS;
    }
    if (access(path, R_OK) != 0) { /* nobody wrote it while we took the lock */
        start = gdc_wtime();
        if (gdc_rt_calib_probe(&n) == GDC_SUCCESS && gdc_rt_calib_write(path, &n, "at gdc_init") == GDC_SUCCESS) {
            GDC_LOG_INFO("calibration: this host's costs measured in %.2f s, kept in %s", gdc_wtime() - start, path);
            probed_here = 1;
        }
    }
    close(fd); /* and the lock with it */
    return GDC_SUCCESS;
}

/* Wait (bounded) for the host's prober to let go of the file's lock. */
static void wait_for_prober(const char *path)
{
    int    fd       = lock_file(path);
    double deadline = gdc_wtime() + CALIB_LOCK_WAIT;

    if (fd < 0) {
        return;
    }
    while (flock(fd, LOCK_SH | LOCK_NB) != 0 && gdc_wtime() < deadline) {
        usleep(2000);
    }
    close(fd);
}

/* This node's numbers, by GDC_CALIBRATION; 0 when there are none. */
static int read_mine(int may_wait)
{
    char path[PATH_MAX];

    memset(&mine, 0, sizeof(mine));
    mine.magic = CALIB_MAGIC;
    if (calibration_off()) {
        return 0;
    }
    if (calibration_auto()) {
        if (gdc_rt_calib_cache_path(path, sizeof(path)) != 0) {
            GDC_LOG_WARN_ONCE("calibration: neither HOME nor XDG_CACHE_HOME names a directory to keep this host's "
                              "measured costs in; the cost model keeps its built-in numbers");
            return 0;
        }
        if (may_wait) {
            wait_for_prober(path);
        }
        if (access(path, R_OK) != 0) {
            GDC_LOG_INFO("calibration: no measured costs of this host yet (%s)", path);
            return 0;
        }
    } else {
        snprintf(path, sizeof(path), "%s", gdc_rt_calib_setting);
    }
    if (gdc_rt_calib_read(path, &mine.n) != GDC_SUCCESS) {
        return 0;
    }
    mine.valid = 1;
    snprintf(my_source, sizeof(my_source), "%s%s", path, probed_here ? ", measured by this job" : "");
    return 1;
}

gdc_status_t gdc_rt_calib_publish(void)
{
    memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
    if (calibration_off() || gdc_rt_boot.local_rank != 0) {
        return GDC_SUCCESS;
    }
    (void)read_mine(1);
    return gdc_rt_boot_put(CALIB_KEY, &mine, sizeof(mine));
}

/* The first rank of node k (node_of numbers nodes in order of their first rank). */
static int first_rank_of(int node, int from)
{
    for (int r = from; r < gdc_rt_boot.size; r++) {
        if (gdc_rt_boot.node_of[r] == node) {
            return r;
        }
    }
    return -1;
}

void gdc_rt_calib_agree(void)
{
    calib_record_t rec;
    int            from = 0;
    char           line[512];

    if (calibration_off()) {
        return;
    }
    for (int node = 0; node < gdc_rt_boot.num_nodes; node++) {
        int leader = first_rank_of(node, from);
        from       = leader + 1;
        if (leader == gdc_rt_boot.rank || gdc_rt_boot.singleton) {
            rec = mine;
        } else if (leader < 0 || gdc_rt_boot_get(leader, CALIB_KEY, &rec, sizeof(rec)) != 0 ||
                   rec.magic != CALIB_MAGIC) {
            memset(&rec, 0, sizeof(rec));
        }
        if (!rec.valid) {
            if (gdc_rt_boot.rank == 0) {
                GDC_LOG_INFO("calibration: node %s has no measured costs (gdinfo --calibrate measures them): "
                             "every rank prices with the built-in numbers",
                             gdc_rt_boot.node_names[node]);
            }
            memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
            return;
        }
        if (node == 0) {
            gdc_rt_calib.n = rec.n;
        } else {
            gdc_rt_calib_combine(&gdc_rt_calib.n, &rec.n);
        }
    }
    gdc_rt_calib.valid = 1;
    if (gdc_rt_boot.num_nodes > 1) {
        snprintf(gdc_rt_calib.source, sizeof(gdc_rt_calib.source), "the worst of %d nodes' calibrations",
                 gdc_rt_boot.num_nodes);
    } else {
        snprintf(gdc_rt_calib.source, sizeof(gdc_rt_calib.source), "calibration of node %s",
                 gdc_rt_boot.node_names[0]);
    }
    gdc_rt_calib_format(&gdc_rt_calib.n, line, sizeof(line));
    if (gdc_rt_boot.rank == 0) {
        GDC_LOG_INFO("calibration in force (%s%s%s): %s", gdc_rt_calib.source, my_source[0] ? "; mine: " : "",
                     my_source, line);
    } else {
        GDC_LOG_DEBUG("calibration in force: %s", line);
    }
}

void gdc_rt_calib_finalize(void)
{
    memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
    memset(&mine, 0, sizeof(mine));
    my_source[0] = '\0';
    probed_here  = 0;
}

void gdc_rt_calib_local(void)
{
    memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
    if (read_mine(0)) {
        gdc_rt_calib.valid = 1;
        gdc_rt_calib.n     = mine.n;
        snprintf(gdc_rt_calib.source, sizeof(gdc_rt_calib.source), "%s", my_source);
    }
}

/* ---------------------------------------------------------------------------------------
 * Measured by the job (GDC_CALIBRATION=job)
 */

/* Why this node's ranks cannot measure; NULL when they can. */
static const char *job_cannot_measure(const gdc_rt_shm_t *shm)
{
    if (shm == NULL) {
        return "no shared memory between them";
    }
    if (!shm->cma) {
        return "cross-memory attach does not work between them";
    }
    if (shm->data_bytes < gdc_rt_calib_pair_bytes()) {
        return "GDC_SHM_SIZE leaves too little room for the probe";
    }
    return NULL;
}

int gdc_rt_calib_job_measure(const gdc_rt_shm_t *shm, gdc_rt_calib_job_record_t *rec)
{
    int         index = shm != NULL ? shm->local_index : gdc_rt_boot.local_rank;
    const char *why   = job_cannot_measure(shm);
    double      start = gdc_wtime();
    char        line[512];

    memset(rec, 0, sizeof(*rec));
    rec->magic = CALIB_MAGIC;
    if (!gdc_rt_calib_in_job() || gdc_rt_boot.local_size < 2) {
        return 0;
    }
    if (why != NULL) {
        if (index == 0) {
            rec->state = GDC_RT_CALIB_JOB_NOT_MEASURED;
            GDC_LOG_INFO("calibration: the ranks of node %s do not measure cross-memory attach (%s)",
                         gdc_rt_boot.node_names[gdc_rt_boot.node_of[gdc_rt_boot.rank]], why);
        }
        return 0;
    }
    if (index > 1) {
        gdc_rt_calib_pair_wait(gdc_rt_shm_data(shm, 0));
        return 0;
    }
    if (gdc_rt_calib_probe_pair(index == 0, gdc_rt_shm_data(shm, 0), shm->pids[!index], &rec->n) != GDC_SUCCESS) {
        rec->state = GDC_RT_CALIB_JOB_NOT_MEASURED;
        return 1;
    }
    if (index == 0) {
        rec->state = GDC_RT_CALIB_JOB_MEASURED;
        gdc_rt_calib_format(&rec->n, line, sizeof(line));
        GDC_LOG_DEBUG("calibration: node %s measured in %.1f ms: %s",
                      gdc_rt_boot.node_names[gdc_rt_boot.node_of[gdc_rt_boot.rank]], (gdc_wtime() - start) * 1e3,
                      line);
    }
    return 1;
}

void gdc_rt_calib_job_agree(const gdc_rt_calib_job_record_t *all, int size)
{
    int  measured = 0;
    char line[512];

    memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
    for (int r = 0; r < size; r++) {
        if (all[r].magic != CALIB_MAGIC || all[r].state == GDC_RT_CALIB_JOB_NOT_MEASURED) {
            if (gdc_rt_boot.rank == 0) {
                GDC_LOG_INFO("calibration: rank %d's node did not measure cross-memory attach: every rank prices "
                             "with the built-in numbers",
                             r);
            }
            memset(&gdc_rt_calib, 0, sizeof(gdc_rt_calib));
            return;
        }
        if (all[r].state != GDC_RT_CALIB_JOB_MEASURED) {
            continue;
        }
        if (measured++ == 0) {
            gdc_rt_calib.n = all[r].n;
        } else {
            gdc_rt_calib_combine(&gdc_rt_calib.n, &all[r].n);
        }
    }
    if (measured == 0) {
        return; /* no node of two ranks: nothing crosses between processes of a node */
    }
    gdc_rt_calib.valid = 1;
    snprintf(gdc_rt_calib.source, sizeof(gdc_rt_calib.source),
             "measured by this job at gdc_init, the worst of %d node(s); the rest built in", measured);
    snprintf(line, sizeof(line),
             "cross-memory attach %.4g us (in cache %.4g GB/s, of 4 MiB %.4g times a copy's time); out of a peer's "
             "shared memory in cache: copy %.4g GB/s (%.4g GB/s of a few KiB), reduction %.4g GB/s; into one's own: "
             "copy %.4g GB/s",
             gdc_rt_calib.n.cma_us, gdc_rt_calib.n.cma_cached_gbs, gdc_rt_calib.n.cma_copy_ratio,
             gdc_rt_calib.n.copy_cached_gbs,
             gdc_rt_calib.n.copy_peer_small_gbs, gdc_rt_calib.n.reduce_cached_gbs, gdc_rt_calib.n.copy_shared_cached_gbs);
    if (gdc_rt_boot.rank == 0) {
        GDC_LOG_INFO("calibration in force (%s): %s", gdc_rt_calib.source, line);
    } else {
        GDC_LOG_DEBUG("calibration in force: %s", line);
    }
}
