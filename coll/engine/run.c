#include "engine/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/exec.h"
#include "engine/blocking.h"
#include "select/select.h"
#include "gdc_rt.h"

/* Schedules kept per communicator, keyed by call shape. */
#define GDC_COLL_CACHE_SIZE  128
#define GDC_COLL_CACHE_PROBE 8

typedef struct gdc_coll_key {
    const gdc_coll_algo_t *algo;
    gdc_coll_type_t        coll;
    size_t                 count;
    gdc_dtype_t            dtype;
    gdc_op_t               op;
    int                    root;
    int                    in_place;
} gdc_coll_key_t;

struct gdc_coll_run;

typedef struct gdc_coll_entry {
    gdc_coll_key_t       key;
    gdc_coll_sched_t    *sched;   /* NULL: free entry */
    int                  users;   /* runs in flight on it */
    unsigned             stamp;   /* last use, for eviction */
    struct gdc_coll_run *spare;   /* a finished run kept for the next call of this shape */
} gdc_coll_entry_t;

/* The algorithm chosen for a call shape (the model runs once per shape). */
typedef struct gdc_coll_choice {
    gdc_coll_key_t         key; /* key.algo unused */
    int                    on_device;
    const gdc_coll_algo_t *algo;
} gdc_coll_choice_t;

#define GDC_COLL_CHOICES 256

typedef struct gdc_coll_comm {
    gdc_coll_entry_t     cache[GDC_COLL_CACHE_SIZE];
    unsigned             clock;
    gdc_coll_choice_t    choices[GDC_COLL_CHOICES];
    /* Shared-memory runs reuse the same segments: one at a time per communicator, the
     * others wait in call order (the same order on every rank). */
    struct gdc_coll_run *shm_running;
    struct gdc_coll_run *shm_queue_head, *shm_queue_tail;
    /* the last call's shape, algorithm and cache entry: a loop repeats one call */
    gdc_coll_key_t       last_key;
    int                  last_on_device;
    gdc_coll_entry_t    *last_entry;
} gdc_coll_comm_t;

typedef struct gdc_coll_run {
    gdc_coll_exec_t      exec;
    struct gdc_request  *req;
    struct gdc_comm     *comm;
    gdc_coll_sched_t    *sched;
    gdc_coll_entry_t    *entry;     /* NULL: the run owns its schedule */
    gdc_rt_msg_t        *msgs;      /* [sched->num_msgs] */
    void                *scratch;
    int                  on_device;
    uint32_t             seq;
    struct gdc_coll_run *prev, *next; /* active runs */
    struct gdc_coll_run *shm_next;    /* waiting for the communicator's shared memory */
} gdc_coll_run_t;

static gdc_coll_run_t *active;

/* ---------------------------------------------------------------------------------------
 * The transport: executor messages as UCX tagged messages
 */

static int run_post(gdc_coll_exec_t *exec, uint32_t s, void *ptr, size_t len, int *status)
{
    gdc_coll_run_t        *run  = exec->transport_ctx;
    const gdc_coll_step_t *step = &run->sched->steps[s];
    gdc_rt_msg_t          *msg  = &run->msgs[step->msg];
    int                    peer = gdc_rt_comm_world_rank(run->comm, step->peer);
    gdc_rt_memtype_t       type = run->on_device ? GDC_RT_MEM_CUDA : GDC_RT_MEM_HOST;

    if (step->kind == GDC_COLL_STEP_SEND) {
        gdc_rt_msg_send(msg, peer, gdc_rt_tag_coll(run->comm->ctx, (uint32_t)run->comm->rank, run->seq, step->slot),
                        ptr, len, type);
    } else {
        gdc_rt_msg_recv(msg, peer, gdc_rt_tag_coll(run->comm->ctx, (uint32_t)step->peer, run->seq, step->slot),
                        ptr, len, type);
    }
    if (!gdc_rt_msg_test(msg)) {
        return 0;
    }
    *status = msg->status;
    return 1;
}

/* The world rank of local rank i of the run's shared memory. */
static int local_world_rank(const gdc_coll_run_t *run, int i)
{
    return gdc_rt_comm_world_rank(run->comm, run->comm->shm->local_ranks[i]);
}

static int run_test(gdc_coll_exec_t *exec, uint32_t s, int *status)
{
    gdc_coll_run_t *run = exec->transport_ctx;
    gdc_rt_msg_t   *msg = &run->msgs[run->sched->steps[s].msg];

    if (run->sched->steps[s].kind == GDC_COLL_STEP_WAIT) {
        if (!gdc_rt_ucx_peer_failed(local_world_rank(run, run->sched->steps[s].peer))) {
            return 0;
        }
        *status = GDC_ERR_PEER_FAILED;
        return 1;
    }

    if (!gdc_rt_msg_test(msg)) {
        return 0;
    }
    *status = msg->status;
    if (*status == GDC_SUCCESS && msg->is_recv && msg->received != msg->length) {
        GDC_LOG_ERROR("%s(%s) seq %u: %zu bytes arrived from rank %d where %zu were expected: "
                      "do all ranks call it with the same count and datatype?",
                      gdc_coll_type_name(run->sched->args.coll), run->sched->algo->name, run->seq,
                      msg->received, msg->peer_world, msg->length);
        *status = GDC_ERR_INVALID_ARG;
    }
    if (*status == GDC_ERR_TRUNCATED) {
        GDC_LOG_ERROR("%s(%s) seq %u: a message from rank %d is longer than expected: do all ranks "
                      "call it with the same count and datatype?",
                      gdc_coll_type_name(run->sched->args.coll), run->sched->algo->name, run->seq,
                      msg->peer_world);
    }
    return 1;
}

static void run_cancel(gdc_coll_exec_t *exec, uint32_t s, int status)
{
    gdc_coll_run_t *run = exec->transport_ctx;
    gdc_rt_msg_t   *msg = &run->msgs[run->sched->steps[s].msg];

    gdc_rt_msg_cancel(msg, status);
    gdc_rt_msg_test(msg);
}

static const gdc_coll_transport_t ucx_transport = {run_post, run_test, run_cancel};

/* ---------------------------------------------------------------------------------------
 * Requests
 */

static void activate(gdc_coll_run_t *run)
{
    run->prev = NULL;
    run->next = active;
    if (active != NULL) {
        active->prev = run;
    }
    active = run;
}

static void deactivate(gdc_coll_run_t *run)
{
    if (run->prev != NULL) {
        run->prev->next = run->next;
    } else if (active == run) {
        active = run->next;
    }
    if (run->next != NULL) {
        run->next->prev = run->prev;
    }
    run->prev = run->next = NULL;
}

static int uses_shm(const gdc_coll_run_t *run)
{
    return run->sched->shm_epochs > 0;
}

static void finish_if_done(gdc_coll_run_t *run);

/* Start a shared-memory run: it owns the segments until it finishes, its counter values
 * follow those of the runs before it. */
static void start_shm(gdc_coll_comm_t *cc, gdc_coll_run_t *run)
{
    gdc_rt_shm_t *shm = run->comm->shm;

    cc->shm_running = run;
    gdc_coll_exec_set_shm(&run->exec, shm, shm->epoch);
    shm->epoch += run->sched->shm_epochs;
    gdc_coll_exec_start(&run->exec);
}

static void release_shm(gdc_coll_run_t *run)
{
    gdc_coll_comm_t *cc = run->comm->coll;

    if (cc->shm_running == run) {
        cc->shm_running = NULL;
        if (cc->shm_queue_head != NULL) {
            gdc_coll_run_t *next = cc->shm_queue_head;
            cc->shm_queue_head   = next->shm_next;
            cc->shm_queue_tail   = cc->shm_queue_head != NULL ? cc->shm_queue_tail : NULL;
            start_shm(cc, next);
            finish_if_done(next);
        }
        return;
    }
    /* ended before it started (aborted while queued) */
    for (gdc_coll_run_t **link = &cc->shm_queue_head; *link != NULL; link = &(*link)->shm_next) {
        if (*link == run) {
            *link = run->shm_next;
            break;
        }
    }
    cc->shm_queue_tail = NULL;
    for (gdc_coll_run_t *r = cc->shm_queue_head; r != NULL; r = r->shm_next) {
        cc->shm_queue_tail = r;
    }
}

static void finish_if_done(gdc_coll_run_t *run)
{
    if (run->exec.finished && !run->req->completed) {
        run->req->status    = run->exec.status;
        run->req->completed = 1;
        deactivate(run);
        if (uses_shm(run)) {
            release_shm(run);
        }
    }
}

/* Start run, or queue it behind the shared-memory run in progress. */
static void start_run(gdc_coll_run_t *run)
{
    gdc_coll_comm_t *cc = run->comm->coll;

    run->shm_next = NULL;
    if (!uses_shm(run)) {
        gdc_coll_exec_start(&run->exec);
    } else if (cc->shm_running == NULL) {
        start_shm(cc, run);
    } else if (cc->shm_queue_tail != NULL) {
        cc->shm_queue_tail->shm_next = run;
        cc->shm_queue_tail           = run;
    } else {
        cc->shm_queue_head = cc->shm_queue_tail = run;
    }
    finish_if_done(run);
}

static int req_progress(struct gdc_request *req)
{
    gdc_coll_run_t *run = req->impl;
    int             moved = gdc_coll_exec_progress(&run->exec);

    if (moved) {
        gdc_rt_request_touch(req);
    }
    finish_if_done(run);
    return moved;
}

static void req_describe(struct gdc_request *req, char *buf, size_t len)
{
    gdc_coll_run_t         *run    = req->impl;
    int                     s      = gdc_coll_exec_oldest_inflight(&run->exec);
    const gdc_coll_sched_t *sched  = run->sched;
    int                     n      = snprintf(buf, len, "%s(%s) seq %u step %d/%u: rank %d ",
                                              gdc_coll_type_name(sched->args.coll), sched->algo->name,
                                              run->seq, s + 1, sched->num_steps, gdc_rt_boot.rank);

    if (n < 0 || (size_t)n >= len) {
        return;
    }
    if (s < 0) {
        snprintf(buf + n, len - (size_t)n, "%s",
                 uses_shm(run) && run->exec.shm == NULL ? "waits for the shared-memory collective before it"
                                                        : "has no message in flight");
    } else if (sched->steps[s].kind == GDC_COLL_STEP_WAIT) {
        snprintf(buf + n, len - (size_t)n, "waits for rank %d's shared-memory signal %u",
                 local_world_rank(run, sched->steps[s].peer), sched->steps[s].slot);
    } else if (sched->steps[s].kind == GDC_COLL_STEP_RECV) {
        snprintf(buf + n, len - (size_t)n, "waits for data from rank %d",
                 gdc_rt_comm_world_rank(run->comm, sched->steps[s].peer));
    } else {
        snprintf(buf + n, len - (size_t)n, "waits for rank %d to take its data",
                 gdc_rt_comm_world_rank(run->comm, sched->steps[s].peer));
    }
}

static void req_abort(struct gdc_request *req, int status)
{
    gdc_coll_run_t *run = req->impl;

    gdc_coll_exec_abort(&run->exec, status);
    finish_if_done(run);
}

static void free_run(gdc_coll_run_t *run)
{
    if (run->on_device) {
        gdc_rt_cuda_free(run->scratch);
    } else {
        free(run->scratch);
    }
    free(run->msgs);
    gdc_coll_exec_fini(&run->exec);
    if (run->entry == NULL) {
        gdc_coll_sched_free(run->sched);
    }
    free(run);
}

static void req_release(struct gdc_request *req)
{
    gdc_coll_run_t   *run   = req->impl;
    gdc_coll_entry_t *entry = run->entry;

    deactivate(run);
    if (entry != NULL) {
        entry->users--;
        if (entry->spare == NULL && run->exec.status == GDC_SUCCESS) {
            entry->spare = run; /* the next call of this shape reuses it */
            return;
        }
    }
    free_run(run);
}

static const gdc_rt_request_ops_t coll_request_ops = {
    .name     = "collective",
    .progress = req_progress,
    .describe = req_describe,
    .abort    = req_abort,
    .release  = req_release,
};

static int progress_all(void)
{
    int moved = 0;

    for (gdc_coll_run_t *run = active; run != NULL;) {
        gdc_coll_run_t *next = run->next; /* finishing unlinks it */
        if (gdc_coll_exec_progress(&run->exec)) {
            gdc_rt_request_touch(run->req);
            moved = 1;
        }
        finish_if_done(run);
        run = next;
    }
    return moved;
}

/* ---------------------------------------------------------------------------------------
 * The schedule cache
 */

static gdc_coll_key_t make_key(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    gdc_coll_key_t key;

    memset(&key, 0, sizeof(key));
    key.algo     = algo;
    key.coll     = args->coll;
    key.count    = args->count;
    key.dtype    = args->dtype;
    key.op       = args->op;
    key.root     = args->root;
    key.in_place = args->in_place;
    return key;
}

static unsigned hash_key(const gdc_coll_key_t *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key->algo * 0x9e3779b97f4a7c15ull;

    h ^= key->count + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= ((uint64_t)key->dtype << 32 | (uint64_t)key->op << 16 | (uint64_t)(unsigned)key->root << 1 |
          (uint64_t)key->in_place) + (h << 6) + (h >> 2);
    return (unsigned)(h ^ (h >> 29));
}

static int same_key(const gdc_coll_key_t *a, const gdc_coll_key_t *b)
{
    return a->algo == b->algo && a->coll == b->coll && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->in_place == b->in_place;
}

static void drop_entry(gdc_coll_entry_t *entry)
{
    if (entry->spare != NULL) {
        entry->spare->entry = entry; /* free_run must not free the schedule twice */
        free_run(entry->spare);
        entry->spare = NULL;
    }
    gdc_coll_sched_free(entry->sched);
    entry->sched = NULL;
}

/* The cached schedule of this shape, built and cached on first use; *entry is NULL when
 * the cache had no room (the caller then owns the schedule). */
static int lookup(gdc_coll_comm_t *cc, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                  gdc_coll_entry_t **entry, gdc_coll_sched_t **sched)
{
    gdc_coll_key_t    key    = make_key(algo, args);
    unsigned          h      = hash_key(&key);
    gdc_coll_entry_t *victim = NULL;
    int               status;

    cc->clock++;
    for (int i = 0; i < GDC_COLL_CACHE_PROBE; i++) {
        gdc_coll_entry_t *e = &cc->cache[(h + (unsigned)i) % GDC_COLL_CACHE_SIZE];
        if (e->sched != NULL && same_key(&e->key, &key)) {
            e->stamp = cc->clock;
            *entry   = e;
            *sched   = e->sched;
            return GDC_SUCCESS;
        }
        if (e->users == 0 && (victim == NULL || e->sched == NULL ||
                              (victim->sched != NULL && e->stamp < victim->stamp))) {
            victim = e;
        }
    }
    status = gdc_coll_sched_build(algo, args, sched);
    if (status != GDC_SUCCESS) {
        return status;
    }
    *entry = victim;
    if (victim != NULL) {
        if (victim->sched != NULL) {
            drop_entry(victim);
        }
        victim->key   = key;
        victim->sched = *sched;
        victim->stamp = cc->clock;
    }
    return GDC_SUCCESS;
}

/* The algorithm for this shape: chosen once, then remembered (direct-mapped). */
static const gdc_coll_algo_t *choose(gdc_coll_comm_t *cc, const gdc_coll_args_t *args, int on_device)
{
    gdc_coll_key_t     key    = make_key(NULL, args);
    gdc_coll_choice_t *choice = &cc->choices[hash_key(&key) % GDC_COLL_CHOICES];

    if (choice->algo != NULL && choice->on_device == on_device && same_key(&choice->key, &key)) {
        return choice->algo;
    }
    choice->algo = gdc_coll_select(args, on_device);
    if (choice->algo != NULL) {
        choice->key       = key;
        choice->on_device = on_device;
        GDC_LOG_INFO("%s of %zu x %s on %d ranks (%d node(s)%s): %s", gdc_coll_type_name(args->coll), args->count,
                     gdc_rt_dtype_name(args->dtype), args->size, args->num_nodes, on_device ? ", device memory" : "",
                     choice->algo->name);
    }
    return choice->algo;
}

/* Is this call the same shape as the last one on the communicator (and its schedule
 * still cached)? Then the choice and the cache lookup are already done. */
static int repeats_last_call(const gdc_coll_comm_t *cc, const gdc_coll_args_t *args, int on_device)
{
    const gdc_coll_entry_t *e = cc->last_entry;
    gdc_coll_key_t          key;

    if (e == NULL || e->sched == NULL || cc->last_on_device != on_device) {
        return 0;
    }
    key      = make_key(e->key.algo, args);
    return same_key(&key, &cc->last_key) && same_key(&key, &e->key);
}

static void remember_call(gdc_coll_comm_t *cc, const gdc_coll_args_t *args, int on_device, gdc_coll_entry_t *entry)
{
    cc->last_entry     = entry;
    cc->last_on_device = on_device;
    if (entry != NULL) {
        cc->last_key = entry->key;
    }
}

/* ---------------------------------------------------------------------------------------
 * Starting a collective
 */

static int alloc_run(gdc_coll_run_t **out, gdc_coll_sched_t *sched, int on_device, const void *near)
{
    gdc_coll_run_t *run = calloc(1, sizeof(*run));
    char           *none[GDC_COLL_NUM_BUFS] = {NULL, NULL, NULL};
    int             status;

    if (run == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    run->sched     = sched;
    run->on_device = on_device;
    run->msgs      = calloc((size_t)sched->num_msgs + 1, sizeof(gdc_rt_msg_t));
    if (run->msgs == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto err_free;
    }
    if (sched->scratch_bytes > 0) {
        if (on_device) {
            status = gdc_rt_cuda_alloc(near, sched->scratch_bytes, &run->scratch);
        } else {
            run->scratch = malloc(sched->scratch_bytes);
            status       = run->scratch != NULL ? GDC_SUCCESS : GDC_ERR_NO_MEMORY;
        }
        if (status != GDC_SUCCESS) {
            goto err_free;
        }
    }
    status = gdc_coll_exec_init(&run->exec, sched, &ucx_transport, run, none, on_device);
    if (status != GDC_SUCCESS) {
        goto err_free;
    }
    *out = run;
    return GDC_SUCCESS;

err_free:
    if (on_device) {
        gdc_rt_cuda_free(run->scratch);
    } else {
        free(run->scratch);
    }
    free(run->msgs);
    free(run);
    return status;
}

/* Host, or CUDA device memory (a device buffer and a host one in one call is refused). */
static int buffers_memtype(const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, int *on_device)
{
    gdc_rt_memtype_t in  = gdc_rt_memtype_of(bufs->input);
    gdc_rt_memtype_t out = gdc_rt_memtype_of(bufs->output);

    if (bufs->input == NULL) {
        in = out;
    }
    if (bufs->output == NULL) {
        out = in;
    }
    if ((in == GDC_RT_MEM_CUDA) != (out == GDC_RT_MEM_CUDA)) {
        GDC_LOG_ERROR("gdc_%s: the input is %s memory and the output %s memory; pass both in the same "
                      "kind of memory",
                      gdc_coll_type_name(args->coll), gdc_rt_memtype_name(in), gdc_rt_memtype_name(out));
        return GDC_ERR_UNSUPPORTED;
    }
    *on_device = in == GDC_RT_MEM_CUDA;
    return GDC_SUCCESS;
}

static int completed_request(struct gdc_request **out)
{
    static const gdc_rt_request_ops_t done_ops = {.name = "empty collective", .abort = NULL};
    struct gdc_request *req = gdc_rt_request_new(&done_ops);

    if (req == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    req->completed = 1;
    req->status    = GDC_SUCCESS;
    *out           = req;
    return GDC_SUCCESS;
}

static int is_empty(const gdc_coll_args_t *args)
{
    return args->coll != GDC_COLL_BARRIER && args->coll != GDC_COLL_ALLTOALLV && args->count == 0;
}

int gdc_coll_start(struct gdc_comm *comm, const gdc_coll_args_t *call, const gdc_coll_buffers_t *bufs,
                   struct gdc_request **out)
{
    gdc_coll_args_t        with_memory = *call;
    const gdc_coll_args_t *args        = &with_memory;
    gdc_coll_comm_t       *cc          = comm->coll;
    const gdc_coll_algo_t *algo;
    gdc_coll_entry_t      *entry = NULL;
    gdc_coll_sched_t      *sched;
    gdc_coll_run_t        *run;
    struct gdc_request    *req;
    char                  *base[GDC_COLL_NUM_BUFS];
    int                    on_device, status;

    if (is_empty(args)) {
        return completed_request(out);
    }
    status = buffers_memtype(args, bufs, &on_device);
    if (status != GDC_SUCCESS) {
        return status;
    }
    with_memory.on_device = on_device;
    if (args->coll != GDC_COLL_ALLTOALLV && repeats_last_call(cc, args, on_device)) {
        entry = cc->last_entry;
        algo  = entry->sched->algo;
        sched = entry->sched;
    } else {
        algo = args->coll == GDC_COLL_ALLTOALLV ? gdc_coll_select(args, on_device) : choose(cc, args, on_device);
        if (algo == NULL) {
            GDC_LOG_ERROR("internal: no algorithm for %s", gdc_coll_type_name(args->coll));
            return GDC_ERR_INTERNAL;
        }
        if (args->coll == GDC_COLL_ALLTOALLV) {
            status = gdc_coll_sched_build(algo, args, &sched); /* counts differ per call: no cache */
        } else {
            status = lookup(cc, algo, args, &entry, &sched);
        }
        if (status != GDC_SUCCESS) {
            return status;
        }
        remember_call(cc, args, on_device, entry);
    }
    if (entry != NULL && entry->spare != NULL && entry->spare->on_device == on_device) {
        run          = entry->spare;
        entry->spare = NULL;
    } else {
        status = alloc_run(&run, sched, on_device, bufs->probe);
        if (status != GDC_SUCCESS) {
            goto err_sched;
        }
    }
    req = gdc_rt_request_new(&coll_request_ops);
    if (req == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto err_run;
    }
    run->req   = req;
    run->comm  = comm;
    run->entry = entry;
    run->seq   = comm->coll_seq++;
    req->impl  = run;
    req->poll_alone = sched->num_msgs == 0;
    req->comm  = comm;
    if (entry != NULL) {
        entry->users++;
    }
    base[GDC_COLL_INPUT]   = (char *)bufs->input;
    base[GDC_COLL_OUTPUT]  = bufs->output;
    base[GDC_COLL_SCRATCH] = run->scratch;
    gdc_coll_exec_reset(&run->exec, base);
    gdc_coll_exec_set_shm(&run->exec, NULL, 0);
    activate(run);
    start_run(run);
    GDC_LOG_DEBUG("%s(%s) seq %u: %zu x %s on %d ranks", gdc_coll_type_name(args->coll), algo->name, run->seq,
                  args->count, gdc_rt_dtype_name(args->dtype), args->size);
    *out = req;
    return GDC_SUCCESS;

err_run:
    run->entry = entry;
    free_run(run);
    return status;
err_sched:
    if (entry == NULL) {
        gdc_coll_sched_free(sched);
    }
    return status;
}

int gdc_coll_run_blocking(struct gdc_comm *comm, const gdc_coll_args_t *call, const gdc_coll_buffers_t *bufs)
{
    gdc_coll_comm_t       *cc = comm->coll;
    struct gdc_request    *req;
    const gdc_coll_algo_t *algo;
    int                    status, on_device;

    if (comm->shm != NULL && cc->shm_running == NULL && call->coll != GDC_COLL_ALLTOALLV && !is_empty(call) &&
        buffers_memtype(call, bufs, &on_device) == GDC_SUCCESS && !on_device) {
        gdc_coll_args_t args = *call;
        args.on_device       = 0;
        algo = repeats_last_call(cc, &args, 0) ? cc->last_entry->sched->algo : choose(cc, &args, 0);
        if (algo != NULL && gdc_coll_fast_run(comm, &args, algo, bufs, &status)) {
            return status;
        }
    }
    status = gdc_coll_start(comm, call, bufs, &req);
    return status == GDC_SUCCESS ? gdc_rt_request_finish(req) : status;
}

/* ---------------------------------------------------------------------------------------
 * Per-communicator state and the layer's life cycle
 */

static int comm_created(struct gdc_comm *comm)
{
    comm->coll = calloc(1, sizeof(gdc_coll_comm_t));
    return comm->coll != NULL ? GDC_SUCCESS : GDC_ERR_NO_MEMORY;
}

static void comm_destroyed(struct gdc_comm *comm)
{
    gdc_coll_comm_t *cc = comm->coll;

    if (cc == NULL) {
        return;
    }
    for (int i = 0; i < GDC_COLL_CACHE_SIZE; i++) {
        if (cc->cache[i].sched != NULL) {
            drop_entry(&cc->cache[i]);
        }
    }
    free(cc);
    comm->coll = NULL;
}

static const gdc_rt_comm_hooks_t comm_hooks = {comm_created, comm_destroyed};

int gdc_coll_init(void)
{
    int status = gdc_coll_select_init();

    if (status != GDC_SUCCESS) {
        return status;
    }
    gdc_rt_comm_set_hooks(&comm_hooks);
    gdc_rt_progress_set_hook(progress_all);
    return GDC_SUCCESS;
}

void gdc_coll_finalize(void)
{
    gdc_coll_select_finalize();
    gdc_rt_progress_set_hook(NULL);
    active = NULL;
}
