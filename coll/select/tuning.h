/* The tuning file (GDC_TUNING): lines "COLLECTIVE MIN-MAX ALGORITHM" pin choices by size. */
#ifndef GDC_COLL_TUNING_H
#define GDC_COLL_TUNING_H

#include <stdio.h>

#include "coll.h"

typedef struct gdc_coll_tuning_rule {
    gdc_coll_type_t        coll;
    size_t                 min_bytes, max_bytes; /* [min, max] inclusive */
    const gdc_coll_algo_t *algo;
} gdc_coll_tuning_rule_t;

typedef struct gdc_coll_tuning {
    gdc_coll_tuning_rule_t *rules;
    int                     num_rules;
} gdc_coll_tuning_t;

/* Read path into tuning (empty before); a line that is not a rule fails with its number. */
gdc_status_t gdc_coll_tuning_load(gdc_coll_tuning_t *tuning, const char *path);
/* The same from an open stream; where names it in messages. Rules read before a bad line
 * stay in tuning (gdc_coll_tuning_free them). */
gdc_status_t gdc_coll_tuning_read(gdc_coll_tuning_t *tuning, FILE *f, const char *where);
void         gdc_coll_tuning_free(gdc_coll_tuning_t *tuning);

/* The first rule's algorithm for the call (by its collective and vector bytes), or NULL. */
const gdc_coll_algo_t *gdc_coll_tuning_lookup(const gdc_coll_tuning_t *tuning, const gdc_coll_args_t *args);

#endif
