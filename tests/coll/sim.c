#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_exec.h"
#include "coll_sched.h"
#include "values.h"

unsigned long sim_total_steps;
unsigned long sim_total_messages;

typedef struct sim_msg {
    int             src, dst;
    uint32_t        slot;
    uint32_t        step;   /* at the posting rank */
    void           *ptr;
    size_t          len;
    struct sim_msg *next;
} sim_msg_t;

struct sim;

typedef struct sim_rank {
    struct sim       *world;
    int               rank;
    gdc_coll_args_t   args;
    gdc_coll_sched_t *sched;
    gdc_coll_exec_t   exec;
    char             *sendbuf, *recvbuf, *scratch;
    size_t            send_bytes, recv_bytes;
    uint8_t          *done;    /* [num_steps] message steps completed by a match */
    int               woken;   /* a peer completed one of my steps since my last progress */
    size_t           *counts;  /* alltoallv: sendcounts, sdispls, recvcounts, rdispls (4 * n) */
} sim_rank_t;

/* Pending messages by (src, dst, slot): a hash of lists, so that large schedules match in
 * constant time. */
#define SIM_BUCKETS 8192

typedef struct sim {
    const sim_case_t *c;
    int              *node_of;  /* [size] */
    int               num_nodes;
    sim_rank_t       *ranks;
    sim_msg_t       **sends, **recvs; /* [SIM_BUCKETS] */
    long              pending;
    char             *why;
    size_t            why_len;
    int               failed;
} sim_t;

static void fail(sim_t *w, const char *fmt, ...)
{
    va_list ap;

    if (w->failed++) {
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
    const sim_case_t *c = sr->world->c;
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
    const sim_case_t *c = sr->world->c;
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
    const sim_case_t *c = sr->world->c;
    size_t            n = (size_t)c->size, k = c->count, send, recv;
    int               r = sr->rank;

    user_sizes(sr, &send, &recv);
    memset(sr->recvbuf, 0xa5, sr->recv_bytes);
    for (size_t i = 0; i < send; i++) {
        test_put(c->dtype, sr->sendbuf, i, test_value(c->dtype, c->op, r, i));
    }
    if (!sr->args.in_place) {
        if (c->algo->coll == GDC_COLL_BCAST && r == c->root) {
            for (size_t i = 0; i < k; i++) {
                test_put(c->dtype, sr->recvbuf, i, test_value(c->dtype, c->op, r, i));
            }
        }
        return;
    }
    switch (c->algo->coll) {
    case GDC_COLL_ALLGATHER:
        for (size_t i = 0; i < k; i++) {
            test_put(c->dtype, sr->recvbuf, (size_t)r * k + i, test_value(c->dtype, c->op, r, i));
        }
        break;
    case GDC_COLL_GATHER:
        for (size_t i = 0; i < k; i++) {
            test_put(c->dtype, sr->recvbuf, (size_t)r * k + i, test_value(c->dtype, c->op, r, i));
        }
        break;
    case GDC_COLL_SCATTER:
        break; /* input stays in sendbuf, the root's block is its output */
    case GDC_COLL_ALLTOALLV:
        memset(sr->recvbuf, 0xa5, sr->recv_bytes);
        for (int p = 0; p < c->size; p++) {
            for (size_t i = 0; i < sr->args.recvcounts[p]; i++) {
                test_put(c->dtype, sr->recvbuf, sr->args.rdispls[p] + i, test_value(c->dtype, c->op, r, sr->args.rdispls[p] + i));
            }
        }
        break;
    default:
        for (size_t i = 0; i < (c->algo->coll == GDC_COLL_REDUCE_SCATTER || c->algo->coll == GDC_COLL_ALLTOALL ? n * k : k);
             i++) {
            test_put(c->dtype, sr->recvbuf, i, test_value(c->dtype, c->op, r, i));
        }
        break;
    }
}

/* Where, in src's input, the element lands that dst receives for src at position i of the
 * block from src (alltoall(v)). */
static size_t a2av_src_index(const sim_case_t *c, const sim_t *w, int src, int dst, size_t i)
{
    const gdc_coll_args_t *sa = &w->ranks[src].args;

    return (c->in_place ? sa->rdispls[dst] : sa->sdispls[dst]) + i;
}

static void check_outputs(sim_t *w, sim_rank_t *sr)
{
    const sim_case_t *c = w->c;
    size_t            n = (size_t)c->size, k = c->count;
    int               r = sr->rank;
    const char       *out = sr->recvbuf;
    double            tol, want;

    switch (c->algo->coll) {
    case GDC_COLL_BCAST:
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "bcast", i, test_get(c->dtype, out, i), test_stored(c->dtype, c->op, c->root, i), 0);
        }
        break;
    case GDC_COLL_REDUCE:
    case GDC_COLL_ALLREDUCE:
        if (c->algo->coll == GDC_COLL_REDUCE && r != c->root) {
            break;
        }
        for (size_t i = 0; i < k; i++) {
            want = test_reference(c->dtype, c->op, c->size, i, &tol);
            check_value(w, r, "reduced", i, test_get(c->dtype, out, i), want, tol);
        }
        break;
    case GDC_COLL_REDUCE_SCATTER:
        for (size_t i = 0; i < k; i++) {
            want = test_reference(c->dtype, c->op, c->size, (size_t)r * k + i, &tol);
            check_value(w, r, "reduce_scatter", i, test_get(c->dtype, out, i), want, tol);
        }
        break;
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_GATHER:
        if (c->algo->coll == GDC_COLL_GATHER && r != c->root) {
            break;
        }
        for (size_t p = 0; p < n; p++) {
            for (size_t i = 0; i < k; i++) {
                check_value(w, r, "gathered", p * k + i, test_get(c->dtype, out, p * k + i), test_stored(c->dtype, c->op, (int)p, i), 0);
            }
        }
        break;
    case GDC_COLL_SCATTER:
        if (c->in_place && r == c->root) {
            break; /* the root's block stays where it was */
        }
        for (size_t i = 0; i < k; i++) {
            check_value(w, r, "scattered", i, test_get(c->dtype, out, i), test_stored(c->dtype, c->op, c->root, (size_t)r * k + i), 0);
        }
        break;
    case GDC_COLL_ALLTOALL:
        for (size_t p = 0; p < n; p++) {
            for (size_t i = 0; i < k; i++) {
                check_value(w, r, "alltoall", p * k + i, test_get(c->dtype, out, p * k + i),
                            test_stored(c->dtype, c->op, (int)p, (size_t)r * k + i), 0);
            }
        }
        break;
    case GDC_COLL_ALLTOALLV: {
        const gdc_coll_args_t *a = &sr->args;
        for (int p = 0; p < c->size; p++) {
            for (size_t i = 0; i < a->recvcounts[p]; i++) {
                check_value(w, r, "alltoallv", a->rdispls[p] + i, test_get(c->dtype, out, a->rdispls[p] + i),
                            test_stored(c->dtype, c->op, p, a2av_src_index(c, w, p, r, i)), 0);
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

static int region_ok(const sim_rank_t *sr, const gdc_coll_region_t *reg, size_t in_bytes, size_t out_bytes)
{
    size_t limit = reg->buf == GDC_COLL_INPUT    ? in_bytes
                   : reg->buf == GDC_COLL_OUTPUT ? out_bytes
                                                 : sr->sched->scratch_bytes;

    return reg->buf < GDC_COLL_NUM_BUFS && reg->offset <= limit && reg->length <= limit - reg->offset;
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
            st->kind == GDC_COLL_STEP_REDUCE ? 3 : st->kind == GDC_COLL_STEP_COPY ? 2 : st->kind == GDC_COLL_STEP_NOP ? 0 : 1;
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
        if (st->kind == GDC_COLL_STEP_REDUCE || st->kind == GDC_COLL_STEP_COPY) {
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

static sim_msg_t **bucket(sim_msg_t **table, int src, int dst, uint32_t slot)
{
    return &table[((unsigned)src * 40503u + (unsigned)dst * 2654435761u + slot * 97u) % SIM_BUCKETS];
}

static sim_msg_t *take(sim_msg_t **list, int src, int dst, uint32_t slot)
{
    for (sim_msg_t **link = list; *link != NULL; link = &(*link)->next) {
        sim_msg_t *m = *link;
        if (m->src == src && m->dst == dst && m->slot == slot) {
            *link = m->next;
            return m;
        }
    }
    return NULL;
}

static int sim_post(gdc_coll_exec_t *exec, uint32_t s, void *ptr, size_t len, int *status)
{
    sim_rank_t            *sr   = exec->transport_ctx;
    sim_t                 *w    = sr->world;
    const gdc_coll_step_t *step = &sr->sched->steps[s];
    int                    is_send = step->kind == GDC_COLL_STEP_SEND;
    int                    src = is_send ? sr->rank : step->peer, dst = is_send ? step->peer : sr->rank;
    sim_msg_t            **list  = bucket(is_send ? w->sends : w->recvs, src, dst, step->slot);
    sim_msg_t             *match = take(bucket(is_send ? w->recvs : w->sends, src, dst, step->slot), src, dst, step->slot);
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
        w->ranks[is_send ? dst : src].done[match->step] = 1;
        w->ranks[is_send ? dst : src].woken             = 1;
        w->pending--;
        free(match);
        return 1;
    }
    /* two messages in flight on one slot could match the wrong way round */
    for (m = *list; m != NULL; m = m->next) {
        if (m->src == src && m->dst == dst && m->slot == step->slot) {
            fail(w, "%s(%s): two messages %d -> %d on slot %u at once", gdc_coll_type_name(sr->args.coll),
                 sr->sched->algo->name, src, dst, step->slot);
        }
    }
    m = calloc(1, sizeof(*m));
    m->src  = src;
    m->dst  = dst;
    m->slot = step->slot;
    m->step = s;
    m->ptr  = ptr;
    m->len  = len;
    m->next = *list;
    *list   = m;
    w->pending++;
    return 0;
}

static int sim_test(gdc_coll_exec_t *exec, uint32_t s, int *status)
{
    sim_rank_t *sr = exec->transport_ctx;

    *status = 0;
    return sr->done[s];
}

static void sim_cancel(gdc_coll_exec_t *exec, uint32_t s, int status)
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
 * Running a case
 */

static int setup_rank(sim_t *w, sim_rank_t *sr, int r)
{
    const sim_case_t *c = w->c;
    size_t            send, recv, ds = gdc_dtype_size(c->dtype);
    int               status;

    sr->world         = w;
    sr->rank          = r;
    sr->args.coll     = c->algo->coll;
    sr->args.count    = c->count;
    sr->args.dtype    = c->dtype;
    sr->args.dsize    = ds;
    sr->args.op       = c->op;
    sr->args.root     = c->root;
    sr->args.size     = c->size;
    sr->args.rank     = r;
    sr->args.node_of  = w->node_of;
    sr->args.num_nodes = w->num_nodes;
    sr->args.in_place = c->in_place && (c->algo->coll == GDC_COLL_SCATTER
                                            ? gdc_coll_is_in_place(c->algo->coll, r, c->root, NULL, GDC_IN_PLACE)
                                            : gdc_coll_is_in_place(c->algo->coll, r, c->root, GDC_IN_PLACE, NULL));
    sr->counts        = calloc(4 * (size_t)c->size + 1, sizeof(size_t));
    if (c->algo->coll == GDC_COLL_ALLTOALLV) {
        setup_alltoallv(sr);
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

static void teardown(sim_t *w)
{
    for (int r = 0; r < w->c->size; r++) {
        sim_rank_t *sr = &w->ranks[r];
        if (sr->sched != NULL) {
            gdc_coll_exec_fini(&sr->exec);
            gdc_coll_sched_free(sr->sched);
        }
        free(sr->sendbuf);
        free(sr->recvbuf);
        free(sr->scratch);
        free(sr->done);
        free(sr->counts);
    }
    free(w->ranks);
    free(w->node_of);
    free_table(w->sends);
    free_table(w->recvs);
}

static void describe_deadlock(sim_t *w)
{
    for (int r = 0; r < w->c->size; r++) {
        sim_rank_t *sr = &w->ranks[r];
        if (!sr->exec.finished) {
            int s = gdc_coll_exec_oldest_inflight(&sr->exec);
            fail(w, "%s(%s) deadlock: rank %d has %u of %u steps done; oldest in flight: step %d (%s with %d slot %u)",
                 gdc_coll_type_name(sr->args.coll), sr->sched->algo->name, r, sr->exec.num_done, sr->sched->num_steps, s,
                 s >= 0 ? gdc_coll_step_kind_name(sr->sched->steps[s].kind) : "-", s >= 0 ? sr->sched->steps[s].peer : -1,
                 s >= 0 ? sr->sched->steps[s].slot : 0);
            return;
        }
    }
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

int sim_run(const sim_case_t *c, char *why, size_t why_len)
{
    sim_t     w;
    int      *order = malloc((size_t)c->size * sizeof(int));
    unsigned  seed  = c->seed * 2654435761u + 1;
    int       all_done;

    memset(&w, 0, sizeof(w));
    w.c       = c;
    w.why     = why;
    w.why_len = why_len;
    w.ranks   = calloc((size_t)c->size, sizeof(sim_rank_t));
    w.node_of = malloc((size_t)c->size * sizeof(int));
    w.num_nodes = c->nodes > 1 ? (c->nodes < c->size ? c->nodes : c->size) : 1;
    for (int r = 0; r < c->size; r++) {
        w.node_of[r] = sim_node_of(c, r);
    }
    w.sends   = calloc(SIM_BUCKETS, sizeof(sim_msg_t *));
    w.recvs   = calloc(SIM_BUCKETS, sizeof(sim_msg_t *));
    why[0]    = '\0';
    for (int r = 0; r < c->size && !w.failed; r++) {
        setup_rank(&w, &w.ranks[r], r);
    }
    for (int r = 0; r < c->size; r++) {
        order[r] = r;
    }
    /* random start and progress order, from the case's seed */
    for (int r = c->size - 1; r > 0 && c->seed != 0; r--) {
        int j;
        seed     = seed * 1103515245u + 12345u;
        j        = (int)((seed >> 8) % (unsigned)(r + 1));
        int t    = order[r];
        order[r] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < c->size && !w.failed; i++) {
        gdc_coll_exec_start(&w.ranks[order[i]].exec);
    }
    /* after the start, a rank has news only when a peer completed one of its messages */
    for (;;) {
        int moved = 0;
        all_done  = 1;
        for (int i = 0; i < c->size && !w.failed; i++) {
            sim_rank_t *sr = &w.ranks[order[(i + (int)(seed % 7)) % c->size]];
            if (sr->woken) {
                sr->woken = 0;
                moved |= gdc_coll_exec_progress(&sr->exec);
            }
            all_done &= sr->exec.finished;
        }
        seed = seed * 1103515245u + 12345u;
        if (all_done || w.failed) {
            break;
        }
        if (!moved) {
            int woken = 0;
            for (int r = 0; r < c->size; r++) {
                woken |= w.ranks[r].woken;
            }
            if (!woken) {
                describe_deadlock(&w);
                break;
            }
        }
    }
    if (!w.failed && w.pending != 0) {
        const sim_msg_t *m = any_message(w.sends) != NULL ? any_message(w.sends) : any_message(w.recvs);
        fail(&w, "unmatched %s %d -> %d slot %u (%zu bytes)", any_message(w.sends) != NULL ? "send" : "receive",
             m->src, m->dst, m->slot, m->len);
    }
    for (int r = 0; r < c->size && !w.failed; r++) {
        if (w.ranks[r].exec.status != GDC_SUCCESS) {
            fail(&w, "rank %d: executor status %d", r, w.ranks[r].exec.status);
        }
        check_outputs(&w, &w.ranks[r]);
    }
    /* one call, one result: every rank of an allreduce holds the same bits */
    if (!w.failed && c->algo->coll == GDC_COLL_ALLREDUCE) {
        for (int r = 1; r < c->size; r++) {
            if (memcmp(w.ranks[r].recvbuf, w.ranks[0].recvbuf, w.ranks[0].recv_bytes) != 0) {
                fail(&w, "allreduce results of rank 0 and rank %d differ in their bits", r);
                break;
            }
        }
    }
    teardown(&w);
    free(order);
    return w.failed ? -1 : 0;
}
