/*
 * gdbench: the osu-style benchmark harness shared by gdbench (gdc backend) and
 * gdbench-mpi / gdbench-mpich (MPI backend). Everything here is backend-neutral: the
 * harness never includes gdc.h or mpi.h; a backend (gdbench_backend.h) maps these
 * vocabularies onto its library.
 */
#ifndef GDBENCH_H
#define GDBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses, the same for every binary and documented in gdbench(1). */
#define GDBENCH_EXIT_OK          0
#define GDBENCH_EXIT_FAILED      1  /* a call failed, a result was wrong, no GPU, ... */
#define GDBENCH_EXIT_USAGE       2  /* bad command line */
#define GDBENCH_EXIT_UNSUPPORTED 3  /* valid request this backend or build does not support */

/* Status of harness and backend functions. */
typedef enum {
    GDBENCH_OK          = 0,
    GDBENCH_ERR         = -1, /* failed; gdbench_error() says why */
    GDBENCH_UNSUPPORTED = -2  /* valid, but this backend or build cannot do it */
} gdbench_status_t;

/* ---------------------------------------------------------------------------------------
 * Tests
 */
typedef enum {
    GDBENCH_ALLREDUCE = 0,
    GDBENCH_BCAST,
    GDBENCH_REDUCE,
    GDBENCH_ALLGATHER,
    GDBENCH_REDUCE_SCATTER,
    GDBENCH_ALLTOALL,
    GDBENCH_ALLTOALLV,
    GDBENCH_GATHER,
    GDBENCH_SCATTER,
    GDBENCH_BARRIER,
    GDBENCH_LATENCY,
    GDBENCH_BW,
    GDBENCH_BIBW,
    GDBENCH_TEST_COUNT
} gdbench_test_t;

/* Properties of a test (gdbench_test_info_t.flags). */
#define GDBENCH_F_REDUCTION 0x1u /* takes -o; result is a reduction */
#define GDBENCH_F_ROOTED    0x2u /* takes -r */
#define GDBENCH_F_IN_PLACE  0x4u /* takes -l */
#define GDBENCH_F_P2P       0x8u /* exactly 2 ranks, point-to-point */
#define GDBENCH_F_NO_DATA   0x10u /* barrier: no buffers, no sizes */

/* How "bytes" for algbw relates to the Size column (nccl-tests' convention). */
typedef enum {
    GDBENCH_BYTES_SIZE,        /* bytes = Size */
    GDBENCH_BYTES_SIZE_TIMES_N /* bytes = Size x ranks (Size is one rank's block) */
} gdbench_bytes_rule_t;

/* Bus bandwidth factor (nccl-tests). */
typedef enum {
    GDBENCH_BUS_ONE,           /* 1 */
    GDBENCH_BUS_ALLREDUCE,     /* 2(n-1)/n */
    GDBENCH_BUS_N_MINUS_1_OVER_N /* (n-1)/n */
} gdbench_bus_rule_t;

typedef struct {
    const char          *name;      /* on the command line */
    unsigned             flags;
    gdbench_bytes_rule_t bytes_rule;
    gdbench_bus_rule_t   bus_rule;
    const char          *size_help; /* what Size means, for --help and the man page */
} gdbench_test_info_t;

const gdbench_test_info_t *gdbench_test_info(gdbench_test_t test);
int                        gdbench_test_by_name(const char *name, gdbench_test_t *test);

/* ---------------------------------------------------------------------------------------
 * Datatypes and operations (gdbench_dtype.c)
 */
typedef enum {
    GDBENCH_INT8 = 0,
    GDBENCH_UINT8,
    GDBENCH_INT16,
    GDBENCH_UINT16,
    GDBENCH_INT32,
    GDBENCH_UINT32,
    GDBENCH_INT64,
    GDBENCH_UINT64,
    GDBENCH_FLOAT16,
    GDBENCH_BFLOAT16,
    GDBENCH_FLOAT32,
    GDBENCH_FLOAT64,
    GDBENCH_DTYPE_COUNT
} gdbench_dtype_t;

typedef enum {
    GDBENCH_SUM = 0,
    GDBENCH_PROD,
    GDBENCH_MIN,
    GDBENCH_MAX,
    GDBENCH_AVG,
    GDBENCH_BAND,
    GDBENCH_BOR,
    GDBENCH_BXOR,
    GDBENCH_OP_COUNT
} gdbench_op_t;

typedef struct {
    const char *name;
    size_t      size;       /* bytes per element */
    int         is_float;
    /* Largest integer n such that every integer in 0..n is stored exactly; the
     * validation patterns keep every value and every partial result within it. */
    uint64_t    exact_max;
} gdbench_dtype_info_t;

const gdbench_dtype_info_t *gdbench_dtype_info(gdbench_dtype_t dtype);
int                         gdbench_dtype_by_name(const char *name, gdbench_dtype_t *dtype);
const char                 *gdbench_op_name(gdbench_op_t op);
int                         gdbench_op_by_name(const char *name, gdbench_op_t *op);
/* Bitwise operations are defined for integer types only. */
int                         gdbench_op_valid_for(gdbench_op_t op, gdbench_dtype_t dtype);

/*
 * Element access. Values are integers: for integer types they are stored modulo 2^bits
 * (two's complement), for floats converted exactly (the caller keeps them within
 * exact_max). gdbench_dtype_format writes an element for an error message.
 */
void gdbench_dtype_store(void *buf, size_t index, gdbench_dtype_t dtype, int64_t value);
void gdbench_dtype_format(const void *buf, size_t index, gdbench_dtype_t dtype, char *out, size_t outlen);
/* buf[i] /= divisor for count elements, on host memory (integers truncate toward zero):
 * how a backend without an average operation emulates GDBENCH_AVG. */
void gdbench_dtype_divide(void *buf, size_t count, gdbench_dtype_t dtype, int divisor);

/* IEEE binary16 and bfloat16 conversions (round to nearest even). */
uint16_t gdbench_float_to_half(float value);
float    gdbench_half_to_float(uint16_t bits);
uint16_t gdbench_float_to_bfloat16(float value);
float    gdbench_bfloat16_to_float(uint16_t bits);

/* ---------------------------------------------------------------------------------------
 * Options (gdbench_options.c)
 */
typedef enum {
    GDBENCH_MEM_HOST = 0,
    GDBENCH_MEM_CUDA,     /* cudaMalloc */
    GDBENCH_MEM_CUDA_POOL /* cudaMallocAsync: a memory pool's, which has no legacy CUDA IPC handle */
} gdbench_memory_t;

/* "host", "cuda", "cuda-pool": -d's names. */
const char *gdbench_memory_name(gdbench_memory_t memory);

typedef struct {
    gdbench_test_t   test;
    size_t           min_size, max_size;  /* bytes */
    long             iterations;          /* -1: OSU's default for the size */
    long             warmup;              /* -1: OSU's default for the size */
    int              full;                /* -f */
    int              validate;            /* -c */
    int              with_barrier;        /* --with-barrier */
    gdbench_dtype_t  dtype;
    gdbench_op_t     op;
    int              root;
    int              in_place;            /* -l */
    gdbench_memory_t memory;              /* -d */
    const char      *algorithm;           /* -a, NULL when not given */
    const char      *json_path;           /* --json */
    const char      *plot_path;           /* --plot */
    int              inject_error;        /* --inject-error (hidden): the harness's self-test */
} gdbench_options_t;

/* Parse argv. Returns GDBENCH_OK, or GDBENCH_ERR after printing the reason and usage to
 * stderr (exit 2), or sets *exit_now to 1 after --help / --version (exit 0). */
int  gdbench_options_parse(int argc, char **argv, gdbench_options_t *opts, int *exit_now);
void gdbench_usage(FILE *out);
/* The launcher to suggest in messages: gdrun for gdc, mpirun for MPI. */
const char *gdbench_launcher_name(void);

/* ---------------------------------------------------------------------------------------
 * Errors: one message buffer for the harness and the backend (gdbench_util.c).
 */
void        gdbench_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *gdbench_error(void);
/* Parse "123", "4K", "1M", "2G" (binary multiples); returns 0 on success. */
int         gdbench_parse_bytes(const char *text, size_t *bytes);
/* "4 KiB"-style label for axes and progress ("1K", "64M"). */
void        gdbench_format_bytes_short(size_t bytes, char *out, size_t outlen);

/* ---------------------------------------------------------------------------------------
 * Per-size geometry (gdbench_tests.c)
 */
typedef struct {
    size_t size;         /* the Size column, bytes (OSU's meaning, see size_help) */
    size_t count;        /* elements per call: the count (recvcount) the API is given */
    size_t send_elems;   /* elements of this rank's send buffer that the call reads */
    size_t recv_elems;   /* elements of this rank's receive buffer that the call uses */
    size_t check_offset; /* elements of the receive buffer this rank verifies with -c */
    size_t check_elems;
    double bytes;        /* nccl-tests' byte count, for algbw */
} gdbench_layout_t;

/* GDBENCH_OK, or GDBENCH_ERR when size is too small for one element per rank/block. */
int    gdbench_layout_for(const gdbench_options_t *opts, size_t size, int rank, int nranks,
                          gdbench_layout_t *layout);
double gdbench_busbw_factor(gdbench_test_t test, int nranks);
/* OSU's defaults: iterations and warm-up for a size, first and last size of a sweep. */
void   gdbench_default_iterations(gdbench_test_t test, size_t size, long *iterations, long *warmup);
void   gdbench_default_sizes(gdbench_test_t test, gdbench_dtype_t dtype, size_t *min_size,
                             size_t *max_size);
gdbench_dtype_t gdbench_default_dtype(gdbench_test_t test);
/* The GDC_<COLL>_ALGO variable naming the algorithm of a test's collective, or NULL. */
const char *gdbench_algorithm_variable(gdbench_test_t test);

/* Messages per window of bw and bibw (OSU's window_size). */
#define GDBENCH_WINDOW 64

/* ---------------------------------------------------------------------------------------
 * Validation patterns (gdbench_check.c)
 *
 * For one size and one salt (the iteration's parity, so that data left over from the
 * previous iteration is caught), the harness prepares host images: what this rank puts
 * in its send buffer, what its receive buffer holds before the call (a sentinel, or the
 * input when in place), and what the verified part must hold after it.
 */
typedef struct {
    void *send;      /* layout.send_elems elements */
    void *recv_init; /* layout.recv_elems elements */
    void *expect;    /* layout.recv_elems elements, only the checked part meaningful; NULL:
                      * inputs only (a run without -c) */
} gdbench_images_t;

void   gdbench_images_build(const gdbench_options_t *opts, const gdbench_layout_t *layout, int rank,
                            int nranks, unsigned salt, gdbench_images_t *images);
/* Number of wrong elements in the checked part of recv (host memory); *first_bad is the
 * index (in recv) of the first one. */
size_t gdbench_check(gdbench_dtype_t dtype, const gdbench_layout_t *layout, const void *recv,
                     const void *expect, size_t *first_bad);

/* ---------------------------------------------------------------------------------------
 * Buffers in host or CUDA memory (gdbench_mem.c)
 */
int  gdbench_mem_cuda_built(void);
/* Select this rank's GPU for -d cuda; GDBENCH_UNSUPPORTED when built without CUDA,
 * GDBENCH_ERR when there is no usable device. A no-op for host memory. */
int  gdbench_mem_init(gdbench_memory_t memory, int rank);
int  gdbench_mem_alloc(gdbench_memory_t memory, size_t bytes, void **ptr);
void gdbench_mem_free(gdbench_memory_t memory, void *ptr);
int  gdbench_mem_put(gdbench_memory_t memory, void *dst, const void *host_src, size_t bytes);
int  gdbench_mem_get(gdbench_memory_t memory, void *host_dst, const void *src, size_t bytes);
/* -d cuda: this rank's GPU copying 64 MiB device to device (cudaMemcpy, the median of 5),
 * in GB/s counting the bytes once: the floor the results are read against. 0 when it
 * cannot be measured (no CUDA, or an error). */
double gdbench_mem_cuda_copy_gbps(void);

/* ---------------------------------------------------------------------------------------
 * Results and their presentation (gdbench_output.c, gdbench_json.c, gdbench_svg.c)
 */
typedef enum {
    GDBENCH_UNCHECKED = -1,
    GDBENCH_FAIL      = 0,
    GDBENCH_PASS      = 1
} gdbench_validation_t;

typedef struct {
    size_t               size, count;
    double               bytes;
    double               avg_us, min_us, max_us; /* per call, across ranks */
    long                 iterations;
    double               algbw, busbw;           /* GB/s (1e9 bytes/s) */
    double               mbps;                   /* bw, bibw: OSU's Bandwidth (MB/s) */
    gdbench_validation_t validation;
} gdbench_row_t;

typedef struct {
    const gdbench_options_t *opts;
    const char              *program;      /* "gdbench", "gdbench-mpi", ... */
    const char              *library;      /* "gdc 0.1.0", "Open MPI v4.1.4" */
    const char              *library_long; /* the library's full version string */
    int                      nranks;
    gdbench_row_t           *rows;
    size_t                   nrows, capacity;
    int                      validation_failed;
    double                   d2d_gbps;     /* -d cuda: gdbench_mem_cuda_copy_gbps on rank 0 (0: none) */
} gdbench_report_t;

int  gdbench_report_add(gdbench_report_t *report, const gdbench_row_t *row);
void gdbench_output_header(const gdbench_report_t *report);
void gdbench_output_row(const gdbench_report_t *report, const gdbench_row_t *row);
/* A progress line on stderr, only when it is a terminal and the run is long. */
void gdbench_progress(const gdbench_report_t *report, size_t size, int index, int total);
void gdbench_progress_clear(void);
int  gdbench_json_write(const gdbench_report_t *report, const char *status, const char *path);
int  gdbench_svg_write(const gdbench_report_t *report, const char *path);

/* ---------------------------------------------------------------------------------------
 * The benchmark itself (gdbench_run.c); returns an exit status.
 */
int gdbench_run(const gdbench_options_t *opts, gdbench_report_t *report, int rank, int nranks);

#endif
