#ifndef MEMBW_H
#define MEMBW_H

/* bench/membw's parts: membw.c (the copy floors, --cma, --handoff) and membw_allreduce.c
 * (--allreduce). */

/* CLOCK_MONOTONIC in seconds. */
double membw_now(void);

/* The median of n times in seconds, in microseconds (sorts t). */
double membw_median_us(double *t, int n);

/* membw --allreduce RANKS: the floors of an allreduce's ways to move bytes on this
 * machine's cores; the exit status. */
int membw_allreduce_main(int ranks);

#endif
