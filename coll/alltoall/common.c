#include "alltoall/alltoall.h"

#include <stdlib.h>

#include "gdc_rt.h"

/* Sends in flight at once: enough to keep every link busy, few enough not to flood one. */
#define GDC_COLL_A2A_WINDOW 8

gdc_status_t gdc_coll_a2a_pairwise(gdc_coll_sched_t *sched, const gdc_coll_args_t *args,
                                   const gdc_coll_a2a_layout_t *layout)
{
    int    n = args->size, r = args->rank;
    int   *sends = malloc((size_t)n * sizeof(int));
    size_t at    = 0;

    if (sends == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    /* my own block */
    if (!args->in_place && layout->send_count(args, r) > 0) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, layout->recv_offset(args, r), layout->recv_count(args, r)),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, layout->send_offset(args, r), layout->send_count(args, r)), -1);
    }
    for (int k = 1; k < n; k++) {
        int    to = (r + k) % n;
        size_t sc = layout->send_count(args, to);

        sends[k] = -1;
        if (sc > 0) {
            sends[k] = gdc_coll_send(sched, to, 0, gdc_coll_rgn(sched, GDC_COLL_INPUT, layout->send_offset(args, to), sc),
                                     k > GDC_COLL_A2A_WINDOW ? sends[k - GDC_COLL_A2A_WINDOW] : -1);
        }
    }
    for (int k = 1; k < n; k++) {
        int               from = (r - k + n) % n;
        size_t            rc   = layout->recv_count(args, from);
        gdc_coll_region_t dst  = gdc_coll_rgn(sched, GDC_COLL_OUTPUT, layout->recv_offset(args, from), rc);
        int               recv;

        if (rc == 0) {
            continue;
        }
        if (!args->in_place) {
            gdc_coll_recv(sched, from, 0, dst, -1);
            continue;
        }
        {
            gdc_coll_region_t tmp = gdc_coll_rgn_bytes(GDC_COLL_SCRATCH, at, dst.length);
            /* the send to `from` reads the very place its block lands in */
            int k_send = (from - r + n) % n;
            recv = gdc_coll_recv(sched, from, 0, tmp, -1);
            recv = gdc_coll_copy(sched, dst, tmp, recv);
            gdc_coll_after(sched, recv, sends[k_send]);
            at += dst.length;
        }
    }
    gdc_coll_scratch(sched, at);
    free(sends);
    return GDC_SUCCESS;
}
