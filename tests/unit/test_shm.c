/*
 * Shared-memory segments (runtime/rt_shm.h): two processes map each other's segment from
 * its locator and see each other's writes; nothing shows in /dev/shm at any point; a
 * locator that names no segment, another process's descriptor, a closed handle or a
 * wrong cookie is refused, never mapped. The board of device buffers (CUDA IPC exports)
 * with a fake driver: what one rank publishes another maps, once per allocation, and a
 * buffer that cannot be exported is an error named by the peer that needs it.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gdc_rt.h"
#include "rt_cuda_ipc.h"
#include "rt_shm.h"

#define DATA_BYTES (64 * 1024)

/* Entries of /dev/shm (gdc must add none). */
static int dev_shm_entries(void)
{
    DIR           *dir = opendir("/dev/shm");
    struct dirent *e;
    int            n = 0;

    if (dir == NULL) {
        return 0;
    }
    while ((e = readdir(dir)) != NULL) {
        n += e->d_name[0] != '.';
    }
    closedir(dir);
    return n;
}

static int setup(void **state)
{
    (void)state;
    gdc_rt_shm_bytes = DATA_BYTES;
    return 0;
}

static void create_names_nothing(void **state)
{
    gdc_rt_shm_t         shm;
    gdc_rt_shm_locator_t where;
    int                  before = dev_shm_entries();

    (void)state;
    assert_int_equal(gdc_rt_shm_create(&shm, "gdc-test"), GDC_SUCCESS);
    where = gdc_rt_shm_locator(&shm);
    assert_int_equal(where.pid, (int32_t)getpid());
    assert_true(where.fd >= 0);
    assert_int_equal(dev_shm_entries(), before);
    gdc_rt_shm_close_handle(&shm);
    assert_int_equal(gdc_rt_shm_locator(&shm).pid, 0);
    gdc_rt_shm_destroy(&shm);
    assert_int_equal(dev_shm_entries(), before);
}

/* The child makes its segment, sends its locator, gets the parent's, attaches as local rank
 * 1, raises its counter 0 to 41 and waits for the parent's to reach 42. */
static int child(int to_parent, int from_parent)
{
    gdc_rt_shm_t         shm;
    gdc_rt_shm_locator_t where[2];
    int                  ranks[2] = {0, 1};

    if (gdc_rt_shm_create(&shm, "gdc-test-child") != GDC_SUCCESS) {
        return 2;
    }
    where[1] = gdc_rt_shm_locator(&shm);
    if (write(to_parent, &where[1], sizeof(where[1])) != (ssize_t)sizeof(where[1]) ||
        read(from_parent, &where[0], sizeof(where[0])) != (ssize_t)sizeof(where[0])) {
        return 3;
    }
    if (gdc_rt_shm_attach(&shm, 2, 1, ranks, where) != GDC_SUCCESS) {
        return 4;
    }
    gdc_rt_shm_raise(gdc_rt_shm_counter(&shm, 1, 0), 41);
    for (long spins = 0; gdc_rt_shm_read(gdc_rt_shm_counter(&shm, 0, 0)) < 42; spins++) {
        if (spins > 2000000000L) {
            return 5;
        }
    }
    gdc_rt_shm_destroy(&shm);
    return 0;
}

/* Every counter of a rank counts as having reached what its DONE reached (a call's end
 * raises DONE alone), though none is raised: reached, not raised. */
static void done_stands_for_the_others(void **state)
{
    gdc_rt_shm_t         shm;
    gdc_rt_shm_locator_t where;
    int                  ranks[1] = {0};

    (void)state;
    assert_int_equal(gdc_rt_shm_create(&shm, "gdc-test-done"), GDC_SUCCESS);
    where = gdc_rt_shm_locator(&shm);
    assert_int_equal(gdc_rt_shm_attach(&shm, 1, 0, ranks, &where), GDC_SUCCESS);
    gdc_rt_shm_raise(gdc_rt_shm_counter(&shm, 0, 0), 3);
    assert_true(gdc_rt_shm_reached(&shm, 0, 0, 3));
    assert_false(gdc_rt_shm_reached(&shm, 0, 0, 4));
    assert_false(gdc_rt_shm_reached(&shm, 0, 1, 2));
    gdc_rt_shm_finish(&shm, 5);
    for (int c = 0; c < GDC_RT_SHM_COUNTERS; c++) {
        assert_true(gdc_rt_shm_reached(&shm, 0, c, 5));
        assert_false(gdc_rt_shm_reached(&shm, 0, c, 6));
        assert_int_equal(gdc_rt_shm_raised(&shm, 0, c, 5), c == GDC_RT_SHM_DONE);
    }
    gdc_rt_shm_destroy(&shm);
}

static void two_processes_share(void **state)
{
    int                  up[2], down[2], status;
    gdc_rt_shm_t         shm;
    gdc_rt_shm_locator_t where[2];
    int                  ranks[2] = {0, 1};
    pid_t                pid;

    (void)state;
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    assert_int_equal(gdc_rt_shm_create(&shm, "gdc-test-parent"), GDC_SUCCESS);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        _exit(child(up[1], down[0]));
    }
    where[0] = gdc_rt_shm_locator(&shm);
    assert_int_equal(write(down[1], &where[0], sizeof(where[0])), (ssize_t)sizeof(where[0]));
    assert_int_equal(read(up[0], &where[1], sizeof(where[1])), (ssize_t)sizeof(where[1]));
    assert_int_equal(gdc_rt_shm_attach(&shm, 2, 0, ranks, where), GDC_SUCCESS);
    while (gdc_rt_shm_read(gdc_rt_shm_counter(&shm, 1, 0)) < 41) {
    }
    /* the data areas are shared too */
    memcpy(gdc_rt_shm_data(&shm, 0), "gdc", 4);
    gdc_rt_shm_raise(gdc_rt_shm_counter(&shm, 0, 0), 42);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal((const char *)gdc_rt_shm_data(&shm, 0), "gdc");
    gdc_rt_shm_destroy(&shm);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    close(down[1]);
}

/* Attaching my segment and one at `peer`: must fail, mapping nothing. */
static void refused(gdc_rt_shm_locator_t peer)
{
    gdc_rt_shm_t         shm;
    gdc_rt_shm_locator_t where[2];
    int                  ranks[2] = {0, 1};

    assert_int_equal(gdc_rt_shm_create(&shm, "gdc-test"), GDC_SUCCESS);
    where[0] = gdc_rt_shm_locator(&shm);
    where[1] = peer;
    assert_int_equal(gdc_rt_shm_attach(&shm, 2, 0, ranks, where), GDC_ERR_UNSUPPORTED);
    gdc_rt_shm_destroy(&shm);
}

static void bad_locators_refused(void **state)
{
    gdc_rt_shm_t         other;
    gdc_rt_shm_locator_t where, none = gdc_rt_shm_locator(NULL);

    (void)state;
    refused(none); /* the peer has no segment */
    assert_int_equal(gdc_rt_shm_create(&other, "gdc-test-other"), GDC_SUCCESS);
    where = gdc_rt_shm_locator(&other);
    where.cookie ^= 1; /* another segment than the one named */
    refused(where);
    where = gdc_rt_shm_locator(&other);
    where.fd = STDERR_FILENO; /* a descriptor, but no segment */
    refused(where);
    where = gdc_rt_shm_locator(&other);
    gdc_rt_shm_close_handle(&other); /* everyone has mapped it: nothing opens it any more */
    refused(where);
    gdc_rt_shm_destroy(&other);
}


/* ---------------------------------------------------------------------------------------
 * The board of device buffers, over a fake driver: allocations of 1 MiB at fake device
 * addresses, one of them pool memory (no legacy IPC handle); a mapping of allocation k
 * opens at MAPPED + k MiB.
 */
#define FAKE_BASE   0x700000000000ull
#define FAKE_MAPPED 0x7f0000000000ull
#define FAKE_MIB    (1ull << 20)

static struct {
    unsigned generation[4]; /* bumped when allocation k is freed and made again */
    int      pool;          /* allocation index that is pool memory, or -1 */
    int      opens, closes;
} fake;

static gdc_rt_cu_result_t fake_range(void *arg, gdc_rt_cu_deviceptr_t ptr, gdc_rt_cu_deviceptr_t *base, size_t *size)
{
    (void)arg;
    if (ptr < FAKE_BASE || ptr >= FAKE_BASE + 4 * FAKE_MIB) {
        return GDC_RT_CUDA_ERROR_INVALID_VALUE;
    }
    *base = FAKE_BASE + (ptr - FAKE_BASE) / FAKE_MIB * FAKE_MIB;
    *size = FAKE_MIB;
    return GDC_RT_CUDA_SUCCESS;
}

static gdc_rt_cu_result_t fake_handle(void *arg, gdc_rt_cu_deviceptr_t base, gdc_rt_cu_ipc_mem_handle_t *handle)
{
    int k = (int)((base - FAKE_BASE) / FAKE_MIB);

    (void)arg;
    if (k == fake.pool) {
        return GDC_RT_CUDA_ERROR_NOT_SUPPORTED;
    }
    memset(handle, 0, sizeof(*handle));
    handle->reserved[0] = (char)k;
    handle->reserved[1] = (char)fake.generation[k];
    return GDC_RT_CUDA_SUCCESS;
}

static gdc_rt_cu_result_t fake_open(void *arg, const gdc_rt_cu_ipc_mem_handle_t *handle, gdc_rt_cu_deviceptr_t *mapped)
{
    (void)arg;
    fake.opens++;
    *mapped = FAKE_MAPPED + (unsigned char)handle->reserved[0] * FAKE_MIB;
    return GDC_RT_CUDA_SUCCESS;
}

static gdc_rt_cu_result_t fake_close(void *arg, gdc_rt_cu_deviceptr_t mapped)
{
    (void)arg;
    (void)mapped;
    fake.closes++;
    return GDC_RT_CUDA_SUCCESS;
}

static const gdc_rt_cuda_ipc_ops_t fake_ops = {fake_range, fake_handle, fake_open, fake_close, NULL};

static void *fake_buffer(int k, size_t offset)
{
    return (void *)(uintptr_t)(FAKE_BASE + (uint64_t)k * FAKE_MIB + offset);
}

/* Rank 1 maps what rank 0 published: its input (allocation 0 at 0x40) and output
 * (allocation 1), each opened once however often it is mapped; in place, the output is
 * the input's export; a freed and remade allocation is opened again; pool memory and a
 * NULL buffer are errors for the peer that maps them, and nothing is opened for them. */
static void device_board_maps_peers(void **state)
{
    gdc_rt_shm_t             shms[2];
    gdc_rt_cuda_ipc_entry_t *entry;
    gdc_rt_cuda_ipc_stats_t  stats;
    void                    *ptr;

    (void)state;
    memset(&fake, 0, sizeof(fake));
    fake.pool = 3;
    assert_int_equal(gdc_rt_shm_init_private(shms, 2, DATA_BYTES), GDC_SUCCESS);
    shms[0].ipc_ops = shms[1].ipc_ops = &fake_ops;
    assert_int_equal(gdc_rt_cuda_ipc_cache_create(&fake_ops, 2, 8, &shms[1].ipc_cache), GDC_SUCCESS);

    gdc_rt_shm_publish_user_ipc(&shms[0], fake_buffer(0, 0x40), fake_buffer(1, 0));
    for (int call = 0; call < 3; call++) {
        assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_INPUT, NULL, &ptr, &entry), GDC_SUCCESS);
        assert_int_equal((uintptr_t)ptr, FAKE_MAPPED + 0x40);
        gdc_rt_shm_peer_unmap(&shms[1], entry);
        assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_OUTPUT, NULL, &ptr, &entry), GDC_SUCCESS);
        assert_int_equal((uintptr_t)ptr, FAKE_MAPPED + FAKE_MIB);
        gdc_rt_shm_peer_unmap(&shms[1], entry);
    }
    assert_int_equal(fake.opens, 2);

    gdc_rt_shm_publish_user_ipc(&shms[0], fake_buffer(2, 8), fake_buffer(2, 8)); /* in place */
    assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_OUTPUT, NULL, &ptr, &entry), GDC_SUCCESS);
    assert_int_equal((uintptr_t)ptr, FAKE_MAPPED + 2 * FAKE_MIB + 8);
    gdc_rt_shm_peer_unmap(&shms[1], entry);
    assert_int_equal(fake.opens, 3);

    fake.generation[0]++; /* allocation 0 freed, made again at the same address */
    gdc_rt_shm_publish_user_ipc(&shms[0], fake_buffer(0, 0), NULL);
    assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_INPUT, NULL, &ptr, &entry), GDC_SUCCESS);
    gdc_rt_shm_peer_unmap(&shms[1], entry);
    assert_int_equal(fake.opens, 4);
    gdc_rt_cuda_ipc_cache_stats(shms[1].ipc_cache, &stats);
    assert_int_equal(stats.stale, 1);
    assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_OUTPUT, NULL, &ptr, &entry),
                     GDC_ERR_INTERNAL); /* published no output */

    gdc_rt_shm_publish_user_ipc(&shms[0], fake_buffer(3, 0), fake_buffer(1, 0)); /* pool memory in */
    assert_int_equal(gdc_rt_shm_peer_map(&shms[1], 0, GDC_RT_SHM_USER_INPUT, NULL, &ptr, &entry),
                     GDC_ERR_UNSUPPORTED);
    assert_int_equal(fake.opens, 4);
    gdc_rt_shm_free_private(shms, 2); /* closes the cache's mappings */
    assert_int_equal(fake.closes, fake.opens);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_names_nothing),
        cmocka_unit_test(two_processes_share),
        cmocka_unit_test(done_stands_for_the_others),
        cmocka_unit_test(bad_locators_refused),
        cmocka_unit_test(device_board_maps_peers),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
