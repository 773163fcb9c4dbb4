/* Ordering whole phases (every step of the next one after a join of the previous one), and
 * cutting a pipeline into chunks. */
#include "phase/phase.h"

void gdc_coll_after_range(gdc_coll_sched_t *sched, uint32_t first, int dep)
{
    if (dep < 0) {
        return;
    }
    for (uint32_t s = first; s < sched->num_steps; s++) {
        if ((int)s != dep) {
            gdc_coll_after(sched, (int)s, dep);
        }
    }
}

int gdc_coll_join_range(gdc_coll_sched_t *sched, uint32_t first, int dep)
{
    uint32_t end = sched->num_steps;
    int      joined;

    if (first >= end) {
        return dep;
    }
    if (end - first == 1) {
        return (int)first;
    }
    joined = gdc_coll_join(sched, NULL, 0);
    for (uint32_t s = first; s < end; s++) {
        gdc_coll_after(sched, joined, (int)s);
    }
    return joined;
}

size_t gdc_coll_chunk_bytes(const gdc_coll_args_t *args, int across)
{
    size_t chosen = across ? args->chunk_out : args->chunk_in;

    if (chosen == 0) {
        chosen = args->config->chunk_bytes > 0 ? args->config->chunk_bytes : GDC_COLL_CHUNK_MIN;
    }
    return chosen;
}

int gdc_coll_chunks(const gdc_coll_args_t *args, int across, size_t bytes, int rounds)
{
    size_t unit       = gdc_coll_chunk_bytes(args, across);
    size_t chunks     = (bytes + unit - 1) / unit;
    size_t max_chunks = GDC_COLL_MAX_SLOTS / (size_t)(rounds > 0 ? rounds : 1);

    if (chunks > max_chunks) {
        chunks = max_chunks;
    }
    return chunks > 0 ? (int)chunks : 1;
}
