/*
 * The device path to one peer. Inside a node gdc maps the peer's memory itself (CUDA IPC)
 * whenever the driver can; otherwise, and between nodes, UCX moves device memory when it
 * has CUDA transports, and gdc stages through host memory when it has not. Every path but
 * the best one the pair could have carries the reason, so nothing falls back silently.
 */
#include "rt_devpath.h"

#include <stdio.h>

static const char *const kind_names[GDC_RT_DEVPATH_COUNT] = {
    [GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU] = "cuda-ipc same-gpu",
    [GDC_RT_DEVPATH_CUDA_IPC_NVLINK]   = "cuda-ipc nvlink",
    [GDC_RT_DEVPATH_CUDA_IPC_PCIE]     = "cuda-ipc pcie",
    [GDC_RT_DEVPATH_UCX_CUDA_GDR]      = "ucx-cuda (gdr)",
    [GDC_RT_DEVPATH_UCX_CUDA]          = "ucx-cuda (no gdr)",
    [GDC_RT_DEVPATH_HOST_STAGED]       = "host-staged",
};

const char *gdc_rt_devpath_name(gdc_rt_devpath_kind_t kind)
{
    return (unsigned)kind < GDC_RT_DEVPATH_COUNT ? kind_names[kind] : "unknown";
}

#define NO_UCX_CUDA "UCX has no cuda transport; build UCX with --with-cuda"

void gdc_rt_devpath_choose(const gdc_rt_devpath_caps_t *caps, gdc_rt_devpath_t *out)
{
    const char *why_not_ipc;

    out->reason[0] = '\0';
    if (!caps->same_node) {
        if (!caps->ucx_cuda) {
            out->kind = GDC_RT_DEVPATH_HOST_STAGED;
            snprintf(out->reason, sizeof(out->reason), "%s", NO_UCX_CUDA);
        } else if (!caps->gdr) {
            out->kind = GDC_RT_DEVPATH_UCX_CUDA;
            snprintf(out->reason, sizeof(out->reason),
                     "no GPUDirect RDMA between the GPU and the NIC (nvidia_peermem or dma-buf missing, or no RDMA "
                     "NIC; see gdinfo --doctor): UCX stages device memory through the host");
        } else {
            out->kind = GDC_RT_DEVPATH_UCX_CUDA_GDR;
        }
        return;
    }

    if (!caps->ipc_capable) {
        why_not_ipc = "the buffer is VMM or pool memory (cuMemCreate, cudaMallocAsync), which legacy CUDA IPC "
                      "cannot map";
    } else if (caps->same_gpu) {
        /* One GPU needs no peer access: the mapping is in the same device's memory. */
        out->kind = GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU;
        return;
    } else if (caps->peer_access) {
        if (caps->link == GDC_RT_DEVPATH_LINK_NVLINK) {
            out->kind = GDC_RT_DEVPATH_CUDA_IPC_NVLINK;
        } else {
            /* Access without a known wire is priced as the slower one. */
            out->kind = GDC_RT_DEVPATH_CUDA_IPC_PCIE;
            snprintf(out->reason, sizeof(out->reason), "%s",
                     caps->link == GDC_RT_DEVPATH_LINK_PCIE
                         ? "no NVLink between the two GPUs: peer-to-peer over PCIe"
                         : "peer access between the two GPUs over an unknown link: taken as PCIe");
        }
        return;
    } else {
        why_not_ipc = "no peer access between the two GPUs (ACS or the IOMMU blocks PCIe peer-to-peer, or their "
                      "root complexes do not forward it)";
    }

    /* GPUDirect RDMA is the NIC's: inside a node UCX's CUDA transports copy, not the NIC. */
    if (caps->ucx_cuda) {
        out->kind = GDC_RT_DEVPATH_UCX_CUDA;
        snprintf(out->reason, sizeof(out->reason), "%s: UCX moves it", why_not_ipc);
    } else {
        out->kind = GDC_RT_DEVPATH_HOST_STAGED;
        snprintf(out->reason, sizeof(out->reason), "%s, and " NO_UCX_CUDA, why_not_ipc);
    }
}
