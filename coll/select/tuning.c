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
static int parse_range(char *text, size_t *lo, size_t *hi)
{
    char *dash = strchr(text, '-');

    if (dash == NULL) {
        return gdc_rt_parse_bytes(text, lo) != 0 ? -1 : (*hi = *lo, 0);
    }
    *dash = '\0';
    if (gdc_rt_parse_bytes(text, lo) != 0) {
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

/* words: COLLECTIVE MIN-MAX ALGORITHM (the range is cut at its dash) */
static int parse_rule(char **words, gdc_coll_tuning_rule_t *rule)
{
    return gdc_coll_type_by_name(words[0], &rule->coll) == 0 &&
                   parse_range(words[1], &rule->min_bytes, &rule->max_bytes) == 0 &&
                   (rule->algo = gdc_coll_algo_find(rule->coll, words[2])) != NULL
               ? 0
               : -1;
}

static gdc_status_t parse_line(gdc_coll_tuning_t *tuning, const char *line, const char *where, int lineno)
{
    char                  *copy = strdup(line), *words[3];
    int                    n;
    gdc_coll_tuning_rule_t rule;

    if (copy == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    n = gdc_rt_split_words(copy, words, 3);
    if (n != 0 && (n != 3 || parse_rule(words, &rule) != 0)) {
        free(copy);
        GDC_LOG_ERROR("%s:%d: expected \"COLLECTIVE MIN-MAX ALGORITHM\" (e.g. \"allreduce 0-4K "
                      "recursive_doubling\"; gdinfo --algorithms lists the names), got: %.*s",
                      where, lineno, (int)strcspn(line, "\n"), line);
        return GDC_ERR_INVALID_ARG;
    }
    free(copy);
    return n == 0 ? GDC_SUCCESS : add_rule(tuning, &rule);
}

gdc_status_t gdc_coll_tuning_read(gdc_coll_tuning_t *tuning, FILE *f, const char *where)
{
    char        *line   = NULL;
    size_t       cap    = 0;
    int          lineno = 0;
    gdc_status_t status = GDC_SUCCESS;

    /* getline: a line of any length is one line (a fixed buffer would read the rest of a
     * long comment as a rule) */
    while (status == GDC_SUCCESS && getline(&line, &cap, f) != -1) {
        status = parse_line(tuning, line, where, ++lineno);
    }
    free(line);
    return status;
}

gdc_status_t gdc_coll_tuning_load(gdc_coll_tuning_t *tuning, const char *path)
{
    gdc_status_t status;
    FILE        *f = fopen(path, "r");

    if (f == NULL) {
        GDC_LOG_ERROR("GDC_TUNING=%s: cannot open it: %s", path, strerror(errno));
        return GDC_ERR_INVALID_ARG;
    }
    status = gdc_coll_tuning_read(tuning, f, path);
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
