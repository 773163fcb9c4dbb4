/*
 * LD_PRELOAD shim for tests: on the rank named by GDC_TEST_SLOW_FENCE_RANK, the callback
 * of PMIx_Fence_nb (gdc_finalize's closing barrier) comes GDC_TEST_SLOW_FENCE_MS late
 * (default 1000), as when a loaded machine deschedules that rank's PMIx client, so the
 * other ranks pass the barrier and exit while that rank still waits in it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pmix.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef pmix_status_t (*fence_nb_fn)(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

static struct {
    pmix_op_cbfunc_t cbfunc;
    void            *cbdata;
    pmix_status_t    status;
    long             delay_ms;
} late;

static void *deliver_late(void *arg)
{
    struct timespec delay = {late.delay_ms / 1000, (late.delay_ms % 1000) * 1000000L};

    (void)arg;
    nanosleep(&delay, NULL);
    late.cbfunc(late.status, late.cbdata);
    return NULL;
}

static void fence_done_early(pmix_status_t status, void *cbdata)
{
    pthread_t thread;

    (void)cbdata;
    late.status = status;
    if (pthread_create(&thread, NULL, deliver_late, NULL) != 0) {
        late.cbfunc(status, late.cbdata);
        return;
    }
    pthread_detach(thread);
}

/* What the rank starts (ASan's symbolizer, in the sanitizer build) must not load the shim:
 * a program not built with ASan cannot. */
__attribute__((constructor)) static void forget_preload(void)
{
    unsetenv("LD_PRELOAD");
}

static int slow_rank(void)
{
    const char *want = getenv("GDC_TEST_SLOW_FENCE_RANK");
    const char *mine = getenv("PMIX_RANK");

    return want != NULL && mine != NULL && strcmp(want, mine) == 0;
}

pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    fence_nb_fn real = (fence_nb_fn)(void (*)(void))dlsym(RTLD_NEXT, "PMIx_Fence_nb");
    const char *ms   = getenv("GDC_TEST_SLOW_FENCE_MS");

    if (real == NULL) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (cbfunc == NULL || !slow_rank()) {
        return real(procs, nprocs, info, ninfo, cbfunc, cbdata);
    }
    late.cbfunc   = cbfunc;
    late.cbdata   = cbdata;
    late.delay_ms = ms != NULL ? atol(ms) : 1000;
    return real(procs, nprocs, info, ninfo, fence_done_early, NULL);
}
