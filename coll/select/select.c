/*
 * The choice of an algorithm for a call: GDC_<COLL>_ALGO when set, else the tuning file's
 * rule for the call's size, else the cheapest on the cost model.
 */
#include "select/select.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gdc_coll.h"
#include "gdc_rt.h"
#include "rt_calib.h"
#include "rt_topo.h"
#include "select/price.h"
#include "select/table.h"
#include "select/tuning.h"

gdc_coll_machine_t gdc_coll_machine;

static gdc_coll_select_config_t config;
static gdc_coll_tuning_t        tuning;
/* The numbers in force measured cross-memory attach (its call, and in cache) and the copy
 * out of a peer's shared memory: the GDC_COLL_ALGO_FLAG_MEASURED algorithms are the model's
 * to choose (coll.h). */
static int cma_measured;

/* Under measured numbers, the machine without them: a measured number changes the choice
 * only where the measured prices make the new choice clearly cheaper than the built-in
 * numbers' (CALIBRATED_GAIN). The model is within about 20% of a call on the development
 * VM, where near ties of shm, shm_direct and cma priced 3 to 5% apart under measured peer
 * copies ran 1.17 to 1.23 times as long as the built-in choice (bench/RESULTS.md
 * 2026-12-06).
 *
 * Where a node's ranks outnumber its cores, the measured numbers do not choose the
 * GDC_COLL_ALGO_FLAG_OWN_CORES algorithms: on 4 ranks of the development VM's 2 cores
 * allgather cma (3 copies of a block where shm makes 4) took 1.06 to 1.13 of shm's time
 * from 128 KiB to 1 MiB and bcast cma 1.11 and 1.21 at 256 and 512 KiB, the cores' copies
 * in cache, priced from the probe's 256 KiB, running at half that rate once four ranks'
 * blocks of 1 MiB pass through them; alltoall cma and gather cma, which spare the cores
 * half their copies or more, took 0.57 to 0.82 of the built-in choice's time from 128 KiB
 * to 8 MiB and 0.35 to 0.91 from 128 KiB (bench/RESULTS.md 2026-12-06 08:16-08:55: the
 * first A/B run for allgather and bcast, the second for alltoall and gather).
 * A copy larger than a core's cache does not run in it whichever algorithm makes it: there,
 * while the call's buffers fill at most half the last-level cache, the measured choice
 * stands, and cma reads what it copies out of that cache (the same 4 ranks, a core's cache
 * 2 MiB, the last-level cache 260 MiB; 7 and 9 interleaved runs: bcast cma 0.95 to 0.90 of
 * shm's time from 4 to 16 MiB (16 to 64 MiB of buffers), 1.13 and 1.12 at 1 and 2 MiB;
 * allgather cma 0.94 and 0.97 at blocks of 4 MiB (80 MiB), 1.05 to 1.59 from 128 KiB to
 * 2 MiB, 1.16 and 1.10 at 8 and 16 MiB (160 and 320 MiB), where shm's ring spares the
 * memory a read of every block; bench/RESULTS.md 2026-12-06 18:45-20:12 UTC). */
static gdc_coll_machine_t built_in_machine;
static int                calibrated;
#define CALIBRATED_GAIN 0.9

static int measured_choice_stands(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    double copy = (double)args->count * (double)args->dsize; /* bcast's vector, allgather's block */
    double llc  = (double)gdc_coll_machine.llc_mib * 1024 * 1024;

    return !(algo->flags & GDC_COLL_ALGO_FLAG_OWN_CORES) || !gdc_coll_oversubscribed(args) ||
           (args->core_cache > 0 && copy > (double)args->core_cache && gdc_coll_node_buffer_bytes(args) <= llc / 2);
}

static int supports(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    return algo->supports == NULL || algo->supports(args);
}

/* Every forced name must exist: checked once at init, so a typo fails gdc_init with the
 * list of valid names instead of surprising later. */
static gdc_status_t check_forced(void)
{
    for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
        gdc_coll_type_t coll = (gdc_coll_type_t)c;
        const char     *name = config.forced[c];
        char            valid[256], var[32];

        if (name == NULL || gdc_coll_algo_find(coll, name) != NULL) {
            continue;
        }
        gdc_coll_algo_names(coll, valid, sizeof(valid));
        snprintf(var, sizeof(var), "GDC_%s_ALGO", gdc_coll_type_name(coll));
        for (char *p = var; *p != '\0'; p++) {
            *p = (char)toupper((unsigned char)*p);
        }
        GDC_LOG_ERROR("%s=%s names no %s algorithm; valid names: %s", var, name, gdc_coll_type_name(coll), valid);
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

/* The chunks of the live configuration, host and device buffers, worked out once: every
 * call asks for them. */
static const gdc_coll_config_t *chunks_config;
static size_t                   chunks_of[2][2]; /* [on_device]: chunk_in, chunk_out */

static void remember_chunks(void)
{
    gdc_coll_args_t args;

    memset(&args, 0, sizeof(args));
    args.config = chunks_config = gdc_coll_config_get();
    for (int device = 0; device < 2; device++) {
        args.on_device = device;
        gdc_coll_machine_chunks(&gdc_coll_machine, &args);
        chunks_of[device][0] = args.chunk_in;
        chunks_of[device][1] = args.chunk_out;
    }
}

void gdc_coll_select_chunks(gdc_coll_args_t *args)
{
    if (args->config != chunks_config) {
        gdc_coll_machine_chunks(&gdc_coll_machine, args);
        return;
    }
    args->chunk_in  = chunks_of[args->on_device != 0][0];
    args->chunk_out = chunks_of[args->on_device != 0][1];
}

/* This node's measured costs in place of the built-in host numbers (rt_calib.h): what the
 * shared-memory algorithms copy, reduce, signal and reach each other's buffers with, and
 * UCX's shared memory. A number that could not be measured keeps the built-in one. */
static void apply_calibration(gdc_coll_machine_t *m, const gdc_rt_calib_t *calib)
{
    const gdc_rt_calib_numbers_t *n = &calib->n;

    m->copy_bw        = n->copy_gbs > 0 ? n->copy_gbs * 1e9 : m->copy_bw;
    m->reduce_bw      = n->reduce_gbs > 0 ? n->reduce_gbs * 1e9 : m->reduce_bw;
    /* a job measures the read across of a large buffer against a copy, not either's rate
     * from memory: then the copy's at that ratio */
    m->cma_bw         = n->cma_gbs > 0          ? n->cma_gbs * 1e9
                        : n->cma_copy_ratio > 0 ? m->copy_bw / n->cma_copy_ratio
                                                : m->cma_bw;
    m->cma_latency    = n->cma_us > 0 ? n->cma_us * 1e-6 : m->cma_latency;
    /* measured as what it is: a copy of lines another process has just written */
    m->copy_bw_peer_cached   = n->copy_cached_gbs > 0 ? n->copy_cached_gbs * 1e9 : m->copy_bw_peer_cached;
    m->reduce_bw_peer_cached = n->reduce_cached_gbs > 0 ? n->reduce_cached_gbs * 1e9 : m->reduce_bw_peer_cached;
    /* and a copy into one's own, whose lines the peers read last */
    m->copy_bw_shared_cached = n->copy_shared_cached_gbs > 0 ? n->copy_shared_cached_gbs * 1e9
                                                             : m->copy_bw_shared_cached;
    m->copy_bw_peer_small    = n->copy_peer_small_gbs > 0 ? n->copy_peer_small_gbs * 1e9 : m->copy_bw_peer_small;
    m->cma_bw_cached  = n->cma_cached_gbs > 0 ? n->cma_cached_gbs * 1e9 : m->cma_bw_cached;
    m->signal_latency = n->signal_us > 0 ? n->signal_us * 1e-6 : m->signal_latency;
    if (n->ucx_shm_us > 0 && n->ucx_shm_gbs > 0) {
        m->link[GDC_LINK_SHM].latency   = n->ucx_shm_us * 1e-6;
        m->link[GDC_LINK_SHM].bandwidth = n->ucx_shm_gbs * 1e9;
    }
    cma_measured = n->cma_us > 0 && n->cma_cached_gbs > 0 && n->copy_cached_gbs > 0;
    snprintf(m->name, sizeof(m->name), "calibrated");
    snprintf(m->description, sizeof(m->description), "the built-in machine with host costs %s (GDC_CALIBRATION=%s)",
             gdc_rt_calib_in_job() ? "measured by the job" : "measured on the job's nodes", gdc_rt_calib_setting);
}

/* The live machine: the built-in one or the profile, the calibration in force, this node's
 * cores and cache, GDC_LINK_* on top; then its chunks. */
static gdc_status_t build_machine(void)
{
    gdc_status_t status;

    cma_measured = 0;
    calibrated   = 0;
    gdc_coll_machine_default(&gdc_coll_machine);
    if (config.profile != NULL &&
        (status = gdc_coll_machine_load(&gdc_coll_machine, config.profile)) != GDC_SUCCESS) {
        return status;
    }
    if (config.profile == NULL && gdc_rt_calib.valid) {
        built_in_machine = gdc_coll_machine;
        apply_calibration(&gdc_coll_machine, &gdc_rt_calib);
        calibrated = 1;
    }
    if (config.profile == NULL && gdc_rt_topo_my_node() != NULL) {
        /* this node's cores, for calls whose ranks outnumber them, and its cache, for the
         * cross-memory-attach copies of calls that fit it (a profile says its own) */
        gdc_coll_select_node_counts(gdc_rt_topo_node_cores(), gdc_rt_topo_node_llc_mib(),
                                    gdc_rt_topo_node_core_cache_kib());
    }
    if ((status = gdc_coll_machine_env(&gdc_coll_machine)) != GDC_SUCCESS ||
        (calibrated && (status = gdc_coll_machine_env(&built_in_machine)) != GDC_SUCCESS)) {
        return status;
    }
    remember_chunks();
    return GDC_SUCCESS;
}

gdc_status_t gdc_coll_select_init(const gdc_coll_select_config_t *given)
{
    gdc_status_t status;

    config = *given;
    gdc_coll_tuning_free(&tuning);
    if ((status = build_machine()) != GDC_SUCCESS) {
        return status;
    }
    if (config.tuning != NULL && (status = gdc_coll_tuning_load(&tuning, config.tuning)) != GDC_SUCCESS) {
        return status;
    }
    return check_forced();
}

void gdc_coll_select_node_counts(int cores, int llc_mib, int core_cache_kib)
{
    gdc_coll_machine_t *machines[2] = {&gdc_coll_machine, &built_in_machine};

    for (int i = 0; i < 2; i++) {
        machines[i]->cores_per_node = cores;
        machines[i]->llc_mib        = llc_mib;
        machines[i]->core_cache_kib = core_cache_kib;
    }
}

gdc_status_t gdc_coll_select_remeasured(void)
{
    /* only where the numbers in force changed since: not the profile read again, nor
     * GDC_LINK_* parsed again, at every gdc_init */
    if (config.profile != NULL || gdc_rt_calib.valid == calibrated) {
        return GDC_SUCCESS;
    }
    return build_machine();
}

void gdc_coll_select_finalize(void)
{
    gdc_coll_tuning_free(&tuning);
    memset(&config, 0, sizeof(config));
    chunks_config = NULL;
}

/* Whether an algorithm of the call's collective with that flag supports the call. */
static int flagged_can_run(const gdc_coll_args_t *args, unsigned flag)
{
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];

        if (algo->coll == args->coll && (algo->flags & flag) && supports(algo, args)) {
            return 1;
        }
    }
    return 0;
}

/* Whether an ipc algorithm (device buffers read and written where they lie) can run the
 * call. Where one can, the others are not chosen: their messages carry device buffers
 * through host memory when UCX has no CUDA transport (230 us for 8 bytes on 2 ranks of an
 * H200, 127 ms for 64 MiB: bench/RESULTS.md 2026-12-04), which the model does not price. */
static int ipc_can_run(const gdc_coll_args_t *args)
{
    return args->on_device && args->shm_ipc && flagged_can_run(args, GDC_COLL_ALGO_FLAG_IPC);
}

/* Whether an ipc_leader algorithm can: where the ranks share one GPU, the others are not
 * chosen, since every GPU operation a second rank makes costs a switch between contexts
 * (270 us on an H200, bench/RESULTS.md 2026-12-04 18:11), which the model does not price. */
static int leader_can_run(const gdc_coll_args_t *args)
{
    return args->on_device && args->shm_one_gpu && flagged_can_run(args, GDC_COLL_ALGO_FLAG_ONE_GPU);
}

/* Can the model's choice (not forcing, not tuning) fall on algo for this call? measured:
 * the numbers priced with measured cross-memory attach. */
static int model_may_choose(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args, const gdc_coll_algo_t *skip,
                            int measured)
{
    return algo->coll == args->coll && algo != skip &&
           !(algo->flags & GDC_COLL_ALGO_FLAG_ON_REQUEST) &&
           (!(algo->flags & GDC_COLL_ALGO_FLAG_MEASURED) || measured) &&
           supports(algo, args) &&
           ((algo->flags & GDC_COLL_ALGO_FLAG_IPC) || !ipc_can_run(args)) &&
           ((algo->flags & GDC_COLL_ALGO_FLAG_ONE_GPU) || !leader_can_run(args));
}

/* How many algorithms could run the call (skip aside); *first is the first of them. */
static int candidates(const gdc_coll_args_t *args, const gdc_coll_algo_t *skip, const gdc_coll_algo_t **first)
{
    int count = 0;

    *first = NULL;
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        if (model_may_choose(algo, args, skip, cma_measured)) {
            *first = *first != NULL ? *first : algo;
            count++;
        }
    }
    return count;
}

/* The cheapest supported algorithm on machine m by the closed-form prices (the first in
 * table order on a tie). */
static const gdc_coll_algo_t *cheapest_on(const gdc_coll_machine_t *m, int measured, const gdc_coll_args_t *args,
                                          const gdc_coll_algo_t *skip, double *best_time)
{
    const gdc_coll_algo_t *best = NULL;

    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        double                 seconds;

        if (!model_may_choose(algo, args, skip, measured) ||
            gdc_coll_price(m, algo, args, args->layout, &seconds) != GDC_SUCCESS) {
            continue;
        }
        /* cheaper by more than rounding: sums of the same terms in another order tie */
        if (best == NULL || seconds < *best_time * (1 - 1e-9)) {
            best       = algo;
            *best_time = seconds;
        }
    }
    return best;
}

/* The model's choice: the same inputs on every rank, the same arithmetic, the same choice.
 * An alltoallv's counts are its own rank's, so it takes the first candidate. */
static const gdc_coll_algo_t *cheapest(const gdc_coll_args_t *args, const gdc_coll_algo_t *skip)
{
    const gdc_coll_algo_t *best, *built_in;
    double                 best_time = 0, built_in_time = 0;

    if (candidates(args, skip, &best) <= 1 || args->coll == GDC_COLL_ALLTOALLV) {
        return best;
    }
    best = cheapest_on(&gdc_coll_machine, cma_measured, args, skip, &best_time);
    if (!calibrated || best == NULL ||
        (built_in = cheapest_on(&built_in_machine, 0, args, skip, &built_in_time)) == NULL || built_in == best ||
        gdc_coll_price(&gdc_coll_machine, built_in, args, args->layout, &built_in_time) != GDC_SUCCESS) {
        return best;
    }
    return best_time <= CALIBRATED_GAIN * built_in_time && measured_choice_stands(best, args) ? best : built_in;
}

/* A forced or tuned algorithm that cannot run the call: the next cheapest runs, and the
 * first time for each algorithm the log says so (a loop would repeat it per call). */
static const gdc_coll_algo_t *instead_of(const gdc_coll_algo_t *chosen, const char *how, const gdc_coll_args_t *args)
{
    static unsigned char   told[GDC_COLL_ALGO_COUNT];
    const gdc_coll_algo_t *instead = cheapest(args, chosen);

    if (!told[chosen->id]) {
        told[chosen->id] = 1;
        GDC_LOG_INFO("%s(%s) from %s does not support this call (%zu x %s on %d ranks, %d node(s)); "
                     "using the next cheapest, %s (said once)",
                     gdc_coll_type_name(args->coll), chosen->name, how, args->count, gdc_rt_dtype_name(args->dtype),
                     args->size, args->num_nodes, instead != NULL ? instead->name : "none");
    }
    return instead;
}

const gdc_coll_algo_t *gdc_coll_select(const gdc_coll_args_t *args)
{
    const gdc_coll_algo_t *chosen = NULL;
    const char            *how    = NULL;
    const char            *forced = config.forced[args->coll];
    gdc_coll_args_t        alike;

    if (gdc_coll_is_rooted(args->coll) && args->in_place) {
        /* only the root of a rooted call may be in place, and the others cannot know whether
         * it is: every rank chooses as if it were not */
        alike          = *args;
        alike.in_place = 0;
        args           = &alike;
    }

    if (forced != NULL) {
        chosen = gdc_coll_algo_find(args->coll, forced);
        how    = "GDC_*_ALGO";
    } else if ((chosen = gdc_coll_tuning_lookup(&tuning, args)) != NULL) {
        how = "the tuning file";
    }
    if (chosen == NULL) {
        return cheapest(args, NULL);
    }
    return supports(chosen, args) ? chosen : instead_of(chosen, how, args);
}
