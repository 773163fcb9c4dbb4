/* Copies that bypass the cache for their destination (non-temporal stores): for outputs
 * larger than the cache, where a normal store would first read every line it writes. */
#ifndef GDC_COLL_COPY_STREAM_H
#define GDC_COLL_COPY_STREAM_H

#include <stddef.h>

/* memcpy with non-temporal stores where the CPU has them (x86-64), then a store fence so
 * that a following release store (a shared-memory signal) orders after the data. */
void gdc_coll_copy_stream(void *dst, const void *src, size_t n);

#endif
