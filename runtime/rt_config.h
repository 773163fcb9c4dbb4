/*
 * Configuration: every GDC_* environment variable is declared once, in a table, with its
 * default and help text, and read once at gdc_init(). Layers above the runtime register
 * their own tables; gdinfo --params prints them all.
 */
#ifndef GDC_RT_CONFIG_H
#define GDC_RT_CONFIG_H

#include <gdc.h>

#include <stddef.h>

#include "rt_log.h"

/* Parse value into dest; 0 on success, -1 with *why set to what was expected. */
typedef int (*gdc_rt_param_parse_fn_t)(const char *value, void *dest, const char **why);

typedef struct gdc_rt_param {
    const char              *name;    /* environment variable, "GDC_TIMEOUT" */
    const char              *defval;  /* used when the variable is unset */
    const char              *help;    /* one line */
    gdc_rt_param_parse_fn_t  parse;
    void                    *dest;
} gdc_rt_param_t;

typedef enum {
    GDC_RT_YIELD_AUTO = 0, /* yield the core when local ranks outnumber our cores */
    GDC_RT_YIELD_ALWAYS,
    GDC_RT_YIELD_NEVER
} gdc_rt_yield_mode_t;

typedef enum {
    GDC_RT_ERR_MODE_AUTO = 0, /* UCX error handling off-node; on-node peers watched by pid */
    GDC_RT_ERR_MODE_PEER      /* UCX error handling for every peer */
} gdc_rt_err_mode_t;

/* The runtime's own parameters, valid after gdc_rt_config_load(). */
typedef struct gdc_rt_config {
    gdc_rt_log_level_t  log_level;
    double              timeout;     /* seconds without progress before GDC_ERR_TIMEOUT; 0: off */
    double              stall_warn;  /* seconds without progress before a warning; 0: off */
    gdc_rt_yield_mode_t yield;
    gdc_rt_err_mode_t   err_mode;
} gdc_rt_config_t;

extern gdc_rt_config_t gdc_rt_config;

/* Add a table of parameters (kept by pointer; static storage). At most 8 tables. */
void gdc_rt_config_register(const char *layer, const gdc_rt_param_t *params, int count);

/* Read and validate every registered parameter; logs and returns GDC_ERR_INVALID_ARG on
 * the first bad value. */
gdc_status_t gdc_rt_config_load(void);

/* Visit every parameter with its current (environment or default) value. */
typedef void (*gdc_rt_param_visit_fn_t)(const char *layer, const gdc_rt_param_t *param,
                                        const char *value, void *arg);
void gdc_rt_config_foreach(gdc_rt_param_visit_fn_t visit, void *arg);

/* Parsers shared by the layers. */
int gdc_rt_parse_flag(const char *value, void *dest, const char **why);    /* int: "0" or "1" */
int gdc_rt_parse_seconds(const char *value, void *dest, const char **why); /* double >= 0 */
int gdc_rt_parse_string(const char *value, void *dest, const char **why);  /* const char * */

/* Parse "123", "4K", "16M", "1G" (powers of 1024; "4KiB", "4KB" and "4k" too) into
 * *bytes; 0 on success. Nothing else: no sign, no space, no other suffix. */
int gdc_rt_parse_bytes(const char *text, size_t *bytes);

/* Split line, in place, into the words of a configuration file (tuning file, machine
 * profile): at most max, separated by white space; a word starting with '#' ends the line
 * (a comment). Returns the number of words, or max + 1 when there are more. */
int gdc_rt_split_words(char *line, char **words, int max);

#endif
