/*
 * Validation patterns. Every input element is a small non-negative integer that depends
 * on (rank that owns it, block, index, salt), chosen so that every partial result of the
 * reduction is an integer the datatype stores exactly: the expected result is computed
 * here in 64-bit integers and compared bit for bit, for floats too.
 *
 *   data movement: hash(src, block, index, salt) in 0..R, R = min(exact_max, 2^20)
 *   sum:   values in 0..K with K = exact_max / ranks (so no partial sum overflows)
 *   prod:  1 everywhere except rank (index mod ranks), which gives 2 or 3: the product is
 *          2 or 3, and a missing or misplaced contribution changes it
 *   min, max: hash in 0..R
 *   avg:   g + s(rank) k with sum over ranks of s = 0, so the average is g exactly,
 *          whatever order or association the library uses
 *   band:  all ones but one bit per rank; bor: one bit per rank; bxor: full-width hash
 */
#include "gdbench.h"

#include <string.h>

/* splitmix64's finaliser: a cheap, well-mixed hash of the element's coordinates. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash(uint64_t src, uint64_t block, uint64_t index, uint64_t salt)
{
    return mix(index * 0x100000001b3ull ^ mix(src * 0x3243f6a8885a308dull + block * 0x13198a2e03707344ull + salt));
}

typedef struct {
    gdbench_op_t    op;
    gdbench_dtype_t dtype;
    int             nranks;
    unsigned        salt;
    uint64_t        data_max; /* R */
    uint64_t        sum_max;  /* K */
    uint64_t        avg_room; /* largest g + k */
    unsigned        bits;
    uint64_t        mask;
} pattern_t;

static pattern_t pattern_for(const gdbench_options_t *opts, int nranks, unsigned salt)
{
    const gdbench_dtype_info_t *info = gdbench_dtype_info(opts->dtype);
    pattern_t                   p;

    p.op       = opts->op;
    p.dtype    = opts->dtype;
    p.nranks   = nranks;
    p.salt     = salt;
    p.data_max = info->exact_max < (1u << 20) ? info->exact_max : (1u << 20);
    p.sum_max  = info->exact_max / (uint64_t)nranks;
    if (p.sum_max > (1u << 16)) {
        p.sum_max = 1u << 16;
    }
    p.avg_room = p.sum_max;
    p.bits     = (unsigned)(8 * info->size);
    p.mask     = p.bits == 64 ? ~0ull : ((1ull << p.bits) - 1);
    return p;
}

/* Element of block `block` that rank src sends (data movement). */
static int64_t data_value(const pattern_t *p, int src, size_t block, size_t index)
{
    return (int64_t)(hash((uint64_t)src, block, index, p->salt) % (p->data_max + 1));
}

/* Average pattern: g(index) and k(index) with k <= g and g + k <= avg_room. */
static void avg_parts(const pattern_t *p, size_t index, int64_t *g, int64_t *k)
{
    uint64_t h = hash(0, 0, index, p->salt + 7);

    if (p->avg_room < 2) { /* no room for +-k: every rank gives the same g */
        *k = 0;
        *g = (int64_t)(h % (p->avg_room + 1));
        return;
    }
    uint64_t kmax = p->avg_room / 2 < 3 ? p->avg_room / 2 : 3;
    *k            = (int64_t)(1 + h % kmax);
    *g            = *k + (int64_t)((h >> 20) % (p->avg_room - 2 * (uint64_t)*k + 1));
}

/* Input element `index` of rank r for the reduction. */
static int64_t reduce_input(const pattern_t *p, int r, size_t index)
{
    uint64_t h = hash((uint64_t)r, 1, index, p->salt);

    switch (p->op) {
    case GDBENCH_SUM:
        return (int64_t)(h % (p->sum_max + 1));
    case GDBENCH_PROD:
        return r == (int)(index % (size_t)p->nranks) ? 2 + (int64_t)((index / (size_t)p->nranks + p->salt) % 2) : 1;
    case GDBENCH_MIN:
    case GDBENCH_MAX:
        return (int64_t)(h % (p->data_max + 1));
    case GDBENCH_AVG: {
        int64_t g, k, s;
        avg_parts(p, index, &g, &k);
        if (p->nranks % 2 == 1 && r == p->nranks - 1) {
            s = 0; /* the odd one out */
        } else {
            s = r % 2 == 0 ? 1 : -1;
        }
        return g + s * k;
    }
    case GDBENCH_BAND:
        return (int64_t)(p->mask & ~(1ull << (((size_t)r + index + p->salt) % p->bits)));
    case GDBENCH_BOR:
        return (int64_t)(1ull << ((3 * (size_t)r + index + p->salt) % p->bits));
    case GDBENCH_BXOR:
    default:
        return (int64_t)(h & p->mask);
    }
}

static int64_t reduce_expected(const pattern_t *p, size_t index)
{
    int64_t acc = reduce_input(p, 0, index);

    if (p->op == GDBENCH_AVG) {
        int64_t g, k;
        avg_parts(p, index, &g, &k);
        return g;
    }
    for (int r = 1; r < p->nranks; r++) {
        int64_t v = reduce_input(p, r, index);
        switch (p->op) {
        case GDBENCH_SUM: acc += v; break;
        case GDBENCH_PROD: acc *= v; break;
        case GDBENCH_MIN: acc = v < acc ? v : acc; break;
        case GDBENCH_MAX: acc = v > acc ? v : acc; break;
        case GDBENCH_BAND: acc = (int64_t)((uint64_t)acc & (uint64_t)v); break;
        case GDBENCH_BOR: acc = (int64_t)((uint64_t)acc | (uint64_t)v); break;
        default: acc = (int64_t)((uint64_t)acc ^ (uint64_t)v); break;
        }
    }
    return acc;
}

/* The sentinel: all bits set, a NaN for floats and -1 / the maximum for integers. */
static void fill_sentinel(void *buf, size_t elems, gdbench_dtype_t dtype)
{
    memset(buf, 0xff, elems * gdbench_dtype_info(dtype)->size);
}

static void fill_data_block(const pattern_t *p, void *buf, size_t offset, int src, size_t block, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        gdbench_dtype_store(buf, offset + i, p->dtype, data_value(p, src, block, i));
    }
}

static void fill_reduce_input(const pattern_t *p, void *buf, int r, size_t first, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        gdbench_dtype_store(buf, i, p->dtype, reduce_input(p, r, first + i));
    }
}

static void fill_reduce_expected(const pattern_t *p, void *buf, size_t first, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        gdbench_dtype_store(buf, i, p->dtype, reduce_expected(p, first + i));
    }
}

/* What this rank puts in its buffers before the call (send, and recv_init: the sentinel or
 * the in-place input). */
static void build_inputs(const pattern_t *p, const gdbench_options_t *opts, const gdbench_layout_t *l, int rank,
                         int nranks, gdbench_images_t *img)
{
    size_t count    = l->count;
    size_t n        = (size_t)nranks;
    int    is_root  = rank == opts->root;
    int    in_place = opts->in_place;

    fill_sentinel(img->recv_init, l->recv_elems, opts->dtype);
    switch (opts->test) {
    case GDBENCH_ALLREDUCE:
    case GDBENCH_REDUCE:
        fill_reduce_input(p, in_place && (opts->test == GDBENCH_ALLREDUCE || is_root) ? img->recv_init : img->send,
                          rank, 0, count);
        break;
    case GDBENCH_REDUCE_SCATTER:
        fill_reduce_input(p, in_place ? img->recv_init : img->send, rank, 0, n * count);
        break;
    case GDBENCH_BCAST:
        if (is_root) {
            fill_data_block(p, img->recv_init, 0, rank, 0, count);
        }
        break;
    case GDBENCH_ALLGATHER:
    case GDBENCH_GATHER:
        if (in_place && (opts->test == GDBENCH_ALLGATHER || is_root)) {
            fill_data_block(p, img->recv_init, (size_t)rank * count, rank, 0, count);
        } else {
            fill_data_block(p, img->send, 0, rank, 0, count);
        }
        break;
    case GDBENCH_ALLTOALL:
    case GDBENCH_ALLTOALLV:
        for (size_t dst = 0; dst < n; dst++) {
            fill_data_block(p, in_place ? img->recv_init : img->send, dst * count, rank, dst, count);
        }
        break;
    case GDBENCH_SCATTER:
        for (size_t dst = 0; dst < n && is_root; dst++) {
            fill_data_block(p, img->send, dst * count, rank, dst, count);
        }
        break;
    case GDBENCH_LATENCY:
    case GDBENCH_BW:
    case GDBENCH_BIBW:
        fill_data_block(p, img->send, 0, rank, 0, count);
        break;
    default:
        break;
    }
}

/* What the checked part of the receive buffer must hold after the call. */
static void build_expected(const pattern_t *p, const gdbench_options_t *opts, const gdbench_layout_t *l, int rank,
                           int nranks, void *expect)
{
    size_t count = l->count;
    size_t n     = (size_t)nranks;

    fill_sentinel(expect, l->recv_elems, opts->dtype);
    if (l->check_elems == 0) {
        return;
    }
    switch (opts->test) {
    case GDBENCH_ALLREDUCE:
    case GDBENCH_REDUCE:
        fill_reduce_expected(p, expect, 0, count);
        break;
    case GDBENCH_REDUCE_SCATTER:
        fill_reduce_expected(p, expect, (size_t)rank * count, count);
        break;
    case GDBENCH_BCAST:
        fill_data_block(p, expect, 0, opts->root, 0, count);
        break;
    case GDBENCH_ALLGATHER:
    case GDBENCH_GATHER:
        for (size_t src = 0; src < n; src++) {
            fill_data_block(p, expect, src * count, (int)src, 0, count);
        }
        break;
    case GDBENCH_ALLTOALL:
    case GDBENCH_ALLTOALLV:
        for (size_t src = 0; src < n; src++) {
            fill_data_block(p, expect, src * count, (int)src, (size_t)rank, count);
        }
        break;
    case GDBENCH_SCATTER:
        fill_data_block(p, expect, 0, opts->root, (size_t)rank, count);
        break;
    case GDBENCH_LATENCY:
    case GDBENCH_BW:
    case GDBENCH_BIBW:
        fill_data_block(p, expect, 0, 1 - rank, 0, count);
        break;
    default:
        break;
    }
}

void gdbench_images_build(const gdbench_options_t *opts, const gdbench_layout_t *l, int rank, int nranks,
                          unsigned salt, gdbench_images_t *img)
{
    pattern_t p = pattern_for(opts, nranks, salt);

    build_inputs(&p, opts, l, rank, nranks, img);
    if (img->expect != NULL) {
        build_expected(&p, opts, l, rank, nranks, img->expect);
    }
}

size_t gdbench_check(gdbench_dtype_t dtype, const gdbench_layout_t *l, const void *recv, const void *expect,
                     size_t *first_bad)
{
    size_t      esize = gdbench_dtype_info(dtype)->size;
    const char *got   = (const char *)recv + l->check_offset * esize;
    const char *want  = (const char *)expect + l->check_offset * esize;
    size_t      bad   = 0;

    /* the common case, everything right, at memcmp speed */
    if (l->check_elems == 0 || memcmp(got, want, l->check_elems * esize) == 0) {
        return 0;
    }
    for (size_t i = 0; i < l->check_elems; i++) {
        if (memcmp(got + i * esize, want + i * esize, esize) != 0) {
            if (bad++ == 0) {
                *first_bad = l->check_offset + i;
            }
        }
    }
    return bad;
}
