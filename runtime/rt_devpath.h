/*
 * The path device buffers take to one peer, from what is known about the pair: a pure
 * function of plain inputs, so that every combination is tested without a GPU and the
 * line GDC_LOG=info prints per peer says the same as the choice.
 */
#ifndef GDC_RT_DEVPATH_H
#define GDC_RT_DEVPATH_H

#include <stddef.h>

#include <gdc.h>

/* Best first. */
typedef enum {
    GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU = 0, /* both ranks on one GPU: copies inside its memory */
    GDC_RT_DEVPATH_CUDA_IPC_NVLINK,       /* gdc maps the peer's memory, NVLink between the GPUs */
    GDC_RT_DEVPATH_CUDA_IPC_PCIE,         /* gdc maps the peer's memory, PCIe peer-to-peer */
    GDC_RT_DEVPATH_UCX_CUDA_GDR,          /* UCX moves device memory, the NIC reads it directly */
    GDC_RT_DEVPATH_UCX_CUDA,              /* UCX moves device memory, staging it itself */
    GDC_RT_DEVPATH_HOST_STAGED,           /* gdc copies through pinned host chunks */
    GDC_RT_DEVPATH_COUNT
} gdc_rt_devpath_kind_t;

typedef enum {
    GDC_RT_DEVPATH_LINK_NONE = 0, /* not known, or no peer-to-peer wire */
    GDC_RT_DEVPATH_LINK_PCIE,
    GDC_RT_DEVPATH_LINK_NVLINK
} gdc_rt_devpath_link_t;

/* What the caller found out; each a 0/1 flag but link. */
typedef struct gdc_rt_devpath_caps {
    int                   same_node;
    int                   same_gpu;     /* counts only with same_node: bus ids repeat across nodes */
    int                   peer_access;  /* cuDeviceCanAccessPeer between the two GPUs */
    gdc_rt_devpath_link_t link;         /* between the two GPUs */
    int                   ipc_capable;  /* legacy CUDA IPC (cuMemAlloc); 0 for VMM and pool memory */
    int                   ucx_cuda;     /* UCX has CUDA transports (cuda_copy, cuda_ipc) */
    int                   gdr;          /* GPUDirect RDMA between this GPU and the NIC */
} gdc_rt_devpath_caps_t;

typedef struct gdc_rt_devpath {
    gdc_rt_devpath_kind_t kind;
    /* Why not a faster path, with the fix where there is one; "" for the best path the
     * pair could have. */
    char reason[224];
} gdc_rt_devpath_t;

/* Pure: no driver calls. */
void gdc_rt_devpath_choose(const gdc_rt_devpath_caps_t *caps, gdc_rt_devpath_t *out);

/* "cuda-ipc nvlink", ..., "host-staged"; "unknown" outside the enumeration. */
const char *gdc_rt_devpath_name(gdc_rt_devpath_kind_t kind);

/* Whether gdc maps the peer's memory itself on this path. */
static inline int gdc_rt_devpath_is_ipc(gdc_rt_devpath_kind_t kind)
{
    return kind == GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU || kind == GDC_RT_DEVPATH_CUDA_IPC_NVLINK ||
           kind == GDC_RT_DEVPATH_CUDA_IPC_PCIE;
}

#endif
