/*
 * gdrun's messages on stderr: errors and warnings (always), the information a user may
 * want (-v or GDC_LOG=info|debug), and what gdrun does step by step (-v). Every file of
 * the launcher says things through these, so they depend on nothing but the options.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gdrun.h"

/* One write per message, so that it cannot be split by other output. */
static void vmsg(const char *tag, const char *fmt, va_list ap)
{
    char   line[2048];
    int    n = snprintf(line, sizeof(line), "gdrun: %s", tag);
    size_t len;

    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    len = strlen(line);
    line[len++] = '\n';
    (void)!write(STDERR_FILENO, line, len);
}

void gdrun_msg(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void gdrun_info(const gdrun_options_t *opt, const char *fmt, ...)
{
    const char *log = getenv("GDC_LOG");
    va_list     ap;

    if (!opt->verbose && (log == NULL || (strcasecmp(log, "info") != 0 && strcasecmp(log, "debug") != 0))) {
        return;
    }
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void gdrun_debug(const gdrun_job_t *job, const char *fmt, ...)
{
    va_list ap;

    if (!job->opt.verbose) {
        return;
    }
    va_start(ap, fmt);
    vmsg("[verbose] ", fmt, ap);
    va_end(ap);
}
