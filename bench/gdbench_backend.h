/*
 * The backend interface: what the harness needs from a communication library. Two
 * implementations exist, linked with the same harness objects: backend_gdc.c (gdbench,
 * gdc.h only) and backend_mpi.c (gdbench-mpi, gdbench-mpich). Every function that can fail
 * returns a gdbench_status_t and, on failure, leaves the reason in gdbench_error().
 */
#ifndef GDBENCH_BACKEND_H
#define GDBENCH_BACKEND_H

#include "gdbench.h"

/* One collective call, described without any library's types. */
typedef struct {
    gdbench_test_t  test;
    const void     *sendbuf;
    void           *recvbuf;     /* bcast: the buffer */
    size_t          count;       /* elements, as gdc.h's count (recvcount for reduce_scatter) */
    gdbench_dtype_t dtype;
    gdbench_op_t    op;
    int             root;
    /* In place on this rank: the backend passes its IN_PLACE marker as sendbuf (as
     * recvbuf for scatter at the root). Only set where gdc.h and MPI define it. */
    int             in_place;
    /* alltoallv, in elements, one per rank */
    const size_t   *sendcounts, *sdispls, *recvcounts, *rdispls;
    void           *backend_data; /* set by gdbench_be_prepare */
} gdbench_call_t;

typedef enum {
    GDBENCH_STAT_MIN,
    GDBENCH_STAT_MAX,
    GDBENCH_STAT_SUM
} gdbench_stat_op_t;

/* Names: the program ("gdbench-mpi"), the backend ("gdc", "mpi"). */
const char *gdbench_be_program(void);
const char *gdbench_be_name(void);

/* Before init: force the algorithm of a test's collective (-a). */
int gdbench_be_select_algorithm(gdbench_test_t test, const char *name);

int  gdbench_be_init(int *argc, char ***argv);
int  gdbench_be_finalize(void);
/* End the whole job with code: for an error on one rank that the others may wait on. */
void gdbench_be_abort(int code) __attribute__((noreturn));
int  gdbench_be_rank(void);
int  gdbench_be_size(void);
/* "gdc 0.1.0", "Open MPI v4.1.4", "MPICH 4.0.2", and the library's full version string. */
const char *gdbench_be_library(void);
const char *gdbench_be_library_long(void);
double      gdbench_be_wtime(void);

/* After init: can this backend run dtype/op on memory? GDBENCH_UNSUPPORTED says why. */
int gdbench_be_check_support(const gdbench_options_t *opts);

/* The barrier between iterations (not the benchmarked one; that is a gdbench_call_t). */
int gdbench_be_barrier(void);
/* In-place reduction of n doubles across ranks, for the statistics. */
int gdbench_be_reduce_doubles(double *values, int n, gdbench_stat_op_t op);

/* Collectives: prepare once per size (outside the timed region), call, release. */
int  gdbench_be_prepare(gdbench_call_t *call);
int  gdbench_be_collective(gdbench_call_t *call);
void gdbench_be_release(gdbench_call_t *call);

/* Point-to-point in bytes. Nonblocking operations use request slots 0..GDBENCH_BE_SLOTS-1;
 * waitall completes slots 0..nslots-1. */
#define GDBENCH_BE_SLOTS (2 * GDBENCH_WINDOW)
int gdbench_be_send(const void *buf, size_t bytes, int peer, int tag);
int gdbench_be_recv(void *buf, size_t bytes, int peer, int tag);
int gdbench_be_isend(const void *buf, size_t bytes, int peer, int tag, int slot);
int gdbench_be_irecv(void *buf, size_t bytes, int peer, int tag, int slot);
int gdbench_be_waitall(int nslots);

#endif
