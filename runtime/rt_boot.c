#include "rt_boot.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include <gdc.h>

#include "rt_log.h"

#define GDC_RT_BOOT_ADDR_KEY "gdc.ucx.addr"

gdc_rt_boot_t gdc_rt_boot;

static pmix_proc_t my_proc;
static atomic_int  failed_rank = -1;
static size_t      event_handler_id;
static int         event_handler_registered;

static gdc_status_t pmix_error(const char *what, pmix_status_t rc)
{
    GDC_LOG_ERROR("PMIx %s failed: %s", what, PMIx_Error_string(rc));
    return GDC_ERR_TRANSPORT;
}

/* Fetch a value of proc `rank` (or the job, for PMIX_RANK_WILDCARD). Local lookup only
 * (PMIX_OPTIONAL): these keys come with the job's information or not at all. */
static pmix_status_t get_value(pmix_rank_t rank, const char *key, pmix_value_t **val)
{
    pmix_proc_t proc;
    pmix_info_t info;
    bool        optional = true;
    pmix_status_t rc;

    PMIX_PROC_LOAD(&proc, my_proc.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    rc = PMIx_Get(&proc, key, &info, 1, val);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static int get_uint(pmix_rank_t rank, const char *key, unsigned long *out)
{
    pmix_value_t *val = NULL;
    int           ok  = 1;

    if (get_value(rank, key, &val) != PMIX_SUCCESS || val == NULL) {
        return -1;
    }
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_UINT64: *out = (unsigned long)val->data.uint64; break;
    case PMIX_INT: *out = (unsigned long)val->data.integer; break;
    case PMIX_UINT: *out = val->data.uint; break;
    case PMIX_PROC_RANK: *out = val->data.rank; break;
    default: ok = 0; break;
    }
    PMIX_VALUE_RELEASE(val);
    return ok ? 0 : -1;
}

static char *get_string(pmix_rank_t rank, const char *key)
{
    pmix_value_t *val = NULL;
    char         *str = NULL;

    if (get_value(rank, key, &val) != PMIX_SUCCESS || val == NULL) {
        return NULL;
    }
    if (val->type == PMIX_STRING && val->data.string != NULL) {
        str = strdup(val->data.string);
    }
    PMIX_VALUE_RELEASE(val);
    return str;
}

/* The node identity of a rank as the launcher reports it: the node id where given,
 * the host name otherwise. Never gethostname(): emulated nodes share one host. */
static char *node_key_of(int rank, char **hostname)
{
    unsigned long nodeid;
    char          key[64];

    *hostname = get_string((pmix_rank_t)rank, PMIX_HOSTNAME);
    if (get_uint((pmix_rank_t)rank, PMIX_NODEID, &nodeid) == 0) {
        snprintf(key, sizeof(key), "id:%lu", nodeid);
        return strdup(key);
    }
    if (*hostname != NULL) {
        snprintf(key, sizeof(key), "host:%.50s", *hostname);
        return strdup(key);
    }
    return NULL;
}

static int add_node(char ***keys, int *num_nodes, char *key, char *hostname)
{
    char **grown_keys  = realloc(*keys, (size_t)(*num_nodes + 1) * sizeof(char *));
    char **grown_names;

    if (grown_keys == NULL) {
        return -1;
    }
    *keys       = grown_keys;
    grown_names = realloc(gdc_rt_boot.node_names, (size_t)(*num_nodes + 1) * sizeof(char *));
    if (grown_names == NULL) {
        return -1;
    }
    gdc_rt_boot.node_names = grown_names;
    (*keys)[*num_nodes]    = key;
    if (hostname == NULL) {
        char name[32];
        snprintf(name, sizeof(name), "node%d", *num_nodes);
        hostname = strdup(name);
    }
    gdc_rt_boot.node_names[*num_nodes] = hostname;
    return (*num_nodes)++;
}

/* Is rank listed in PMIX_LOCAL_PEERS (the ranks of this job on my node)? */
static int is_local_peer(const char *peers, int rank)
{
    const char *p = peers;

    while (p != NULL && *p != '\0') {
        if (atoi(p) == rank) {
            return 1;
        }
        p = strchr(p, ',');
        p = (p != NULL) ? p + 1 : NULL;
    }
    return 0;
}

/* The node key of a rank the launcher says nothing about: my node when PMIX_LOCAL_PEERS
 * lists it, else a node of its own (a safe assumption: it only forgoes shared-memory
 * shortcuts). */
static char *fallback_node_key(int rank, const char *peers)
{
    char key[32];

    if (rank == gdc_rt_boot.rank || (peers != NULL && is_local_peer(peers, rank))) {
        snprintf(key, sizeof(key), "local");
    } else {
        snprintf(key, sizeof(key), "rank:%d", rank);
    }
    return strdup(key);
}

/* Fill node_of[] and node_names[] from the job's information. */
static gdc_status_t map_nodes(void)
{
    gdc_rt_boot_t *b      = &gdc_rt_boot;
    char         **keys   = NULL;
    char          *peers  = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    gdc_status_t   status = GDC_ERR_NO_MEMORY;

    b->node_of = calloc((size_t)b->size, sizeof(int));
    if (b->node_of == NULL) {
        goto out;
    }
    for (int r = 0; r < b->size; r++) {
        char *hostname = NULL;
        char *key      = node_key_of(r, &hostname);
        int   n;

        if (key == NULL && (key = fallback_node_key(r, peers)) == NULL) {
            free(hostname);
            goto out;
        }
        for (n = 0; n < b->num_nodes && strcmp(keys[n], key) != 0; n++) {
        }
        if (n < b->num_nodes) {
            free(key);
            free(hostname);
        } else if ((n = add_node(&keys, &b->num_nodes, key, hostname)) < 0) {
            free(key);
            free(hostname);
            goto out;
        }
        b->node_of[r] = n;
    }
    status = GDC_SUCCESS;
out:
    for (int n = 0; n < b->num_nodes; n++) {
        free(keys[n]);
    }
    free(keys);
    free(peers);
    return status;
}

static void compute_local_ranks(void)
{
    gdc_rt_boot_t *b = &gdc_rt_boot;
    unsigned long  value;

    b->local_rank = 0;
    b->local_size = 0;
    for (int r = 0; r < b->size; r++) {
        if (b->node_of[r] == b->node_of[b->rank]) {
            if (r < b->rank) {
                b->local_rank++;
            }
            b->local_size++;
        }
    }
    /* The launcher's own numbering wins where it gives one. */
    if (get_uint(my_proc.rank, PMIX_LOCAL_RANK, &value) == 0 && (int)value < b->local_size) {
        b->local_rank = (int)value;
    }
}

static void on_pmix_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    int rank = -1;

    if (status == PMIX_ERR_LOST_CONNECTION || status == PMIX_ERR_UNREACH) {
        /* The launcher is gone: nobody will ever end this job for us. */
        static const char msg[] = "gdc: lost the connection to the launcher's PMIx server; exiting\n";
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
        _exit(1);
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            rank = (int)info[i].value.data.proc->rank;
        }
    }
    if (rank < 0 && source != NULL && PMIX_CHECK_NSPACE(source->nspace, my_proc.nspace)) {
        rank = (int)source->rank;
    }
    if (rank >= 0 && rank != (int)my_proc.rank && rank < gdc_rt_boot.size) {
        int expected = -1;
        atomic_compare_exchange_strong(&failed_rank, &expected, rank);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void register_events(void)
{
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED,
                             PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH};
    pmix_status_t rc;

    rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0,
                                     on_pmix_event, NULL, NULL);
    if (rc < 0) {
        GDC_LOG_DEBUG("PMIx event handler not registered: %s", PMIx_Error_string(rc));
        return;
    }
    event_handler_id         = (size_t)rc;
    event_handler_registered = 1;
}

static void detect_launcher(void)
{
    const char *name = "pmix";

    if (getenv("GDRUN_JOBID") != NULL) {
        name = "gdrun";
    } else if (getenv("SLURM_STEP_ID") != NULL || getenv("SLURM_JOB_ID") != NULL) {
        name = "srun";
    } else if (getenv("OMPI_COMM_WORLD_SIZE") != NULL) {
        name = "mpirun";
    } else if (getenv("PRTE_LAUNCHED") != NULL) {
        name = "prterun";
    }
    snprintf(gdc_rt_boot.launcher, sizeof(gdc_rt_boot.launcher), "%s", name);
}

static gdc_status_t init_singleton(void)
{
    gdc_rt_boot_t *b = &gdc_rt_boot;
    char           host[256];

    b->singleton  = 1;
    b->rank       = 0;
    b->size       = 1;
    b->local_rank = 0;
    b->local_size = 1;
    b->num_nodes  = 1;
    b->node_of    = calloc(1, sizeof(int));
    b->node_names = calloc(1, sizeof(char *));
    if (gethostname(host, sizeof(host)) != 0) {
        snprintf(host, sizeof(host), "localhost");
    }
    host[sizeof(host) - 1] = '\0';
    if (b->node_of == NULL || b->node_names == NULL ||
        (b->node_names[0] = strdup(host)) == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    snprintf(b->nspace, sizeof(b->nspace), "singleton.%d", (int)getpid());
    snprintf(b->launcher, sizeof(b->launcher), "none");
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_boot_init(void)
{
    gdc_rt_boot_t *b = &gdc_rt_boot;
    unsigned long  size;
    pmix_status_t  rc;
    gdc_status_t   status;

    memset(b, 0, sizeof(*b));
    rc = PMIx_Init(&my_proc, NULL, 0);
    if (rc != PMIX_SUCCESS && getenv("PMIX_NAMESPACE") == NULL) {
        GDC_LOG_DEBUG("no PMIx server (%s): running as a singleton", PMIx_Error_string(rc));
        return init_singleton();
    }
    if (rc == PMIX_ERR_UNREACH) {
        /* a launcher started this process: alone, it would run the job's work by itself
         * while its peers wait for it */
        GDC_LOG_ERROR("started by a launcher (PMIx namespace %s), but its PMIx server cannot be reached (%s): "
                      "this process cannot join its job",
                      getenv("PMIX_NAMESPACE"), PMIx_Error_string(rc));
        return GDC_ERR_TRANSPORT;
    }
    if (rc != PMIX_SUCCESS) {
        return pmix_error("init", rc);
    }
    if (get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) != 0 || size == 0) {
        GDC_LOG_ERROR("the launcher's PMIx server did not give the job size (%s)", PMIX_JOB_SIZE);
        status = GDC_ERR_TRANSPORT;
        goto err_finalize;
    }
    b->rank = (int)my_proc.rank;
    b->size = (int)size;
    snprintf(b->nspace, sizeof(b->nspace), "%s", my_proc.nspace);
    gdc_rt_log_set_rank(b->rank);
    status = map_nodes();
    if (status != GDC_SUCCESS) {
        goto err_finalize;
    }
    compute_local_ranks();
    detect_launcher();
    register_events();
    GDC_LOG_DEBUG("PMIx: rank %d of %d, node %d of %d (%s), local rank %d of %d", b->rank, b->size,
                  b->node_of[b->rank], b->num_nodes, b->node_names[b->node_of[b->rank]],
                  b->local_rank, b->local_size);
    return GDC_SUCCESS;

err_finalize:
    gdc_rt_boot_finalize();
    return status;
}

void gdc_rt_boot_finalize(void)
{
    gdc_rt_boot_t *b = &gdc_rt_boot;

    if (!b->singleton) {
        if (event_handler_registered) {
            PMIx_Deregister_event_handler(event_handler_id, NULL, NULL);
            event_handler_registered = 0;
        }
        PMIx_Finalize(NULL, 0);
    }
    for (int n = 0; b->node_names != NULL && n < b->num_nodes; n++) {
        free(b->node_names[n]);
    }
    free(b->node_names);
    free(b->node_of);
    memset(b, 0, sizeof(*b));
    atomic_store(&failed_rank, -1);
}

gdc_status_t gdc_rt_boot_publish_address(const void *addr, size_t len)
{
    return gdc_rt_boot_put(GDC_RT_BOOT_ADDR_KEY, addr, len);
}

static gdc_status_t put(pmix_scope_t scope, const char *key, const void *bytes, size_t len)
{
    pmix_value_t  value;
    pmix_status_t rc;

    if (gdc_rt_boot.singleton) {
        return GDC_SUCCESS;
    }
    value.type          = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)bytes;
    value.data.bo.size  = len;
    rc                  = PMIx_Put(scope, key, &value);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    if (rc != PMIX_SUCCESS) {
        GDC_LOG_ERROR("PMIx put of %s failed: %s", key, PMIx_Error_string(rc));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_boot_put(const char *key, const void *bytes, size_t len)
{
    /* GLOBAL: ranks on my node read it too. */
    return put(PMIX_GLOBAL, key, bytes, len);
}

gdc_status_t gdc_rt_boot_put_local(const char *key, const void *bytes, size_t len)
{
    return put(PMIX_LOCAL, key, bytes, len);
}

int gdc_rt_boot_get(int rank, const char *key, void *bytes, size_t len)
{
    pmix_proc_t   proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    int           found;

    PMIX_PROC_LOAD(&proc, my_proc.nspace, (pmix_rank_t)rank);
    rc    = PMIx_Get(&proc, key, NULL, 0, &val);
    found = rc == PMIX_SUCCESS && val != NULL && val->type == PMIX_BYTE_OBJECT && val->data.bo.size == len;
    if (found) {
        memcpy(bytes, val->data.bo.bytes, len);
    }
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    return found ? 0 : -1;
}

/*
 * A fence of every rank of the job. Always with PMIX_COLLECT_DATA: Slurm's PMIx plugin
 * (22.05, PMIx 4.2) completes a fence without data collection among the ranks of each
 * node alone, so it is no barrier across nodes there (ranks would tear down their
 * endpoints while peers on other nodes still use them). With nothing new committed, the
 * data collected is next to nothing.
 */
struct fence_wait {
    pmix_status_t status;
    atomic_int    done;
};

/* Runs on the PMIx progress thread. */
static void fence_done(pmix_status_t status, void *cbdata)
{
    struct fence_wait *wait = cbdata;

    wait->status = status;
    atomic_store_explicit(&wait->done, 1, memory_order_release);
}

/*
 * progress (may be NULL) runs while the fence is open: a rank waiting here must still
 * answer its peers' UCX traffic (a worker flush over TCP needs the far side to progress),
 * or one rank's flush and everyone else's fence wait for each other. What it returns
 * other than GDC_SUCCESS ends the wait: a fence that never completes (a rank is gone) is
 * left open, its callback writing to a wait record that outlives it.
 */
static gdc_status_t fence(const char *what, gdc_status_t (*progress)(void))
{
    static struct fence_wait wait;
    pmix_info_t   info;
    bool          collect = true;
    pmix_status_t rc;
    gdc_status_t  given_up = GDC_SUCCESS;

    if (gdc_rt_boot.singleton) {
        return GDC_SUCCESS;
    }
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (progress == NULL) {
        rc = PMIx_Fence(NULL, 0, &info, 1);
    } else {
        wait.status = PMIX_SUCCESS;
        atomic_store(&wait.done, 0);
        rc = PMIx_Fence_nb(NULL, 0, &info, 1, fence_done, &wait);
        if (rc == PMIX_OPERATION_SUCCEEDED) {
            atomic_store(&wait.done, 1);
            rc = PMIX_SUCCESS;
        }
        while (rc == PMIX_SUCCESS && !atomic_load_explicit(&wait.done, memory_order_acquire) &&
               (given_up = progress()) == GDC_SUCCESS) {
            sched_yield();
        }
        if (rc == PMIX_SUCCESS && given_up == GDC_SUCCESS) {
            rc = wait.status;
        }
    }
    PMIX_INFO_DESTRUCT(&info);
    if (given_up != GDC_SUCCESS) {
        return given_up;
    }
    if (rc != PMIX_SUCCESS) {
        return pmix_error(what, rc);
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_boot_exchange(void)
{
    return fence("fence (address exchange)", NULL);
}

gdc_status_t gdc_rt_boot_barrier(gdc_status_t (*progress)(void))
{
    return fence("fence (barrier)", progress);
}

gdc_status_t gdc_rt_boot_lookup_address(int rank, void **addr, size_t *len)
{
    pmix_proc_t   proc;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    void         *copy;

    PMIX_PROC_LOAD(&proc, my_proc.nspace, (pmix_rank_t)rank);
    rc = PMIx_Get(&proc, GDC_RT_BOOT_ADDR_KEY, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL) {
        GDC_LOG_ERROR("no UCX address of rank %d from PMIx: %s", rank, PMIx_Error_string(rc));
        return GDC_ERR_TRANSPORT;
    }
    if (val->type != PMIX_BYTE_OBJECT || val->data.bo.size == 0) {
        GDC_LOG_ERROR("the UCX address of rank %d has the wrong PMIx type", rank);
        PMIX_VALUE_RELEASE(val);
        return GDC_ERR_TRANSPORT;
    }
    copy = malloc(val->data.bo.size);
    if (copy == NULL) {
        PMIX_VALUE_RELEASE(val);
        return GDC_ERR_NO_MEMORY;
    }
    memcpy(copy, val->data.bo.bytes, val->data.bo.size);
    *len  = val->data.bo.size;
    *addr = copy;
    PMIX_VALUE_RELEASE(val);
    return GDC_SUCCESS;
}

void gdc_rt_boot_abort(int code, const char *msg)
{
    if (gdc_rt_boot.singleton) {
        return;
    }
    /* NULL procs: abort every process of my namespace. */
    PMIx_Abort(code, msg, NULL, 0);
}

int gdc_rt_boot_failed_rank(void)
{
    return atomic_load(&failed_rank);
}
