/*
 * soak: random collectives for a given time, every result checked. Written against gdc.h
 * only, like an application.
 *
 *   soak [--seconds S] [--seed N] [--max-bytes B] [--kill RANK:CALLS] [--stop RANK:CALLS]
 *        [--self-test result|guard|input] [--tag WORD]
 *
 * Every rank draws the same random sequence (rank 0's seed, broadcast at the start) for
 * what the job does: which collective, datatype, op, count (0 and odd ones included), root,
 * in place or not, on which communicator; communicators are made (gdc_comm_split of the
 * world or of another one, with random colors, GDC_UNDEFINED included, and keys;
 * gdc_comm_dup) and freed as it goes, up to SLOTS at a time. A step is one blocking
 * collective, a communicator made or freed, or a batch of up to BATCH collectives in flight
 * at once (nonblocking, on several communicators, a blocking one among them now and then),
 * completed in an order each rank draws for itself (gdc_wait one by one, gdc_waitall, or
 * polling with gdc_test). Each communicator of a slot is one group of a split, so the
 * groups of a slot run the same call side by side; a rank outside every group skips it.
 *
 * Checks: every element of every result exactly (integers; floats whose sums, averages and
 * products are exact in every order, so bits compare), the untouched parts of every
 * receive buffer (alltoallv's gaps), every input buffer unchanged, 64 guard bytes before
 * and after every buffer, the rank and size of every new communicator against the split's
 * rule, every status. Rank 0 decides when the time is up and says so in a broadcast on
 * the world every few steps, with its random state, which every rank compares with its
 * own (a diverging stream would be this program's bug, and would hang).
 *
 * --kill R:N and --stop R:N: world rank R arms a timer of 0-3 ms once it has made N
 * collective calls, whose handler sends R SIGKILL or SIGSTOP: the rank dies or stops at a
 * random point, most often inside a collective (the fault tests).
 *
 * --self-test: world rank 1 breaks one result, guard byte or input on purpose (after its
 * 50th call), to show that the checks find it: the run must then fail.
 *
 * --tag WORD is ignored: tests give it a word to find their processes by (pgrep -f).
 *
 * Output: rank 0 prints one summary line; exit status 0 when nothing was wrong, 1 on any
 * wrong element or guard byte, 3 when a gdc call returned an error (the rank says which).
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <gdc.h>

enum { SLOTS = 6, BATCH = 6, GUARD = 64, REPORT_MAX = 10, CONTROL_EVERY = 4 };

typedef enum {
    C_BARRIER,
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_ALLGATHER,
    C_REDUCE_SCATTER,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_GATHER,
    C_SCATTER,
    C_NUM
} coll_t;

static const char *const coll_names[C_NUM] = {"barrier",  "bcast",     "reduce", "allreduce", "allgather",
                                              "reduce_scatter", "alltoall", "alltoallv", "gather", "scatter"};
static const char *const dtype_names[] = {"int8",    "uint8",    "int16",   "uint16",  "int32",
                                          "uint32",  "int64",    "uint64",  "float16", "bfloat16",
                                          "float32", "float64",  "byte"};
static const char *const op_names[] = {"sum", "prod", "min", "max", "avg", "band", "bor", "bxor"};

/* ---------------------------------------------------------------------------------------
 * Random numbers: splitmix64, and a hash of a few words for the values.
 */
typedef struct {
    uint64_t s;
} rng_t;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_next(rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    return mix64(r->s);
}

/* Uniform in [0, n), n > 0. */
static uint64_t rng_below(rng_t *r, uint64_t n)
{
    return rng_next(r) % n;
}

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h = mix64(a + 0x9e3779b97f4a7c15ull);

    h = mix64(h ^ (b + 0x632be59bd9b4e019ull));
    h = mix64(h ^ (c + 0x8cb92ba72f3d8dd7ull));
    return mix64(h ^ (d + 0xd6e8feb86659fd93ull));
}

/* ---------------------------------------------------------------------------------------
 * State
 */
static int      world_rank, world_size;
static rng_t    shared_rng; /* the same on every rank */
static rng_t    local_rng;  /* this rank's own: wait order, alignment, guard patterns */
static size_t   max_bytes = 4u << 20;
static uint64_t step_no;

static struct {
    uint64_t calls;     /* collective calls this rank made */
    uint64_t nb_calls;  /* of which nonblocking */
    uint64_t ops;       /* collectives where this rank is rank 0 of the communicator */
    uint64_t comms;     /* communicators made where this rank is rank 0 of the new one */
    uint64_t bytes;     /* bytes of results this rank checked */
    uint64_t elements;  /* elements checked */
    uint64_t wrong;     /* wrong elements */
    uint64_t guards;    /* guard bytes overwritten */
    uint64_t inputs;    /* input elements changed */
    uint64_t comm_bad;  /* communicators whose rank or size is not the split's */
} st;
static uint64_t reported;

/* A slot holds one communicator per group of a split or dup: this rank's (or NULL), with
 * the world ranks of its group in order. */
typedef struct {
    int        used;
    gdc_comm_t comm;
    int        size, rank;
    int       *members;
    uint64_t   id;
} slot_t;
static slot_t   slots[SLOTS];
static uint64_t slot_ids;

/* What the last few steps were, for the report of a failure. */
static char history[8][160];
static int  history_at;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(history[history_at % 8], sizeof(history[0]), fmt, ap);
    va_end(ap);
    history_at++;
}

static void print_history(void)
{
    int from = history_at > 8 ? history_at - 8 : 0;

    for (int i = from; i < history_at; i++) {
        fprintf(stderr, "soak: rank %d: step history: %s\n", world_rank, history[i % 8]);
    }
}

static void fail_status(const char *what, gdc_status_t status)
{
    fprintf(stderr, "soak: rank %d: %s returned %d (%s) at step %" PRIu64 "\n", world_rank, what, (int)status,
            gdc_strerror(status), step_no);
    print_history();
    fflush(NULL);
    exit(3);
}

#define OK(call)                                                                              \
    do {                                                                                      \
        gdc_status_t _s = (call);                                                             \
        if (_s != GDC_SUCCESS) {                                                              \
            fail_status(#call, _s);                                                           \
        }                                                                                     \
    } while (0)

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);

    if (p == NULL) {
        fprintf(stderr, "soak: rank %d: out of memory (%zu bytes)\n", world_rank, bytes);
        exit(3);
    }
    return p;
}

/* ---------------------------------------------------------------------------------------
 * Fault injection: a timer whose handler kills or stops this rank.
 */
static int      fault_rank = -1, fault_sig;
static uint64_t fault_calls;

static void fault_handler(int sig)
{
    (void)sig;
    kill(getpid(), fault_sig);
}

static void count_call(int nonblocking)
{
    st.calls++;
    st.nb_calls += (uint64_t)nonblocking;
    if (world_rank == fault_rank && st.calls == fault_calls) {
        struct itimerval it = {{0, 0}, {0, (suseconds_t)(1 + rng_below(&local_rng, 3000))}};
        struct timespec  now;
        signal(SIGALRM, fault_handler);
        clock_gettime(CLOCK_REALTIME, &now);
        /* the time, for scripts whose view of this line comes late (srun forwards output
         * when it gets to it) */
        fprintf(stderr, "soak: rank %d: sending itself %s within %ld us of call %" PRIu64 " at %lld.%06ld\n",
                world_rank, fault_sig == SIGKILL ? "SIGKILL" : "SIGSTOP", (long)it.it_value.tv_usec, st.calls,
                (long long)now.tv_sec, now.tv_nsec / 1000);
        setitimer(ITIMER_REAL, &it, NULL);
    }
}

/* ---------------------------------------------------------------------------------------
 * Values.
 *
 * Data moved (bcast, gathers, scatters, alltoalls): the bytes of element j of the block
 * src sends dst are hash(seed, src, dst, j), whatever the datatype (NaN patterns
 * included: moving must not touch the bits).
 *
 * Data reduced: rank p's element i, chosen so that every partial result in any order is
 * exact: integers within a range whose sum over n ranks cannot overflow; floats are
 * integers times a power of two, small enough for the type's significand; averages of
 * floats add to a multiple of n (the last rank's value is adjusted), so the quotient is
 * exact too; products are +-1 but for one rank per element.
 */
static size_t esize(gdc_dtype_t dt)
{
    return gdc_dtype_size(dt);
}

static int is_float(gdc_dtype_t dt)
{
    return dt == GDC_FLOAT16 || dt == GDC_BFLOAT16 || dt == GDC_FLOAT32 || dt == GDC_FLOAT64;
}

static int is_signed(gdc_dtype_t dt)
{
    return dt == GDC_INT8 || dt == GDC_INT16 || dt == GDC_INT32 || dt == GDC_INT64;
}

static void moved_value(unsigned char *dst, size_t es, uint64_t seed, int src, int to, size_t j)
{
    uint64_t h = hash4(seed, (uint64_t)src, (uint64_t)to, j);

    memcpy(dst, &h, es); /* little-endian: the low bytes */
}

/* Largest magnitude of a float summand, in units: every partial sum of n of them stays an
 * integer the significand holds. */
static int64_t float_limit(gdc_dtype_t dt)
{
    switch (dt) {
    case GDC_FLOAT16: return 2048;
    case GDC_BFLOAT16: return 256;
    case GDC_FLOAT32: return (int64_t)1 << 24;
    default: return (int64_t)1 << 50;
    }
}

static double float_unit(gdc_dtype_t dt)
{
    switch (dt) {
    case GDC_FLOAT16: return 1.0;
    case GDC_BFLOAT16: return 0.5; /* stays within bf16's 8 significant bits: see float_limit */
    case GDC_FLOAT32: return 1.0 / 16;
    default: return 1.0 / 1024;
    }
}

/* Integer ranges [lo, hi] for sums and averages of n values. */
static void int_range(gdc_dtype_t dt, int n, int64_t *lo, uint64_t *hi)
{
    switch (dt) {
    case GDC_INT8: *hi = (uint64_t)(127 / n); break;
    case GDC_UINT8: *hi = (uint64_t)(255 / n); break;
    case GDC_INT16: *hi = (uint64_t)(32767 / n); break;
    case GDC_UINT16: *hi = (uint64_t)(65535 / n); break;
    case GDC_INT32: *hi = (uint64_t)(INT32_MAX / n); break;
    case GDC_UINT32: *hi = (uint64_t)(UINT32_MAX / (unsigned)n); break;
    case GDC_INT64: *hi = (uint64_t)(INT64_MAX / n); break;
    default: *hi = UINT64_MAX / (unsigned)n; break;
    }
    *lo = is_signed(dt) ? -(int64_t)*hi : 0;
}

/* A reduction operand: integers as the 64-bit two's complement of the value, floats as a
 * double (exact). */
typedef struct {
    uint64_t i;
    double   f;
} val_t;

static val_t float_raw(gdc_dtype_t dt, gdc_op_t op, uint64_t seed, int n, int p, size_t i)
{
    uint64_t h = hash4(seed, (uint64_t)p, i, 0x5eed);
    val_t    v = {0, 0};
    int64_t  lim, k;

    switch (op) {
    case GDC_PROD: {
        static const int special[] = {2, 3, 5, 7};
        k = (size_t)p == i % (size_t)n ? special[h % 4] : 1;
        v.f = (double)((h >> 8) & 1 ? -k : k);
        return v;
    }
    case GDC_MIN:
    case GDC_MAX:
        lim = float_limit(dt);
        break;
    case GDC_AVG:
        lim = float_limit(dt) / n - n;
        lim = lim < 1 ? 1 : lim;
        break;
    default:
        lim = float_limit(dt) / n;
        break;
    }
    k   = (int64_t)(h % (uint64_t)(2 * lim + 1)) - lim;
    v.f = (double)k;
    return v;
}

static val_t reduced_value(gdc_dtype_t dt, gdc_op_t op, uint64_t seed, int n, int p, size_t i)
{
    uint64_t h = hash4(seed, (uint64_t)p, i, 0x5eed);
    val_t    v = {0, 0};

    if (is_float(dt)) {
        v = float_raw(dt, op, seed, n, p, i);
        if (op == GDC_AVG && p == n - 1) {
            /* the last rank makes the sum (in units) a multiple of n */
            int64_t s = 0;
            for (int q = 0; q < n; q++) {
                s += (int64_t)float_raw(dt, op, seed, n, q, i).f;
            }
            v.f -= (double)(((s % n) + n) % n);
        }
        v.f *= op == GDC_PROD ? 1.0 : float_unit(dt);
        return v;
    }
    switch (op) {
    case GDC_SUM:
    case GDC_AVG: {
        int64_t  lo;
        uint64_t hi;
        int_range(dt, n, &lo, &hi);
        if (hi - (uint64_t)lo == UINT64_MAX) { /* uint64 on one rank */
            v.i = h;
        } else {
            v.i = (uint64_t)lo + h % (hi - (uint64_t)lo + 1);
        }
        return v;
    }
    case GDC_PROD: {
        static const uint64_t special[] = {2, 3, 5, 7};
        uint64_t              k = (size_t)p == i % (size_t)n ? special[h % 4] : 1;
        v.i = is_signed(dt) && ((h >> 8) & 1) ? (uint64_t)0 - k : k;
        return v;
    }
    case GDC_BAND: /* mostly ones */
        v.i = h | hash4(seed, (uint64_t)p, i, 1) | hash4(seed, (uint64_t)p, i, 2);
        return v;
    case GDC_BOR: /* mostly zeros */
        v.i = h & hash4(seed, (uint64_t)p, i, 1) & hash4(seed, (uint64_t)p, i, 2);
        return v;
    default: v.i = h; return v;               /* min, max, bxor: anything */
    }
}

/* Sign-extend or truncate a 64-bit pattern to dt's width, as the value the type holds. */
static uint64_t int_canon(gdc_dtype_t dt, uint64_t x)
{
    switch (dt) {
    case GDC_INT8: return (uint64_t)(int64_t)(int8_t)x;
    case GDC_UINT8: return (uint8_t)x;
    case GDC_INT16: return (uint64_t)(int64_t)(int16_t)x;
    case GDC_UINT16: return (uint16_t)x;
    case GDC_INT32: return (uint64_t)(int64_t)(int32_t)x;
    case GDC_UINT32: return (uint32_t)x;
    default: return x;
    }
}

/* binary16 bits of an exactly representable value (integers up to 2048, here). */
static uint16_t half_bits(double v)
{
    uint16_t sign = v < 0 ? 0x8000 : 0;
    int      e;
    double   m;

    if (v == 0) {
        return sign;
    }
    m = frexp(fabs(v), &e); /* |v| = m * 2^e, m in [0.5, 1) */
    return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024));
}

/* The bytes of value v (float or integer, per dt) into dst. */
static void store(gdc_dtype_t dt, unsigned char *dst, val_t v)
{
    if (dt == GDC_FLOAT64) {
        memcpy(dst, &v.f, 8);
    } else if (dt == GDC_FLOAT32) {
        float f = (float)v.f;
        memcpy(dst, &f, 4);
    } else if (dt == GDC_BFLOAT16) {
        float    f = (float)v.f;
        uint32_t bits;
        uint16_t top;
        memcpy(&bits, &f, 4);
        top = (uint16_t)(bits >> 16);
        memcpy(dst, &top, 2);
    } else if (dt == GDC_FLOAT16) {
        uint16_t h = half_bits(v.f);
        memcpy(dst, &h, 2);
    } else {
        memcpy(dst, &v.i, esize(dt));
    }
}

/* The exact reduction of element i over ranks 0..n-1. */
static val_t reduction(gdc_dtype_t dt, gdc_op_t op, uint64_t seed, int n, size_t i)
{
    val_t acc = reduced_value(dt, op, seed, n, 0, i);

    if (!is_float(dt)) {
        acc.i = int_canon(dt, acc.i);
    }
    for (int p = 1; p < n; p++) {
        val_t x = reduced_value(dt, op, seed, n, p, i);
        if (is_float(dt)) {
            switch (op) {
            case GDC_SUM: case GDC_AVG: acc.f += x.f; break;
            case GDC_PROD: acc.f *= x.f; break;
            case GDC_MIN: acc.f = x.f < acc.f ? x.f : acc.f; break;
            case GDC_MAX: acc.f = x.f > acc.f ? x.f : acc.f; break;
            default: break;
            }
            continue;
        }
        x.i = int_canon(dt, x.i);
        switch (op) {
        case GDC_SUM: case GDC_AVG: acc.i += x.i; break;
        case GDC_PROD: acc.i *= x.i; break;
        case GDC_MIN:
            if (is_signed(dt) ? (int64_t)x.i < (int64_t)acc.i : x.i < acc.i) {
                acc.i = x.i;
            }
            break;
        case GDC_MAX:
            if (is_signed(dt) ? (int64_t)x.i > (int64_t)acc.i : x.i > acc.i) {
                acc.i = x.i;
            }
            break;
        case GDC_BAND: acc.i &= x.i; break;
        case GDC_BOR: acc.i |= x.i; break;
        case GDC_BXOR: acc.i ^= x.i; break;
        }
        acc.i = int_canon(dt, acc.i);
    }
    if (op == GDC_AVG) {
        if (is_float(dt)) {
            acc.f /= n;
        } else if (is_signed(dt)) {
            acc.i = (uint64_t)((int64_t)acc.i / n);
        } else {
            acc.i /= (uint64_t)n;
        }
    }
    return acc;
}

/* ---------------------------------------------------------------------------------------
 * Guarded buffers: GUARD bytes of a pattern on both sides, the data at a random multiple
 * of the element size after the front guard (not always 16-aligned).
 */
typedef struct {
    unsigned char *base, *data;
    size_t         bytes, shift;
    unsigned char  pattern;
} buf_t;

static unsigned char guard_byte(const buf_t *b, size_t j)
{
    return (unsigned char)(b->pattern ^ (j * 0x3b) ^ 0xa5);
}

static unsigned char poison_byte(const buf_t *b, size_t j)
{
    return (unsigned char)(b->pattern ^ (j * 0x95) ^ 0x5c);
}

static void buf_make(buf_t *b, size_t bytes, size_t es)
{
    b->bytes   = bytes;
    b->shift   = es * rng_below(&local_rng, 4);
    b->pattern = (unsigned char)rng_next(&local_rng);
    b->base    = xmalloc(GUARD + b->shift + bytes + GUARD);
    b->data    = b->base + GUARD + b->shift;
    for (size_t j = 0; j < GUARD + b->shift; j++) {
        b->base[j] = guard_byte(b, j);
    }
    for (size_t j = 0; j < GUARD; j++) {
        b->data[bytes + j] = guard_byte(b, GUARD + b->shift + j);
    }
    for (size_t j = 0; j < bytes; j++) {
        b->data[j] = poison_byte(b, j);
    }
}

static void buf_free(buf_t *b)
{
    free(b->base);
    b->base = b->data = NULL;
}

typedef struct op op_t;
static void report(const op_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check_guards(const op_t *o, const buf_t *b, const char *name)
{
    size_t bad = 0, first = 0;

    if (b->base == NULL) {
        return;
    }
    for (size_t j = 0; j < GUARD + b->shift; j++) {
        if (b->base[j] != guard_byte(b, j) && bad++ == 0) {
            first = j;
        }
    }
    for (size_t j = 0; j < GUARD; j++) {
        if (b->data[b->bytes + j] != guard_byte(b, GUARD + b->shift + j) && bad++ == 0) {
            first = GUARD + b->shift + b->bytes + j;
        }
    }
    if (bad > 0) {
        st.guards += bad;
        report(o, "%s: %zu guard byte(s) overwritten, the first at %s %zu", name, bad,
               first < GUARD + b->shift ? "byte before the data:" : "byte after the data:",
               first < GUARD + b->shift ? GUARD + b->shift - first : first - GUARD - b->shift - b->bytes + 1);
    }
}

/* ---------------------------------------------------------------------------------------
 * One collective call: drawn from the shared stream, then this rank's buffers.
 */
struct op {
    coll_t        coll;
    gdc_dtype_t   dt;
    gdc_op_t      op;
    size_t        count;
    int           in_place, slot;
    uint64_t      seed, root_draw;
    /* this rank's */
    int           active, n, r, root;
    size_t        es;
    buf_t         in, out;
    size_t       *sc, *sd, *rc, *rd;
    gdc_request_t req;
};

/* "allreduce of 17 x int8 prod, in place, on communicator 5 (slot 2, rank 1 of 3)" */
static void describe(const op_t *o, char *buf, size_t len)
{
    int reducing = o->coll == C_REDUCE || o->coll == C_ALLREDUCE || o->coll == C_REDUCE_SCATTER;
    int rooted   = o->coll == C_BCAST || o->coll == C_REDUCE || o->coll == C_GATHER || o->coll == C_SCATTER;
    int n        = snprintf(buf, len, "%s", coll_names[o->coll]);

    if (o->coll != C_BARRIER && n >= 0 && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, " of %zu x %s%s%s", o->count, dtype_names[o->dt],
                      reducing ? " " : "", reducing ? op_names[o->op] : "");
    }
    if (rooted && n >= 0 && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, ", root %d", o->root);
    }
    if (n >= 0 && (size_t)n < len) {
        snprintf(buf + n, len - (size_t)n, "%s on communicator %" PRIu64 " (slot %d, rank %d of %d)",
                 o->in_place && o->coll != C_BARRIER && o->coll != C_BCAST ? ", in place," : "",
                 slots[o->slot].id, o->slot, o->r, o->n);
    }
}

static void report(const op_t *o, const char *fmt, ...)
{
    va_list ap;
    char    what[200];

    if (reported++ >= REPORT_MAX) {
        return;
    }
    describe(o, what, sizeof(what));
    fprintf(stderr, "soak: rank %d: WRONG at step %" PRIu64 ": %s: ", world_rank, step_no, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Compare es bytes of got at element index idx with want. */
static void expect_elem(const op_t *o, const char *what, size_t idx, const unsigned char *got,
                        const unsigned char *want)
{
    st.elements++;
    if (memcmp(got, want, o->es) != 0) {
        char g[40] = "", w[40] = "";
        for (size_t b = 0; b < o->es; b++) {
            snprintf(g + 2 * b, 3, "%02x", got[o->es - 1 - b]);
            snprintf(w + 2 * b, 3, "%02x", want[o->es - 1 - b]);
        }
        st.wrong++;
        report(o, "%s element %zu is 0x%s, expected 0x%s", what, idx, g, w);
    }
}

static void expect_poison(const op_t *o, const char *what, const buf_t *b, size_t from, size_t to)
{
    for (size_t e = from; e < to; e++) {
        unsigned char want[8];
        for (size_t j = 0; j < o->es; j++) {
            want[j] = poison_byte(b, e * o->es + j);
        }
        expect_elem(o, what, e, b->data + e * o->es, want);
    }
}

/* alltoallv: elements src sends dst (symmetric in place, as the call requires). */
static size_t vcount(const op_t *o, int src, int dst)
{
    uint64_t h;

    if (o->in_place) {
        h = hash4(o->seed, (uint64_t)(src < dst ? src : dst), (uint64_t)(src < dst ? dst : src), 0xa11);
    } else {
        h = hash4(o->seed, (uint64_t)src, (uint64_t)dst, 0xa11);
    }
    return h % 7 == 0 ? 0 : (size_t)(h % (o->count + 1));
}

static void fill_moved(const op_t *o, unsigned char *dst, int src, int to, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        moved_value(dst + j * o->es, o->es, o->seed, src, to, j);
    }
}

static void fill_reduced(const op_t *o, unsigned char *dst, size_t from, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        store(o->dt, dst + j * o->es, reduced_value(o->dt, o->op, o->seed, o->n, o->r, from + j));
    }
}

/* Draw a call on the shared stream (every rank the same). */
static void draw_op(op_t *o, int slot)
{
    static const gdc_dtype_t numeric[] = {GDC_INT8,    GDC_UINT8,    GDC_INT16,   GDC_UINT16,
                                          GDC_INT32,   GDC_UINT32,   GDC_INT64,   GDC_UINT64,
                                          GDC_FLOAT16, GDC_BFLOAT16, GDC_FLOAT32, GDC_FLOAT64};
    /* weights: the reductions and the per-peer ones most */
    static const coll_t pick[] = {C_BARRIER,   C_BCAST,     C_BCAST,          C_REDUCE,   C_REDUCE,
                                  C_ALLREDUCE, C_ALLREDUCE, C_ALLREDUCE,      C_ALLREDUCE, C_ALLGATHER,
                                  C_ALLGATHER, C_REDUCE_SCATTER, C_REDUCE_SCATTER, C_ALLTOALL, C_ALLTOALL,
                                  C_ALLTOALLV, C_ALLTOALLV, C_GATHER, C_SCATTER};
    uint64_t scale = rng_below(&shared_rng, 100);

    memset(o, 0, sizeof(*o));
    o->slot = slot;
    o->coll = pick[rng_below(&shared_rng, sizeof(pick) / sizeof(pick[0]))];
    if (o->coll == C_REDUCE || o->coll == C_ALLREDUCE || o->coll == C_REDUCE_SCATTER) {
        o->dt = numeric[rng_below(&shared_rng, 12)];
        o->op = (gdc_op_t)rng_below(&shared_rng, is_float(o->dt) ? 5 : 8);
    } else {
        o->dt = (gdc_dtype_t)rng_below(&shared_rng, 13);
        o->op = GDC_SUM;
    }
    /* 0 in 10 %, then 1-16, up to 1000, up to 70000, up to 600000 (capped by max_bytes) */
    if (scale < 10) {
        o->count = 0;
    } else if (scale < 45) {
        o->count = 1 + rng_below(&shared_rng, 16);
    } else if (scale < 80) {
        o->count = 1 + rng_below(&shared_rng, 1000);
    } else if (scale < 98) {
        o->count = 1 + rng_below(&shared_rng, 70000);
    } else {
        o->count = 1 + rng_below(&shared_rng, 600000);
    }
    o->in_place  = rng_below(&shared_rng, 3) == 0;
    o->seed      = rng_next(&shared_rng);
    o->root_draw = rng_next(&shared_rng);
}

/* This rank's part of o: buffers and arguments (inactive when it is in no group of the slot). */
static void prepare(op_t *o)
{
    slot_t *s = &slots[o->slot];
    size_t  k, n, es, per = 1;

    o->active = s->comm != GDC_COMM_NULL;
    if (!o->active) {
        return;
    }
    o->n    = s->size;
    o->r    = s->rank;
    o->root = (int)(o->root_draw % (uint64_t)s->size);
    o->es = es = esize(o->dt);
    n          = (size_t)o->n;
    /* cap the largest buffer at max_bytes (the count drawn is the same on every rank of
     * every group, the cap depends on the group's size: still the same within a group) */
    if (o->coll == C_ALLGATHER || o->coll == C_REDUCE_SCATTER || o->coll == C_ALLTOALL ||
        o->coll == C_ALLTOALLV || o->coll == C_GATHER || o->coll == C_SCATTER) {
        per = n;
    }
    if (o->count * es * per > max_bytes) {
        o->count = max_bytes / (es * per) | 1; /* odd */
    }
    k = o->count;

    switch (o->coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        buf_make(&o->out, k * es, es);
        if (o->r == o->root) {
            fill_moved(o, o->out.data, o->root, 0, k);
        }
        break;
    case C_REDUCE:
    case C_ALLREDUCE: {
        int ip = o->in_place && (o->coll == C_ALLREDUCE || o->r == o->root);
        if (!ip) {
            buf_make(&o->in, k * es, es);
            fill_reduced(o, o->in.data, 0, k);
        }
        if (o->coll == C_ALLREDUCE || o->r == o->root) {
            buf_make(&o->out, k * es, es);
            if (ip) {
                fill_reduced(o, o->out.data, 0, k);
            }
        }
        break;
    }
    case C_REDUCE_SCATTER:
        if (o->in_place) {
            buf_make(&o->out, n * k * es, es);
            fill_reduced(o, o->out.data, 0, n * k);
        } else {
            buf_make(&o->in, n * k * es, es);
            fill_reduced(o, o->in.data, 0, n * k);
            buf_make(&o->out, k * es, es);
        }
        break;
    case C_ALLGATHER:
    case C_GATHER: {
        int ip = o->in_place && (o->coll == C_ALLGATHER || o->r == o->root);
        if (!ip) {
            buf_make(&o->in, k * es, es);
            fill_moved(o, o->in.data, o->r, 0, k);
        }
        if (o->coll == C_ALLGATHER || o->r == o->root) {
            buf_make(&o->out, n * k * es, es);
            if (ip) {
                fill_moved(o, o->out.data + (size_t)o->r * k * es, o->r, 0, k);
            }
        }
        break;
    }
    case C_SCATTER: {
        int ip = o->in_place && o->r == o->root;
        if (o->r == o->root) {
            buf_make(&o->in, n * k * es, es);
            for (int q = 0; q < o->n; q++) {
                fill_moved(o, o->in.data + (size_t)q * k * es, o->root, q, k);
            }
        }
        if (!ip) {
            buf_make(&o->out, k * es, es);
        }
        break;
    }
    case C_ALLTOALL: {
        buf_t *src = o->in_place ? &o->out : &o->in;
        if (!o->in_place) {
            buf_make(&o->out, n * k * es, es);
        }
        buf_make(src, n * k * es, es);
        for (int q = 0; q < o->n; q++) {
            fill_moved(o, src->data + (size_t)q * k * es, o->r, q, k);
        }
        break;
    }
    case C_ALLTOALLV: {
        /* send blocks in rank order with gaps of 0-2 elements, receive blocks from the last
         * rank down with gaps of 0-3: the gaps must stay as they were */
        size_t at_s = 0, at_r = 0;
        o->sc = xmalloc(n * sizeof(size_t));
        o->sd = xmalloc(n * sizeof(size_t));
        o->rc = xmalloc(n * sizeof(size_t));
        o->rd = xmalloc(n * sizeof(size_t));
        for (int q = 0; q < o->n; q++) {
            at_s += (size_t)(hash4(o->seed, (uint64_t)o->r, (uint64_t)q, 0x9a) % 3);
            o->sc[q] = vcount(o, o->r, q);
            o->sd[q] = at_s;
            at_s += o->sc[q];
        }
        for (int q = o->n - 1; q >= 0; q--) {
            at_r += (size_t)(hash4(o->seed, (uint64_t)o->r, (uint64_t)q, 0x9b) % 4);
            o->rc[q] = vcount(o, q, o->r);
            o->rd[q] = at_r;
            at_r += o->rc[q];
        }
        buf_make(&o->out, at_r * es, es);
        if (o->in_place) {
            memcpy(o->sc, o->rc, n * sizeof(size_t));
            memcpy(o->sd, o->rd, n * sizeof(size_t));
            for (int q = 0; q < o->n; q++) {
                fill_moved(o, o->out.data + o->rd[q] * es, o->r, q, o->rc[q]);
            }
        } else {
            buf_make(&o->in, at_s * es, es);
            for (int q = 0; q < o->n; q++) {
                fill_moved(o, o->in.data + o->sd[q] * es, o->r, q, o->sc[q]);
            }
        }
        break;
    }
    case C_NUM:
        break;
    }
}

static void start(op_t *o, int nonblocking)
{
    gdc_comm_t     comm = slots[o->slot].comm;
    gdc_request_t *req  = nonblocking ? &o->req : NULL;
    const void    *in   = o->in.base != NULL ? (const void *)o->in.data : GDC_IN_PLACE;
    void          *out  = o->out.base != NULL ? (void *)o->out.data : NULL;
    size_t         k    = o->count;
    int            root = o->r == o->root;
    gdc_status_t   s    = GDC_SUCCESS;

    {
        char what[200];
        describe(o, what, sizeof(what));
        note("%s%s", what, nonblocking ? ", nonblocking" : "");
    }
    count_call(nonblocking);
    if (o->r == 0) {
        st.ops++;
    }
    switch (o->coll) {
    case C_BARRIER:
        s = req ? gdc_ibarrier(comm, req) : gdc_barrier(comm);
        break;
    case C_BCAST:
        s = req ? gdc_ibcast(out, k, o->dt, o->root, comm, req) : gdc_bcast(out, k, o->dt, o->root, comm);
        break;
    case C_REDUCE:
        /* non-roots: no receive buffer */
        s = req ? gdc_ireduce(in, out, k, o->dt, o->op, o->root, comm, req)
                : gdc_reduce(in, out, k, o->dt, o->op, o->root, comm);
        break;
    case C_ALLREDUCE:
        s = req ? gdc_iallreduce(in, out, k, o->dt, o->op, comm, req) : gdc_allreduce(in, out, k, o->dt, o->op, comm);
        break;
    case C_REDUCE_SCATTER:
        s = req ? gdc_ireduce_scatter(in, out, k, o->dt, o->op, comm, req)
                : gdc_reduce_scatter(in, out, k, o->dt, o->op, comm);
        break;
    case C_ALLGATHER:
        s = req ? gdc_iallgather(in, out, k, o->dt, comm, req) : gdc_allgather(in, out, k, o->dt, comm);
        break;
    case C_GATHER:
        s = req ? gdc_igather(in, out, k, o->dt, o->root, comm, req) : gdc_gather(in, out, k, o->dt, o->root, comm);
        break;
    case C_SCATTER:
        /* non-roots: no send buffer; the root in place: GDC_IN_PLACE as its receive buffer */
        in = root ? (const void *)o->in.data : NULL;
        out = out != NULL ? out : GDC_IN_PLACE;
        s = req ? gdc_iscatter(in, out, k, o->dt, o->root, comm, req) : gdc_scatter(in, out, k, o->dt, o->root, comm);
        break;
    case C_ALLTOALL:
        s = req ? gdc_ialltoall(in, out, k, o->dt, comm, req) : gdc_alltoall(in, out, k, o->dt, comm);
        break;
    case C_ALLTOALLV:
        s = req ? gdc_ialltoallv(in, o->sc, o->sd, out, o->rc, o->rd, o->dt, comm, req)
                : gdc_alltoallv(in, o->sc, o->sd, out, o->rc, o->rd, o->dt, comm);
        break;
    case C_NUM:
        break;
    }
    if (s != GDC_SUCCESS) {
        fail_status(nonblocking ? "starting a nonblocking collective" : "a blocking collective", s);
    }
}

/* Check an input buffer kept its contents (the collective must not write there). */
static void expect_input(const op_t *o, const unsigned char *was, const buf_t *b)
{
    if (b->base != NULL && memcmp(was, b->data, b->bytes) != 0) {
        for (size_t e = 0; e < b->bytes / o->es; e++) {
            if (memcmp(was + e * o->es, b->data + e * o->es, o->es) != 0) {
                st.inputs++;
                report(o, "input element %zu changed", e);
            }
        }
    }
}

/* --self-test: break one result of world rank 1 on purpose, after its 50th call, to show
 * that the checks see it. */
static enum { BREAK_NONE, BREAK_RESULT, BREAK_GUARD, BREAK_INPUT } self_test;

static void break_on_purpose(op_t *o)
{
    buf_t *b = self_test == BREAK_INPUT ? &o->in : &o->out;

    if (self_test == BREAK_NONE || world_rank != 1 || st.calls < 50 || b->base == NULL || b->bytes == 0 ||
        (self_test == BREAK_RESULT && o->coll == C_REDUCE_SCATTER && o->in_place)) {
        return;
    }
    fprintf(stderr, "soak: rank %d: --self-test: breaking the %s of a %s on purpose\n", world_rank,
            self_test == BREAK_RESULT ? "result" : self_test == BREAK_GUARD ? "guard after the output" : "input",
            coll_names[o->coll]);
    if (self_test == BREAK_GUARD) {
        b->data[b->bytes] ^= 0x10;
    } else {
        b->data[0] ^= 0x10;
    }
    self_test = BREAK_NONE;
}

/* Check this rank's results, inputs and guards; free the buffers. */
static void finish(op_t *o)
{
    size_t         k = o->count, n = (size_t)o->n, es = o->es;
    unsigned char  want[8];
    unsigned char *was = NULL;
    int            root = o->r == o->root;

    break_on_purpose(o);
    /* the inputs as they were: rebuilt, then compared */
    if (o->in.base != NULL) {
        was = xmalloc(o->in.bytes);
        switch (o->coll) {
        case C_REDUCE: case C_ALLREDUCE: case C_REDUCE_SCATTER:
            fill_reduced(o, was, 0, o->in.bytes / es);
            break;
        case C_ALLGATHER: case C_GATHER:
            fill_moved(o, was, o->r, 0, k);
            break;
        case C_SCATTER:
            for (size_t q = 0; q < n; q++) {
                fill_moved(o, was + q * k * es, o->root, (int)q, k);
            }
            break;
        case C_ALLTOALL:
            for (size_t q = 0; q < n; q++) {
                fill_moved(o, was + q * k * es, o->r, (int)q, k);
            }
            break;
        case C_ALLTOALLV:
            for (size_t j = 0; j < o->in.bytes; j++) {
                was[j] = poison_byte(&o->in, j);
            }
            for (size_t q = 0; q < n; q++) {
                fill_moved(o, was + o->sd[q] * es, o->r, (int)q, o->sc[q]);
            }
            break;
        default:
            break;
        }
        expect_input(o, was, &o->in);
        free(was);
    }

    switch (o->coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        for (size_t j = 0; j < k; j++) {
            moved_value(want, es, o->seed, o->root, 0, j);
            expect_elem(o, "bcast", j, o->out.data + j * es, want);
        }
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        if (o->coll == C_ALLREDUCE || root) {
            for (size_t j = 0; j < k; j++) {
                store(o->dt, want, reduction(o->dt, o->op, o->seed, o->n, j));
                expect_elem(o, "reduced", j, o->out.data + j * es, want);
            }
        }
        break;
    case C_REDUCE_SCATTER:
        for (size_t j = 0; j < k; j++) {
            store(o->dt, want, reduction(o->dt, o->op, o->seed, o->n, (size_t)o->r * k + j));
            expect_elem(o, "reduce_scatter", j, o->out.data + j * es, want);
        }
        break;
    case C_ALLGATHER:
    case C_GATHER:
        if (o->coll == C_ALLGATHER || root) {
            for (size_t p = 0; p < n; p++) {
                for (size_t j = 0; j < k; j++) {
                    moved_value(want, es, o->seed, (int)p, 0, j);
                    expect_elem(o, "gathered", p * k + j, o->out.data + (p * k + j) * es, want);
                }
            }
        }
        break;
    case C_SCATTER:
        if (o->out.base != NULL) {
            for (size_t j = 0; j < k; j++) {
                moved_value(want, es, o->seed, o->root, o->r, j);
                expect_elem(o, "scattered", j, o->out.data + j * es, want);
            }
        }
        break;
    case C_ALLTOALL:
        for (size_t p = 0; p < n; p++) {
            for (size_t j = 0; j < k; j++) {
                moved_value(want, es, o->seed, (int)p, o->r, j);
                expect_elem(o, "alltoall", p * k + j, o->out.data + (p * k + j) * es, want);
            }
        }
        break;
    case C_ALLTOALLV: {
        size_t at = 0;
        for (int p = o->n - 1; p >= 0; p--) { /* the receive layout, from the last rank down */
            expect_poison(o, "alltoallv gap", &o->out, at, o->rd[p]);
            for (size_t j = 0; j < o->rc[p]; j++) {
                moved_value(want, es, o->seed, p, o->r, j);
                expect_elem(o, "alltoallv", o->rd[p] + j, o->out.data + (o->rd[p] + j) * es, want);
            }
            at = o->rd[p] + o->rc[p];
        }
        break;
    }
    case C_NUM:
        break;
    }
    if (o->out.base != NULL) {
        st.bytes += o->out.bytes;
    }
    check_guards(o, &o->in, "input buffer");
    check_guards(o, &o->out, "output buffer");
    buf_free(&o->in);
    buf_free(&o->out);
    free(o->sc);
    free(o->sd);
    free(o->rc);
    free(o->rd);
    o->sc = o->sd = o->rc = o->rd = NULL;
}

/* ---------------------------------------------------------------------------------------
 * Steps
 */
static int pick_used_slot(void)
{
    int used[SLOTS], n = 0;

    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].used) {
            used[n++] = i;
        }
    }
    return used[rng_below(&shared_rng, (uint64_t)n)];
}

static void one_blocking(void)
{
    op_t o;

    draw_op(&o, pick_used_slot());
    prepare(&o);
    if (o.active) {
        start(&o, 0);
        finish(&o);
    }
}

static void batch(void)
{
    op_t ops[BATCH];
    int  n = 2 + (int)rng_below(&shared_rng, BATCH - 1), order[BATCH], live = 0, how;

    for (int i = 0; i < n; i++) {
        int blocking = rng_below(&shared_rng, 10) == 0;
        draw_op(&ops[i], pick_used_slot());
        prepare(&ops[i]);
        if (!ops[i].active) {
            continue;
        }
        if (blocking) { /* a blocking call while others are in flight */
            start(&ops[i], 0);
            finish(&ops[i]);
            ops[i].active = 0;
        } else {
            start(&ops[i], 1);
            order[live++] = i;
        }
    }
    /* completion: each rank its own order and way */
    for (int i = live - 1; i > 0; i--) {
        int j = (int)rng_below(&local_rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    how = (int)rng_below(&local_rng, 3);
    if (how == 0) {
        for (int i = 0; i < live; i++) {
            OK(gdc_wait(&ops[order[i]].req));
        }
    } else if (how == 1) {
        gdc_request_t reqs[BATCH];
        for (int i = 0; i < live; i++) {
            reqs[i] = ops[order[i]].req;
        }
        OK(gdc_waitall(live, reqs));
        for (int i = 0; i < live; i++) {
            ops[order[i]].req = reqs[i];
            if (reqs[i] != GDC_REQUEST_NULL) {
                fprintf(stderr, "soak: rank %d: gdc_waitall left request %d set\n", world_rank, i);
                st.wrong++;
            }
        }
    } else {
        int left = live;
        while (left > 0) {
            for (int i = 0; i < live; i++) {
                op_t *o    = &ops[order[i]];
                int   done = 0;
                if (o->req != GDC_REQUEST_NULL) {
                    OK(gdc_test(&o->req, &done));
                    left -= done;
                }
            }
        }
    }
    for (int i = 0; i < live; i++) {
        finish(&ops[order[i]]);
    }
}

static int compare_key(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* {key, parent rank, world rank} */

    if (x[0] != y[0]) {
        return x[0] < y[0] ? -1 : 1;
    }
    return x[1] < y[1] ? -1 : (x[1] > y[1]);
}

/* The color and key of world rank w in a split drawn with seed (the same on every rank). */
static int split_color(uint64_t seed, int w, int colors, int undefined)
{
    uint64_t h = hash4(seed, (uint64_t)w, 0, 0);

    return (undefined && h % 7 == 0) ? GDC_UNDEFINED : (int)(h % (uint64_t)colors);
}

static int split_key(uint64_t seed, int w)
{
    return (int)(hash4(seed, (uint64_t)w, 1, 0) % 5) - 2; /* ties on purpose */
}

/* Make a communicator in a free slot: a split of a used slot's (1-3 random colors, some
 * ranks GDC_UNDEFINED, random keys with ties) or a dup; check this rank's rank and the
 * size against the rule (key, then rank in the parent). */
static void make_comm(int to)
{
    int      from = pick_used_slot(), dup = rng_below(&shared_rng, 4) == 0;
    int      colors = 1 + (int)rng_below(&shared_rng, 3), undefined = rng_below(&shared_rng, 3) != 0;
    uint64_t seed = rng_next(&shared_rng);
    slot_t  *p = &slots[from], *s = &slots[to];
    int      color, key, n = 0, r = -1, size = -1;
    int64_t *recs;

    s->used    = 1;
    s->comm    = GDC_COMM_NULL;
    s->members = NULL;
    s->size    = 0;
    s->rank    = -1;
    s->id      = ++slot_ids;
    if (p->comm == GDC_COMM_NULL) {
        return;
    }
    color = dup ? 0 : split_color(seed, world_rank, colors, undefined);
    key   = dup ? 0 : split_key(seed, world_rank);
    if (dup) {
        note("dup of slot %d (communicator %" PRIu64 ") into slot %d (communicator %" PRIu64 ")", from, p->id, to,
             s->id);
        OK(gdc_comm_dup(p->comm, &s->comm));
    } else {
        note("split of slot %d (communicator %" PRIu64 ") into slot %d (communicator %" PRIu64 "): color %d key %d",
             from, p->id, to, s->id, color, key);
        OK(gdc_comm_split(p->comm, color, key, &s->comm));
    }
    if (color == GDC_UNDEFINED) {
        if (s->comm != GDC_COMM_NULL) {
            fprintf(stderr, "soak: rank %d: gdc_comm_split with GDC_UNDEFINED gave a communicator\n", world_rank);
            st.comm_bad++;
        }
        return;
    }
    if (s->comm == GDC_COMM_NULL) {
        fprintf(stderr, "soak: rank %d: gdc_comm_split with color %d gave GDC_COMM_NULL\n", world_rank, color);
        exit(3);
    }
    /* {key, rank in the parent, world rank} of every member of my color */
    recs = xmalloc((size_t)p->size * 3 * sizeof(int64_t));
    for (int i = 0; i < p->size; i++) {
        int w = p->members[i];
        if (dup || split_color(seed, w, colors, undefined) == color) {
            recs[3 * n]     = dup ? 0 : split_key(seed, w);
            recs[3 * n + 1] = i;
            recs[3 * n + 2] = w;
            n++;
        }
    }
    qsort(recs, (size_t)n, 3 * sizeof(int64_t), compare_key);
    s->members = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        s->members[i] = (int)recs[3 * i + 2];
        if (s->members[i] == world_rank) {
            s->rank = i;
        }
    }
    s->size = n;
    free(recs);
    OK(gdc_comm_rank(s->comm, &r));
    OK(gdc_comm_size(s->comm, &size));
    if (r != s->rank || size != s->size) {
        fprintf(stderr, "soak: rank %d: communicator %" PRIu64 " has me as rank %d of %d, expected %d of %d\n",
                world_rank, s->id, r, size, s->rank, s->size);
        st.comm_bad++;
        exit(1); /* the data checks would only repeat it */
    }
    if (s->rank == 0) {
        st.comms++;
    }
}

static void free_comm(int i)
{
    slot_t *s = &slots[i];

    note("free slot %d (communicator %" PRIu64 ")", i, s->id);
    if (s->comm != GDC_COMM_NULL) {
        OK(gdc_comm_free(&s->comm));
        if (s->comm != GDC_COMM_NULL) {
            fprintf(stderr, "soak: rank %d: gdc_comm_free did not set the handle to GDC_COMM_NULL\n", world_rank);
            st.comm_bad++;
        }
    }
    free(s->members);
    s->members = NULL;
    s->used    = 0;
    s->comm    = GDC_COMM_NULL;
}

static void manage_comms(void)
{
    int free_slot = -1, used = 0;

    for (int i = 1; i < SLOTS; i++) {
        if (!slots[i].used && free_slot < 0) {
            free_slot = i;
        }
        used += slots[i].used;
    }
    if (free_slot >= 0 && (used == 0 || rng_below(&shared_rng, 3) != 0)) {
        make_comm(free_slot);
    } else {
        int k = (int)rng_below(&shared_rng, (uint64_t)used), i;
        for (i = 1; i < SLOTS; i++) {
            if (slots[i].used && k-- == 0) {
                break;
            }
        }
        free_comm(i);
    }
}

/* ---------------------------------------------------------------------------------------
 */
static void usage(void)
{
    fprintf(stderr, "usage: soak [--seconds S] [--seed N] [--max-bytes B] [--kill RANK:CALLS] [--stop RANK:CALLS]\n"
                    "            [--self-test result|guard|input] [--tag WORD]\n"
                    "  S defaults to GDC_SOAK_SECONDS, else 10\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double   seconds = 10, t0, elapsed;
    uint64_t seed = 0, control[3], stats[10];
    int      seed_given = 0;
    const char *env = getenv("GDC_SOAK_SECONDS");

    if (env != NULL && env[0] != '\0') {
        seconds = atof(env);
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed       = strtoull(argv[++i], NULL, 0);
            seed_given = 1;
        } else if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
            max_bytes = (size_t)strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--tag") == 0 && i + 1 < argc) {
            i++; /* ignored: lets a test find its processes by their command line */
        } else if (strcmp(argv[i], "--self-test") == 0 && i + 1 < argc) {
            i++;
            self_test = strcmp(argv[i], "result") == 0  ? BREAK_RESULT
                        : strcmp(argv[i], "guard") == 0 ? BREAK_GUARD
                        : strcmp(argv[i], "input") == 0 ? BREAK_INPUT
                                                        : (usage(), BREAK_NONE);
        } else if ((strcmp(argv[i], "--kill") == 0 || strcmp(argv[i], "--stop") == 0) && i + 1 < argc) {
            char *colon;
            fault_sig  = argv[i][2] == 'k' ? SIGKILL : SIGSTOP;
            fault_rank = (int)strtol(argv[++i], &colon, 10);
            if (*colon != ':') {
                usage();
            }
            fault_calls = strtoull(colon + 1, NULL, 10);
        } else {
            usage();
        }
    }
    if (seconds < 0 || max_bytes < 64) {
        usage();
    }
    OK(gdc_init(&argc, &argv));
    OK(gdc_comm_rank(GDC_COMM_WORLD, &world_rank));
    OK(gdc_comm_size(GDC_COMM_WORLD, &world_size));
    t0 = gdc_wtime();
    if (!seed_given) {
        seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    }
    OK(gdc_bcast(&seed, 1, GDC_UINT64, 0, GDC_COMM_WORLD));
    shared_rng.s = seed;
    local_rng.s  = seed ^ mix64((uint64_t)world_rank + 1);
    if (world_rank == 0) {
        printf("soak: %d ranks, %.0f s, seed %" PRIu64 "\n", world_size, seconds, seed);
        fflush(stdout);
    }
    slots[0].used    = 1;
    slots[0].comm    = GDC_COMM_WORLD;
    slots[0].size    = world_size;
    slots[0].rank    = world_rank;
    slots[0].members = xmalloc((size_t)world_size * sizeof(int));
    slots[0].id      = 0;
    for (int i = 0; i < world_size; i++) {
        slots[0].members[i] = i;
    }

    for (step_no = 0;; step_no++) {
        uint64_t what;

        if (step_no % CONTROL_EVERY == 0) {
            /* rank 0 says whether to go on, with its random state */
            control[0] = world_rank == 0 && gdc_wtime() - t0 < seconds;
            control[1] = shared_rng.s;
            control[2] = step_no;
            note("control broadcast");
            count_call(0);
            st.ops += world_rank == 0;
            OK(gdc_bcast(control, 3, GDC_UINT64, 0, GDC_COMM_WORLD));
            if (control[1] != shared_rng.s || control[2] != step_no) {
                fprintf(stderr, "soak: rank %d: random stream diverged from rank 0's at step %" PRIu64 "\n",
                        world_rank, step_no);
                print_history();
                exit(3);
            }
            if (!control[0]) {
                break;
            }
        }
        what = rng_below(&shared_rng, 100);
        if (what < 8) {
            manage_comms();
        } else if (what < 65) {
            one_blocking();
        } else {
            batch();
        }
    }
    for (int i = 1; i < SLOTS; i++) {
        if (slots[i].used) {
            free_comm(i);
        }
    }
    free(slots[0].members);
    elapsed = gdc_wtime() - t0;

    stats[0] = st.calls; stats[1] = st.nb_calls; stats[2] = st.ops; stats[3] = st.comms; stats[4] = st.bytes;
    stats[5] = st.elements; stats[6] = st.wrong; stats[7] = st.guards; stats[8] = st.inputs; stats[9] = st.comm_bad;
    OK(gdc_allreduce(GDC_IN_PLACE, stats, 10, GDC_UINT64, GDC_SUM, GDC_COMM_WORLD));
    if (world_rank == 0) {
        printf("soak: %d ranks, %.1f s, %" PRIu64 " steps: %" PRIu64 " collectives (%" PRIu64 " calls over all ranks, "
               "%" PRIu64 " nonblocking) on %" PRIu64 " communicators made and freed, %.1f MB of results, "
               "%" PRIu64 " elements checked: %" PRIu64 " wrong elements, %" PRIu64 " guard bytes overwritten, "
               "%" PRIu64 " input elements changed, %" PRIu64 " communicators wrong\n",
               world_size, elapsed, step_no, stats[2], stats[0], stats[1], stats[3], (double)stats[4] / 1e6,
               stats[5], stats[6], stats[7], stats[8], stats[9]);
        fflush(stdout);
    }
    OK(gdc_finalize());
    return stats[6] + stats[7] + stats[8] + stats[9] == 0 ? 0 : 1;
}
