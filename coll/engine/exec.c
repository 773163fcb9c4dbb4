#include "engine/exec.h"

#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "kernels/copy_host.h"
#include "kernels/copy_stream.h"
#include "gdc_rt.h"
#include "kernels/reduce.h"
#include "kernels/reduce_cuda.h"

static void         release_peers(gdc_coll_exec_t *exec);
static gdc_status_t drain_gpu(gdc_coll_exec_t *exec);

gdc_status_t gdc_coll_exec_init(gdc_coll_exec_t *exec, const gdc_coll_sched_t *sched,
                                const gdc_coll_transport_t *transport, void *transport_ctx,
                                char *const base[GDC_COLL_NUM_BUFS], int on_device)
{
    size_t    n = sched->num_steps;
    uint32_t *block;

    memset(exec, 0, sizeof(*exec));
    block = malloc((3 * n + 1) * sizeof(uint32_t));
    if (block == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    exec->sched         = sched;
    exec->transport     = transport;
    exec->transport_ctx = transport_ctx;
    exec->on_device     = on_device;
    exec->waiting       = block;
    exec->queue         = block + n;
    exec->inflight      = block + 2 * n;
    gdc_coll_exec_reset(exec, base);
    return GDC_SUCCESS;
}

/* An output larger than the cache: writing it around the cache saves reading it first,
 * where memory is what bounds the call. An allreduce is bound by its cores' passes over the
 * data (copy in, reduce, copy out) instead, and a non-temporal copy costs the core more
 * than it saves there (bench/RESULTS.md, 2026-12-03: a 16 MiB allreduce takes 0.87 to 0.88x as
 * long unstreamed on 2 and 4 ranks of the 2-core VM, where bcast and allgather take 0.74 to
 * 0.83x as long streamed). */
static int stream_worth(const gdc_coll_args_t *args)
{
    return args->coll != GDC_COLL_ALLREDUCE && gdc_coll_output_bytes(args) >= args->config->stream_bytes;
}

void gdc_coll_exec_reset(gdc_coll_exec_t *exec, char *const base[GDC_COLL_NUM_BUFS])
{
    const gdc_coll_sched_t *sched = exec->sched;

    memcpy(exec->base, base, sizeof(exec->base));
    exec->user_output   = NULL;
    exec->stream_output = stream_worth(&sched->args);
    exec->queue_head = exec->queue_tail = 0;
    exec->num_inflight = exec->num_done = 0;
    exec->status                        = GDC_SUCCESS;
    for (uint32_t s = 0; s < sched->num_steps; s++) {
        exec->waiting[s] = sched->steps[s].deps;
        if (sched->steps[s].deps == 0) {
            exec->queue[exec->queue_tail++] = s;
        }
    }
    exec->finished = sched->num_steps == 0;
}

void gdc_coll_exec_fini(gdc_coll_exec_t *exec)
{
    for (int i = 0; i < 2; i++) {
        gdc_rt_cuda_free(exec->shadow[i]);
        exec->shadow[i] = NULL;
    }
    free(exec->peer_ptr);
    free(exec->peer_entry);
    exec->peer_ptr   = NULL;
    exec->peer_entry = NULL;
    free(exec->waiting);
    exec->waiting = exec->queue = exec->inflight = NULL;
}

void gdc_coll_exec_set_shm(gdc_coll_exec_t *exec, const gdc_rt_shm_t *shm, uint64_t shm_base)
{
    exec->shm      = shm;
    exec->shm_base = shm_base;
}

/* The address of a region, or NULL when its buffer is NULL: a call's buffer may be NULL
 * where it holds nothing (a barrier's, count 0, the output of a non-root), and steps still
 * name regions of it: empty ones, and the unused first region of a step that moves no data
 * (run_local takes it for every local step). NULL plus an offset, even 0, is undefined. */
static void *region_ptr(const gdc_coll_exec_t *exec, const gdc_coll_region_t *region)
{
    char *base;

    switch (region->buf) {
    case GDC_COLL_SHM:
    case GDC_COLL_PEER: {
        int owner = region->buf == GDC_COLL_SHM ? exec->shm->local_index : region->peer;
        base      = region->ring ? gdc_rt_shm_ring_slot(exec->shm, owner, exec->shm_base + region->ring - 1)
                                 : gdc_rt_shm_data(exec->shm, owner);
        break;
    }
    case GDC_COLL_PEER_INPUT:
    case GDC_COLL_PEER_OUTPUT:
        if (exec->peer_ptr == NULL) {
            return NULL; /* not mine to address: copy_with_peer reaches it */
        }
        base = exec->peer_ptr[2 * region->peer + (region->buf == GDC_COLL_PEER_OUTPUT)];
        break;
    default:
        base = exec->base[region->buf];
        break;
    }
    return base != NULL ? base + region->offset : NULL;
}

/* Has the peer's counter reached what the wait step asks for? */
static int wait_satisfied(const gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    uint64_t target = exec->shm_base + step->slot;

    return target <= step->msg || gdc_rt_shm_reached(exec->shm, step->peer, step->counter, target - step->msg);
}

static void complete(gdc_coll_exec_t *exec, uint32_t s)
{
    const gdc_coll_step_t *step = &exec->sched->steps[s];

    for (uint32_t i = 0; i < step->succ_count; i++) {
        uint32_t next = exec->sched->succ[step->succ_first + i];
        if (--exec->waiting[next] == 0) {
            exec->queue[exec->queue_tail++] = next;
        }
    }
    if (++exec->num_done == exec->sched->num_steps) {
        /* what is queued lands before the counters below let the peers move on */
        if (drain_gpu(exec) != GDC_SUCCESS && exec->status == GDC_SUCCESS) {
            exec->status = GDC_ERR_TRANSPORT;
        }
        if (exec->user_output != NULL && exec->status == GDC_SUCCESS &&
            gdc_rt_cuda_copy(exec->user_output, exec->shadow[GDC_COLL_OUTPUT],
                             gdc_coll_output_bytes(&exec->sched->args)) != GDC_SUCCESS) {
            exec->status = GDC_ERR_TRANSPORT;
        }
        if (exec->shm != NULL && exec->sched->shm_epochs > 0) {
            /* it has stopped reading its peers' segments: DONE says so to the next call's
             * waits, and every other counter counts as having reached its value */
            gdc_rt_shm_finish(exec->shm, exec->shm_base + exec->sched->shm_epochs);
        }
        release_peers(exec);
        exec->finished = 1;
    }
}

static void fail(gdc_coll_exec_t *exec, gdc_status_t status)
{
    gdc_coll_exec_abort(exec, status);
}

/* A device buffer of this call (its device and context are the call's): the output, or the
 * input where there is none (a non-root's gather). */
static const void *device_of(const gdc_coll_exec_t *exec)
{
    return exec->base[GDC_COLL_OUTPUT] != NULL ? exec->base[GDC_COLL_OUTPUT] : exec->base[GDC_COLL_INPUT];
}

/*
 * Peers' buffers addressed directly: a schedule built for device buffers (the ipc
 * algorithms) reads and writes them where they lie, mapped by CUDA IPC. The simulator runs
 * such schedules on host memory, its ranks being threads of one process: there the address
 * a peer published is its buffer.
 */
static int peers_direct(const gdc_coll_exec_t *exec)
{
    return exec->sched->peer_user && (exec->on_device || exec->sched->args.on_device);
}

/* Map (or look up) the peer's buffer a region names, before a step uses it. */
static gdc_status_t reach_peer(gdc_coll_exec_t *exec, const gdc_coll_region_t *region)
{
    int          which = region->buf == GDC_COLL_PEER_OUTPUT ? GDC_RT_SHM_USER_OUTPUT : GDC_RT_SHM_USER_INPUT;
    int          slot  = 2 * region->peer + which;
    const void  *near  = device_of(exec);
    gdc_status_t status;

    if (exec->peer_ptr == NULL) {
        size_t slots = 2 * (size_t)exec->shm->local_size;

        exec->peer_ptr   = calloc(slots, sizeof(*exec->peer_ptr));
        exec->peer_entry = calloc(slots, sizeof(*exec->peer_entry));
        if (exec->peer_ptr == NULL || exec->peer_entry == NULL) {
            free(exec->peer_ptr);
            free(exec->peer_entry);
            exec->peer_ptr   = NULL;
            exec->peer_entry = NULL;
            return GDC_ERR_NO_MEMORY;
        }
    }
    if (exec->peer_ptr[slot] != NULL) {
        return GDC_SUCCESS;
    }
    if (!exec->on_device) {
        exec->peer_ptr[slot] = gdc_rt_shm_peer_address(exec->shm, region->peer, which);
        return GDC_SUCCESS;
    }
    status = gdc_rt_shm_peer_map(exec->shm, region->peer, which, near, &exec->peer_ptr[slot], &exec->peer_entry[slot]);
    if (status != GDC_SUCCESS) {
        exec->peer_ptr[slot] = NULL;
    }
    return status;
}

static gdc_status_t reach_peers(gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    const gdc_coll_region_t *regions[3] = {&step->a, &step->b, &step->c};
    int                      used       = step->kind == GDC_COLL_STEP_REDUCE ? 3 : 2;
    gdc_status_t             status     = GDC_SUCCESS;

    for (int i = 0; i < used && status == GDC_SUCCESS; i++) {
        if (gdc_coll_rgn_is_peer_user(regions[i])) {
            status = reach_peer(exec, regions[i]);
        }
    }
    return status;
}

/* GDC_DEVICE_QUEUE: the ipc algorithms' kernels and copies go on gdc's stream one after
 * another, and the executor waits for them only where someone else is to see their
 * results: before a signal to a peer, a message, and the end of the call. */
static int queue_gpu(const gdc_coll_exec_t *exec)
{
    return exec->on_device && exec->sched->peer_user &&
           (exec->sched->gpu_queue || exec->sched->args.config->device_queue);
}

static gdc_status_t drain_gpu(gdc_coll_exec_t *exec)
{
    if (!exec->gpu_queued) {
        return GDC_SUCCESS;
    }
    exec->gpu_queued = 0;
    return gdc_coll_cuda_drain(device_of(exec));
}

/* The run is over: give the mappings back to the communicator's cache (which keeps them
 * open for the next call on the same buffers) and forget the addresses. */
static void release_peers(gdc_coll_exec_t *exec)
{
    if (exec->peer_ptr == NULL) {
        return;
    }
    for (int i = 0; i < 2 * exec->shm->local_size; i++) {
        if (exec->peer_entry[i] != NULL) {
            gdc_rt_shm_peer_unmap(exec->shm, exec->peer_entry[i]);
        }
        exec->peer_entry[i] = NULL;
        exec->peer_ptr[i]   = NULL;
    }
}

/* A copy one side of which is a peer's buffer: cross-memory attach. */
static gdc_status_t copy_with_peer(const gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    int                      into  = gdc_coll_rgn_is_peer_user(&step->a);
    const gdc_coll_region_t *theirs = into ? &step->a : &step->b, *mine = into ? &step->b : &step->a;
    int which = theirs->buf == GDC_COLL_PEER_INPUT ? GDC_RT_SHM_USER_INPUT : GDC_RT_SHM_USER_OUTPUT;

    return gdc_rt_shm_peer_copy(exec->shm, theirs->peer, which, theirs->offset, region_ptr(exec, mine),
                                step->a.length, into);
}

/* Raise my counter: what it tells the peers (my data is there, I am done with theirs) must
 * have landed first. */
static gdc_status_t signal_peers(gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    gdc_status_t status = drain_gpu(exec);

    if (status == GDC_SUCCESS) {
        gdc_rt_shm_raise(gdc_rt_shm_counter(exec->shm, exec->shm->local_index, step->counter),
                         exec->shm_base + step->slot);
    }
    return status;
}

/* A region of local rank p's user buffer (INPUT or OUTPUT) at the offset and length of
 * mine, reached (mapped) where it is a peer's, and its address; NULL when it cannot be. */
static void *user_of(gdc_coll_exec_t *exec, gdc_coll_buf_t buf, int p, const gdc_coll_region_t *mine)
{
    gdc_coll_region_t region = *mine;

    if (p != exec->sched->args.rank) {
        region = gdc_coll_rgn_peer_user(buf == GDC_COLL_INPUT ? GDC_COLL_PEER_INPUT : GDC_COLL_PEER_OUTPUT, p,
                                        mine->offset, mine->length);
        if (reach_peer(exec, &region) != GDC_SUCCESS) {
            return NULL;
        }
    }
    return region_ptr(exec, &region);
}

/* Every local rank's input at b's offset reduced into a (and every rank's output at a's
 * offset): on the device one kernel that reads each once and writes each once; in the
 * simulator, on host memory, two by two into a, then copied. */
static gdc_status_t reduce_all(gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    const gdc_coll_args_t *args  = &exec->sched->args;
    int                    n     = args->size, ndst = step->slot ? n : 1;
    size_t                 count = step->a.length / args->dsize;
    void                  *dst[GDC_COLL_CUDA_MANY_MAX];
    const void            *src[GDC_COLL_CUDA_MANY_MAX];
    gdc_status_t           status;

    if (n > GDC_COLL_CUDA_MANY_MAX) {
        return GDC_ERR_INTERNAL;
    }
    if (step->a.length == 0) {
        return GDC_SUCCESS;
    }
    status = reach_peers(exec, step);
    if (status != GDC_SUCCESS) {
        return status;
    }
    dst[0] = region_ptr(exec, &step->a);
    for (int p = 0; p < n; p++) {
        src[p] = user_of(exec, GDC_COLL_INPUT, p, &step->b);
        if (p > 0 && p < ndst) {
            dst[p] = user_of(exec, GDC_COLL_OUTPUT, (args->rank + p) % n, &step->a);
        }
        if (src[p] == NULL || (p < ndst && dst[p] == NULL)) {
            return GDC_ERR_INTERNAL;
        }
    }
    if (exec->on_device) {
        exec->gpu_queued = 1;
        return gdc_coll_reduce_many_cuda_queued(dst, ndst, src, n, count, args->dtype, args->op, n);
    }
    gdc_coll_reduce_host(dst[0], src[0], src[1], count, args->dtype, args->op);
    for (int p = 2; p < n; p++) {
        gdc_coll_reduce_host(dst[0], dst[0], src[p], count, args->dtype, args->op);
    }
    if (args->op == GDC_AVG) {
        gdc_coll_avg_finish_host(dst[0], count, args->dtype, n);
    }
    for (int d = 1; d < ndst; d++) {
        gdc_coll_copy_host(dst[d], dst[0], step->a.length);
    }
    return GDC_SUCCESS;
}

/* A device step of an ipc algorithm, queued (GDC_DEVICE_QUEUE). */
static gdc_status_t queue_local(gdc_coll_exec_t *exec, const gdc_coll_step_t *step, void *dst, size_t count)
{
    const gdc_coll_args_t *args = &exec->sched->args;
    gdc_status_t           status;

    switch (step->kind) {
    case GDC_COLL_STEP_REDUCE:
        status = gdc_coll_reduce_cuda_queued(dst, region_ptr(exec, &step->b), region_ptr(exec, &step->c), count,
                                             args->dtype, args->op);
        break;
    case GDC_COLL_STEP_COPY:
        status = gdc_coll_cuda_copy_queued(dst, region_ptr(exec, &step->b), step->a.length);
        break;
    case GDC_COLL_STEP_AVG:
        status = gdc_coll_avg_finish_cuda_queued(dst, count, args->dtype, args->size);
        break;
    default:
        return GDC_ERR_INTERNAL;
    }
    exec->gpu_queued |= status == GDC_SUCCESS;
    return status;
}

static gdc_status_t run_local(gdc_coll_exec_t *exec, const gdc_coll_step_t *step)
{
    const gdc_coll_args_t *args  = &exec->sched->args;
    size_t                 count = step->a.length / args->dsize;
    void                  *dst   = region_ptr(exec, &step->a);

    if (peers_direct(exec) && step->a.length > 0 &&
        (step->kind == GDC_COLL_STEP_REDUCE || step->kind == GDC_COLL_STEP_COPY || step->kind == GDC_COLL_STEP_AVG)) {
        gdc_status_t status = reach_peers(exec, step);

        if (status != GDC_SUCCESS) {
            return status;
        }
        dst = region_ptr(exec, &step->a);
    }
    if (step->kind == GDC_COLL_STEP_REDUCE_ALL) {
        return reduce_all(exec, step);
    }
    if (queue_gpu(exec) && step->kind != GDC_COLL_STEP_NOP && step->kind != GDC_COLL_STEP_SIGNAL) {
        return queue_local(exec, step, dst, count);
    }
    switch (step->kind) {
    case GDC_COLL_STEP_REDUCE:
        if (exec->on_device) {
            return gdc_coll_reduce_cuda(dst, region_ptr(exec, &step->b), region_ptr(exec, &step->c),
                                        count, args->dtype, args->op);
        }
        gdc_coll_reduce_host(dst, region_ptr(exec, &step->b), region_ptr(exec, &step->c), count,
                             args->dtype, args->op);
        return GDC_SUCCESS;
    case GDC_COLL_STEP_COPY:
        if (step->a.length == 0) {
            return GDC_SUCCESS; /* its regions may be NULL, which memcpy must not get even for 0 bytes */
        }
        if (exec->sched->peer_user && !peers_direct(exec) &&
            (gdc_coll_rgn_is_peer_user(&step->a) || gdc_coll_rgn_is_peer_user(&step->b))) {
            return copy_with_peer(exec, step);
        }
        if (exec->on_device) {
            return gdc_rt_cuda_copy(dst, region_ptr(exec, &step->b), step->a.length);
        }
        if (exec->stream_output && step->a.buf == GDC_COLL_OUTPUT) {
            gdc_coll_copy_stream(dst, region_ptr(exec, &step->b), step->a.length);
        } else {
            gdc_coll_copy_host(dst, region_ptr(exec, &step->b), step->a.length);
        }
        return GDC_SUCCESS;
    case GDC_COLL_STEP_AVG:
        if (exec->on_device) {
            return gdc_coll_avg_finish_cuda(dst, count, args->dtype, args->size);
        }
        gdc_coll_avg_finish_host(dst, count, args->dtype, args->size);
        return GDC_SUCCESS;
    case GDC_COLL_STEP_NOP:
        return GDC_SUCCESS;
    case GDC_COLL_STEP_SIGNAL:
        return signal_peers(exec, step);
    default:
        return GDC_ERR_INTERNAL;
    }
}

/* Start every ready step; message steps that complete at once and local steps complete
 * here, which may make more steps ready. */
static void run_ready(gdc_coll_exec_t *exec)
{
    while (exec->queue_head < exec->queue_tail && !exec->finished) {
        uint32_t               s    = exec->queue[exec->queue_head++];
        const gdc_coll_step_t *step = &exec->sched->steps[s];
        gdc_status_t           status = GDC_SUCCESS;

        if (step->kind == GDC_COLL_STEP_SEND || step->kind == GDC_COLL_STEP_RECV) {
            status = drain_gpu(exec);
            if (status != GDC_SUCCESS) {
                fail(exec, status);
                return;
            }
            if (!exec->transport->post(exec, s, region_ptr(exec, &step->a), step->a.length, &status)) {
                exec->inflight[exec->num_inflight++] = s;
                continue;
            }
        } else if (step->kind == GDC_COLL_STEP_WAIT) {
            if (!wait_satisfied(exec, step)) {
                exec->inflight[exec->num_inflight++] = s;
                continue;
            }
        } else {
            status = run_local(exec, step);
        }
        if (status != GDC_SUCCESS) {
            fail(exec, status);
            return;
        }
        complete(exec, s);
    }
}

/* A copy of a device buffer that peers cannot map, in gdc's own device memory (grown as
 * calls need): the buffer's contents copied in (an output's too: in place, or where the call
 * writes only part of it, the rest must come back unchanged). */
static gdc_status_t shadow(gdc_coll_exec_t *exec, int which, size_t bytes)
{
    char        *user = exec->base[which];
    gdc_status_t status;

    if (exec->shadow_bytes[which] < bytes) {
        gdc_rt_cuda_free(exec->shadow[which]);
        exec->shadow[which]       = NULL;
        exec->shadow_bytes[which] = 0;
        status                    = gdc_rt_cuda_alloc(user, bytes, (void **)&exec->shadow[which]);
        if (status != GDC_SUCCESS) {
            return status;
        }
        exec->shadow_bytes[which] = bytes;
    }
    status = bytes > 0 ? gdc_rt_cuda_copy(exec->shadow[which], user, bytes) : GDC_SUCCESS;
    if (status == GDC_SUCCESS) {
        exec->base[which] = exec->shadow[which];
    }
    return status;
}

/* Device buffers from cuMemCreate or a memory pool have no legacy CUDA IPC handle: the
 * ipc algorithms run on shadows of them, and the output's goes back at the end. */
static gdc_status_t shadow_unmappable(gdc_coll_exec_t *exec)
{
    const gdc_coll_args_t *args      = &exec->sched->args;
    char                  *in        = exec->base[GDC_COLL_INPUT], *out = exec->base[GDC_COLL_OUTPUT];
    size_t                 in_bytes  = gdc_coll_input_bytes(args), out_bytes = gdc_coll_output_bytes(args);
    /* a buffer of no bytes here (a reduce's output off the root) is never reached */
    int                    in_shadow = in != NULL && in_bytes > 0 && !gdc_rt_cuda_ipc_capable(in);
    int                    out_shadow = out != NULL && out_bytes > 0 && !gdc_rt_cuda_ipc_capable(out);
    gdc_status_t           status    = GDC_SUCCESS;

    if (!in_shadow && !out_shadow) {
        return GDC_SUCCESS;
    }
    GDC_LOG_WARN_ONCE("a device buffer of a %s has no CUDA IPC handle (cuMemCreate or memory-pool memory): gdc "
                      "copies it through its own device memory for the peers, one device copy each way per call; "
                      "buffers from cudaMalloc need none",
                      gdc_coll_type_name(args->coll));
    if (out_shadow) {
        /* in place the one buffer holds the input (reduce_scatter's is the larger) */
        exec->user_output = out;
        status = shadow(exec, GDC_COLL_OUTPUT, in == out && in_bytes > out_bytes ? in_bytes : out_bytes);
    }
    if (status == GDC_SUCCESS && in_shadow) {
        if (in == out && out_shadow) {
            exec->base[GDC_COLL_INPUT] = exec->base[GDC_COLL_OUTPUT];
        } else {
            status = shadow(exec, GDC_COLL_INPUT, in_bytes);
        }
    }
    return status;
}

void gdc_coll_exec_start(gdc_coll_exec_t *exec)
{
    if (exec->sched->peer_user) {
        /* before any step: the first signal (a release) makes it visible */
        if (exec->on_device) {
            gdc_status_t status = gdc_rt_cuda_wait_caller(device_of(exec));

            if (status == GDC_SUCCESS) {
                status = shadow_unmappable(exec);
            }
            if (status != GDC_SUCCESS) {
                fail(exec, status);
                return;
            }
            gdc_rt_shm_publish_user_ipc(exec->shm, exec->base[GDC_COLL_INPUT], exec->base[GDC_COLL_OUTPUT]);
        } else {
            gdc_rt_shm_publish_user(exec->shm, exec->base[GDC_COLL_INPUT], exec->base[GDC_COLL_OUTPUT]);
        }
    }
    run_ready(exec);
}

int gdc_coll_exec_progress(gdc_coll_exec_t *exec)
{
    int moved = 0;

    for (uint32_t i = 0; i < exec->num_inflight && !exec->finished;) {
        uint32_t s      = exec->inflight[i];
        gdc_status_t status = GDC_SUCCESS;
        int      done;

        if (exec->sched->steps[s].kind == GDC_COLL_STEP_WAIT) {
            /* the transport says whether the peer is still there to raise it */
            done = wait_satisfied(exec, &exec->sched->steps[s]) || exec->transport->test(exec, s, &status);
        } else {
            done = exec->transport->test(exec, s, &status);
        }
        if (!done) {
            i++;
            continue;
        }
        exec->inflight[i] = exec->inflight[--exec->num_inflight];
        moved             = 1;
        if (status != GDC_SUCCESS) {
            fail(exec, status);
            return 1;
        }
        complete(exec, s);
    }
    if (moved) {
        run_ready(exec);
    }
    return moved;
}

void gdc_coll_exec_abort(gdc_coll_exec_t *exec, gdc_status_t status)
{
    for (uint32_t i = 0; i < exec->num_inflight; i++) {
        if (exec->sched->steps[exec->inflight[i]].kind != GDC_COLL_STEP_WAIT) {
            exec->transport->cancel(exec, exec->inflight[i], status);
        }
    }
    exec->num_inflight = 0;
    exec->status       = status;
    (void)drain_gpu(exec); /* nothing queued may still read or write the buffers after this */
    release_peers(exec);
    exec->finished     = 1;
}

int gdc_coll_exec_oldest_inflight(const gdc_coll_exec_t *exec)
{
    int oldest = -1;

    for (uint32_t i = 0; i < exec->num_inflight; i++) {
        if (oldest < 0 || exec->inflight[i] < (uint32_t)oldest) {
            oldest = (int)exec->inflight[i];
        }
    }
    return oldest;
}
