/*
 * gdc.h: the public interface of gdc, MPI-style collectives for GPU clusters.
 *
 * A gdc program is started by a PMIx launcher (`gdrun -n N ./app`, `srun --mpi=pmix`,
 * Open MPI's `mpirun`), or alone as a singleton of size 1. It calls gdc_init() once,
 * then communicates through communicators, and calls gdc_finalize() before it exits.
 *
 * Conventions
 * - Every function returns a gdc_status_t: GDC_SUCCESS (0) or a negative error;
 *   gdc_strerror() explains a status. Output parameters are set only on success.
 * - Counts are in elements of the given datatype, never in bytes.
 * - Buffers may be host memory or CUDA device memory; gdc finds out which.
 * - Ranks and tags are ints; a rank is relative to the communicator it is used with.
 * - gdc is not thread-safe: call it from one thread of the process at a time.
 *
 * This header is C99 and C++ clean.
 */
#ifndef GDC_H
#define GDC_H

#include <stddef.h>

#include "gdc_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Status
 */

/** Result of every gdc call. */
typedef enum {
    GDC_SUCCESS             = 0,   /**< the call did what it was asked */
    GDC_ERR_INVALID_ARG     = -1,  /**< an argument is wrong; the log line names it */
    GDC_ERR_NO_MEMORY       = -2,  /**< an allocation or registration failed */
    GDC_ERR_NOT_INITIALIZED = -3,  /**< called before gdc_init() or after gdc_finalize() */
    GDC_ERR_UNSUPPORTED     = -4,  /**< valid, but not implemented for this case */
    GDC_ERR_TRANSPORT       = -5,  /**< UCX or PMIx reported an error */
    GDC_ERR_PEER_FAILED     = -6,  /**< a peer this operation depends on has failed */
    GDC_ERR_TIMEOUT         = -7,  /**< no progress for GDC_TIMEOUT seconds */
    GDC_ERR_TRUNCATED       = -8,  /**< the incoming message is longer than the buffer */
    GDC_ERR_INTERNAL        = -9   /**< a bug in gdc; please report it with the log */
} gdc_status_t;

/** A short English explanation of a status code; never NULL. */
const char *gdc_strerror(gdc_status_t status);

/* ---------------------------------------------------------------------------------------
 * Life cycle
 */

/**
 * Initialise gdc: connect to the launcher's PMIx server (or run as a singleton of size 1
 * when there is none), open the UCX transport and create GDC_COMM_WORLD.
 * argc and argv may be NULL; gdc does not consume arguments.
 * Configuration comes from GDC_* environment variables (see `gdinfo --params`).
 * Calling it twice, or after gdc_finalize(), is an error.
 */
gdc_status_t gdc_init(int *argc, char ***argv);

/**
 * Finalize gdc: complete the job-wide exit synchronisation and release every resource.
 * Every rank must call it. Outstanding requests are cancelled.
 */
gdc_status_t gdc_finalize(void);

/** *flag = 1 between gdc_init() and gdc_finalize(), 0 otherwise. Callable at any time. */
gdc_status_t gdc_initialized(int *flag);

/** Seconds since an arbitrary point in the past (monotonic clock). Callable at any time. */
double gdc_wtime(void);

/** "gdc 0.1.0 (UCX 1.13.1, PMIx 4.2.2, hwloc 2.9.0, CUDA ...)". Callable at any time. */
const char *gdc_version_string(void);

/* ---------------------------------------------------------------------------------------
 * Communicators
 */

/** Opaque communicator handle. */
typedef struct gdc_comm *gdc_comm_t;

/* The object behind GDC_COMM_WORLD; use the macro, not this name. */
extern struct gdc_comm gdc_comm_world_instance;

/** All ranks of the job; usable as a gdc_comm_t after gdc_init(). */
#define GDC_COMM_WORLD (&gdc_comm_world_instance)
/** No communicator (e.g. from gdc_comm_split with color GDC_UNDEFINED). */
#define GDC_COMM_NULL  ((gdc_comm_t)0)
/** Color for gdc_comm_split meaning "not in any new communicator". */
#define GDC_UNDEFINED  (-32766)

/** Largest tag allowed in point-to-point calls; tags are 0..GDC_TAG_UB. */
#define GDC_TAG_UB     8388607

gdc_status_t gdc_comm_rank(gdc_comm_t comm, int *rank);
gdc_status_t gdc_comm_size(gdc_comm_t comm, int *size);

/**
 * Collective over comm: ranks with the same color form a new communicator, ordered by key
 * and then by rank in comm. color must be >= 0 or GDC_UNDEFINED (which gives GDC_COMM_NULL).
 */
gdc_status_t gdc_comm_split(gdc_comm_t comm, int color, int key, gdc_comm_t *newcomm);

/** Collective over comm: a new communicator with the same ranks, whose traffic never mixes with comm's. */
gdc_status_t gdc_comm_dup(gdc_comm_t comm, gdc_comm_t *newcomm);

/** Release a communicator made by split or dup and set *comm to GDC_COMM_NULL. */
gdc_status_t gdc_comm_free(gdc_comm_t *comm);

/**
 * End the whole job with errorcode: the launcher terminates every rank and exits with
 * errorcode. Does not return when it succeeds. comm names the caller's communicator (any
 * valid one; the whole job ends).
 */
gdc_status_t gdc_abort(gdc_comm_t comm, int errorcode);

/* ---------------------------------------------------------------------------------------
 * Datatypes and reduction operations
 */

typedef enum {
    GDC_INT8 = 0,
    GDC_UINT8,
    GDC_INT16,
    GDC_UINT16,
    GDC_INT32,
    GDC_UINT32,
    GDC_INT64,
    GDC_UINT64,
    GDC_FLOAT16,   /**< IEEE 754 binary16 */
    GDC_BFLOAT16,  /**< bfloat16 (8-bit exponent, 7-bit mantissa) */
    GDC_FLOAT32,
    GDC_FLOAT64,
    GDC_BYTE       /**< opaque bytes: moved, never reduced */
} gdc_dtype_t;

/** Size in bytes of one element of dtype; 0 for an unknown dtype. */
size_t gdc_dtype_size(gdc_dtype_t dtype);

typedef enum {
    GDC_SUM = 0,
    GDC_PROD,
    GDC_MIN,      /**< for floats, IEEE fmin: a NaN loses to a number */
    GDC_MAX,      /**< for floats, IEEE fmax */
    GDC_AVG,      /**< sum divided by the communicator size; integers truncate toward zero */
    GDC_BAND,     /**< integer types only */
    GDC_BOR,      /**< integer types only */
    GDC_BXOR      /**< integer types only */
} gdc_op_t;

/* ---------------------------------------------------------------------------------------
 * Requests (nonblocking operations)
 */

/** Opaque handle of a nonblocking operation. */
typedef struct gdc_request *gdc_request_t;
#define GDC_REQUEST_NULL ((gdc_request_t)0)

/**
 * Wait until *req completes, release it, set *req to GDC_REQUEST_NULL and return the
 * operation's status. Waiting on GDC_REQUEST_NULL returns GDC_SUCCESS at once.
 */
gdc_status_t gdc_wait(gdc_request_t *req);

/**
 * Wait for all n requests (GDC_REQUEST_NULL entries are skipped). Every request is
 * completed and released even when some fail; returns the first error in array order,
 * or GDC_SUCCESS.
 */
gdc_status_t gdc_waitall(int n, gdc_request_t *reqs);

/**
 * Progress and test *req: *done = 1 if it completed (it is then released, *req becomes
 * GDC_REQUEST_NULL and the operation's status is returned), 0 otherwise.
 */
gdc_status_t gdc_test(gdc_request_t *req, int *done);

/* ---------------------------------------------------------------------------------------
 * Point-to-point
 *
 * Messages between a pair of ranks with the same tag and communicator arrive in the
 * order they were sent. A receive must name its source and tag (no wildcards).
 */

gdc_status_t gdc_send(const void *buf, size_t count, gdc_dtype_t dtype, int dest, int tag, gdc_comm_t comm);
/** A message longer than count elements gives GDC_ERR_TRUNCATED. A shorter one is accepted. */
gdc_status_t gdc_recv(void *buf, size_t count, gdc_dtype_t dtype, int source, int tag, gdc_comm_t comm);
gdc_status_t gdc_isend(const void *buf, size_t count, gdc_dtype_t dtype, int dest, int tag, gdc_comm_t comm,
                       gdc_request_t *req);
gdc_status_t gdc_irecv(void *buf, size_t count, gdc_dtype_t dtype, int source, int tag, gdc_comm_t comm,
                       gdc_request_t *req);

/* ---------------------------------------------------------------------------------------
 * Collectives
 *
 * Every rank of comm calls the same collectives in the same order with matching
 * arguments. GDC_IN_PLACE as sendbuf means: the input is taken from recvbuf (allreduce,
 * reduce at the root, reduce_scatter: the full size*recvcount input in recvbuf; allgather
 * and gather at the root: this rank's block already at its place in recvbuf; alltoall:
 * recvbuf holds the send blocks); for scatter, GDC_IN_PLACE as recvbuf at the root
 * leaves the root's block in sendbuf.
 */

/** Marker for in-place collectives; see above. */
#define GDC_IN_PLACE ((void *)1)

gdc_status_t gdc_barrier(gdc_comm_t comm);
gdc_status_t gdc_bcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm);
gdc_status_t gdc_reduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                        int root, gdc_comm_t comm);
gdc_status_t gdc_allreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                           gdc_comm_t comm);
/** count elements from every rank; recvbuf holds size*count, rank r's block at r*count. */
gdc_status_t gdc_allgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm);
/** sendbuf holds size*recvcount elements; rank r receives the reduction of block r. */
gdc_status_t gdc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype,
                                gdc_op_t op, gdc_comm_t comm);
/** count elements to every peer: block p of sendbuf goes to rank p, arrives at block r of p's recvbuf. */
gdc_status_t gdc_alltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm);
/** Per-peer counts and displacements, all in elements. */
gdc_status_t gdc_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                           const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm);
/** count elements from every rank to root's recvbuf (size*count, significant at root only). */
gdc_status_t gdc_gather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                        gdc_comm_t comm);
/** root's sendbuf (size*count, significant at root only) is split; rank r gets block r. */
gdc_status_t gdc_scatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                         gdc_comm_t comm);

gdc_status_t gdc_ibarrier(gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_ibcast(void *buf, size_t count, gdc_dtype_t dtype, int root, gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_ireduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                         int root, gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_iallreduce(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_op_t op,
                            gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_iallgather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                            gdc_request_t *req);
gdc_status_t gdc_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, gdc_dtype_t dtype,
                                 gdc_op_t op, gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_ialltoall(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, gdc_comm_t comm,
                           gdc_request_t *req);
gdc_status_t gdc_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf,
                            const size_t *recvcounts, const size_t *rdispls, gdc_dtype_t dtype, gdc_comm_t comm,
                            gdc_request_t *req);
gdc_status_t gdc_igather(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                         gdc_comm_t comm, gdc_request_t *req);
gdc_status_t gdc_iscatter(const void *sendbuf, void *recvbuf, size_t count, gdc_dtype_t dtype, int root,
                          gdc_comm_t comm, gdc_request_t *req);

#ifdef __cplusplus
}
#endif

#endif /* GDC_H */
