/*
 * gdrun's command line: the options, --help and --version. A bad option ends gdrun here
 * with status 2 and one line that says what is wrong, before anything is started. The
 * reading itself (gdrun_options_read) neither prints nor exits, so that a fuzzer can
 * drive it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <pmix.h>

#include "config.h"
#include "gdrun.h"

static const char usage_text[] =
    "Usage: gdrun [options] [--] program [args...]\n"
    "Start program as the ranks of one gdc job on this node, host the job's PMIx server,\n"
    "forward the ranks' output, and end the whole job when any rank fails. Inside a Slurm\n"
    "allocation of several nodes, run the job through srun --mpi=pmix instead.\n"
    "\n"
    "Options:\n"
    "  -n, --np N             start N ranks (default 1; -np N also works)\n"
    "  -x NAME[=VALUE]        set NAME to VALUE in the ranks' environment; NAME alone passes\n"
    "                         gdrun's value on (ranks inherit gdrun's environment anyway);\n"
    "                         may be repeated\n"
    "      --tag-output       prefix each line of output with \"[rank] \"\n"
    "      --output-dir DIR   write each rank's output to DIR/rank.R.stdout and\n"
    "                         DIR/rank.R.stderr instead of gdrun's stdout and stderr\n"
    "      --timeout SEC      end the job after SEC seconds (exit status 124)\n"
    "      --bind-to WHAT     auto (default), none, core or numa: bind each rank to one core\n"
    "                         or NUMA node, spreading the ranks across this machine; auto\n"
    "                         binds to cores where the ranks outnumber them and gdrun itself\n"
    "                         is not bound, and leaves the ranks unbound otherwise\n"
    "      --report-bindings  print where each rank is bound\n"
    "      --emulate-nodes K  split the ranks into K emulated nodes (blocks of consecutive\n"
    "                         ranks; the first N %% K nodes get one rank more), each with its\n"
    "                         own node id and host name <host>-n<k> in PMIx, so that gdc\n"
    "                         treats them as different nodes (to test multi-node code)\n"
    "      --launcher WHAT    auto (default), local or slurm: local starts the ranks here with\n"
    "                         gdrun's own PMIx server; slurm runs them as one step of\n"
    "                         srun --mpi=pmix (GDRUN_SRUN names another srun), with -n, -x,\n"
    "                         --tag-output (srun --label: \"R: \" prefixes), --output-dir and\n"
    "                         --timeout carried over, stdin to rank 0, and the step ended when\n"
    "                         a rank fails (--kill-on-bad-exit); without -n srun's default\n"
    "                         task count applies; --bind-to core|numa, --report-bindings and\n"
    "                         --emulate-nodes are refused; auto means slurm inside a Slurm\n"
    "                         allocation (SLURM_JOB_ID) of more than one node\n"
    "                         (SLURM_JOB_NUM_NODES) that gdrun is not a task of, local\n"
    "                         otherwise; -v or GDC_LOG=info prints the choice\n"
    "  -v, --verbose          say what gdrun does (the launcher chosen, start-up, PMIx upcalls,\n"
    "                         exits)\n"
    "  -h, --help             print this help and exit\n"
    "  -V, --version          print gdrun's version and the libraries it uses, and exit\n"
    "  --                     end of gdrun's options\n"
    "\n"
    "The ranks inherit gdrun's environment and working directory, plus GDRUN_JOBID,\n"
    "GDRUN_RANK, GDRUN_SIZE, GDRUN_LOCAL_RANK, GDRUN_LOCAL_SIZE and GDRUN_NODE_ID; stdin\n"
    "goes to rank 0 only. Output is forwarded whole lines at a time: lines of different\n"
    "ranks never mix.\n"
    "\n"
    "When a rank exits non-zero, is killed by a signal, or exits without calling\n"
    "gdc_finalize while others run, or calls gdc_abort, gdrun says so in one line, sends\n"
    "SIGTERM to every remaining rank's process group, SIGKILL %d s later, and exits with the\n"
    "first failure's status (128 + signal for a signal). SIGINT, SIGTERM or SIGHUP to gdrun\n"
    "is forwarded to the ranks and ends the job the same way; a second one kills at once.\n"
    "If gdrun itself is killed, its ranks are killed too and its temp dir is removed.\n"
    "\n"
    "Exit status: 0 when every rank exited 0; else a failing rank's status, 124 after\n"
    "--timeout, 127 when the program cannot be executed, 2 for bad options.\n";

/* What one reading of the command line is working on. */
typedef struct options_reader {
    gdrun_options_t *opt;
    int              nenv;
    char            *why; /* the usage error, malloc'd */
} options_reader_t;

static gdrun_options_result_t usage_error(options_reader_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static gdrun_options_result_t usage_error(options_reader_t *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&r->why, fmt, ap) < 0) {
        r->why = NULL;
    }
    va_end(ap);
    return r->why != NULL ? GDRUN_OPTIONS_BAD : GDRUN_OPTIONS_NO_MEMORY;
}

static gdrun_options_result_t parse_count(options_reader_t *r, const char *text, const char *option, long min,
                                          long max, int *count)
{
    char *end;
    long  value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        return usage_error(r, "%s: '%s' is not a whole number from %ld to %ld", option, text, min, max);
    }
    *count = (int)value;
    return GDRUN_OPTIONS_RUN;
}

static gdrun_options_result_t add_env_option(options_reader_t *r, const char *arg)
{
    const char *eq  = strchr(arg, '=');
    size_t      len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    char      **grown;
    char       *assignment;

    if (!gdrun_env_valid_name(arg, len)) {
        return usage_error(r, "-x %s: not a valid variable name (letters, digits and _, not starting with a digit)",
                           arg);
    }
    if (eq != NULL) {
        assignment = strdup(arg);
    } else {
        const char *value = getenv(arg);
        if (value == NULL) {
            gdrun_msg("warning: -x %s: %s is not set in gdrun's environment; ignored", arg, arg);
            return GDRUN_OPTIONS_RUN;
        }
        assignment = malloc(len + strlen(value) + 2);
        if (assignment != NULL) {
            sprintf(assignment, "%s=%s", arg, value);
        }
    }
    if (assignment == NULL) {
        return GDRUN_OPTIONS_NO_MEMORY;
    }
    grown = realloc(r->opt->env, (size_t)(r->nenv + 2) * sizeof(char *));
    if (grown == NULL) {
        free(assignment);
        return GDRUN_OPTIONS_NO_MEMORY;
    }
    r->opt->env              = grown;
    r->opt->env[r->nenv++]   = assignment;
    r->opt->env[r->nenv]     = NULL;
    return GDRUN_OPTIONS_RUN;
}

static void print_version(void)
{
    printf("gdrun (gdc) %s\n", PACKAGE_VERSION);
    printf("  PMIx     %s (built with %s)\n", PMIx_Get_version(), GDC_BUILD_PMIX_VERSION);
    printf("  libevent %s\n", event_get_version());
    printf("  hwloc    %s\n", GDC_BUILD_HWLOC_VERSION);
}

enum {
    OPT_TAG_OUTPUT = 256,
    OPT_OUTPUT_DIR,
    OPT_TIMEOUT,
    OPT_BIND_TO,
    OPT_REPORT_BINDINGS,
    OPT_EMULATE_NODES,
    OPT_LAUNCHER,
};

static const struct option long_options[] = {
    {"np", required_argument, NULL, 'n'},
    {"tag-output", no_argument, NULL, OPT_TAG_OUTPUT},
    {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"bind-to", required_argument, NULL, OPT_BIND_TO},
    {"report-bindings", no_argument, NULL, OPT_REPORT_BINDINGS},
    {"emulate-nodes", required_argument, NULL, OPT_EMULATE_NODES},
    {"launcher", required_argument, NULL, OPT_LAUNCHER},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static gdrun_options_result_t parse_timeout(options_reader_t *r, const char *text)
{
    char *end;

    errno             = 0;
    r->opt->timeout_s = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(r->opt->timeout_s) || r->opt->timeout_s <= 0 ||
        r->opt->timeout_s > 1e8) {
        return usage_error(r, "--timeout: '%s' is not a positive number of seconds", text);
    }
    return GDRUN_OPTIONS_RUN;
}

static gdrun_options_result_t parse_bind(options_reader_t *r, const char *text)
{
    if (strcmp(text, "auto") == 0) {
        r->opt->bind = GDRUN_BIND_AUTO;
    } else if (strcmp(text, "none") == 0) {
        r->opt->bind = GDRUN_BIND_NONE;
    } else if (strcmp(text, "core") == 0) {
        r->opt->bind = GDRUN_BIND_CORE;
    } else if (strcmp(text, "numa") == 0) {
        r->opt->bind = GDRUN_BIND_NUMA;
    } else {
        return usage_error(r, "--bind-to: '%s' is not one of auto, none, core, numa", text);
    }
    return GDRUN_OPTIONS_RUN;
}

static gdrun_options_result_t parse_launcher(options_reader_t *r, const char *text)
{
    if (strcmp(text, "auto") == 0) {
        r->opt->launcher = GDRUN_LAUNCHER_AUTO;
    } else if (strcmp(text, "local") == 0) {
        r->opt->launcher = GDRUN_LAUNCHER_LOCAL;
    } else if (strcmp(text, "slurm") == 0) {
        r->opt->launcher = GDRUN_LAUNCHER_SLURM;
    } else {
        return usage_error(r, "--launcher: '%s' is not one of auto, local, slurm", text);
    }
    return GDRUN_OPTIONS_RUN;
}

/* "+": options end at the program, whose options are its own; ":": a missing value is
 * told apart from an unknown option. */
#define SHORT_OPTIONS "+:n:x:vhV"

/* getopt remembers where it was in the last vector it read (a pointer into it): optind 0
 * and one call on an empty vector make it start afresh. gdrun reads one command line;
 * the fuzzer reads many, each freed before the next. */
static void getopt_restart(void)
{
    static char name[] = "gdrun";
    char       *none[] = {name, NULL};

    optind = 0;
    (void)getopt_long(1, none, SHORT_OPTIONS, long_options, NULL);
}

/* A long option is a word of its own (getopt is past it); a short one lacking its value is
 * the last letter of the last word, and getopt names it in optopt. */
static gdrun_options_result_t missing_value(options_reader_t *r, char **argv)
{
    if (strncmp(argv[optind - 1], "--", 2) == 0) {
        return usage_error(r, "option '%s' needs a value", argv[optind - 1]);
    }
    return usage_error(r, "option '-%c' needs a value", optopt);
}

/* getopt's '?': an unknown or ambiguous long option (optopt 0; a word of its own), one
 * given a value it takes none of (optopt is its value: --help=1 must not read as an
 * unknown "-h"), or an unknown letter. */
static gdrun_options_result_t bad_option(options_reader_t *r, char **argv)
{
    if (optopt == 0) {
        return usage_error(r, "unknown option '%s'", argv[optind - 1]);
    }
    for (const struct option *o = long_options; o->name != NULL; o++) {
        if (o->val == optopt && o->has_arg == no_argument) {
            return usage_error(r, "option '--%s' takes no value", o->name);
        }
    }
    return usage_error(r, "unknown option '-%c'", optopt);
}

/* One option getopt returned. */
static gdrun_options_result_t take_option(options_reader_t *r, int c, char **argv)
{
    gdrun_options_t *opt = r->opt;

    switch (c) {
    case 'n':
        opt->np_given = 1;
        return parse_count(r, optarg, "-n", 1, GDRUN_MAX_RANKS, &opt->np);
    case 'x': return add_env_option(r, optarg);
    case OPT_TAG_OUTPUT: opt->tag_output = 1; break;
    case OPT_OUTPUT_DIR: opt->output_dir = optarg; break;
    case OPT_TIMEOUT: return parse_timeout(r, optarg);
    case OPT_BIND_TO: return parse_bind(r, optarg);
    case OPT_REPORT_BINDINGS: opt->report_bindings = 1; break;
    case OPT_EMULATE_NODES: return parse_count(r, optarg, "--emulate-nodes", 1, GDRUN_MAX_RANKS, &opt->emulate_nodes);
    case OPT_LAUNCHER: return parse_launcher(r, optarg);
    case 'v': opt->verbose = 1; break;
    case 'h': return GDRUN_OPTIONS_HELP;
    case 'V': return GDRUN_OPTIONS_VERSION;
    case ':': return missing_value(r, argv);
    default: return bad_option(r, argv);
    }
    return GDRUN_OPTIONS_RUN;
}

static gdrun_options_result_t read_options(options_reader_t *r, int argc, char **argv)
{
    gdrun_options_t       *opt = r->opt;
    gdrun_options_result_t result;

    opterr = 0; /* our own messages */
    getopt_restart();
    for (;;) {
        int c;

        /* mpirun's spelling "-np N", which getopt would read as "-n p". */
        if (optind + 1 < argc && strcmp(argv[optind], "-np") == 0) {
            opt->np_given = 1;
            if ((result = parse_count(r, argv[optind + 1], "-np", 1, GDRUN_MAX_RANKS, &opt->np)) != GDRUN_OPTIONS_RUN) {
                return result;
            }
            optind += 2;
            continue;
        }
        c = getopt_long(argc, argv, SHORT_OPTIONS, long_options, NULL);
        if (c == -1) {
            break;
        }
        if ((result = take_option(r, c, argv)) != GDRUN_OPTIONS_RUN) {
            return result;
        }
    }
    if (optind >= argc) {
        return usage_error(r, "no program to run");
    }
    if (opt->emulate_nodes > opt->np) {
        return usage_error(r, "--emulate-nodes %d: more nodes than ranks (-n %d); every node needs a rank",
                           opt->emulate_nodes, opt->np);
    }
    opt->app_argv = &argv[optind];
    return GDRUN_OPTIONS_RUN;
}

gdrun_options_result_t gdrun_options_read(gdrun_options_t *opt, int argc, char **argv, char **why)
{
    options_reader_t       r = {.opt = opt};
    gdrun_options_result_t result;

    *opt   = (gdrun_options_t){.np = 1, .emulate_nodes = 1};
    result = read_options(&r, argc, argv);
    if (result != GDRUN_OPTIONS_RUN) {
        gdrun_env_free(opt->env);
        opt->env = NULL;
    }
    *why = r.why;
    return result;
}

void gdrun_options_parse(gdrun_options_t *opt, int argc, char **argv)
{
    char *why;

    switch (gdrun_options_read(opt, argc, argv, &why)) {
    case GDRUN_OPTIONS_RUN: return;
    case GDRUN_OPTIONS_HELP: printf(usage_text, GDRUN_KILL_GRACE_S); exit(0);
    case GDRUN_OPTIONS_VERSION: print_version(); exit(0);
    case GDRUN_OPTIONS_BAD:
        fprintf(stderr, "gdrun: %s\nTry 'gdrun --help' for more information.\n", why);
        free(why);
        exit(GDRUN_EXIT_USAGE);
    case GDRUN_OPTIONS_NO_MEMORY: break;
    }
    gdrun_msg("out of memory");
    exit(1);
}
