/*
 * Bootstrap over the PMIx client API: who am I, who else is in the job, which node each
 * rank is on, and the exchange of transport addresses. Without a PMIx server the process
 * is a singleton of size 1.
 */
#ifndef GDC_RT_BOOT_H
#define GDC_RT_BOOT_H

#include <gdc.h>

#include <stddef.h>

typedef struct gdc_rt_boot {
    int    singleton;   /* no PMIx server: size 1 */
    int    rank;
    int    size;
    int    local_rank;  /* among the ranks of this job on my node */
    int    local_size;
    int    num_nodes;
    int   *node_of;     /* [size]: node index (0..num_nodes-1, in order of first rank) */
    char **node_names;  /* [num_nodes]: host name as the launcher reports it */
    char   nspace[256];
    char   launcher[64]; /* "gdrun", "prterun", "srun", ... as far as PMIx tells; or "none" */
} gdc_rt_boot_t;

extern gdc_rt_boot_t gdc_rt_boot;

gdc_status_t gdc_rt_boot_init(void);
void gdc_rt_boot_finalize(void);

/* Publish this rank's UCX address, then gather everyone's (a collective over the job). */
gdc_status_t gdc_rt_boot_publish_address(const void *addr, size_t len);
gdc_status_t gdc_rt_boot_exchange(void);
/* rank's address; *addr is malloc'd, the caller frees it. */
gdc_status_t gdc_rt_boot_lookup_address(int rank, void **addr, size_t *len);

/* A record of this rank under key, for every rank to read after the next fence (put and
 * committed; nothing to do for a singleton). */
gdc_status_t gdc_rt_boot_put(const char *key, const void *bytes, size_t len);
/* The same for the ranks of my node alone (nothing crosses the network at the fence). */
gdc_status_t gdc_rt_boot_put_local(const char *key, const void *bytes, size_t len);
/* rank's record under key into bytes; 0 when it is there and len bytes long. */
int gdc_rt_boot_get(int rank, const char *key, void *bytes, size_t len);

/* A job-wide barrier through the PMIx server (used at finalize); progress is called over
 * and over until it completes, and the wait ends early with what progress returns when
 * that is not GDC_SUCCESS (the fence is then left to PMIx_Finalize). */
gdc_status_t gdc_rt_boot_barrier(gdc_status_t (*progress)(void));

/* Ask the launcher to end the whole job with code; returns only if it could not. */
void gdc_rt_boot_abort(int code, const char *msg);

/* Set (from a PMIx event thread) when the launcher reports that a rank terminated;
 * the progress engine reads it. -1 until then. */
int gdc_rt_boot_failed_rank(void);

#endif
