/*
 * The in-process simulator: builds every rank's schedule of one collective call and runs
 * them all against each other with the real executor, over a mailbox transport with
 * rendezvous semantics (a message's data is read from the sender when the receiver takes
 * it, so a schedule that reuses a buffer too early corrupts its result here as it would on
 * the wire). It checks the schedules (regions in bounds, peers and slots valid, no two
 * messages on one slot), detects deadlocks and unmatched or mis-sized messages, and
 * compares every rank's output with a reference.
 */
#ifndef GDC_TEST_SIM_H
#define GDC_TEST_SIM_H

#include <stddef.h>

#include "coll.h"
#include "rt_shm.h"

/* The data area of each rank's shared-memory segment (shared-memory algorithms run on
 * single-node calls only): twice a ring slot, so that a call too large for the ring still
 * fits it whole (allreduce shm_direct). */
#define SIM_SHM_BYTES (2 * GDC_RT_SHM_RING_SLOT_BYTES)

typedef struct sim_case {
    const gdc_coll_algo_t *algo;
    int                    size;
    size_t                 count;
    gdc_dtype_t            dtype;
    gdc_op_t               op;
    int                    root;
    int                    in_place;
    unsigned               seed;  /* order in which ranks start and progress */
    int                    nodes; /* ranks spread over this many nodes (0 or 1: one node) */
    int                    round_robin; /* rank r on node r % nodes; else blocks, uneven when
                                           size % nodes != 0 (the first nodes get one more) */
    const gdc_coll_config_t *config;    /* the algorithms' parameters; NULL: the defaults */
    unsigned               fast_ranks;  /* ranks (bit r: rank r < 32) that run every call of the
                                           case in a thread of their own, as a process would: the
                                           algorithm's blocking fast path (run_blocking) where it
                                           takes the call, else the schedule (shared-memory
                                           algorithms only: a thread has no mailbox) */
    unsigned               slow_ranks;  /* ranks (bit r) that pause before each of their calls,
                                           so that their peers run as far ahead of them as
                                           the algorithm lets them */
    int                    node_cores;  /* the node's cores (args->node_cores; 0: unknown): fewer
                                           than the ranks, where an algorithm has a protocol for
                                           oversubscribed nodes */
    size_t                 core_cache;  /* bytes of a core's own cache (args->core_cache; 0:
                                           unknown), which puts the smaller allreduce shm calls
                                           in their ring slots */
} sim_case_t;

/* The node of rank r in case c. */
int sim_node_of(const sim_case_t *c, int r);

/* The collective combines its ranks' data (reduce, allreduce, reduce_scatter). */
int sim_reduces(gdc_coll_type_t coll);

/* Run one case; 0 when every rank's result is right, 1 when the algorithm does not apply
 * to the call (its `supports` says no), else -1 with why[] filled. */
int sim_run(const sim_case_t *c, char *why, size_t why_len);

/* Run a sequence of calls (the same size and nodes; one communicator): each rank goes on
 * to its next call as soon as it finished the last, whatever the others do, as in a job,
 * and shared memory carries over from call to call. Results as sim_run. */
int sim_run_calls(const sim_case_t *calls, int ncalls, char *why, size_t why_len);

/* Totals over all runs, for the summary line. */
extern unsigned long sim_total_steps;
extern unsigned long sim_total_messages;
extern unsigned long sim_total_fast_runs; /* calls a fast path ran (fast_ranks) */

#endif
