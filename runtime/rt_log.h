/* Logging: one line per event on stderr, prefixed with the rank, filtered by GDC_LOG. */
#ifndef GDC_RT_LOG_H
#define GDC_RT_LOG_H

#include <stdarg.h>

typedef enum {
    GDC_RT_LOG_ERROR = 0,
    GDC_RT_LOG_WARN,
    GDC_RT_LOG_INFO,
    GDC_RT_LOG_DEBUG
} gdc_rt_log_level_t;

/* Set by the configuration at init; GDC_RT_LOG_WARN until then. */
extern gdc_rt_log_level_t gdc_rt_log_level;

/* Parse "error|warn|info|debug"; returns 0 and sets *level, or -1 for an unknown name. */
int gdc_rt_log_parse_level(const char *name, gdc_rt_log_level_t *level);
/* The rank shown in every line; -1 (before bootstrap) shows the pid instead. */
void gdc_rt_log_set_rank(int rank);

void gdc_rt_log(gdc_rt_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gdc_rt_vlog(gdc_rt_log_level_t level, const char *fmt, va_list ap);

#define gdc_rt_log_enabled(_level) ((_level) <= gdc_rt_log_level)

#define GDC_LOG_ERROR(...) gdc_rt_log(GDC_RT_LOG_ERROR, __VA_ARGS__)
#define GDC_LOG_WARN(...)                                                                     \
    do {                                                                                      \
        if (gdc_rt_log_enabled(GDC_RT_LOG_WARN)) gdc_rt_log(GDC_RT_LOG_WARN, __VA_ARGS__);    \
    } while (0)
#define GDC_LOG_INFO(...)                                                                     \
    do {                                                                                      \
        if (gdc_rt_log_enabled(GDC_RT_LOG_INFO)) gdc_rt_log(GDC_RT_LOG_INFO, __VA_ARGS__);    \
    } while (0)
#define GDC_LOG_DEBUG(...)                                                                    \
    do {                                                                                      \
        if (gdc_rt_log_enabled(GDC_RT_LOG_DEBUG)) gdc_rt_log(GDC_RT_LOG_DEBUG, __VA_ARGS__);  \
    } while (0)

/* A warning printed once per process for each call site: for fallbacks to a slower path. */
#define GDC_LOG_WARN_ONCE(...)                                                                \
    do {                                                                                      \
        static int _gdc_warned;                                                               \
        if (!_gdc_warned) {                                                                   \
            _gdc_warned = 1;                                                                  \
            GDC_LOG_WARN(__VA_ARGS__);                                                        \
        }                                                                                     \
    } while (0)

#endif
