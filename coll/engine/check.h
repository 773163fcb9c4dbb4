/*
 * GDC_CHECK: every collective first gathers every rank's signature of the call (collective,
 * count, datatype, op, root) with an allgather whose shape is the same whatever the call,
 * so that ranks that disagree all find out before any of them moves data: each returns
 * GDC_ERR_INVALID_ARG, the first difference is logged naming both ranks, and the
 * communicator stays usable (no rank ran the call). A rank that rejects its own arguments
 * takes part with a signature that says so. The allgather costs about what a small
 * collective costs, hence off by default (bench/RESULTS.md has the figures).
 */
#ifndef GDC_COLL_CHECK_H
#define GDC_COLL_CHECK_H

#include "coll.h"

struct gdc_comm;

typedef struct gdc_coll_sig {
    uint64_t count;    /* elements (0 for alltoallv, whose counts differ per rank by design) */
    uint32_t seq;      /* the call's number on the communicator */
    int32_t  root;
    uint8_t  coll;
    uint8_t  dtype;
    uint8_t  op;
    uint8_t  rejected; /* this rank refused its own arguments */
    uint8_t  device;   /* its buffers are device memory: every rank's must be, or none (the
                          device algorithms address the peers' buffers directly) */
    uint8_t  reserved[3];
} gdc_coll_sig_t;

/* Is GDC_CHECK on for args's calls? */
static inline int gdc_coll_check_on(const gdc_coll_args_t *args)
{
    return args->config->check;
}

/* The signature of args as the call numbered seq. */
gdc_coll_sig_t gdc_coll_sig_of(const gdc_coll_args_t *args, uint32_t seq, int rejected);

/* The check's own call: an allgather of one signature per rank over args's communicator. */
gdc_coll_args_t gdc_coll_check_args(const gdc_coll_args_t *args);

/* Everyone's signatures (all[comm rank]) against each other: GDC_SUCCESS, or
 * GDC_ERR_INVALID_ARG with the first difference logged (at error level by the two ranks it
 * names, at info by the others). */
gdc_status_t gdc_coll_check_verify(const gdc_coll_sig_t *all, int size, int me);

/* A blocking check of the call args (numbered by the communicator's next sequence number
 * plus one: the check takes the next); rejected says this rank refused its arguments. A
 * checked call takes two sequence numbers, the check's and its own, whether it runs or not
 * (so that ranks stay in step however each of them ends it): on failure this takes both. */
gdc_status_t gdc_coll_check_blocking(struct gdc_comm *comm, const gdc_coll_args_t *args, int rejected);

#endif
