/*
 * gdrun's command line: the options, --help and --version. A bad option ends gdrun here
 * with status 2 and one line that says what is wrong, before anything is started.
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
    "      --bind-to WHAT     none (default), core or numa: bind each rank to one core or\n"
    "                         NUMA node, spreading the ranks across this machine\n"
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

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("gdrun: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'gdrun --help' for more information.\n", stderr);
    exit(GDRUN_EXIT_USAGE);
}

static long parse_count(const char *text, const char *option, long min, long max)
{
    char *end;
    long  value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        usage_error("%s: '%s' is not a whole number from %ld to %ld", option, text, min, max);
    }
    return value;
}

static void add_env_option(gdrun_options_t *opt, const char *arg, int *nenv)
{
    const char *eq  = strchr(arg, '=');
    size_t      len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    char      **grown;
    char       *assignment;

    if (!gdrun_env_valid_name(arg, len)) {
        usage_error("-x %s: not a valid variable name (letters, digits and _, not starting with a digit)", arg);
    }
    if (eq != NULL) {
        assignment = strdup(arg);
    } else {
        const char *value = getenv(arg);
        if (value == NULL) {
            gdrun_msg("warning: -x %s: %s is not set in gdrun's environment; ignored", arg, arg);
            return;
        }
        assignment = malloc(len + strlen(value) + 2);
        if (assignment != NULL) {
            sprintf(assignment, "%s=%s", arg, value);
        }
    }
    grown = realloc(opt->env, (size_t)(*nenv + 2) * sizeof(char *));
    if (assignment == NULL || grown == NULL) {
        gdrun_msg("out of memory");
        exit(1);
    }
    opt->env           = grown;
    opt->env[(*nenv)++] = assignment;
    opt->env[*nenv]     = NULL;
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

static void parse_timeout(gdrun_options_t *opt, const char *text)
{
    char *end;

    errno          = 0;
    opt->timeout_s = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(opt->timeout_s) || opt->timeout_s <= 0 ||
        opt->timeout_s > 1e8) {
        usage_error("--timeout: '%s' is not a positive number of seconds", text);
    }
}

static void parse_bind(gdrun_options_t *opt, const char *text)
{
    if (strcmp(text, "none") == 0) {
        opt->bind = GDRUN_BIND_NONE;
    } else if (strcmp(text, "core") == 0) {
        opt->bind = GDRUN_BIND_CORE;
    } else if (strcmp(text, "numa") == 0) {
        opt->bind = GDRUN_BIND_NUMA;
    } else {
        usage_error("--bind-to: '%s' is not one of none, core, numa", text);
    }
}

static void parse_launcher(gdrun_options_t *opt, const char *text)
{
    if (strcmp(text, "auto") == 0) {
        opt->launcher = GDRUN_LAUNCHER_AUTO;
    } else if (strcmp(text, "local") == 0) {
        opt->launcher = GDRUN_LAUNCHER_LOCAL;
    } else if (strcmp(text, "slurm") == 0) {
        opt->launcher = GDRUN_LAUNCHER_SLURM;
    } else {
        usage_error("--launcher: '%s' is not one of auto, local, slurm", text);
    }
}

void gdrun_options_parse(gdrun_options_t *opt, int argc, char **argv)
{
    int nenv = 0;

    *opt = (gdrun_options_t){.np = 1, .emulate_nodes = 1};
    opterr = 0; /* our own messages */
    for (;;) {
        int c;

        /* mpirun's spelling "-np N", which getopt would read as "-n p". */
        if (optind + 1 < argc && strcmp(argv[optind], "-np") == 0) {
            opt->np       = (int)parse_count(argv[optind + 1], "-np", 1, GDRUN_MAX_RANKS);
            opt->np_given = 1;
            optind += 2;
            continue;
        }
        /* "+": options end at the program, whose options are its own; ":": a missing
         * value is told apart from an unknown option. */
        c = getopt_long(argc, argv, "+:n:x:vhV", long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case 'n':
            opt->np       = (int)parse_count(optarg, "-n", 1, GDRUN_MAX_RANKS);
            opt->np_given = 1;
            break;
        case 'x': add_env_option(opt, optarg, &nenv); break;
        case OPT_TAG_OUTPUT: opt->tag_output = 1; break;
        case OPT_OUTPUT_DIR: opt->output_dir = optarg; break;
        case OPT_TIMEOUT: parse_timeout(opt, optarg); break;
        case OPT_BIND_TO: parse_bind(opt, optarg); break;
        case OPT_REPORT_BINDINGS: opt->report_bindings = 1; break;
        case OPT_EMULATE_NODES:
            opt->emulate_nodes = (int)parse_count(optarg, "--emulate-nodes", 1, GDRUN_MAX_RANKS);
            break;
        case OPT_LAUNCHER: parse_launcher(opt, optarg); break;
        case 'v': opt->verbose = 1; break;
        case 'h': printf(usage_text, GDRUN_KILL_GRACE_S); exit(0);
        case 'V': print_version(); exit(0);
        case ':': usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt != 0 && optopt < 256) {
                usage_error("unknown option '-%c'", optopt);
            }
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        usage_error("no program to run");
    }
    if (opt->emulate_nodes > opt->np) {
        usage_error("--emulate-nodes %d: more nodes than ranks (-n %d); every node needs a rank",
                    opt->emulate_nodes, opt->np);
    }
    opt->app_argv = &argv[optind];
}
