/*
 * The runtime's part of gdc_init and gdc_finalize (api/gdc.c runs them around the layers
 * above), and the life-cycle calls that are the runtime's alone: gdc_initialized,
 * gdc_version_string, gdc_abort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>

#include "config.h"
#include "gdc_rt.h"
#include "rt_calib.h"
#include "rt_msg.h"
#include "rt_stage.h"
#include "rt_topo.h"

static int initialized;
static int finalized;

int gdc_rt_is_initialized(void)
{
    return initialized;
}

gdc_status_t gdc_rt_check_can_init(void)
{
    if (initialized || finalized) {
        GDC_LOG_ERROR("gdc_init: gdc is %s", initialized ? "already initialized" :
                                                        "finalized and cannot be initialized again");
        return GDC_ERR_INVALID_ARG;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_init(void)
{
    gdc_status_t status;

    gdc_rt_topo_register_params();
    status = gdc_rt_config_load();
    if (status != GDC_SUCCESS) {
        return status;
    }
    /* Before anything starts a thread: its probes fork. */
    (void)gdc_rt_calib_prepare();
    (void)gdc_rt_cuda_load();
    status = gdc_rt_boot_init();
    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_rt_calib_publish();
    if (status != GDC_SUCCESS) {
        goto err_boot;
    }
    status = gdc_rt_ucx_init();
    if (status != GDC_SUCCESS) {
        goto err_boot;
    }
    /* After UCX (GPUDirect needs to know whether UCX moves CUDA memory), before the fence
     * (the topology record travels with the UCX address). */
    status = gdc_rt_topo_init();
    if (status != GDC_SUCCESS) {
        goto err_ucx;
    }
    status = gdc_rt_comm_world_prepare();
    if (status == GDC_SUCCESS) {
        status = gdc_rt_boot_exchange();
    }
    if (status != GDC_SUCCESS) {
        goto err_topo;
    }
    gdc_rt_calib_agree();
    gdc_rt_topo_report();
    gdc_rt_progress_init(gdc_rt_boot.local_size);
    return GDC_SUCCESS;

err_topo:
    gdc_rt_comm_world_unprepare();
    gdc_rt_topo_finalize();
err_ucx:
    gdc_rt_ucx_finalize();
err_boot:
    gdc_rt_calib_finalize();
    gdc_rt_boot_finalize();
    return status;
}

void gdc_rt_init_undo(void)
{
    gdc_rt_comm_world_unprepare();
    gdc_rt_topo_finalize();
    gdc_rt_ucx_finalize();
    gdc_rt_calib_finalize();
    gdc_rt_boot_finalize();
}

gdc_status_t gdc_rt_init_world(void)
{
    gdc_status_t status = gdc_rt_comm_world_init();

    if (status != GDC_SUCCESS) {
        return status;
    }
    initialized = 1;
    GDC_LOG_INFO("gdc %s: rank %d of %d on %s (node %d of %d, local rank %d of %d), launcher %s",
                 PACKAGE_VERSION, gdc_rt_boot.rank, gdc_rt_boot.size,
                 gdc_rt_boot.node_names[gdc_rt_boot.node_of[gdc_rt_boot.rank]],
                 gdc_rt_boot.node_of[gdc_rt_boot.rank], gdc_rt_boot.num_nodes, gdc_rt_boot.local_rank,
                 gdc_rt_boot.local_size, gdc_rt_boot.launcher);
    return GDC_SUCCESS;
}

/*
 * While gdc_finalize's barrier waits for every rank: UCX progressed (see below), and the
 * world's ranks watched, since a rank that failed never comes and its PMIx fence would
 * wait for it for ever. A rank found gone may instead have passed the fence and exited
 * before this rank's PMIx client delivered the fence's end (seen under load), so the wait
 * goes on GDC_RT_CLOSING_GRACE seconds more before it ends with GDC_ERR_PEER_FAILED. It
 * ends with GDC_ERR_TIMEOUT after GDC_TIMEOUT; GDC_STALL_WARN's lines say it waits.
 */
#define GDC_RT_CLOSING_GRACE 2.0

static double         finalize_start, finalize_next_look, finalize_gone_seen;
static gdc_rt_stall_t finalize_stall;

static void describe_finalize_wait(void *arg, char *buf, size_t len)
{
    (void)arg;
    snprintf(buf, len, "gdc_finalize: rank %d waits for every rank's gdc_finalize at the job's closing barrier",
             gdc_rt_boot.rank);
}

static gdc_status_t finalize_barrier_progress(void)
{
    double now;
    int    failed;

    gdc_rt_ucx_progress();
    now = gdc_wtime();
    if (now < finalize_next_look) {
        return GDC_SUCCESS;
    }
    finalize_next_look = now + GDC_RT_WATCH_INTERVAL;
    gdc_rt_comm_watch_member(GDC_COMM_WORLD);
    if ((failed = gdc_rt_comm_failed_member(GDC_COMM_WORLD)) >= 0) {
        if (finalize_gone_seen == 0) {
            finalize_gone_seen = now;
        }
        if (now - finalize_gone_seen < GDC_RT_CLOSING_GRACE) {
            return GDC_SUCCESS;
        }
        GDC_LOG_WARN("gdc_finalize: rank %d failed: not waiting for it at the job's closing barrier "
                     "(GDC_ERR_PEER_FAILED)", failed);
        return GDC_ERR_PEER_FAILED;
    }
    return gdc_rt_stall_check(&finalize_stall, now, now - finalize_start, describe_finalize_wait, NULL);
}

gdc_status_t gdc_rt_finalize_begin(void)
{
    gdc_status_t barrier_status;

    gdc_rt_request_abort_all(GDC_ERR_NOT_INITIALIZED);
    (void)gdc_rt_ucx_flush();
    /* Nobody tears down its endpoints while a peer may still send to it (or still flush
     * towards it: hence UCX progress while the barrier waits). */
    finalize_start     = gdc_wtime();
    finalize_next_look = 0;
    /* a rank known failed before gdc_finalize gets no grace */
    finalize_gone_seen = gdc_rt_comm_failed_member(GDC_COMM_WORLD) >= 0 ? finalize_start - GDC_RT_CLOSING_GRACE : 0;
    finalize_stall     = (gdc_rt_stall_t){0, 0};
    gdc_rt_ucx_closing(1);
    barrier_status = gdc_rt_boot_barrier(finalize_barrier_progress);
    gdc_rt_ucx_closing(0);
    if (barrier_status == GDC_SUCCESS && finalize_gone_seen >= finalize_start) {
        GDC_LOG_INFO("gdc_finalize: the closing barrier ended; the rank that is gone had passed it");
    }
    if (barrier_status == GDC_ERR_TRANSPORT) {
        /* a PMIx server may fail the fence of a job one of whose ranks died: say so */
        for (int i = 0; i < gdc_rt_boot.size; i++) {
            gdc_rt_comm_watch_member(GDC_COMM_WORLD);
        }
        barrier_status = gdc_rt_comm_failed_member(GDC_COMM_WORLD) >= 0 ? GDC_ERR_PEER_FAILED : barrier_status;
    }
    gdc_rt_comm_finalize_all();
    return barrier_status;
}

void gdc_rt_finalize_end(void)
{
    gdc_rt_topo_finalize();
    gdc_rt_ucx_finalize();
    gdc_rt_stage_finalize();
    gdc_rt_msg_finalize();
    gdc_rt_calib_finalize();
    gdc_rt_boot_finalize();
    initialized = 0;
    finalized   = 1;
}

gdc_status_t gdc_initialized(int *flag)
{
    gdc_status_t status = gdc_rt_check_pointer("gdc_initialized", "flag", flag);

    if (status != GDC_SUCCESS) {
        return status;
    }
    *flag = initialized;
    return GDC_SUCCESS;
}

const char *gdc_version_string(void)
{
    static char version[256];

    if (version[0] == '\0') {
        snprintf(version, sizeof(version), "gdc %s (UCX %s, PMIx %s, hwloc %s, CUDA kernels %s)",
                 PACKAGE_VERSION, gdc_rt_ucx_version(), GDC_BUILD_PMIX_VERSION, GDC_BUILD_HWLOC_VERSION,
#ifdef GDC_HAVE_CUDA
                 GDC_BUILD_CUDA_VERSION
#else
                 "not built"
#endif
        );
    }
    return version;
}

gdc_status_t gdc_abort(gdc_comm_t comm, int errorcode)
{
    char         msg[128];
    gdc_status_t status = gdc_rt_check_comm("gdc_abort", comm);

    if (status != GDC_SUCCESS) {
        return status;
    }
    snprintf(msg, sizeof(msg), "gdc_abort(%d) called by rank %d", errorcode, gdc_rt_boot.rank);
    GDC_LOG_ERROR("%s: ending the job", msg);
    gdc_rt_boot_abort(errorcode, msg);
    /* The launcher kills us; if it does not, leave anyway. */
    _exit(errorcode);
}
