/*
 * A gdc program for gdrun's tests: each subcommand makes the ranks behave one way (pass,
 * fail, hang, print a lot) or checks what they were given (environment, PMIx job
 * information, what gdc_rt_boot made of it).
 *
 *   gdrun_probe hello                     init, a token around the ring, finalize
 *   gdrun_probe exit RANK CODE            RANK exits with CODE after init; the others hang
 *   gdrun_probe signal RANK SIG           RANK raises SIG after init; the others hang
 *   gdrun_probe abort RANK CODE           RANK calls gdc_abort(CODE); the others hang
 *   gdrun_probe nofinalize RANK           RANK exits 0 without gdc_finalize; the others finalize
 *   gdrun_probe hang                      init, then wait for a message that never comes
 *   gdrun_probe output LINES BYTES        LINES lines of BYTES bytes to stdout and to stderr,
 *                                         each line written in pieces
 *   gdrun_probe env NAME VALUE            every rank checks that NAME is VALUE
 *   gdrun_probe layout NODES              checks the node layout (also --emulate-nodes NODES)
 *   gdrun_probe stdin LINES               rank 0 reads LINES lines from stdin, the others EOF
 *   gdrun_probe binding                   prints "binding R cpus LIST locality STRING|none"
 *
 * Extra arguments after those are ignored (the tests use one to find their processes).
 * Exit 0 when every check passed.
 */
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "../common/check.h"
#include "gdc_rt.h"

static int rank, size;

static void start(void)
{
    CHECK_OK(gdc_init(NULL, NULL));
    CHECK_OK(gdc_comm_rank(GDC_COMM_WORLD, &rank));
    CHECK_OK(gdc_comm_size(GDC_COMM_WORLD, &size));
    check_rank = rank;
}

static int arg_int(char **argv, int argc, int i)
{
    CHECK(i < argc, "argument %d missing", i);
    return atoi(argv[i]);
}

/* Wait for a message from itself that it never sends: the rank is alive, in gdc's
 * progress loop, and goes nowhere, whatever its peers do. */
static void hang(void)
{
    int dummy;

    printf("rank %d ready\n", rank);
    fflush(stdout);
    gdc_recv(&dummy, 1, GDC_INT32, rank, 4242, GDC_COMM_WORLD);
    fprintf(stderr, "FAIL rank %d: the receive that should hang returned\n", rank);
    exit(3);
}

static void ring(void)
{
    int64_t token = 0;

    if (size == 1) {
        return;
    }
    if (rank == 0) {
        CHECK_OK(gdc_send(&token, 1, GDC_INT64, 1, 7, GDC_COMM_WORLD));
        CHECK_OK(gdc_recv(&token, 1, GDC_INT64, size - 1, 7, GDC_COMM_WORLD));
        CHECK(token == (int64_t)size * (size - 1) / 2, "token %lld", (long long)token);
    } else {
        CHECK_OK(gdc_recv(&token, 1, GDC_INT64, rank - 1, 7, GDC_COMM_WORLD));
        token += rank;
        CHECK_OK(gdc_send(&token, 1, GDC_INT64, (rank + 1) % size, 7, GDC_COMM_WORLD));
    }
}

static void write_piece(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        CHECK(n > 0, "write to fd %d failed", fd);
        data += n;
        len -= (size_t)n;
    }
}

/* Lines "<stream> <rank> <i> xxxx...\n" of exactly `bytes` bytes, each written in three
 * pieces so that gdrun sees partial lines. */
static void output(int lines, int bytes)
{
    char *line = check_malloc((size_t)bytes + 64);

    for (int i = 0; i < lines; i++) {
        for (int fd = 1; fd <= 2; fd++) {
            int head = snprintf(line, 64, "%s %d %d ", fd == 1 ? "out" : "err", rank, i);
            int len  = bytes > head + 1 ? bytes : head + 1;

            memset(line + head, 'x', (size_t)(len - head - 1));
            line[len - 1] = '\n';
            write_piece(fd, line, (size_t)head);
            write_piece(fd, line + head, (size_t)(len - head) / 2);
            write_piece(fd, line + head + (len - head) / 2, (size_t)(len - head) - (size_t)(len - head) / 2);
        }
    }
    free(line);
}

static unsigned long pmix_uint(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    unsigned long out = 0;

    CHECK(PMIx_Get(proc, key, NULL, 0, &val) == PMIX_SUCCESS && val != NULL, "PMIx_Get %s failed", key);
    switch (val->type) {
    case PMIX_UINT32: out = val->data.uint32; break;
    case PMIX_UINT16: out = val->data.uint16; break;
    case PMIX_PROC_RANK: out = val->data.rank; break;
    default: CHECK(0, "%s has PMIx type %d", key, val->type);
    }
    PMIX_VALUE_RELEASE(val);
    return out;
}

static char *pmix_string(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    char         *out;

    CHECK(PMIx_Get(proc, key, NULL, 0, &val) == PMIX_SUCCESS && val != NULL, "PMIx_Get %s failed", key);
    CHECK(val->type == PMIX_STRING, "%s has PMIx type %d", key, val->type);
    out = strdup(val->data.string);
    PMIX_VALUE_RELEASE(val);
    return out;
}

/* What gdrun's block distribution should give for rank r among nodes nodes. */
static void expected_place(int r, int nodes, int *node, int *first, int *count)
{
    int start = 0;

    for (int k = 0; k < nodes; k++) {
        int n = size / nodes + (k < size % nodes ? 1 : 0);
        if (r < start + n) {
            *node  = k;
            *first = start;
            *count = n;
            return;
        }
        start += n;
    }
    CHECK(0, "rank %d is on no node", r);
}

/* What PMIx derives from gdrun's node and proc maps: the job's nodes, and the ranks on
 * my node. */
static void check_maps(int nodes, const char *host, int node, int first, int count)
{
    char        *list = NULL, *p;
    pmix_proc_t *procs = NULL;
    size_t       nprocs = 0;
    int          listed = 0, mine = 0;

    CHECK(PMIx_Resolve_nodes(gdc_rt_boot.nspace, &list) == PMIX_SUCCESS && list != NULL,
          "PMIx_Resolve_nodes failed");
    for (p = strtok(list, ","); p != NULL; p = strtok(NULL, ",")) {
        listed++;
        mine += strcmp(p, host) == 0;
    }
    CHECK(listed == nodes && mine == 1, "PMIx_Resolve_nodes lists %d nodes (%d named %s), expected %d", listed,
          mine, host, nodes);
    free(list);
    CHECK(PMIx_Resolve_peers(host, gdc_rt_boot.nspace, &procs, &nprocs) == PMIX_SUCCESS,
          "PMIx_Resolve_peers(%s) failed", host);
    CHECK(nprocs == (size_t)count, "PMIx_Resolve_peers(%s): %zu ranks, expected %d on node %d", host, nprocs,
          count, node);
    for (size_t i = 0; i < nprocs; i++) {
        CHECK((int)procs[i].rank >= first && (int)procs[i].rank < first + count,
              "PMIx_Resolve_peers(%s) lists rank %u", host, procs[i].rank);
    }
    PMIX_PROC_FREE(procs, nprocs);
}

static void check_layout(int nodes)
{
    const gdc_rt_boot_t *b = &gdc_rt_boot;
    pmix_proc_t          me, job;
    int                  node, first, count;
    char                 peers[4096] = "", *got_peers, *host;

    expected_place(rank, nodes, &node, &first, &count);
    /* What gdc made of it. */
    CHECK(b->num_nodes == nodes, "gdc sees %d nodes, expected %d", b->num_nodes, nodes);
    CHECK(b->local_size == count, "local size %d, expected %d", b->local_size, count);
    CHECK(b->local_rank == rank - first, "local rank %d, expected %d", b->local_rank, rank - first);
    for (int r = 0; r < size; r++) {
        int rn, rf, rc;
        expected_place(r, nodes, &rn, &rf, &rc);
        CHECK((b->node_of[r] == b->node_of[rank]) == (rn == node), "rank %d is %s my node", r,
              b->node_of[r] == b->node_of[rank] ? "on" : "not on");
    }
    for (int n = 0; n < b->num_nodes; n++) {
        for (int m = n + 1; m < b->num_nodes; m++) {
            CHECK(strcmp(b->node_names[n], b->node_names[m]) != 0, "nodes %d and %d are both %s", n, m,
                  b->node_names[n]);
        }
    }
    /* What PMIx says directly. */
    PMIX_LOAD_PROCID(&me, b->nspace, (pmix_rank_t)rank);
    PMIX_LOAD_PROCID(&job, b->nspace, PMIX_RANK_WILDCARD);
    CHECK(pmix_uint(&job, PMIX_JOB_SIZE) == (unsigned long)size, "PMIX_JOB_SIZE");
    CHECK(pmix_uint(&job, PMIX_UNIV_SIZE) == (unsigned long)size, "PMIX_UNIV_SIZE");
    CHECK(pmix_uint(&me, PMIX_NODEID) == (unsigned long)node, "PMIX_NODEID %lu, expected %d",
          pmix_uint(&me, PMIX_NODEID), node);
    CHECK(pmix_uint(&me, PMIX_LOCAL_RANK) == (unsigned long)(rank - first), "PMIX_LOCAL_RANK");
    CHECK(pmix_uint(&me, PMIX_NODE_RANK) == (unsigned long)(rank - first), "PMIX_NODE_RANK");
    CHECK(pmix_uint(&job, PMIX_LOCAL_SIZE) == (unsigned long)count, "PMIX_LOCAL_SIZE %lu, expected %d",
          pmix_uint(&job, PMIX_LOCAL_SIZE), count);
    CHECK(pmix_uint(&job, PMIX_NUM_NODES) == (unsigned long)nodes, "PMIX_NUM_NODES");
    for (int r = first; r < first + count; r++) {
        snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%d", r > first ? "," : "", r);
    }
    got_peers = pmix_string(&job, PMIX_LOCAL_PEERS);
    CHECK(strcmp(got_peers, peers) == 0, "PMIX_LOCAL_PEERS '%s', expected '%s'", got_peers, peers);
    host = pmix_string(&me, PMIX_HOSTNAME);
    CHECK(strcmp(host, b->node_names[b->node_of[rank]]) == 0, "PMIX_HOSTNAME %s, gdc says %s", host,
          b->node_names[b->node_of[rank]]);
    if (nodes > 1) {
        char suffix[32];
        snprintf(suffix, sizeof(suffix), "-n%d", node);
        CHECK(strlen(host) > strlen(suffix) && strcmp(host + strlen(host) - strlen(suffix), suffix) == 0,
              "host name %s does not end in %s", host, suffix);
    }
    CHECK(strcmp(b->launcher, "gdrun") == 0, "launcher %s", b->launcher);
    check_maps(nodes, host, node, first, count);
    printf("layout rank %d: node %d (%s) local rank %d of %d, peers %s\n", rank, node, host, b->local_rank,
           b->local_size, got_peers);
    free(got_peers);
    free(host);
}

static void check_stdin(int lines)
{
    char buf[4096];
    int  got = 0;

    if (rank == 0) {
        while (fgets(buf, sizeof(buf), stdin) != NULL) {
            got++;
        }
        CHECK(got == lines, "rank 0 read %d lines of stdin, expected %d", got, lines);
    } else {
        CHECK(fgets(buf, sizeof(buf), stdin) == NULL, "rank %d read stdin: %s", rank, buf);
    }
}

/* The cpus this rank may run on, as a list like hwloc writes it ("0-3,6"). */
static void print_binding(void)
{
    cpu_set_t     set;
    pmix_proc_t   me;
    pmix_value_t *val = NULL;
    char          list[1024] = "";
    int           n = 0;

    CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity failed");
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        int end = cpu;
        if (!CPU_ISSET(cpu, &set)) {
            continue;
        }
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set)) {
            end++;
        }
        n += snprintf(list + n, sizeof(list) - (size_t)n, "%s%d", n ? "," : "", cpu);
        if (end > cpu) {
            n += snprintf(list + n, sizeof(list) - (size_t)n, "-%d", end);
        }
        cpu = end;
    }
    PMIX_LOAD_PROCID(&me, gdc_rt_boot.nspace, (pmix_rank_t)rank);
    if (PMIx_Get(&me, PMIX_LOCALITY_STRING, NULL, 0, &val) == PMIX_SUCCESS && val != NULL &&
        val->type == PMIX_STRING) {
        printf("binding %d cpus %s locality %s\n", rank, list, val->data.string);
    } else {
        printf("binding %d cpus %s locality none\n", rank, list);
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "hello";

    start();
    if (strcmp(cmd, "hello") == 0) {
        ring();
    } else if (strcmp(cmd, "exit") == 0) {
        if (rank == arg_int(argv, argc, 2)) {
            exit(arg_int(argv, argc, 3));
        }
        hang();
    } else if (strcmp(cmd, "signal") == 0) {
        if (rank == arg_int(argv, argc, 2)) {
            raise(arg_int(argv, argc, 3));
        }
        hang();
    } else if (strcmp(cmd, "abort") == 0) {
        if (rank == arg_int(argv, argc, 2)) {
            gdc_abort(GDC_COMM_WORLD, arg_int(argv, argc, 3));
        }
        hang();
    } else if (strcmp(cmd, "nofinalize") == 0) {
        if (rank == arg_int(argv, argc, 2)) {
            exit(0);
        }
    } else if (strcmp(cmd, "hang") == 0) {
        hang();
    } else if (strcmp(cmd, "output") == 0) {
        output(arg_int(argv, argc, 2), arg_int(argv, argc, 3));
    } else if (strcmp(cmd, "env") == 0) {
        const char *value = getenv(argc > 2 ? argv[2] : "");
        CHECK(argc > 3 && value != NULL && strcmp(value, argv[3]) == 0, "%s is '%s'", argv[2],
              value ? value : "(unset)");
    } else if (strcmp(cmd, "layout") == 0) {
        check_layout(arg_int(argv, argc, 2));
    } else if (strcmp(cmd, "binding") == 0) {
        print_binding();
    } else if (strcmp(cmd, "stdin") == 0) {
        check_stdin(arg_int(argv, argc, 2));
    } else {
        CHECK(0, "unknown subcommand %s", cmd);
    }
    CHECK_OK(gdc_finalize());
    return 0;
}
