/* Starting a collective in a real job, and the engine's place in the runtime: the
 * per-communicator state and the progress hook. */
#include <stdlib.h>

#include "engine/engine.h"
#include "engine/run.h"

int gdc_coll_buffers_on_device(const gdc_coll_buffers_t *bufs)
{
    return gdc_rt_memtype_of(bufs->input) == GDC_RT_MEM_CUDA || gdc_rt_memtype_of(bufs->output) == GDC_RT_MEM_CUDA;
}

/* Host, or CUDA device memory (a device buffer and a host one in one call is refused). */
static gdc_status_t buffers_memtype(const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, int *on_device)
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

static gdc_status_t completed_request(struct gdc_request **out)
{
    static const gdc_rt_request_ops_t done_ops = {.name = "empty collective", .abort = NULL};
    struct gdc_request               *req      = gdc_rt_request_new(&done_ops);

    if (req == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    req->completed = 1;
    req->status    = GDC_SUCCESS;
    *out           = req;
    return GDC_SUCCESS;
}

/* The kept run of the entry, or a new one. */
static gdc_status_t take_run(gdc_coll_entry_t *entry, gdc_coll_sched_t *sched, int on_device, const void *near,
                             gdc_coll_run_t **run)
{
    if (entry != NULL && entry->spare != NULL && entry->spare->main.on_device == on_device) {
        *run         = entry->spare;
        entry->spare = NULL;
        return GDC_SUCCESS;
    }
    return gdc_coll_run_alloc(run, sched, entry, on_device, near);
}

/* GDC_CHECK: the signatures' allgather before the call (its shape is the same on every
 * rank whatever the call, so it always meets the others'). */
static gdc_status_t add_check(struct gdc_comm *comm, gdc_coll_run_t *run, const gdc_coll_args_t *args)
{
    gdc_coll_comm_t       *cc    = comm->coll;
    gdc_coll_args_t        check = gdc_coll_check_args(args);
    gdc_coll_sig_t         mine  = gdc_coll_sig_of(args, comm->coll_seq + 1, 0);
    const gdc_coll_algo_t *algo  = gdc_coll_cache_algo(&cc->cache, &check);
    gdc_coll_entry_t      *entry = NULL;
    gdc_coll_sched_t      *sched;
    gdc_status_t           status;

    if (algo == NULL) {
        GDC_LOG_ERROR("internal: no allgather for GDC_CHECK's signatures");
        return GDC_ERR_INTERNAL;
    }
    status = gdc_coll_cache_sched(&cc->cache, algo, &check, &entry, &sched);
    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_coll_run_add_check(run, sched, entry, &mine);
    if (status != GDC_SUCCESS && entry == NULL) {
        gdc_coll_sched_free(sched);
    }
    return status;
}

gdc_status_t gdc_coll_comm_usable(struct gdc_comm *comm)
{
    int failed = gdc_rt_comm_failed_member(comm);

    if (failed < 0) {
        return GDC_SUCCESS;
    }
    GDC_LOG_DEBUG("a collective on a communicator whose rank %d (world) has failed: GDC_ERR_PEER_FAILED", failed);
    return GDC_ERR_PEER_FAILED;
}

static gdc_status_t start(struct gdc_comm *comm, const gdc_coll_args_t *call, const gdc_coll_buffers_t *bufs,
                          int checked, struct gdc_request **out)
{
    gdc_coll_args_t        args = *call;
    gdc_coll_comm_t       *cc   = comm->coll;
    const gdc_coll_algo_t *algo;
    gdc_coll_entry_t      *entry = NULL;
    gdc_coll_sched_t      *sched;
    gdc_coll_run_t        *run;
    char                  *base[GDC_COLL_NUM_BUFS];
    gdc_status_t           status;

    if (gdc_coll_is_empty(&args) && !checked) {
        return completed_request(out);
    }
    if ((status = gdc_coll_comm_usable(comm)) != GDC_SUCCESS) {
        return status;
    }
    status = buffers_memtype(&args, bufs, &args.on_device);
    if (status != GDC_SUCCESS) {
        return status;
    }
    algo = gdc_coll_cache_algo(&cc->cache, &args);
    if (algo == NULL) {
        GDC_LOG_ERROR("internal: no algorithm for %s", gdc_coll_type_name(args.coll));
        return GDC_ERR_INTERNAL;
    }
    status = gdc_coll_cache_sched(&cc->cache, algo, &args, &entry, &sched);
    if (status != GDC_SUCCESS) {
        return status;
    }
    status = take_run(entry, sched, args.on_device, bufs->probe, &run);
    if (status != GDC_SUCCESS) {
        goto err_sched;
    }
    if (checked && (status = add_check(comm, run, &args)) != GDC_SUCCESS) {
        goto err_run;
    }
    base[GDC_COLL_INPUT]   = (char *)bufs->input;
    base[GDC_COLL_OUTPUT]  = bufs->output;
    base[GDC_COLL_SCRATCH] = run->main.scratch;
    status = gdc_coll_run_launch(run, comm, base, out);
    if (status != GDC_SUCCESS) {
        goto err_run;
    }
    GDC_LOG_DEBUG("%s(%s) seq %u: %zu x %s on %d ranks%s", gdc_coll_type_name(args.coll), algo->name, run->main.seq,
                  args.count, gdc_rt_dtype_name(args.dtype), args.size, checked ? ", signatures checked first" : "");
    return GDC_SUCCESS;

err_run:
    gdc_coll_run_free(run); /* a schedule of the cache stays there */
    return status;
err_sched:
    if (entry == NULL) {
        gdc_coll_sched_free(sched);
    }
    return status;
}

gdc_status_t gdc_coll_start(struct gdc_comm *comm, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs,
                            struct gdc_request **out)
{
    return start(comm, args, bufs, gdc_coll_check_on(args), out);
}

gdc_status_t gdc_coll_start_unchecked(struct gdc_comm *comm, const gdc_coll_args_t *args,
                                      const gdc_coll_buffers_t *bufs, struct gdc_request **out)
{
    return start(comm, args, bufs, 0, out);
}

const struct gdc_coll_layout *gdc_coll_comm_layout(struct gdc_comm *comm, const gdc_coll_args_t *args)
{
    gdc_coll_comm_t *cc = comm->coll;

    if (!cc->layout_ready) {
        gdc_coll_args_t at_0 = *args; /* trees rooted at 0; other roots' made when chosen for */
        at_0.root            = 0;
        gdc_coll_layout_of(&at_0, &cc->layout);
        cc->layout_ready = 1;
    }
    return &cc->layout;
}

/* ---------------------------------------------------------------------------------------
 * The engine in the runtime
 */

static gdc_status_t comm_created(struct gdc_comm *comm)
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
    gdc_coll_cache_clear(&cc->cache);
    free(cc);
    comm->coll = NULL;
}

static const gdc_rt_comm_hooks_t comm_hooks = {comm_created, comm_destroyed};

void gdc_coll_engine_init(void)
{
    gdc_rt_comm_set_hooks(&comm_hooks);
    gdc_rt_progress_set_hook(gdc_coll_run_progress_all);
}

void gdc_coll_engine_finalize(void)
{
    gdc_rt_progress_set_hook(NULL);
    gdc_coll_run_forget_all();
}
