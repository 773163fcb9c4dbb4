/*
 * Fuzz target: a calibration file (GDC_CALIBRATION=FILE, the cache gdinfo --calibrate
 * writes; runtime/rt_calib.c). Beyond not crashing or leaking: a file that is accepted
 * gives six numbers from 0 to 1e6, none of them nan; the worst of it and the built-in
 * example stays within the same bounds, never above either's bandwidth nor below either's
 * latency; and its one-line form fits the line.
 */
#include <math.h>

#include "fuzz.h"

#include "rt_calib.h"

static int in_range(double x)
{
    return isfinite(x) && x >= 0 && x <= 1e6;
}

static void check_numbers(const gdc_rt_calib_numbers_t *n)
{
    FUZZ_CHECK(in_range(n->copy_gbs) && in_range(n->reduce_gbs) && in_range(n->signal_us));
    FUZZ_CHECK(in_range(n->cma_gbs) && in_range(n->cma_us) && in_range(n->ucx_shm_us) && in_range(n->ucx_shm_gbs));
    FUZZ_CHECK(in_range(n->copy_cached_gbs) && in_range(n->cma_cached_gbs) && in_range(n->reduce_cached_gbs));
    FUZZ_CHECK(in_range(n->copy_shared_cached_gbs) && in_range(n->copy_peer_small_gbs));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const gdc_rt_calib_numbers_t example = {.copy_gbs        = 20,
                                                   .reduce_gbs      = 12,
                                                   .signal_us       = 0.1,
                                                   .cma_gbs         = 8,
                                                   .cma_us          = 4,
                                                   .copy_cached_gbs = 40,
                                                   .cma_cached_gbs  = 24,
                                                   .ucx_shm_us      = 0.4,
                                                   .ucx_shm_gbs     = 8};
    gdc_rt_calib_numbers_t              n, worst = example;
    FILE                               *f = fuzz_stream(data, size);
    gdc_status_t                        status;
    char                                line[512];

    if (f == NULL) {
        return 0;
    }
    status = gdc_rt_calib_read_stream(f, "fuzz", &n);
    fclose(f);
    FUZZ_CHECK(status == GDC_SUCCESS || status == GDC_ERR_INVALID_ARG);
    if (status != GDC_SUCCESS) {
        return 0;
    }
    check_numbers(&n);
    gdc_rt_calib_combine(&worst, &n);
    check_numbers(&worst);
    FUZZ_CHECK(worst.copy_gbs <= n.copy_gbs && worst.copy_gbs <= example.copy_gbs);
    FUZZ_CHECK(worst.ucx_shm_us == 0 || (worst.ucx_shm_us >= n.ucx_shm_us && worst.ucx_shm_us >= example.ucx_shm_us));
    gdc_rt_calib_format(&n, line, sizeof(line));
    FUZZ_CHECK(memchr(line, '\0', sizeof(line)) != NULL);
    return 0;
}
