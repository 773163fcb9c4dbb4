/*
 * tests/gpu/ipc_probe: what a GPU machine lets two processes share, before gdc relies on it.
 *
 * Two processes (forked before either touches CUDA) on device 0 try, in turn:
 *  - legacy CUDA IPC: one cuMemAlloc's 64 MiB, the other maps it with cuIpcOpenMemHandle,
 *    checks its contents and times device-to-device copies out of it;
 *  - interprocess events: cuIpcGetEventHandle / cuIpcOpenEventHandle, a wait on it;
 *  - VMM memory shared as a POSIX file descriptor (cuMemCreate, passed with SCM_RIGHTS);
 *  - the device's own D2D copy rate (one process), the floor device-check compares with.
 * With --shared N: N processes at once, each timing 8-byte copies and their waits and the
 * driver calls of an IPC export (what a GPU operation costs when ranks share the GPU).
 * With --calls N: N processes emulating collective calls, a host barrier after each: every
 * process doing one 8-byte copy per call, one process doing all N copies for the others, an
 * idle sync of the legacy stream, or nothing (what a call costs when its GPU work comes from
 * one context rather than from every rank's).
 * One line per item, "probe: NAME ok ..." or "probe: NAME FAILED: why"; exit 0 whatever the
 * answers (they are facts about the machine), 1 only when the probe itself broke.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BYTES (64u << 20)

static const char *err_name(CUresult rc)
{
    const char *name = NULL;

    cuGetErrorName(rc, &name);
    return name != NULL ? name : "?";
}

#define TRY(what, call)                                                                                  \
    do {                                                                                                 \
        CUresult rc_ = (call);                                                                           \
        if (rc_ != CUDA_SUCCESS) {                                                                       \
            printf("probe: %s FAILED: %s returned %s\n", what, #call, err_name(rc_));                    \
            goto fail;                                                                                   \
        }                                                                                                \
    } while (0)

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int send_blob(int sock, const void *data, size_t len, int fd)
{
    struct iovec  iov = {(void *)data, len};
    char          ctrl[CMSG_SPACE(sizeof(int))];
    struct msghdr msg = {0};

    msg.msg_iov    = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        struct cmsghdr *c;

        memset(ctrl, 0, sizeof(ctrl));
        msg.msg_control    = ctrl;
        msg.msg_controllen = sizeof(ctrl);
        c                  = CMSG_FIRSTHDR(&msg);
        c->cmsg_level      = SOL_SOCKET;
        c->cmsg_type       = SCM_RIGHTS;
        c->cmsg_len        = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    return sendmsg(sock, &msg, 0) == (ssize_t)len ? 0 : -1;
}

static int recv_blob(int sock, void *data, size_t len, int *fd)
{
    struct iovec    iov = {data, len};
    char            ctrl[CMSG_SPACE(sizeof(int))];
    struct msghdr   msg = {0};
    struct cmsghdr *c;

    msg.msg_iov        = &iov;
    msg.msg_iovlen     = 1;
    msg.msg_control    = ctrl;
    msg.msg_controllen = sizeof(ctrl);
    if (recvmsg(sock, &msg, MSG_WAITALL) != (ssize_t)len) {
        return -1;
    }
    if (fd != NULL) {
        *fd = -1;
        c   = CMSG_FIRSTHDR(&msg);
        if (c != NULL && c->cmsg_type == SCM_RIGHTS) {
            memcpy(fd, CMSG_DATA(c), sizeof(int));
        }
    }
    return 0;
}

static CUcontext open_device(void)
{
    CUdevice  dev;
    CUcontext ctx = NULL;

    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        return NULL;
    }
    return ctx;
}

/* The owner: allocations and handles out, then wait for the peer's verdicts. */
static int owner(int sock)
{
    CUdeviceptr                  buf = 0, vmm = 0;
    CUipcMemHandle               mh;
    CUipcEventHandle             eh;
    CUevent                      ev;
    CUstream                     st;
    CUmemGenericAllocationHandle alloc;
    CUmemAllocationProp          prop = {0};
    CUmemAccessDesc              access = {0};
    size_t                       gran = 0, vmm_bytes;
    int                          fd = -1, ok = 1;
    char                         done;
    CUdevice                     dev;

    if (open_device() == NULL) {
        printf("probe: owner could not open device 0\n");
        return 1;
    }
    cuCtxGetDevice(&dev);
    TRY("ipc-mem", cuMemAlloc(&buf, BYTES));
    TRY("ipc-mem", cuMemsetD32(buf, 0x5a5a0001u, BYTES / 4));
    TRY("ipc-mem", cuIpcGetMemHandle(&mh, buf));
    send_blob(sock, &mh, sizeof(mh), -1);

    TRY("ipc-event", cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    TRY("ipc-event", cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    TRY("ipc-event", cuEventRecord(ev, st));
    TRY("ipc-event", cuIpcGetEventHandle(&eh, ev));
    send_blob(sock, &eh, sizeof(eh), -1);

    prop.type                 = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type        = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id          = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    TRY("vmm-fd", cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    vmm_bytes = (BYTES + gran - 1) / gran * gran;
    TRY("vmm-fd", cuMemCreate(&alloc, vmm_bytes, &prop, 0));
    TRY("vmm-fd", cuMemAddressReserve(&vmm, vmm_bytes, 0, 0, 0));
    TRY("vmm-fd", cuMemMap(vmm, vmm_bytes, 0, alloc, 0));
    access.location = prop.location;
    access.flags    = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    TRY("vmm-fd", cuMemSetAccess(vmm, vmm_bytes, &access, 1));
    TRY("vmm-fd", cuMemsetD32(vmm, 0x5a5a0002u, BYTES / 4));
    TRY("vmm-fd", cuCtxSynchronize());
    TRY("vmm-fd", cuMemExportToShareableHandle(&fd, alloc, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    send_blob(sock, &vmm_bytes, sizeof(vmm_bytes), fd);
    goto wait;
fail:
    ok = 0;
    shutdown(sock, SHUT_WR); /* the peer's next receive ends short: it stops */
wait:
    (void)read(sock, &done, 1);
    (void)ok; /* a failure is a fact about the machine, printed already */
    return 0;
}

static int peer(int sock)
{
    CUipcMemHandle               mh;
    CUipcEventHandle             eh;
    CUdeviceptr                  mapped = 0, mine = 0, vmm = 0;
    CUevent                      ev;
    CUstream                     st;
    CUmemGenericAllocationHandle alloc;
    CUmemAccessDesc              access = {0};
    uint32_t                     word   = 0;
    size_t                       vmm_bytes;
    double                       t0, t;
    int                          fd = -1, reps = 20;
    CUdevice                     dev;
    void                        *pinned = NULL;

    if (open_device() == NULL) {
        printf("probe: peer could not open device 0\n");
        return 1;
    }
    cuCtxGetDevice(&dev);
    TRY("d2d", cuMemAlloc(&mine, BYTES));
    TRY("d2d", cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    if (recv_blob(sock, &mh, sizeof(mh), NULL) != 0) {
        printf("probe: ipc-mem FAILED: the owner sent no handle\n");
        goto fail;
    }
    TRY("ipc-mem", cuIpcOpenMemHandle(&mapped, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    TRY("ipc-mem", cuMemcpyDtoH(&word, mapped + BYTES - 4, 4));
    printf("probe: ipc-mem %s (last word %#x)\n", word == 0x5a5a0001u ? "ok" : "FAILED: wrong contents", word);
    TRY("ipc-mem", cuMemcpyAsync(mine, mapped, BYTES, st));
    TRY("ipc-mem", cuStreamSynchronize(st));
    t0 = now();
    for (int i = 0; i < reps; i++) {
        TRY("ipc-mem", cuMemcpyAsync(mine, mapped, BYTES, st));
    }
    TRY("ipc-mem", cuStreamSynchronize(st));
    t = (now() - t0) / reps;
    printf("probe: ipc-copy ok: 64 MiB from the mapped peer buffer in %.1f us, %.0f GB/s\n", t * 1e6,
           BYTES / t / 1e9);
    t0 = now();
    for (int i = 0; i < 1000; i++) {
        TRY("ipc-mem", cuMemcpyAsync(mine, mapped, 8, st));
        TRY("ipc-mem", cuStreamSynchronize(st));
    }
    printf("probe: ipc-copy-8B ok: %.2f us per 8-byte copy and stream sync\n", (now() - t0) / 1000 * 1e6);

    if (recv_blob(sock, &eh, sizeof(eh), NULL) != 0) {
        printf("probe: ipc-event FAILED: the owner sent no handle\n");
        goto fail;
    }
    TRY("ipc-event", cuIpcOpenEventHandle(&ev, eh));
    TRY("ipc-event", cuStreamWaitEvent(st, ev, 0));
    TRY("ipc-event", cuStreamSynchronize(st));
    printf("probe: ipc-event ok: %s\n", cuEventQuery(ev) == CUDA_SUCCESS ? "query says done" : "query not done");

    if (recv_blob(sock, &vmm_bytes, sizeof(vmm_bytes), &fd) != 0 || fd < 0) {
        printf("probe: vmm-fd FAILED: no descriptor came\n");
        goto fail;
    }
    TRY("vmm-fd", cuMemImportFromShareableHandle(&alloc, (void *)(uintptr_t)fd,
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    TRY("vmm-fd", cuMemAddressReserve(&vmm, vmm_bytes, 0, 0, 0));
    TRY("vmm-fd", cuMemMap(vmm, vmm_bytes, 0, alloc, 0));
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id   = dev;
    access.flags         = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    TRY("vmm-fd", cuMemSetAccess(vmm, vmm_bytes, &access, 1));
    TRY("vmm-fd", cuMemcpyDtoH(&word, vmm + BYTES - 4, 4));
    printf("probe: vmm-fd %s (last word %#x)\n", word == 0x5a5a0002u ? "ok" : "FAILED: wrong contents", word);

    t0 = now();
    for (int i = 0; i < reps; i++) {
        TRY("d2d", cuMemcpyAsync(vmm, mine, BYTES, st));
    }
    TRY("d2d", cuStreamSynchronize(st));
    t = (now() - t0) / reps;
    printf("probe: d2d ok: 64 MiB copied in %.1f us, %.0f GB/s (bytes once)\n", t * 1e6, BYTES / t / 1e9);
    /* the floor of the staged path: a copy to pinned host memory and one back */
    TRY("d2h", cuMemAllocHost(&pinned, BYTES));
    for (int up = 0; up < 2; up++) {
        t0 = now();
        for (int i = 0; i < reps; i++) {
            TRY(up ? "h2d" : "d2h", up ? cuMemcpyHtoDAsync(mine, pinned, BYTES, st)
                                      : cuMemcpyDtoHAsync(pinned, mine, BYTES, st));
        }
        TRY(up ? "h2d" : "d2h", cuStreamSynchronize(st));
        t = (now() - t0) / reps;
        printf("probe: %s ok: 64 MiB copied in %.1f us, %.0f GB/s (pinned host memory)\n", up ? "h2d" : "d2h",
               t * 1e6, BYTES / t / 1e9);
    }
fail:
    (void)write(sock, "x", 1);
    return 0;
}

/* One of n processes sharing the GPU: once all are ready (a byte on go), time small copies
 * and their waits, the driver calls an ipc call makes, then print one line. */
static int sharer(int index, int n, int go)
{
    CUdeviceptr    a = 0, b = 0, base = 0;
    CUstream       st;
    CUipcMemHandle mh;
    size_t         size;
    char           byte;
    double         t0, copy, handle, range;
    enum { OPS = 2000 };

    if (open_device() == NULL) {
        printf("probe: shared-%d rank %d could not open device 0\n", n, index);
        return 1;
    }
    TRY("shared", cuMemAlloc(&a, 4096));
    TRY("shared", cuMemAlloc(&b, 4096));
    TRY("shared", cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    TRY("shared", cuMemcpyAsync(b, a, 8, st));
    TRY("shared", cuStreamSynchronize(st));
    if (read(go, &byte, 1) != 1) {
        return 1;
    }
    t0 = now();
    for (int i = 0; i < OPS; i++) {
        TRY("shared", cuMemcpyAsync(b, a, 8, st));
        TRY("shared", cuStreamSynchronize(st));
    }
    copy = (now() - t0) / OPS;
    t0   = now();
    for (int i = 0; i < OPS; i++) {
        TRY("shared", cuIpcGetMemHandle(&mh, a));
    }
    handle = (now() - t0) / OPS;
    t0     = now();
    for (int i = 0; i < OPS; i++) {
        TRY("shared", cuMemGetAddressRange(&base, &size, a + 8));
    }
    range = (now() - t0) / OPS;
    printf("probe: shared-%d rank %d: 8-byte copy and wait %.2f us, cuIpcGetMemHandle %.2f us, "
           "cuMemGetAddressRange %.2f us\n", n, index, copy * 1e6, handle * 1e6, range * 1e6);
    return 0;
fail:
    return 1;
}

/* A barrier of n processes on a shared page: arrivals counted, the last one moves the
 * generation on. */
struct calls_board {
    volatile int arrived;
    volatile int generation;
};

static void board_wait(struct calls_board *board, int n)
{
    int gen = __atomic_load_n(&board->generation, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&board->arrived, 1, __ATOMIC_ACQ_REL) == n) {
        __atomic_store_n(&board->arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&board->generation, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&board->generation, __ATOMIC_ACQUIRE) == gen) {
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* One of n processes making calls: per mode, CALLS calls each ended by the barrier; the
 * median call (as process 0 saw it) printed by process 0. */
static int caller(int index, int n, struct calls_board *board)
{
    static const char *modes[] = {"each-rank-copies", "one-rank-copies-for-all", "idle-legacy-sync", "host-only"};
    enum { CALLS = 400 };
    CUdeviceptr a = 0, b = 0;
    CUstream    st;
    double      t[CALLS];

    alarm(60); /* a fork's child has none: a sibling that broke off leaves the others at the barrier */
    if (open_device() == NULL) {
        printf("probe: calls-%d rank %d could not open device 0\n", n, index);
        return 1;
    }
    TRY("calls", cuMemAlloc(&a, 4096));
    TRY("calls", cuMemAlloc(&b, 4096));
    TRY("calls", cuStreamCreate(&st, CU_STREAM_DEFAULT));
    TRY("calls", cuMemcpyAsync(b, a, 8, st));
    TRY("calls", cuStreamSynchronize(st));
    board_wait(board, n);
    for (int mode = 0; mode < 4; mode++) {
        for (int c = 0; c < CALLS; c++) {
            double t0 = now();

            if (mode == 0 || (mode == 1 && index == 0)) {
                for (int k = 0; k < (mode == 0 ? 1 : n); k++) {
                    TRY("calls", cuMemcpyAsync(b + 8 * (CUdeviceptr)k, a, 8, st));
                }
                TRY("calls", cuStreamSynchronize(st));
            } else if (mode == 2) {
                TRY("calls", cuStreamSynchronize(NULL));
            }
            board_wait(board, n);
            t[c] = now() - t0;
        }
        if (index == 0) {
            qsort(t, CALLS, sizeof(t[0]), cmp_double);
            printf("probe: calls-%d %s ok: median %.2f us, p90 %.2f us per call\n", n, modes[mode],
                   t[CALLS / 2] * 1e6, t[CALLS * 9 / 10] * 1e6);
        }
    }
    return 0;
fail:
    return 1;
}

static int calls(int n)
{
    struct calls_board *board;
    pid_t               pids[16];
    int                 status = 0;

    board = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (n < 1 || n > 16 || board == MAP_FAILED) {
        return 1;
    }
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            _exit(caller(i, n, board));
        }
    }
    for (int i = 0; i < n; i++) {
        int st = 0;

        waitpid(pids[i], &st, 0);
        status |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    return status;
}

/* n processes on device 0 at once: what each GPU operation costs when the GPU is shared
 * without MPS (gdc's ranks sharing one GPU wait for every copy and kernel in turn). */
static int shared(int n)
{
    int   go[2], status = 0;
    pid_t pids[16];

    if (n < 1 || n > 16 || pipe(go) != 0) {
        return 1;
    }
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(go[1]);
            _exit(sharer(i, n, go[0]));
        }
    }
    close(go[0]);
    sleep(2); /* every process's context made */
    for (int i = 0; i < n; i++) {
        (void)write(go[1], "g", 1);
    }
    for (int i = 0; i < n; i++) {
        int st = 0;

        waitpid(pids[i], &st, 0);
        status |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    return status;
}

int main(int argc, char **argv)
{
    int   sv[2], status = 0;
    pid_t pid;

    setvbuf(stdout, NULL, _IONBF, 0);
    alarm(60); /* never hang the device run */
    if (argc == 3 && strcmp(argv[1], "--shared") == 0) {
        return shared(atoi(argv[2]));
    }
    if (argc == 3 && strcmp(argv[1], "--calls") == 0) {
        return calls(atoi(argv[2]));
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("socketpair");
        return 1;
    }
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        close(sv[0]);
        _exit(peer(sv[1]));
    }
    close(sv[1]);
    if (owner(sv[0]) != 0) {
        status = 1;
    }
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
