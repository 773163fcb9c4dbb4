/*
 * gdrun's PMIx server, on the OpenPMIx server API: init with a private temp dir, the job's
 * description (register_nspace), each rank's registration and fork environment, and the
 * upcalls the library makes on its progress thread.
 *
 * Threads: the upcalls run on PMIx's thread and must neither block nor call blocking PMIx
 * functions. Each one queues a small record and wakes gdrun's libevent loop with
 * event_active() (libevent's pthreads locking makes that safe from another thread); the
 * loop does the work and completes the upcall's callback. The few waits for a PMIx
 * callback at start-up use a condition variable, not a busy loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_version.h>

#include "gdrun.h"

/* ---------------------------------------------------------------------------------------
 * Waiting for a PMIx operation's callback (start-up only, never in an upcall)
 */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    int             done;
    pmix_status_t   status;
} op_wait_t;

static void op_wait_init(op_wait_t *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->done   = 0;
    w->status = PMIX_SUCCESS;
}

static void op_wait_done(pmix_status_t status, void *cbdata)
{
    op_wait_t *w = cbdata;

    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done   = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* rc: what the non-blocking call returned. PMIX_OPERATION_SUCCEEDED means it completed at
 * once and no callback will come. */
static pmix_status_t op_wait_finish(op_wait_t *w, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w->lock);
        while (!w->done) {
            pthread_cond_wait(&w->cond, &w->lock);
        }
        rc = w->status;
        pthread_mutex_unlock(&w->lock);
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS;
    }
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    return rc;
}

/* ---------------------------------------------------------------------------------------
 * Upcalls, queued for the loop
 */
typedef enum { UPCALL_CONNECTED, UPCALL_FINALIZED, UPCALL_ABORT, UPCALL_FENCE, UPCALL_DMODEX } upcall_kind_t;

typedef struct upcall {
    struct upcall      *next;
    upcall_kind_t       kind;
    pmix_rank_t         rank;
    int                 status;     /* abort: the exit code asked for */
    char               *msg;        /* abort: its message */
    char               *data;       /* fence: the contributions, copied */
    size_t              ndata;
    pmix_op_cbfunc_t    op_cb;
    pmix_modex_cbfunc_t modex_cb;
    void               *cbdata;
} upcall_t;

static gdrun_job_t    *the_job; /* the job the upcalls are about (one per gdrun) */
static pthread_mutex_t upcall_lock = PTHREAD_MUTEX_INITIALIZER;
static upcall_t       *upcall_head, *upcall_tail;
static struct event   *upcall_event;
static int             server_up;

static int is_our_rank(const pmix_proc_t *proc)
{
    return proc != NULL && PMIX_CHECK_NSPACE(proc->nspace, the_job->nspace) &&
           proc->rank < (pmix_rank_t)the_job->opt.np;
}

/* Queue u for the loop (PMIx thread). */
static void upcall_post(upcall_t *u)
{
    pthread_mutex_lock(&upcall_lock);
    if (upcall_tail != NULL) {
        upcall_tail->next = u;
    } else {
        upcall_head = u;
    }
    upcall_tail = u;
    pthread_mutex_unlock(&upcall_lock);
    event_active(upcall_event, EV_READ, 0);
}

static upcall_t *upcall_new(upcall_kind_t kind, const pmix_proc_t *proc)
{
    upcall_t *u = calloc(1, sizeof(*u));

    if (u != NULL) {
        u->kind = kind;
        u->rank = is_our_rank(proc) ? proc->rank : PMIX_RANK_UNDEF;
    }
    return u;
}

/* PMIx 4.x calls client_connected2 with no callback (cbfunc NULL); 5.x passes one that
 * completes the client's connection. Returning PMIX_OPERATION_SUCCEEDED tells both that
 * the host is done with it, so neither waits for us (as Slurm does). */
static pmix_status_t on_client_connected(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                         size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    upcall_t *u = upcall_new(UPCALL_CONNECTED, proc);

    (void)server_object, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    if (u != NULL) {
        upcall_post(u);
    }
    return PMIX_OPERATION_SUCCEEDED;
}

/* The client waits in PMIx_Finalize until the callback runs; the loop runs it after it has
 * marked the rank finalized, so a rank's finalize is always known before its exit. */
static pmix_status_t on_client_finalized(const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
                                         void *cbdata)
{
    upcall_t *u = upcall_new(UPCALL_FINALIZED, proc);

    (void)server_object;
    if (u == NULL) {
        return PMIX_OPERATION_SUCCEEDED;
    }
    u->op_cb  = cbfunc;
    u->cbdata = cbdata;
    upcall_post(u);
    return PMIX_SUCCESS;
}

static pmix_status_t on_abort(const pmix_proc_t *proc, void *server_object, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    upcall_t *u = upcall_new(UPCALL_ABORT, proc);

    /* procs names whom to abort; gdrun ends the whole job whatever it names. */
    (void)server_object, (void)procs, (void)nprocs;
    if (u == NULL) {
        return PMIX_ERR_NOMEM;
    }
    u->status = status;
    u->msg    = msg != NULL ? strdup(msg) : NULL;
    u->op_cb  = cbfunc;
    u->cbdata = cbdata;
    upcall_post(u);
    return PMIX_SUCCESS;
}

/* Every rank is a client of this one server, so a fence is complete as soon as the
 * library hands it to us: the collected data is the whole job's, and goes back as is. The
 * library reads the buffer until it calls release_fence_data, so it is a copy we own. */
static pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                              char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    upcall_t *u = upcall_new(UPCALL_FENCE, NULL);

    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if (u == NULL || (ndata > 0 && (u->data = malloc(ndata)) == NULL)) {
        free(u);
        return PMIX_ERR_NOMEM;
    }
    if (ndata > 0) {
        memcpy(u->data, data, ndata);
    }
    u->ndata    = ndata;
    u->modex_cb = cbfunc;
    u->cbdata   = cbdata;
    upcall_post(u);
    return PMIX_SUCCESS;
}

/* Asked for the data of a rank on another server: there is none (every rank is local). */
static pmix_status_t on_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                     pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    upcall_t *u = upcall_new(UPCALL_DMODEX, proc);

    (void)info, (void)ninfo;
    if (u == NULL) {
        return PMIX_ERR_NOMEM;
    }
    u->modex_cb = cbfunc;
    u->cbdata   = cbdata;
    upcall_post(u);
    return PMIX_SUCCESS;
}

static pmix_server_module_t server_module = {
    .client_connected2 = on_client_connected,
    .client_finalized  = on_client_finalized,
    .abort             = on_abort,
    .fence_nb          = on_fence,
    .direct_modex      = on_direct_modex,
};

static void release_fence_data(void *cbdata)
{
    free(cbdata);
}

static void handle_abort(gdrun_job_t *job, upcall_t *u)
{
    /* Exit codes are 8 bits; an abort must not look like success. */
    int code = (u->status >= 1 && u->status <= 255) ? u->status : 1;

    if (u->rank != PMIX_RANK_UNDEF) {
        gdrun_procs_fail(job, code, "rank %u (pid %d) called gdc_abort with code %d%s%s", u->rank,
                         (int)job->ranks[u->rank].pid, u->status, u->msg ? ": " : "", u->msg ? u->msg : "");
    } else {
        gdrun_procs_fail(job, code, "a process asked to abort the job with code %d", u->status);
    }
}

static void handle_upcall(gdrun_job_t *job, upcall_t *u)
{
    gdrun_rank_t *rank = u->rank != PMIX_RANK_UNDEF ? &job->ranks[u->rank] : NULL;

    switch (u->kind) {
    case UPCALL_CONNECTED:
        if (rank != NULL) {
            rank->connected = 1;
            gdrun_debug(job, "rank %d connected", rank->rank);
        }
        break;
    case UPCALL_FINALIZED:
        if (rank != NULL) {
            rank->finalized = 1;
            gdrun_debug(job, "rank %d finalized", rank->rank);
        }
        if (u->op_cb != NULL) {
            u->op_cb(PMIX_SUCCESS, u->cbdata);
        }
        break;
    case UPCALL_ABORT:
        handle_abort(job, u);
        if (u->op_cb != NULL) {
            u->op_cb(PMIX_SUCCESS, u->cbdata);
        }
        break;
    case UPCALL_FENCE:
        gdrun_debug(job, "fence with %zu bytes of data", u->ndata);
        if (u->modex_cb != NULL) {
            u->modex_cb(PMIX_SUCCESS, u->data, u->ndata, u->cbdata, u->data ? release_fence_data : NULL,
                        u->data);
            u->data = NULL; /* the library owns it until release_fence_data */
        }
        break;
    case UPCALL_DMODEX:
        gdrun_debug(job, "direct modex request for rank %d: not found", (int)u->rank);
        if (u->modex_cb != NULL) {
            u->modex_cb(PMIX_ERR_NOT_FOUND, NULL, 0, u->cbdata, NULL, NULL);
        }
        break;
    }
}

/* The queue so far, emptied (the loop's side). */
static upcall_t *upcall_take_all(void)
{
    upcall_t *list;

    pthread_mutex_lock(&upcall_lock);
    list        = upcall_head;
    upcall_head = upcall_tail = NULL;
    pthread_mutex_unlock(&upcall_lock);
    return list;
}

static void upcall_free(upcall_t *u)
{
    free(u->data);
    free(u->msg);
    free(u);
}

void gdrun_pmix_process_upcalls(gdrun_job_t *job)
{
    for (upcall_t *u = upcall_take_all(), *next; u != NULL; u = next) {
        next = u->next;
        handle_upcall(job, u);
        upcall_free(u);
    }
}

static void on_upcall_event(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    gdrun_pmix_process_upcalls(arg);
}

/* ---------------------------------------------------------------------------------------
 * Server start-up and the job's description
 */
static int pmix_failed(const char *what, pmix_status_t rc)
{
    const char *gds = getenv("PMIX_MCA_gds");

    gdrun_msg("PMIx %s failed: %s", what, PMIx_Error_string(rc));
    if (gds != NULL && strcmp(gds, "hash") != 0) {
        gdrun_msg("hint: PMIX_MCA_gds=%s is set; PMIx's shared-memory datastores fail on permissions "
                  "in some containers, PMIX_MCA_gds=hash avoids them", gds);
    }
    return -1;
}

int gdrun_pmix_init(gdrun_job_t *job)
{
    void             *list = PMIx_Info_list_start();
    pmix_data_array_t darray;
    bool              no = false;
    pmix_status_t     rc;

    /* The shared-memory datastore (ds21) can leave the server hanging on a lock that a
     * rank held when it was killed (openpmix #1233), and it fails on permissions in some
     * containers: unless told otherwise, server and ranks use the hash store. */
    if (getenv("PMIX_MCA_gds") == NULL) {
        setenv("PMIX_MCA_gds", "hash", 1);
    }
    the_job      = job;
    upcall_event = event_new(job->base, -1, 0, on_upcall_event, job);
    if (list == NULL || upcall_event == NULL) {
        if (list != NULL) {
            PMIx_Info_list_release(list);
        }
        gdrun_msg("out of memory");
        return -1;
    }
    /* Everything the server writes goes into the job's private dir, removed at exit. No
     * system-wide or tool rendezvous files: this server serves this job only. */
    PMIx_Info_list_add(list, PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_SERVER_REMOTE_CONNECTIONS, &no, PMIX_BOOL);
#ifdef PMIX_SERVER_SESSION_SUPPORT
    PMIx_Info_list_add(list, PMIX_SERVER_SESSION_SUPPORT, &no, PMIX_BOOL);
#endif
#ifdef PMIX_SERVER_SHARE_TOPOLOGY
    /* No topology in shared memory: the ranks' hwloc reads the machine itself. */
    PMIx_Info_list_add(list, PMIX_SERVER_SHARE_TOPOLOGY, &no, PMIX_BOOL);
#endif
    rc = PMIx_Info_list_convert(list, &darray);
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("info list", rc);
    }
    rc = PMIx_server_init(&server_module, darray.array, darray.size);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("server init", rc);
    }
    server_up = 1;
    gdrun_debug(job, "PMIx %s server up, temp dir %s", PMIx_Get_version(), job->tmpdir);
    return 0;
}

/* PMIx_Info_list_add copies the value: an inner list goes in as a converted array. */
static pmix_status_t add_array(void *outer, const char *key, void *inner)
{
    pmix_data_array_t darray;
    pmix_status_t     rc = PMIx_Info_list_convert(inner, &darray);

    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(outer, key, &darray, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_DESTRUCT(&darray);
    }
    PMIx_Info_list_release(inner);
    return rc;
}

/* PMIX_PROC_DATA: starts with PMIX_RANK, and has the node id, local rank and node rank. */
static pmix_status_t add_rank_info(gdrun_job_t *job, void *list, int r)
{
    const gdrun_layout_t *l     = &job->layout;
    void                 *inner = PMIx_Info_list_start();
    pmix_rank_t           rank  = (pmix_rank_t)r;
    uint32_t              nodeid = (uint32_t)l->node_of[r], appnum = 0;
    uint16_t              local_rank = (uint16_t)l->local_rank[r];

    if (inner == NULL) {
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_list_add(inner, PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_list_add(inner, PMIX_NODEID, &nodeid, PMIX_UINT32);
    PMIx_Info_list_add(inner, PMIX_LOCAL_RANK, &local_rank, PMIX_UINT16);
    PMIx_Info_list_add(inner, PMIX_NODE_RANK, &local_rank, PMIX_UINT16);
    PMIx_Info_list_add(inner, PMIX_HOSTNAME, l->node_name[l->node_of[r]], PMIX_STRING);
    PMIx_Info_list_add(inner, PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIx_Info_list_add(inner, PMIX_APP_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_list_add(inner, PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    if (job->bindings != NULL && job->bindings[r].locality != NULL) {
        PMIx_Info_list_add(inner, PMIX_LOCALITY_STRING, job->bindings[r].locality, PMIX_STRING);
    }
    return add_array(list, PMIX_PROC_DATA, inner);
}

/* PMIX_NODE_INFO_ARRAY: one per (emulated) node, starting with its id and name. */
static pmix_status_t add_node_info(gdrun_job_t *job, void *list, int node)
{
    const gdrun_layout_t *l     = &job->layout;
    void                 *inner = PMIx_Info_list_start();
    char                 *peers = gdrun_layout_node_peers(l, node);
    uint32_t              nodeid = (uint32_t)node, size = (uint32_t)l->node_size[node];
    pmix_rank_t           leader = (pmix_rank_t)l->node_first[node];
    pmix_status_t         rc;

    if (inner == NULL || peers == NULL) {
        free(peers);
        if (inner != NULL) {
            PMIx_Info_list_release(inner);
        }
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_list_add(inner, PMIX_NODEID, &nodeid, PMIX_UINT32);
    PMIx_Info_list_add(inner, PMIX_HOSTNAME, l->node_name[node], PMIX_STRING);
    PMIx_Info_list_add(inner, PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    PMIx_Info_list_add(inner, PMIX_NODE_SIZE, &size, PMIX_UINT32);
    PMIx_Info_list_add(inner, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIx_Info_list_add(inner, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    rc = add_array(list, PMIX_NODE_INFO_ARRAY, inner);
    free(peers);
    return rc;
}

/* Locality strings need the server's topology, so they are made after PMIx_server_init. */
static void make_locality_strings(gdrun_job_t *job)
{
    for (int r = 0; job->bindings != NULL && r < job->opt.np; r++) {
        pmix_cpuset_t cpuset = {.source = "hwloc", .bitmap = job->bindings[r].hwloc_set};
        pmix_status_t rc     = PMIx_server_generate_locality_string(&cpuset, &job->bindings[r].locality);

        if (rc != PMIX_SUCCESS) {
            gdrun_debug(job, "no locality string for rank %d: %s", r, PMIx_Error_string(rc));
            job->bindings[r].locality = NULL;
        }
    }
}

static pmix_status_t add_maps(gdrun_job_t *job, void *list)
{
    char         *nodes = gdrun_layout_node_list(&job->layout);
    char         *procs = gdrun_layout_proc_map(&job->layout);
    char         *node_regex = NULL, *proc_regex = NULL;
    pmix_status_t rc = PMIX_ERR_NOMEM;

    if (nodes != NULL && procs != NULL && (rc = PMIx_generate_regex(nodes, &node_regex)) == PMIX_SUCCESS &&
        (rc = PMIx_generate_ppn(procs, &proc_regex)) == PMIX_SUCCESS) {
        PMIx_Info_list_add(list, PMIX_NODE_MAP, node_regex, PMIX_REGEX);
        PMIx_Info_list_add(list, PMIX_PROC_MAP, proc_regex, PMIX_REGEX);
    }
    free(node_regex);
    free(proc_regex);
    free(nodes);
    free(procs);
    return rc;
}

int gdrun_pmix_register_job(gdrun_job_t *job)
{
    void             *list = PMIx_Info_list_start();
    uint32_t          size = (uint32_t)job->opt.np, nnodes = (uint32_t)job->layout.nnodes, napps = 1;
    pmix_data_array_t darray;
    op_wait_t         wait;
    pmix_status_t     rc;

    if (list == NULL) {
        return pmix_failed("info list", PMIX_ERR_NOMEM);
    }
    make_locality_strings(job);
    PMIx_Info_list_add(list, PMIX_JOBID, job->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_MAX_PROCS, &size, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    rc = add_maps(job, list);
    for (int node = 0; rc == PMIX_SUCCESS && node < job->layout.nnodes; node++) {
        rc = add_node_info(job, list, node);
    }
    for (int r = 0; rc == PMIX_SUCCESS && r < job->opt.np; r++) {
        rc = add_rank_info(job, list, r);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &darray);
    }
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("job description", rc);
    }
    /* Every rank is local to this server, whatever node it is told it is on. */
    op_wait_init(&wait);
    rc = PMIx_server_register_nspace(job->nspace, job->opt.np, darray.array, darray.size, op_wait_done, &wait);
    rc = op_wait_finish(&wait, rc);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("register_nspace", rc);
    }
    return 0;
}

int gdrun_pmix_setup_rank(gdrun_job_t *job, int rank, char ***env)
{
    pmix_proc_t   proc;
    op_wait_t     wait;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, job->nspace, (pmix_rank_t)rank);
    /* The client must not connect before its registration completed: wait for it. */
    op_wait_init(&wait);
    rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, op_wait_done, &wait);
    rc = op_wait_finish(&wait, rc);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("register_client", rc);
    }
    rc = PMIx_server_setup_fork(&proc, env);
    if (rc != PMIX_SUCCESS) {
        return pmix_failed("setup_fork", rc);
    }
    return 0;
}

/* Drop what is still queued without completing it (the library is gone). */
static void discard_upcalls(void)
{
    for (upcall_t *u = upcall_take_all(), *next; u != NULL; u = next) {
        next = u->next;
        upcall_free(u);
    }
}

/* PMIx's teardown, on a thread of its own so that gdrun can give up on it: PMIx 4.2 has
 * been seen to hang in it after ranks died at the wrong moment (openpmix #1233). */
static void *teardown_thread(void *arg)
{
    op_wait_t *done = arg;
    op_wait_t  wait;

    op_wait_init(&wait);
    PMIx_server_deregister_nspace(the_job->nspace, op_wait_done, &wait);
    (void)op_wait_finish(&wait, PMIX_SUCCESS);
    PMIx_server_finalize();
    op_wait_done(PMIX_SUCCESS, done);
    return NULL;
}

/* 0 once the server is down; -1 when it did not come down in time (then the teardown
 * thread and its record are left to the process's exit). */
static int teardown_server(gdrun_job_t *job)
{
    op_wait_t      *done = malloc(sizeof(*done));
    pthread_t       thread;
    struct timespec deadline;
    int             finished;

    if (done == NULL) {
        return -1;
    }
    op_wait_init(done);
    if (pthread_create(&thread, NULL, teardown_thread, done) != 0) {
        free(done);
        return -1;
    }
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += GDRUN_PMIX_TEARDOWN_S;
    pthread_mutex_lock(&done->lock);
    while (!done->done && pthread_cond_timedwait(&done->cond, &done->lock, &deadline) == 0) {
    }
    finished = done->done;
    pthread_mutex_unlock(&done->lock);
    if (!finished) {
        pthread_detach(thread);
        gdrun_msg("warning: the PMIx server library did not shut down within %d s; leaving it",
                  GDRUN_PMIX_TEARDOWN_S);
        return -1;
    }
    pthread_join(thread, NULL);
    (void)op_wait_finish(done, PMIX_OPERATION_SUCCEEDED);
    free(done);
    gdrun_debug(job, "PMIx server down");
    return 0;
}

int gdrun_pmix_finalize(gdrun_job_t *job)
{
    if (server_up) {
        /* After ranks were killed, PMIx 4.2 may hang or crash in its teardown (a client
         * that died in its connection handshake leaves a freed peer behind): the job is
         * over and its files are gdrun's to remove, so the library is left to the exit. */
        if (job->ending) {
            gdrun_debug(job, "ranks were ended: exiting without shutting the PMIx library down");
            return -1;
        }
        /* Complete what the ranks left behind (a finalize from a rank killed meanwhile). */
        gdrun_pmix_process_upcalls(job);
        server_up = 0;
        if (teardown_server(job) != 0) {
            return -1; /* the library may still call in: leave its event and queue alone */
        }
    }
    discard_upcalls();
    if (upcall_event != NULL) {
        event_free(upcall_event);
        upcall_event = NULL;
    }
    return 0;
}
