/*
 * Fuzz target: the values of the GDC_* environment variables. The input is NAME=VALUE
 * (the corpus stays readable and does not depend on the order of the tables), for NAME:
 *   - a registered parameter (the runtime's, the topology's and the collectives' tables:
 *     what gdinfo --params lists), read by its own parse function into scratch memory, so
 *     that nothing of gdc's configuration changes between inputs;
 *   - GDC_LINK_<CLASS>, an override of the cost model, set in the environment for
 *     gdc_coll_machine_env and unset after;
 *   - "bytes": gdc_rt_parse_bytes itself, which reads every size in a value and in a
 *     tuning file.
 * Beyond not crashing: a rejected value comes with what was expected, and an accepted one
 * means what it says: a byte count is digits and a unit (K, M, G; i and B optional) and
 * has their value, a radix is a whole number in range, a duration is a number >= 0, a
 * link is two finite numbers (latency >= 0, bandwidth > 0) and nothing else.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "fuzz.h"

#include "gdc_coll.h"
#include "gdc_rt.h"
#include "rt_config.h"
#include "rt_topo.h"
#include "select/model.h"

#define MAX_PARAMS 64

static const gdc_rt_param_t *params[MAX_PARAMS];
static int                   num_params;

static void collect(const char *layer, const gdc_rt_param_t *param, const char *value, void *arg)
{
    if (num_params < MAX_PARAMS) {
        params[num_params++] = param;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* what gdc_init and gdinfo --params register */
    gdc_coll_register_params();
    gdc_rt_topo_register_params();
    gdc_rt_config_foreach(collect, NULL);
    return 0;
}

/* A byte count by the documented grammar, written apart from gdc_rt_parse_bytes. */
static int reference_bytes(const char *text, size_t *bytes)
{
    unsigned long long value = 0;
    unsigned           shift = 0;
    const char        *p     = text;

    if (!isdigit((unsigned char)*p)) {
        return -1;
    }
    for (; isdigit((unsigned char)*p); p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (ULLONG_MAX - digit) / 10) {
            return -1;
        }
        value = value * 10 + digit;
    }
    switch (*p) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: break;
    }
    p += shift > 0;
    p += shift > 0 && *p == 'i';
    p += *p == 'B' || *p == 'b';
    if (*p != '\0' || value > (SIZE_MAX >> shift)) {
        return -1;
    }
    *bytes = (size_t)(value << shift);
    return 0;
}

static int is_one_of(const char *name, const char *const *names)
{
    for (; *names != NULL; names++) {
        if (strcmp(name, *names) == 0) {
            return 1;
        }
    }
    return 0;
}

/* What an accepted value must mean, for the parameters whose kind is known here (others,
 * such as names and paths, may be anything). */
static void check_meaning(const char *name, const char *value, const void *dest)
{
    static const char *const bytes[]   = {"GDC_SHM_SIZE", "GDC_CHUNK_SIZE", "GDC_SHM_CHUNK", "GDC_HIER_RING_MIN",
                                          "GDC_STREAM_SIZE", NULL};
    static const char *const seconds[] = {"GDC_TIMEOUT", "GDC_STALL_WARN", NULL};
    size_t                   expect;

    if (is_one_of(name, bytes) && strcmp(value, "auto") != 0) {
        FUZZ_CHECK(reference_bytes(value, &expect) == 0 && *(const size_t *)dest == expect);
    } else if (is_one_of(name, seconds)) {
        FUZZ_CHECK(!isnan(*(const double *)dest) && *(const double *)dest >= 0);
    } else if (strcmp(name, "GDC_TREE_RADIX") == 0) {
        size_t digits = strspn(value, "0123456789");
        FUZZ_CHECK(digits > 0 && value[digits] == '\0');
        FUZZ_CHECK(strtol(value, NULL, 10) == *(const int *)dest);
    }
}

static void fuzz_param(const gdc_rt_param_t *param, const char *value)
{
    max_align_t scratch[2][4];
    const char *why[2] = {NULL, NULL};
    int         rc[2];

    memset(scratch, 0, sizeof(scratch));
    for (int i = 0; i < 2; i++) {
        rc[i] = param->parse(value, scratch[i], &why[i]);
    }
    FUZZ_CHECK(rc[0] == 0 || rc[0] == -1);
    FUZZ_CHECK(rc[0] == rc[1] && memcmp(scratch[0], scratch[1], sizeof(scratch[0])) == 0);
    if (rc[0] != 0) {
        FUZZ_CHECK(why[0] != NULL && why[0][0] != '\0');
        return;
    }
    check_meaning(param->name, value, scratch[0]);
}

/* "LATENCY_US,BANDWIDTH_GBS", written apart from gdc_coll_machine_env. */
static int reference_link(const char *value, double *latency, double *bandwidth)
{
    char *end;

    errno    = 0;
    *latency = strtod(value, &end);
    if (end == value || *end != ',' || errno != 0) {
        return -1;
    }
    value      = end + 1;
    *bandwidth = strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0) {
        return -1;
    }
    return isfinite(*latency) && isfinite(*bandwidth) && *latency >= 0 && *bandwidth > 0 ? 0 : -1;
}

/* GDC_LINK_NET_GDR for net-gdr, as gdc_coll_machine_env spells it. */
static void link_variable(gdc_link_class_t cls, char *var, size_t len)
{
    snprintf(var, len, "GDC_LINK_%s", gdc_link_class_name(cls));
    for (char *p = var; *p != '\0'; p++) {
        *p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    }
}

static void fuzz_link(gdc_link_class_t cls, const char *value)
{
    gdc_coll_machine_t m;
    char               var[64];
    double             latency, bandwidth;

    link_variable(cls, var, sizeof(var));
    gdc_coll_machine_default(&m);
    setenv(var, value, 1);
    if (gdc_coll_machine_env(&m) == GDC_SUCCESS && value[0] != '\0') {
        FUZZ_CHECK(reference_link(value, &latency, &bandwidth) == 0);
        FUZZ_CHECK(m.link[cls].latency == latency * 1e-6 && m.link[cls].bandwidth == bandwidth * 1e9);
    }
    unsetenv(var);
}

static void fuzz_bytes(const char *value)
{
    size_t got = 0, expect = 0;
    int    rc = gdc_rt_parse_bytes(value, &got);

    FUZZ_CHECK((rc == 0) == (reference_bytes(value, &expect) == 0));
    FUZZ_CHECK(rc != 0 || got == expect);
}

static int link_by_name(const char *name, gdc_link_class_t *cls)
{
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        char var[64];
        link_variable((gdc_link_class_t)c, var, sizeof(var));
        if (strcmp(name, var) == 0) {
            *cls = (gdc_link_class_t)c;
            return 0;
        }
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char            *name = fuzz_string(data, size), *value;
    gdc_link_class_t cls;

    if (name == NULL || (value = strchr(name, '=')) == NULL) {
        free(name);
        return 0;
    }
    *value++ = '\0';
    for (int i = 0; i < num_params; i++) {
        if (strcmp(name, params[i]->name) == 0) {
            fuzz_param(params[i], value);
        }
    }
    if (link_by_name(name, &cls) == 0) {
        fuzz_link(cls, value);
    }
    if (strcmp(name, "bytes") == 0) {
        fuzz_bytes(value);
    }
    free(name);
    return 0;
}
