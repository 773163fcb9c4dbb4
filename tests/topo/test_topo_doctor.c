/*
 * gdinfo --doctor's checks (launcher/gdinfo_doctor.c) on fixtures with fake sysfs/procfs
 * trees: what a GPU machine would show (PCIe links, BAR1, peer-memory module, IOMMU, ACS),
 * without one. And the sysfs readers' edge cases, and UCX's probe on this machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gdc.h>

#include "gdinfo_doctor.h"
#include "gdinfo_sysfs.h"
#include "rt_topo.h"
#include "rt_topo_probe.h"

/* ---------------------------------------------------------------------------------------
 * A fake tree under a temporary root
 */
static char root[256];

static void make_dirs(const char *rel)
{
    char path[1024];

    snprintf(path, sizeof(path), "%s%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            (void)mkdir(path, 0755);
            *p = '/';
        }
    }
    (void)mkdir(path, 0755);
}

static void write_file(const char *rel, const void *data, size_t len)
{
    char  path[1024], dir[512];
    FILE *f;

    snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(rel, '/') - rel), rel);
    if (dir[0] != '\0') {
        make_dirs(dir);
    }
    snprintf(path, sizeof(path), "%s%s", root, rel);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void write_text(const char *rel, const char *text)
{
    write_file(rel, text, strlen(text));
}

/* A PCI device at sysfs path `devpath` (under /sys/devices), linked from /sys/bus/pci/devices. */
static void pci_device(const char *devpath, const char *max_speed, int max_width, const char *cur_speed,
                       int cur_width)
{
    char        rel[512], target[1024], text[64];
    const char *busid = strrchr(devpath, '/') + 1;

    make_dirs(devpath);
    snprintf(rel, sizeof(rel), "%s/max_link_speed", devpath);
    write_text(rel, max_speed);
    snprintf(rel, sizeof(rel), "%s/max_link_width", devpath);
    snprintf(text, sizeof(text), "%d\n", max_width);
    write_text(rel, text);
    if (cur_speed != NULL) {
        snprintf(rel, sizeof(rel), "%s/current_link_speed", devpath);
        write_text(rel, cur_speed);
        snprintf(rel, sizeof(rel), "%s/current_link_width", devpath);
        snprintf(text, sizeof(text), "%d\n", cur_width);
        write_text(rel, text);
    }
    make_dirs("/sys/bus/pci/devices");
    snprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices/%s", root, busid);
    snprintf(target, sizeof(target), "%s%s", root, devpath);
    assert_int_equal(symlink(target, rel), 0);
}

/* The resource file: BAR0 16 MiB, BAR1 of bar1 bytes (64-bit, so line 2 is empty). */
static void pci_resource(const char *devpath, unsigned long long bar1)
{
    char rel[512], text[512];

    snprintf(rel, sizeof(rel), "%s/resource", devpath);
    snprintf(text, sizeof(text),
             "0x00000000fa000000 0x00000000faffffff 0x0000000000040200\n"
             "0x0000380000000000 0x%016llx 0x000000000014220c\n"
             "0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
             0x0000380000000000ull + bar1 - 1);
    write_text(rel, text);
}

/* A configuration space with an ACS capability (control register acs_ctrl) at 0x100, or
 * none (acs_ctrl < 0); `size` bytes as sysfs shows them (64 to a non-root reader). */
static void pci_config(const char *devpath, int acs_ctrl, size_t size)
{
    unsigned char cfg[4096];
    char          rel[512];

    memset(cfg, 0, sizeof(cfg));
    cfg[0] = 0xb5; /* vendor id, for looks */
    cfg[1] = 0x10;
    if (acs_ctrl >= 0) {
        cfg[0x100] = 0x0d; /* extended capability 0x000d (ACS), version 1, next 0 */
        cfg[0x102] = 0x01;
        cfg[0x106] = (unsigned char)(acs_ctrl & 0xff);
        cfg[0x107] = (unsigned char)(acs_ctrl >> 8);
    }
    snprintf(rel, sizeof(rel), "%s/config", devpath);
    write_file(rel, cfg, size);
}

static int setup_root(void **state)
{
    snprintf(root, sizeof(root), "%s/gdc-topo-sysfs-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(root));
    gdc_rt_topo_sysfs_set_root(root);
    return 0;
}

static int teardown_root(void **state)
{
    char cmd[512];

    gdc_rt_topo_sysfs_set_root("");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Collecting the checks
 */
typedef struct results {
    int                   count;
    gdinfo_doctor_check_t checks[64];
} results_t;

static void collect(const gdinfo_doctor_check_t *check, void *arg)
{
    results_t *r = arg;

    assert_true(r->count < 64);
    if (getenv("GDC_TEST_VERBOSE") != NULL) { /* show what the checks say, as TAP comments */
        printf("# %-4s %-11s %s\n", gdinfo_doctor_status_name(check->status), check->name, check->text);
    }
    r->checks[r->count++] = *check;
}

/* The n-th result of check `name` (0-based); fails the test when there is none. */
static const gdinfo_doctor_check_t *result(const results_t *r, const char *name, int nth)
{
    for (int i = 0; i < r->count; i++) {
        if (strcmp(r->checks[i].name, name) == 0 && nth-- == 0) {
            return &r->checks[i];
        }
    }
    fail_msg("no result %d of check %s", nth, name);
    return NULL;
}

static void expect(const results_t *r, const char *name, int nth, gdinfo_doctor_status_t status, const char *text)
{
    const gdinfo_doctor_check_t *c = result(r, name, nth);

    if (c->status != status || (text != NULL && strstr(c->text, text) == NULL)) {
        fail_msg("%s #%d: got %s \"%s\", expected %s with \"%s\"", name, nth, gdinfo_doctor_status_name(c->status),
                 c->text, gdinfo_doctor_status_name(status), text != NULL ? text : "");
    }
}

static gdc_topo_node_t *load_fixture(const char *name)
{
    const char      *srcdir = getenv("top_srcdir");
    char             path[1024];
    gdc_topo_node_t *node = NULL;

    snprintf(path, sizeof(path), "%s/share/topo/%s", srcdir != NULL ? srcdir : ".", name);
    assert_int_equal(gdc_rt_topo_node_from_xml(path, &node), GDC_SUCCESS);
    return node;
}

static gdinfo_doctor_input_t live_input(const gdc_topo_node_t *node)
{
    gdinfo_doctor_input_t in;

    memset(&in, 0, sizeof(in));
    in.node          = node;
    in.cuda_driver   = 1;
    in.cuda_devices  = node->num_gpus;
    in.cuda_version  = 12040;
    in.peermem       = gdc_rt_topo_sysfs_peermem();
    in.ucx.cuda_module = 1;
    in.ucx.cuda_memory = 1;
    in.ucx.cuda_copy   = 1;
    in.ucx.cuda_ipc    = 1;
    in.ucx.gdr_copy    = 1;
    snprintf(in.ucx.transports, sizeof(in.ucx.transports), "self tcp sysv posix cma cuda_copy cuda_ipc gdr_copy");
    return in;
}

/* ---------------------------------------------------------------------------------------
 * Workstation: consumer GPU, small BAR1, IOMMU translating, no RDMA NIC
 */
static void test_workstation(void **state)
{
    gdc_topo_node_t      *node = load_fixture("workstation-1gpu.xml");
    const char           *gpu  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0";
    gdinfo_doctor_input_t in;
    results_t             r = {0};

    assert_string_equal(node->gpus[0].pci.busid, "0000:11:00.0");
    pci_device("/sys/devices/pci0000:10/0000:10:01.0", "16.0 GT/s PCIe\n", 16, "16.0 GT/s PCIe\n", 16);
    pci_device(gpu, "16.0 GT/s PCIe\n", 16, "2.5 GT/s PCIe\n", 16);
    pci_resource(gpu, 256ull << 20);
    write_text("/proc/modules", "nvidia_uvm 1540096 0 - Live 0x0\nnvidia 56811520 1 nvidia_uvm, Live 0x0\n");
    write_text("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 quiet splash\n");
    make_dirs("/sys/kernel/iommu_groups/0");
    make_dirs("/sys/kernel/iommu_groups/1");
    in               = live_input(node);
    in.ucx.gdr_copy  = 0;
    assert_null(in.peermem); /* nvidia and nvidia_uvm are not peer-memory modules */

    assert_int_equal(gdinfo_doctor_run(&in, collect, &r), GDINFO_DOCTOR_WARN);
    expect(&r, "cuda-driver", 0, GDINFO_DOCTOR_OK, "sees 1 of the 1 GPU");
    expect(&r, "ucx-cuda", 0, GDINFO_DOCTOR_WARN, "missing gdr_copy");
    expect(&r, "peermem", 0, GDINFO_DOCTOR_NA, "no RDMA NIC");
    expect(&r, "gpu-nic", 0, GDINFO_DOCTOR_NA, "no RDMA NIC");
    expect(&r, "pcie-link", 0, GDINFO_DOCTOR_OK, "Gen4 x16 (idle now");
    expect(&r, "bar1", 0, GDINFO_DOCTOR_WARN, "BAR1 is 256 MiB");
    expect(&r, "p2p", 0, GDINFO_DOCTOR_NA, "one GPU");
    expect(&r, "iommu", 0, GDINFO_DOCTOR_WARN, "2 groups");
    expect(&r, "acs", 0, GDINFO_DOCTOR_OK, NULL);
    assert_int_equal(r.count, 9);
    gdc_rt_topo_node_free(node);
}

/* ---------------------------------------------------------------------------------------
 * DGX-like: ACS redirect on a switch port, a NIC in a slower slot
 */
static void test_dgx(void **state)
{
    gdc_topo_node_t      *node = load_fixture("dgx-h100.xml");
    const char           *rp   = "/sys/devices/pci0000:10/0000:10:01.0";
    const char           *up   = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0";
    const char           *dn0  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:00.0";
    const char           *dn1  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:01.0";
    const char           *gpu  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:00.0/0000:13:00.0";
    const char           *nic  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:01.0/0000:14:00.0";
    gdinfo_doctor_input_t in;
    results_t             r = {0};

    assert_string_equal(node->gpus[0].pci.busid, "0000:13:00.0");
    assert_string_equal(node->nics[node->gpus[0].nic].pci.busid, "0000:14:00.0");
    pci_device(rp, "32.0 GT/s PCIe\n", 16, "32.0 GT/s PCIe\n", 16);
    pci_device(up, "32.0 GT/s PCIe\n", 16, "32.0 GT/s PCIe\n", 16);
    pci_device(dn0, "32.0 GT/s PCIe\n", 16, "32.0 GT/s PCIe\n", 16);
    pci_device(dn1, "16.0 GT/s PCIe\n", 16, "16.0 GT/s PCIe\n", 16);
    pci_device(gpu, "32.0 GT/s PCIe\n", 16, "32.0 GT/s PCIe\n", 16);
    pci_device(nic, "32.0 GT/s PCIe\n", 16, "16.0 GT/s PCIe\n", 16);
    pci_resource(gpu, 128ull << 30);
    pci_config(rp, 0x001f, 4096);  /* root port: ACS on, as usual; not reported */
    pci_config(up, -1, 4096);
    pci_config(dn0, 0x001d, 4096); /* source validation, request+completion redirect, upstream fwd */
    pci_config(dn1, 0x0001, 4096); /* source validation only: fine */
    write_text("/proc/modules", "nvidia_peermem 16384 0 - Live 0x0\nnvidia 56811520 1 nvidia_peermem, Live 0x0\n");
    write_text("/proc/cmdline", "quiet iommu=pt intel_iommu=on\n");
    make_dirs("/sys/kernel/iommu_groups/17");
    in = live_input(node);
    assert_string_equal(in.peermem, "nvidia_peermem");

    assert_int_equal(gdinfo_doctor_run(&in, collect, &r), GDINFO_DOCTOR_WARN);
    expect(&r, "cuda-driver", 0, GDINFO_DOCTOR_OK, "sees 8 of the 8 GPUs");
    expect(&r, "ucx-cuda", 0, GDINFO_DOCTOR_OK, "cuda_copy cuda_ipc gdr_copy");
    expect(&r, "peermem", 0, GDINFO_DOCTOR_OK, "nvidia_peermem is loaded");
    for (int g = 0; g < 8; g++) {
        char want[32];
        snprintf(want, sizeof(want), "mlx5_%d, same PCIe switch", g);
        expect(&r, "gpu-nic", g, GDINFO_DOCTOR_OK, want);
    }
    expect(&r, "pcie-link", 0, GDINFO_DOCTOR_OK, "GPU 0 (0000:13:00.0): Gen5 x16");
    expect(&r, "pcie-link", 1, GDINFO_DOCTOR_NA, "no PCIe link attributes");
    /* GPUs first (8), then the RDMA NICs: mlx5_0 is the 9th */
    expect(&r, "pcie-link", 8, GDINFO_DOCTOR_WARN,
           "mlx5_0 (0000:14:00.0): a Gen5 x16 device in a Gen4 x16 port (0000:12:01.0)");
    expect(&r, "bar1", 0, GDINFO_DOCTOR_OK, "BAR1 128 GiB");
    expect(&r, "bar1", 1, GDINFO_DOCTOR_NA, NULL);
    expect(&r, "p2p", 0, GDINFO_DOCTOR_OK, "over NVLink");
    expect(&r, "iommu", 0, GDINFO_DOCTOR_OK, "passthrough");
    expect(&r, "acs", 0, GDINFO_DOCTOR_WARN, "redirects peer-to-peer traffic at 0000:12:00.0:");
    expect(&r, "acs", 1, GDINFO_DOCTOR_NA, "not in sysfs");
    gdc_rt_topo_node_free(node);
}

static void test_config_space_needs_root(void **state)
{
    const char *rp  = "/sys/devices/pci0000:10/0000:10:01.0";
    const char *dn  = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0";
    const char *dev = "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:00.0";
    char        bridges[64];

    pci_device(rp, "16.0 GT/s PCIe\n", 16, NULL, 0);
    pci_device(dn, "16.0 GT/s PCIe\n", 16, NULL, 0);
    pci_device(dev, "16.0 GT/s PCIe\n", 16, NULL, 0);
    pci_config(dn, 0x001d, 64); /* what a non-root reader gets */
    assert_int_equal(gdinfo_sysfs_acs_redirect("0000:12:00.0", bridges, sizeof(bridges)), -1);
    pci_config(dn, 0x001d, 4096);
    assert_int_equal(gdinfo_sysfs_acs_redirect("0000:12:00.0", bridges, sizeof(bridges)), 1);
    assert_string_equal(bridges, "0000:11:00.0");
    assert_int_equal(gdinfo_sysfs_acs_redirect("0000:99:00.0", bridges, sizeof(bridges)), -2);
}

static void test_sysfs_readers(void **state)
{
    const char        *rp  = "/sys/devices/pci0000:00/0000:00:03.0";
    const char        *dev = "/sys/devices/pci0000:00/0000:00:03.0/0000:01:00.0";
    gdinfo_pcie_link_t link;
    uint64_t           bytes = 0;

    pci_device(rp, "8 GT/s\n", 8, NULL, 0);                    /* older kernels print no ".0 ... PCIe" */
    pci_device(dev, "16.0 GT/s PCIe\n", 255, "Unknown\n", 0); /* 255: width unknown */
    assert_int_equal(gdinfo_sysfs_pcie_link("0000:01:00.0", &link), 0);
    assert_int_equal(link.max_gen, 4);
    assert_int_equal(link.max_width, 0);
    assert_int_equal(link.cur_gen, 0);
    assert_int_equal(link.port_gen, 3);
    assert_int_equal(link.port_width, 8);
    assert_string_equal(link.port, "0000:00:03.0");
    assert_int_equal(gdinfo_sysfs_pcie_link("0000:7f:00.0", &link), -1);
    assert_int_equal(gdinfo_sysfs_bar_size("0000:01:00.0", 1, &bytes), -1); /* no resource file */
    pci_resource(dev, 32ull << 30);
    assert_int_equal(gdinfo_sysfs_bar_size("0000:01:00.0", 0, &bytes), 0);
    assert_int_equal(bytes, 16ull << 20);
    assert_int_equal(gdinfo_sysfs_bar_size("0000:01:00.0", 1, &bytes), 0);
    assert_int_equal(bytes, 32ull << 30);
    assert_int_equal(gdinfo_sysfs_bar_size("0000:01:00.0", 2, &bytes), -1); /* upper half of BAR1 */
    /* peer-memory module as a /sys/module entry (built in, or /proc/modules unreadable) */
    assert_null(gdc_rt_topo_sysfs_peermem());
    make_dirs("/sys/module/nv_peer_mem");
    assert_string_equal(gdc_rt_topo_sysfs_peermem(), "nv_peer_mem");
}

/* ---------------------------------------------------------------------------------------
 * No GPU; UCX here
 */
static void test_no_gpu_is_all_na(void **state)
{
    gdc_topo_node_t      *node = load_fixture("vm.xml");
    gdinfo_doctor_input_t in;
    results_t             r = {0};

    memset(&in, 0, sizeof(in));
    in.node = node;
    assert_int_equal(gdinfo_doctor_run(&in, collect, &r), GDINFO_DOCTOR_OK);
    assert_int_equal(r.count, 9);
    for (int i = 0; i < r.count; i++) {
        assert_int_equal(r.checks[i].status, GDINFO_DOCTOR_NA);
        assert_non_null(strstr(r.checks[i].text, "GPU"));
    }
    gdc_rt_topo_node_free(node);
}

static void test_ucx_probe(void **state)
{
    gdinfo_ucx_info_t ucx;

    assert_int_equal(gdinfo_ucx_probe(&ucx), GDC_SUCCESS);
    assert_true(strlen(ucx.transports) > 0);
    assert_non_null(strstr(ucx.transports, "self"));
    assert_true(strlen(ucx.module_dir) > 0);
    /* UCX reports CUDA memory only through its CUDA transports */
    assert_true(!ucx.cuda_memory || (ucx.cuda_module && ucx.cuda_copy));
    assert_int_equal(ucx.cuda_copy, strstr(ucx.transports, "cuda_copy") != NULL);
}

static void test_status_names(void **state)
{
    assert_string_equal(gdinfo_doctor_status_name(GDINFO_DOCTOR_OK), "ok");
    assert_string_equal(gdinfo_doctor_status_name(GDINFO_DOCTOR_WARN), "warn");
    assert_string_equal(gdinfo_doctor_status_name(GDINFO_DOCTOR_FAIL), "fail");
    assert_string_equal(gdinfo_doctor_status_name(GDINFO_DOCTOR_NA), "n/a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_workstation, setup_root, teardown_root),
        cmocka_unit_test_setup_teardown(test_dgx, setup_root, teardown_root),
        cmocka_unit_test_setup_teardown(test_config_space_needs_root, setup_root, teardown_root),
        cmocka_unit_test_setup_teardown(test_sysfs_readers, setup_root, teardown_root),
        cmocka_unit_test(test_no_gpu_is_all_na),
        cmocka_unit_test(test_ucx_probe),
        cmocka_unit_test(test_status_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
