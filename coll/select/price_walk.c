/*
 * A walk through a small call's messages in the order they leave (price_phases.h,
 * gdc_coll_price_walk): every rank's sends, receives and local steps, each message booked
 * on the links it takes as the simulator books it (model.c: a rank's own link inside a
 * node, the NICs of the two nodes between them, a receiving link's first free gaps). The
 * closed forms price rounds by bits round by round; where the ranks reach a later round
 * at different times, a message of the later round can take a partner's NIC before the
 * messages of the round that partner still waits for, and only the order in which they
 * leave prices that (allgather recursive_doubling of 1 MiB on 16 ranks on 3 nodes of
 * dgx-h100 came out at 0.70 of the simulator's time). No schedule is built: each
 * algorithm's program says its steps (price_algos.c). Bounded to GDC_COLL_WALK_RANKS
 * ranks: 1 to 5 microseconds a price on 16 ranks (a pairwise exchange's 14), 5 to 40 on
 * 64 (bench/RESULTS.md, 2026-12-07 18:00).
 */
#include <stdlib.h>
#include <string.h>

#include "select/heap.h"
#include "select/price_phases.h"

/* The spans a link is busy in that end after the walk's present, kept per link: more
 * than this and the walk gives up (the closed form prices the call). */
#define WALK_SPANS 16

typedef struct walk_link {
    uint32_t        len;
    gdc_coll_span_t span[WALK_SPANS];
} walk_link_t;

typedef struct walk_rank {
    int                       node, nic; /* nic: its NIC's index among the walk's links */
    int                       order;     /* its place from the rank the simulator starts from
                                            (a rooted call's root): at the same time, the
                                            simulator runs the first steps in that order */
    const gdc_coll_walk_op_t *op;        /* its program */
    double                   *sent;      /* when each of its sends is in */
    int                       steps, pc; /* pc: the next step */
    int                       done;
    int                       queued;    /* in the heap, at a send */
    double                    have;      /* when what its next step waits for is there */
    double                    ready;     /* queued: when its send may leave */
    long                      seq;       /* the latest booking that step waited for: at the same
                                            time, the simulator runs steps in the order they
                                            became ready */
    double                    cpu_free, tx_free;
    double                    delivered; /* when its sends so far are all in */
    double                    posted;    /* when its receives were posted (0, or its last join) */
    int                       cur;       /* queued: the send of its run of sends that leaves next */
    int                       inbox_len; /* messages in, not taken yet (room for `steps`) */
    int                      *inbox_src;
    double                   *inbox_at;
    long                     *inbox_seq;
} walk_rank_t;

typedef struct walk {
    const gdc_coll_price_t *p;
    walk_rank_t            *rank;
    walk_link_t            *rx;     /* each rank's own link in */
    walk_link_t            *nic_tx; /* each NIC the ranks use */
    walk_link_t            *nic_rx;
    struct walk_key        *heap;   /* ranks whose next step is a send, by when it is ready */
    int                     heap_len;
    int                     steps;  /* room for a rank's program */
    double                  now, finish;
    long                    booked;
    int                     first;  /* the rank the simulator starts from: a rooted call's root */
    int                     failed;
} walk_t;

/* gdc_coll_spans_book on one of the walk's links (past WALK_SPANS, the walk gives up). */
static double walk_book(walk_t *w, walk_link_t *link, double earliest, double len)
{
    if (link->len == WALK_SPANS) {
        w->failed = 1;
        return earliest + len;
    }
    return gdc_coll_spans_book(link->span, &link->len, w->now, earliest, len);
}

/* When a message of bytes from a, leaving at t, is all there at b (model.c's arrival). */
static double walk_arrival(walk_t *w, int a, int b, double bytes, double t)
{
    const gdc_coll_price_t *p = w->p;
    walk_rank_t            *ra = &w->rank[a], *rb = &w->rank[b];
    double                  start;

    if (ra->node != rb->node) {
        double xfer = bytes / p->out.bandwidth;

        start = walk_book(w, &w->nic_tx[ra->nic], t, xfer) - xfer;
        return walk_book(w, &w->nic_rx[rb->nic], start, xfer) + p->out.latency;
    }
    start       = t > ra->tx_free ? t : ra->tx_free;
    ra->tx_free = start + bytes / p->in.bandwidth;
    return walk_book(w, &w->rx[b], start, bytes / p->in.bandwidth) + p->in.latency;
}

/* A queued send: when it may leave, and the simulator's order at the same time (the
 * latest booking it waited for, then the rank's place). */
typedef struct walk_key {
    double ready;
    long   seq;
    int    order, rank;
} walk_key_t;

static int walk_before(const walk_key_t *a, const walk_key_t *b)
{
    return a->ready < b->ready ||
           (a->ready == b->ready && (a->seq < b->seq || (a->seq == b->seq && a->order < b->order)));
}

static void walk_push(walk_t *w, int r)
{
    const walk_rank_t *wr  = &w->rank[r];
    walk_key_t         key = {wr->ready, wr->seq, wr->order, r};

    GDC_COLL_HEAP_PUSH(w->heap, w->heap_len, key, walk_before);
}

static int walk_pop(walk_t *w)
{
    walk_key_t top;

    GDC_COLL_HEAP_POP(w->heap, w->heap_len, top, walk_before);
    return top.rank;
}

static void walk_end_at(walk_t *w, double t)
{
    w->finish = t > w->finish ? t : w->finish;
}

/* Takes rank r's message from src out of its inbox; 0 when it is not there yet. */
static int walk_take(walk_t *w, int r, int src, double *at)
{
    walk_rank_t *wr = &w->rank[r];

    for (int k = 0; k < wr->inbox_len; k++) {
        if (wr->inbox_src[k] == src) {
            *at     = wr->inbox_at[k];
            wr->seq = wr->inbox_seq[k] > wr->seq ? wr->inbox_seq[k] : wr->seq;
            wr->inbox_len--;
            for (int j = k; j < wr->inbox_len; j++) {
                wr->inbox_src[j] = wr->inbox_src[j + 1];
                wr->inbox_at[j]  = wr->inbox_at[j + 1];
                wr->inbox_seq[j] = wr->inbox_seq[j + 1];
            }
            return 1;
        }
    }
    return 0;
}

/* Of the run of sends at rank wr's next step, which depend on each other only by their
 * `after` (the builders make them at once, or behind one a window before), the one that
 * may leave first (the first of them at the same time), in wr->cur with wr->ready; 0 once
 * all have left, its next step then past them. */
static int walk_next_send(walk_rank_t *wr)
{
    int j, best = -1;

    while (wr->pc < wr->steps && wr->op[wr->pc].kind == GDC_COLL_WALK_SEND && wr->sent[wr->pc] >= 0) {
        wr->pc++; /* those that left */
    }
    for (j = wr->pc; j < wr->steps && wr->op[j].kind == GDC_COLL_WALK_SEND; j++) {
        int    after = wr->op[j].after;
        double ready;

        if (wr->sent[j] >= 0 || (after >= 0 && wr->sent[after] < 0)) {
            continue;
        }
        ready = after >= 0 && wr->sent[after] > wr->have ? wr->sent[after] : wr->have;
        if (best < 0 || ready < wr->ready) {
            best      = j;
            wr->ready = ready;
        }
    }
    wr->cur = best;
    wr->pc  = best < 0 ? j : wr->pc;
    return best >= 0;
}

/* Runs rank r's steps up to its next send (pushed, by when it is ready), a receive whose
 * message has not left yet, or its end. */
static void walk_advance(walk_t *w, int r)
{
    walk_rank_t *wr = &w->rank[r];

    while (!wr->done && !wr->queued && !w->failed) {
        const gdc_coll_walk_op_t *op;
        double                    at;

        if (wr->pc == wr->steps) {
            wr->done = 1;
            return;
        }
        op = &wr->op[wr->pc];
        switch (op->kind) {
        case GDC_COLL_WALK_SEND:
            if (walk_next_send(wr)) {
                wr->queued = 1;
                walk_push(w, r);
                return;
            }
            continue; /* the run is sent: on after it */
        case GDC_COLL_WALK_RECV:
            if (!walk_take(w, r, op->peer, &at)) {
                return;
            }
            at = (at > wr->posted ? at : wr->posted) + w->p->o;
            wr->have = at > wr->have ? at : wr->have;
            break;
        case GDC_COLL_WALK_JOIN_SENT:
            wr->have   = wr->delivered > wr->have ? wr->delivered : wr->have;
            wr->posted = wr->have;
            break;
        case GDC_COLL_WALK_LOCAL: {
            double start = wr->have > wr->cpu_free ? wr->have : wr->cpu_free;
            wr->cpu_free = start + op->amount;
            wr->have     = wr->cpu_free;
            break;
        }
        }
        walk_end_at(w, wr->have);
        wr->pc++;
    }
}

/* Rank r's send (its next step): leaves once its CPU is free, booked on the links. */
static void walk_send(walk_t *w, int r)
{
    walk_rank_t              *wr = &w->rank[r];
    const gdc_coll_walk_op_t *op = &wr->op[wr->cur];
    walk_rank_t              *to = &w->rank[op->peer];
    double                    start, at;

    start        = wr->ready > wr->cpu_free ? wr->ready : wr->cpu_free;
    wr->cpu_free = start + w->p->o;
    at           = walk_arrival(w, r, op->peer, op->amount, wr->cpu_free);
    walk_end_at(w, at);
    wr->delivered      = at > wr->delivered ? at : wr->delivered;
    wr->sent[wr->cur]  = at;
    if (op->waits) {
        wr->have = at;
        wr->seq  = w->booked + 1;
    }
    if (to->inbox_len == w->steps) {
        w->failed = 1;
        return;
    }
    to->inbox_src[to->inbox_len] = r;
    to->inbox_at[to->inbox_len]  = at;
    to->inbox_seq[to->inbox_len] = ++w->booked;
    to->inbox_len++;
    wr->queued = 0;
}

/* Everything a walk keeps, for n ranks, in one block (a few allocations a price, each
 * given back to the system when freed, cost a 64-rank walk 20 times its time). */
typedef struct walk_memory {
    walk_rank_t        *rank;
    walk_link_t        *links; /* each rank's own link in, then the NICs' sending and receiving sides */
    struct walk_key    *heap;
    int                *local; /* each rank's place on its node */
    gdc_coll_walk_op_t *ops;
    double             *sent, *inbox_at;
    long               *inbox_seq;
    int                *inbox_src;
} walk_memory_t;

static void *walk_memory(walk_memory_t *mem, int n, int steps)
{
    size_t ranks = (size_t)n * sizeof(walk_rank_t), links = 3 * (size_t)n * sizeof(walk_link_t);
    size_t all   = (size_t)n * (size_t)steps;
    size_t ops   = all * sizeof(gdc_coll_walk_op_t), per_step = 2 * sizeof(double) + sizeof(long);
    size_t keys  = (size_t)n * sizeof(struct walk_key);
    char  *block = malloc(ranks + links + keys + ops + all * per_step + (all + (size_t)n) * sizeof(int));

    if (block != NULL) {
        char *at = block + ranks + links + keys + ops;

        mem->rank      = (walk_rank_t *)block;
        mem->links     = (walk_link_t *)(block + ranks);
        mem->heap      = (struct walk_key *)(block + ranks + links);
        mem->ops       = (gdc_coll_walk_op_t *)(block + ranks + links + keys);
        mem->sent      = (double *)at;
        mem->inbox_at  = mem->sent + all;
        mem->inbox_seq = (long *)(mem->inbox_at + all);
        mem->inbox_src = (int *)(mem->inbox_seq + all);
        mem->local     = mem->inbox_src + all;
    }
    return block;
}

/* Rank r's NIC among the walk's links: a new one for each of a node's first ranks, as many
 * as it has NICs; the others share them in turn (model.c: local index modulo NICs). */
static int walk_nic(walk_t *w, walk_memory_t *mem, int r, int *links)
{
    const int *node_of = w->p->args->node_of;
    int        nics = w->p->nics, local = 0;

    for (int q = 0; q < r; q++) {
        local += node_of[q] == node_of[r];
    }
    mem->local[r] = local;
    if (local < nics) {
        w->nic_tx[*links].len = 0;
        w->nic_rx[*links].len = 0;
        return (*links)++;
    }
    for (int q = 0;; q++) {
        if (node_of[q] == node_of[r] && mem->local[q] == local % nics) {
            return w->rank[q].nic;
        }
    }
}

/* The ranks' links and their programs. */
static int walk_setup(walk_t *w, walk_memory_t *mem, gdc_coll_walk_program_t program, const void *arg)
{
    const gdc_coll_price_t *p = w->p;
    int                     links = 0, fits = 1;

    w->rank   = mem->rank;
    w->rx     = mem->links;
    w->nic_tx = mem->links + p->n;
    w->nic_rx = mem->links + 2 * p->n;
    w->heap   = mem->heap;
    for (int r = 0; r < p->n; r++) {
        walk_rank_t         *wr   = &w->rank[r];
        gdc_coll_walk_list_t list = {&mem->ops[(size_t)r * (size_t)w->steps], 0, w->steps};

        memset(wr, 0, sizeof(*wr));
        wr->node     = p->args->node_of[r];
        wr->order    = (r - w->first + p->n) % p->n;
        wr->nic      = walk_nic(w, mem, r, &links);
        wr->op        = list.op;
        wr->sent      = &mem->sent[(size_t)r * (size_t)w->steps];
        wr->inbox_src = &mem->inbox_src[(size_t)r * (size_t)w->steps];
        wr->inbox_at  = &mem->inbox_at[(size_t)r * (size_t)w->steps];
        wr->inbox_seq = &mem->inbox_seq[(size_t)r * (size_t)w->steps];
        w->rx[r].len = 0;
        program(p, arg, r, &list);
        wr->steps = list.n;
        for (int i = 0; i < list.n && i < w->steps; i++) {
            wr->sent[i] = -1;
        }
        fits      = fits && list.n <= w->steps;
    }
    return fits ? 0 : -1;
}

int gdc_coll_price_walk(const gdc_coll_price_t *p, gdc_coll_walk_program_t program, const void *arg, int steps,
                        double *seconds)
{
    walk_t        w     = {.p = p, .first = gdc_coll_is_rooted(p->args->coll) ? p->args->root : 0, .steps = steps};
    walk_memory_t mem;
    void         *block = NULL;
    int           ok;

    if (p->n > GDC_COLL_WALK_RANKS || p->args->node_of == NULL || (block = walk_memory(&mem, p->n, steps)) == NULL ||
        walk_setup(&w, &mem, program, arg) != 0) {
        free(block);
        return 0;
    }
    for (int r = 0; r < p->n; r++) {
        walk_advance(&w, r);
    }
    while (w.heap_len > 0 && !w.failed) {
        int r = walk_pop(&w), peer = w.rank[r].op[w.rank[r].cur].peer;

        w.now = w.rank[r].ready;
        walk_send(&w, r);
        walk_advance(&w, r);
        walk_advance(&w, peer);
    }
    ok = !w.failed;
    for (int r = 0; r < p->n && ok; r++) {
        ok = w.rank[r].done; /* a receive whose message never left: a program at fault */
    }
    *seconds = w.finish;
    free(block);
    return ok;
}

void gdc_coll_walk_add(gdc_coll_walk_list_t *list, gdc_coll_walk_kind_t kind, int peer, double amount, int waits)
{
    if (list->n < list->most) {
        list->op[list->n] = (gdc_coll_walk_op_t){amount, peer, (int16_t)kind, (int16_t)waits, -1};
    }
    list->n++;
}

void gdc_coll_walk_send_after(gdc_coll_walk_list_t *list, int peer, double bytes, int after)
{
    if (list->n < list->most) {
        list->op[list->n] = (gdc_coll_walk_op_t){bytes, peer, GDC_COLL_WALK_SEND, 0, after};
    }
    list->n++;
}
