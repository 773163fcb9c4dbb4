#include "rt_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gdc.h>

#include "rt_cuda_ipc.h"
#include "rt_log.h"

#define GDC_RT_SHM_MAGIC  0x67647368u /* "gdsh" */
#define GDC_RT_SHM_HEADER 4096        /* the data area starts page-aligned */

/* The counters are GDC_RT_SHM_COUNTER_STRIDE words apart (rt_shm.h's inline accessors). */
struct gdc_rt_shm_segment {
    uint64_t magic;
    uint64_t data_bytes;
    uint64_t cookie; /* the owner's locator's */
    uint64_t self;   /* where the owner maps it: peers test cross-memory attach on it */
    char     pad[32];
    struct {
        volatile uint64_t value;
        char              pad[56]; /* one cache line each: owners write them all the time */
    } counters[GDC_RT_SHM_COUNTERS + 1]; /* and the progress word (GDC_RT_SHM_PROGRESS) */
    /* the owner's user buffers of its current call, for peers that copy from or into them
     * by cross-memory attach (gdc_rt_shm_publish_user) */
    volatile uint64_t user[2];
    /* the same as CUDA IPC exports, for device buffers (gdc_rt_shm_publish_user_ipc) */
    struct {
        int32_t                  status; /* GDC_SUCCESS, or why there is no export */
        int32_t                  pad;
        gdc_rt_cuda_ipc_export_t exp;
    } user_ipc[2];
    /* the owner's told messages (rt_msg.c): how many it has withdrawn, on a line of its own
     * (written only then: its readers keep it cached), and the words of those in flight */
    struct {
        _Alignas(64) volatile uint64_t count;
        char                           pad[56];
    } withdrawals;
    volatile uint64_t tales[GDC_RT_SHM_TALES];
};
_Static_assert(sizeof(struct gdc_rt_shm_segment) <= 4096, "the segment's header fits before its data area");

size_t gdc_rt_shm_bytes;

static gdc_status_t index_segments(gdc_rt_shm_t *shm);

/* The header, the data area, then the ring of small calls' slots. */
static size_t total_bytes(size_t data_bytes)
{
    return GDC_RT_SHM_HEADER + gdc_rt_shm_ring_offset(data_bytes) + GDC_RT_SHM_RING_BYTES;
}

/* Unique to this segment among those a peer could open by mistake. */
static uint64_t new_cookie(void)
{
    static uint64_t made;
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    return ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^ ((uint64_t)getpid() << 40) ^ (++made << 20);
}

gdc_status_t gdc_rt_shm_create(gdc_rt_shm_t *shm, const char *label)
{
    size_t                total = total_bytes(gdc_rt_shm_bytes);
    gdc_rt_shm_segment_t *seg;
    int                   fd;

    memset(shm, 0, sizeof(*shm));
    shm->fd = -1;
    /* Under Yama's ptrace_scope 1 only an ancestor may read our memory by cross-memory
     * attach; the node's other ranks are not: let them (as Open MPI's shared-memory
     * transport does). Without Yama this fails harmlessly. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fd      = memfd_create(label, MFD_CLOEXEC);
    if (fd < 0) {
        GDC_LOG_WARN_ONCE("cannot create shared memory (memfd_create): %s; on-node collectives use messages only",
                          strerror(errno));
        return GDC_ERR_UNSUPPORTED;
    }
    if (ftruncate(fd, (off_t)total) != 0) {
        GDC_LOG_WARN_ONCE("cannot size shared memory to %zu bytes: %s; on-node collectives use messages only",
                          total, strerror(errno));
        goto err_close;
    }
    seg = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        GDC_LOG_WARN_ONCE("cannot map shared memory: %s; on-node collectives use messages only", strerror(errno));
        goto err_close;
    }
    seg->data_bytes = gdc_rt_shm_bytes;
    seg->cookie     = new_cookie();
    seg->self       = (uint64_t)(uintptr_t)seg;
    __atomic_store_n(&seg->magic, GDC_RT_SHM_MAGIC, __ATOMIC_RELEASE);
    shm->segments = calloc(1, sizeof(*shm->segments));
    if (shm->segments == NULL) {
        munmap(seg, total);
        close(fd);
        return GDC_ERR_NO_MEMORY;
    }
    shm->segments[0] = seg;
    shm->fd          = fd;
    shm->data_bytes  = gdc_rt_shm_bytes;
    shm->local_size  = 1;
    return index_segments(shm);

err_close:
    close(fd);
    return GDC_ERR_UNSUPPORTED;
}

gdc_rt_shm_locator_t gdc_rt_shm_locator(const gdc_rt_shm_t *shm)
{
    gdc_rt_shm_locator_t where = {0, -1, 0};

    if (shm != NULL && shm->fd >= 0) {
        where.pid    = (int32_t)getpid();
        where.fd     = shm->fd;
        where.cookie = shm->segments[shm->local_index]->cookie;
    }
    return where;
}

static gdc_rt_shm_segment_t *map_peer(int rank, const gdc_rt_shm_locator_t *where, size_t data_bytes)
{
    gdc_rt_shm_segment_t *seg;
    struct stat           st;
    char                  path[64];
    int                   fd;

    if (where->pid <= 0) {
        GDC_LOG_WARN_ONCE("rank %d has no shared memory (see its warnings)", rank);
        return NULL;
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)where->pid, (int)where->fd);
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
        GDC_LOG_WARN_ONCE("cannot open rank %d's shared memory %s: %s (a process gdc may not look into, or in "
                          "another pid namespace?)", rank, path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != total_bytes(data_bytes)) {
        GDC_LOG_WARN_ONCE("rank %d's shared memory %s has an unexpected size (another GDC_SHM_SIZE?)", rank, path);
        close(fd);
        return NULL;
    }
    seg = mmap(NULL, total_bytes(data_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED) {
        GDC_LOG_WARN_ONCE("cannot map rank %d's shared memory: %s", rank, strerror(errno));
        return NULL;
    }
    if (__atomic_load_n(&seg->magic, __ATOMIC_ACQUIRE) != GDC_RT_SHM_MAGIC || seg->cookie != where->cookie) {
        GDC_LOG_WARN_ONCE("%s is not rank %d's shared memory (a pid of another pid namespace?)", path, rank);
        munmap(seg, total_bytes(data_bytes));
        return NULL;
    }
    return seg;
}

/* Can I read every peer's memory by cross-memory attach? Read the magic of its segment
 * where it maps it. */
static int cma_works(const gdc_rt_shm_t *shm)
{
    for (int i = 0; i < shm->local_size; i++) {
        uint64_t     magic  = 0;
        struct iovec local  = {&magic, sizeof(magic)};
        struct iovec remote = {(void *)(uintptr_t)(shm->segments[i]->self + offsetof(gdc_rt_shm_segment_t, magic)),
                               sizeof(magic)};

        if (i == shm->local_index) {
            continue;
        }
        if (process_vm_readv(shm->pids[i], &local, 1, &remote, 1, 0) != (ssize_t)sizeof(magic) ||
            magic != GDC_RT_SHM_MAGIC) {
            GDC_LOG_WARN_ONCE("cross-memory attach to rank %d (pid %d) does not work (%s): collectives inside a "
                              "node copy through shared memory only, and host messages to the node's ranks go "
                              "through UCX's (ptrace rights: kernel.yama.ptrace_scope, a container's seccomp profile)",
                              shm->local_ranks[i], (int)shm->pids[i], magic != 0 ? "wrong data" : strerror(errno));
            return 0;
        }
    }
    return 1;
}

gdc_status_t gdc_rt_shm_attach(gdc_rt_shm_t *shm, int local_size, int local_index, const int *local_ranks,
                               const gdc_rt_shm_locator_t *where)
{
    gdc_rt_shm_segment_t  *mine = shm->segments[0];
    gdc_rt_shm_segment_t **segs = calloc((size_t)local_size, sizeof(*segs));
    int                   *ranks = malloc((size_t)local_size * sizeof(int));

    if (segs == NULL || ranks == NULL) {
        free(segs);
        free(ranks);
        return GDC_ERR_NO_MEMORY;
    }
    memcpy(ranks, local_ranks, (size_t)local_size * sizeof(int));
    free(shm->segments);
    shm->segments    = segs;
    shm->local_ranks = ranks;
    shm->local_size  = local_size;
    shm->local_index = local_index;
    segs[local_index] = mine;
    for (int i = 0; i < local_size; i++) {
        if (i != local_index && (segs[i] = map_peer(local_ranks[i], &where[i], shm->data_bytes)) == NULL) {
            return GDC_ERR_UNSUPPORTED;
        }
    }
    if ((shm->pids = malloc((size_t)local_size * sizeof(*shm->pids))) == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (int i = 0; i < local_size; i++) {
        shm->pids[i] = i == local_index ? (int32_t)getpid() : where[i].pid;
    }
    shm->cma = cma_works(shm);
    return index_segments(shm);
}

void gdc_rt_shm_close_handle(gdc_rt_shm_t *shm)
{
    if (shm->fd >= 0) {
        close(shm->fd);
        shm->fd = -1;
    }
}

void gdc_rt_shm_destroy(gdc_rt_shm_t *shm)
{
    gdc_rt_shm_close_handle(shm);
    gdc_rt_cuda_ipc_cache_destroy(shm->ipc_cache);
    for (int i = 0; shm->segments != NULL && i < shm->local_size; i++) {
        if (shm->segments[i] != NULL) {
            munmap(shm->segments[i], total_bytes(shm->data_bytes));
        }
    }
    free(shm->segments);
    free(shm->local_ranks);
    free(shm->pids);
    free(shm->data);
    free((void *)shm->counters);
    free(shm->seen);
    memset(shm, 0, sizeof(*shm));
    shm->fd = -1;
}

/* The pointers the accessors use, once the segments are mapped. */
static gdc_status_t index_segments(gdc_rt_shm_t *shm)
{
    free(shm->data);
    free((void *)shm->counters);
    free(shm->seen);
    shm->data     = malloc((size_t)shm->local_size * sizeof(*shm->data));
    shm->counters = malloc((size_t)shm->local_size * sizeof(*shm->counters));
    shm->seen     = calloc((size_t)shm->local_size * GDC_RT_SHM_COUNTERS, sizeof(*shm->seen));
    if (shm->data == NULL || shm->counters == NULL || shm->seen == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (int i = 0; i < shm->local_size; i++) {
        shm->data[i]     = shm->segments[i] != NULL ? (char *)shm->segments[i] + GDC_RT_SHM_HEADER : NULL;
        shm->counters[i] = shm->segments[i] != NULL ? &shm->segments[i]->counters[0].value : NULL;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_shm_init_private(gdc_rt_shm_t *shms, int n, size_t data_bytes)
{
    gdc_rt_shm_segment_t **segs = calloc((size_t)n, sizeof(*segs));

    if (segs == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        if (posix_memalign((void **)&segs[i], GDC_RT_SHM_HEADER, total_bytes(data_bytes)) != 0) {
            for (int j = 0; j < i; j++) {
                free(segs[j]);
            }
            free(segs);
            return GDC_ERR_NO_MEMORY;
        }
        memset(segs[i], 0, GDC_RT_SHM_HEADER);
        segs[i]->magic      = GDC_RT_SHM_MAGIC;
        segs[i]->data_bytes = data_bytes;
        segs[i]->self       = (uint64_t)(uintptr_t)segs[i];
    }
    for (int i = 0; i < n; i++) {
        memset(&shms[i], 0, sizeof(shms[i]));
        shms[i].fd          = -1;
        shms[i].local_size  = n;
        shms[i].local_index = i;
        shms[i].data_bytes  = data_bytes;
        shms[i].segments    = segs; /* shared: freed once, by gdc_rt_shm_free_private */
        shms[i].pids        = malloc((size_t)n * sizeof(*shms[i].pids));
        if (shms[i].pids == NULL || index_segments(&shms[i]) != GDC_SUCCESS) {
            return GDC_ERR_NO_MEMORY;
        }
        for (int j = 0; j < n; j++) {
            shms[i].pids[j] = (int32_t)getpid(); /* every rank is this process */
        }
        shms[i].cma = 1;
        gdc_rt_shm_clear_stamps(&shms[i], i); /* memory from malloc, not a fresh memfd */
    }
    return GDC_SUCCESS;
}

void gdc_rt_shm_free_private(gdc_rt_shm_t *shms, int n)
{
    if (n == 0 || shms[0].segments == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        free(shms[0].segments[i]);
    }
    free(shms[0].segments);
    for (int i = 0; i < n; i++) {
        gdc_rt_cuda_ipc_cache_destroy(shms[i].ipc_cache);
        free(shms[i].data);
        free(shms[i].pids);
        free((void *)shms[i].counters);
        free(shms[i].seen);
        memset(&shms[i], 0, sizeof(shms[i]));
    }
}

void gdc_rt_shm_publish_user(const gdc_rt_shm_t *shm, const void *input, void *output)
{
    gdc_rt_shm_segment_t *mine = shm->segments[shm->local_index];

    mine->user[GDC_RT_SHM_USER_INPUT]  = (uint64_t)(uintptr_t)input;
    mine->user[GDC_RT_SHM_USER_OUTPUT] = (uint64_t)(uintptr_t)output;
}

void gdc_rt_shm_publish_user_ipc(const gdc_rt_shm_t *shm, const void *input, const void *output)
{
    gdc_rt_shm_segment_t *mine = shm->segments[shm->local_index];
    const void           *bufs[2] = {input, output};
    gdc_rt_cu_context_t   pushed  = gdc_rt_cuda_push_owner(input != NULL ? input : output);

    for (int which = 0; which < 2; which++) {
        if (bufs[which] == NULL) {
            mine->user_ipc[which].status = GDC_ERR_INVALID_ARG;
            continue;
        }
        if (which == GDC_RT_SHM_USER_OUTPUT && bufs[0] == bufs[1]) {
            mine->user_ipc[which] = mine->user_ipc[GDC_RT_SHM_USER_INPUT]; /* in place */
            continue;
        }
        mine->user_ipc[which].status = gdc_rt_cuda_ipc_export(
            shm->ipc_ops != NULL ? shm->ipc_ops : &gdc_rt_cuda_ipc_driver_ops, bufs[which], &mine->user_ipc[which].exp);
    }
    gdc_rt_cuda_pop_owner(pushed);
}

gdc_status_t gdc_rt_shm_peer_map(const gdc_rt_shm_t *shm, int peer, int which, const void *near, void **ptr,
                                 struct gdc_rt_cuda_ipc_entry **entry)
{
    const gdc_rt_shm_segment_t *theirs = shm->segments[peer];
    gdc_rt_cuda_ipc_export_t    exp;
    gdc_rt_cu_context_t         pushed;
    gdc_status_t                status = (gdc_status_t)theirs->user_ipc[which].status;

    if (status == GDC_ERR_INVALID_ARG) {
        GDC_LOG_ERROR("internal: rank %d published no %s buffer for this call, which a step here reads",
                      shm->local_ranks != NULL ? shm->local_ranks[peer] : peer,
                      which == GDC_RT_SHM_USER_INPUT ? "input" : "output");
        return GDC_ERR_INTERNAL;
    }
    if (status != GDC_SUCCESS) {
        GDC_LOG_ERROR("rank %d's %s buffer cannot be mapped here: it has no CUDA IPC handle (%s; memory from "
                      "cuMemCreate or a memory pool has none: allocate it with cudaMalloc, or force another "
                      "algorithm with GDC_<COLL>_ALGO)",
                      shm->local_ranks != NULL ? shm->local_ranks[peer] : peer,
                      which == GDC_RT_SHM_USER_INPUT ? "input" : "output", gdc_strerror(status));
        return status;
    }
    if (shm->ipc_cache == NULL) {
        GDC_LOG_ERROR("no CUDA IPC cache on this communicator");
        return GDC_ERR_INTERNAL;
    }
    memcpy(&exp, (const void *)&theirs->user_ipc[which].exp, sizeof(exp));
    pushed = gdc_rt_cuda_push_owner(near);
    status = gdc_rt_cuda_ipc_acquire(shm->ipc_cache, peer, &exp, entry, ptr);
    gdc_rt_cuda_pop_owner(pushed);
    return status;
}

void gdc_rt_shm_peer_unmap(const gdc_rt_shm_t *shm, struct gdc_rt_cuda_ipc_entry *entry)
{
    if (entry != NULL) {
        gdc_rt_cuda_ipc_release(shm->ipc_cache, entry);
    }
}

void *gdc_rt_shm_peer_address(const gdc_rt_shm_t *shm, int peer, int which)
{
    return (void *)(uintptr_t)shm->segments[peer]->user[which];
}

gdc_status_t gdc_rt_shm_cma_move(int pid, int rank, void *local, void *remote, size_t length, int into_peer)
{
    while (length > 0) {
        struct iovec mine = {local, length}, theirs = {remote, length};
        ssize_t      moved = into_peer ? process_vm_writev(pid, &mine, 1, &theirs, 1, 0)
                                       : process_vm_readv(pid, &mine, 1, &theirs, 1, 0);

        if (moved <= 0) {
            int gone = moved < 0 && errno == ESRCH;

            GDC_LOG_ERROR("cross-memory attach %s rank %d (pid %d), %zu bytes: %s", into_peer ? "into" : "from",
                          rank, pid, length, moved < 0 ? strerror(errno) : "nothing moved");
            return gone ? GDC_ERR_PEER_FAILED : GDC_ERR_TRANSPORT;
        }
        local  = (char *)local + moved;
        remote = (char *)remote + moved;
        length -= (size_t)moved;
    }
    return GDC_SUCCESS;
}

volatile uint64_t *gdc_rt_shm_tale_words(const gdc_rt_shm_t *shm, int local_index)
{
    return shm->segments[local_index]->tales;
}

volatile uint64_t *gdc_rt_shm_tale_withdrawals(const gdc_rt_shm_t *shm, int local_index)
{
    return &shm->segments[local_index]->withdrawals.count;
}

gdc_status_t gdc_rt_shm_peer_copy(const gdc_rt_shm_t *shm, int peer, int which, size_t offset, void *local,
                                  size_t length, int into_peer)
{
    return gdc_rt_shm_cma_move(shm->pids[peer], shm->local_ranks != NULL ? shm->local_ranks[peer] : peer, local,
                               (char *)(uintptr_t)shm->segments[peer]->user[which] + offset, length, into_peer);
}
