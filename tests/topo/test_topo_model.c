/*
 * The topology model built from hwloc XML fixtures of machine shapes (share/topo/): counts,
 * GPUs and NICs with their locality, the nearest NIC of each GPU, peer access, link classes
 * for chosen rank placements, findings. No hardware needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_topo.h"

static gdc_topo_node_t *load_fixture(const char *name)
{
    const char      *srcdir = getenv("top_srcdir");
    char             path[1024];
    gdc_topo_node_t *node = NULL;

    snprintf(path, sizeof(path), "%s/share/topo/%s", srcdir != NULL ? srcdir : ".", name);
    assert_int_equal(gdc_rt_topo_node_from_xml(path, &node), GDC_SUCCESS);
    assert_non_null(node);
    return node;
}

/* Ranks placed on nodes: rank r on node node_of[r] with GPU gpu_of[r]. */
typedef struct placement {
    int             size;
    gdc_topo_rank_t ranks[32];
} placement_t;

static void place(placement_t *p, int node, int gpu, const gdc_topo_node_t *model, const gdc_topo_env_t *env)
{
    gdc_topo_rank_t *r = &p->ranks[p->size];

    r->rank = p->size;
    r->node = node;
    r->gpu  = gpu;
    r->numa = -1;
    r->gdr  = gdc_rt_topo_gpu_gdr(model, gpu, env);
    p->size++;
}

static gdc_link_class_t link_of(const gdc_topo_node_t *model, const placement_t *p, int a, int b, int on_device)
{
    return gdc_rt_topo_classify(model, &p->ranks[a], &p->ranks[b], on_device);
}

static const gdc_topo_env_t full_env = {.ucx_cuda = 1, .peermem = 1, .multi_node = 1};

/* ---------------------------------------------------------------------------------------
 * This VM: no GPU, one virtio NIC
 */
static void test_vm_model(void **state)
{
    gdc_topo_node_t   *node = load_fixture("vm.xml");
    char               summary[256];
    gdc_topo_finding_t findings[4];

    assert_string_equal(node->hostname, "vm");
    assert_int_equal(node->num_packages, 1);
    assert_int_equal(node->num_numa, 1);
    assert_int_equal(node->num_cores, 2);
    assert_int_equal(node->num_pus, 2);
    assert_int_equal(node->num_gpus, 0);
    assert_int_equal(node->num_nics, 1);
    assert_string_equal(node->nics[0].name, "eth0");
    assert_false(node->nics[0].rdma);
    assert_false(node->nics[0].infiniband);
    gdc_rt_topo_node_summary(node, summary, sizeof(summary));
    assert_string_equal(summary, "node vm: 1 package, 1 NUMA node, 2 cores (2 PUs); GPUs: none; NICs: eth0 (ethernet)");
    assert_int_equal(gdc_rt_topo_findings(node, &full_env, NULL, findings, 4), 0);
    gdc_rt_topo_node_free(node);
}

static void test_vm_classes(void **state)
{
    gdc_topo_node_t *node = load_fixture("vm.xml");
    placement_t      p    = {0};

    for (int r = 0; r < 4; r++) {
        place(&p, 0, -1, node, &full_env);
    }
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) {
            gdc_link_class_t want = a == b ? GDC_LINK_SELF : GDC_LINK_SHM;
            assert_int_equal(link_of(node, &p, a, b, 0), want);
            assert_int_equal(link_of(node, &p, a, b, 1), want); /* no GPU: device classes are host classes */
        }
    }
    gdc_rt_topo_node_free(node);
}

/* ---------------------------------------------------------------------------------------
 * DGX-H100-like: 8 GPUs behind 4 switches, a NIC next to each, NVSwitch
 */
static void test_dgx_model(void **state)
{
    gdc_topo_node_t *node = load_fixture("dgx-h100.xml");
    char             summary[512];

    assert_int_equal(node->num_packages, 2);
    assert_int_equal(node->num_numa, 2);
    assert_int_equal(node->num_cores, 16);
    assert_int_equal(node->num_pus, 32);
    assert_int_equal(node->num_gpus, 8);
    assert_int_equal(node->num_nics, 9);
    assert_int_equal(node->nvswitch, 4);
    for (int g = 0; g < 8; g++) {
        char name[16];
        snprintf(name, sizeof(name), "mlx5_%d", g);
        assert_string_equal(node->gpus[g].model, "NVIDIA H100 80GB HBM3");
        assert_int_equal(node->gpus[g].pci.numa, g / 4);
        assert_int_equal(node->gpus[g].pci.package, g / 4);
        /* one switch per root complex; eno1's root complex comes between the sockets' */
        assert_int_equal(node->gpus[g].pci.root, g < 4 ? g / 2 : g / 2 + 1);
        /* each GPU takes the NIC of its own rail, under its PCIe switch */
        assert_string_equal(node->nics[node->gpus[g].nic].name, name);
        assert_int_equal(node->gpus[g].nic_path, GDC_TOPO_PATH_SWITCH);
        for (int o = 0; o < 8; o++) {
            assert_int_equal(gdc_rt_topo_node_p2p(node, g, o), GDC_TOPO_P2P_NVLINK);
        }
    }
    /* GPUs 0 and 1 share a switch; 0 and 2 a socket; 0 and 4 nothing but the machine */
    assert_int_equal(node->gpu_path[0 * 8 + 1], GDC_TOPO_PATH_SWITCH);
    assert_int_equal(node->gpu_path[0 * 8 + 2], GDC_TOPO_PATH_NUMA);
    assert_int_equal(node->gpu_path[0 * 8 + 4], GDC_TOPO_PATH_SYSTEM);
    for (int n = 0; n < node->num_nics; n++) {
        int mgmt = strcmp(node->nics[n].name, "eno1") == 0;
        assert_int_equal(node->nics[n].rdma, !mgmt);
        assert_int_equal(node->nics[n].infiniband, !mgmt);
    }
    gdc_rt_topo_node_summary(node, summary, sizeof(summary));
    assert_string_equal(summary, "node dgx-h100: 2 packages, 2 NUMA nodes, 16 cores (32 PUs); GPUs: 8 x NVIDIA H100 "
                                 "80GB HBM3, NVSwitch; NICs: mlx5_0-7 (infiniband, RDMA), eno1 (ethernet)");
    gdc_rt_topo_node_free(node);
}

static void test_dgx_classes_two_nodes(void **state)
{
    gdc_topo_node_t *node = load_fixture("dgx-h100.xml");
    placement_t      p    = {0};

    for (int n = 0; n < 2; n++) {
        for (int g = 0; g < 8; g++) {
            place(&p, n, g, node, &full_env);
        }
    }
    for (int a = 0; a < 16; a++) {
        assert_true(p.ranks[a].gdr);
        for (int b = 0; b < 16; b++) {
            int same_node = a / 8 == b / 8;
            assert_int_equal(link_of(node, &p, a, b, 0),
                             a == b ? GDC_LINK_SELF : same_node ? GDC_LINK_SHM : GDC_LINK_NET);
            assert_int_equal(link_of(node, &p, a, b, 1),
                             a == b ? GDC_LINK_SELF : same_node ? GDC_LINK_NVLINK : GDC_LINK_NET_GDR);
        }
    }
    gdc_rt_topo_node_free(node);
}

static void test_dgx_without_peermem_stages_between_nodes(void **state)
{
    gdc_topo_node_t   *node = load_fixture("dgx-h100.xml");
    gdc_topo_env_t     env  = {.ucx_cuda = 1, .peermem = 0, .multi_node = 1};
    gdc_topo_finding_t findings[8];
    placement_t        p = {0};

    place(&p, 0, 0, node, &env);
    place(&p, 1, 0, node, &env);
    assert_false(p.ranks[0].gdr);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_NET);
    assert_int_equal(gdc_rt_topo_findings(node, &env, NULL, findings, 8), 1);
    assert_int_equal(findings[0].kind, GDC_TOPO_FINDING_NO_PEERMEM);
    assert_int_equal(findings[0].severity, GDC_TOPO_SEV_WARN);
    assert_true(findings[0].relevant);
    assert_non_null(strstr(findings[0].text, "nvidia_peermem"));
    gdc_rt_topo_node_free(node);
}

static void test_dgx_two_ranks_per_gpu_share_the_device(void **state)
{
    gdc_topo_node_t *node = load_fixture("dgx-h100.xml");
    placement_t      p    = {0};

    place(&p, 0, 3, node, &full_env);
    place(&p, 0, 3, node, &full_env);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_NVLINK);
    assert_int_equal(link_of(node, &p, 0, 1, 0), GDC_LINK_SHM);
    gdc_rt_topo_node_free(node);
}

static void test_dgx_findings_clean(void **state)
{
    gdc_topo_node_t   *node = load_fixture("dgx-h100.xml");
    gdc_topo_finding_t findings[8];

    assert_int_equal(gdc_rt_topo_findings(node, &full_env, NULL, findings, 8), 0);
    gdc_rt_topo_node_free(node);
}

static void test_dgx_ucx_without_cuda(void **state)
{
    gdc_topo_node_t   *node = load_fixture("dgx-h100.xml");
    gdc_topo_env_t     env  = {.ucx_cuda = 0, .peermem = 1, .multi_node = 0};
    gdc_topo_finding_t findings[8];
    placement_t        p = {0};

    assert_int_equal(gdc_rt_topo_findings(node, &env, NULL, findings, 8), 1);
    assert_int_equal(findings[0].kind, GDC_TOPO_FINDING_UCX_NO_CUDA);
    assert_true(findings[0].relevant); /* inside one node too */
    place(&p, 0, 0, node, &env);
    place(&p, 1, 0, node, &env);
    assert_false(p.ranks[0].gdr);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_NET);
    gdc_rt_topo_node_free(node);
}

/* ---------------------------------------------------------------------------------------
 * PCIe-only 4-GPU server, one NIC on socket 0
 */
static void test_pcie_model(void **state)
{
    gdc_topo_node_t *node = load_fixture("pcie-4gpu.xml");
    char             summary[512];

    assert_int_equal(node->num_gpus, 4);
    assert_int_equal(node->nvswitch, 0);
    assert_int_equal(node->num_nics, 2);
    assert_string_equal(node->nics[0].name, "mlx5_0");
    assert_string_equal(node->nics[0].netdev, "ib0");
    assert_int_equal(node->nics[0].pci.numa, 0);
    for (int g = 0; g < 4; g++) {
        assert_int_equal(node->gpus[g].pci.numa, g / 2);
        assert_int_equal(node->gpus[g].nic, 0);
        assert_int_equal(node->gpus[g].nic_path, g < 2 ? GDC_TOPO_PATH_NUMA : GDC_TOPO_PATH_SYSTEM);
    }
    /* peer access over PCIe inside a socket, none across */
    assert_int_equal(gdc_rt_topo_node_p2p(node, 0, 1), GDC_TOPO_P2P_PCIE);
    assert_int_equal(gdc_rt_topo_node_p2p(node, 2, 3), GDC_TOPO_P2P_PCIE);
    assert_int_equal(gdc_rt_topo_node_p2p(node, 0, 2), GDC_TOPO_P2P_NONE);
    assert_int_equal(gdc_rt_topo_node_p2p(node, 1, 3), GDC_TOPO_P2P_NONE);
    assert_int_equal(node->p2p_source, GDC_TOPO_FACTS_TOPOLOGY);
    gdc_rt_topo_node_summary(node, summary, sizeof(summary));
    assert_non_null(strstr(summary, "GPUs: 4 x NVIDIA A100-PCIE-40GB; NICs: mlx5_0 (infiniband, RDMA), eno1 (ethernet)"));
    gdc_rt_topo_node_free(node);
}

static void test_pcie_classes(void **state)
{
    gdc_topo_node_t *node = load_fixture("pcie-4gpu.xml");
    placement_t      p    = {0};

    for (int n = 0; n < 2; n++) {
        for (int g = 0; g < 4; g++) {
            place(&p, n, g, node, &full_env);
        }
    }
    /* GPUs 0-1 can reach the NIC on their NUMA node; 2-3 cannot */
    assert_true(p.ranks[0].gdr && p.ranks[1].gdr);
    assert_false(p.ranks[2].gdr || p.ranks[3].gdr);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_PCIE);
    assert_int_equal(link_of(node, &p, 2, 3, 1), GDC_LINK_PCIE);
    assert_int_equal(link_of(node, &p, 0, 2, 1), GDC_LINK_SHM);
    assert_int_equal(link_of(node, &p, 0, 2, 0), GDC_LINK_SHM);
    assert_int_equal(link_of(node, &p, 0, 4, 1), GDC_LINK_NET_GDR);
    assert_int_equal(link_of(node, &p, 1, 5, 1), GDC_LINK_NET_GDR);
    assert_int_equal(link_of(node, &p, 2, 4, 1), GDC_LINK_NET); /* one end cannot */
    assert_int_equal(link_of(node, &p, 2, 6, 1), GDC_LINK_NET);
    assert_int_equal(link_of(node, &p, 0, 4, 0), GDC_LINK_NET);
    gdc_rt_topo_node_free(node);
}

static void test_pcie_findings(void **state)
{
    gdc_topo_node_t   *node = load_fixture("pcie-4gpu.xml");
    gdc_topo_finding_t f[8];
    uint8_t            socket0_only[4] = {1, 1, 0, 0};
    gdc_topo_env_t     one_node = {.ucx_cuda = 1, .peermem = 1, .multi_node = 0};

    assert_int_equal(gdc_rt_topo_findings(node, &full_env, NULL, f, 8), 4);
    assert_int_equal(f[0].kind, GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT);
    assert_int_equal(f[0].gpu, 0);
    assert_int_equal(f[0].severity, GDC_TOPO_SEV_INFO);
    assert_int_equal(f[1].kind, GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT);
    assert_int_equal(f[1].gpu, 1);
    for (int i = 2; i < 4; i++) {
        assert_int_equal(f[i].kind, GDC_TOPO_FINDING_GPU_FAR_NIC);
        assert_int_equal(f[i].gpu, i);
        assert_int_equal(f[i].severity, GDC_TOPO_SEV_WARN);
        assert_true(f[i].relevant);
        assert_non_null(strstr(f[i].text, "no RDMA NIC on its NUMA node"));
        assert_non_null(strstr(f[i].text, "mlx5_0"));
    }
    /* only the GPUs in use count */
    assert_int_equal(gdc_rt_topo_findings(node, &full_env, socket0_only, f, 8), 2);
    assert_int_equal(f[0].kind, GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT);
    assert_int_equal(f[1].kind, GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT);
    /* a job on one node: the NIC findings exist but do not matter to it */
    assert_int_equal(gdc_rt_topo_findings(node, &one_node, NULL, f, 8), 4);
    assert_false(f[2].relevant);
    /* fewer slots than findings: the count is still the whole */
    assert_int_equal(gdc_rt_topo_findings(node, &full_env, NULL, f, 1), 4);
    gdc_rt_topo_node_free(node);
}

static void test_driver_facts_replace_the_derived_ones(void **state)
{
    gdc_topo_node_t *node = load_fixture("pcie-4gpu.xml");
    placement_t      p    = {0};

    /* as NVML would say on a board whose sockets do pass P2P, and NVLink bridges 2-3 */
    gdc_rt_topo_node_set_p2p(node, 0, 2, GDC_TOPO_P2P_PCIE, GDC_TOPO_FACTS_NVML);
    gdc_rt_topo_node_set_p2p(node, 3, 2, GDC_TOPO_P2P_NVLINK, GDC_TOPO_FACTS_NVML);
    gdc_rt_topo_node_set_p2p(node, 1, 0, GDC_TOPO_P2P_NONE, GDC_TOPO_FACTS_NVML);
    gdc_rt_topo_node_set_p2p(node, 9, 0, GDC_TOPO_P2P_NONE, GDC_TOPO_FACTS_NVML); /* out of range: ignored */
    for (int g = 0; g < 4; g++) {
        place(&p, 0, g, node, &full_env);
    }
    assert_int_equal(link_of(node, &p, 2, 0, 1), GDC_LINK_PCIE);
    assert_int_equal(link_of(node, &p, 2, 3, 1), GDC_LINK_NVLINK);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_SHM);
    assert_int_equal(node->p2p_source, GDC_TOPO_FACTS_NVML);
    gdc_rt_topo_node_free(node);
}

/* ---------------------------------------------------------------------------------------
 * Single-GPU workstation: no RDMA NIC
 */
static void test_workstation(void **state)
{
    gdc_topo_node_t   *node = load_fixture("workstation-1gpu.xml");
    gdc_topo_finding_t f[4];
    gdc_topo_env_t     one_node = {.ucx_cuda = 1, .peermem = 1, .multi_node = 0};
    placement_t        p = {0};
    char               summary[512];

    assert_int_equal(node->num_packages, 1);
    assert_int_equal(node->num_gpus, 1);
    assert_string_equal(node->gpus[0].model, "NVIDIA GeForce RTX 4090");
    assert_int_equal(node->gpus[0].nic, -1);
    assert_int_equal(node->gpus[0].nic_path, GDC_TOPO_PATH_NONE);
    assert_int_equal(node->gpus[0].pci.package, 0);
    gdc_rt_topo_node_summary(node, summary, sizeof(summary));
    assert_non_null(strstr(summary, "GPUs: 1 x NVIDIA GeForce RTX 4090; NICs: enp5s0 (ethernet)"));
    assert_int_equal(gdc_rt_topo_findings(node, &full_env, NULL, f, 4), 1);
    assert_int_equal(f[0].kind, GDC_TOPO_FINDING_NO_RDMA_NIC);
    assert_true(f[0].relevant);
    assert_non_null(strstr(f[0].text, "enp5s0"));
    assert_int_equal(gdc_rt_topo_findings(node, &one_node, NULL, f, 4), 1);
    assert_false(f[0].relevant);
    place(&p, 0, 0, node, &full_env);
    place(&p, 1, 0, node, &full_env);
    assert_false(p.ranks[0].gdr);
    assert_int_equal(link_of(node, &p, 0, 1, 1), GDC_LINK_NET);
    assert_int_equal(link_of(node, &p, 0, 0, 1), GDC_LINK_SELF);
    gdc_rt_topo_node_free(node);
}

/* Sub-NUMA clustering: one package, two NUMA nodes, GPU and NIC local to the whole package
 * (no NUMA node of their own). They share a socket: GDR-capable, not across sockets. */
static const char snc_xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
    "<topology version=\"2.0\">\n"
    "  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" allowed_cpuset=\"0x00000003\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
    "    <info name=\"HostName\" value=\"snc\"/>\n"
    "    <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" gp_index=\"2\">\n"
    "      <object type=\"Group\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"3\" kind=\"1000\" subkind=\"0\">\n"
    "        <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\" local_memory=\"1073741824\"/>\n"
    "        <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\">\n"
    "          <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"6\"/>\n"
    "        </object>\n"
    "      </object>\n"
    "      <object type=\"Group\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"7\" kind=\"1000\" subkind=\"0\">\n"
    "        <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"8\" local_memory=\"1073741824\"/>\n"
    "        <object type=\"Core\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"9\">\n"
    "          <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"10\"/>\n"
    "        </object>\n"
    "      </object>\n"
    "      <object type=\"Bridge\" gp_index=\"11\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[10-11]\">\n"
    "        <object type=\"Bridge\" gp_index=\"12\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\"0000:[11-11]\" pci_busid=\"0000:10:01.0\" pci_type=\"0604 [8086:352a] [8086:0000] 04\" pci_link_speed=\"31.507692\">\n"
    "          <object type=\"PCIDev\" gp_index=\"13\" pci_busid=\"0000:11:00.0\" pci_type=\"0302 [10de:20b5] [10de:1533] a1\" pci_link_speed=\"31.507692\"/>\n"
    "        </object>\n"
    "      </object>\n"
    "      <object type=\"Bridge\" gp_index=\"14\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0000:[20-21]\">\n"
    "        <object type=\"Bridge\" gp_index=\"15\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\"0000:[21-21]\" pci_busid=\"0000:20:01.0\" pci_type=\"0604 [8086:352a] [8086:0000] 04\" pci_link_speed=\"31.507692\">\n"
    "          <object type=\"PCIDev\" gp_index=\"16\" pci_busid=\"0000:21:00.0\" pci_type=\"0207 [15b3:101b] [15b3:0006] 00\" pci_link_speed=\"31.507692\">\n"
    "            <object type=\"OSDev\" gp_index=\"17\" name=\"mlx5_0\" osdev_type=\"3\"/>\n"
    "          </object>\n"
    "        </object>\n"
    "      </object>\n"
    "    </object>\n"
    "  </object>\n"
    "</topology>\n"
;

static void test_sub_numa_clustering(void **state)
{
    char             path[] = "/tmp/gdc-topo-snc-XXXXXX";
    int              fd     = mkstemp(path);
    gdc_topo_node_t *node   = NULL;

    assert_true(fd >= 0);
    assert_true(write(fd, snc_xml, sizeof(snc_xml) - 1) == (ssize_t)(sizeof(snc_xml) - 1));
    close(fd);
    assert_int_equal(gdc_rt_topo_node_from_xml(path, &node), GDC_SUCCESS);
    unlink(path);
    assert_int_equal(node->num_numa, 2);
    assert_int_equal(node->num_gpus, 1);
    assert_int_equal(node->gpus[0].pci.numa, -1);
    assert_int_equal(node->gpus[0].pci.package, 0);
    assert_int_equal(node->gpus[0].nic, 0);
    assert_int_equal(node->gpus[0].nic_path, GDC_TOPO_PATH_NUMA);
    assert_true(gdc_rt_topo_gpu_gdr(node, 0, &full_env));
    gdc_rt_topo_node_free(node);
}

/* ---------------------------------------------------------------------------------------
 * Edges
 */
static void test_find_gpu_by_busid(void **state)
{
    gdc_topo_node_t *node = load_fixture("dgx-h100.xml");
    const char      *busid = node->gpus[5].pci.busid;
    char             nvml_style[32], upper[32];

    snprintf(nvml_style, sizeof(nvml_style), "0000%s", busid); /* NVML's 8-digit domain */
    snprintf(upper, sizeof(upper), "%s", busid);
    for (char *c = upper; *c; c++) {
        *c = (char)((*c >= 'a' && *c <= 'f') ? *c - 'a' + 'A' : *c);
    }
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, busid), 5);
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, nvml_style), 5);
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, upper), 5);
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, "0000:ff:1f.7"), -1);
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, "garbage"), -1);
    assert_int_equal(gdc_rt_topo_node_find_gpu(node, NULL), -1);
    gdc_rt_topo_node_free(node);
}

static void test_bad_xml_is_refused(void **state)
{
    char             path[] = "/tmp/gdc-topo-bad-XXXXXX";
    int              fd     = mkstemp(path);
    gdc_topo_node_t *node   = NULL;

    assert_true(fd >= 0);
    assert_true(write(fd, "<topology>not this\n", 19) == 19);
    close(fd);
    assert_int_equal(gdc_rt_topo_node_from_xml(path, &node), GDC_ERR_INVALID_ARG);
    assert_null(node);
    unlink(path);
    assert_int_equal(gdc_rt_topo_node_from_xml("/nonexistent/topology.xml", &node), GDC_ERR_INVALID_ARG);
    assert_null(node);
}

static void test_summary_truncates_safely(void **state)
{
    gdc_topo_node_t *node = load_fixture("dgx-h100.xml");
    char             small[16];
    char             full[512];
    int              need = gdc_rt_topo_node_summary(node, small, sizeof(small));

    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_int_equal(gdc_rt_topo_node_summary(node, full, sizeof(full)), need);
    assert_int_equal((int)strlen(full), need);
    assert_int_equal(strncmp(full, small, sizeof(small) - 1), 0);
    gdc_rt_topo_node_free(node);
}

static void test_names(void **state)
{
    static const char *const want[] = {"self", "shm", "nvlink", "pcie", "net-gdr", "net"};

    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        assert_string_equal(gdc_link_class_name((gdc_link_class_t)c), want[c]);
        assert_true(strlen(gdc_link_class_desc((gdc_link_class_t)c)) > 5);
    }
    assert_string_equal(gdc_link_class_name(GDC_LINK_NUM_CLASSES), "?");
    assert_string_equal(gdc_link_class_name((gdc_link_class_t)-1), "?");
    for (int k = 0; k < GDC_TOPO_FINDING_NUM_KINDS; k++) {
        assert_string_not_equal(gdc_topo_finding_kind_name((gdc_topo_finding_kind_t)k), "?");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vm_model),
        cmocka_unit_test(test_vm_classes),
        cmocka_unit_test(test_dgx_model),
        cmocka_unit_test(test_dgx_classes_two_nodes),
        cmocka_unit_test(test_dgx_without_peermem_stages_between_nodes),
        cmocka_unit_test(test_dgx_two_ranks_per_gpu_share_the_device),
        cmocka_unit_test(test_dgx_findings_clean),
        cmocka_unit_test(test_dgx_ucx_without_cuda),
        cmocka_unit_test(test_pcie_model),
        cmocka_unit_test(test_pcie_classes),
        cmocka_unit_test(test_pcie_findings),
        cmocka_unit_test(test_driver_facts_replace_the_derived_ones),
        cmocka_unit_test(test_workstation),
        cmocka_unit_test(test_sub_numa_clustering),
        cmocka_unit_test(test_find_gpu_by_busid),
        cmocka_unit_test(test_bad_xml_is_refused),
        cmocka_unit_test(test_summary_truncates_safely),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
