#include "rt_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gdc.h>

#include "rt_calib.h"
#include "rt_msg.h"
#include "rt_shm.h"
#include "rt_stage.h"

gdc_rt_config_t gdc_rt_config;

#define GDC_RT_CONFIG_MAX_TABLES 8

static struct {
    const char           *layer;
    const gdc_rt_param_t *params;
    int                   count;
} tables[GDC_RT_CONFIG_MAX_TABLES];
static int num_tables;

static int parse_log_level(const char *value, void *dest, const char **why)
{
    *why = "one of error, warn, info, debug";
    return gdc_rt_log_parse_level(value, (gdc_rt_log_level_t *)dest);
}

static int parse_yield(const char *value, void *dest, const char **why)
{
    static const char *const names[] = {"auto", "always", "never"};

    for (int i = 0; i < 3; i++) {
        if (strcmp(value, names[i]) == 0) {
            *(gdc_rt_yield_mode_t *)dest = (gdc_rt_yield_mode_t)i;
            return 0;
        }
    }
    *why = "one of auto, always, never";
    return -1;
}

static int parse_err_mode(const char *value, void *dest, const char **why)
{
    *why = "auto or peer";
    if (strcmp(value, "auto") == 0 || strcmp(value, "peer") == 0) {
        *(gdc_rt_err_mode_t *)dest = value[0] == 'a' ? GDC_RT_ERR_MODE_AUTO : GDC_RT_ERR_MODE_PEER;
        return 0;
    }
    return -1;
}

static int parse_shm_size(const char *value, void *dest, const char **why)
{
    size_t bytes;

    *why = "0 (off) or a size from 64K to 1G, such as 2M";
    if (gdc_rt_parse_bytes(value, &bytes) != 0 || (bytes != 0 && (bytes < 65536 || bytes > (1u << 30)))) {
        return -1;
    }
    *(size_t *)dest = bytes;
    return 0;
}

static int parse_msg_cma(const char *value, void *dest, const char **why)
{
    size_t bytes;

    *why = "0 (never) or a size of at least 1K, such as 32K";
    if (gdc_rt_parse_bytes(value, &bytes) != 0 || (bytes != 0 && bytes < 1024)) {
        return -1;
    }
    *(size_t *)dest = bytes;
    return 0;
}

static int parse_calibration(const char *value, void *dest, const char **why)
{
    *why = "job, auto, off or the path of a calibration file (gdinfo --calibrate writes one)";
    if (strcmp(value, "job") != 0 && strcmp(value, "auto") != 0 && strcmp(value, "off") != 0 && value[0] != '/' &&
        value[0] != '.') {
        return -1;
    }
    *(const char **)dest = value;
    return 0;
}

static const gdc_rt_param_t runtime_params[] = {
    {"GDC_LOG", "warn", "log level: error, warn, info (paths chosen, transports per peer), debug",
     parse_log_level, &gdc_rt_config.log_level},
    {"GDC_TIMEOUT", "0",
     "seconds an operation may wait without progress before it fails with GDC_ERR_TIMEOUT; 0: never",
     gdc_rt_parse_seconds, &gdc_rt_config.timeout},
    {"GDC_STALL_WARN", "60",
     "seconds without progress before a warning naming the step and the peer waited for "
     "(repeated with doubling intervals); 0: never",
     gdc_rt_parse_seconds, &gdc_rt_config.stall_warn},
    {"GDC_YIELD", "auto",
     "yield the core while waiting: auto (when local ranks outnumber the cores we may use), "
     "always, never",
     parse_yield, &gdc_rt_config.yield},
    {"GDC_ERR_MODE", "auto",
     "peer-failure detection: auto (UCX error handling for peers on other nodes; peers on this "
     "node keep shared memory and are watched by pid), peer (UCX error handling for all; with "
     "UCX 1.13 that means TCP even inside a node)",
     parse_err_mode, &gdc_rt_config.err_mode},
    {"GDC_SHM_SIZE", "2M",
     "shared memory per rank and communicator for collectives inside a node (a ring of 8 slots of 256 KiB "
     "for small calls comes on top); 0 turns it off",
     parse_shm_size, &gdc_rt_shm_bytes},
    {"GDC_MSG_CMA", "16K",
     "host messages from this size on to a rank of the same node are read by the receiver from the sender's "
     "memory (cross-memory attach: one copy, where UCX's shared memory makes two); 0: never",
     parse_msg_cma, &gdc_rt_msg_cma_bytes},
    {"GDC_CALIBRATION", "job",
     "the cost model's host numbers: job (each node's first two ranks measure cross-memory attach, the copies "
     "in cache and a read across of 4 MiB against a copy at gdc_init, in about 15 milliseconds, and every rank "
     "prices with the worst node's; the rest built in), "
     "off (the built-in or GDC_PROFILE's), auto (every number, measured at the first gdc_init on a host, or by "
     "gdinfo --calibrate, and kept in $XDG_CACHE_HOME/gdc or ~/.cache/gdc), or the path of a calibration file",
     parse_calibration, &gdc_rt_calib_setting},
    {"GDC_STAGING", "pipeline",
     "device buffers that UCX cannot reach, through host memory: pipeline (from 128 KiB in chunks through "
     "pinned bounce buffers, copies and transfer overlapped) or whole (one copy each way, to compare)",
     gdc_rt_stage_parse_mode, &gdc_rt_stage_mode},
    {"GDC_STAGING_HOST_TEST", "0",
     "1: host buffers are staged too, with host copies in the device's place (the staging path without a GPU, "
     "for tests and measurements)",
     gdc_rt_parse_flag, &gdc_rt_stage_host_test},
    {"GDC_STAGING_BUFFERS", "32",
     "pinned host bounce buffers of 2 MiB per process for the staging pipeline, lent in 64 KiB segments; "
     "messages in flight past them get unpinned memory of their own (warned once)",
     gdc_rt_stage_parse_buffers, &gdc_rt_stage_max_buffers},
};

void gdc_rt_config_register(const char *layer, const gdc_rt_param_t *params, int count)
{
    for (int i = 0; i < num_tables; i++) {
        if (tables[i].params == params) {
            return;
        }
    }
    if (num_tables == GDC_RT_CONFIG_MAX_TABLES) {
        GDC_LOG_ERROR("internal: too many parameter tables (%s)", layer);
        return;
    }
    tables[num_tables].layer  = layer;
    tables[num_tables].params = params;
    tables[num_tables].count  = count;
    num_tables++;
}

static void register_runtime_params(void)
{
    gdc_rt_config_register("runtime", runtime_params,
                           (int)(sizeof(runtime_params) / sizeof(runtime_params[0])));
}

static const char *param_value(const gdc_rt_param_t *param)
{
    const char *env = getenv(param->name);

    return (env != NULL && env[0] != '\0') ? env : param->defval;
}

gdc_status_t gdc_rt_config_load(void)
{
    register_runtime_params();
    for (int t = 0; t < num_tables; t++) {
        for (int i = 0; i < tables[t].count; i++) {
            const gdc_rt_param_t *param = &tables[t].params[i];
            const char *value = param_value(param);
            const char *why   = "a valid value";

            if (param->parse(value, param->dest, &why) != 0) {
                GDC_LOG_ERROR("%s=%s is not valid: expected %s", param->name, value, why);
                return GDC_ERR_INVALID_ARG;
            }
        }
    }
    gdc_rt_log_level = gdc_rt_config.log_level;
    return GDC_SUCCESS;
}

void gdc_rt_config_foreach(gdc_rt_param_visit_fn_t visit, void *arg)
{
    register_runtime_params();
    for (int t = 0; t < num_tables; t++) {
        for (int i = 0; i < tables[t].count; i++) {
            visit(tables[t].layer, &tables[t].params[i], param_value(&tables[t].params[i]), arg);
        }
    }
}

int gdc_rt_parse_flag(const char *value, void *dest, const char **why)
{
    *why = "0 or 1";
    if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
        return -1;
    }
    *(int *)dest = value[0] == '1';
    return 0;
}

int gdc_rt_parse_seconds(const char *value, void *dest, const char **why)
{
    char  *end;
    double seconds;

    *why  = "a number of seconds >= 0";
    errno = 0;
    seconds = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !(seconds >= 0.0)) {
        return -1;
    }
    *(double *)dest = seconds;
    return 0;
}

int gdc_rt_parse_string(const char *value, void *dest, const char **why)
{
    *(const char **)dest = value;
    return 0;
}

int gdc_rt_parse_bytes(const char *text, size_t *bytes)
{
    char              *end;
    unsigned long long value;
    unsigned           shift = 0;

    /* strtoull would also take a sign or leading space, and " -1" as 2^64 - 1 */
    if (!isdigit((unsigned char)text[0])) {
        return -1;
    }
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0) {
        return -1;
    }
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift > 0 && *end == 'i') {
        end++;
    }
    if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end != '\0' || value > (SIZE_MAX >> shift)) {
        return -1;
    }
    *bytes = (size_t)(value << shift);
    return 0;
}

int gdc_rt_split_words(char *line, char **words, int max)
{
    static const char space[] = " \t\r\n\v\f";
    char             *save    = NULL;
    int               n       = 0;

    for (char *w = strtok_r(line, space, &save); w != NULL && w[0] != '#'; w = strtok_r(NULL, space, &save)) {
        if (n == max) {
            return max + 1;
        }
        words[n++] = w;
    }
    return n;
}
