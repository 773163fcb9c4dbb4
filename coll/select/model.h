/*
 * The cost model: a machine (latency and bandwidth per link class, reduction and copy
 * rates, NICs per node) and a timed run of every rank's schedule of a call on it, without
 * moving any data. A message takes latency + bytes / bandwidth on its link; messages that
 * leave a node share that node's NICs; a rank runs its local steps one at a time. The
 * predicted time of an algorithm is when the last rank finishes.
 */
#ifndef GDC_COLL_MODEL_H
#define GDC_COLL_MODEL_H

#include <stdio.h>

#include "coll.h"
#include "rt_topo.h"

typedef struct gdc_coll_link_cost {
    double latency;   /* seconds per message */
    double bandwidth; /* bytes per second */
} gdc_coll_link_cost_t;

typedef struct gdc_coll_machine {
    char                 name[64];
    char                 description[160];
    gdc_coll_link_cost_t link[GDC_LINK_NUM_CLASSES];
    double               reduce_bw;      /* bytes of one operand reduced per second, host */
    double               reduce_bw_cached; /* the same while the call's buffers fit the node's last-level cache */
    double               reduce_bw_peer_cached; /* ... with an operand another core has just written in shared
                                                    memory; 0: reduce_bw_cached */
    double               reduce_bw_gpu;  /* the same on the GPU */
    double               copy_bw;        /* memcpy, host */
    double               copy_bw_cached; /* the same while the call's buffers fit the node's last-level cache */
    double               copy_bw_peer_cached; /* ... of what another core has just written in shared memory
                                                  (its lines come from that core); 0: copy_bw_cached */
    double               copy_bw_shared_cached; /* ... into one's shared memory that other cores read last (each
                                                    line taken back from their caches); 0: copy_bw_cached */
    double               copy_bw_peer_small; /* ... of under GDC_COLL_PEER_SMALL_BYTES (0: copy_bw_peer_cached) */
    double               copy_bw_gpu;
    double               cma_bw;         /* a copy from or into another process (process_vm_readv) */
    double               cma_bw_cached;  /* the same while the call's buffers fit the node's last-level cache */
    double               cma_latency;    /* its system call, seconds */
    double               gpu_latency;    /* a device copy or kernel gdc starts and waits for, seconds */
    double               step_overhead;  /* seconds of CPU per step (posting, bookkeeping) */
    double               signal_latency; /* a shared-memory counter seen by a peer, seconds */
    double               switch_time;    /* a waiter's peer descheduled: what getting it a core costs */
    int                  cores_per_node; /* 0: unknown (no oversubscription term) */
    int                  llc_mib;        /* a node's last-level cache, MiB (0: unknown: the rates from memory) */
    int                  core_cache_kib; /* a core's own cache under it, KiB (0: unknown; args->core_cache) */
    int                  nics_per_node;  /* messages between nodes share these */
    int                  gpus_per_node;  /* for --plan on a described machine */
    /* which class a pair uses, by where it is: same node / other node, host / device memory */
    gdc_link_class_t     intra_host, intra_device, inter_host, inter_device;
} gdc_coll_machine_t;

/* The most NICs or GPUs a profile may give a node (the model allocates per NIC). */
#define GDC_COLL_MACHINE_MAX_PER_NODE 1024

/* The built-in defaults (a one-node host machine like the development VMs). */
void gdc_coll_machine_default(gdc_coll_machine_t *m);

/* Read a profile: a name from the installed profiles (share/profiles/NAME.prof) or a path.
 * Lines: `key value...`; see share/profiles/README. Missing keys keep m's values. */
gdc_status_t gdc_coll_machine_load(gdc_coll_machine_t *m, const char *name_or_path);
/* The same from an open stream; where names it in messages. */
gdc_status_t gdc_coll_machine_read(gdc_coll_machine_t *m, FILE *f, const char *where);

/* Apply GDC_LINK_<CLASS>="LATENCY_US,BANDWIDTH_GBS" overrides from the environment. */
gdc_status_t gdc_coll_machine_env(gdc_coll_machine_t *m);

void gdc_coll_machine_print(const gdc_coll_machine_t *m, FILE *out);

typedef struct gdc_coll_prediction {
    double   seconds;
    double   bytes[GDC_LINK_NUM_CLASSES];    /* moved per class, all ranks */
    unsigned messages[GDC_LINK_NUM_CLASSES];
    unsigned steps;                          /* all ranks */
} gdc_coll_prediction_t;

/* Predict algo for args (args.rank ignored: every rank is modelled; args.node_of gives the
 * nodes) with buffers in host or device memory. */
gdc_status_t gdc_coll_predict(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                              int on_device, gdc_coll_prediction_t *out);

/* The pipelining units of args's phases on m: inside a node and between nodes, each long
 * enough that a chunk's latency (and two steps) is a quarter of its transfer time at most,
 * never under GDC_CHUNK_SIZE's default: on NVLink megabytes, where 256K would pay its
 * latency five times over. Set when the configuration leaves GDC_CHUNK_SIZE on auto. */
void gdc_coll_machine_chunks(const gdc_coll_machine_t *m, gdc_coll_args_t *args);

/* The host rates of args's call (bytes per second): the cached ones where the buffers of
 * the node's ranks (gdc_coll_node_buffer_bytes) fit its last-level cache. Copies and
 * reductions between caches run two to five times as fast as from memory, and the
 * kernel's copy gains more than memcpy does, so which of a cma and a shm algorithm is
 * faster depends on whether the call fits (bench/RESULTS.md 2026-12-05). */
typedef struct gdc_coll_host_rates {
    double copy, reduce, cma;
    double copy_peer;   /* a copy out of a peer's shared memory */
    double copy_peer_small; /* ... of under GDC_COLL_PEER_SMALL_BYTES */
    double copy_shared;     /* a copy into one's own, for peers to read */
    double reduce_peer; /* a reduction with an operand there */
    double shm;         /* a message over the host's link inside a node (the UCX copies') */
} gdc_coll_host_rates_t;

/* ... each divided by gdc_coll_machine_core_share. */
gdc_coll_host_rates_t gdc_coll_machine_host_rates(const gdc_coll_machine_t *m, const gdc_coll_args_t *args);

/* A copy out of a peer's shared memory of under this many bytes comes out of the writer's
 * first-level cache, at about half the rate of a larger one: on the development VM 6 to 11
 * GB/s from 2 to 16 KiB, 13 to 17 from 32 KiB (bench/membw --handoff, bench/RESULTS.md
 * 2026-12-06 11:05). */
#define GDC_COLL_PEER_SMALL_BYTES ((size_t)32 << 10)

/* The seconds such a copy of bytes takes at r's rates. */
double gdc_coll_machine_copy_peer_time(const gdc_coll_host_rates_t *r, double bytes);
/* The share of a core each rank of args's call gets to run on: where the ranks of one node
 * outnumber its cores, ranks / cores (a copy that takes one core 1 us takes 2 us of the
 * call on 4 ranks of 2 cores, the cores time-sliced between the ranks that have work), 1
 * elsewhere. On 4 ranks of the development VM's 2 cores, alltoall shm of 1 MiB ran 1022 us,
 * where a model without this term put it at 195 (bench/RESULTS.md 2026-12-06 08:16). */
double gdc_coll_machine_core_share(const gdc_coll_machine_t *m, const gdc_coll_args_t *args);

/* What a wait on a peer inside a node costs beyond the signal's or the message's latency:
 * where the call's ranks share one node with fewer cores than ranks, the chance
 * (1 - cores / ranks) that the peer is not running, times switch_time; else 0. Only for
 * calls on one node: there every rank counts the same cores, so every rank prices alike. */
double gdc_coll_machine_wait(const gdc_coll_machine_t *m, const gdc_coll_args_t *args);
/* What a reduce_all step over one vector of `ranks` ranks moves, in two-operand reductions
 * of it (the model's and the prices' one measure of it). */
double gdc_coll_model_reduce_all_units(int ranks, int to_every);

/* When a link is busy: spans in time order. Booking len of its free time from earliest on
 * takes its first gaps (a link that receives from several senders interleaves their
 * messages, it does not idle for a gap one of them does not fit), drops the spans that
 * ended by `now`, adds at most one span (the caller leaves room for it: *count below the
 * array's size), and returns when the last piece ends. The simulator's links, and the
 * walks of the fast model (price_walk.c). */
typedef struct gdc_coll_span {
    double start, end;
} gdc_coll_span_t;

double gdc_coll_spans_book(gdc_coll_span_t *spans, uint32_t *count, double now, double earliest, double len);

/* The class between ranks a and b of args on machine m. */
gdc_link_class_t gdc_coll_machine_class(const gdc_coll_machine_t *m, const gdc_coll_args_t *args, int a, int b,
                                        int on_device);

#endif
