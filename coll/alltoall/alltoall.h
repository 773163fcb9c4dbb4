/* What the pairwise alltoall and alltoallv share: per-peer block placement. */
#ifndef GDC_COLL_ALLTOALL_COMMON_H
#define GDC_COLL_ALLTOALL_COMMON_H

#include "builder.h"

/* Where the block for / from peer p lives, in elements. */
typedef struct gdc_coll_a2a_layout {
    size_t (*send_offset)(const gdc_coll_args_t *args, int p);
    size_t (*send_count)(const gdc_coll_args_t *args, int p);
    size_t (*recv_offset)(const gdc_coll_args_t *args, int p);
    size_t (*recv_count)(const gdc_coll_args_t *args, int p);
} gdc_coll_a2a_layout_t;

/* Sends in flight at once, to ranks of the own node and to others each: enough to keep
 * every link busy, few enough not to flood one. */
#define GDC_COLL_A2A_WINDOW 8

/* Pairwise exchange: in round k send to r+k and receive from r-k, the rounds from k = L in
 * nodes of consecutive ranks (L the largest node's ranks); a window of sends in flight
 * inside the node and one off it. In place, blocks arrive in scratch and are copied into
 * place once the send that read that place has completed. */
/* Rank r's rounds k (to r + k), in the order it sends them: from k = L on in nodes of
 * consecutive ranks, those off its node first; order[0 .. size - 2]. */
void gdc_coll_a2a_round_order(const gdc_coll_args_t *args, int r, int *order);

gdc_status_t gdc_coll_a2a_pairwise(gdc_coll_sched_t *sched, const gdc_coll_args_t *args,
                                   const gdc_coll_a2a_layout_t *layout);

#endif
