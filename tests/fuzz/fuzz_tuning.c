/*
 * Fuzz target: the tuning file (GDC_TUNING, coll/select/tuning.c), the input read as the
 * file. Beyond not crashing or leaking: a file that is accepted holds only rules the
 * selection can use (a known collective, an algorithm of that collective, a range whose
 * ends are in order), every rule is found by a call of its own size, and the rules are
 * the file's lines as written: one per line that is not blank or a comment, each of
 * exactly three words naming its collective and algorithm (split here apart from gdc).
 */
#include <ctype.h>

#include "fuzz.h"

#include "select/table.h"
#include "select/tuning.h"

static void check_rule(const gdc_coll_tuning_t *tuning, const gdc_coll_tuning_rule_t *rule)
{
    gdc_coll_args_t args;

    FUZZ_CHECK((unsigned)rule->coll < GDC_COLL_TYPE_COUNT);
    FUZZ_CHECK(rule->algo != NULL && rule->algo->coll == rule->coll);
    FUZZ_CHECK(rule->algo >= gdc_coll_algos && rule->algo < gdc_coll_algos + GDC_COLL_ALGO_COUNT);
    FUZZ_CHECK(rule->min_bytes <= rule->max_bytes);
    memset(&args, 0, sizeof(args));
    args.coll  = rule->coll;
    args.dsize = 1;
    args.count = rule->min_bytes;
    FUZZ_CHECK(gdc_coll_tuning_lookup(tuning, &args) != NULL);
    args.count = rule->max_bytes;
    FUZZ_CHECK(gdc_coll_tuning_lookup(tuning, &args) != NULL);
}

/* The words of one line (cut at a NUL, as a C string is), up to a word starting with #. */
static int line_words(const uint8_t *line, size_t len, char *copy, char **words, int max)
{
    int n = 0;

    memcpy(copy, line, len);
    copy[len] = '\0';
    for (char *p = copy; *p != '\0';) {
        char *word;

        while (isspace((unsigned char)*p)) {
            p++;
        }
        if (*p == '\0' || *p == '#') {
            break;
        }
        word = p;
        while (*p != '\0' && !isspace((unsigned char)*p)) {
            p++;
        }
        if (*p != '\0') {
            *p++ = '\0';
        }
        if (n == max) {
            return max + 1;
        }
        words[n++] = word;
    }
    return n;
}

static void check_lines(const gdc_coll_tuning_t *tuning, const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1), *words[3];
    int   rule = 0;

    FUZZ_CHECK(copy != NULL);
    for (size_t at = 0; at < size;) {
        const uint8_t *nl  = memchr(data + at, '\n', size - at);
        size_t         len = nl != NULL ? (size_t)(nl - data) - at : size - at;
        int            n   = line_words(data + at, len, copy, words, 3);

        at += len + 1;
        if (n == 0) {
            continue;
        }
        FUZZ_CHECK(n == 3 && rule < tuning->num_rules);
        FUZZ_CHECK(strcmp(words[0], gdc_coll_type_name(tuning->rules[rule].coll)) == 0);
        FUZZ_CHECK(strcmp(words[2], tuning->rules[rule].algo->name) == 0);
        rule++;
    }
    FUZZ_CHECK(rule == tuning->num_rules);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gdc_coll_tuning_t tuning = {0};
    FILE             *f      = fuzz_stream(data, size);
    gdc_status_t      status;

    if (f == NULL) {
        return 0;
    }
    status = gdc_coll_tuning_read(&tuning, f, "fuzz");
    fclose(f);
    FUZZ_CHECK(status == GDC_SUCCESS || status == GDC_ERR_INVALID_ARG || status == GDC_ERR_NO_MEMORY);
    if (status == GDC_SUCCESS) {
        for (int i = 0; i < tuning.num_rules; i++) {
            check_rule(&tuning, &tuning.rules[i]);
        }
        check_lines(&tuning, data, size);
    }
    gdc_coll_tuning_free(&tuning);
    return 0;
}
