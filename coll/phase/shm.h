/*
 * What the shared-memory algorithms share. They run when every rank of the call is on one
 * node and the communicator has shared memory (host buffers): a rank copies what its peers
 * need into its own segment, raises a counter, and the peers copy or reduce straight out
 * of it once they see the counter; nobody writes into a segment part until its readers
 * have said (with another counter) that they are done with it.
 *
 * Counter values are chunk numbers + 1 within a call; 0 means "everything the calls before
 * this one did". When a run is over the executor raises the rank's DONE to the call's last
 * value, and every other counter counts as having reached it (rt_shm.h): DONE then says
 * the rank has stopped reading its peers' segments, so a call that waits for every peer's
 * DONE to reach 0 may overwrite what any of them read in the calls before (only then: in
 * an earlier call any rank may have read any part of this rank's segment).
 */
#ifndef GDC_COLL_SHM_H
#define GDC_COLL_SHM_H

#include "builder.h"

enum {
    GDC_COLL_SHM_COPIED = 0, /* my data for chunk j is in my segment */
    GDC_COLL_SHM_REDUCED,    /* I have reduced (and published) my part of chunk j */
    GDC_COLL_SHM_DONE,       /* I am done reading my peers' segments for chunk j */
    GDC_COLL_SHM_USED        /* counters the algorithms use */
};
_Static_assert(GDC_COLL_SHM_USED <= GDC_RT_SHM_COUNTERS, "the segments hold the counters the algorithms use");
_Static_assert(GDC_COLL_SHM_DONE == GDC_RT_SHM_DONE, "DONE is the counter that stands for them all");

/* Every rank on one node, shared memory there, host buffers. */
int gdc_coll_shm_supports(const gdc_coll_args_t *args);
/* The shm_direct algorithms, where a rank copies its `vector` bytes into its segment and
 * reduces `reads` bytes out of every rank's: the vector fits a segment, and what a rank
 * touches (the vector twice, and its reads) fits twice a core's own cache (args->core_cache,
 * where known). Past that every pass reads from the shared cache or memory: on the
 * development VM (1 MiB of L2 a core), allreduce shm_direct takes 45 us at 512 KiB on 2
 * ranks and 186 at 1 MiB, and reduce_scatter's crossings with ring and allreduce's with
 * shm on 2 and 4 ranks fall where this puts them (bench/RESULTS.md 2026-12-05). */
int gdc_coll_shm_direct_supports(const gdc_coll_args_t *args, size_t vector, size_t reads);
/* ... and its ranks reach each other's buffers by cross-memory attach (args->shm_cma). */
int gdc_coll_cma_supports(const gdc_coll_args_t *args);

/* A step that completes when every other rank's counter has reached value. */
int gdc_coll_shm_wait_all(gdc_coll_sched_t *sched, int counter, uint32_t value, int dep);

/* Cross-memory attach (the cma algorithms). A rank whose buffers its peers reach publishes
 * them and raises COPIED to 1 (gdc_coll_cma_publish); a peer copies from or into them once
 * it sees that (gdc_coll_cma_copy) and then raises DONE to 1; the owner's last step waits
 * for the DONE of every peer that reached its buffers (gdc_coll_shm_wait_all), so that it
 * returns only once they are done with them. Returns the COPIED signal. */
int gdc_coll_cma_publish(gdc_coll_sched_t *sched);
/* A copy between my buffer and local rank peer's (one of dst, src a gdc_coll_rgn_peer_user
 * region) once peer has published, and after dep. */
int gdc_coll_cma_copy(gdc_coll_sched_t *sched, int peer, gdc_coll_region_t dst, gdc_coll_region_t src, int dep);
/* Block p of my OUTPUT from every other rank p's INPUT at byte `at` (one block of the call's
 * count), one rank after another from the next one on (so that not every rank reads from the
 * same one at once); then DONE, and the wait for everyone's DONE. My own block's copy (own:
 * its places; NULL, none) comes after my DONE where every rank has a core
 * (gdc_coll_cma_own_last), filling the wait for the others', whom my DONE reaches sooner
 * (2 ranks, 16 KiB to 4 MiB, against it first: alltoall cma 0.81 to 0.98 and 0.90 to 1.00
 * of the time in two runs, allgather cma medians 0.97, 1.04 and 0.95 in three: little);
 * before the reads elsewhere, filling the wait for the others to publish: where ranks
 * outnumber the cores (4 ranks of 2 cores, it last: allgather cma 0.99 to 1.22 of the time
 * in one run, within what two runs of one build differ by there), and on the device (the
 * copy engine's copy started and waited for). bench/RESULTS.md 2026-12-06 11:05. */
int  gdc_coll_cma_own_last(const gdc_coll_args_t *args);
typedef struct gdc_coll_own_copy {
    gdc_coll_region_t dst, src;
} gdc_coll_own_copy_t;
void gdc_coll_cma_read_blocks(gdc_coll_sched_t *sched, size_t at, const gdc_coll_own_copy_t *own);

/* count elements at element in_at of every rank's INPUT reduced into my out_buf at element
 * out_at: mine read in place, every other's part read into scratch by cross-memory attach a
 * chunk at a time (gdc_coll_cma_reduce_chunk_elems, at the start of scratch: a result in
 * scratch goes past it) once every rank has published, then reduced, one peer after another
 * from the next rank on. No AVG division. Returns the last step. */
int gdc_coll_cma_reduce_inputs(gdc_coll_sched_t *sched, gdc_coll_buf_t out_buf, size_t out_at, size_t in_at,
                               size_t count);

/* The two-shot allreduce of ranks that reach each other's buffers (allreduce cma, and ipc
 * its device twin): a rank publishes its buffers, reduces part r (its rank) of every rank's
 * vector into part r of its output (reduce_part: count elements at element `at`, each
 * peer's after its publication) and says so (REDUCED); then it copies every other part p
 * from rank p's output once p has said so, says DONE and returns once every rank has (they
 * read its buffers until then). Each byte is reduced once on the node, and each rank gets
 * the same bits. In place too: part r of a rank's buffer is overwritten only by itself,
 * and part p only after rank p said REDUCED, that is, after p read it. */
typedef int (*gdc_coll_reduce_part_fn)(gdc_coll_sched_t *sched, size_t at, size_t count);
void gdc_coll_two_shot(gdc_coll_sched_t *sched, gdc_coll_reduce_part_fn reduce_part);
/* allreduce cma's chunk, in elements (at least 1): what a rank reads of a peer's input into
 * its scratch and reduces at once, GDC_SHM_CHUNK's bytes (the chunk of its output and the
 * one read stay in the core's cache). */
size_t gdc_coll_cma_reduce_chunk_elems(const gdc_coll_args_t *args);

/* Small calls publish through the segments' rings (rt_shm.h): a call that needs at most a
 * ring slot per rank goes in one chunk, into the call's slot, once every reader is done with
 * the call a ring before, not with the last one; so a loop of small calls need not wait for
 * its readers every time. What one rank of the call publishes: the call's n blocks where
 * a rank's block is a part of them (scatter, alltoall, reduce_scatter), else its block. */
size_t gdc_coll_shm_published_bytes(const gdc_coll_args_t *args);
/* Whether the call's shared-memory algorithm goes through the ring: its published bytes
 * fit a slot. */
int gdc_coll_shm_in_ring(const gdc_coll_args_t *args);
/* Where in a ring slot the data of a call of one slot, `bytes` of it, starts: right after
 * the stamp where it fits the stamp's line (a reader that polls the stamp gets it with
 * it), else on the next line (GDC_RT_SHM_RING_ALIGNED), so that no line of it is the one
 * the readers poll while the writer copies, and no load of a line-wide copy or reduction
 * of it spans two lines (on 2 ranks, from 256 B to 1 KiB: allreduce 0.85 to 0.93 of the
 * time, allgather 0.84 to 0.90, gather 0.75 to 0.93, bcast 0.80 to 0.98; 4 ranks on 2
 * cores unchanged; bench/RESULTS.md 2026-12-07). A slot has room for its whole data from
 * there. */
size_t gdc_coll_shm_ring_data_at(size_t bytes);
/* Where the data of args's call starts in a rank's place: in the ring (ring), where
 * gdc_coll_shm_ring_data_at puts what the rank publishes; in the data area, at its start. */
size_t gdc_coll_shm_place_data_at(const gdc_coll_args_t *args, int ring);

/* Where local rank owner publishes `length` bytes at `offset` of this call's place: its
 * ring slot (ring) or its data area. */
gdc_coll_region_t gdc_coll_shm_place(int owner, int me, int ring, size_t offset, size_t length);

/* Steps that reduce, into out, out.length bytes at `offset` of every local rank's place,
 * in rank order (so every rank gets the same bits), AVG's division included; the first
 * after dep and also. Returns the last step. */
int gdc_coll_shm_reduce_places(gdc_coll_sched_t *sched, gdc_coll_region_t out, int ring, size_t offset, int dep,
                               int also);

/* A step that completes when my place may be overwritten: every other rank done with the
 * call a ring before (ring), or with chunk `prior` (0: the calls before). */
int gdc_coll_shm_wait_free(gdc_coll_sched_t *sched, int ring, uint32_t prior, int dep);

/* How the pipelined shm algorithms (bcast, allgather, alltoall, gather, scatter) put a call
 * through a rank's ring. A call whose published bytes fit a slot goes in one chunk into the
 * call's slot, right after the stamp (where the fast paths put it). A larger one goes a
 * chunk a slot: chunk j in the slot of the call's counter value j + 1, on a line of its own
 * (GDC_RT_SHM_RING_ALIGNED), once every reader is done with what was published there a ring
 * before, in this call or an earlier one. So a writer waits for readers a ring behind, not
 * two chunks behind as it did in its data area: where ranks outnumber the cores each such
 * wait may cost a context switch (4 ranks on 2 cores: a 512 KiB bcast took 4 times as long
 * as a 256 KiB one, bench/RESULTS.md 2026-12-05). A chunk holds `rooms` parts (one per
 * rank where a rank publishes a block for each), each GDC_SHM_CHUNK at most. Where a
 * chunk has several parts, they are a slot's share, smaller than the data area's; so such
 * calls go through the ring only where the ranks outnumber the cores (where the waits it
 * saves cost most) and the call fits the ring, else through the data area as before,
 * double buffered (alltoall and scatter through the ring: on 4 ranks, 0.33 to 0.79 from
 * 128 KiB to 2 MiB, 1.1 to 1.5 from 4 to 16 MiB; on 2 ranks up to 1.15: bench/RESULTS.md
 * 2026-12-05). */
typedef struct gdc_coll_shm_chunks {
    int    one_slot; /* the whole call in the call's slot: the fast paths' case */
    int    ring;     /* a chunk a ring slot (else two chunks' places in the data area) */
    size_t elems;    /* of a part of a chunk (the whole block in one slot) */
    size_t count;    /* chunks */
    size_t room;     /* bytes between two parts of a chunk */
    size_t rooms;
    size_t at;       /* where in a slot's data the first part starts */
} gdc_coll_shm_chunks_t;

gdc_coll_shm_chunks_t gdc_coll_shm_chunks(const gdc_coll_args_t *args, size_t rooms);
/* Part `part` (0 to rooms - 1) of chunk j in local rank owner's shared memory, `length`
 * bytes. */
gdc_coll_region_t gdc_coll_shm_chunk_place(const gdc_coll_shm_chunks_t *c, int owner, int me, size_t j, size_t part,
                                           size_t length);
/* A step that completes when chunk j's place is mine to overwrite, after dep: every other
 * rank is done with what was there before (in the data area, chunk j - 2 of this call). */
int gdc_coll_shm_chunk_free(gdc_coll_sched_t *sched, const gdc_coll_shm_chunks_t *c, size_t j, int dep);

/* Chunking: how many units (elements of the call) go in one pipeline chunk, given that
 * `slots_per_chunk` copies of a chunk must fit twice (double buffering) in a segment.
 * At least 1. */
size_t gdc_coll_shm_chunk_elems(const gdc_coll_args_t *args, size_t slots_per_chunk);
/* allreduce shm's chunk, in elements: one part per rank, each part a pipelining unit (a
 * rank copies, reduces and collects whole parts), n + 1 slots of a part fitting twice in
 * the segment. A multiple of the rank count. */
size_t gdc_coll_shm_allreduce_chunk_elems(const gdc_coll_args_t *args);
/* Whether allreduce shm's call goes in its ring slot: one chunk whose n + 1 parts (the
 * peers' copies, the result), each on lines of its own (gdc_coll_shm_allreduce_room bytes
 * apart), fit the slot, and the ring of every rank of the call, as far as the call fills
 * it, fits one core's cache (args->core_cache; 0, unknown: never). In its data area a rank
 * writes the lines its peers read in the call before, which their cores still hold; in its
 * ring slot, lines they read a ring of calls before. On the development VM (2 cores, 2 MiB
 * of cache each) a copy into lines the other core holds runs at half the rate below 96 KiB
 * (bench/membw --handoff), and forced allreduce shm took 0.63 to 0.90 of the data area's
 * time from 1 to 64 KiB on 2 ranks, 0.73 to 0.79 from 1 to 32 KiB on 4; where the ring
 * outgrows the cache it took 1.10 and 1.13 at 96 and 128 KiB on 2 ranks (bench/RESULTS.md
 * 2026-12-07). */
int    gdc_coll_shm_allreduce_in_ring(const gdc_coll_args_t *args);
size_t gdc_coll_shm_allreduce_room(const gdc_coll_args_t *args);

#endif
