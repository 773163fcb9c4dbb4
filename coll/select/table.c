/*
 * The algorithm table: one row per algorithm, at its id. Selection walks it, gdinfo
 * --algorithms prints it, GDC_<COLL>_ALGO and the tuning file name its rows.
 */
#include "select/table.h"

#include <stdio.h>
#include <string.h>

#include "algos.h"

const gdc_coll_algo_t gdc_coll_algos[GDC_COLL_ALGO_COUNT] = {
    [GDC_COLL_ALGO_ALLREDUCE_RING] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_RING, .coll = GDC_COLL_ALLREDUCE, .name = "ring",
        .desc = "pipelined ring reduce-scatter then ring allgather; bandwidth-optimal",
        .supports = gdc_coll_ring_twice_supports, .build = gdc_coll_allreduce_ring},
    [GDC_COLL_ALGO_ALLREDUCE_RECURSIVE_DOUBLING] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_RECURSIVE_DOUBLING, .coll = GDC_COLL_ALLREDUCE, .name = "recursive_doubling",
        .desc = "log2(n) exchanges of the whole vector; latency-optimal for small messages",
        .build = gdc_coll_allreduce_recursive_doubling},
    [GDC_COLL_ALGO_ALLREDUCE_RABENSEIFNER] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_RABENSEIFNER, .coll = GDC_COLL_ALLREDUCE, .name = "rabenseifner",
        .desc = "recursive-halving reduce-scatter then recursive-doubling allgather; 2 log2(n) "
                "steps, bandwidth-optimal",
        .build = gdc_coll_allreduce_rabenseifner},
    [GDC_COLL_ALGO_ALLREDUCE_KNOMIAL] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_KNOMIAL, .coll = GDC_COLL_ALLREDUCE, .name = "knomial",
        .desc = "k-nomial tree reduce to rank 0 then k-nomial tree bcast",
        .build = gdc_coll_allreduce_knomial},
    [GDC_COLL_ALGO_ALLREDUCE_SHM] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_SHM, .coll = GDC_COLL_ALLREDUCE, .name = "shm",
        .desc = "one node: pipelined reduce-scatter and allgather through shared memory, each "
                "rank reducing its part",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_allreduce_shm},
    [GDC_COLL_ALGO_ALLREDUCE_SHM_DIRECT] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_SHM_DIRECT, .coll = GDC_COLL_ALLREDUCE, .name = "shm_direct",
        .desc = "one node: every rank reduces every rank's vector straight from shared memory; "
                "small messages",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_allreduce_shm_direct_supports,
        .build = gdc_coll_allreduce_shm_direct,
        .run_blocking = gdc_coll_allreduce_shm_direct_run_blocking},
    [GDC_COLL_ALGO_ALLREDUCE_CMA] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_CMA, .coll = GDC_COLL_ALLREDUCE, .name = "cma",
        .desc = "one node: each rank reduces its part of every rank's vector, read straight from "
                "their inputs, then reads the other parts from their reducers (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_ON_REQUEST,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_allreduce_cma},
    [GDC_COLL_ALGO_ALLREDUCE_HIER_LEADER] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_HIER_LEADER, .coll = GDC_COLL_ALLREDUCE, .name = "hier_leader",
        .desc = "tree reduce to each node's leader, allreduce among leaders, pipelined tree bcast "
                "in nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_hier_supports,
        .build = gdc_coll_allreduce_hier_leader},
    [GDC_COLL_ALGO_ALLREDUCE_HIER_RAILS] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_HIER_RAILS, .coll = GDC_COLL_ALLREDUCE, .name = "hier_rails",
        .desc = "reduce-scatter in nodes, allreduce of each part along its rail (all NICs), "
                "allgather in nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_allreduce_hier_rails_supports,
        .build = gdc_coll_allreduce_hier_rails},
    [GDC_COLL_ALGO_ALLREDUCE_IPC] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_IPC, .coll = GDC_COLL_ALLREDUCE, .name = "ipc",
        .desc = "device buffers, one node: every rank reduces every rank's vector, reading "
                "its peers' memory where it lies (CUDA IPC); small messages",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_allreduce_ipc},
    [GDC_COLL_ALGO_ALLREDUCE_IPC_TWO_SHOT] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_IPC_TWO_SHOT, .coll = GDC_COLL_ALLREDUCE, .name = "ipc_two_shot",
        .desc = "device buffers, one node: each rank reduces its part of every vector by "
                "direct reads, then copies the other parts from their reducers (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ON_REQUEST,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_allreduce_ipc_two_shot},
    [GDC_COLL_ALGO_ALLREDUCE_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_ALLREDUCE_IPC_LEADER, .coll = GDC_COLL_ALLREDUCE, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: rank 0 reduces every "
                "rank's vector and copies the result into every output, the only rank to use "
                "the GPU (no switch between contexts)",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_supports,
        .build = gdc_coll_allreduce_ipc_leader},
    [GDC_COLL_ALGO_BCAST_BINOMIAL] = {
        .id = GDC_COLL_ALGO_BCAST_BINOMIAL, .coll = GDC_COLL_BCAST, .name = "binomial",
        .desc = "binomial tree from the root; log2(n) rounds of the whole message",
        .build = gdc_coll_bcast_binomial},
    [GDC_COLL_ALGO_BCAST_CHAIN] = {
        .id = GDC_COLL_ALGO_BCAST_CHAIN, .coll = GDC_COLL_BCAST, .name = "chain",
        .desc = "pipelined chain from the root; bandwidth-optimal for large messages",
        .build = gdc_coll_bcast_chain},
    [GDC_COLL_ALGO_BCAST_SCATTER_ALLGATHER] = {
        .id = GDC_COLL_ALGO_BCAST_SCATTER_ALLGATHER, .coll = GDC_COLL_BCAST, .name = "scatter_allgather",
        .desc = "binomial scatter of blocks then ring allgather (van de Geijn); large messages",
        .supports = gdc_coll_ring_supports, .build = gdc_coll_bcast_scatter_allgather},
    [GDC_COLL_ALGO_BCAST_SHM] = {
        .id = GDC_COLL_ALGO_BCAST_SHM, .coll = GDC_COLL_BCAST, .name = "shm",
        .desc = "one node: the root's chunks through its shared memory, copied out by all",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_bcast_shm,
        .run_blocking = gdc_coll_bcast_shm_run_blocking},
    [GDC_COLL_ALGO_BCAST_HIER] = {
        .id = GDC_COLL_ALGO_BCAST_HIER, .coll = GDC_COLL_BCAST, .name = "hier",
        .desc = "pipelined trees or chains: among node leaders (the root leads its node), then in "
                "nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_hier_supports,
        .build = gdc_coll_bcast_hier},
    [GDC_COLL_ALGO_BCAST_HIER_RAILS] = {
        .id = GDC_COLL_ALGO_BCAST_HIER_RAILS, .coll = GDC_COLL_BCAST, .name = "hier_rails",
        .desc = "root scatters its node's parts, each part down its rail (all NICs), allgather in "
                "nodes; large messages",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_bcast_hier_rails_supports,
        .build = gdc_coll_bcast_hier_rails},
    [GDC_COLL_ALGO_REDUCE_BINOMIAL] = {
        .id = GDC_COLL_ALGO_REDUCE_BINOMIAL, .coll = GDC_COLL_REDUCE, .name = "binomial",
        .desc = "binomial tree reduce to the root",
        .build = gdc_coll_reduce_binomial},
    [GDC_COLL_ALGO_REDUCE_SCATTER_GATHER] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_GATHER, .coll = GDC_COLL_REDUCE, .name = "reduce_scatter_gather",
        .desc = "ring reduce-scatter then binomial gather of the blocks to the root; large "
                "messages",
        .supports = gdc_coll_ring_supports, .build = gdc_coll_reduce_scatter_gather},
    [GDC_COLL_ALGO_REDUCE_IPC] = {
        .id = GDC_COLL_ALGO_REDUCE_IPC, .coll = GDC_COLL_REDUCE, .name = "ipc",
        .desc = "device buffers, one node: the root reduces every rank's vector, reading "
                "its peers' memory where it lies (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_reduce_ipc},
    [GDC_COLL_ALGO_ALLGATHER_RING] = {
        .id = GDC_COLL_ALGO_ALLGATHER_RING, .coll = GDC_COLL_ALLGATHER, .name = "ring",
        .desc = "pipelined ring; n-1 rounds, bandwidth-optimal",
        .supports = gdc_coll_ring_supports, .build = gdc_coll_allgather_ring},
    [GDC_COLL_ALGO_ALLGATHER_RECURSIVE_DOUBLING] = {
        .id = GDC_COLL_ALGO_ALLGATHER_RECURSIVE_DOUBLING, .coll = GDC_COLL_ALLGATHER, .name = "recursive_doubling",
        .desc = "log2(n) exchanges of doubling size (non-powers of two fold in)",
        .build = gdc_coll_allgather_recursive_doubling},
    [GDC_COLL_ALGO_ALLGATHER_BRUCK] = {
        .id = GDC_COLL_ALGO_ALLGATHER_BRUCK, .coll = GDC_COLL_ALLGATHER, .name = "bruck",
        .desc = "Bruck's ceil(log2 n) rounds for any n; small messages",
        .build = gdc_coll_allgather_bruck},
    [GDC_COLL_ALGO_ALLGATHER_SHM] = {
        .id = GDC_COLL_ALGO_ALLGATHER_SHM, .coll = GDC_COLL_ALLGATHER, .name = "shm",
        .desc = "one node: every rank's block through its shared memory, copied out by all",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_allgather_shm,
        .run_blocking = gdc_coll_allgather_shm_run_blocking},
    [GDC_COLL_ALGO_ALLGATHER_HIER] = {
        .id = GDC_COLL_ALGO_ALLGATHER_HIER, .coll = GDC_COLL_ALLGATHER, .name = "hier",
        .desc = "gather to node leaders, allgatherv among leaders, pipelined bcast in nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_hier_supports,
        .build = gdc_coll_allgather_hier},
    [GDC_COLL_ALGO_ALLGATHER_HIER_RAILS] = {
        .id = GDC_COLL_ALGO_ALLGATHER_HIER_RAILS, .coll = GDC_COLL_ALLGATHER, .name = "hier_rails",
        .desc = "ring allgather in nodes, each part of a node's blocks along its rail (all NICs), "
                "ring in nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_allgather_hier_rails_supports,
        .build = gdc_coll_allgather_hier_rails},
    [GDC_COLL_ALGO_REDUCE_SCATTER_RING] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_RING, .coll = GDC_COLL_REDUCE_SCATTER, .name = "ring",
        .desc = "pipelined ring reduce-scatter; n-1 rounds",
        .supports = gdc_coll_ring_supports, .build = gdc_coll_reduce_scatter_ring},
    [GDC_COLL_ALGO_REDUCE_SCATTER_RECURSIVE_HALVING] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_RECURSIVE_HALVING, .coll = GDC_COLL_REDUCE_SCATTER, .name = "recursive_halving",
        .desc = "log2(n) rounds halving the vector (non-powers of two fold in)",
        .build = gdc_coll_reduce_scatter_recursive_halving},
    [GDC_COLL_ALGO_REDUCE_SCATTER_SHM_DIRECT] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_SHM_DIRECT, .coll = GDC_COLL_REDUCE_SCATTER, .name = "shm_direct",
        .desc = "one node: every rank reduces its block of every rank's vector straight from shared "
                "memory; small messages",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_reduce_scatter_shm_direct_supports,
        .build = gdc_coll_reduce_scatter_shm_direct,
        .run_blocking = gdc_coll_reduce_scatter_shm_direct_run_blocking},
    [GDC_COLL_ALGO_REDUCE_SCATTER_CMA] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_CMA, .coll = GDC_COLL_REDUCE_SCATTER, .name = "cma",
        .desc = "one node: every rank reduces its block of every rank's vector, read straight from their "
                "inputs (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_MEASURED,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_reduce_scatter_cma},
    [GDC_COLL_ALGO_REDUCE_SCATTER_IPC] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_IPC, .coll = GDC_COLL_REDUCE_SCATTER, .name = "ipc",
        .desc = "device buffers, one node: every rank reduces its block of every rank's "
                "vector, reading its peers' memory where it lies (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_reduce_scatter_ipc},
    [GDC_COLL_ALGO_REDUCE_SCATTER_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_REDUCE_SCATTER_IPC_LEADER, .coll = GDC_COLL_REDUCE_SCATTER, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: rank 0 reduces each block "
                "straight into its rank's output, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_out_of_place_supports,
        .build = gdc_coll_reduce_scatter_ipc_leader},
    [GDC_COLL_ALGO_ALLTOALL_PAIRWISE] = {
        .id = GDC_COLL_ALGO_ALLTOALL_PAIRWISE, .coll = GDC_COLL_ALLTOALL, .name = "pairwise",
        .desc = "n-1 rounds, rank r exchanges with r+k and r-k in round k",
        .build = gdc_coll_alltoall_pairwise},
    [GDC_COLL_ALGO_ALLTOALL_BRUCK] = {
        .id = GDC_COLL_ALGO_ALLTOALL_BRUCK, .coll = GDC_COLL_ALLTOALL, .name = "bruck",
        .desc = "Bruck's ceil(log2 n) rounds of packed blocks; small messages",
        .build = gdc_coll_alltoall_bruck},
    [GDC_COLL_ALGO_ALLTOALL_SHM] = {
        .id = GDC_COLL_ALGO_ALLTOALL_SHM, .coll = GDC_COLL_ALLTOALL, .name = "shm",
        .desc = "one node: blocks through the sender's shared memory, copied out by their "
                "receiver",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_alltoall_shm,
        .run_blocking = gdc_coll_alltoall_shm_run_blocking},
    [GDC_COLL_ALGO_ALLTOALL_HIER] = {
        .id = GDC_COLL_ALGO_ALLTOALL_HIER, .coll = GDC_COLL_ALLTOALL, .name = "hier",
        .desc = "node-aware aggregation: one message per node pair, aggregators spread over ranks",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_hier_supports,
        .build = gdc_coll_alltoall_hier},
    [GDC_COLL_ALGO_ALLTOALLV_PAIRWISE] = {
        .id = GDC_COLL_ALGO_ALLTOALLV_PAIRWISE, .coll = GDC_COLL_ALLTOALLV, .name = "pairwise",
        .desc = "n-1 rounds of pairwise exchange with per-peer counts",
        .build = gdc_coll_alltoallv_pairwise},
    [GDC_COLL_ALGO_BARRIER_DISSEMINATION] = {
        .id = GDC_COLL_ALGO_BARRIER_DISSEMINATION, .coll = GDC_COLL_BARRIER, .name = "dissemination",
        .desc = "ceil(log2 n) rounds of zero-byte messages",
        .build = gdc_coll_barrier_dissemination},
    [GDC_COLL_ALGO_BARRIER_SHM] = {
        .id = GDC_COLL_ALGO_BARRIER_SHM, .coll = GDC_COLL_BARRIER, .name = "shm",
        .desc = "one node: raise a shared-memory counter, wait for everyone's (ranks outnumbering the cores: rank 0 waits, then releases)",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_barrier_shm,
        .run_blocking = gdc_coll_barrier_shm_run_blocking},
    [GDC_COLL_ALGO_BARRIER_HIER] = {
        .id = GDC_COLL_ALGO_BARRIER_HIER, .coll = GDC_COLL_BARRIER, .name = "hier",
        .desc = "fan-in to node leaders, dissemination among leaders, fan-out in nodes",
        .flags = GDC_COLL_ALGO_FLAG_HIER,
        .supports = gdc_coll_hier_supports,
        .build = gdc_coll_barrier_hier},
    [GDC_COLL_ALGO_GATHER_BINOMIAL] = {
        .id = GDC_COLL_ALGO_GATHER_BINOMIAL, .coll = GDC_COLL_GATHER, .name = "binomial",
        .desc = "binomial tree towards the root, subtrees packed",
        .build = gdc_coll_gather_binomial},
    [GDC_COLL_ALGO_GATHER_SHM] = {
        .id = GDC_COLL_ALGO_GATHER_SHM, .coll = GDC_COLL_GATHER, .name = "shm",
        .desc = "one node: every rank's block through its shared memory, copied out by the root",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_gather_shm,
        .run_blocking = gdc_coll_gather_shm_run_blocking},
    [GDC_COLL_ALGO_SCATTER_BINOMIAL] = {
        .id = GDC_COLL_ALGO_SCATTER_BINOMIAL, .coll = GDC_COLL_SCATTER, .name = "binomial",
        .desc = "binomial tree from the root, subtrees packed",
        .build = gdc_coll_scatter_binomial},
    [GDC_COLL_ALGO_SCATTER_SHM] = {
        .id = GDC_COLL_ALGO_SCATTER_SHM, .coll = GDC_COLL_SCATTER, .name = "shm",
        .desc = "one node: the root's blocks through its shared memory, each copied out by its rank",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_shm_supports,
        .build = gdc_coll_scatter_shm,
        .run_blocking = gdc_coll_scatter_shm_run_blocking},
    [GDC_COLL_ALGO_SCATTER_CMA] = {
        .id = GDC_COLL_ALGO_SCATTER_CMA, .coll = GDC_COLL_SCATTER, .name = "cma",
        .desc = "one node: each rank reads its block straight from the root's buffer (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_scatter_cma},
    [GDC_COLL_ALGO_SCATTER_IPC] = {
        .id = GDC_COLL_ALGO_SCATTER_IPC, .coll = GDC_COLL_SCATTER, .name = "ipc",
        .desc = "device buffers, one node: each rank copies its block straight from the root's "
                "buffer (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_scatter_cma},
    [GDC_COLL_ALGO_SCATTER_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_SCATTER_IPC_LEADER, .coll = GDC_COLL_SCATTER, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: the root copies each "
                "rank's block into that rank's buffer, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_supports,
        .build = gdc_coll_scatter_ipc_leader},
    [GDC_COLL_ALGO_GATHER_CMA] = {
        .id = GDC_COLL_ALGO_GATHER_CMA, .coll = GDC_COLL_GATHER, .name = "cma",
        .desc = "one node: each rank writes its block straight into the root's buffer (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_MEASURED,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_gather_cma},
    [GDC_COLL_ALGO_GATHER_IPC] = {
        .id = GDC_COLL_ALGO_GATHER_IPC, .coll = GDC_COLL_GATHER, .name = "ipc",
        .desc = "device buffers, one node: each rank copies its block straight into the root's "
                "buffer (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_gather_cma},
    [GDC_COLL_ALGO_GATHER_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_GATHER_IPC_LEADER, .coll = GDC_COLL_GATHER, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: the root copies every "
                "rank's block into its buffer, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_supports,
        .build = gdc_coll_gather_ipc_leader},
    [GDC_COLL_ALGO_BCAST_CMA] = {
        .id = GDC_COLL_ALGO_BCAST_CMA, .coll = GDC_COLL_BCAST, .name = "cma",
        .desc = "one node: each rank reads the vector from the root's buffer while the root writes the last "
                "1/n into it (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_OWN_CORES,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_bcast_cma},
    [GDC_COLL_ALGO_BCAST_IPC] = {
        .id = GDC_COLL_ALGO_BCAST_IPC, .coll = GDC_COLL_BCAST, .name = "ipc",
        .desc = "device buffers, one node: each rank copies the vector from the root's buffer "
                "while the root writes the last 1/n into it (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_bcast_cma},
    [GDC_COLL_ALGO_BCAST_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_BCAST_IPC_LEADER, .coll = GDC_COLL_BCAST, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: the root copies the vector "
                "into every rank's buffer, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_supports,
        .build = gdc_coll_bcast_ipc_leader},
    [GDC_COLL_ALGO_ALLTOALL_CMA] = {
        .id = GDC_COLL_ALGO_ALLTOALL_CMA, .coll = GDC_COLL_ALLTOALL, .name = "cma",
        .desc = "one node: each rank reads its block from every other's send buffer (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_MEASURED,
        .supports = gdc_coll_alltoall_cma_supports,
        .build = gdc_coll_alltoall_cma},
    [GDC_COLL_ALGO_ALLTOALL_IPC] = {
        .id = GDC_COLL_ALGO_ALLTOALL_IPC, .coll = GDC_COLL_ALLTOALL, .name = "ipc",
        .desc = "device buffers, one node: each rank copies its block from every other's "
                "send buffer (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_out_of_place_supports,
        .build = gdc_coll_alltoall_cma},
    [GDC_COLL_ALGO_ALLTOALL_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_ALLTOALL_IPC_LEADER, .coll = GDC_COLL_ALLTOALL, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: rank 0 copies every block "
                "to its place, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_out_of_place_supports,
        .build = gdc_coll_alltoall_ipc_leader},
    [GDC_COLL_ALGO_ALLGATHER_CMA] = {
        .id = GDC_COLL_ALGO_ALLGATHER_CMA, .coll = GDC_COLL_ALLGATHER, .name = "cma",
        .desc = "one node: each rank reads every other's block straight from its input (cross-memory attach)",
        .flags = GDC_COLL_ALGO_FLAG_SHM | GDC_COLL_ALGO_FLAG_MEASURED | GDC_COLL_ALGO_FLAG_OWN_CORES,
        .supports = gdc_coll_cma_supports,
        .build = gdc_coll_allgather_cma},
    [GDC_COLL_ALGO_ALLGATHER_IPC] = {
        .id = GDC_COLL_ALGO_ALLGATHER_IPC, .coll = GDC_COLL_ALLGATHER, .name = "ipc",
        .desc = "device buffers, one node: each rank copies every other's block straight "
                "from its input (CUDA IPC)",
        .flags = GDC_COLL_ALGO_FLAG_IPC,
        .supports = gdc_coll_ipc_supports,
        .build = gdc_coll_allgather_cma},
    [GDC_COLL_ALGO_ALLGATHER_IPC_LEADER] = {
        .id = GDC_COLL_ALGO_ALLGATHER_IPC_LEADER, .coll = GDC_COLL_ALLGATHER, .name = "ipc_leader",
        .desc = "device buffers, one GPU shared by the node's ranks: rank 0 copies every block "
                "into every output, the only rank to use the GPU",
        .flags = GDC_COLL_ALGO_FLAG_IPC | GDC_COLL_ALGO_FLAG_ONE_GPU,
        .supports = gdc_coll_ipc_leader_supports,
        .build = gdc_coll_allgather_ipc_leader},
};

const gdc_coll_algo_t *gdc_coll_algo_find(gdc_coll_type_t coll, const char *name)
{
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        if (gdc_coll_algos[i].coll == coll && strcmp(gdc_coll_algos[i].name, name) == 0) {
            return &gdc_coll_algos[i];
        }
    }
    return NULL;
}

int gdc_coll_type_by_name(const char *name, gdc_coll_type_t *coll)
{
    for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
        if (strcmp(name, gdc_coll_type_name((gdc_coll_type_t)c)) == 0) {
            *coll = (gdc_coll_type_t)c;
            return 0;
        }
    }
    return -1;
}

void gdc_coll_algo_names(gdc_coll_type_t coll, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < GDC_COLL_ALGO_COUNT && used < len; i++) {
        if (gdc_coll_algos[i].coll == coll) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", gdc_coll_algos[i].name);
        }
    }
}
