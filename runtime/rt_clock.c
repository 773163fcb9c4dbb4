/* gdc_wtime: the clock of gdc.h, which stall warnings, timeouts and benchmarks share. */
#include <time.h>

#include <gdc.h>

double gdc_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
