#include "rt_log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

gdc_rt_log_level_t gdc_rt_log_level = GDC_RT_LOG_WARN;
static int log_rank = -1;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int gdc_rt_log_parse_level(const char *name, gdc_rt_log_level_t *level)
{
    for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *level = (gdc_rt_log_level_t)i;
            return 0;
        }
    }
    return -1;
}

void gdc_rt_log_set_rank(int rank)
{
    log_rank = rank;
}

void gdc_rt_vlog(gdc_rt_log_level_t level, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    if (!gdc_rt_log_enabled(level)) {
        return;
    }
    /* Build the whole line first and write it at once, so that lines from ranks sharing
     * a terminal or pipe do not interleave. */
    if (log_rank >= 0) {
        n = snprintf(line, sizeof(line), "gdc[%d] %s: ", log_rank, level_names[level]);
    } else {
        n = snprintf(line, sizeof(line), "gdc[pid %d] %s: ", (int)getpid(), level_names[level]);
    }
    if (n < 0 || (size_t)n >= sizeof(line)) {
        return;
    }
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    n = (int)strlen(line);
    line[n++] = '\n';
    (void)!write(STDERR_FILENO, line, (size_t)n);
}

void gdc_rt_log(gdc_rt_log_level_t level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gdc_rt_vlog(level, fmt, ap);
    va_end(ap);
}
