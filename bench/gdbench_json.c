/* --json FILE: the run's parameters and every row, for scripts (bench/compare.sh). */
#include "gdbench.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s != NULL && *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void json_key_string(FILE *f, const char *key, const char *value)
{
    fprintf(f, "  \"%s\": ", key);
    if (value == NULL) {
        fputs("null", f);
    } else {
        json_string(f, value);
    }
    fputs(",\n", f);
}

/* JSON has no NaN or infinity; a rate that cannot be computed is null. */
static void json_number(FILE *f, double value)
{
    if (isfinite(value)) {
        fprintf(f, "%.9g", value);
    } else {
        fputs("null", f);
    }
}

static void json_row(FILE *f, const gdbench_options_t *o, const gdbench_row_t *r)
{
    fprintf(f, "    {\"size\": %zu, \"count\": %zu, \"bytes\": ", r->size, r->count);
    json_number(f, r->bytes);
    fputs(", \"avg_us\": ", f);
    json_number(f, r->avg_us);
    fputs(", \"min_us\": ", f);
    json_number(f, r->min_us);
    fputs(", \"max_us\": ", f);
    json_number(f, r->max_us);
    fprintf(f, ", \"iterations\": %ld, \"algbw_gbps\": ", r->iterations);
    json_number(f, r->algbw);
    fputs(", \"busbw_gbps\": ", f);
    json_number(f, r->busbw);
    if (o->test == GDBENCH_BW || o->test == GDBENCH_BIBW) {
        fputs(", \"bandwidth_mbps\": ", f);
        json_number(f, r->mbps);
    }
    fprintf(f, ", \"validation\": %s}",
            r->validation == GDBENCH_UNCHECKED ? "null" : r->validation == GDBENCH_PASS ? "\"pass\"" : "\"fail\"");
}

int gdbench_json_write(const gdbench_report_t *report, const char *status, const char *path)
{
    const gdbench_options_t   *o    = report->opts;
    const gdbench_test_info_t *info = gdbench_test_info(o->test);
    FILE                      *f    = fopen(path, "w");

    if (f == NULL) {
        gdbench_set_error("--json: cannot write %s: %s", path, strerror(errno));
        return GDBENCH_ERR;
    }
    fputs("{\n", f);
    json_key_string(f, "benchmark", "gdbench");
    json_key_string(f, "program", report->program);
    json_key_string(f, "library", report->library);
    json_key_string(f, "library_version", report->library_long);
    json_key_string(f, "test", info->name);
    fprintf(f, "  \"ranks\": %d,\n", report->nranks);
    json_key_string(f, "dtype", (info->flags & GDBENCH_F_NO_DATA) ? NULL : gdbench_dtype_info(o->dtype)->name);
    json_key_string(f, "op", (info->flags & GDBENCH_F_REDUCTION) ? gdbench_op_name(o->op) : NULL);
    if (info->flags & GDBENCH_F_ROOTED) {
        fprintf(f, "  \"root\": %d,\n", o->root);
    } else {
        fputs("  \"root\": null,\n", f);
    }
    fprintf(f, "  \"in_place\": %s,\n", o->in_place ? "true" : "false");
    json_key_string(f, "memory", gdbench_memory_name(o->memory));
    fputs("  \"d2d_copy_gbps\": ", f);
    if (report->d2d_gbps > 0) {
        json_number(f, report->d2d_gbps);
    } else {
        fputs("null", f);
    }
    fputs(",\n", f);
    json_key_string(f, "algorithm", o->algorithm);
    fprintf(f, "  \"validate\": %s,\n", o->validate ? "true" : "false");
    fprintf(f, "  \"with_barrier\": %s,\n", o->with_barrier ? "true" : "false");
    fprintf(f, "  \"min_size\": %zu,\n  \"max_size\": %zu,\n", o->min_size, o->max_size);
    json_key_string(f, "size_meaning", info->size_help);
    fputs("  \"busbw_factor\": ", f);
    json_number(f, gdbench_busbw_factor(o->test, report->nranks));
    fputs(",\n", f);
    json_key_string(f, "status", status);
    fputs("  \"rows\": [", f);
    for (size_t i = 0; i < report->nrows; i++) {
        fputs(i == 0 ? "\n" : ",\n", f);
        json_row(f, o, &report->rows[i]);
    }
    fputs(report->nrows ? "\n  ]\n}\n" : "]\n}\n", f);
    if (fclose(f) != 0) {
        gdbench_set_error("--json: error writing %s: %s", path, strerror(errno));
        return GDBENCH_ERR;
    }
    return GDBENCH_OK;
}
