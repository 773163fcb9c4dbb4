#ifndef MEMBW_ALLREDUCE_H
#define MEMBW_ALLREDUCE_H

/* membw --allreduce RANKS: the floors of an allreduce's ways to move bytes on this
 * machine's cores (membw_allreduce.c); the exit status. */
int membw_allreduce_main(int ranks);

#endif
