/* The algorithm table: every algorithm by id, with its name, what it does and its parts. */
#ifndef GDC_COLL_TABLE_H
#define GDC_COLL_TABLE_H

#include "coll.h"

/* gdc_coll_algos[id] is the algorithm with that id. */
extern const gdc_coll_algo_t gdc_coll_algos[GDC_COLL_ALGO_COUNT];

/* The algorithm of coll named name, or NULL. */
const gdc_coll_algo_t *gdc_coll_algo_find(gdc_coll_type_t coll, const char *name);

/* The collective named name ("allreduce", ...); 0 on success. */
int gdc_coll_type_by_name(const char *name, gdc_coll_type_t *coll);

/* "a, b, c": the names of coll's algorithms, for messages. */
void gdc_coll_algo_names(gdc_coll_type_t coll, char *buf, size_t len);

#endif
