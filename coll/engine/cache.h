/*
 * What a communicator remembers of the calls it ran, under one key (the call's shape):
 * the algorithm chosen for a shape (the choice runs once per shape), the schedule built for
 * it (with a finished run kept for reuse), and the last call, which a loop repeats.
 */
#ifndef GDC_COLL_CACHE_H
#define GDC_COLL_CACHE_H

#include "coll.h"
#include "engine/sched.h"

#define GDC_COLL_CACHE_SIZE  128
#define GDC_COLL_CACHE_PROBE 8
#define GDC_COLL_CHOICES     256

/* A call's shape: what its schedule depends on besides the communicator. */
typedef struct gdc_coll_key {
    const gdc_coll_algo_t *algo; /* NULL in the key of a choice */
    gdc_coll_type_t        coll;
    size_t                 count;
    gdc_dtype_t            dtype;
    gdc_op_t               op;
    int                    root;
    int                    in_place;
    int                    on_device;
} gdc_coll_key_t;

struct gdc_coll_run;

typedef struct gdc_coll_entry {
    gdc_coll_key_t       key;
    gdc_coll_sched_t    *sched; /* NULL: free entry */
    int                  users; /* runs in flight on it */
    unsigned             stamp; /* last use, for eviction */
    struct gdc_coll_run *spare; /* a finished run kept for the next call of this shape */
} gdc_coll_entry_t;

typedef struct gdc_coll_choice {
    gdc_coll_key_t         key;
    const gdc_coll_algo_t *algo;
} gdc_coll_choice_t;

/* What new call shapes cost this rank: choices made and schedules built, their seconds in
 * all and the most one took (the first call of a shape pays both). */
typedef struct gdc_coll_cache_stats {
    unsigned chosen, built;
    double   choose_seconds, choose_most, build_seconds, build_most;
} gdc_coll_cache_stats_t;

#define GDC_COLL_ROOTED_LAYOUTS 4

typedef struct gdc_coll_cache {
    gdc_coll_entry_t  entries[GDC_COLL_CACHE_SIZE];
    gdc_coll_cache_stats_t stats;
    unsigned          clock;
    gdc_coll_choice_t choices[GDC_COLL_CHOICES]; /* direct-mapped */
    gdc_coll_entry_t *last;                      /* the last call's entry, or NULL */
    gdc_coll_choice_t *last_choice[GDC_COLL_TYPE_COUNT]; /* each collective's last choice, or NULL */
    const gdc_coll_algo_t *last_alltoallv;       /* what the last alltoallv ran (logged when it changes) */
    gdc_coll_key_t    last_key;
    /* The communicator's layout with its trees rooted elsewhere than rank 0, made when a
     * call from that root is first chosen for (a few roots, the oldest replaced). */
    struct gdc_coll_layout *rooted[GDC_COLL_ROOTED_LAYOUTS];
    unsigned               rooted_next;
} gdc_coll_cache_t;

/* The algorithm for this call: the last call's when the call repeats it, else the one
 * remembered for its shape, else chosen now (and remembered). NULL: none applies. */
const gdc_coll_algo_t *gdc_coll_cache_algo(gdc_coll_cache_t *cache, const gdc_coll_args_t *args);

/* The schedule of algo for args: the cached one, or built and cached. *entry is NULL when
 * the cache had no room: the caller then owns the schedule. Remembers the call as the last. */
gdc_status_t gdc_coll_cache_sched(gdc_coll_cache_t *cache, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                                  gdc_coll_entry_t **entry, gdc_coll_sched_t **sched);

/* Free every schedule, kept run and rooted layout (the communicator goes away). */
void gdc_coll_cache_clear(gdc_coll_cache_t *cache);

#endif
