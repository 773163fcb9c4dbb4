#include "sim.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/exec.h"
#include "engine/fast.h"
#include "engine/sched.h"
#include "values.h"
#include "rt_shm.h"

unsigned long sim_total_steps;
unsigned long sim_total_messages;
unsigned long sim_total_fast_runs;

/* A rank in a thread of its own waits at most this long for a peer (seconds). */
#define SIM_THREAD_PATIENCE 30.0

typedef struct sim_msg {
    int             src, dst;
    int             call;   /* which call of a sequence (the real tags' sequence number) */
    uint32_t        slot;
    uint32_t        step;   /* at the posting rank */
    void           *ptr;
    size_t          len;
    struct sim_msg *next;
} sim_msg_t;

struct sim;

typedef struct sim_rank {
    struct sim       *world;
    const sim_case_t *c;       /* the call this is a rank of */
    int               call;
    size_t            salt;    /* added to the test data's element indices: the calls of a
                                  sequence hold different data, so one that reads another's
                                  fails */
    int               rank;
    gdc_coll_args_t   args;
    gdc_coll_sched_t *sched;
    gdc_coll_exec_t   exec;
    char             *sendbuf, *recvbuf, *scratch;
    size_t            send_bytes, recv_bytes;
    uint8_t          *done;    /* [num_steps] message steps completed by a match */
    int               woken;   /* a peer completed one of my steps since my last progress */
    size_t           *counts;  /* alltoallv: sendcounts, sdispls, recvcounts, rdispls (4 * n) */
    char             *at_return; /* recvbuf as it was when the call returned (see returned) */
} sim_rank_t;

/* Pending messages by (src, dst, slot): a hash of lists, so that large schedules match in
 * constant time. */
#define SIM_BUCKETS 8192

typedef struct sim {
    const sim_case_t *c;        /* the first call (all calls have its size and nodes) */
    int               ncalls;
    int              *node_of;  /* [size] */
    int               num_nodes;
    gdc_rt_shm_t     *shms;     /* [size], when the case runs on one node */
    uint64_t         *shm_base; /* [size] counter values each rank's earlier calls used */
    int              *current;  /* [size] the call each rank runs */
    sim_rank_t       *ranks;    /* [ncalls * size] */
    sim_msg_t       **sends, **recvs; /* [SIM_BUCKETS] */
    long              pending;
    char             *why;
    size_t            why_len;
    int               failed;
    int               not_applicable; /* the algorithm does not support the call */
    unsigned          fast_ranks;     /* ranks in threads of their own (see sim_case_t) */
    unsigned          slow_ranks;     /* ranks that pause before each call (see sim_case_t) */
    pthread_t        *threads;        /* [size] */
    int              *thread_done;    /* [size] set by the thread when its calls are over */
    int              *entered;        /* [size] the calls each rank has started (threads write theirs) */
    char             *thread_why;     /* [size * 256] what went wrong in a thread */
} sim_t;

static sim_rank_t *rank_of(sim_t *w, int call, int r)
{
    return &w->ranks[(size_t)call * (size_t)w->c->size + (size_t)r];
}

static int in_thread(const sim_t *w, int r)
{
    return r < 32 && (w->fast_ranks >> r & 1u) != 0;
}

static void fail(sim_t *w, const char *fmt, ...)
{
    va_list ap;

    if (__atomic_fetch_add(&w->failed, 1, __ATOMIC_RELAXED) != 0) { /* threads read it */
        return;
    }
    va_start(ap, fmt);
    vsnprintf(w->why, w->why_len, fmt, ap);
    va_end(ap);
}

static void check_value(sim_t *w, int r, const char *what, size_t i, double got, double want, double tol)
{
    if (fabs(got - want) > tol || (tol == 0 && got != want)) {
        fail(w, "rank %d: %s element %zu is %.17g, expected %.17g (tolerance %g)", r, what, i, got, want, tol);
    }
}

/* ---------------------------------------------------------------------------------------
 * The per-collective layout of user buffers: sizes, inputs, expected outputs
 */

/* alltoallv: how many elements src sends dst (symmetric when in place). */
static size_t v_count(const sim_case_t *c, int src, int dst)
{
    int k = c->in_place ? (src + dst) : (src * 3 + dst * 5);
    return (size_t)((k + (int)c->count) % 7) * (c->count > 0 ? 1 : 0) + (c->count > 3 ? c->count / 4 : 0);
}

static void setup_alltoallv(sim_rank_t *sr)
{
    const sim_case_t *c = sr->c;
    int               n = c->size, r = sr->rank;
    size_t           *sc = sr->counts, *sd = sc + n, *rc = sd + n, *rd = rc + n, at = 0;

    for (int p = 0; p < n; p++) {
        sc[p] = v_count(c, r, p);
        sd[p] = at + 1; /* gaps between blocks: nobody may write them */
        at += sc[p] + 1;
    }
    at = 0;
    for (int p = n - 1; p >= 0; p--) { /* reverse order: displacements need not follow ranks */
        rc[p] = v_count(c, p, r);
        rd[p] = at + 2;
        at += rc[p] + 2;
    }
    if (c->in_place) {
        memcpy(sc, rc, (size_t)n * sizeof(size_t));
        memcpy(sd, rd, (size_t)n * sizeof(size_t));
    }
    sr->args.sendcounts = sc;
    sr->args.sdispls    = sd;
    sr->args.recvcounts = rc;
    sr->args.rdispls    = rd;
}

/* User-visible buffer sizes in elements. */
static void user_sizes(const sim_rank_t *sr, size_t *send, size_t *recv)
{
    const sim_case_t *c = sr->c;
    size_t            n = (size_t)c->size, k = c->count;
    int               root = sr->rank == c->root;

    *send = 0;
    *recv = 0;
    switch (c->algo->coll) {
    case GDC_COLL_BCAST: *recv = k; break;
    case GDC_COLL_REDUCE: *send = k; *recv = root ? k : 0; break;
    case GDC_COLL_ALLREDUCE: *send = k; *recv = k; break;
    case GDC_COLL_ALLGATHER: *send = k; *recv = n * k; break;
    case GDC_COLL_REDUCE_SCATTER: *send = n * k; *recv = c->in_place ? n * k : k; break;
    case GDC_COLL_ALLTOALL: *send = n * k; *recv = n * k; break;
    case GDC_COLL_ALLTOALLV:
        /* to the end of the last block, gaps and empty blocks included */
        for (int p = 0; p < c->size; p++) {
            const gdc_coll_args_t *a = &sr->args;
            *send = a->sdispls[p] + a->sendcounts[p] > *send ? a->sdispls[p] + a->sendcounts[p] : *send;
            *recv = a->rdispls[p] + a->recvcounts[p] > *recv ? a->rdispls[p] + a->recvcounts[p] : *recv;
        }
        break;
    case GDC_COLL_GATHER: *send = k; *recv = root ? n * k : 0; break;
    case GDC_COLL_SCATTER: *send = root ? n * k : 0; *recv = k; break;
    default: break;
    }
}

/* Fill rank sr's user buffers with its input; recvbuf gets a poison pattern except where it
 * holds the input (in place). */
static void fill_inputs(sim_rank_t *sr)
{
    const sim_case_t *c = sr->c;
    size_t            n = (size_t)c->size, k = c->count, send, recv;
    int               r = sr->rank;

    user_sizes(sr, &send, &recv);
    memset(sr->recvbuf, 0xa5, sr->recv_bytes);
    for (size_t i = 0; i < send; i++) {
        test_put(c->dtype, sr->sendbuf, i, test_value(c->dtype, c->op, r, i + sr->salt));
    }
    if (!sr->args.in_place) {
        if (c->algo->coll == GDC_COLL_BCAST && r == c->root) {
            for (size_t i = 0; i < k; i++) {
                test_put(c->dtype, sr->recvbuf, i, test_value(c->dtype, c->op, r, i + sr->salt));
            }
        }
        return;
    }
    switch (c->algo->coll) {
    case GDC_COLL_ALLGATHER:
        for (size_t i = 0; i < k; i++) {
            test_put(c->dtype, sr->recvbuf, (size_t)r * k + i, test_value(c->dtype, c->op, r, i + sr->salt));
        }
        break;
    case GDC_COLL_GATHER:
        for (size_t i = 0; i < k; i++) {
            test_put(c->dtype, sr->recvbuf, (size_t)r * k + i, test_value(c->dtype, c->op, r, i + sr->salt));
        }
        break;
    case GDC_COLL_SCATTER:
        break; /* input stays in sendbuf, the root's block is its output */
    case GDC_COLL_ALLTOALLV:
        memset(sr->recvbuf, 0xa5, sr->recv_bytes);
        for (int p = 0; p < c->size; p++) {
            for (size_t i = 0; i < sr->args.recvcounts[p]; i++) {
                test_put(c->dtype, sr->recvbuf, sr->args.rdispls[p] + i, test_value(c->dtype, c->op, r, sr->args.rdispls[p] + i + sr->salt));
            }
        }
        break;
    default:
        for (size_t i = 0; i < (c->algo->coll == GDC_COLL_REDUCE_SCATTER || c->algo->coll == GDC_COLL_ALLTOALL ? n * k : k);
             i++) {
            test_put(c->dtype, sr->recvbuf, i, test_value(c->dtype, c->op, r, i + sr->salt));
        }
        break;
    }
}

/* Where, in src's input, the element lands that dst receives for src at position i of the
 * block from src (alltoall(v)). */
static size_t a2av_src_index(const sim_case_t *c, sim_t *w, int call, int src, int dst, size_t i)
{
    const gdc_coll_args_t *sa = &rank_of(w, call, src)->args;

    return (c->in_place ? sa->rdispls[dst] : sa->sdispls[dst]) + i;
}

int sim_reduces(gdc_coll_type_t coll)
{
    return coll == GDC_COLL_REDUCE || coll == GDC_COLL_ALLREDUCE || coll == GDC_COLL_REDUCE_SCATTER;
}

/* A reduction's expected elements (and their tolerances), the same on every rank of its
 * call: made once per call, at indices salt + j, j < count (n x count for reduce_scatter).
 * Each rank's check making them again took n^2 x count test values, the most of
 * test_algorithms' time on 64 ranks. */
typedef struct sim_reference {
    double *want, *tol;
} sim_reference_t;

static int make_reference(const sim_case_t *c, size_t salt, sim_reference_t *ref)
{
    size_t len = c->algo->coll == GDC_COLL_REDUCE_SCATTER ? (size_t)c->size * c->count : c->count;

    ref->want = malloc((len + 1) * sizeof(double));
    ref->tol  = malloc((len + 1) * sizeof(double));
    if (ref->want == NULL || ref->tol == NULL) {
        return -1;
    }
    for (size_t j = 0; j < len; j++) {
        ref->want[j] = test_reference(c->dtype, c->op, c->size, salt + j, &ref->tol[j]);
    }
    return 0;
}

static void check_outputs(sim_t *w, sim_rank_t *sr, const sim_reference_t *ref)
{
    const sim_case_t *c = sr->c;
    size_t            n = (size_t)c->size, k = c->count;
    int               r = sr->rank;
    const char       *out = sr->recvbuf;

    switch (c->algo->coll) {
    case GDC_COLL_BCAST:
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "bcast", i, test_get(c->dtype, out, i), test_stored(c->dtype, c->op, c->root, i + sr->salt), 0);
        }
        break;
    case GDC_COLL_REDUCE:
    case GDC_COLL_ALLREDUCE:
        if (c->algo->coll == GDC_COLL_REDUCE && r != c->root) {
            break;
        }
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "reduced", i, test_get(c->dtype, out, i), ref->want[i], ref->tol[i]);
        }
        break;
    case GDC_COLL_REDUCE_SCATTER:
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "reduce_scatter", i, test_get(c->dtype, out, i), ref->want[(size_t)r * k + i],
                        ref->tol[(size_t)r * k + i]);
        }
        break;
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_GATHER:
        if (c->algo->coll == GDC_COLL_GATHER && r != c->root) {
            break;
        }
        for (size_t p = 0; p < n; p++) {
            for (size_t i = 0; i < k; i++) {
                check_value(w, r, "gathered", p * k + i, test_get(c->dtype, out, p * k + i), test_stored(c->dtype, c->op, (int)p, i + sr->salt), 0);
            }
        }
        break;
    case GDC_COLL_SCATTER:
        if (c->in_place && r == c->root) {
            break; /* the root's block stays where it was */
        }
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "scattered", i, test_get(c->dtype, out, i), test_stored(c->dtype, c->op, c->root, (size_t)r * k + i + sr->salt), 0);
        }
        break;
    case GDC_COLL_ALLTOALL:
        for (size_t p = 0; p < n; p++) {
            for (size_t i = 0; i < k; i++) {
                check_value(w, r, "alltoall", p * k + i, test_get(c->dtype, out, p * k + i),
                            test_stored(c->dtype, c->op, (int)p, (size_t)r * k + i + sr->salt), 0);
            }
        }
        break;
    case GDC_COLL_ALLTOALLV: {
        const gdc_coll_args_t *a = &sr->args;
        for (int p = 0; p < c->size; p++) {
            for (size_t i = 0; i < a->recvcounts[p]; i++) {
                check_value(w, r, "alltoallv", a->rdispls[p] + i, test_get(c->dtype, out, a->rdispls[p] + i),
                            test_stored(c->dtype, c->op, p, a2av_src_index(c, w, sr->call, p, r, i) + sr->salt), 0);
            }
        }
        /* the gaps between blocks must be untouched */
        if (!c->in_place) {
            for (int p = 0; p < c->size; p++) {
                const unsigned char *gap = (const unsigned char *)out + (a->rdispls[p] - 2) * a->dsize;
                if (gap[0] != 0xa5) {
                    fail(w, "rank %d: alltoallv wrote into the gap before the block of rank %d", r, p);
                }
            }
        }
        break;
    }
    default:
        break;
    }
}

/* ---------------------------------------------------------------------------------------
 * Schedule checks
 */

/* The bytes of local rank peer's INPUT or OUTPUT (one node: its communicator rank). */
static size_t peer_user_bytes(const sim_rank_t *sr, const gdc_coll_region_t *reg)
{
    gdc_coll_args_t peer = sr->args;

    peer.rank     = reg->peer;
    peer.in_place = 0;
    return reg->buf == GDC_COLL_PEER_INPUT ? gdc_coll_input_bytes(&peer) : gdc_coll_output_bytes(&peer);
}

static int region_ok(const sim_rank_t *sr, const gdc_coll_region_t *reg, size_t in_bytes, size_t out_bytes)
{
    size_t limit;

    if ((reg->buf == GDC_COLL_PEER || gdc_coll_rgn_is_peer_user(reg)) && reg->peer >= sr->args.size) {
        return 0;
    }
    if (gdc_coll_rgn_is_peer_user(reg) && !sr->args.shm_cma && !sr->args.shm_ipc) {
        return 0;
    }
    limit = reg->buf == GDC_COLL_INPUT       ? in_bytes
            : reg->buf == GDC_COLL_OUTPUT    ? out_bytes
            : reg->buf == GDC_COLL_SCRATCH   ? sr->sched->scratch_bytes
            : gdc_coll_rgn_is_peer_user(reg) ? peer_user_bytes(sr, reg)
            : reg->ring                      ? GDC_RT_SHM_RING_STRIDE - GDC_RT_SHM_RING_STAMP /* a slot's data */
                                             : sr->args.shm_bytes;
    return reg->buf <= GDC_COLL_PEER_OUTPUT && reg->offset <= limit && reg->length <= limit - reg->offset;
}

static void check_schedule(sim_t *w, sim_rank_t *sr)
{
    const gdc_coll_sched_t *s   = sr->sched;
    size_t                  in  = gdc_coll_input_bytes(&sr->args);
    size_t                  out = gdc_coll_output_bytes(&sr->args);

    if (sr->args.in_place) {
        in = out = sr->recv_bytes; /* input and output are the same memory */
        if (sr->args.coll == GDC_COLL_ALLGATHER || sr->args.coll == GDC_COLL_GATHER) {
            in = sr->args.count * sr->args.dsize;
        }
        if (sr->args.coll == GDC_COLL_SCATTER) {
            in  = gdc_coll_input_bytes(&sr->args);
            out = sr->args.count * sr->args.dsize;
        }
    }
    for (uint32_t i = 0; i < s->num_steps; i++) {
        const gdc_coll_step_t *st = &s->steps[i];
        int                    n_regions =
            st->kind == GDC_COLL_STEP_REDUCE ? 3
            : st->kind == GDC_COLL_STEP_COPY || st->kind == GDC_COLL_STEP_REDUCE_ALL ? 2
            : st->kind == GDC_COLL_STEP_NOP ? 0 : 1;
        const gdc_coll_region_t *regions[3] = {&st->a, &st->b, &st->c};

        for (int j = 0; j < n_regions; j++) {
            if (!region_ok(sr, regions[j], in, out)) {
                fail(w, "rank %d step %u (%s): region %d (buf %d, offset %zu, length %zu) out of bounds "
                        "(input %zu, output %zu, scratch %zu bytes)",
                     sr->rank, i, gdc_coll_step_kind_name(st->kind), j, regions[j]->buf, regions[j]->offset,
                     regions[j]->length, in, out, s->scratch_bytes);
                return;
            }
        }
        if (st->kind == GDC_COLL_STEP_REDUCE || st->kind == GDC_COLL_STEP_COPY || st->kind == GDC_COLL_STEP_REDUCE_ALL) {
            if (st->b.length != st->a.length || (st->kind == GDC_COLL_STEP_REDUCE && st->c.length != st->a.length)) {
                fail(w, "rank %d step %u (%s): operand lengths differ", sr->rank, i, gdc_coll_step_kind_name(st->kind));
                return;
            }
        }
        if (st->kind == GDC_COLL_STEP_SEND || st->kind == GDC_COLL_STEP_RECV) {
            if (st->peer < 0 || st->peer >= sr->args.size || st->slot >= 4096) {
                fail(w, "rank %d step %u: peer %d / slot %u out of range", sr->rank, i, st->peer, st->slot);
                return;
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------
 * The mailbox transport
 */

static sim_msg_t **bucket(sim_msg_t **table, int call, int src, int dst, uint32_t slot)
{
    return &table[((unsigned)src * 40503u + (unsigned)dst * 2654435761u + slot * 97u + (unsigned)call * 7919u) %
                  SIM_BUCKETS];
}

static sim_msg_t *take(sim_msg_t **list, int call, int src, int dst, uint32_t slot)
{
    for (sim_msg_t **link = list; *link != NULL; link = &(*link)->next) {
        sim_msg_t *m = *link;
        if (m->src == src && m->dst == dst && m->slot == slot && m->call == call) {
            *link = m->next;
            return m;
        }
    }
    return NULL;
}

static int sim_post(gdc_coll_exec_t *exec, uint32_t s, void *ptr, size_t len, gdc_status_t *status)
{
    sim_rank_t            *sr   = exec->transport_ctx;
    sim_t                 *w    = sr->world;
    const gdc_coll_step_t *step = &sr->sched->steps[s];
    int                    is_send = step->kind == GDC_COLL_STEP_SEND;
    int                    src = is_send ? sr->rank : step->peer, dst = is_send ? step->peer : sr->rank;
    int                    call  = sr->call;
    sim_msg_t            **list  = bucket(is_send ? w->sends : w->recvs, call, src, dst, step->slot);
    sim_msg_t             *match = take(bucket(is_send ? w->recvs : w->sends, call, src, dst, step->slot), call, src, dst,
                                        step->slot);
    sim_msg_t             *m;

    *status = 0;
    sim_total_messages += is_send;
    if (match != NULL) {
        const sim_msg_t *snd = is_send ? NULL : match;
        if (match->len != len) {
            fail(w, "%s(%s): rank %d -> %d slot %u: %zu bytes sent, %zu expected", gdc_coll_type_name(sr->args.coll),
                 sr->sched->algo->name, src, dst, step->slot, is_send ? len : match->len, is_send ? match->len : len);
        }
        if (len > 0 && match->len == len) {
            memcpy(is_send ? match->ptr : ptr, snd != NULL ? snd->ptr : ptr, len);
        }
        rank_of(w, call, is_send ? dst : src)->done[match->step] = 1;
        rank_of(w, call, is_send ? dst : src)->woken             = 1;
        w->pending--;
        free(match);
        return 1;
    }
    /* two messages in flight on one slot could match the wrong way round */
    for (m = *list; m != NULL; m = m->next) {
        if (m->src == src && m->dst == dst && m->slot == step->slot && m->call == call) {
            fail(w, "%s(%s): two messages %d -> %d on slot %u at once", gdc_coll_type_name(sr->args.coll),
                 sr->sched->algo->name, src, dst, step->slot);
        }
    }
    m = calloc(1, sizeof(*m));
    m->src  = src;
    m->dst  = dst;
    m->call = call;
    m->slot = step->slot;
    m->step = s;
    m->ptr  = ptr;
    m->len  = len;
    m->next = *list;
    *list   = m;
    w->pending++;
    return 0;
}

static int sim_test(gdc_coll_exec_t *exec, uint32_t s, gdc_status_t *status)
{
    sim_rank_t *sr = exec->transport_ctx;

    *status = 0;
    return sr->done[s];
}

static void sim_cancel(gdc_coll_exec_t *exec, uint32_t s, gdc_status_t status)
{
}

static const gdc_coll_transport_t mailbox = {sim_post, sim_test, sim_cancel};

static void free_table(sim_msg_t **table)
{
    for (int b = 0; table != NULL && b < SIM_BUCKETS; b++) {
        for (sim_msg_t *m = table[b]; m != NULL;) {
            sim_msg_t *next = m->next;
            free(m);
            m = next;
        }
    }
    free(table);
}

static const sim_msg_t *any_message(sim_msg_t **table)
{
    for (int b = 0; b < SIM_BUCKETS; b++) {
        if (table[b] != NULL) {
            return table[b];
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Running calls
 */

static int setup_rank(sim_t *w, sim_rank_t *sr, const sim_case_t *c, int call, int r)
{
    size_t send, recv, ds = gdc_dtype_size(c->dtype);
    gdc_status_t status;

    sr->world          = w;
    sr->c              = c;
    sr->call           = call;
    sr->salt           = (size_t)call;
    sr->rank           = r;
    sr->args.coll      = c->algo->coll;
    sr->args.count     = c->count;
    sr->args.dtype     = c->dtype;
    sr->args.dsize     = ds;
    sr->args.op        = c->op;
    sr->args.root      = c->root;
    sr->args.size      = c->size;
    sr->args.rank      = r;
    sr->args.node_of   = w->node_of;
    sr->args.num_nodes = w->num_nodes;
    sr->args.shm_bytes = w->shms != NULL ? SIM_SHM_BYTES : 0;
    sr->args.shm_cma   = w->shms != NULL; /* every rank is this process: it may read itself */
    /* The ipc algorithms' schedules are for device buffers; here they run on host memory,
     * the ranks (threads of this process) reading each other's buffers directly, as the
     * GPU's ranks do through their CUDA IPC mappings. */
    sr->args.shm_ipc   = w->shms != NULL;
    sr->args.shm_one_gpu = sr->args.shm_ipc && (c->algo->flags & GDC_COLL_ALGO_FLAG_ONE_GPU) != 0;
    sr->args.on_device = (c->algo->flags & GDC_COLL_ALGO_FLAG_IPC) != 0;
    sr->args.node_cores = c->node_cores;
    sr->args.core_cache = c->core_cache;
    sr->args.config    = c->config != NULL ? c->config : &gdc_coll_config_defaults;
    sr->args.in_place  = c->in_place && (c->algo->coll == GDC_COLL_SCATTER
                                            ? gdc_coll_is_in_place(c->algo->coll, r, c->root, NULL, GDC_IN_PLACE)
                                            : gdc_coll_is_in_place(c->algo->coll, r, c->root, GDC_IN_PLACE, NULL));
    sr->counts         = calloc(4 * (size_t)c->size + 1, sizeof(size_t));
    if (c->algo->coll == GDC_COLL_ALLTOALLV) {
        setup_alltoallv(sr);
    }
    if (c->algo->supports != NULL && !c->algo->supports(&sr->args) && c->size > 1) {
        w->not_applicable = 1;
        return -1;
    }
    user_sizes(sr, &send, &recv);
    sr->send_bytes = send * ds;
    sr->recv_bytes = recv * ds;
    sr->sendbuf    = malloc(sr->send_bytes + 1);
    sr->recvbuf    = malloc(sr->recv_bytes + 1);
    fill_inputs(sr);
    status = gdc_coll_sched_build(c->algo, &sr->args, &sr->sched);
    if (status != GDC_SUCCESS) {
        fail(w, "rank %d: building the schedule failed with %d", r, status);
        return -1;
    }
    sim_total_steps += sr->sched->num_steps;
    sr->scratch = malloc(sr->sched->scratch_bytes + 1);
    sr->done    = calloc(sr->sched->num_steps + 1, 1);
    check_schedule(w, sr);
    {
        const void *input;
        void       *output;
        char       *base[GDC_COLL_NUM_BUFS];

        gdc_coll_map_buffers(&sr->args, sr->args.in_place && c->algo->coll != GDC_COLL_SCATTER ? GDC_IN_PLACE : sr->sendbuf,
                             sr->args.in_place && c->algo->coll == GDC_COLL_SCATTER ? GDC_IN_PLACE : sr->recvbuf, &input,
                             &output);
        base[GDC_COLL_INPUT]   = (char *)input;
        base[GDC_COLL_OUTPUT]  = output;
        base[GDC_COLL_SCRATCH] = sr->scratch;
        if (gdc_coll_exec_init(&sr->exec, sr->sched, &mailbox, sr, base, 0) != GDC_SUCCESS) {
            fail(w, "rank %d: executor init failed", r);
            return -1;
        }
    }
    return 0;
}

/* One run's shared-memory segments, kept for the next run of as many ranks: made afresh
 * for every run they took most of test_algorithms' time under AddressSanitizer (each a
 * fresh mapping to fault in and poison). One set is kept for each rank count up to
 * SIM_KEPT_MAX (the sweeps of datatypes change the count every few runs, and a set made
 * again is as slow as a fresh one); larger counts share one place. A run gets them with
 * every counter at zero. */
#define SIM_KEPT_MAX 17
static gdc_rt_shm_t *kept_shms[SIM_KEPT_MAX + 2];
static int           kept_size[SIM_KEPT_MAX + 2];

static int kept_place(int n)
{
    return n <= SIM_KEPT_MAX ? n : SIM_KEPT_MAX + 1;
}

static void shms_drop(int place)
{
    if (kept_shms[place] != NULL) {
        gdc_rt_shm_free_private(kept_shms[place], kept_size[place]);
        free(kept_shms[place]);
        kept_shms[place] = NULL;
    }
}

static gdc_rt_shm_t *shms_take(int n)
{
    int           place = kept_place(n);
    gdc_rt_shm_t *shms  = kept_shms[place];

    if (shms != NULL && kept_size[place] == n) {
        kept_shms[place] = NULL;
        for (int r = 0; r < n; r++) {
            shms[r].epoch = 0;
            memset(shms[r].seen, 0, (size_t)n * GDC_RT_SHM_COUNTERS * sizeof(uint64_t));
            for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
                gdc_rt_shm_raise(gdc_rt_shm_counter(&shms[0], r, c), 0);
            }
            gdc_rt_shm_clear_stamps(&shms[0], r); /* the last run's calls' */
        }
        return shms;
    }
    shms_drop(place);
    shms = calloc((size_t)n, sizeof(gdc_rt_shm_t));
    if (shms != NULL && gdc_rt_shm_init_private(shms, n, SIM_SHM_BYTES) != GDC_SUCCESS) {
        free(shms);
        shms = NULL;
    }
    return shms;
}

static void shms_keep(gdc_rt_shm_t *shms, int n)
{
    int place = kept_place(n);

    shms_drop(place);
    kept_shms[place] = shms;
    kept_size[place] = n;
}

static void teardown(sim_t *w)
{
    for (int i = 0; w->ranks != NULL && i < w->ncalls * w->c->size; i++) {
        sim_rank_t *sr = &w->ranks[i];
        if (sr->sched != NULL) {
            gdc_coll_exec_fini(&sr->exec);
            gdc_coll_sched_free(sr->sched);
        }
        free(sr->sendbuf);
        free(sr->recvbuf);
        free(sr->scratch);
        free(sr->done);
        free(sr->counts);
        free(sr->at_return);
    }
    free(w->ranks);
    free(w->node_of);
    free(w->current);
    free(w->shm_base);
    if (w->shms != NULL) {
        shms_keep(w->shms, w->c->size);
    }
    free_table(w->sends);
    free_table(w->recvs);
    free(w->threads);
    free(w->thread_done);
    free(w->entered);
    free(w->thread_why);
}

static void describe_deadlock(sim_t *w)
{
    char   all[400] = "";
    size_t used     = 0;

    for (int r = 0; r < w->c->size && used < sizeof(all) - 80; r++) {
        sim_rank_t *sr;
        int         s;
        if (in_thread(w, r) || w->current[r] >= w->ncalls) {
            continue; /* a thread's rank is its own thread's to read */
        }
        sr = rank_of(w, w->current[r], r);
        s  = gdc_coll_exec_oldest_inflight(&sr->exec);
        used += (size_t)snprintf(all + used, sizeof(all) - used,
                                 "; rank %d in call %d: %u/%u done, waits in step %d (%s peer %d value %u)", r,
                                 sr->call, sr->exec.num_done, sr->sched->num_steps, s,
                                 s >= 0 ? gdc_coll_step_kind_name(sr->sched->steps[s].kind) : "-",
                                 s >= 0 ? sr->sched->steps[s].peer : -1, s >= 0 ? sr->sched->steps[s].slot : 0);
    }
    fail(w, "%s(%s) deadlock%s", gdc_coll_type_name(w->c->algo->coll), w->c->algo->name, all);
}

int sim_node_of(const sim_case_t *c, int r)
{
    int nodes = c->nodes > 1 ? (c->nodes < c->size ? c->nodes : c->size) : 1;
    int base = c->size / nodes, extra = c->size % nodes;

    if (c->round_robin) {
        return r % nodes;
    }
    /* blocks: the first `extra` nodes hold base + 1 ranks */
    return r < extra * (base + 1) ? r / (base + 1) : extra + (r - extra * (base + 1)) / base;
}

/* A slow rank's pause: long beside a shared-memory call, so its peers (threads, or the
 * schedule ranks the main thread steps while a thread pauses) get far ahead. */
static void pause_if_slow(const sim_t *w, int r)
{
    static const struct timespec pause = {0, 200 * 1000};

    if (r < 32 && (w->slow_ranks >> r & 1u) != 0) {
        nanosleep(&pause, NULL);
    }
}

static void thread_fail(sim_t *w, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Rank r enters call `call`. */
static void enter(sim_t *w, int r, int call)
{
    __atomic_store_n(&w->entered[r], call + 1, __ATOMIC_RELEASE);
}

/* Rank r has left call `call`: a barrier's ranks leave once every rank has entered it. */
static void left(sim_t *w, int r, int call)
{
    if (rank_of(w, call, r)->sched->algo->coll != GDC_COLL_BARRIER) {
        return;
    }
    for (int p = 0; p < w->c->size; p++) {
        if (__atomic_load_n(&w->entered[p], __ATOMIC_ACQUIRE) <= call) {
            if (in_thread(w, r)) {
                thread_fail(w, r, "barrier (call %d): rank %d left before rank %d entered", call, r, p);
            } else {
                fail(w, "barrier (call %d): rank %d left before rank %d entered", call, r, p);
            }
            return;
        }
    }
}

/* Rank r starts its next call (on shared memory: after the counter values its earlier
 * calls used, as in a job). */
static void start_call(sim_t *w, int r)
{
    sim_rank_t *sr = rank_of(w, w->current[r], r);

    pause_if_slow(w, r);
    enter(w, r, w->current[r]);
    if (w->shms != NULL) {
        gdc_coll_exec_set_shm(&sr->exec, &w->shms[r], w->shm_base[r]);
        w->shm_base[r] += sr->sched->shm_epochs;
    }
    gdc_coll_exec_start(&sr->exec);
    sr->woken = 1;
}

/* Progress rank r's current call; when it finishes, it goes on to its next one at once,
 * whatever the others do (so calls overlap across ranks as they do in a job). */
/* The call of sr has returned: its buffers are the user's again. Keep what its output was
 * then (check_all fails if a peer writes into it later) and spoil its send buffer (a peer
 * that still reads it gets wrong values): cross-memory attach lets peers reach both. */
static void returned(sim_rank_t *sr)
{
    if (sr->at_return != NULL) {
        return;
    }
    sr->at_return = malloc(sr->recv_bytes + 1);
    if (sr->at_return != NULL) {
        memcpy(sr->at_return, sr->recvbuf, sr->recv_bytes);
    }
    if (!sr->args.in_place) {
        memset(sr->sendbuf, 0x5a, sr->send_bytes);
    }
}

static int progress_rank(sim_t *w, int r)
{
    sim_rank_t *sr;
    int         moved;

    if (w->current[r] >= w->ncalls) {
        return 0;
    }
    sr        = rank_of(w, w->current[r], r);
    sr->woken = 0;
    moved     = gdc_coll_exec_progress(&sr->exec);
    while (sr->exec.finished) {
        returned(sr);
        left(w, r, w->current[r]);
        if (++w->current[r] >= w->ncalls) {
            break;
        }
        start_call(w, r);
        sr    = rank_of(w, w->current[r], r);
        moved = 1;
    }
    return moved || sr->exec.finished;
}

/* ---------------------------------------------------------------------------------------
 * Ranks in threads of their own (fast_ranks): they run concurrently with the others, as
 * processes do, and meet them only in shared memory.
 */

static int rank_finished(sim_t *w, int r)
{
    return in_thread(w, r) ? __atomic_load_n(&w->thread_done[r], __ATOMIC_ACQUIRE) : w->current[r] >= w->ncalls;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int thread_may_go_on(sim_t *w, double give_up)
{
    return !__atomic_load_n(&w->failed, __ATOMIC_RELAXED) && now_seconds() < give_up;
}

/* The fast paths' wait, in a thread: spin (yielding) on the peers' counters. */
static gdc_status_t thread_wait(const gdc_coll_fast_t *fast, const gdc_coll_fast_want_t *want)
{
    const gdc_rt_shm_t *shm     = fast->shm;
    double              give_up = now_seconds() + SIM_THREAD_PATIENCE;
    unsigned            polls   = 0;

    for (;; polls++) {
        int ready = 1;
        for (int p = 0; p < shm->local_size && ready; p++) {
            if (want->peer < 0 ? p != shm->local_index : p == want->peer) {
                ready = gdc_coll_fast_reached(fast, p, want, polls);
            }
        }
        if (ready) {
            return GDC_SUCCESS;
        }
        if (!thread_may_go_on(fast->waiter, give_up)) {
            return GDC_ERR_TIMEOUT;
        }
        sched_yield();
    }
}

static void thread_fail(sim_t *w, int r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(w->thread_why + (size_t)r * 256, 256, fmt, ap);
    va_end(ap);
}

/* Rank r's call sr on its own: the fast path where the algorithm takes the call, else the
 * schedule (which must have no messages). */
static void thread_call(sim_t *w, int call, int r)
{
    sim_rank_t            *sr   = rank_of(w, call, r);
    const gdc_coll_algo_t *algo = sr->sched->algo;
    gdc_coll_fast_t        fast = {&w->shms[r], w->shm_base[r], thread_wait, w};
    gdc_coll_buffers_t     bufs = {sr->exec.base[GDC_COLL_INPUT], sr->exec.base[GDC_COLL_OUTPUT], NULL};
    gdc_status_t           status;
    double                 give_up;

    pause_if_slow(w, r);
    enter(w, r, call);
    if (algo->run_blocking != NULL && algo->run_blocking(&fast, &sr->args, &bufs, &status)) {
        if (sr->sched->shm_epochs != 1) {
            thread_fail(w, r, "%s(%s): the fast path uses one counter value, its schedule %u",
                        gdc_coll_type_name(algo->coll), algo->name, sr->sched->shm_epochs);
        }
        w->shm_base[r] += 1;
        if (status == GDC_SUCCESS) {
            gdc_coll_fast_finish(&fast);
        }
        sr->exec.status   = status;
        sr->exec.finished = 1;
        returned(sr);
        left(w, r, call);
        __atomic_add_fetch(&sim_total_fast_runs, 1, __ATOMIC_RELAXED);
        return;
    }
    if (sr->sched->num_msgs > 0) {
        thread_fail(w, r, "%s(%s) sends messages: a rank in a thread of its own cannot run it",
                    gdc_coll_type_name(algo->coll), algo->name);
        gdc_coll_exec_abort(&sr->exec, GDC_ERR_INTERNAL);
        return;
    }
    gdc_coll_exec_set_shm(&sr->exec, &w->shms[r], w->shm_base[r]);
    w->shm_base[r] += sr->sched->shm_epochs;
    gdc_coll_exec_start(&sr->exec);
    give_up = now_seconds() + SIM_THREAD_PATIENCE;
    while (!sr->exec.finished) {
        if (gdc_coll_exec_progress(&sr->exec)) {
            give_up = now_seconds() + SIM_THREAD_PATIENCE;
        } else if (!thread_may_go_on(w, give_up)) {
            gdc_coll_exec_abort(&sr->exec, GDC_ERR_TIMEOUT);
        } else {
            sched_yield();
        }
    }
    returned(sr);
    left(w, r, call);
}

typedef struct thread_arg {
    sim_t *w;
    int    r;
} thread_arg_t;

static void *thread_main(void *arg)
{
    thread_arg_t *ta = arg;

    for (int call = 0; call < ta->w->ncalls; call++) {
        thread_call(ta->w, call, ta->r);
    }
    __atomic_store_n(&ta->w->thread_done[ta->r], 1, __ATOMIC_RELEASE);
    return NULL;
}

static int start_threads(sim_t *w, thread_arg_t *args)
{
    for (int r = 0; r < w->c->size; r++) {
        args[r] = (thread_arg_t){w, r};
        if (in_thread(w, r) && pthread_create(&w->threads[r], NULL, thread_main, &args[r]) != 0) {
            fail(w, "cannot start the thread of rank %d", r);
            w->fast_ranks &= (1u << r) - 1; /* the ones started are joined */
            return -1;
        }
    }
    return 0;
}

static void join_threads(sim_t *w)
{
    for (int r = 0; r < w->c->size; r++) {
        if (in_thread(w, r)) {
            pthread_join(w->threads[r], NULL);
        }
    }
    for (int r = 0; r < w->c->size && !w->failed; r++) {
        if (in_thread(w, r) && w->thread_why[(size_t)r * 256] != '\0') {
            fail(w, "rank %d: %s", r, w->thread_why + (size_t)r * 256);
        }
    }
}

static void run_all(sim_t *w, int *order, unsigned seed)
{
    int    n        = w->c->size;
    double deadline = now_seconds() + SIM_THREAD_PATIENCE + 5;

    for (int i = 0; i < n && !w->failed; i++) {
        if (!in_thread(w, order[i])) {
            start_call(w, order[i]);
            progress_rank(w, order[i]); /* finished calls move on at once */
        }
    }
    for (;;) {
        int moved = 0, all_done = 1, threads_running = 0;
        for (int i = 0; i < n && !w->failed; i++) {
            int         r  = order[(i + (int)(seed % 7)) % n];
            sim_rank_t *sr = !in_thread(w, r) && w->current[r] < w->ncalls ? rank_of(w, w->current[r], r) : NULL;
            int finished;
            if (sr != NULL && sr->woken) {
                moved |= progress_rank(w, r);
            }
            /* read once: a thread that finishes between two reads would count as neither
             * running nor done, and its peers' wait for it as a deadlock */
            finished = rank_finished(w, r);
            all_done &= finished;
            threads_running |= in_thread(w, r) && !finished;
        }
        seed = seed * 1103515245u + 12345u;
        if (all_done || w->failed) {
            return;
        }
        if (!moved) {
            /* shared-memory waits are satisfied by a peer's counter, not a message: sweep
             * every rank before calling it a deadlock */
            for (int r = 0; r < n && !moved; r++) {
                moved |= !in_thread(w, r) && progress_rank(w, r);
            }
            if (!moved && threads_running && now_seconds() < deadline) {
                sched_yield(); /* a rank in a thread may yet raise what the others wait for */
                continue;
            }
            if (!moved) {
                describe_deadlock(w);
                return;
            }
        }
        deadline = now_seconds() + SIM_THREAD_PATIENCE + 5;
    }
}

static void check_all(sim_t *w)
{
    if (w->pending != 0) {
        const sim_msg_t *m = any_message(w->sends) != NULL ? any_message(w->sends) : any_message(w->recvs);
        fail(w, "unmatched %s %d -> %d slot %u (%zu bytes) in call %d", any_message(w->sends) != NULL ? "send" : "receive",
             m->src, m->dst, m->slot, m->len, m->call);
    }
    for (int call = 0; call < w->ncalls && !w->failed; call++) {
        sim_reference_t ref = {NULL, NULL};
        if (sim_reduces(w->c[call].algo->coll) && make_reference(&w->c[call], rank_of(w, call, 0)->salt, &ref) != 0) {
            fail(w, "call %d: no memory for its expected elements", call);
        }
        for (int r = 0; r < w->c->size && !w->failed; r++) {
            sim_rank_t *sr = rank_of(w, call, r);
            if (sr->exec.status != GDC_SUCCESS) {
                fail(w, "call %d rank %d: executor status %d", call, r, sr->exec.status);
            }
            check_outputs(w, sr, &ref);
            if (!w->failed && sr->at_return != NULL && memcmp(sr->at_return, sr->recvbuf, sr->recv_bytes) != 0) {
                fail(w, "call %d rank %d: its output changed after the call had returned", call, r);
            }
        }
        free(ref.want);
        free(ref.tol);
        /* one call, one result: every rank of an allreduce holds the same bits */
        if (!w->failed && w->c[call].algo->coll == GDC_COLL_ALLREDUCE) {
            for (int r = 1; r < w->c->size; r++) {
                if (memcmp(rank_of(w, call, r)->recvbuf, rank_of(w, call, 0)->recvbuf, rank_of(w, call, 0)->recv_bytes) != 0) {
                    fail(w, "allreduce results of rank 0 and rank %d differ in their bits", r);
                    break;
                }
            }
        }
    }
}

/* Every run allocates its ranks' segments and buffers and frees them all at its end; glibc
 * gave that memory back to the kernel each time and faulted it in again on the next run,
 * which took more than half of test_algorithms' time. Keep it in the process instead. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    static int kept;

    if (!kept) {
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        kept = 1;
    }
#endif
}

static int uses_segments(const sim_case_t *calls, int ncalls)
{
    for (int i = 0; i < ncalls; i++) {
        if (calls[i].algo->flags & (GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_HIER)) {
            return 1;
        }
    }
    return 0;
}

int sim_run_calls(const sim_case_t *calls, int ncalls, char *why, size_t why_len)
{
    const sim_case_t *c = &calls[0];
    sim_t             w;
    int              *order = malloc((size_t)c->size * sizeof(int));
    unsigned          seed  = c->seed * 2654435761u + 1;
    thread_arg_t     *targs;
    int               result;

    keep_freed_memory();
    memset(&w, 0, sizeof(w));
    w.c         = calls;
    w.ncalls    = ncalls;
    w.why       = why;
    w.why_len   = why_len;
    w.ranks     = calloc((size_t)ncalls * (size_t)c->size, sizeof(sim_rank_t));
    w.node_of   = malloc((size_t)c->size * sizeof(int));
    w.current   = calloc((size_t)c->size, sizeof(int));
    w.shm_base  = calloc((size_t)c->size, sizeof(uint64_t));
    w.num_nodes = c->nodes > 1 ? (c->nodes < c->size ? c->nodes : c->size) : 1;
    for (int r = 0; r < c->size; r++) {
        w.node_of[r] = sim_node_of(c, r);
    }
    if (w.num_nodes == 1) {
        w.shms = shms_take(c->size);
        /* poison: a schedule that reads what nobody wrote gets garbage (where one of the calls
         * uses the segments: the others' schedules have no region in them) */
        for (int r = 0, poison = uses_segments(calls, ncalls); r < c->size && w.shms != NULL && poison; r++) {
            memset(gdc_rt_shm_data(&w.shms[r], r), 0x5c, SIM_SHM_BYTES);
        }
    }
    w.sends       = calloc(SIM_BUCKETS, sizeof(sim_msg_t *));
    w.recvs       = calloc(SIM_BUCKETS, sizeof(sim_msg_t *));
    w.threads     = calloc((size_t)c->size, sizeof(pthread_t));
    w.thread_done = calloc((size_t)c->size, sizeof(int));
    w.entered     = calloc((size_t)c->size, sizeof(int));
    w.thread_why  = calloc((size_t)c->size * 256, 1);
    w.fast_ranks  = c->size < 32 ? c->fast_ranks & ((1u << c->size) - 1) : c->fast_ranks;
    w.slow_ranks  = c->slow_ranks;
    why[0]        = '\0';
    if (w.fast_ranks != 0 && w.shms == NULL) {
        fail(&w, "ranks in threads of their own (fast_ranks) need the ranks on one node");
    }
    for (int call = 0; call < ncalls && !w.failed && !w.not_applicable; call++) {
        for (int r = 0; r < c->size && !w.failed && !w.not_applicable; r++) {
            setup_rank(&w, rank_of(&w, call, r), &calls[call], call, r);
        }
    }
    if (!w.failed && !w.not_applicable) {
        for (int r = 0; r < c->size; r++) {
            order[r] = r;
        }
        /* random start and progress order, from the case's seed */
        for (int r = c->size - 1; r > 0 && c->seed != 0; r--) {
            int j, t;
            seed     = seed * 1103515245u + 12345u;
            j        = (int)((seed >> 8) % (unsigned)(r + 1));
            t        = order[r];
            order[r] = order[j];
            order[j] = t;
        }
        targs = calloc((size_t)c->size, sizeof(thread_arg_t));
        if (start_threads(&w, targs) == 0) {
            run_all(&w, order, seed);
        }
        join_threads(&w);
        free(targs);
        if (!w.failed) {
            check_all(&w);
        }
    }
    result = w.not_applicable ? 1 : w.failed ? -1 : 0;
    teardown(&w);
    free(order);
    return result;
}

int sim_run(const sim_case_t *c, char *why, size_t why_len)
{
    return sim_run_calls(c, 1, why, why_len);
}
