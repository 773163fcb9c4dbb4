/*
 * Fuzz target: gdrun's command line (launcher/gdrun_options.c). The input is the
 * arguments after "gdrun", each ended by a NUL byte (as execve passes them; the last one
 * may lack it), each in an allocation of its own so that the sanitizer sees any read past
 * one. Beyond not crashing or leaking: a command line that is accepted gives options gdrun
 * can run with (a rank count and node count in range, a program, -x assignments with
 * valid names, a finite positive timeout); a rejected one says why, and owns nothing.
 */
#include <math.h>

#include "fuzz.h"

#include "gdrun.h"

#define MAX_ARGS 256

/* Split the input into argv[1..]; returns argc. An argument may be NULL (out of memory). */
static int split_args(const uint8_t *data, size_t size, char **argv)
{
    int    argc = 0;
    size_t at   = 0;

    argv[argc++] = strdup("gdrun");
    while (at < size && argc < MAX_ARGS) {
        const uint8_t *nul = memchr(data + at, '\0', size - at);
        size_t         len = nul != NULL ? (size_t)(nul - data) - at : size - at;

        argv[argc++] = fuzz_string(data + at, len);
        at += len + 1;
    }
    argv[argc] = NULL;
    return argc;
}

static int all_there(char **argv, int argc)
{
    for (int i = 0; i < argc; i++) {
        if (argv[i] == NULL) {
            return 0;
        }
    }
    return 1;
}

static void check_env(char *const *env)
{
    for (; env != NULL && *env != NULL; env++) {
        const char *eq = strchr(*env, '=');

        FUZZ_CHECK(eq != NULL && gdrun_env_valid_name(*env, (size_t)(eq - *env)));
    }
}

static void check_runnable(const gdrun_options_t *opt, int argc, char **argv)
{
    FUZZ_CHECK(opt->np >= 1 && opt->np <= GDRUN_MAX_RANKS);
    FUZZ_CHECK(opt->emulate_nodes >= 1 && opt->emulate_nodes <= opt->np);
    FUZZ_CHECK(opt->app_argv > argv && opt->app_argv < argv + argc && opt->app_argv[0] != NULL);
    FUZZ_CHECK(opt->timeout_s == 0 || (isfinite(opt->timeout_s) && opt->timeout_s > 0));
    FUZZ_CHECK(opt->bind == GDRUN_BIND_AUTO || opt->bind == GDRUN_BIND_NONE || opt->bind == GDRUN_BIND_CORE ||
               opt->bind == GDRUN_BIND_NUMA);
    FUZZ_CHECK(opt->launcher == GDRUN_LAUNCHER_AUTO || opt->launcher == GDRUN_LAUNCHER_LOCAL ||
               opt->launcher == GDRUN_LAUNCHER_SLURM);
    check_env(opt->env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char                  *argv[MAX_ARGS + 1];
    char                  *why  = NULL;
    int                    argc = split_args(data, size, argv);
    gdrun_options_t        opt;
    gdrun_options_result_t result;

    if (all_there(argv, argc)) {
        result = gdrun_options_read(&opt, argc, argv, &why);
        if (result == GDRUN_OPTIONS_RUN) {
            check_runnable(&opt, argc, argv);
            gdrun_env_free(opt.env);
        } else {
            FUZZ_CHECK(opt.env == NULL);
        }
        FUZZ_CHECK((why != NULL) == (result == GDRUN_OPTIONS_BAD));
        free(why);
    }
    for (int i = 0; i < argc; i++) {
        free(argv[i]);
    }
    return 0;
}
