/*
 * The ranks' output and input. Each rank's stdout and stderr come to gdrun through a pipe
 * and leave it whole lines at a time, to gdrun's stdout and stderr respectively, so that
 * lines of different ranks never mix mid-line; --tag-output puts "[rank] " before each
 * line. With --output-dir the ranks write straight into one file per rank and stream.
 *
 * stdin goes to rank 0 only: gdrun's own stdin when it is not a terminal (a file or a
 * pipe is handed over as is); from a terminal gdrun reads and forwards it, since a rank,
 * being in its own process group, may not read the terminal. The other ranks get
 * /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "gdrun.h"

/* A line longer than this is forwarded in pieces (it would otherwise grow without end). */
#define IO_MAX_LINE   (1 << 20)
#define IO_READ_CHUNK 65536

typedef struct gdrun_stream {
    gdrun_job_t  *job;
    int           rank;
    int           fd;        /* read end in gdrun; -1 once closed */
    int           child_fd;  /* the child's end, until it is started */
    int           out_fd;    /* gdrun's STDOUT_FILENO or STDERR_FILENO */
    struct event *ev;
    char         *buf;       /* a partial line */
    size_t        len, cap;
} gdrun_stream_t;

typedef enum { STDIN_NULL, STDIN_INHERIT, STDIN_FORWARD } stdin_mode_t;

struct gdrun_io {
    gdrun_stream_t *streams;      /* [2 * np]: stdout, stderr of rank 0, 1, ... */
    int             open_streams;
    int             devnull;
    int             out_broken[3]; /* gdrun's stdout/stderr went away: discard */
    char           *out;           /* scratch for tagged lines */
    size_t          out_cap;
    stdin_mode_t    stdin_mode;
    int             stdin_child;   /* rank 0's stdin (its end) */
    int             stdin_pipe;    /* STDIN_FORWARD: gdrun's end towards rank 0, -1 when closed */
    struct event   *stdin_ev;
    int             stdin_dropped;
};

/* ---------------------------------------------------------------------------------------
 * Writing to gdrun's own stdout / stderr
 */
static void write_all(struct gdrun_io *io, int fd, const char *data, size_t len)
{
    while (len > 0 && !io->out_broken[fd]) {
        ssize_t n = write(fd, data, len);

        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, -1);
        } else {
            io->out_broken[fd] = 1; /* e.g. EPIPE: nobody reads gdrun's output any more */
        }
    }
}

static int reserve_out(struct gdrun_io *io, size_t need)
{
    if (need > io->out_cap) {
        char *grown = realloc(io->out, need);
        if (grown == NULL) {
            return -1;
        }
        io->out     = grown;
        io->out_cap = need;
    }
    return 0;
}

/* Forward data (complete lines, except for a final piece when add_newline is set). */
static void emit(gdrun_stream_t *s, const char *data, size_t len, int add_newline)
{
    struct gdrun_io *io = s->job->io;
    char             prefix[24];
    size_t           prefix_len, nlines = 0, pos = 0;

    if (len == 0) {
        return;
    }
    if (!s->job->opt.tag_output) {
        write_all(io, s->out_fd, data, len);
        if (add_newline && data[len - 1] != '\n') {
            write_all(io, s->out_fd, "\n", 1);
        }
        return;
    }
    prefix_len = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", s->rank);
    for (size_t i = 0; i < len; i++) {
        nlines += data[i] == '\n';
    }
    nlines += data[len - 1] != '\n';
    if (reserve_out(io, len + nlines * prefix_len + 1) != 0) {
        write_all(io, s->out_fd, data, len); /* untagged beats lost */
        return;
    }
    for (size_t start = 0; start < len;) {
        const char *nl  = memchr(data + start, '\n', len - start);
        size_t      end = nl != NULL ? (size_t)(nl - data) + 1 : len;

        memcpy(io->out + pos, prefix, prefix_len);
        memcpy(io->out + pos + prefix_len, data + start, end - start);
        pos += prefix_len + end - start;
        start = end;
    }
    if (io->out[pos - 1] != '\n') {
        io->out[pos++] = '\n'; /* a tagged line always ends: the next tag starts a line */
    }
    write_all(io, s->out_fd, io->out, pos);
}

/* ---------------------------------------------------------------------------------------
 * Reading a rank's stream
 */
static void stream_close(gdrun_stream_t *s)
{
    if (s->fd < 0) {
        return;
    }
    emit(s, s->buf, s->len, s->job->opt.tag_output);
    s->len = 0;
    if (s->ev != NULL) {
        event_free(s->ev);
        s->ev = NULL;
    }
    close(s->fd);
    s->fd = -1;
    s->job->io->open_streams--;
}

/* Read what is there; returns 0 at end of stream. */
static int stream_read(gdrun_stream_t *s)
{
    ssize_t n;

    if (s->cap - s->len < IO_READ_CHUNK) {
        size_t cap   = s->len + IO_READ_CHUNK;
        char  *grown = realloc(s->buf, cap);
        if (grown == NULL) {
            return 0; /* out of memory: give the stream up rather than spin on it */
        }
        s->buf = grown;
        s->cap = cap;
    }
    do {
        n = read(s->fd, s->buf + s->len, s->cap - s->len);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return n == 0 || (errno != EAGAIN) ? 0 : -1;
    }
    s->len += (size_t)n;
    /* Forward the complete lines; keep the partial one unless it grew too long. */
    for (size_t i = s->len; i > 0; i--) {
        if (s->buf[i - 1] == '\n') {
            emit(s, s->buf, i, 0);
            memmove(s->buf, s->buf + i, s->len - i);
            s->len -= i;
            break;
        }
    }
    if (s->len >= IO_MAX_LINE) {
        emit(s, s->buf, s->len, s->job->opt.tag_output);
        s->len = 0;
    }
    return 1;
}

static void on_stream_readable(evutil_socket_t fd, short what, void *arg)
{
    gdrun_stream_t *s = arg;

    (void)fd, (void)what;
    if (stream_read(s) == 0) {
        stream_close(s);
        gdrun_job_check_done(s->job);
    }
}

/* ---------------------------------------------------------------------------------------
 * stdin to rank 0
 */
static void stdin_close(struct gdrun_io *io)
{
    if (io->stdin_ev != NULL) {
        event_free(io->stdin_ev);
        io->stdin_ev = NULL;
    }
    if (io->stdin_pipe >= 0) {
        close(io->stdin_pipe);
        io->stdin_pipe = -1;
    }
}

/* Terminal input, typed by a person: rank 0's pipe (64 KiB) holds far more than that, and
 * the write never blocks the loop; if rank 0 lets it fill up, what does not fit is dropped,
 * and said so. */
static void on_stdin_readable(evutil_socket_t fd, short what, void *arg)
{
    gdrun_job_t     *job = arg;
    struct gdrun_io *io  = job->io;
    char             buf[4096];
    ssize_t          n;

    (void)what;
    n = read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    for (ssize_t done = 0; n > 0 && done < n;) {
        ssize_t w = write(io->stdin_pipe, buf + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0 && errno == EAGAIN) {
            if (!io->stdin_dropped) {
                gdrun_msg("warning: rank 0 does not read its stdin; dropping input");
                io->stdin_dropped = 1;
            }
            break;
        }
        if (w <= 0) {
            n = -1;
            break;
        }
        done += w;
    }
    if (n <= 0) {
        stdin_close(io); /* end of input, or rank 0 closed its stdin */
    }
}

static int stdin_setup(gdrun_job_t *job, struct gdrun_io *io)
{
    int fds[2];

    io->stdin_pipe  = -1;
    io->stdin_child = io->devnull;
    if (!isatty(STDIN_FILENO)) {
        io->stdin_mode  = STDIN_INHERIT;
        io->stdin_child = STDIN_FILENO;
        gdrun_debug(job, "stdin: handed to rank 0");
        return 0;
    }
    if (tcgetpgrp(STDIN_FILENO) != getpgrp()) {
        io->stdin_mode = STDIN_NULL; /* gdrun runs in the background: reading would stop it */
        gdrun_debug(job, "stdin: a terminal, and gdrun runs in the background: rank 0 gets /dev/null");
        return 0;
    }
    gdrun_debug(job, "stdin: forwarding the terminal to rank 0");
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return -1;
    }
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    io->stdin_mode  = STDIN_FORWARD;
    io->stdin_child = fds[0];
    io->stdin_pipe  = fds[1];
    io->stdin_ev    = event_new(job->base, STDIN_FILENO, EV_READ | EV_PERSIST, on_stdin_readable, job);
    return io->stdin_ev != NULL && event_add(io->stdin_ev, NULL) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------------------------
 * Set-up per rank
 */
int gdrun_make_dirs(const char *dir)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = '/';
        }
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int gdrun_io_init(gdrun_job_t *job)
{
    struct gdrun_io *io = calloc(1, sizeof(*io));
    int              n  = 2 * job->opt.np;

    if (io == NULL || (io->streams = calloc((size_t)n, sizeof(gdrun_stream_t))) == NULL) {
        free(io);
        gdrun_msg("out of memory");
        return -1;
    }
    job->io = io;
    for (int i = 0; i < n; i++) {
        io->streams[i] = (gdrun_stream_t){.job = job, .rank = i / 2, .fd = -1, .child_fd = -1,
                                          .out_fd = i % 2 ? STDERR_FILENO : STDOUT_FILENO};
    }
    io->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (io->devnull < 0) {
        gdrun_msg("cannot open /dev/null: %s", strerror(errno));
        return -1;
    }
    if (job->opt.output_dir != NULL && gdrun_make_dirs(job->opt.output_dir) != 0) {
        gdrun_msg("--output-dir %s: cannot create it: %s", job->opt.output_dir, strerror(errno));
        return -1;
    }
    if (stdin_setup(job, io) != 0) {
        gdrun_msg("cannot set up stdin forwarding: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int open_output_file(const gdrun_job_t *job, int rank, const char *stream)
{
    char path[PATH_MAX];
    int  fd;

    if (snprintf(path, sizeof(path), "%s/rank.%d.%s", job->opt.output_dir, rank, stream) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        gdrun_msg("--output-dir: cannot create %s: %s", path, strerror(errno));
    }
    return fd;
}

int gdrun_io_child_fds(gdrun_job_t *job, int rank, int fds[3])
{
    struct gdrun_io *io = job->io;

    for (int i = 0; i < 2; i++) {
        gdrun_stream_t *s = &io->streams[2 * rank + i];
        int             p[2];

        if (job->opt.output_dir != NULL) {
            if ((s->child_fd = open_output_file(job, rank, i ? "stderr" : "stdout")) < 0) {
                return -1;
            }
        } else {
            if (pipe2(p, O_CLOEXEC) != 0) {
                return -1;
            }
            fcntl(p[0], F_SETFL, O_NONBLOCK);
            s->fd       = p[0];
            s->child_fd = p[1];
            io->open_streams++;
        }
        fds[1 + i] = s->child_fd;
    }
    fds[0] = rank == 0 ? io->stdin_child : io->devnull;
    return 0;
}

void gdrun_io_started(gdrun_job_t *job, int rank)
{
    struct gdrun_io *io = job->io;

    for (int i = 0; i < 2; i++) {
        gdrun_stream_t *s = &io->streams[2 * rank + i];

        close(s->child_fd);
        s->child_fd = -1;
        if (s->fd >= 0) {
            s->ev = event_new(job->base, s->fd, EV_READ | EV_PERSIST, on_stream_readable, s);
            if (s->ev == NULL || event_add(s->ev, NULL) != 0) {
                gdrun_msg("cannot forward the output of rank %d", rank);
                stream_close(s);
            }
        }
    }
    if (rank == 0 && io->stdin_mode == STDIN_FORWARD) {
        close(io->stdin_child); /* rank 0 has its copy */
        io->stdin_child = io->devnull;
    }
}

void gdrun_io_rank_exited(gdrun_job_t *job, int rank)
{
    if (rank == 0) {
        stdin_close(job->io);
    }
}

int gdrun_io_idle(const gdrun_job_t *job)
{
    return job->io == NULL || job->io->open_streams == 0;
}

void gdrun_io_drain_and_close(gdrun_job_t *job)
{
    for (int i = 0; job->io != NULL && i < 2 * job->opt.np; i++) {
        gdrun_stream_t *s = &job->io->streams[i];

        while (s->fd >= 0 && stream_read(s) > 0) {
        }
        stream_close(s);
    }
}

void gdrun_io_free(gdrun_job_t *job)
{
    struct gdrun_io *io = job->io;

    if (io == NULL) {
        return;
    }
    for (int i = 0; io->streams != NULL && i < 2 * job->opt.np; i++) {
        gdrun_stream_t *s = &io->streams[i];

        stream_close(s);
        if (s->child_fd >= 0) {
            close(s->child_fd);
        }
        free(s->buf);
    }
    stdin_close(io);
    if (io->stdin_mode == STDIN_FORWARD && io->stdin_child != io->devnull && io->stdin_child >= 0) {
        close(io->stdin_child);
    }
    if (io->devnull >= 0) {
        close(io->devnull);
    }
    free(io->streams);
    free(io->out);
    free(io);
    job->io = NULL;
}
