/*
 * The guard: a small process forked before anything else, which outlives gdrun only to
 * clean up after it. gdrun tells it, through a pipe, the process group of each rank it
 * starts and of each rank it has reaped. When the pipe closes (gdrun exited, however it
 * died, SIGKILL included), the guard kills the process groups still listed and removes the
 * job's temp dir, then exits. After a normal end there is nothing left for it to do.
 *
 * It sits in its own process group and ignores the terminal's signals, so that a Ctrl-C
 * or a kill of gdrun's process group cannot take it down before gdrun.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdrun.h"

static int   guard_fd  = -1;  /* gdrun's end of the pipe */
static pid_t guard_pid = -1;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    if (remove(path) != 0 && errno != ENOENT) {
        return -1;
    }
    return 0;
}

int gdrun_remove_tree(const char *dir)
{
    struct stat st;

    if (lstat(dir, &st) != 0) {
        return errno == ENOENT ? 0 : -1;
    }
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void guard_record(pid_t **pgids, size_t *n, size_t *cap, int32_t message)
{
    pid_t pgid = message > 0 ? message : -message;

    if (message < 0) {
        for (size_t i = 0; i < *n; i++) {
            if ((*pgids)[i] == pgid) {
                (*pgids)[i] = (*pgids)[--*n];
                return;
            }
        }
        return;
    }
    if (*n == *cap) {
        size_t grown_cap = *cap ? 2 * *cap : 64;
        pid_t *grown     = realloc(*pgids, grown_cap * sizeof(pid_t));
        if (grown == NULL) {
            return; /* the rank's death signal still covers it */
        }
        *pgids = grown;
        *cap   = grown_cap;
    }
    (*pgids)[(*n)++] = pgid;
}

static void guard_main(int fd, const char *tmpdir, const char *shmdir, pid_t gdrun_pid)
{
    pid_t  *pgids = NULL;
    size_t  n = 0, cap = 0;
    int32_t message;
    int     devnull = open("/dev/null", O_RDWR);
    struct stat st;

    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_NAME, "gdrun-guard", 0, 0, 0);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        close(devnull);
    }
    for (;;) {
        ssize_t got = read(fd, &message, sizeof(message));

        if (got == (ssize_t)sizeof(message)) {
            guard_record(&pgids, &n, &cap, message);
        } else if (got < 0 && errno == EINTR) {
            continue;
        } else {
            break; /* gdrun is gone */
        }
    }
    for (size_t i = 0; i < n; i++) {
        kill(-pgids[i], SIGKILL);
    }
    free(pgids);
    if (n > 0 || lstat(tmpdir, &st) == 0 || (shmdir[0] != '\0' && lstat(shmdir, &st) == 0)) {
        gdrun_remove_tree(tmpdir);
        if (shmdir[0] != '\0') {
            gdrun_remove_tree(shmdir);
        }
        fprintf(stderr, "gdrun: gdrun (pid %d) ended without cleaning up; its guard killed %zu rank "
                "process group(s) and removed %s%s%s\n", (int)gdrun_pid, n, tmpdir, shmdir[0] != '\0' ? " and " : "",
                shmdir);
    }
    _exit(0);
}

int gdrun_guard_start(const char *tmpdir, const char *shmdir)
{
    int   fds[2];
    pid_t gdrun_pid = getpid();
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) != 0) {
        gdrun_msg("cannot create the guard's pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        gdrun_msg("cannot fork the guard process: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[1]);
        guard_main(fds[0], tmpdir, shmdir, gdrun_pid);
    }
    close(fds[0]);
    guard_fd  = fds[1];
    guard_pid = pid;
    return 0;
}

static void guard_send(int32_t message)
{
    if (guard_fd >= 0) {
        /* 4 bytes into a pipe: atomic; an error means the guard is gone, nothing to do. */
        (void)!write(guard_fd, &message, sizeof(message));
    }
}

void gdrun_guard_watch(pid_t pgid)
{
    guard_send((int32_t)pgid);
}

void gdrun_guard_forget(pid_t pgid)
{
    guard_send(-(int32_t)pgid);
}

int gdrun_guard_is(pid_t pid)
{
    if (guard_pid > 0 && pid == guard_pid) {
        guard_pid = -1; /* reaped by the caller: it died early */
        gdrun_msg("warning: the guard process exited early; a SIGKILL of gdrun would now leave "
                  "its temp dir behind");
        return 1;
    }
    return 0;
}

void gdrun_guard_stop(void)
{
    if (guard_fd >= 0) {
        close(guard_fd);
        guard_fd = -1;
    }
    if (guard_pid > 0) {
        while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR) {
        }
        guard_pid = -1;
    }
}
