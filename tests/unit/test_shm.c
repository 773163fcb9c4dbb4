/*
 * Shared-memory segments (runtime/rt_shm.h): two processes map each other's segment from
 * its locator and see each other's writes; nothing shows in /dev/shm at any point; a
 * locator that names no segment, another process's descriptor, a closed handle or a
 * wrong cookie is refused, never mapped.
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_names_nothing),
        cmocka_unit_test(two_processes_share),
        cmocka_unit_test(bad_locators_refused),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
