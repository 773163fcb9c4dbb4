#include "alltoall/alltoall.h"

#include <stdlib.h>

#include "gdc_rt.h"

/* The round every rank starts with. Where nodes hold consecutive ranks, in rounds taken
 * from k = 1 the ranks of a node all meet their first rank of another node at once (rank
 * i of L after L - i rounds inside the node, which cost next to nothing): every rank's
 * first message off the node goes to the same rank, its second to the next one, and the
 * receiving NIC takes them one after another. From k = L (the largest node's ranks), at
 * the time of their j-th message off the node the ranks of a node send to as many
 * different ranks. Every rank takes the rounds in this order, those off its node first
 * (gdc_coll_a2a_round_order), so the rounds off the nodes are permutations as far as they go. Ranks
 * dealt round robin cross in the same rounds whatever the order. */
static int first_round(const gdc_coll_args_t *args)
{
    int run = 1, most = 1;

    if (args->node_of == NULL || args->num_nodes < 2) {
        return 1;
    }
    for (int r = 1; r < args->size; r++) {
        int here = args->node_of[r], before = args->node_of[r - 1];
        if (here != before && here != before + 1) {
            return 1; /* not in blocks */
        }
        run  = here == before ? run + 1 : 1;
        most = run > most ? run : most;
    }
    return most < args->size ? most : 1;
}

/* The rounds in the order a rank takes them (order[0..n-2]): from the first on, those whose
 * partner is off the rank's node before those inside it, so that its NIC starts at once
 * and is not left a burst after its sends inside the node (in blocks, rank i of a node
 * otherwise sends its last i blocks off the node last: 64 KiB on 16 ranks on 2 nodes of
 * dgx-h100 took the simulator 25.6 us, now 21.2). */
void gdc_coll_a2a_round_order(const gdc_coll_args_t *args, int r, int *order)
{
    int n = args->size, at = 0, first = first_round(args);

    for (int pass = 0; pass < 2; pass++) {
        for (int u = 1; u < n; u++) {
            int k   = (first - 1 + u - 1) % (n - 1) + 1;
            int off = args->node_of != NULL && args->node_of[(r + k) % n] != args->node_of[r];
            if (off == (pass == 0)) {
                order[at++] = k;
            }
        }
    }
}

gdc_status_t gdc_coll_a2a_pairwise(gdc_coll_sched_t *sched, const gdc_coll_args_t *args,
                                   const gdc_coll_a2a_layout_t *layout)
{
    int    n = args->size, r = args->rank;
    int   *sends = malloc((size_t)n * 2 * sizeof(int)), *order = sends + n;
    int    window[2 * GDC_COLL_A2A_WINDOW]; /* [inside, off the node][the last sends] */
    size_t at    = 0;

    if (sends == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    /* my own block */
    if (!args->in_place && layout->send_count(args, r) > 0) {
        gdc_coll_copy(sched, gdc_coll_rgn(sched, GDC_COLL_OUTPUT, layout->recv_offset(args, r), layout->recv_count(args, r)),
                      gdc_coll_rgn(sched, GDC_COLL_INPUT, layout->send_offset(args, r), layout->send_count(args, r)), -1);
    }
    /* a window per link class: a send off the node waits for the one a window before it
     * off the node, not for a quick one inside it (which would let later sends overtake) */
    gdc_coll_a2a_round_order(args, r, order);
    for (int t = 1, issued[2] = {0, 0}; t < n; t++) {
        int    k  = order[t - 1];
        int    to = (r + k) % n;
        int    off = args->node_of != NULL && args->node_of[to] != args->node_of[r];
        size_t sc  = layout->send_count(args, to);

        sends[k] = -1;
        if (sc > 0) {
            int *mine = &window[off * GDC_COLL_A2A_WINDOW + issued[off] % GDC_COLL_A2A_WINDOW];
            sends[k]  = gdc_coll_send(sched, to, 0, gdc_coll_rgn(sched, GDC_COLL_INPUT, layout->send_offset(args, to), sc),
                                      issued[off] >= GDC_COLL_A2A_WINDOW ? *mine : -1);
            *mine = sends[k];
            issued[off]++;
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
