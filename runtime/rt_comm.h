/* Communicators: a context id, a rank and a size, and the map to world ranks. */
#ifndef GDC_RT_COMM_H
#define GDC_RT_COMM_H

#include <stdint.h>

#include <gdc.h>

#define GDC_RT_COMM_MAGIC 0x67636f6du /* "gcom" */

struct gdc_comm {
    uint32_t         magic;
    uint32_t         ctx;          /* context id: the tag field that keeps comms apart */
    int              rank;
    int              size;
    int             *world_of;     /* [size] comm rank -> world rank; NULL for the world */
    int             *node_of;      /* [size] comm rank -> node, numbered 0.. in order of first rank */
    int              num_nodes;
    uint32_t         coll_seq;     /* number of the next collective on this communicator */
    uint32_t         internal_seq; /* number of the next runtime-internal exchange */
    void            *coll;         /* the collectives layer's state (schedule cache, ...) */
    struct gdc_rt_shm *shm;        /* shared memory with the ranks on my node; NULL: none */
    struct gdc_comm *next;         /* all live communicators, for finalize */
    unsigned         failures_seen; /* gdc_rt_ucx_failures() when failed_member was found */
    int              failed_member; /* world rank + 1 of a rank of it known failed; 0: none */
    int              watch_next;    /* gdc_rt_comm_watch_member's next rank */
};

static inline int gdc_rt_comm_world_rank(const struct gdc_comm *comm, int rank)
{
    return comm->world_of != NULL ? comm->world_of[rank] : rank;
}

/*
 * A rank of comm known failed (its world rank), or -1. An operation that needs every rank
 * of comm (a collective, a communicator's construction) cannot complete once one has
 * failed: it ends with GDC_ERR_PEER_FAILED, even where it waits for a live rank, which may
 * itself wait for the failed one in a call it will never finish. Free while nothing new
 * has failed.
 */
int gdc_rt_comm_failed_member(struct gdc_comm *comm);
/* Look at the life of one more of comm's ranks (in turn), where this process can see it (a
 * connected peer with this host's pids): for a call stalled on a live rank, the failure it
 * may depend on is then found even where it talks to no rank that died. */
void gdc_rt_comm_watch_member(struct gdc_comm *comm);

/* Before the job-wide address exchange: create my shared memory for the world. */
gdc_status_t gdc_rt_comm_world_prepare(void);
/* gdc_init failed between prepare and world init: drop what prepare made. */
void gdc_rt_comm_world_unprepare(void);
gdc_status_t gdc_rt_comm_world_init(void);
/* Release every communicator still alive (finalize). */
void gdc_rt_comm_finalize_all(void);

/* Hooks the collectives layer installs to set up and tear down its per-comm state. */
typedef struct gdc_rt_comm_hooks {
    gdc_status_t (*created)(struct gdc_comm *comm);
    void         (*destroyed)(struct gdc_comm *comm);
} gdc_rt_comm_hooks_t;

void gdc_rt_comm_set_hooks(const gdc_rt_comm_hooks_t *hooks);

#endif
