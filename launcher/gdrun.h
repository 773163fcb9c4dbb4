/*
 * gdrun internals: the job and its ranks, shared by the launcher's files.
 *
 *   gdrun.c         main: the options, then the local job or the Slurm step
 *   gdrun_options.c the command line (options, --help, --version)
 *   gdrun_msg.c     messages on stderr (errors, -v, GDC_LOG=info)
 *   gdrun_job.c     the local job's life (start, event loop, signals, timers, end)
 *   gdrun_layout.c  which (emulated) node each rank is on, and the strings PMIx wants for it
 *   gdrun_env.c     environment arrays for the ranks
 *   gdrun_pmix.c    the PMIx server: init, job registration, per-rank setup, upcalls
 *   gdrun_procs.c   fork/exec, reaping, failure detection, ending the job
 *   gdrun_io.c      rank output forwarding (line-atomic, optionally tagged), stdin to rank 0
 *   gdrun_bind.c    hwloc binding plan (--bind-to, --report-bindings)
 *   gdrun_guard.c   a helper process that cleans up if gdrun itself is killed
 *   gdrun_slurm.c   the other launcher: the job as one `srun --mpi=pmix` step (--launcher)
 *
 * One thread runs gdrun's libevent loop; the PMIx server library runs its own progress
 * thread, whose upcalls are handed to the loop (gdrun_pmix.c). Everything else in this
 * header is touched by the loop's thread only.
 */
#ifndef GDRUN_H
#define GDRUN_H

#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <pmix_common.h>

struct event_base;
struct event;
struct gdrun_io;

#define GDRUN_MAX_RANKS     4096
/* Seconds between the SIGTERM that ends a job and the SIGKILL that follows it. */
#define GDRUN_KILL_GRACE_S  2
/* Seconds gdrun keeps reading output after the last rank has exited (a rank's child may
 * hold the pipe open; what the ranks themselves wrote is read at once). */
#define GDRUN_DRAIN_S       1
/* Seconds gdrun waits for the PMIx library to shut down before it exits without it. */
#define GDRUN_PMIX_TEARDOWN_S 2

/* Exit codes of gdrun itself (a failing rank's own status is passed through). */
#define GDRUN_EXIT_USAGE    2
#define GDRUN_EXIT_TIMEOUT  124
#define GDRUN_EXIT_NOEXEC   127

/* AUTO (the default): CORE where the ranks outnumber the cores, NONE otherwise (gdrun_bind.c). */
typedef enum { GDRUN_BIND_AUTO = 0, GDRUN_BIND_NONE, GDRUN_BIND_CORE, GDRUN_BIND_NUMA } gdrun_bind_t;

/* Who starts the ranks: gdrun itself (its own PMIx server, this node), or Slurm's srun. */
typedef enum { GDRUN_LAUNCHER_AUTO = 0, GDRUN_LAUNCHER_LOCAL, GDRUN_LAUNCHER_SLURM } gdrun_launcher_t;

typedef struct gdrun_options {
    int              np;
    int              np_given;        /* -n was given (under Slurm, srun's default applies otherwise) */
    gdrun_launcher_t launcher;        /* --launcher; AUTO: gdrun_slurm_choose decides */
    int              emulate_nodes;   /* number of nodes the ranks are split into; 1 = the real one */
    char           **env;             /* -x, as NAME=VALUE, NULL-terminated */
    int              tag_output;
    const char      *output_dir;
    double           timeout_s;       /* 0: no limit */
    gdrun_bind_t     bind;
    int              report_bindings;
    int              verbose;
    char           **app_argv;        /* the program and its arguments (points into main's argv) */
} gdrun_options_t;

/* Where the ranks are, as PMIx describes it to them. Nodes hold consecutive blocks of
 * ranks; with K emulated nodes the first N % K nodes get one rank more. */
typedef struct gdrun_layout {
    int    nranks;
    int    nnodes;
    int   *node_of;     /* [nranks] */
    int   *local_rank;  /* [nranks]: rank among those of its node (also its node rank) */
    int   *node_first;  /* [nnodes]: the node's first rank */
    int   *node_size;   /* [nnodes] */
    char **node_name;   /* [nnodes]: the host name, or <host>-n<k> for emulated nodes */
} gdrun_layout_t;

/* Where one rank is bound (gdrun_bind.c); absent with --bind-to none. */
typedef struct gdrun_binding {
    cpu_set_t *mask;        /* for sched_setaffinity in the child (CPU_ALLOC) */
    size_t     mask_size;
    char      *what;        /* "core 3", "NUMA node 0" */
    char      *cpulist;     /* "6-7" */
    char      *locality;    /* PMIX_LOCALITY_STRING, or NULL */
    void      *hwloc_set;   /* hwloc_bitmap_t of the PUs */
} gdrun_binding_t;

typedef enum {
    GDRUN_RANK_NEW = 0,   /* not started */
    GDRUN_RANK_RUNNING,   /* forked; not yet reaped */
    GDRUN_RANK_DONE       /* reaped */
} gdrun_rank_state_t;

typedef struct gdrun_rank {
    int                rank;
    pid_t              pid;          /* also its process group id */
    gdrun_rank_state_t state;
    int                wait_status;  /* from waitpid, once DONE */
    int                connected;    /* its PMIx client connected (it is a gdc/PMIx program) */
    int                finalized;    /* it called PMIx_Finalize (gdc_finalize) */
    int                unjudged;     /* reaped in this pass, its exit not judged yet */
} gdrun_rank_t;

typedef struct gdrun_job {
    gdrun_options_t    opt;
    char              *program;       /* the path execve gets (resolved like execvp) */
    gdrun_layout_t     layout;
    gdrun_rank_t      *ranks;         /* [np] */
    gdrun_binding_t   *bindings;      /* [np], or NULL */
    struct event_base *base;
    struct gdrun_io   *io;
    struct event      *kill_timer;    /* SIGKILL after the grace period */
    struct event      *timeout_timer; /* --timeout */
    struct event      *drain_timer;   /* output drain after the last exit */
    char               hostname[256];
    char               nspace[PMIX_MAX_NSLEN + 1];
    char               tmpdir[PATH_MAX];
    char               shmdir[PATH_MAX]; /* UCX's shared-memory files (UCX_POSIX_DIR), or "" */
    int                nrunning;      /* ranks forked and not yet reaped */
    int                ending;        /* the job is being ended: deaths are expected now */
    int                killed;        /* SIGKILL has been sent */
    int                end_signal;    /* the signal that ended the job (SIGTERM, or forwarded) */
    int                hup_ignored;   /* gdrun was started with SIGHUP ignored (nohup): so are the ranks */
    struct rlimit      nofile;        /* the descriptor limit gdrun was started with... */
    int                nofile_raised; /* ... and raised for itself: the ranks get the first */
    int                exit_code;     /* the job's status: the first failure's, else 0 */
} gdrun_job_t;

/* gdrun_options.c: fills opt from the command line; exits on --help, --version (0) and
 * on bad options (GDRUN_EXIT_USAGE, with a message). */
void gdrun_options_parse(gdrun_options_t *opt, int argc, char **argv);

/* The same without exiting or printing (but for -x's warning about an unset variable).
 * Only RUN leaves opt->env to the caller (gdrun_env_free); BAD sets *why to the message,
 * malloc'd, else NULL. */
typedef enum {
    GDRUN_OPTIONS_RUN = 0,   /* opt is filled: start the job */
    GDRUN_OPTIONS_HELP,      /* --help */
    GDRUN_OPTIONS_VERSION,   /* --version */
    GDRUN_OPTIONS_BAD,       /* a usage error */
    GDRUN_OPTIONS_NO_MEMORY
} gdrun_options_result_t;
gdrun_options_result_t gdrun_options_read(gdrun_options_t *opt, int argc, char **argv, char **why);

/* gdrun_msg.c */
void gdrun_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gdrun_debug(const gdrun_job_t *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What a user may want to know (the launcher chosen and why): with -v or GDC_LOG=info|debug. */
void gdrun_info(const gdrun_options_t *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gdrun_job.c */
/* Run the job on this node under gdrun's own PMIx server; gdrun's exit status. */
int  gdrun_job_run(const gdrun_options_t *opt);
/* The loop may have nothing left to do: stop it when every rank is reaped and all output
 * has been forwarded. */
void gdrun_job_check_done(gdrun_job_t *job);

/* gdrun_layout.c */
int   gdrun_layout_init(gdrun_layout_t *layout, int nranks, int nnodes, const char *host);
void  gdrun_layout_free(gdrun_layout_t *layout);
/* malloc'd strings: "0,1,2" (ranks of node), "h-n0,h-n1" (nodes), "0,1,2;3,4" (ranks by node). */
char *gdrun_layout_node_peers(const gdrun_layout_t *layout, int node);
char *gdrun_layout_node_list(const gdrun_layout_t *layout);
char *gdrun_layout_proc_map(const gdrun_layout_t *layout);
/* "0-3,5": a set of ranks for messages; mask[r] != 0 selects rank r. */
char *gdrun_format_ranks(const int *mask, int nranks);

/* gdrun_env.c: NULL-terminated arrays of malloc'd "NAME=VALUE" strings, compatible with
 * the arrays PMIx_server_setup_fork appends to. */
char **gdrun_env_copy(char *const *src);
int    gdrun_env_set(char ***env, const char *name, const char *value);
int    gdrun_env_put(char ***env, const char *assignment);
/* Whether env sets name. */
int    gdrun_env_has(char *const *env, const char *name);
void   gdrun_env_free(char **env);
int    gdrun_env_valid_name(const char *name, size_t len);

/* gdrun_pmix.c */
int  gdrun_pmix_init(gdrun_job_t *job);
int  gdrun_pmix_register_job(gdrun_job_t *job);
/* Register rank with the server (waiting for it to complete) and add the PMIx variables
 * to its environment. */
int  gdrun_pmix_setup_rank(gdrun_job_t *job, int rank, char ***env);
/* Handle the upcalls the PMIx thread has queued (called by the loop before reaping, so
 * that a rank's finalize is always seen before its exit). */
void gdrun_pmix_process_upcalls(gdrun_job_t *job);
/* 0 once the PMIx library is down; -1 when it is left running (after a failed job, or when
 * it did not shut down in time): then gdrun exits without more of it. */
int  gdrun_pmix_finalize(gdrun_job_t *job);

/* gdrun_procs.c */
int  gdrun_procs_resolve_program(gdrun_job_t *job);
int  gdrun_procs_launch(gdrun_job_t *job);
void gdrun_procs_reap(gdrun_job_t *job);
/* The first failure decides the exit code and ends the job; later ones are ignored. */
void gdrun_procs_fail(gdrun_job_t *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* End the job: sig to every running rank's process group, SIGKILL after the grace. */
void gdrun_procs_end(gdrun_job_t *job, int sig);
void gdrun_procs_kill_all(gdrun_job_t *job);
/* The ranks still running, as "0-3,5" (malloc'd; NULL when out of memory). */
char *gdrun_procs_running(const gdrun_job_t *job);
/* "SIGINT", "SIGTERM", ... for the signals gdrun sends or handles. */
const char *gdrun_signal_name(int sig);
void gdrun_procs_free(gdrun_job_t *job);

/* gdrun_io.c */
int  gdrun_io_init(gdrun_job_t *job);
/* mkdir -p */
int  gdrun_make_dirs(const char *dir);
/* The three descriptors a rank's child gets as 0, 1, 2 (set up before the fork). */
int  gdrun_io_child_fds(gdrun_job_t *job, int rank, int fds[3]);
/* After the fork: close the child's ends in gdrun and start forwarding. */
void gdrun_io_started(gdrun_job_t *job, int rank);
void gdrun_io_rank_exited(gdrun_job_t *job, int rank);
int  gdrun_io_idle(const gdrun_job_t *job);
/* Forward what can be read now without waiting, then close every stream. */
void gdrun_io_drain_and_close(gdrun_job_t *job);
void gdrun_io_free(gdrun_job_t *job);

/* gdrun_bind.c */
int  gdrun_bind_plan(gdrun_job_t *job);
void gdrun_bind_report(const gdrun_job_t *job);
void gdrun_bind_free(gdrun_job_t *job);

/* gdrun_guard.c */
int  gdrun_guard_start(const char *tmpdir, const char *shmdir);
void gdrun_guard_watch(pid_t pgid);
void gdrun_guard_forget(pid_t pgid);
int  gdrun_guard_is(pid_t pid);
void gdrun_guard_stop(void);
int  gdrun_remove_tree(const char *dir);

/* gdrun_slurm.c */
/* The launcher for the job: --launcher, else Slurm inside an allocation of several nodes
 * (not from within a step); why says what decided, for the info line. */
gdrun_launcher_t gdrun_slurm_choose(const gdrun_options_t *opt, char *why, size_t why_len);
/* Run the job as one srun step and return gdrun's exit status (2 for options srun has no
 * equivalent of, 124 after --timeout, 127 when srun cannot be executed, else srun's). */
int gdrun_slurm_run(const gdrun_options_t *opt, const char *why);

#endif
