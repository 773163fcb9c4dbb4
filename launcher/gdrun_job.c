/*
 * The local job's life: set up this process and the event loop, start the ranks, run the
 * loop until every rank is reaped and its output forwarded, and clean up whatever
 * happened. The other launcher files tell the job when it may be done
 * (gdrun_job_check_done); this file owns the timers and signal events that end it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "gdrun.h"

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

/* A directory of the job on /dev/shm for UCX's shared-memory files (UCX_POSIX_DIR): UCX
 * unlinks each as soon as it has opened it, but a rank killed in between (at its start, by
 * a test or a failing job) leaves a ucx_shm_posix_* file in /dev/shm that nothing removes;
 * in the job's directory gdrun (or its guard) removes it with the job. Not where the ranks'
 * environment already says where (UCX_POSIX_DIR), nor without a /dev/shm. */
static void make_shmdir(gdrun_job_t *job)
{
    struct stat st;

    job->shmdir[0] = '\0';
    if (getenv("UCX_POSIX_DIR") != NULL || gdrun_env_has(job->opt.env, "UCX_POSIX_DIR") ||
        stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) {
        return;
    }
    snprintf(job->shmdir, sizeof(job->shmdir), "/dev/shm/gdrun.%d.XXXXXX", (int)getpid());
    if (mkdtemp(job->shmdir) == NULL) {
        gdrun_msg("warning: cannot create a directory in /dev/shm for UCX's files (%s): a rank killed as UCX "
                  "starts may leave one there", strerror(errno));
        job->shmdir[0] = '\0';
    }
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

/* What the ranks' pipes and sockets rely on in gdrun's own process, and the job's names. */
static void prepare_process(gdrun_job_t *job)
{
    ensure_std_fds();
    raise_fd_limit(job);
    signal(SIGPIPE, SIG_IGN); /* a closed output shows as EPIPE */
    set_hostname(job);
    snprintf(job->nspace, sizeof(job->nspace), "gdrun.%d", (int)getpid());
}

static int alloc_ranks(gdrun_job_t *job)
{
    job->ranks = calloc((size_t)job->opt.np, sizeof(gdrun_rank_t));
    if (job->ranks == NULL) {
        goto err;
    }
    if (gdrun_layout_init(&job->layout, job->opt.np, job->opt.emulate_nodes, job->hostname) != 0) {
        goto err_free_ranks;
    }
    for (int r = 0; r < job->opt.np; r++) {
        job->ranks[r].rank = r;
    }
    return 0;

err_free_ranks:
    free(job->ranks);
    job->ranks = NULL;
err:
    gdrun_msg("out of memory");
    return -1;
}

/* Start the ranks and run the loop until the job is over; its exit status. */
static int run_job(gdrun_job_t *job, signal_events_t *se)
{
    int status = 1;

    /* hwloc and the guard before any thread exists; the guard before the temp dir has
     * anything in it. */
    if (gdrun_bind_plan(job) != 0 || make_tmpdir(job) != 0) {
        return status;
    }
    make_shmdir(job);
    if (gdrun_guard_start(job->tmpdir, job->shmdir) != 0) {
        return status;
    }
    if (start_job(job, se) == 0) {
        gdrun_procs_launch(job); /* a failure ends the job through the loop, like any other */
        event_base_dispatch(job->base);
        status = job->exit_code;
    }
    if (job->nrunning > 0) {
        gdrun_procs_kill_all(job); /* the loop ends with every rank reaped; just in case */
    }
    return status;
}

/* What would outlive gdrun: the PMIx library, the temp dir and the guard. */
static void end_job(gdrun_job_t *job, int status)
{
    int pmix_left_running = gdrun_pmix_finalize(job) != 0;

    gdrun_io_free(job);
    if (job->tmpdir[0] != '\0' && gdrun_remove_tree(job->tmpdir) != 0) {
        gdrun_msg("warning: cannot remove %s: %s", job->tmpdir, strerror(errno));
    }
    if (job->shmdir[0] != '\0' && gdrun_remove_tree(job->shmdir) != 0) {
        gdrun_msg("warning: cannot remove %s: %s", job->shmdir, strerror(errno));
    }
    gdrun_guard_stop();
    if (pmix_left_running) {
        _exit(status); /* no exit handlers: the library's thread is still running */
    }
}

static void free_job(gdrun_job_t *job, signal_events_t *se)
{
    for (int i = 0; i < 4; i++) {
        if (se->ev[i] != NULL) {
            event_free(se->ev[i]);
        }
    }
    if (job->timeout_timer != NULL) {
        event_free(job->timeout_timer);
    }
    if (job->drain_timer != NULL) {
        event_free(job->drain_timer);
    }
    gdrun_procs_free(job);
    gdrun_bind_free(job);
    gdrun_layout_free(&job->layout);
    if (job->base != NULL) {
        event_base_free(job->base);
    }
    free(job->ranks);
}

int gdrun_job_run(const gdrun_options_t *opt)
{
    gdrun_job_t     job = {.opt = *opt};
    signal_events_t se  = {{NULL}};
    int             status;

    prepare_process(&job);
    if (gdrun_procs_resolve_program(&job) != 0) {
        return GDRUN_EXIT_NOEXEC;
    }
    if (alloc_ranks(&job) != 0) {
        gdrun_procs_free(&job);
        return 1;
    }
    status = run_job(&job, &se);
    end_job(&job, status);
    free_job(&job, &se);
    return status;
}
