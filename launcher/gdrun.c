/*
 * gdrun: start a gdc job on this node and own its life.
 *
 *   gdrun [options] [--] program [args...]
 *
 * gdrun hosts the job's PMIx server, starts the ranks, forwards their output and the
 * signals it receives, and ends the whole job on the first failure, saying which rank
 * failed and how. Inside a Slurm allocation of several nodes (or with --launcher slurm)
 * it hands the job to srun instead (gdrun_slurm.c). Its exit status is the job's: 0 when
 * every rank exited 0, else the first failure's (a rank's exit status, 128 + signal, 124
 * for --timeout, 127 for a program that cannot be executed, 2 for bad options).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>
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

/* ---------------------------------------------------------------------------------------
 * Options
 */
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

static void parse_options(gdrun_options_t *opt, int argc, char **argv)
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

/* ---------------------------------------------------------------------------------------
 * The job's life
 */
void gdrun_job_check_done(gdrun_job_t *job)
{
    struct timeval drain = {GDRUN_DRAIN_S, 0};

    if (job->nrunning > 0) {
        return;
    }
    if (gdrun_io_idle(job)) {
        event_base_loopbreak(job->base);
    } else if (job->drain_timer != NULL && !evtimer_pending(job->drain_timer, NULL)) {
        evtimer_add(job->drain_timer, &drain);
    }
}

static void on_drain_timer(evutil_socket_t fd, short what, void *arg)
{
    gdrun_job_t *job = arg;

    (void)fd, (void)what;
    gdrun_debug(job, "output still open %d s after the last rank exited (a child of a rank?); "
                "forwarding what is there and closing it", GDRUN_DRAIN_S);
    gdrun_io_drain_and_close(job);
    event_base_loopbreak(job->base);
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
    (void)sig, (void)what;
    gdrun_procs_reap(arg);
}

/* SIGINT and SIGTERM go to the ranks as they came; a hangup becomes SIGTERM, since many
 * programs (UCX among them, for its debug dumps) take SIGHUP for something else. */
static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    gdrun_job_t *job     = arg;
    int          forward = (int)sig == SIGHUP ? SIGTERM : (int)sig;

    (void)what;
    if (job->ending) {
        gdrun_msg("received %s while the job is ending; killing every rank now", gdrun_signal_name((int)sig));
        gdrun_procs_kill_all(job);
        return;
    }
    gdrun_msg("received %s; sending %s to the ranks and ending the job (again to kill at once)",
              gdrun_signal_name((int)sig), gdrun_signal_name(forward));
    job->exit_code = 128 + (int)sig;
    gdrun_procs_end(job, forward);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    gdrun_job_t *job  = arg;
    char        *list = gdrun_procs_running(job);

    (void)fd, (void)what;
    gdrun_procs_fail(job, GDRUN_EXIT_TIMEOUT, "the job ran past --timeout %g s; ending it (rank%s %s still running)",
                     job->opt.timeout_s, job->nrunning > 1 ? "s" : "", list != NULL ? list : "?");
    free(list);
}

/* Each rank takes three descriptors in gdrun (two pipes, a PMIx socket): raise the soft
 * limit when it is too low for -n. The ranks get the limit gdrun was started with. */
static void raise_fd_limit(gdrun_job_t *job)
{
    rlim_t        need = 4 * (rlim_t)job->opt.np + 256;
    struct rlimit raised;

    if (getrlimit(RLIMIT_NOFILE, &job->nofile) != 0 || job->nofile.rlim_cur >= need) {
        return;
    }
    raised          = job->nofile;
    raised.rlim_cur = job->nofile.rlim_max < need ? job->nofile.rlim_max : need;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
        gdrun_debug(job, "cannot raise the descriptor limit: %s", strerror(errno));
        return;
    }
    job->nofile_raised = 1;
}

/* Descriptors 0, 1 and 2 must exist, or the ranks' pipes would take their numbers. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0 && null != fd) {
                dup2(null, fd);
                close(null);
            }
        }
    }
}

static int make_tmpdir(gdrun_job_t *job)
{
    const char *base = getenv("TMPDIR");

    if (base == NULL || *base == '\0') {
        base = "/tmp";
    }
    if (snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/gdrun.%d.XXXXXX", base, (int)getpid()) >=
            (int)sizeof(job->tmpdir) ||
        mkdtemp(job->tmpdir) == NULL) {
        gdrun_msg("cannot create a temp dir under %s: %s", base, strerror(errno));
        job->tmpdir[0] = '\0';
        return -1;
    }
    return 0;
}

static void set_hostname(gdrun_job_t *job)
{
    if (gethostname(job->hostname, sizeof(job->hostname)) != 0) {
        snprintf(job->hostname, sizeof(job->hostname), "localhost");
    }
    job->hostname[sizeof(job->hostname) - 1] = '\0';
    job->hostname[strcspn(job->hostname, ".")] = '\0'; /* PMIx strips the domain too */
}

typedef struct {
    struct event *ev[4];
} signal_events_t;

static int watch_signals(gdrun_job_t *job, signal_events_t *se)
{
    static const int ends[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old;

    se->ev[0] = evsignal_new(job->base, SIGCHLD, on_sigchld, job);
    if (se->ev[0] == NULL || event_add(se->ev[0], NULL) != 0) {
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        /* Started with SIGHUP ignored (nohup): keep ignoring it. */
        if (ends[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            job->hup_ignored = 1;
            continue;
        }
        se->ev[i + 1] = evsignal_new(job->base, ends[i], on_signal, job);
        if (se->ev[i + 1] == NULL || event_add(se->ev[i + 1], NULL) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Everything up to the launch; the job is cleaned up by the caller whatever happens. */
static int start_job(gdrun_job_t *job, signal_events_t *se)
{
    if (evthread_use_pthreads() != 0 || (job->base = event_base_new()) == NULL) {
        gdrun_msg("cannot create the event loop (libevent)");
        return -1;
    }
    job->drain_timer = evtimer_new(job->base, on_drain_timer, job);
    if (job->drain_timer == NULL || watch_signals(job, se) != 0) {
        gdrun_msg("cannot watch signals (libevent)");
        return -1;
    }
    if (job->opt.timeout_s > 0) {
        double         whole   = floor(job->opt.timeout_s);
        struct timeval timeout = {(time_t)whole, (suseconds_t)((job->opt.timeout_s - whole) * 1e6)};

        job->timeout_timer = evtimer_new(job->base, on_timeout, job);
        if (job->timeout_timer == NULL || evtimer_add(job->timeout_timer, &timeout) != 0) {
            gdrun_msg("cannot set the --timeout timer (libevent)");
            return -1;
        }
    }
    if (gdrun_io_init(job) != 0 || gdrun_pmix_init(job) != 0 || gdrun_pmix_register_job(job) != 0) {
        return -1;
    }
    if (job->opt.report_bindings) {
        gdrun_bind_report(job);
    }
    return 0;
}

int main(int argc, char **argv)
{
    gdrun_job_t     job = {0};
    signal_events_t se  = {{NULL}};
    int             status = 1, pmix_left_running;
    char            why[256];

    parse_options(&job.opt, argc, argv);
    if (gdrun_slurm_choose(&job.opt, why, sizeof(why)) == GDRUN_LAUNCHER_SLURM) {
        /* Before gdrun changes anything of its own process that srun would inherit. */
        if (gdrun_procs_resolve_program(&job) != 0) {
            return GDRUN_EXIT_NOEXEC;
        }
        free(job.program);
        status = gdrun_slurm_run(&job.opt, why);
        gdrun_env_free(job.opt.env);
        return status;
    }
    gdrun_info(&job.opt, "launcher: local, gdrun's own PMIx server on this node (%s)", why);
    ensure_std_fds();
    raise_fd_limit(&job);
    signal(SIGPIPE, SIG_IGN); /* a closed output shows as EPIPE */
    set_hostname(&job);
    snprintf(job.nspace, sizeof(job.nspace), "gdrun.%d", (int)getpid());
    if (gdrun_procs_resolve_program(&job) != 0) {
        return GDRUN_EXIT_NOEXEC;
    }
    job.ranks = calloc((size_t)job.opt.np, sizeof(gdrun_rank_t));
    if (job.ranks == NULL ||
        gdrun_layout_init(&job.layout, job.opt.np, job.opt.emulate_nodes, job.hostname) != 0) {
        gdrun_msg("out of memory");
        return 1;
    }
    for (int r = 0; r < job.opt.np; r++) {
        job.ranks[r].rank = r;
    }
    /* hwloc and the guard before any thread exists; the guard before the temp dir has
     * anything in it. */
    if (gdrun_bind_plan(&job) != 0 || make_tmpdir(&job) != 0 || gdrun_guard_start(job.tmpdir) != 0) {
        goto out;
    }
    if (start_job(&job, &se) == 0) {
        gdrun_procs_launch(&job); /* a failure ends the job through the loop, like any other */
        event_base_dispatch(job.base);
        status = job.exit_code;
    }
    if (job.nrunning > 0) {
        gdrun_procs_kill_all(&job); /* the loop ends with every rank reaped; just in case */
    }
out:
    pmix_left_running = gdrun_pmix_finalize(&job) != 0;
    gdrun_io_free(&job);
    /* ranks killed in the middle of gdc_init may leave shared memory behind */
    gdrun_remove_shm(job.nspace);
    if (job.tmpdir[0] != '\0' && gdrun_remove_tree(job.tmpdir) != 0) {
        gdrun_msg("warning: cannot remove %s: %s", job.tmpdir, strerror(errno));
    }
    gdrun_guard_stop();
    if (pmix_left_running) {
        _exit(status); /* no exit handlers: the library's thread is still running */
    }
    for (int i = 0; i < 4; i++) {
        if (se.ev[i] != NULL) {
            event_free(se.ev[i]);
        }
    }
    if (job.timeout_timer != NULL) {
        event_free(job.timeout_timer);
    }
    if (job.drain_timer != NULL) {
        event_free(job.drain_timer);
    }
    gdrun_procs_free(&job);
    gdrun_bind_free(&job);
    gdrun_layout_free(&job.layout);
    if (job.base != NULL) {
        event_base_free(job.base);
    }
    free(job.ranks);
    gdrun_env_free(job.opt.env);
    return status;
}
