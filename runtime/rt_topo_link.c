/*
 * Link classes and findings from the node model: pure functions of the model, the ranks'
 * records and the node's software, so tests can place ranks on any fixture.
 */
#include "rt_topo.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *desc;
} link_classes[GDC_LINK_NUM_CLASSES] = {
    [GDC_LINK_SELF]    = {"self", "the rank itself"},
    [GDC_LINK_SHM]     = {"shm", "same node, host shared memory (device buffers staged through host)"},
    [GDC_LINK_NVLINK]  = {"nvlink", "same node, device buffers over NVLink/NVSwitch (CUDA IPC)"},
    [GDC_LINK_PCIE]    = {"pcie", "same node, device buffers over PCIe peer access (CUDA IPC)"},
    [GDC_LINK_NET_GDR] = {"net-gdr", "other node, device buffers by GPUDirect RDMA"},
    [GDC_LINK_NET]     = {"net", "other node, network from host memory (device buffers staged through host)"},
};

const char *gdc_link_class_name(gdc_link_class_t c)
{
    return (unsigned)c < GDC_LINK_NUM_CLASSES ? link_classes[c].name : "?";
}

const char *gdc_link_class_desc(gdc_link_class_t c)
{
    return (unsigned)c < GDC_LINK_NUM_CLASSES ? link_classes[c].desc : "?";
}

int gdc_rt_topo_gpu_gdr(const gdc_topo_node_t *node, int gpu, const gdc_topo_env_t *env)
{
    if (node == NULL || gpu < 0 || gpu >= node->num_gpus || !env->ucx_cuda || !env->peermem) {
        return 0;
    }
    return node->gpus[gpu].nic >= 0 && node->gpus[gpu].nic_path <= GDC_TOPO_PATH_NUMA;
}

gdc_link_class_t gdc_rt_topo_classify(const gdc_topo_node_t *my_node, const gdc_topo_rank_t *me,
                                      const gdc_topo_rank_t *peer, int on_device)
{
    int both_gpus = on_device && me->gpu >= 0 && peer->gpu >= 0;

    if (me->rank == peer->rank) {
        return GDC_LINK_SELF;
    }
    if (me->node != peer->node) {
        return both_gpus && me->gdr && peer->gdr ? GDC_LINK_NET_GDR : GDC_LINK_NET;
    }
    if (!both_gpus || my_node == NULL || me->gpu >= my_node->num_gpus || peer->gpu >= my_node->num_gpus) {
        return GDC_LINK_SHM;
    }
    switch (gdc_rt_topo_node_p2p(my_node, me->gpu, peer->gpu)) {
    case GDC_TOPO_P2P_NVLINK: return GDC_LINK_NVLINK;
    case GDC_TOPO_P2P_PCIE: return GDC_LINK_PCIE;
    case GDC_TOPO_P2P_NONE: break;
    }
    return GDC_LINK_SHM;
}

/* ---------------------------------------------------------------------------------------
 * Findings
 */

const char *gdc_topo_finding_kind_name(gdc_topo_finding_kind_t kind)
{
    switch (kind) {
    case GDC_TOPO_FINDING_NO_RDMA_NIC: return "no-rdma-nic";
    case GDC_TOPO_FINDING_GPU_FAR_NIC: return "gpu-far-nic";
    case GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT: return "gpu-nic-cross-root";
    case GDC_TOPO_FINDING_UCX_NO_CUDA: return "ucx-no-cuda";
    case GDC_TOPO_FINDING_NO_PEERMEM: return "no-peermem";
    case GDC_TOPO_FINDING_NUM_KINDS: break;
    }
    return "?";
}

typedef struct finding_list {
    gdc_topo_finding_t *out;
    int                 max;
    int                 count;
} finding_list_t;

static void add_finding(finding_list_t *list, gdc_topo_finding_kind_t kind, gdc_topo_severity_t severity,
                        int gpu, int relevant, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void add_finding(finding_list_t *list, gdc_topo_finding_kind_t kind, gdc_topo_severity_t severity,
                        int gpu, int relevant, const char *fmt, ...)
{
    if (list->count < list->max) {
        gdc_topo_finding_t *f = &list->out[list->count];
        va_list             ap;

        f->kind     = kind;
        f->severity = severity;
        f->gpu      = gpu;
        f->relevant = relevant;
        va_start(ap, fmt);
        vsnprintf(f->text, sizeof(f->text), fmt, ap);
        va_end(ap);
    }
    list->count++;
}

static int in_use(const uint8_t *gpus_in_use, int gpu)
{
    return gpus_in_use == NULL || gpus_in_use[gpu];
}

static void far_nic_findings(const gdc_topo_node_t *node, const gdc_topo_env_t *env, const uint8_t *gpus_in_use,
                             finding_list_t *list)
{
    for (int g = 0; g < node->num_gpus; g++) {
        const gdc_topo_gpu_t *gpu = &node->gpus[g];
        const gdc_topo_nic_t *nic = gpu->nic >= 0 ? &node->nics[gpu->nic] : NULL;

        if (!in_use(gpus_in_use, g) || nic == NULL) {
            continue;
        }
        if (gpu->nic_path == GDC_TOPO_PATH_SYSTEM) {
            add_finding(list, GDC_TOPO_FINDING_GPU_FAR_NIC, GDC_TOPO_SEV_WARN, g, env->multi_node,
                        "GPU %d (%s, NUMA %d) has no RDMA NIC on its NUMA node or root complex (nearest: %s on "
                        "NUMA %d, across the inter-socket link): GPUDirect RDMA is off for it and its traffic to "
                        "other nodes is staged through host memory; fix: a NIC on NUMA %d, or multi-node jobs on "
                        "GPUs near %s",
                        g, gpu->pci.busid, gpu->pci.numa, nic->name, nic->pci.numa, gpu->pci.numa, nic->name);
        } else if (gpu->nic_path == GDC_TOPO_PATH_NUMA) {
            add_finding(list, GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT, GDC_TOPO_SEV_INFO, g, env->multi_node,
                        "GPU %d (%s): its nearest RDMA NIC %s is on its NUMA node but under another PCIe root "
                        "complex, so GPUDirect RDMA crosses the CPU (slower than under one PCIe switch on many "
                        "CPUs)",
                        g, gpu->pci.busid, nic->name);
        }
    }
}

/* Does any GPU in use have an RDMA NIC close enough for GPUDirect RDMA? */
static int any_gdr_pair(const gdc_topo_node_t *node, const uint8_t *gpus_in_use)
{
    for (int g = 0; g < node->num_gpus; g++) {
        if (in_use(gpus_in_use, g) && node->gpus[g].nic >= 0 && node->gpus[g].nic_path <= GDC_TOPO_PATH_NUMA) {
            return 1;
        }
    }
    return 0;
}

int gdc_rt_topo_findings(const gdc_topo_node_t *node, const gdc_topo_env_t *env, const uint8_t *gpus_in_use,
                         gdc_topo_finding_t *out, int max)
{
    finding_list_t list = {out, max, 0};
    int            used = 0, rdma_nics = 0;

    for (int g = 0; g < node->num_gpus; g++) {
        used += in_use(gpus_in_use, g);
    }
    for (int n = 0; n < node->num_nics; n++) {
        rdma_nics += node->nics[n].rdma;
    }
    if (used == 0) {
        return 0;
    }
    if (!env->ucx_cuda) {
        add_finding(&list, GDC_TOPO_FINDING_UCX_NO_CUDA, GDC_TOPO_SEV_WARN, -1, 1,
                    "UCX on node %s cannot move CUDA memory (no cuda_copy/cuda_ipc transport): device buffers "
                    "are staged through host memory; fix: a UCX built with CUDA (check: ucx_info -d | grep cuda)",
                    node->hostname);
    }
    if (rdma_nics == 0) {
        add_finding(&list, GDC_TOPO_FINDING_NO_RDMA_NIC, GDC_TOPO_SEV_WARN, -1, env->multi_node,
                    "node %s has GPUs but no RDMA NIC (InfiniBand or RoCE verbs device): device buffers to "
                    "other nodes are staged through host memory over %s",
                    node->hostname, node->num_nics > 0 ? node->nics[0].name : "TCP");
        return list.count;
    }
    far_nic_findings(node, env, gpus_in_use, &list);
    if (env->ucx_cuda && !env->peermem && any_gdr_pair(node, gpus_in_use)) {
        add_finding(&list, GDC_TOPO_FINDING_NO_PEERMEM, GDC_TOPO_SEV_WARN, -1, env->multi_node,
                    "node %s: GPUDirect RDMA needs the nvidia_peermem kernel module or dma-buf support, and "
                    "neither was found: device buffers to other nodes are staged through host memory; fix: "
                    "modprobe nvidia_peermem (or the open NVIDIA kernel modules with Linux >= 5.12 for dma-buf)",
                    node->hostname);
    }
    return list.count;
}
