/*
 * Every algorithm's entry points, one file each under coll/<collective>/ and coll/hier/:
 * its builder, and where it has them, its `supports` test and its blocking fast path. The
 * table (select/table.c) names them; an algorithm's file includes this header for its own
 * prototypes.
 */
#ifndef GDC_COLL_ALGOS_H
#define GDC_COLL_ALGOS_H

#include "builder.h"

struct gdc_coll_fast;

#define GDC_COLL_BUILDER(name) gdc_status_t name(gdc_coll_sched_t *sched, const gdc_coll_args_t *args)
#define GDC_COLL_SUPPORTS(name) int name(const gdc_coll_args_t *args)
#define GDC_COLL_RUN_BLOCKING(name) \
    int name(const struct gdc_coll_fast *fast, const gdc_coll_args_t *args, const gdc_coll_buffers_t *bufs, \
             gdc_status_t *status)

GDC_COLL_BUILDER(gdc_coll_allreduce_ring);
GDC_COLL_BUILDER(gdc_coll_allreduce_recursive_doubling);
GDC_COLL_BUILDER(gdc_coll_allreduce_rabenseifner);
GDC_COLL_BUILDER(gdc_coll_allreduce_knomial);
GDC_COLL_BUILDER(gdc_coll_allreduce_shm);
GDC_COLL_BUILDER(gdc_coll_allreduce_shm_direct);
GDC_COLL_SUPPORTS(gdc_coll_allreduce_shm_direct_supports);
GDC_COLL_RUN_BLOCKING(gdc_coll_allreduce_shm_direct_run_blocking);

GDC_COLL_BUILDER(gdc_coll_bcast_binomial);
GDC_COLL_BUILDER(gdc_coll_bcast_chain);
GDC_COLL_BUILDER(gdc_coll_bcast_scatter_allgather);
GDC_COLL_BUILDER(gdc_coll_bcast_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_bcast_shm_run_blocking);

GDC_COLL_BUILDER(gdc_coll_reduce_binomial);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_gather);

GDC_COLL_BUILDER(gdc_coll_allgather_ring);
GDC_COLL_BUILDER(gdc_coll_allgather_recursive_doubling);
GDC_COLL_BUILDER(gdc_coll_allgather_bruck);
GDC_COLL_BUILDER(gdc_coll_allgather_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_allgather_shm_run_blocking);

GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ring);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_recursive_halving);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_shm_direct);
GDC_COLL_SUPPORTS(gdc_coll_reduce_scatter_shm_direct_supports);
GDC_COLL_RUN_BLOCKING(gdc_coll_reduce_scatter_shm_direct_run_blocking);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_cma);

GDC_COLL_BUILDER(gdc_coll_alltoall_pairwise);
GDC_COLL_BUILDER(gdc_coll_alltoall_bruck);
GDC_COLL_BUILDER(gdc_coll_alltoall_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_alltoall_shm_run_blocking);

GDC_COLL_BUILDER(gdc_coll_alltoallv_pairwise);

GDC_COLL_BUILDER(gdc_coll_barrier_dissemination);
GDC_COLL_BUILDER(gdc_coll_barrier_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_barrier_shm_run_blocking);

GDC_COLL_BUILDER(gdc_coll_gather_binomial);
GDC_COLL_BUILDER(gdc_coll_gather_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_gather_shm_run_blocking);
GDC_COLL_BUILDER(gdc_coll_scatter_binomial);
GDC_COLL_BUILDER(gdc_coll_scatter_shm);
GDC_COLL_RUN_BLOCKING(gdc_coll_scatter_shm_run_blocking);
GDC_COLL_BUILDER(gdc_coll_scatter_cma);
GDC_COLL_BUILDER(gdc_coll_gather_cma);
GDC_COLL_BUILDER(gdc_coll_bcast_cma);
/* The elements at the end of the vector that bcast cma's root writes into each rank (the
 * rest each reads). None on the host under GDC_COLL_BCAST_CMA_SPLIT_FROM bytes: a read takes
 * about 0.4 us more while the root writes into the reader (1.33 against 0.93 us of 4 KiB on
 * the development VM), more than half the copy saves; on 2 ranks the whole read took 0.69 to
 * 0.92 of the split's time up to 16 KiB, 1.14 to 1.57 from 32 KiB (bench/RESULTS.md
 * 2026-12-06 11:05). */
#define GDC_COLL_BCAST_CMA_SPLIT_FROM ((size_t)32 << 10)
size_t gdc_coll_bcast_cma_root_part(const gdc_coll_args_t *args);
GDC_COLL_BUILDER(gdc_coll_alltoall_cma);
GDC_COLL_BUILDER(gdc_coll_allgather_cma);
GDC_COLL_BUILDER(gdc_coll_allreduce_ipc);
GDC_COLL_BUILDER(gdc_coll_allreduce_cma);
GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_two_shot);
GDC_COLL_BUILDER(gdc_coll_reduce_ipc);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ipc);
GDC_COLL_SUPPORTS(gdc_coll_ipc_supports);
GDC_COLL_SUPPORTS(gdc_coll_ipc_out_of_place_supports);
GDC_COLL_BUILDER(gdc_coll_allreduce_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_bcast_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_allgather_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_reduce_scatter_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_alltoall_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_gather_ipc_leader);
GDC_COLL_BUILDER(gdc_coll_scatter_ipc_leader);
GDC_COLL_SUPPORTS(gdc_coll_ipc_leader_supports);
GDC_COLL_SUPPORTS(gdc_coll_ipc_leader_out_of_place_supports);
GDC_COLL_SUPPORTS(gdc_coll_alltoall_cma_supports);

/* Every rank on one node, shared memory there, host buffers (phase/shm.c). */
GDC_COLL_SUPPORTS(gdc_coll_shm_supports);
GDC_COLL_SUPPORTS(gdc_coll_cma_supports);

/* Rings whose rounds fit in a call's message slots, each round needing its own
 * (phase/ring.c): n - 1 rounds, or 2 (n - 1) for allreduce's reduce-scatter and allgather. */
GDC_COLL_SUPPORTS(gdc_coll_ring_supports);
GDC_COLL_SUPPORTS(gdc_coll_ring_twice_supports);

/* The hierarchical algorithms (coll/hier/) and whether they apply: ranks on more than one
 * node (with one node they would only add steps to a flat algorithm). */
GDC_COLL_BUILDER(gdc_coll_allreduce_hier_leader);
GDC_COLL_BUILDER(gdc_coll_allreduce_hier_rails);
GDC_COLL_BUILDER(gdc_coll_bcast_hier);
GDC_COLL_BUILDER(gdc_coll_bcast_hier_rails);
GDC_COLL_BUILDER(gdc_coll_allgather_hier);
GDC_COLL_BUILDER(gdc_coll_allgather_hier_rails);
GDC_COLL_BUILDER(gdc_coll_alltoall_hier);
GDC_COLL_BUILDER(gdc_coll_barrier_hier);
GDC_COLL_SUPPORTS(gdc_coll_hier_supports);
GDC_COLL_SUPPORTS(gdc_coll_allreduce_hier_rails_supports);
GDC_COLL_SUPPORTS(gdc_coll_bcast_hier_rails_supports);
GDC_COLL_SUPPORTS(gdc_coll_allgather_hier_rails_supports);

#endif
