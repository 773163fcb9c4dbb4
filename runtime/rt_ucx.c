#include "rt_ucx.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gdc.h>

#include "rt_boot.h"
#include "rt_config.h"
#include "rt_log.h"
#include "rt_msg.h"

typedef struct gdc_rt_peer {
    ucp_ep_h ep;
    int      failed;
    int      watched;  /* its pids are this host's: liveness checked by pid */
    pid_t    pid;
    unsigned checked_round;
    char     transports[96];
} gdc_rt_peer_t;

/* What each rank publishes through PMIx: its pid, then its UCX worker address. */
typedef struct gdc_rt_address_header {
    uint32_t magic;
    int32_t  pid;
    uint64_t pid_space; /* whose pids these are: host_pid_space(), 0 if unknown */
} gdc_rt_address_header_t;

#define GDC_RT_ADDRESS_MAGIC 0x67616465u /* "gade" */

static struct {
    ucp_context_h  context;
    ucp_worker_h   worker;
    ucp_address_t *address;
    size_t         address_len;
    gdc_rt_peer_t *peers; /* [world size] */
    int            handles_cuda;
    int            shm_error_handling; /* UCX keeps shared memory on endpoints with error handling */
    uint64_t       pid_space;          /* host_pid_space() */
    unsigned       num_failed;         /* peers known failed so far */
    int            closing;            /* in gdc_finalize's closing barrier: see gdc_rt_ucx_closing */
    char           version[32];
} ucx;

static gdc_status_t ucx_error(const char *what, ucs_status_t status)
{
    GDC_LOG_ERROR("UCX %s failed: %s", what, ucs_status_string(status));
    return GDC_ERR_TRANSPORT;
}

/* UCX leaves its shared-memory transports out of an endpoint with peer error handling
 * unless their ERROR_HANDLING option is on; with it on they check a peer's liveness
 * through its shared-memory file. Turned on here unless the user set it: then a peer of
 * this node gets UCX's error handling too, and a peer that dies while this rank reads its
 * memory is a failed peer (GDC_ERR_PEER_FAILED), not an abort inside UCX's cross-memory
 * attach. UCX reads transport options from the environment only (ucp_config_modify does
 * not reach them in UCX 1.13), so that is where they are set, before ucp_init. */
int gdc_rt_ucx_keep_shm_with_error_handling(void)
{
    static const char *const options[] = {"UCX_POSIX_ERROR_HANDLING", "UCX_SYSV_ERROR_HANDLING"};
    int                      kept      = 1;

    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        const char *set = getenv(options[i]);

        if (set != NULL) {
            kept &= set[0] == 'y' || set[0] == 'Y' || set[0] == '1';
        } else if (setenv(options[i], "y", 0) != 0) {
            GDC_LOG_WARN("cannot set %s=y (%s): peers on this node are watched by pid, without UCX's error "
                         "handling", options[i], strerror(errno));
            kept = 0;
        }
    }
    return kept;
}

static gdc_status_t create_context(void)
{
    ucp_params_t  params;
    ucp_config_t *config;
    ucs_status_t  status;

    ucx.shm_error_handling = gdc_rt_ucx_keep_shm_with_error_handling();
    status                 = ucp_config_read(NULL, NULL, &config);
    if (status != UCS_OK) {
        return ucx_error("config read", status);
    }
    memset(&params, 0, sizeof(params));
    params.field_mask        = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                               UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features          = UCP_FEATURE_TAG;
    params.mt_workers_shared = 0;
    params.estimated_num_eps = (size_t)gdc_rt_boot.size;
    status = ucp_init(&params, config, &ucx.context);
    ucp_config_release(config);
    if (status != UCS_OK) {
        return ucx_error("init", status);
    }
    return GDC_SUCCESS;
}

static void query_context(void)
{
    ucp_context_attr_t attr;
    unsigned           major, minor, release;

    ucp_get_version(&major, &minor, &release);
    snprintf(ucx.version, sizeof(ucx.version), "%u.%u.%u", major, minor, release);
    memset(&attr, 0, sizeof(attr));
    attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
    if (ucp_context_query(ucx.context, &attr) == UCS_OK) {
        ucx.handles_cuda = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
    }
    GDC_LOG_DEBUG("UCX %s; CUDA memory %s", ucx.version,
                  ucx.handles_cuda ? "handled by UCX" : "not handled by UCX (staged through host)");
}

static gdc_status_t create_worker(void)
{
    ucp_worker_params_t params;
    ucs_status_t        status;

    memset(&params, 0, sizeof(params));
    params.field_mask  = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    params.thread_mode = UCS_THREAD_MODE_SINGLE;
    status = ucp_worker_create(ucx.context, &params, &ucx.worker);
    if (status != UCS_OK) {
        return ucx_error("worker create", status);
    }
    status = ucp_worker_get_address(ucx.worker, &ucx.address, &ucx.address_len);
    if (status != UCS_OK) {
        ucp_worker_destroy(ucx.worker);
        ucx.worker = NULL;
        return ucx_error("worker address", status);
    }
    return GDC_SUCCESS;
}

/* Where a pid means the same process as here: the kernel's boot (this host) and the pid
 * namespace. Emulated nodes of one host share it, so their ranks can watch each other's
 * pids as well; 0 when it cannot be told. */
static uint64_t host_pid_space(void)
{
    char        boot[64] = "";
    struct stat ns;
    FILE       *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    uint64_t    h = 1469598103934665603ull; /* FNV-1a */

    if (f == NULL) {
        return 0;
    }
    if (fgets(boot, sizeof(boot), f) == NULL) {
        boot[0] = '\0';
    }
    fclose(f);
    if (boot[0] == '\0' || stat("/proc/self/ns/pid", &ns) != 0) {
        return 0;
    }
    for (const char *c = boot; *c != '\0' && *c != '\n'; c++) {
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    }
    h = (h ^ (uint64_t)ns.st_ino) * 1099511628211ull;
    h = (h ^ (uint64_t)ns.st_dev) * 1099511628211ull;
    return h != 0 ? h : 1;
}

static gdc_status_t publish_address(void)
{
    size_t                   len  = sizeof(gdc_rt_address_header_t) + ucx.address_len;
    gdc_rt_address_header_t *blob = malloc(len);
    gdc_status_t             status;

    if (blob == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    blob->magic = GDC_RT_ADDRESS_MAGIC;
    blob->pid       = (int32_t)getpid();
    blob->pid_space = ucx.pid_space;
    memcpy(blob + 1, ucx.address, ucx.address_len);
    status = gdc_rt_boot_publish_address(blob, len);
    free(blob);
    return status;
}

gdc_status_t gdc_rt_ucx_init(void)
{
    gdc_status_t status;

    memset(&ucx, 0, sizeof(ucx));
    ucx.peers = calloc((size_t)gdc_rt_boot.size, sizeof(*ucx.peers));
    if (ucx.peers == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    ucx.pid_space = host_pid_space();
    status        = create_context();
    if (status != GDC_SUCCESS) {
        goto err_free_peers;
    }
    query_context();
    status = create_worker();
    if (status != GDC_SUCCESS) {
        goto err_cleanup_context;
    }
    status = publish_address();
    if (status != GDC_SUCCESS) {
        goto err_destroy_worker;
    }
    return GDC_SUCCESS;

err_destroy_worker:
    ucp_worker_release_address(ucx.worker, ucx.address);
    ucp_worker_destroy(ucx.worker);
err_cleanup_context:
    ucp_cleanup(ucx.context);
err_free_peers:
    free(ucx.peers);
    memset(&ucx, 0, sizeof(ucx));
    return status;
}

ucp_worker_h gdc_rt_ucx_worker(void)
{
    return ucx.worker;
}

int gdc_rt_ucx_handles_cuda(void)
{
    return ucx.handles_cuda;
}

const char *gdc_rt_ucx_version(void)
{
    if (ucx.version[0] == '\0') {
        unsigned major, minor, release;
        ucp_get_version(&major, &minor, &release);
        snprintf(ucx.version, sizeof(ucx.version), "%u.%u.%u", major, minor, release);
    }
    return ucx.version;
}

int gdc_rt_ucx_peer_failed(int peer_world)
{
    return ucx.peers != NULL && ucx.peers[peer_world].failed;
}

unsigned gdc_rt_ucx_failures(void)
{
    return ucx.num_failed;
}

void gdc_rt_ucx_fail_peer(int peer_world, const char *why)
{
    gdc_rt_peer_t *peer = &ucx.peers[peer_world];

    if (peer->failed) {
        return;
    }
    peer->failed = 1;
    ucx.num_failed++;
    if (ucx.closing) {
        /* gdc_finalize's barrier decides whether this is a failure (gdc_rt_ucx_closing) */
        GDC_LOG_INFO("rank %d is gone (%s) while this rank waits at the job's closing barrier", peer_world, why);
    } else {
        GDC_LOG_ERROR("rank %d failed (%s); operations that depend on it end with GDC_ERR_PEER_FAILED",
                      peer_world, why);
    }
    gdc_rt_msg_pending_fail_peer(peer_world);
}

void gdc_rt_ucx_closing(int closing)
{
    ucx.closing = closing;
}

static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    int peer_world = (int)(intptr_t)arg;

    gdc_rt_ucx_fail_peer(peer_world, ucs_status_string(status));
}

/* "2:posix/memory.0 md[2] -> ..." lines of ucp_ep_print_info: keep "posix/memory", once each. */
static void describe_transports(ucp_ep_h ep, char *out, size_t out_len)
{
    char  *text = NULL;
    size_t text_len = 0;
    FILE  *stream = open_memstream(&text, &text_len);
    size_t used = 0;

    out[0] = '\0';
    if (stream == NULL) {
        return;
    }
    ucp_ep_print_info(ep, stream);
    fclose(stream);
    for (char *p = strstr(text, "lane["); p != NULL; p = strstr(p + 1, "lane[")) {
        char name[64];
        char *colon = strchr(p, ':');
        char *tl;

        if (colon == NULL || sscanf(colon + 1, " %*d:%63s", name) != 1) {
            continue;
        }
        tl = strrchr(name, '.');
        if (tl != NULL) {
            *tl = '\0'; /* "posix/memory.0" -> "posix/memory" */
        }
        if (strstr(out, name) == NULL && used + strlen(name) + 2 < out_len) {
            used += (size_t)snprintf(out + used, out_len - used, "%s%s", used ? " " : "", name);
        }
    }
    free(text);
}

/*
 * UCX error handling for every peer where it keeps shared memory inside the node
 * (gdc_rt_ucx_keep_shm_with_error_handling); where the user turned that off, peers on this node keep
 * shared memory without it and are watched by pid (gdc_rt_ucx_watch_peers) unless
 * GDC_ERR_MODE=peer, which then trades shared memory for TCP loopback.
 */
static int wants_ucx_error_handling(int peer_world)
{
    int same_node = gdc_rt_boot.node_of[peer_world] == gdc_rt_boot.node_of[gdc_rt_boot.rank];

    return !same_node || ucx.shm_error_handling || gdc_rt_config.err_mode == GDC_RT_ERR_MODE_PEER;
}

static gdc_status_t lookup_peer(int peer_world, void **address, pid_t *pid, uint64_t *pid_space)
{
    void   *blob;
    size_t  len;
    gdc_status_t status;
    gdc_rt_address_header_t header;

    if (peer_world == gdc_rt_boot.rank) {
        *address   = ucx.address;
        *pid       = getpid();
        *pid_space = ucx.pid_space;
        return GDC_SUCCESS;
    }
    status = gdc_rt_boot_lookup_address(peer_world, &blob, &len);
    if (status != GDC_SUCCESS) {
        return status;
    }
    memcpy(&header, blob, len >= sizeof(header) ? sizeof(header) : 0);
    if (len <= sizeof(header) || header.magic != GDC_RT_ADDRESS_MAGIC) {
        GDC_LOG_ERROR("rank %d published an address gdc does not recognise (another gdc version?)",
                      peer_world);
        free(blob);
        return GDC_ERR_TRANSPORT;
    }
    *pid       = (pid_t)header.pid;
    *pid_space = header.pid_space;
    memmove(blob, (char *)blob + sizeof(header), len - sizeof(header));
    *address = blob;
    return GDC_SUCCESS;
}

static gdc_status_t connect_peer(int peer_world)
{
    gdc_rt_peer_t  *peer = &ucx.peers[peer_world];
    ucp_ep_params_t params;
    void           *address = NULL;
    ucs_status_t    ustatus;
    gdc_status_t    status;
    int             handled = wants_ucx_error_handling(peer_world);
    uint64_t        pid_space;

    status = lookup_peer(peer_world, &address, &peer->pid, &pid_space);
    if (status != GDC_SUCCESS) {
        return status;
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    params.address    = address;
    params.err_mode   = handled ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
    if (handled) {
        params.field_mask     |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
        params.err_handler.cb  = on_ep_error;
        params.err_handler.arg = (void *)(intptr_t)peer_world;
    }
    /* UCX sees a dead peer on shared memory only at its next keepalive (20 s by default):
     * the pid says it at once, for every peer whose pids are this host's (the ranks of
     * other emulated nodes too, which UCX reaches through shared memory as well) */
    peer->watched = peer_world != gdc_rt_boot.rank &&
                    (gdc_rt_boot.node_of[peer_world] == gdc_rt_boot.node_of[gdc_rt_boot.rank] ||
                     (pid_space != 0 && pid_space == ucx.pid_space));
    ustatus = ucp_ep_create(ucx.worker, &params, &peer->ep);
    if (address != ucx.address) {
        free(address);
    }
    if (ustatus != UCS_OK) {
        peer->ep = NULL;
        /* a peer that died before we first spoke to it: its shared memory is gone too */
        if (gdc_rt_ucx_peer_check(peer_world)) {
            return GDC_ERR_PEER_FAILED;
        }
        GDC_LOG_ERROR("cannot connect to rank %d: %s", peer_world, ucs_status_string(ustatus));
        return GDC_ERR_TRANSPORT;
    }
    describe_transports(peer->ep, peer->transports, sizeof(peer->transports));
    GDC_LOG_INFO("rank %d -> rank %d via UCX %s (%s%s)", gdc_rt_boot.rank, peer_world, peer->transports,
                 handled ? "UCX peer error handling" : peer->watched ? "without UCX error handling" : "self",
                 peer->watched ? ", liveness watched by pid" : "");
    return GDC_SUCCESS;
}

/*
 * Is the process still there? A zombie (exited, not yet reaped) counts as gone, and so does
 * a process already inside exit (PF_EXITING in /proc/<pid>/stat's flags): a SIGKILLed rank
 * closes its descriptors, and UCX reports its shared memory broken, some time before it
 * becomes a zombie.
 */
#define GDC_RT_PF_EXITING 0x4u /* include/linux/sched.h */

static int process_alive(pid_t pid)
{
    char  path[64], buf[512];
    FILE *f;
    char *close_paren;
    char  state;
    unsigned long flags;

    if (kill(pid, 0) != 0 && errno == ESRCH) {
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (f == NULL) {
        return errno != ENOENT;
    }
    close_paren = NULL;
    if (fgets(buf, sizeof(buf), f) != NULL) {
        close_paren = strrchr(buf, ')');
    }
    fclose(f);
    /* ") S ppid pgrp session tty_nr tpgid flags" */
    if (close_paren == NULL || sscanf(close_paren + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2) {
        return 1;
    }
    return state != 'Z' && state != 'X' && (flags & GDC_RT_PF_EXITING) == 0;
}

int gdc_rt_ucx_peer_check(int peer_world)
{
    gdc_rt_peer_t *peer = &ucx.peers[peer_world];

    if (peer->watched && !peer->failed && !process_alive(peer->pid)) {
        char why[64];
        snprintf(why, sizeof(why), "process %d on this host is gone", (int)peer->pid);
        gdc_rt_ucx_fail_peer(peer_world, why);
    }
    return peer->failed;
}

void gdc_rt_ucx_watch_peer(int peer_world, unsigned round)
{
    gdc_rt_peer_t *peer = &ucx.peers[peer_world];

    if (peer->checked_round == round) {
        return;
    }
    peer->checked_round = round;
    (void)gdc_rt_ucx_peer_check(peer_world);
}

ucp_ep_h gdc_rt_ucx_ep(int peer_world, gdc_status_t *status)
{
    gdc_rt_peer_t *peer = &ucx.peers[peer_world];

    if (peer->failed) {
        *status = GDC_ERR_PEER_FAILED;
        return NULL;
    }
    if (peer->ep == NULL) {
        *status = connect_peer(peer_world);
        if (*status != GDC_SUCCESS) {
            return NULL;
        }
    }
    return peer->ep;
}

const char *gdc_rt_ucx_transports(int peer_world)
{
    return ucx.peers != NULL ? ucx.peers[peer_world].transports : "";
}

static ucs_status_t wait_ucx(ucs_status_ptr_t request)
{
    ucs_status_t status;

    if (request == NULL) {
        return UCS_OK;
    }
    if (UCS_PTR_IS_ERR(request)) {
        return UCS_PTR_STATUS(request);
    }
    while ((status = ucp_request_check_status(request)) == UCS_INPROGRESS) {
        gdc_rt_ucx_worker_progress();
    }
    ucp_request_free(request);
    return status;
}

/* UCX calls gdc back (completions, endpoint errors) only from inside ucp_worker_progress,
 * and a callback may not progress the worker again. */
static int progress_depth;

unsigned gdc_rt_ucx_worker_progress(void)
{
    unsigned events;

    progress_depth++;
    events = ucp_worker_progress(ucx.worker);
    progress_depth--;
    return events;
}

int gdc_rt_ucx_in_callback(void)
{
    return progress_depth > 0;
}

void gdc_rt_ucx_progress(void)
{
    if (ucx.worker != NULL) {
        gdc_rt_ucx_worker_progress();
    }
}

gdc_status_t gdc_rt_ucx_flush(void)
{
    ucp_request_param_t param;
    ucs_status_t        status;

    if (ucx.worker == NULL) {
        return GDC_SUCCESS;
    }
    memset(&param, 0, sizeof(param));
    status = wait_ucx(ucp_worker_flush_nbx(ucx.worker, &param));
    if (status != UCS_OK) {
        GDC_LOG_DEBUG("UCX worker flush: %s", ucs_status_string(status));
        return GDC_ERR_TRANSPORT;
    }
    return GDC_SUCCESS;
}

void gdc_rt_ucx_finalize(void)
{
    ucp_request_param_t param;

    if (ucx.worker == NULL) {
        return;
    }
    gdc_rt_msg_pending_cancel_all(GDC_ERR_INTERNAL);
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* Everyone has passed the finalize barrier: nothing is in flight, so force-close
     * (a flushing close could wait for a peer that already tore its worker down). */
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    for (int r = 0; r < gdc_rt_boot.size; r++) {
        if (ucx.peers[r].ep != NULL) {
            (void)wait_ucx(ucp_ep_close_nbx(ucx.peers[r].ep, &param));
            ucx.peers[r].ep = NULL;
        }
    }
    ucp_worker_release_address(ucx.worker, ucx.address);
    ucp_worker_destroy(ucx.worker);
    ucp_cleanup(ucx.context);
    free(ucx.peers);
    memset(&ucx, 0, sizeof(ucx));
}
