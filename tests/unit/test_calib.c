/*
 * The calibration's file, its agreement rule and its probes (runtime/rt_calib.h): what is
 * written is read back, a file that is not one is refused with the line, the worst of two
 * nodes is taken number by number, the cache path follows XDG_CACHE_HOME then HOME, and
 * the probes measure something on this machine.
 */
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gdc_rt.h"
#include "rt_calib.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/gdc-test-calib.XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static int remove_dir(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_written_is_read_back(void **state)
{
    gdc_rt_calib_numbers_t n = {.copy_gbs = 12.5, .reduce_gbs = 9.25, .signal_us = 0.125, .cma_gbs = 7.5,
                                .cma_us = 0.625, .copy_cached_gbs = 30.5, .cma_cached_gbs = 20.25,
                                .reduce_cached_gbs = 17.75, .ucx_shm_us = 0.375, .ucx_shm_gbs = 11.0,
                                .copy_shared_cached_gbs = 18.5, .copy_peer_small_gbs = 8.25};
    gdc_rt_calib_numbers_t got;
    char                   path[128];

    (void)state;
    /* a directory that does not exist yet: the writer makes it */
    snprintf(path, sizeof(path), "%s/sub/calibration", dir);
    assert_int_equal(gdc_rt_calib_write(path, &n, "test"), GDC_SUCCESS);
    assert_int_equal(gdc_rt_calib_read(path, &got), GDC_SUCCESS);
    assert_true(memcmp(&n, &got, sizeof(n)) == 0);
}

static void test_bad_files_are_refused(void **state)
{
    static const char *const bad[] = {
        "copy_GBs 1\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\n",               /* one key missing */
        "copy_GBs 1\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs x\n", /* not a number */
        "copy_GBs -1\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs 1\n",
        "copy_GBs nan\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs 1\n",
        "copy_GBs 1e99\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs 1\n",
        "copy_GBs 1 2\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs 1\n",
        "copy_GBs 1\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\nucx_shm_us 1\nucx_shm_GBs 1\nwarp_GBs 9\n",
    };
    gdc_rt_calib_numbers_t got;
    char                   path[128];

    (void)state;
    snprintf(path, sizeof(path), "%s/bad", dir);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_text(path, bad[i]);
        assert_int_equal(gdc_rt_calib_read(path, &got), GDC_ERR_INVALID_ARG);
    }
    /* a comment too long for the reader's line: what follows where the reader cuts it
     * (255 characters) must not be read as a line of its own, here the only ucx_shm_GBs */
    {
        char text[1024];
        snprintf(text, sizeof(text), "#%0254d ucx_shm_GBs 99\ncopy_GBs 1\nreduce_GBs 1\nsignal_us 1\ncma_GBs 1\n"
                                     "ucx_shm_us 1\n", 0);
        write_text(path, text);
        assert_int_equal(gdc_rt_calib_read(path, &got), GDC_ERR_INVALID_ARG);
    }
    snprintf(path, sizeof(path), "%s/none", dir);
    assert_int_equal(gdc_rt_calib_read(path, &got), GDC_ERR_INVALID_ARG);
    /* comments and blank lines are fine */
    snprintf(path, sizeof(path), "%s/good", dir);
    write_text(path, "# c\n\ncopy_GBs 1 # c\nreduce_GBs 2\nsignal_us 3\ncma_GBs 0\nucx_shm_us 5\nucx_shm_GBs 6\n");
    assert_int_equal(gdc_rt_calib_read(path, &got), GDC_SUCCESS);
    assert_true(got.copy_gbs == 1 && got.reduce_gbs == 2 && got.signal_us == 3 && got.cma_gbs == 0 &&
                got.ucx_shm_us == 5 && got.ucx_shm_gbs == 6);
    /* a file of a gdc before the optional numbers: unmeasured */
    assert_true(got.cma_us == 0 && got.copy_cached_gbs == 0 && got.cma_cached_gbs == 0 && got.reduce_cached_gbs == 0 &&
                got.copy_shared_cached_gbs == 0 && got.copy_peer_small_gbs == 0);
    write_text(path, "copy_GBs 1\nreduce_GBs 2\nsignal_us 3\ncma_GBs 4\ncma_us 0.7\ncopy_cached_GBs 8\n"
                     "cma_cached_GBs 9\nreduce_cached_GBs 7\nucx_shm_us 5\nucx_shm_GBs 6\n");
    assert_int_equal(gdc_rt_calib_read(path, &got), GDC_SUCCESS);
    assert_true(got.cma_gbs == 4 && got.cma_us == 0.7 && got.copy_cached_gbs == 8 && got.cma_cached_gbs == 9 &&
                got.reduce_cached_gbs == 7 && got.copy_shared_cached_gbs == 0);
    write_text(path, "copy_GBs 1\nreduce_GBs 2\nsignal_us 3\ncma_GBs 4\nucx_shm_us 5\nucx_shm_GBs 6\n"
                     "copy_shared_cached_GBs 11\ncopy_peer_small_GBs 7.5\n");
    assert_int_equal(gdc_rt_calib_read(path, &got), GDC_SUCCESS);
    assert_true(got.copy_shared_cached_gbs == 11 && got.copy_peer_small_gbs == 7.5);
}

static void test_worst_of_two_nodes(void **state)
{
    gdc_rt_calib_numbers_t a = {.copy_gbs = 20, .reduce_gbs = 10, .signal_us = 0.1, .cma_gbs = 8, .cma_us = 1.5,
                                .copy_cached_gbs = 30, .cma_cached_gbs = 0, .reduce_cached_gbs = 14,
                                .ucx_shm_us = 0.5, .ucx_shm_gbs = 12, .copy_shared_cached_gbs = 19,
                                .copy_peer_small_gbs = 8};
    gdc_rt_calib_numbers_t b = {.copy_gbs = 15, .reduce_gbs = 12, .signal_us = 0.3, .cma_gbs = 0, .cma_us = 2.5,
                                .copy_cached_gbs = 25, .cma_cached_gbs = 20, .reduce_cached_gbs = 16,
                                .ucx_shm_us = 0.2, .ucx_shm_gbs = 13, .copy_shared_cached_gbs = 17,
                                .copy_peer_small_gbs = 9};

    (void)state;
    gdc_rt_calib_combine(&a, &b);
    assert_true(a.copy_gbs == 15);    /* the lower bandwidth */
    assert_true(a.reduce_gbs == 10);
    assert_true(a.signal_us == 0.3);  /* the higher latency */
    assert_true(a.cma_gbs == 0);      /* unmeasured on one node: unmeasured */
    assert_true(a.cma_us == 2.5);
    assert_true(a.copy_cached_gbs == 25);
    assert_true(a.cma_cached_gbs == 0);
    assert_true(a.reduce_cached_gbs == 14);
    assert_true(a.ucx_shm_us == 0.5);
    assert_true(a.ucx_shm_gbs == 12);
    assert_true(a.copy_shared_cached_gbs == 17);
    assert_true(a.copy_peer_small_gbs == 8);
}

/* A job's own measurement (GDC_CALIBRATION=job): every rank takes the worst of the nodes
 * that measured; one node of two ranks or more that could not, or a record that is not one,
 * leaves the built-in numbers; no node of two ranks, nothing to measure. */
static gdc_rt_calib_job_record_t job_record(uint32_t state, double cma_us, double copy, double cma, double reduce)
{
    gdc_rt_calib_job_record_t rec;

    memset(&rec, 0, sizeof(rec));
    rec.magic               = 0x67646363u;
    rec.state               = state;
    rec.n.cma_us            = cma_us;
    rec.n.copy_cached_gbs   = copy;
    rec.n.cma_cached_gbs    = cma;
    rec.n.reduce_cached_gbs = reduce;
    return rec;
}

static void test_job_agreement(void **state)
{
    gdc_rt_calib_job_record_t all[4];

    (void)state;
    all[0] = job_record(GDC_RT_CALIB_JOB_MEASURED, 0.8, 17, 21, 16);
    all[1] = job_record(GDC_RT_CALIB_JOB_NONE, 0, 0, 0, 0);
    all[2] = job_record(GDC_RT_CALIB_JOB_MEASURED, 1.2, 19, 18, 17);
    all[3] = job_record(GDC_RT_CALIB_JOB_NONE, 0, 0, 0, 0);
    gdc_rt_calib_job_agree(all, 4);
    assert_true(gdc_rt_calib.valid);
    assert_true(gdc_rt_calib.n.cma_us == 1.2 && gdc_rt_calib.n.copy_cached_gbs == 17 &&
                gdc_rt_calib.n.cma_cached_gbs == 18 && gdc_rt_calib.n.reduce_cached_gbs == 16);
    assert_true(gdc_rt_calib.n.copy_gbs == 0 && gdc_rt_calib.n.ucx_shm_us == 0); /* the rest built in */
    assert_non_null(strstr(gdc_rt_calib.source, "the worst of 2 node(s)"));

    all[3] = job_record(GDC_RT_CALIB_JOB_NOT_MEASURED, 0, 0, 0, 0);
    gdc_rt_calib_job_agree(all, 4);
    assert_false(gdc_rt_calib.valid);

    all[3]       = job_record(GDC_RT_CALIB_JOB_NONE, 0, 0, 0, 0);
    all[3].magic = 0;
    gdc_rt_calib_job_agree(all, 4);
    assert_false(gdc_rt_calib.valid);

    all[0] = all[2] = job_record(GDC_RT_CALIB_JOB_NONE, 0, 0, 0, 0);
    all[3]          = all[0];
    gdc_rt_calib_job_agree(all, 4);
    assert_false(gdc_rt_calib.valid);
}

static void test_cache_path(void **state)
{
    char  path[512], *old_xdg = getenv("XDG_CACHE_HOME"), *old_home = getenv("HOME");
    char *saved_xdg = old_xdg != NULL ? strdup(old_xdg) : NULL, *saved_home = old_home != NULL ? strdup(old_home) : NULL;

    (void)state;
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/h", 1);
    assert_int_equal(gdc_rt_calib_cache_path(path, sizeof(path)), 0);
    assert_true(strncmp(path, "/x/cache/gdc/calibration-", 25) == 0);
    unsetenv("XDG_CACHE_HOME");
    assert_int_equal(gdc_rt_calib_cache_path(path, sizeof(path)), 0);
    assert_true(strncmp(path, "/h/.cache/gdc/calibration-", 26) == 0);
    setenv("XDG_CACHE_HOME", "relative", 1); /* not an absolute path: ignored, as the spec says */
    assert_int_equal(gdc_rt_calib_cache_path(path, sizeof(path)), 0);
    assert_true(strncmp(path, "/h/.cache/gdc/", 14) == 0);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_int_equal(gdc_rt_calib_cache_path(path, sizeof(path)), -1);
    if (saved_xdg != NULL) {
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    }
    if (saved_home != NULL) {
        setenv("HOME", saved_home, 1);
    }
    free(saved_xdg);
    free(saved_home);
}

/* Every number of this machine comes out measured and plausible: rates from 0.1 GB/s to
 * 10 TB/s, latencies from 1 ns to 1 ms. Cross-memory attach may be forbidden (ptrace
 * rights); it is 0 then, and measured where the kernel allows it. */
static void test_probes_measure(void **state)
{
    gdc_rt_calib_numbers_t n;

    (void)state;
    assert_int_equal(gdc_rt_calib_probe(&n), GDC_SUCCESS);
    print_message("# %.2f GB/s copy (%.2f in cache), %.2f GB/s reduce, %.3f us signal, %.3f us + %.2f GB/s CMA "
                  "(%.2f in cache), %.3f us + %.2f GB/s UCX\n",
                  n.copy_gbs, n.copy_cached_gbs, n.reduce_gbs, n.signal_us, n.cma_us, n.cma_gbs, n.cma_cached_gbs,
                  n.ucx_shm_us, n.ucx_shm_gbs);
    assert_true(n.copy_gbs > 0.1 && n.copy_gbs < 1e4);
    assert_true(n.reduce_gbs > 0.1 && n.reduce_gbs < 1e4);
    assert_true(n.signal_us > 1e-3 && n.signal_us < 1e3);
    assert_true(n.cma_gbs == 0 || (n.cma_gbs > 0.1 && n.cma_gbs < 1e4));
    assert_true(n.cma_gbs == 0 ? n.cma_us == 0 : n.cma_us > 1e-3 && n.cma_us < 1e3);
    assert_true(n.cma_gbs == 0 ? n.copy_cached_gbs == 0 : n.copy_cached_gbs > 0.1 && n.copy_cached_gbs < 1e4);
    assert_true(n.cma_gbs == 0 ? n.cma_cached_gbs == 0 : n.cma_cached_gbs > 0.1 && n.cma_cached_gbs < 1e4);
    assert_true(n.cma_gbs == 0 ? n.reduce_cached_gbs == 0 : n.reduce_cached_gbs > 0.1 && n.reduce_cached_gbs < 1e4);
    assert_true(n.cma_gbs == 0 ? n.copy_shared_cached_gbs == 0
                               : n.copy_shared_cached_gbs > 0.1 && n.copy_shared_cached_gbs < 1e4);
    assert_true(n.cma_gbs == 0 ? n.copy_peer_small_gbs == 0 : n.copy_peer_small_gbs > 0.1 && n.copy_peer_small_gbs < 1e4);
    assert_true(n.ucx_shm_us > 1e-3 && n.ucx_shm_us < 1e3);
    assert_true(n.ucx_shm_gbs > 0.1 && n.ucx_shm_gbs < 1e4);
}

/* The job's probe between two processes over one shared mapping (as local ranks 0 and 1
 * over rank 0's segment), each pinned as the job pins them: the measuring side gets six
 * plausible numbers, the other none; the pair ran on two CPUs and each gets its set back;
 * a third rank waiting for the pair is let go once it is done. */
static void test_pair_probe_measures(void **state)
{
    size_t                 bytes = gdc_rt_calib_pair_bytes();
    void                  *area  = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    gdc_rt_calib_numbers_t n;
    pid_t                  parent = getpid(), child;
    int                    wstatus;
    cpu_set_t              all, was, now;
    double                 waited;

    (void)state;
    assert_true(area != MAP_FAILED);
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* the child reads this process too */
    assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
    if (gdc_rt_calib_nth_cpu(&all, 1) < 0) {
        munmap(area, bytes);
        skip(); /* one CPU: nothing a pair of cores could measure */
    }
    assert_int_equal(gdc_rt_calib_pair_pin(0, &was), 1);
    assert_true(CPU_EQUAL(&was, &all));
    assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
    assert_int_equal(CPU_COUNT(&now), 1);
    assert_true(CPU_ISSET(gdc_rt_calib_nth_cpu(&all, 0), &now));
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        gdc_rt_calib_numbers_t none;
        cpu_set_t              child_was, child_now;
        /* the child starts with the parent's one CPU; the job's ranks start with their set */
        (void)sched_setaffinity(0, sizeof(all), &all);
        int ok = gdc_rt_calib_pair_pin(1, &child_was) == 1 && sched_getaffinity(0, sizeof(child_now), &child_now) == 0 &&
                 CPU_COUNT(&child_now) == 1 && CPU_ISSET(gdc_rt_calib_nth_cpu(&all, 1), &child_now) &&
                 gdc_rt_calib_probe_pair(0, area, parent, &none) == GDC_SUCCESS && none.cma_us == 0 &&
                 none.copy_cached_gbs == 0;
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(gdc_rt_calib_probe_pair(1, area, child, &n), GDC_SUCCESS);
    assert_int_equal(waitpid(child, &wstatus, 0), child);
    assert_int_equal(sched_setaffinity(0, sizeof(was), &was), 0);
    waited = gdc_wtime();
    gdc_rt_calib_pair_wait(area);
    waited = gdc_wtime() - waited;
    munmap(area, bytes);
    print_message("# the pair: %.3f us CMA call, in cache %.2f GB/s CMA, %.2f GB/s copy (%.2f of 16 KiB) and %.2f "
                  "GB/s reduce out of the other's shared memory, %.2f GB/s copy into one's own\n",
                  n.cma_us, n.cma_cached_gbs, n.copy_cached_gbs, n.copy_peer_small_gbs, n.reduce_cached_gbs,
                  n.copy_shared_cached_gbs);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    assert_true(n.cma_us > 1e-3 && n.cma_us < 1e3);
    assert_true(n.cma_cached_gbs > 0.1 && n.cma_cached_gbs < 1e4);
    assert_true(n.copy_cached_gbs > 0.1 && n.copy_cached_gbs < 1e4);
    assert_true(n.reduce_cached_gbs > 0.1 && n.reduce_cached_gbs < 1e4);
    assert_true(n.copy_shared_cached_gbs > 0.1 && n.copy_shared_cached_gbs < 1e4);
    assert_true(n.copy_peer_small_gbs > 0.1 && n.copy_peer_small_gbs < 1e4);
    assert_true(n.copy_gbs == 0 && n.reduce_gbs == 0 && n.ucx_shm_us == 0); /* not the pair's to measure */
    assert_true(waited < 1.0); /* done: not the wait's deadline (3 s) */
}

/* The nth CPU of a set. */
static void test_nth_cpu(void **state)
{
    cpu_set_t set;

    (void)state;
    CPU_ZERO(&set);
    assert_int_equal(gdc_rt_calib_nth_cpu(&set, 0), -1);
    CPU_SET(3, &set);
    CPU_SET(7, &set);
    assert_int_equal(gdc_rt_calib_nth_cpu(&set, 0), 3);
    assert_int_equal(gdc_rt_calib_nth_cpu(&set, 1), 7);
    assert_int_equal(gdc_rt_calib_nth_cpu(&set, 2), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_is_read_back), cmocka_unit_test(test_bad_files_are_refused),
        cmocka_unit_test(test_worst_of_two_nodes),   cmocka_unit_test(test_job_agreement),
        cmocka_unit_test(test_cache_path),
        cmocka_unit_test(test_probes_measure),       cmocka_unit_test(test_pair_probe_measures),
        cmocka_unit_test(test_nth_cpu),
    };

    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
