/*
 * Blocking fast paths. A blocking call of a few bytes inside a node spends most of its
 * time in the executor's bookkeeping, not in the one cache-line hop it needs; so an
 * algorithm may run such calls straight (its run_blocking hook) on the node's shared memory.
 * A hook follows its schedule's protocol to the letter (the same segment offsets, counters
 * and values), so that a rank on the fast path and a rank running the schedule (because it
 * has a nonblocking shared-memory call in flight) work together; and it uses one counter
 * value, as the schedule of every shape it takes does. It may do more than the schedule,
 * where a schedule's rank on the other side never needs it: bcast's root publishes a
 * larger call in pieces, which its fast readers copy out as they come, and whose wait
 * takes a schedule root's publication of the whole as well.
 */
#ifndef GDC_COLL_FAST_H
#define GDC_COLL_FAST_H

#include "coll.h"
#include "kernels/copy_host.h"
#include "rt_shm.h"

/* What a fast path waits for: local rank `peer`'s counter `counter` to reach `target`
 * (peer < 0: every other local rank's); for GDC_COLL_FAST_PUBLISHED, also the lines of the
 * peer's slot it reads next, counted from the stamp's, which the wait fetches along with
 * the stamp (gdc_coll_fast_reached): none where first_line > last_line. */
typedef struct gdc_coll_fast_want {
    int      counter;
    uint64_t target;
    int      peer;
    size_t   first_line, last_line;
    unsigned pieces; /* GDC_COLL_FAST_PIECES: how many pieces of the call */
} gdc_coll_fast_want_t;

typedef struct gdc_coll_fast {
    const gdc_rt_shm_t *shm;
    uint64_t            base; /* counter values of the calls before this one */
    /* Wait until it has what `want` says: stalls, GDC_TIMEOUT and dead peers are the
     * waiter's to report. */
    gdc_status_t (*wait)(const struct gdc_coll_fast *fast, const gdc_coll_fast_want_t *want);
    void               *waiter; /* the wait's own state */
} gdc_coll_fast_t;

/* Wait until local rank peer's (peer < 0: every other local rank's) counter reaches
 * target. */
gdc_status_t gdc_coll_fast_wait_counter(const gdc_coll_fast_t *fast, int counter, uint64_t target, int peer);

/* Where local rank owner publishes this call: its ring slot (ring) or its data area (the
 * schedules' gdc_coll_shm_place). */
void *gdc_coll_fast_place(const gdc_coll_fast_t *fast, int owner, int ring);

/* Wait until my place may be overwritten (the schedules' gdc_coll_shm_wait_free, prior 0). */
gdc_status_t gdc_coll_fast_wait_free(const gdc_coll_fast_t *fast, int ring);

/* Copy, from every other local rank p's place at from(args, p), one block of the call into
 * output at to(args, p), each once p's COPIED counter says it is there. */
typedef size_t (*gdc_coll_fast_offset_t)(const gdc_coll_args_t *args, int p);

gdc_status_t gdc_coll_fast_collect(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                   gdc_coll_fast_offset_t from, gdc_coll_fast_offset_t to);

/* Put my `bytes` of input in my place from `base` (gdc_coll_shm_place_data_at) once it is
 * free, publish them, and wait until every other local rank has published its own, of
 * which I read `reads` bytes at `at` from there next: the start of the shm_direct fast
 * paths. Where each rank reads its own part of the others'
 * (reduce_scatter: mine_unread), my part of mine is left out: no one reads it. */
gdc_status_t gdc_coll_fast_share_all(const gdc_coll_fast_t *fast, const void *input, size_t bytes, int ring,
                                     size_t base, size_t at, size_t reads, int mine_unread);

/* Reduce args->count elements at byte `offset` of every local rank's place into output, in
 * rank order (the schedules' gdc_coll_shm_reduce_places), AVG's division included; my
 * operand from `own` where not NULL (the same values as my place's). */
void gdc_coll_fast_reduce_places(const gdc_coll_fast_t *fast, const gdc_coll_args_t *args, void *output, int ring,
                                 size_t offset, const void *own);

/* Publish: in the ring, stamp my slot with the call's value (base + 1); else raise my
 * COPIED counter to it. A rank running the schedule waits for COPIED, which a ring call's
 * finish reaches (its DONE stands for it): no fast path's finish waits for what such a rank
 * does after reading me, and one line fewer to take back from the peers that read it (on
 * 2 ranks, small calls 0.89 to 0.94 of their time: bench/RESULTS.md 2026-12-05). */
void gdc_coll_fast_publish(const gdc_coll_fast_t *fast, int ring);
/* fast->wait's counter for "has published this call": COPIED, or in the ring the slot's
 * stamp (in the line of a small call's data; a schedule's publisher raises COPIED only). */
#define GDC_COLL_FAST_PUBLISHED (-1)
/* fast->wait's counter for "has copied in `pieces` pieces of this call, or published it
 * whole": the rank's progress word (rt_shm.h), or what GDC_COLL_FAST_PUBLISHED waits for
 * (a rank running the schedule publishes the call whole). */
#define GDC_COLL_FAST_PIECES (-2)
/* Publish in the ring the first `pieces` pieces of this call (the last is published with
 * the call, gdc_coll_fast_publish); wait until local rank peer has. */
void         gdc_coll_fast_publish_pieces(const gdc_coll_fast_t *fast, unsigned pieces);
gdc_status_t gdc_coll_fast_wait_pieces(const gdc_coll_fast_t *fast, int peer, unsigned pieces);
/* Wait until local rank peer (peer < 0: every other local rank) has published this call,
 * of which the waiter reads `bytes` at `at` of the peer's place next. */
gdc_status_t gdc_coll_fast_wait_published(const gdc_coll_fast_t *fast, int peer, int ring, size_t at, size_t bytes);
/* What fast->wait checks for a peer, on its `polls`-th try: its counter reached the target,
 * or for GDC_COLL_FAST_PUBLISHED the peer's stamp did, or on every
 * GDC_COLL_FAST_COPIED_POLLS-th try its COPIED counter: a schedule's publisher (rare) is
 * seen a few polls late, and the publisher's counter line is not pulled across on every
 * poll (on 2 ranks, a small bcast took 0.46 us polling both, 0.38 polling the stamp alone:
 * bench/RESULTS.md 2026-12-05). */
#define GDC_COLL_FAST_COPIED_POLLS 16
int gdc_coll_fast_reached(const gdc_coll_fast_t *fast, int peer, const gdc_coll_fast_want_t *want, unsigned polls);

/* The end of a call on the fast path, as the executor ends a shared-memory run: DONE to
 * the call's value, for every counter of mine. */
void gdc_coll_fast_finish(const gdc_coll_fast_t *fast);

#endif
