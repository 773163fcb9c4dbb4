/* GDC_CHECK: signatures gathered and compared before a call moves data (see check.h). */
#include "engine/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gdc_rt.h"

gdc_coll_sig_t gdc_coll_sig_of(const gdc_coll_args_t *args, uint32_t seq, int rejected)
{
    gdc_coll_sig_t sig;

    memset(&sig, 0, sizeof(sig));
    sig.count    = args->coll == GDC_COLL_ALLTOALLV ? 0 : args->count;
    sig.seq      = seq;
    sig.root     = args->root;
    sig.coll     = (uint8_t)args->coll;
    sig.dtype    = (uint8_t)args->dtype;
    sig.op       = (uint8_t)args->op;
    sig.rejected = (uint8_t)(rejected != 0);
    sig.device   = (uint8_t)(args->on_device != 0);
    return sig;
}

gdc_coll_args_t gdc_coll_check_args(const gdc_coll_args_t *call)
{
    gdc_coll_args_t args = *call;

    args.coll       = GDC_COLL_ALLGATHER;
    args.count      = sizeof(gdc_coll_sig_t);
    args.dtype      = GDC_BYTE;
    args.dsize      = 1;
    args.op         = GDC_SUM;
    args.root       = 0;
    args.in_place   = 0;
    args.on_device  = 0;
    args.sendcounts = args.sdispls = args.recvcounts = args.rdispls = NULL;
    return args;
}

static const char *coll_name(uint8_t coll)
{
    return gdc_coll_type_name((gdc_coll_type_t)coll);
}

/* "count 10, rank 1 count 20": what differs between a (rank ra) and b (rank rb). */
static void describe_difference(const gdc_coll_sig_t *a, int ra, const gdc_coll_sig_t *b, int rb, char *buf,
                                size_t len)
{
    if (a->rejected || b->rejected) {
        snprintf(buf, len, "rank %d rejected its own arguments (its log says why)", a->rejected ? ra : rb);
    } else if (a->coll != b->coll) {
        snprintf(buf, len, "rank %d calls %s, rank %d calls %s", ra, coll_name(a->coll), rb, coll_name(b->coll));
    } else if (a->count != b->count) {
        snprintf(buf, len, "rank %d count %llu, rank %d count %llu", ra, (unsigned long long)a->count, rb,
                 (unsigned long long)b->count);
    } else if (a->dtype != b->dtype) {
        snprintf(buf, len, "rank %d dtype %s, rank %d dtype %s", ra, gdc_rt_dtype_name((gdc_dtype_t)a->dtype), rb,
                 gdc_rt_dtype_name((gdc_dtype_t)b->dtype));
    } else if (a->op != b->op) {
        snprintf(buf, len, "rank %d op %s, rank %d op %s", ra, gdc_rt_op_name((gdc_op_t)a->op), rb,
                 gdc_rt_op_name((gdc_op_t)b->op));
    } else if (a->root != b->root) {
        snprintf(buf, len, "rank %d root %d, rank %d root %d", ra, a->root, rb, b->root);
    } else if (a->device != b->device) {
        snprintf(buf, len, "rank %d passes %s memory, rank %d %s memory (every rank's buffers must be of one kind)",
                 ra, a->device ? "device" : "host", rb, b->device ? "device" : "host");
    } else {
        snprintf(buf, len, "rank %d is at call %u, rank %d at call %u", ra, a->seq, rb, b->seq);
    }
}

static int same_call(const gdc_coll_sig_t *a, const gdc_coll_sig_t *b)
{
    return !a->rejected && !b->rejected && a->coll == b->coll && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->device == b->device && a->seq == b->seq;
}

gdc_status_t gdc_coll_check_verify(const gdc_coll_sig_t *all, int size, int me)
{
    char what[160];
    int  other = -1;

    for (int r = 0; r < size && other < 0; r++) {
        if (!same_call(&all[0], &all[r])) {
            other = r;
        }
    }
    if (other < 0) {
        return GDC_SUCCESS;
    }
    describe_difference(&all[0], 0, &all[other], other, what, sizeof(what));
    if (me == 0 || me == other) {
        GDC_LOG_ERROR("%s seq %u: %s; GDC_ERR_INVALID_ARG on every rank (GDC_CHECK)", coll_name(all[me].coll),
                      all[me].seq, what);
    } else {
        GDC_LOG_INFO("%s seq %u: %s; GDC_ERR_INVALID_ARG on every rank (GDC_CHECK)", coll_name(all[me].coll),
                     all[me].seq, what);
    }
    return GDC_ERR_INVALID_ARG;
}

gdc_status_t gdc_coll_check_blocking(struct gdc_comm *comm, const gdc_coll_args_t *args, int rejected)
{
    gdc_coll_args_t    check = gdc_coll_check_args(args);
    gdc_coll_sig_t     mine  = gdc_coll_sig_of(args, comm->coll_seq + 1, rejected);
    gdc_coll_sig_t    *all   = malloc((size_t)args->size * sizeof(*all));
    gdc_coll_buffers_t bufs  = {&mine, all, all};
    gdc_status_t       status;

    if (all == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    status = gdc_coll_run_blocking_unchecked(comm, &check, &bufs);
    if (status == GDC_SUCCESS) {
        status = gdc_coll_check_verify(all, args->size, args->rank);
    }
    if (status != GDC_SUCCESS) {
        comm->coll_seq++; /* the call's own number, unused: a checked call always takes two */
    }
    free(all);
    return status;
}
