/*
 * gdrun under Slurm: the job runs as one step of `srun --mpi=pmix`, so that the ranks get
 * Slurm's PMIx server on every node of the allocation (and its node structure) while users
 * keep gdrun's command line.
 *
 * Which launcher: --launcher local|slurm, else Slurm when gdrun runs inside an allocation
 * (SLURM_JOB_ID) of more than one node and is not itself a task of a step (SLURM_STEP_ID):
 * only srun reaches the other nodes. gdrun's options become srun's:
 *
 *   -n N                  -n N (without -n: srun's default, the allocation's task count)
 *   -x NAME[=VALUE]       set in srun's environment, which --export=ALL passes on (a value
 *                         may hold commas, which --export=NAME=VALUE could not)
 *   --tag-output          --label ("R: " before each line, where gdrun writes "[R] ")
 *   --output-dir DIR      --output=DIR/rank.%t.stdout --error=DIR/rank.%t.stderr
 *   --timeout SEC         gdrun's own timer around srun (srun's --time counts minutes of
 *                         walltime): at SEC the step is ended, exit 124
 *   stdin                 --input=0 (to rank 0, as gdrun does)
 *   a failing rank        --kill-on-bad-exit=1: Slurm ends the step, as gdrun ends the job
 *
 * --bind-to core|numa, --report-bindings and --emulate-nodes K have no srun counterpart
 * here and are refused (exit 2). SIGINT, SIGTERM and SIGHUP end the step the way srun's
 * double Ctrl-C does; a second one makes srun leave at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdrun.h"

/* Up to this many srun arguments besides the program's. */
#define GDRUN_SRUN_MAX_ARGS 16

static long env_long(const char *name)
{
    const char *value = getenv(name);

    return value != NULL && *value != '\0' ? strtol(value, NULL, 10) : 0;
}

gdrun_launcher_t gdrun_slurm_choose(const gdrun_options_t *opt, char *why, size_t why_len)
{
    const char *job   = getenv("SLURM_JOB_ID");
    long        nodes = env_long("SLURM_JOB_NUM_NODES");

    if (nodes <= 0) {
        nodes = env_long("SLURM_NNODES");
    }
    switch (opt->launcher) {
    case GDRUN_LAUNCHER_LOCAL: snprintf(why, why_len, "--launcher local"); return GDRUN_LAUNCHER_LOCAL;
    case GDRUN_LAUNCHER_SLURM: snprintf(why, why_len, "--launcher slurm"); return GDRUN_LAUNCHER_SLURM;
    case GDRUN_LAUNCHER_AUTO: break;
    }
    if (job == NULL) {
        snprintf(why, why_len, "not inside a Slurm allocation");
        return GDRUN_LAUNCHER_LOCAL;
    }
    if (getenv("SLURM_STEP_ID") != NULL) {
        snprintf(why, why_len, "gdrun is a task of Slurm step %s.%s: its ranks stay with it", job,
                 getenv("SLURM_STEP_ID"));
        return GDRUN_LAUNCHER_LOCAL;
    }
    if (nodes <= 1) {
        snprintf(why, why_len, "Slurm job %s has one node", job);
        return GDRUN_LAUNCHER_LOCAL;
    }
    snprintf(why, why_len, "inside Slurm job %s, which spans %ld nodes", job, nodes);
    return GDRUN_LAUNCHER_SLURM;
}

/* The options srun cannot honour; a message and GDRUN_EXIT_USAGE for the first. */
static int refuse_options(const gdrun_options_t *opt)
{
    const char *what = NULL;

    if (opt->bind == GDRUN_BIND_CORE || opt->bind == GDRUN_BIND_NUMA) {
        what = "--bind-to core|numa (srun binds with --cpu-bind: run srun yourself, or bind with --launcher local)";
    } else if (opt->report_bindings) {
        what = "--report-bindings (srun reports with --cpu-bind=verbose: run srun yourself)";
    } else if (opt->emulate_nodes > 1) {
        what = "--emulate-nodes (under Slurm the nodes are real; emulate them with --launcher local)";
    }
    if (what == NULL) {
        return 0;
    }
    gdrun_msg("the Slurm launcher has no equivalent of %s", what);
    gdrun_msg("Try 'gdrun --help' for more information.");
    return -1;
}

/* srun's file pattern for DIR/rank.<task>.<stream>: an absolute DIR (the tasks may start
 * elsewhere), its '%' doubled. malloc'd. */
static char *output_pattern(const char *dir, const char *stream)
{
    char        *real = realpath(dir, NULL);
    const char  *from = real != NULL ? real : dir;
    size_t       len  = strlen(from), at = 0;
    char        *out  = malloc(2 * len + strlen("--output=/rank.%t.stdout") + 1);

    if (out != NULL) {
        at = (size_t)sprintf(out, "--%s=", strcmp(stream, "stdout") == 0 ? "output" : "error");
        for (const char *p = from; *p != '\0'; p++) {
            if (*p == '%') {
                out[at++] = '%';
            }
            out[at++] = *p;
        }
        sprintf(out + at, "/rank.%%t.%s", stream);
    }
    free(real);
    return out;
}

/* srun's command line for the job: a NULL-terminated array; the strings it owns are listed
 * in owned[] (to free). */
static char **srun_argv(const gdrun_options_t *opt, char *owned[3])
{
    const char *srun  = getenv("GDRUN_SRUN");
    int         nargs = 0, napp = 0;
    char      **argv;

    while (opt->app_argv[napp] != NULL) {
        napp++;
    }
    argv = calloc((size_t)(GDRUN_SRUN_MAX_ARGS + napp + 1), sizeof(char *));
    if (argv == NULL) {
        return NULL;
    }
    argv[nargs++] = (char *)(srun != NULL && *srun != '\0' ? srun : "srun");
    argv[nargs++] = "--mpi=pmix";
    argv[nargs++] = "--export=ALL";
    argv[nargs++] = "--kill-on-bad-exit=1";
    argv[nargs++] = "--input=0";
    if (opt->np_given) {
        owned[0] = malloc(32);
        if (owned[0] == NULL) {
            goto err;
        }
        snprintf(owned[0], 32, "--ntasks=%d", opt->np);
        argv[nargs++] = owned[0];
    }
    if (opt->tag_output) {
        argv[nargs++] = "--label";
    }
    if (opt->output_dir != NULL) {
        owned[1] = output_pattern(opt->output_dir, "stdout");
        owned[2] = output_pattern(opt->output_dir, "stderr");
        if (owned[1] == NULL || owned[2] == NULL) {
            goto err;
        }
        argv[nargs++] = owned[1];
        argv[nargs++] = owned[2];
    }
    argv[nargs++] = "--";
    memcpy(&argv[nargs], opt->app_argv, (size_t)napp * sizeof(char *));
    return argv;

err:
    free(argv);
    return NULL;
}

/* "srun --mpi=pmix ... app args" for messages (truncated to fit). */
static void format_command(char *const *argv, char *out, size_t out_len)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; argv[i] != NULL && used + 1 < out_len; i++) {
        int n = snprintf(out + used, out_len - used, "%s%s", i > 0 ? " " : "", argv[i]);
        if (n < 0) {
            break;
        }
        used += (size_t)n < out_len - used ? (size_t)n : out_len - used - 1;
    }
}

/* -x: the ranks inherit srun's environment. */
static int export_env(const gdrun_options_t *opt)
{
    for (char **e = opt->env; e != NULL && *e != NULL; e++) {
        char  *eq   = strchr(*e, '=');
        char   name[256];
        size_t len = (size_t)(eq - *e);

        if (eq == NULL || len >= sizeof(name)) {
            gdrun_msg("-x %s: the name is too long", *e);
            return -1;
        }
        memcpy(name, *e, len);
        name[len] = '\0';
        if (setenv(name, eq + 1, 1) != 0) {
            gdrun_msg("-x %s: %s", *e, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Start srun with the signal mask and dispositions gdrun was started with. 0, or -1 with
 * a message when srun cannot be executed. */
static int spawn_srun(char *const *argv, const sigset_t *old_mask, pid_t *pid_out)
{
    int   report[2];
    int   err = 0;
    pid_t pid;

    if (pipe2(report, O_CLOEXEC) != 0) {
        gdrun_msg("cannot start srun: %s", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        gdrun_msg("cannot start srun: %s", strerror(errno));
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        /* gdrun ends the step through srun's SIGINT handling: a SIGINT ignored since a
         * background shell started gdrun must not be ignored by srun. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        execvp(argv[0], argv);
        err = errno;
        (void)!write(report[1], &err, sizeof(err));
        _exit(GDRUN_EXIT_NOEXEC);
    }
    close(report[1]);
    /* The pipe closes on a successful exec, or carries execvp's errno. */
    while (read(report[0], &err, sizeof(err)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (err != 0) {
        gdrun_msg("--launcher slurm: cannot execute %s: %s%s", argv[0], strerror(err),
                  err == ENOENT ? " (is Slurm's srun in PATH? GDRUN_SRUN names another)" : "");
        waitpid(pid, NULL, 0);
        return -1;
    }
    *pid_out = pid;
    return 0;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* How far gdrun has gone in ending the step. */
typedef enum {
    SRUN_RUNNING = 0,
    SRUN_ENDING,   /* srun's double Ctrl-C: SIGINT to every task, then SIGTERM and SIGKILL */
    SRUN_LEAVING,  /* a third SIGINT: srun leaves without waiting for the tasks */
    SRUN_KILLED    /* SIGKILL to srun */
} srun_stage_t;

typedef struct srun_watch {
    pid_t        pid;
    int          wait_status;
    int          exit_code; /* decided by gdrun (a signal, --timeout); -1: srun's own */
    srun_stage_t stage;
    double       deadline;  /* --timeout, or when to go to the next stage; 0: none */
} srun_watch_t;

/* SIGINTs to srun, 200 ms apart: srun counts those within a second, and two sent at once
 * would merge into one. gap_first: one may have just reached srun from the terminal. */
static void send_sigints(pid_t srun, int count, int gap_first)
{
    struct timespec apart = {0, 200 * 1000 * 1000};

    for (int i = 0; i < count; i++) {
        if (i > 0 || gap_first) {
            nanosleep(&apart, NULL);
        }
        kill(srun, SIGINT);
    }
}

/* One stage further in ending the step; the first decides gdrun's exit code. srun_has_it:
 * srun got this SIGINT itself (a Ctrl-C at the terminal reaches gdrun's whole process
 * group), so it needs one fewer from gdrun. */
static void end_step(srun_watch_t *w, int exit_code, int srun_has_it)
{
    switch (w->stage) {
    case SRUN_RUNNING:
        w->exit_code = exit_code;
        send_sigints(w->pid, srun_has_it ? 1 : 2, srun_has_it);
        w->stage = SRUN_ENDING;
        /* srun's termination sequence waits Slurm's KillWait before its SIGKILL. */
        w->deadline = now_s() + 10 * GDRUN_KILL_GRACE_S;
        break;
    case SRUN_ENDING:
        gdrun_msg("telling srun to leave without waiting for the tasks");
        /* Three: the first two may only start the termination again (a second apart from
         * the earlier ones), the third makes srun leave. */
        send_sigints(w->pid, srun_has_it ? 2 : 3, srun_has_it);
        w->stage    = SRUN_LEAVING;
        w->deadline = now_s() + GDRUN_KILL_GRACE_S;
        break;
    case SRUN_LEAVING:
        gdrun_msg("srun (pid %d) does not leave; killing it (its step may outlive it: see squeue)", (int)w->pid);
        kill(w->pid, SIGKILL);
        w->stage    = SRUN_KILLED;
        w->deadline = 0;
        break;
    case SRUN_KILLED: break;
    }
}

/* Wait for srun, ending the step on a signal or at --timeout. */
static void watch_srun(srun_watch_t *w, const sigset_t *signals, const gdrun_options_t *opt)
{
    for (;;) {
        siginfo_t       info;
        struct timespec wait_for, *wait_ptr = NULL;
        int             sig;

        if (w->deadline > 0) {
            double left = w->deadline - now_s();
            left        = left > 0 ? left : 0;
            wait_for.tv_sec  = (time_t)left;
            wait_for.tv_nsec = (long)((left - floor(left)) * 1e9);
            wait_ptr         = &wait_for;
        }
        sig = sigtimedwait(signals, &info, wait_ptr);
        if (sig == SIGCHLD) {
            if (waitpid(w->pid, &w->wait_status, WNOHANG) == w->pid) {
                return;
            }
        } else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            gdrun_msg(w->stage == SRUN_RUNNING ? "received %s; ending the Slurm step (again to end it at once)"
                                               : "received %s while the Slurm step is ending",
                      gdrun_signal_name(sig));
            end_step(w, 128 + sig, sig == SIGINT && info.si_code == SI_KERNEL);
        } else if (sig < 0 && errno == EAGAIN) {
            if (w->stage == SRUN_RUNNING) {
                gdrun_msg("the job ran past --timeout %g s; ending the Slurm step", opt->timeout_s);
            } else if (w->stage == SRUN_ENDING) {
                gdrun_msg("the Slurm step has not ended %d s after srun was asked to end it", 10 * GDRUN_KILL_GRACE_S);
            }
            end_step(w, GDRUN_EXIT_TIMEOUT, 0);
        }
    }
}

static int srun_exit_code(const srun_watch_t *w)
{
    if (w->exit_code >= 0) {
        return w->exit_code;
    }
    if (WIFEXITED(w->wait_status)) {
        return WEXITSTATUS(w->wait_status);
    }
    if (WIFSIGNALED(w->wait_status)) {
        gdrun_msg("srun was killed by %s", gdrun_signal_name(WTERMSIG(w->wait_status)));
        return 128 + WTERMSIG(w->wait_status);
    }
    return 1;
}

int gdrun_slurm_run(const gdrun_options_t *opt, const char *why)
{
    char            *owned[3] = {NULL, NULL, NULL};
    char           **argv;
    char             command[1024];
    sigset_t         signals, old_mask;
    struct sigaction hup;
    srun_watch_t     watch = {.exit_code = -1, .stage = SRUN_RUNNING};
    int              status = 1;

    if (refuse_options(opt) != 0) {
        return GDRUN_EXIT_USAGE;
    }
    if (opt->output_dir != NULL && gdrun_make_dirs(opt->output_dir) != 0) {
        gdrun_msg("--output-dir %s: cannot create it: %s", opt->output_dir, strerror(errno));
        return 1;
    }
    argv = srun_argv(opt, owned);
    if (argv == NULL || export_env(opt) != 0) {
        if (argv == NULL) {
            gdrun_msg("out of memory");
        }
        goto out;
    }
    format_command(argv, command, sizeof(command));
    gdrun_info(opt, "launcher: Slurm (%s): %s", why, command);

    sigemptyset(&signals);
    sigaddset(&signals, SIGCHLD);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    /* Started with SIGHUP ignored (nohup): srun inherits that, and gdrun keeps ignoring it. */
    if (sigaction(SIGHUP, NULL, &hup) != 0 || hup.sa_handler != SIG_IGN) {
        sigaddset(&signals, SIGHUP);
    }
    signal(SIGCHLD, SIG_DFL); /* not ignored, or srun would be reaped behind gdrun's back */
    sigprocmask(SIG_BLOCK, &signals, &old_mask);
    if (spawn_srun(argv, &old_mask, &watch.pid) != 0) {
        status = GDRUN_EXIT_NOEXEC;
        goto out_unblock;
    }
    if (opt->timeout_s > 0) {
        watch.deadline = now_s() + opt->timeout_s;
    }
    watch_srun(&watch, &signals, opt);
    status = srun_exit_code(&watch);
    gdrun_info(opt, "srun exited with status %d; gdrun exits with %d",
               WIFEXITED(watch.wait_status) ? WEXITSTATUS(watch.wait_status) : -1, status);

out_unblock:
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
out:
    for (int i = 0; i < 3; i++) {
        free(owned[i]);
    }
    free(argv);
    return status;
}
