/* gdc_wtime: the clock of gdc.h, which stall warnings, timeouts and benchmarks share; and
 * the coarse one that decides when to look at it. */
#include <time.h>

#include <gdc.h>

#include "rt_request.h"

double gdc_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double gdc_rt_coarse_time(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
