/*
 * What the topology model asks the machine: hwloc loading, the CUDA driver (rt_cuda.h) and
 * NVML (both loaded at run time, so the same binary runs without a driver), sysfs and
 * procfs. Internal to the runtime and gdinfo; gdinfo --doctor's own checks and probes are
 * in launcher/gdinfo_doctor.h.
 */
#ifndef GDC_RT_TOPO_PROBE_H
#define GDC_RT_TOPO_PROBE_H

#include <gdc.h>

#include <stddef.h>
#include <stdint.h>

#include "rt_topo.h"

/* Load a topology: from xml_path when not NULL/empty, else this machine's (without hwloc's
 * GPU plugins). with_io: discover the PCI tree and OS devices (GPUs, NICs). */
gdc_status_t gdc_rt_topo_load(const char *xml_path, int with_io, struct hwloc_topology **out);

/* A model that knows nothing (no GPU, no NIC): for a node hwloc cannot read. */
gdc_status_t gdc_rt_topo_node_unknown(gdc_topo_node_t **out);

/* This machine's model (or GDC_TOPO_XML's when xml_path is set), with the driver's peer
 * access facts applied when a driver is there and the model is not replayed. */
gdc_status_t gdc_rt_topo_probe_node(const char *xml_path, gdc_topo_node_t **out);

/* ---------------------------------------------------------------------------------------
 * CUDA driver (rt_topo_cuda.c)
 */

/* 1 when the CUDA driver is there with a device and the entry points the model uses. */
int gdc_rt_topo_cuda_load(void);
/* The PCI bus id of the GPU this process uses (see rt_topo.h for the rule); 0 on success.
 * *from_context is set when a CUDA context was current. */
int gdc_rt_topo_cuda_my_gpu(int local_rank, char *busid, size_t len, int *from_context);
/* Does the driver offer dma-buf (GPUDirect RDMA without nvidia_peermem) on that GPU? */
int gdc_rt_topo_cuda_dma_buf(const char *busid);
/* Peer access between the visible devices, into the node model. Returns the number of
 * pairs recorded. */
int gdc_rt_topo_cuda_fill_p2p(gdc_topo_node_t *node);

/* NVML: every GPU of the node, whatever CUDA_VISIBLE_DEVICES says. */
int gdc_rt_topo_nvml_load(void);
/* P2P read access and NVLink between every pair of the model's GPUs; pairs recorded. */
int gdc_rt_topo_nvml_fill_p2p(gdc_topo_node_t *node);

typedef struct gdc_topo_nvml_gpu {
    char     name[96];
    uint64_t bar1_bytes;     /* 0 when unknown */
    uint64_t memory_bytes;   /* 0 when unknown */
    int      nvlinks_active; /* -1 when unknown */
} gdc_topo_nvml_gpu_t;
/* Facts NVML has about one GPU; 0 on success. Only gdinfo --doctor asks (BAR1 sizes); it
 * lives here, beside the NVML loader that the model needs anyway. */
int gdc_rt_topo_nvml_gpu(const char *busid, gdc_topo_nvml_gpu_t *out);
/* Shut NVML down (finalize). The CUDA driver stays loaded for the process. */
void gdc_rt_topo_probe_unload(void);

/* ---------------------------------------------------------------------------------------
 * sysfs and procfs (rt_topo_sysfs.c). Every path is read under a root, "" for the real
 * machine; the tests point it at a fake tree. gdinfo's own readers (PCIe links, BARs,
 * IOMMU, ACS: launcher/gdinfo_sysfs.h) read under the same root.
 */
void        gdc_rt_topo_sysfs_set_root(const char *root);
const char *gdc_rt_topo_sysfs_root(void);

/* The loaded peer-memory module: "nvidia_peermem", "nv_peer_mem", or NULL. */
const char *gdc_rt_topo_sysfs_peermem(void);

#endif
