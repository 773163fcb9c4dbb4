/* The tuning file (see tuning.h). */
#include "select/tuning.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdc_rt.h"
#include "select/table.h"

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

static gdc_status_t add_rule(gdc_coll_tuning_t *tuning, const gdc_coll_tuning_rule_t *rule)
{
    gdc_coll_tuning_rule_t *grown = realloc(tuning->rules, (size_t)(tuning->num_rules + 1) * sizeof(*grown));

    if (grown == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    tuning->rules                      = grown;
    tuning->rules[tuning->num_rules++] = *rule;
    return GDC_SUCCESS;
}

static gdc_status_t parse_line(gdc_coll_tuning_t *tuning, char *line, const char *path, int lineno)
{
    char                   coll_name[32], range[64], algo_name[64];
    int                    n = sscanf(line, "%31s %63s %63s", coll_name, range, algo_name);
    gdc_coll_tuning_rule_t rule;

    if (n <= 0 || coll_name[0] == '#') {
        return GDC_SUCCESS;
    }
    if (n != 3 || gdc_coll_type_by_name(coll_name, &rule.coll) != 0 ||
        parse_range(range, &rule.min_bytes, &rule.max_bytes) != 0 ||
        (rule.algo = gdc_coll_algo_find(rule.coll, algo_name)) == NULL) {
        GDC_LOG_ERROR("%s:%d: expected \"COLLECTIVE MIN-MAX ALGORITHM\" (e.g. \"allreduce 0-4K "
                      "recursive_doubling\"; gdinfo --algorithms lists the names), got: %s",
                      path, lineno, line);
        return GDC_ERR_INVALID_ARG;
    }
    return add_rule(tuning, &rule);
}

gdc_status_t gdc_coll_tuning_load(gdc_coll_tuning_t *tuning, const char *path)
{
    char         line[256];
    int          lineno = 0;
    gdc_status_t status = GDC_SUCCESS;
    FILE        *f      = fopen(path, "r");

    if (f == NULL) {
        GDC_LOG_ERROR("GDC_TUNING=%s: cannot open it: %s", path, strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    while (status == GDC_SUCCESS && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        status                    = parse_line(tuning, line, path, ++lineno);
    }
    fclose(f);
    if (status == GDC_SUCCESS) {
        GDC_LOG_INFO("tuning file %s: %d rule(s)", path, tuning->num_rules);
    }
    return status;
}

void gdc_coll_tuning_free(gdc_coll_tuning_t *tuning)
{
    free(tuning->rules);
    tuning->rules     = NULL;
    tuning->num_rules = 0;
}

const gdc_coll_algo_t *gdc_coll_tuning_lookup(const gdc_coll_tuning_t *tuning, const gdc_coll_args_t *args)
{
    size_t bytes = args->count * args->dsize;

    for (int i = 0; i < tuning->num_rules; i++) {
        const gdc_coll_tuning_rule_t *rule = &tuning->rules[i];
        if (rule->coll == args->coll && bytes >= rule->min_bytes && bytes <= rule->max_bytes) {
            return rule->algo;
        }
    }
    return NULL;
}
