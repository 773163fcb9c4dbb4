#include "engine/sched.h"

#include <stdlib.h>
#include <string.h>

#include "gdc_rt.h"

static int grow(void **array, uint32_t *cap, size_t elem_size, uint32_t need)
{
    uint32_t new_cap;
    void    *grown;

    if (need <= *cap) {
        return 0;
    }
    new_cap = *cap ? *cap * 2 : 16;
    while (new_cap < need) {
        new_cap *= 2;
    }
    grown = realloc(*array, (size_t)new_cap * elem_size);
    if (grown == NULL) {
        return -1;
    }
    *array = grown;
    *cap   = new_cap;
    return 0;
}

gdc_coll_sched_t *gdc_coll_sched_new(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    gdc_coll_sched_t *sched = calloc(1, sizeof(*sched));

    if (sched == NULL) {
        return NULL;
    }
    sched->algo = algo;
    sched->args = *args;
    for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
        sched->last_signal[c] = -1;
    }
    /* the schedule outlives the call: keep no pointer into the caller's arrays */
    sched->args.sendcounts = sched->args.sdispls = NULL;
    sched->args.recvcounts = sched->args.rdispls = NULL;
    sched->args.node_of                          = NULL;
    return sched;
}

void gdc_coll_sched_free(gdc_coll_sched_t *sched)
{
    if (sched == NULL) {
        return;
    }
    free(sched->steps);
    free(sched->edges);
    free(sched->succ);
    free(sched->last_wait);
    free(sched);
}

static int add_step(gdc_coll_sched_t *sched, gdc_coll_step_kind_t kind, int peer, uint32_t slot,
                    gdc_coll_region_t a, gdc_coll_region_t b, gdc_coll_region_t c, int dep)
{
    gdc_coll_step_t *step;

    if (sched->status != GDC_SUCCESS) {
        return -1;
    }
    if (grow((void **)&sched->steps, &sched->cap_steps, sizeof(*sched->steps), sched->num_steps + 1)) {
        sched->status = GDC_ERR_NO_MEMORY;
        return -1;
    }
    step = &sched->steps[sched->num_steps];
    memset(step, 0, sizeof(*step));
    step->kind = (uint8_t)kind;
    step->peer = peer;
    step->slot = slot;
    step->a    = a;
    step->b    = b;
    step->c    = c;
    if (kind == GDC_COLL_STEP_SEND || kind == GDC_COLL_STEP_RECV) {
        step->msg = sched->num_msgs++;
    }
    sched->num_steps++;
    gdc_coll_after(sched, (int)sched->num_steps - 1, dep);
    return (int)sched->num_steps - 1;
}

static const gdc_coll_region_t no_region;

int gdc_coll_send(gdc_coll_sched_t *sched, int peer, uint32_t slot, gdc_coll_region_t src, int dep)
{
    return add_step(sched, GDC_COLL_STEP_SEND, peer, slot, src, no_region, no_region, dep);
}

int gdc_coll_recv(gdc_coll_sched_t *sched, int peer, uint32_t slot, gdc_coll_region_t dst, int dep)
{
    return add_step(sched, GDC_COLL_STEP_RECV, peer, slot, dst, no_region, no_region, dep);
}

int gdc_coll_reduce(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t a,
                    gdc_coll_region_t b, int dep)
{
    return add_step(sched, GDC_COLL_STEP_REDUCE, -1, 0, dst, a, b, dep);
}

int gdc_coll_copy(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t src, int dep)
{
    sched->peer_user |= gdc_coll_rgn_is_peer_user(&dst) || gdc_coll_rgn_is_peer_user(&src);
    return add_step(sched, GDC_COLL_STEP_COPY, -1, 0, dst, src, no_region, dep);
}

void gdc_coll_share_user(gdc_coll_sched_t *sched)
{
    sched->peer_user = 1;
}

int gdc_coll_avg(gdc_coll_sched_t *sched, gdc_coll_region_t region, int dep)
{
    return add_step(sched, GDC_COLL_STEP_AVG, -1, 0, region, no_region, no_region, dep);
}

int gdc_coll_reduce_all(gdc_coll_sched_t *sched, gdc_coll_region_t dst, gdc_coll_region_t src, int to_every, int dep)
{
    sched->peer_user = 1;
    return add_step(sched, GDC_COLL_STEP_REDUCE_ALL, -1, to_every ? 1 : 0, dst, src, no_region, dep);
}

int gdc_coll_join(gdc_coll_sched_t *sched, const int *deps, int n)
{
    int step = add_step(sched, GDC_COLL_STEP_NOP, -1, 0, no_region, no_region, no_region, -1);

    for (int i = 0; i < n; i++) {
        gdc_coll_after(sched, step, deps[i]);
    }
    return step;
}

/* DONE stands for every counter (rt_shm.h): raised to a value, it comes after each other
 * counter's last signal of that value or below (a counter's signals are chained, so the
 * earlier ones come with it; one that ran ahead of value is passed over). */
static void done_after_others(gdc_coll_sched_t *sched, int step, uint32_t value)
{
    for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
        for (int t = c == GDC_RT_SHM_DONE ? -1 : sched->last_signal[c]; t >= 0; t--) {
            const gdc_coll_step_t *st = &sched->steps[t];
            if (st->kind == GDC_COLL_STEP_SIGNAL && st->counter == c && st->slot <= value) {
                gdc_coll_after(sched, step, t);
                break;
            }
        }
    }
}

int gdc_coll_signal(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep)
{
    int step = add_step(sched, GDC_COLL_STEP_SIGNAL, -1, value, no_region, no_region, no_region, dep);

    if (step >= 0) {
        sched->steps[step].counter = (uint8_t)counter;
        sched->shm_epochs          = value > sched->shm_epochs ? value : sched->shm_epochs;
        /* a counter says "chunks 1..value are done": it may not pass an earlier chunk */
        gdc_coll_after(sched, step, sched->last_signal[counter]);
        if (counter == GDC_RT_SHM_DONE) {
            done_after_others(sched, step, value);
        } else if (sched->last_signal[GDC_RT_SHM_DONE] >= 0 &&
                   sched->steps[sched->last_signal[GDC_RT_SHM_DONE]].slot >= value) {
            GDC_LOG_ERROR("%s: counter %d signalled %u after DONE reached it: DONE would stand for it too early",
                          sched->algo != NULL ? sched->algo->name : "schedule", counter, value);
            sched->status = GDC_ERR_INTERNAL;
        }
        sched->last_signal[counter] = step;
    }
    return step;
}

int gdc_coll_wait(gdc_coll_sched_t *sched, int peer, int counter, uint32_t value, int dep)
{
    int  step = add_step(sched, GDC_COLL_STEP_WAIT, peer, value, no_region, no_region, no_region, dep);
    int *last;

    if (step < 0) {
        return step;
    }
    sched->steps[step].counter = (uint8_t)counter;
    if (sched->last_wait == NULL) {
        sched->last_wait = malloc(GDC_RT_SHM_COUNTERS * (size_t)sched->args.size * sizeof(int));
        if (sched->last_wait == NULL) {
            sched->status = GDC_ERR_NO_MEMORY;
            return -1;
        }
        for (int i = 0; i < GDC_RT_SHM_COUNTERS * sched->args.size; i++) {
            sched->last_wait[i] = -1;
        }
    }
    /* waits on one counter of one peer follow each other, as its values do: only the next
     * one is ever being polled */
    last = &sched->last_wait[counter * sched->args.size + peer];
    gdc_coll_after(sched, step, *last);
    *last = step;
    return step;
}

int gdc_coll_wait_back(gdc_coll_sched_t *sched, int peer, int counter, uint32_t value, uint32_t back, int dep)
{
    int step = gdc_coll_wait(sched, peer, counter, value, dep);

    if (step >= 0) {
        sched->steps[step].msg = back;
    }
    return step;
}

void gdc_coll_after(gdc_coll_sched_t *sched, int step, int dep)
{
    gdc_coll_edge_t *edge;

    if (step < 0 || dep < 0 || sched->status != GDC_SUCCESS) {
        return;
    }
    if (dep >= step) {
        /* edges point backwards only, so every schedule is acyclic by construction */
        GDC_LOG_ERROR("internal: %s step %d depends on later step %d", sched->algo->name, step, dep);
        sched->status = GDC_ERR_INTERNAL;
        return;
    }
    if (grow((void **)&sched->edges, &sched->cap_edges, sizeof(*sched->edges), sched->num_edges + 1)) {
        sched->status = GDC_ERR_NO_MEMORY;
        return;
    }
    edge       = &sched->edges[sched->num_edges++];
    edge->from = (uint32_t)dep;
    edge->to   = (uint32_t)step;
}

void gdc_coll_scratch(gdc_coll_sched_t *sched, size_t bytes)
{
    if (bytes > sched->scratch_bytes) {
        sched->scratch_bytes = bytes;
    }
}

/* Edges -> per-step dependency counts and successor lists (counting sort by source). */
gdc_status_t gdc_coll_sched_finish(gdc_coll_sched_t *sched)
{
    uint32_t *fill;

    if (sched->status != GDC_SUCCESS) {
        return sched->status;
    }
    sched->succ = malloc(((size_t)sched->num_edges + 1) * sizeof(uint32_t));
    fill        = calloc((size_t)sched->num_steps + 1, sizeof(uint32_t));
    if (sched->succ == NULL || fill == NULL) {
        free(fill);
        return sched->status = GDC_ERR_NO_MEMORY;
    }
    for (uint32_t e = 0; e < sched->num_edges; e++) {
        sched->steps[sched->edges[e].from].succ_count++;
        sched->steps[sched->edges[e].to].deps++;
    }
    for (uint32_t s = 0, first = 0; s < sched->num_steps; s++) {
        sched->steps[s].succ_first = first;
        first += sched->steps[s].succ_count;
    }
    for (uint32_t e = 0; e < sched->num_edges; e++) {
        gdc_coll_step_t *from = &sched->steps[sched->edges[e].from];
        sched->succ[from->succ_first + fill[sched->edges[e].from]++] = sched->edges[e].to;
    }
    free(fill);
    free(sched->last_wait);
    sched->last_wait = NULL;
    free(sched->edges);
    sched->edges     = NULL;
    sched->num_edges = sched->cap_edges = 0;
    return GDC_SUCCESS;
}

gdc_status_t gdc_coll_sched_build(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                                  gdc_coll_sched_t **out)
{
    gdc_coll_sched_t *sched = gdc_coll_sched_new(algo, args);
    gdc_status_t      status;

    if (sched == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    if (!gdc_coll_build_trivial(sched, args)) {
        status = algo->build(sched, args);
        if (status != GDC_SUCCESS && sched->status == GDC_SUCCESS) {
            sched->status = status;
        }
    }
    status = gdc_coll_sched_finish(sched);
    if (status != GDC_SUCCESS) {
        gdc_coll_sched_free(sched);
        return status;
    }
    *out = sched;
    return GDC_SUCCESS;
}

static void copy_whole(gdc_coll_sched_t *sched, size_t count)
{
    gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, 0, count),
                  gdc_coll_rgn(sched, GDC_COLL_INPUT, 0, count), -1);
}

int gdc_coll_build_trivial(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
{
    if (args->coll == GDC_COLL_BARRIER) {
        return args->size == 1;
    }
    if (args->coll == GDC_COLL_ALLTOALLV) {
        if (args->size == 1 && !args->in_place && args->sendcounts[0] > 0) {
            gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, args->rdispls[0], args->recvcounts[0]),
                          gdc_coll_rgn(sched, GDC_COLL_INPUT, args->sdispls[0], args->sendcounts[0]), -1);
        }
        return args->size == 1;
    }
    if (args->count == 0) {
        return 1;
    }
    if (args->size > 1) {
        return 0;
    }
    if (args->coll != GDC_COLL_BCAST && !args->in_place) {
        copy_whole(sched, args->count);
    }
    return 1;
}

const char *gdc_coll_step_kind_name(gdc_coll_step_kind_t kind)
{
    switch (kind) {
    case GDC_COLL_STEP_SEND: return "send";
    case GDC_COLL_STEP_RECV: return "recv";
    case GDC_COLL_STEP_REDUCE: return "reduce";
    case GDC_COLL_STEP_COPY: return "copy";
    case GDC_COLL_STEP_AVG: return "avg";
    case GDC_COLL_STEP_REDUCE_ALL: return "reduce_all";
    case GDC_COLL_STEP_NOP: return "join";
    case GDC_COLL_STEP_SIGNAL: return "signal";
    case GDC_COLL_STEP_WAIT: return "wait";
    }
    return "?";
}
