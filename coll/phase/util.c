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

int gdc_coll_chunks(const gdc_coll_config_t *config, size_t bytes, int rounds)
{
    size_t chunks     = (bytes + config->chunk_bytes - 1) / config->chunk_bytes;
    size_t max_chunks = GDC_COLL_MAX_SLOTS / (size_t)(rounds > 0 ? rounds : 1);

    if (chunks > max_chunks) {
        chunks = max_chunks;
    }
    return chunks > 0 ? (int)chunks : 1;
}
