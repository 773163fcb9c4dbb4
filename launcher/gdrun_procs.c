/*
 * The ranks' processes: finding the program, fork/exec, reaping, judging each exit, and
 * ending the job (the signal to every rank's process group, SIGKILL after a grace period).
 *
 * Every rank leads its own process group, so that a signal reaches what it started too,
 * and none of them gets the terminal's Ctrl-C directly: gdrun forwards it. Each child asks
 * for SIGKILL when gdrun dies (PR_SET_PDEATHSIG); the guard process covers the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "gdrun.h"

extern char **environ;

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ---------------------------------------------------------------------------------------
 * The program
 */
static int executable_file(const char *path, int *err)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        *err = errno;
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        *err = EISDIR;
        return 0;
    }
    if (access(path, X_OK) != 0) {
        *err = errno;
        return 0;
    }
    return 1;
}

/* Resolve the program like execvp would, before anything starts: a missing or
 * non-executable program is reported at once, and children only call execve. */
int gdrun_procs_resolve_program(gdrun_job_t *job)
{
    const char *name = job->opt.app_argv[0];
    const char *path = getenv("PATH");
    int         err  = ENOENT, first_err = 0;

    if (*name == '\0') {
        gdrun_msg("cannot execute an empty program name");
        return -1;
    }
    if (strchr(name, '/') != NULL) {
        if (executable_file(name, &err)) {
            return (job->program = strdup(name)) != NULL ? 0 : -1;
        }
        gdrun_msg("cannot execute %s: %s", name, strerror(err));
        return -1;
    }
    if (path == NULL || *path == '\0') {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    while (*path != '\0') {
        size_t dir_len = strcspn(path, ":");
        char   candidate[PATH_MAX];

        if (snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)dir_len, path, dir_len ? "/" : "",
                     name) < (int)sizeof(candidate)) {
            if (executable_file(candidate, &err)) {
                return (job->program = strdup(candidate)) != NULL ? 0 : -1;
            }
            /* A program that is there but cannot be run explains more than "not found". */
            if (err != ENOENT && err != ENOTDIR && first_err == 0) {
                first_err = err;
            }
        }
        path += dir_len + (path[dir_len] == ':');
    }
    gdrun_msg("cannot execute %s: %s", name,
              first_err ? strerror(first_err) : "command not found in PATH");
    return -1;
}

/* ---------------------------------------------------------------------------------------
 * Starting a rank
 */
static char **rank_environment(gdrun_job_t *job, int r)
{
    const gdrun_layout_t *l   = &job->layout;
    char                **env = gdrun_env_copy(environ);
    char                  num[5][16];
    int                   ok  = env != NULL;

    for (char **x = job->opt.env; ok && x != NULL && *x != NULL; x++) {
        ok = gdrun_env_put(&env, *x) == 0;
    }
    if (ok && job->shmdir[0] != '\0') {
        ok = gdrun_env_set(&env, "UCX_POSIX_DIR", job->shmdir) == 0;
    }
    /* PMIx's variables come after -x, so that -x cannot break the wiring by accident. */
    ok = ok && gdrun_pmix_setup_rank(job, r, &env) == 0;
    snprintf(num[0], sizeof(num[0]), "%d", r);
    snprintf(num[1], sizeof(num[1]), "%d", job->opt.np);
    snprintf(num[2], sizeof(num[2]), "%d", l->local_rank[r]);
    snprintf(num[3], sizeof(num[3]), "%d", l->node_size[l->node_of[r]]);
    snprintf(num[4], sizeof(num[4]), "%d", l->node_of[r]);
    ok = ok && gdrun_env_set(&env, "GDRUN_JOBID", job->nspace) == 0 &&
         gdrun_env_set(&env, "GDRUN_RANK", num[0]) == 0 && gdrun_env_set(&env, "GDRUN_SIZE", num[1]) == 0 &&
         gdrun_env_set(&env, "GDRUN_LOCAL_RANK", num[2]) == 0 &&
         gdrun_env_set(&env, "GDRUN_LOCAL_SIZE", num[3]) == 0 && gdrun_env_set(&env, "GDRUN_NODE_ID", num[4]) == 0;
    /* The PMIx client takes its host name from here; with emulated nodes it is the rank's
     * node, so that node-level lookups (PMIX_LOCAL_PEERS, ...) answer for that node. */
    ok = ok && gdrun_env_set(&env, "PMIX_HOSTNAME", l->node_name[l->node_of[r]]) == 0;
    if (!ok) {
        gdrun_env_free(env);
        return NULL;
    }
    return env;
}

/* In the child of a threaded process: only async-signal-safe calls until execve. */
static void child_exec(gdrun_job_t *job, int r, char **env, const int fds[3], int status_fd, pid_t parent)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t         none;
    int              err;

    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGHUP || !job->hup_ignored) {
            sigaction(sig, &dfl, NULL); /* fails harmlessly for SIGKILL, SIGSTOP, ... */
        }
    }
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(GDRUN_EXIT_NOEXEC); /* gdrun is already gone */
    }
    for (int i = 0; i < 3; i++) {
        if (dup2(fds[i], i) < 0) {
            goto fail;
        }
    }
    if (job->bindings != NULL &&
        sched_setaffinity(0, job->bindings[r].mask_size, job->bindings[r].mask) != 0) {
        goto fail;
    }
    if (job->nofile_raised) {
        setrlimit(RLIMIT_NOFILE, &job->nofile); /* gdrun's raised limit is gdrun's own */
    }
    /* Nothing of gdrun's (PMIx sockets, other ranks' pipes) may reach the program. */
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        long max = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++) {
            fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
    execve(job->program, job->opt.app_argv, env);
fail:
    err = errno;
    (void)!write(status_fd, &err, sizeof(err));
    _exit(GDRUN_EXIT_NOEXEC);
}

/* 0 when the child reached execve, else the errno it failed with. */
static int exec_result(int status_fd)
{
    int     err = 0;
    ssize_t got;

    do {
        got = read(status_fd, &err, sizeof(err));
    } while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof(err) ? err : 0;
}

static int launch_rank(gdrun_job_t *job, int r)
{
    gdrun_rank_t *rank = &job->ranks[r];
    char        **env  = rank_environment(job, r);
    int           fds[3], status_pipe[2], err;
    pid_t         parent = getpid(), pid;
    sigset_t      all, old;

    if (env == NULL) {
        gdrun_procs_fail(job, 1, "cannot prepare the environment of rank %d", r);
        return -1;
    }
    if (gdrun_io_child_fds(job, r, fds) != 0) {
        gdrun_env_free(env);
        gdrun_procs_fail(job, 1, "cannot set up the input and output of rank %d: %s", r, strerror(errno));
        return -1;
    }
    if (pipe2(status_pipe, O_CLOEXEC) != 0) {
        gdrun_env_free(env);
        gdrun_procs_fail(job, 1, "cannot create a pipe for rank %d: %s", r, strerror(errno));
        return -1;
    }
    /* Signals stay blocked across fork until the child has reset its handlers: gdrun's
     * handlers (libevent's) must never run in the child. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid = fork();
    if (pid == 0) {
        child_exec(job, r, env, fds, status_pipe[1], parent);
    }
    err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(status_pipe[1]);
    gdrun_env_free(env);
    if (pid < 0) {
        close(status_pipe[0]);
        gdrun_procs_fail(job, 1, "cannot fork rank %d: %s", r, strerror(err));
        return -1;
    }
    setpgid(pid, pid); /* also here: no signal may find the child outside its own group */
    gdrun_guard_watch(pid);
    rank->pid   = pid;
    rank->state = GDRUN_RANK_RUNNING;
    job->nrunning++;
    gdrun_io_started(job, r);
    err = exec_result(status_pipe[0]);
    close(status_pipe[0]);
    if (err != 0) {
        gdrun_procs_fail(job, GDRUN_EXIT_NOEXEC, "rank %d: cannot execute %s: %s", r, job->program,
                         strerror(err));
        return -1;
    }
    gdrun_debug(job, "rank %d started, pid %d", r, (int)pid);
    return 0;
}

int gdrun_procs_launch(gdrun_job_t *job)
{
    for (int r = 0; r < job->opt.np; r++) {
        if (job->ending || launch_rank(job, r) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Exits
 */
static void judge_exit(gdrun_job_t *job, gdrun_rank_t *rank)
{
    int status = rank->wait_status;

    if (job->ending) {
        gdrun_debug(job, "rank %d (pid %d) ended (status 0x%x) while the job was ending", rank->rank,
                    (int)rank->pid, status);
        return;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        gdrun_procs_fail(job, 128 + sig, "rank %d (pid %d) killed by signal %d (%s)%s", rank->rank,
                         (int)rank->pid, sig, strsignal(sig), WCOREDUMP(status) ? ", core dumped" : "");
    } else if (WEXITSTATUS(status) != 0) {
        gdrun_procs_fail(job, WEXITSTATUS(status), "rank %d (pid %d) exited with status %d", rank->rank,
                         (int)rank->pid, WEXITSTATUS(status));
    } else if (rank->connected && !rank->finalized && job->nrunning > 0) {
        /* Its peers would wait for it forever in their next collective or finalize. */
        gdrun_procs_fail(job, 1, "rank %d (pid %d) exited without calling gdc_finalize", rank->rank,
                         (int)rank->pid);
    }
}

static gdrun_rank_t *rank_of_pid(gdrun_job_t *job, pid_t pid)
{
    for (int r = 0; r < job->opt.np; r++) {
        if (job->ranks[r].pid == pid && job->ranks[r].state == GDRUN_RANK_RUNNING) {
            return &job->ranks[r];
        }
    }
    return NULL;
}

/*
 * Which of the ranks found dead in one pass is to blame, when several are: gdrun reaps in
 * the kernel's order (that of the forks), not that of the deaths, and a rank's death is
 * often followed within milliseconds by its peers' reactions (gdc's GDC_ERR_PEER_FAILED,
 * then an exit with an error status; UCX aborting a rank whose cross-memory read from the
 * dead one failed). A kill from outside (SIGKILL) comes first, then the other signals
 * (crashes), then SIGABRT (UCX's reaction, or an assertion), then the error exits, then
 * the exits without gdc_finalize; ranks in order within each class.
 */
static int blame_class(int status)
{
    if (WIFSIGNALED(status)) {
        return WTERMSIG(status) == SIGKILL ? 0 : WTERMSIG(status) == SIGABRT ? 2 : 1;
    }
    return WEXITSTATUS(status) != 0 ? 3 : 4;
}

/* Reap every rank that has ended (their statuses wait for judging); how many; *worst the
 * most blamable class among them. */
static int reap_ended(gdrun_job_t *job, int *worst)
{
    int reaped = 0;

    for (;;) {
        int           status;
        pid_t         pid = waitpid(-1, &status, WNOHANG);
        gdrun_rank_t *rank;

        if (pid < 0 && errno == EINTR) {
            continue;
        }
        if (pid <= 0) {
            break;
        }
        if (gdrun_guard_is(pid) || (rank = rank_of_pid(job, pid)) == NULL) {
            continue;
        }
        rank->state       = GDRUN_RANK_DONE;
        rank->wait_status = status;
        rank->unjudged    = 1;
        reaped++;
        *worst = blame_class(status) < *worst ? blame_class(status) : *worst;
        job->nrunning--;
        gdrun_guard_forget(pid);
        gdrun_io_rank_exited(job, rank->rank);
    }
    return reaped;
}

/* How long a rank's error exit waits for a signal death to blame instead. */
#define GDRUN_BLAME_GRACE_MS 100

void gdrun_procs_reap(gdrun_job_t *job)
{
    int reaped, worst = 5;

    /* A rank's finalize (or abort) reached the PMIx thread before the rank could exit:
     * take it into account before its exit. */
    gdrun_pmix_process_upcalls(job);
    reaped = reap_ended(job, &worst);
    /* A killed rank's peers may see it dead (a zombie) and exit with an error before the
     * kernel has let go of its threads, so that it is not yet reapable: the error exit
     * would take the blame. Give the cause a moment to show. */
    for (int ms = 0; reaped > 0 && worst >= 2 && worst <= 3 && !job->ending && ms < GDRUN_BLAME_GRACE_MS; ms += 5) {
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
        reaped += reap_ended(job, &worst);
    }
    for (int blame = 0; reaped > 0 && blame <= 4; blame++) {
        for (int r = 0; r < job->opt.np; r++) {
            gdrun_rank_t *rank = &job->ranks[r];
            if (rank->unjudged && blame_class(rank->wait_status) == blame) {
                rank->unjudged = 0;
                reaped--;
                judge_exit(job, rank);
            }
        }
    }
    gdrun_job_check_done(job);
}

/* ---------------------------------------------------------------------------------------
 * Ending the job
 */
const char *gdrun_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    default: return "the signal";
    }
}

static void signal_rank(const gdrun_rank_t *rank, int sig)
{
    if (kill(-rank->pid, sig) != 0) {
        kill(rank->pid, sig);
    }
}

/* Is the process stopped by a signal (state T in /proc; not a debugger's stop, t)? */
static int process_stopped(pid_t pid)
{
    char  path[64], buf[512], *close_paren = NULL;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    if (fgets(buf, sizeof(buf), f) != NULL) {
        close_paren = strrchr(buf, ')');
    }
    fclose(f);
    return close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'T';
}

/* sig to every running rank. A stopped rank (SIGSTOP, SIGTSTP) would only get a catchable
 * signal once continued: it is named (often the rank the others wait for) and continued,
 * rather than left for SIGKILL after the grace period. */
static void signal_running(gdrun_job_t *job, int sig)
{
    for (int r = 0; r < job->opt.np; r++) {
        gdrun_rank_t *rank = &job->ranks[r];
        if (rank->state != GDRUN_RANK_RUNNING) {
            continue;
        }
        signal_rank(rank, sig);
        if (sig != SIGKILL && process_stopped(rank->pid)) {
            gdrun_msg("rank %d (pid %d) is stopped; continuing it so that it gets %s", rank->rank, (int)rank->pid,
                      gdrun_signal_name(sig));
            signal_rank(rank, SIGCONT);
        }
    }
}

char *gdrun_procs_running(const gdrun_job_t *job)
{
    int  *mask = calloc((size_t)job->opt.np, sizeof(int));
    char *list;

    if (mask == NULL) {
        return NULL;
    }
    for (int r = 0; r < job->opt.np; r++) {
        mask[r] = job->ranks[r].state == GDRUN_RANK_RUNNING;
    }
    list = gdrun_format_ranks(mask, job->opt.np);
    free(mask);
    return list;
}

void gdrun_procs_kill_all(gdrun_job_t *job)
{
    job->ending = 1;
    job->killed = 1;
    signal_running(job, SIGKILL);
}

static void on_kill_timer(evutil_socket_t fd, short what, void *arg)
{
    gdrun_job_t *job = arg;
    char        *list;

    (void)fd, (void)what;
    if (job->nrunning == 0) {
        return;
    }
    list = gdrun_procs_running(job);
    gdrun_msg("rank%s %s still running %d s after %s; killing with SIGKILL", job->nrunning > 1 ? "s" : "",
              list ? list : "?", GDRUN_KILL_GRACE_S, gdrun_signal_name(job->end_signal));
    free(list);
    gdrun_procs_kill_all(job);
}

void gdrun_procs_end(gdrun_job_t *job, int sig)
{
    struct timeval grace = {GDRUN_KILL_GRACE_S, 0};

    job->ending     = 1;
    job->end_signal = sig;
    if (job->timeout_timer != NULL) {
        evtimer_del(job->timeout_timer);
    }
    signal_running(job, sig);
    if (job->kill_timer == NULL) {
        job->kill_timer = evtimer_new(job->base, on_kill_timer, job);
    }
    if (job->kill_timer != NULL && !evtimer_pending(job->kill_timer, NULL) && !job->killed) {
        evtimer_add(job->kill_timer, &grace);
    } else if (job->kill_timer == NULL) {
        gdrun_procs_kill_all(job); /* no timer: no grace */
    }
}

void gdrun_procs_fail(gdrun_job_t *job, int exit_code, const char *fmt, ...)
{
    char    line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (job->ending) {
        gdrun_debug(job, "%s (the job is already ending)", line);
        return;
    }
    gdrun_msg("%s", line);
    job->exit_code = exit_code;
    if (job->nrunning > 0 && job->opt.verbose) {
        char *list = gdrun_procs_running(job);
        gdrun_debug(job, "ending the job: SIGTERM to rank%s %s", job->nrunning > 1 ? "s" : "", list ? list : "?");
        free(list);
    }
    gdrun_procs_end(job, SIGTERM);
}

void gdrun_procs_free(gdrun_job_t *job)
{
    if (job->kill_timer != NULL) {
        event_free(job->kill_timer);
        job->kill_timer = NULL;
    }
    free(job->program);
    job->program = NULL;
}
