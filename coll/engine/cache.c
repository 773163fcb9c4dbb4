/* What a communicator remembers of its calls (see cache.h). */
#include "engine/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run.h"
#include "select/select.h"

static gdc_coll_key_t make_key(const gdc_coll_algo_t *algo, const gdc_coll_args_t *args)
{
    gdc_coll_key_t key;

    memset(&key, 0, sizeof(key));
    key.algo      = algo;
    key.coll      = args->coll;
    key.count     = args->count;
    key.dtype     = args->dtype;
    key.op        = args->op;
    key.root      = args->root;
    key.in_place  = args->in_place;
    key.on_device = args->on_device;
    return key;
}

static uint64_t mix(uint64_t h, uint64_t value)
{
    return h ^ (value + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

/* Every field reaches the low bits (the tables are indexed by them): calls that differ only
 * in their op, say, must not evict each other's choice. */
static unsigned hash_key(const gdc_coll_key_t *key)
{
    uint64_t h = mix(0, (uint64_t)(uintptr_t)key->algo);

    h = mix(h, key->count);
    h = mix(h, (uint64_t)key->coll << 24 | (uint64_t)key->dtype << 16 | (uint64_t)key->op << 8 |
                   (uint64_t)key->in_place << 1 | (uint64_t)key->on_device);
    h = mix(h, (uint64_t)(unsigned)key->root);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (unsigned)h;
}

static int same_key(const gdc_coll_key_t *a, const gdc_coll_key_t *b)
{
    return a->algo == b->algo && a->coll == b->coll && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->in_place == b->in_place && a->on_device == b->on_device;
}

/* Is key the shape of args (whatever its algorithm)? Compared field by field, without
 * building a key: small blocking calls ask this once per call. */
static int is_shape_of(const gdc_coll_key_t *key, const gdc_coll_args_t *args)
{
    return key->count == args->count && key->coll == args->coll && key->dtype == args->dtype && key->op == args->op &&
           key->root == args->root && key->in_place == args->in_place && key->on_device == args->on_device;
}

/* Is this call the same shape as the last one (and its schedule still cached)? */
static int repeats_last(const gdc_coll_cache_t *cache, const gdc_coll_args_t *args)
{
    const gdc_coll_entry_t *e = cache->last;

    return e != NULL && e->sched != NULL && is_shape_of(&e->key, args) && same_key(&e->key, &cache->last_key);
}

static void count(unsigned *times, double *total, double *most, double seconds)
{
    (*times)++;
    *total += seconds;
    *most = seconds > *most ? seconds : *most;
}

static int uses_op(gdc_coll_type_t coll)
{
    return coll == GDC_COLL_REDUCE || coll == GDC_COLL_ALLREDUCE || coll == GDC_COLL_REDUCE_SCATTER;
}

/* args's layout with its trees rooted at args->root: the communicator's for root 0, else
 * one made from it for this root with the trees the call's prices read, and kept (a later
 * collective of the same root adds its own); NULL, out of memory: the root-0 one. */
static const gdc_coll_layout_t *rooted_layout(gdc_coll_cache_t *cache, const gdc_coll_args_t *args)
{
    gdc_coll_layout_t **slot  = NULL;
    unsigned            kinds = gdc_coll_tree_kinds_of(args->coll);

    if (args->layout == NULL || args->layout->root == args->root) {
        return args->layout;
    }
    for (int i = 0; i < GDC_COLL_ROOTED_LAYOUTS; i++) {
        if (cache->rooted[i] != NULL && cache->rooted[i]->root == args->root) {
            if ((cache->rooted[i]->tree_kinds & kinds) == kinds) {
                return cache->rooted[i];
            }
            slot = &cache->rooted[i];
            kinds |= (*slot)->tree_kinds;
        }
    }
    if (slot == NULL) {
        slot = &cache->rooted[cache->rooted_next++ % GDC_COLL_ROOTED_LAYOUTS];
    }
    if (*slot == NULL && (*slot = malloc(sizeof(**slot))) == NULL) {
        return args->layout;
    }
    **slot = *args->layout;
    gdc_coll_layout_root_kinds(args, *slot, kinds);
    return *slot;
}

const gdc_coll_algo_t *gdc_coll_cache_algo(gdc_coll_cache_t *cache, const gdc_coll_args_t *args)
{
    gdc_coll_args_t rooted;
    gdc_coll_key_t     key;
    gdc_coll_choice_t *choice;
    double             started, took;

    if (args->coll == GDC_COLL_ALLTOALLV) {
        /* its counts are its own: no shape to remember; said when the algorithm changes */
        const gdc_coll_algo_t *algo = gdc_coll_select(args);
        if (algo != NULL && algo != cache->last_alltoallv) {
            GDC_LOG_INFO("alltoallv of %s on %d ranks (%d node(s)%s): %s", gdc_rt_dtype_name(args->dtype), args->size,
                         args->num_nodes, args->on_device ? ", device memory" : "", algo->name);
            cache->last_alltoallv = algo;
        }
        return algo;
    }
    if (repeats_last(cache, args)) {
        return cache->last->key.algo;
    }
    /* a loop of fast-path calls (which build no schedule), perhaps with barriers between */
    choice = cache->last_choice[args->coll];
    if (choice != NULL && choice->algo != NULL && is_shape_of(&choice->key, args)) {
        return choice->algo;
    }
    key    = make_key(NULL, args);
    choice = &cache->choices[hash_key(&key) % GDC_COLL_CHOICES];
    cache->last_choice[args->coll] = choice;
    if (choice->algo != NULL && same_key(&choice->key, &key)) {
        return choice->algo;
    }
    started       = gdc_wtime();
    rooted        = *args;
    rooted.layout = rooted_layout(cache, args);
    choice->algo  = gdc_coll_select(&rooted);
    took          = gdc_wtime() - started;
    count(&cache->stats.chosen, &cache->stats.choose_seconds, &cache->stats.choose_most, took);
    if (choice->algo != NULL) {
        choice->key = key;
        char from[32] = "";
        if (gdc_coll_is_rooted(args->coll)) {
            snprintf(from, sizeof(from), " from root %d", args->root);
        }
        GDC_LOG_INFO("%s of %zu x %s%s%s%s on %d ranks (%d node(s)%s): %s (chosen in %.1f us)",
                     gdc_coll_type_name(args->coll), args->count, gdc_rt_dtype_name(args->dtype),
                     uses_op(args->coll) ? " " : "", uses_op(args->coll) ? gdc_rt_op_name(args->op) : "", from,
                     args->size, args->num_nodes, args->on_device ? ", device memory" : "", choice->algo->name,
                     took * 1e6);
    }
    return choice->algo;
}

static void drop_entry(gdc_coll_entry_t *entry)
{
    if (entry->spare != NULL) {
        entry->spare->main.entry = entry; /* the run must not free the schedule the entry frees */
        gdc_coll_run_free(entry->spare);
        entry->spare = NULL;
    }
    gdc_coll_sched_free(entry->sched);
    entry->sched = NULL;
}

/* The entry of key, or NULL with *victim the entry to evict for it (NULL: all busy). */
static gdc_coll_entry_t *find(gdc_coll_cache_t *cache, const gdc_coll_key_t *key, gdc_coll_entry_t **victim)
{
    unsigned h = hash_key(key);

    *victim = NULL;
    for (int i = 0; i < GDC_COLL_CACHE_PROBE; i++) {
        gdc_coll_entry_t *e = &cache->entries[(h + (unsigned)i) % GDC_COLL_CACHE_SIZE];
        if (e->sched != NULL && same_key(&e->key, key)) {
            return e;
        }
        if (e->users == 0 && (*victim == NULL || e->sched == NULL ||
                              ((*victim)->sched != NULL && e->stamp < (*victim)->stamp))) {
            *victim = e;
        }
    }
    return NULL;
}

gdc_status_t gdc_coll_cache_sched(gdc_coll_cache_t *cache, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                                  gdc_coll_entry_t **entry, gdc_coll_sched_t **sched)
{
    gdc_coll_key_t    key = make_key(algo, args);
    gdc_coll_entry_t *e, *victim;
    gdc_status_t      status;

    if (args->coll == GDC_COLL_ALLTOALLV) {
        *entry = NULL; /* counts differ per call: no cache */
        return gdc_coll_sched_build(algo, args, sched);
    }
    if (repeats_last(cache, args) && cache->last->key.algo == algo) {
        *entry = cache->last; /* a loop: the choice and the lookup are already done */
        *sched = cache->last->sched;
        return GDC_SUCCESS;
    }
    cache->clock++;
    e = find(cache, &key, &victim);
    if (e == NULL) {
        double started = gdc_wtime();
        status         = gdc_coll_sched_build(algo, args, sched);
        if (status != GDC_SUCCESS) {
            return status;
        }
        count(&cache->stats.built, &cache->stats.build_seconds, &cache->stats.build_most, gdc_wtime() - started);
        e = victim;
        if (e != NULL) {
            if (e->sched != NULL) {
                drop_entry(e);
            }
            e->key   = key;
            e->sched = *sched;
        }
    }
    if (e != NULL) {
        e->stamp = cache->clock;
        *sched   = e->sched;
        cache->last_key = key;
    }
    cache->last = e;
    *entry      = e;
    return GDC_SUCCESS;
}

void gdc_coll_cache_clear(gdc_coll_cache_t *cache)
{
    const gdc_coll_cache_stats_t *st = &cache->stats;

    if (st->chosen > 0 || st->built > 0) {
        GDC_LOG_INFO("new call shapes: %u chosen in %.1f us (the slowest %.1f us), %u schedules built in %.1f us "
                     "(the slowest %.1f us)",
                     st->chosen, st->choose_seconds * 1e6, st->choose_most * 1e6, st->built, st->build_seconds * 1e6,
                     st->build_most * 1e6);
    }
    memset(&cache->stats, 0, sizeof(cache->stats));
    for (int i = 0; i < GDC_COLL_CACHE_SIZE; i++) {
        if (cache->entries[i].sched != NULL) {
            drop_entry(&cache->entries[i]);
        }
    }
    cache->last = NULL;
    for (int i = 0; i < GDC_COLL_ROOTED_LAYOUTS; i++) {
        free(cache->rooted[i]);
        cache->rooted[i] = NULL;
    }
}
