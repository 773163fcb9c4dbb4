/*
 * What the topology model asks the machine: hwloc loading, the CUDA driver (rt_cuda.h) and
 * NVML (both loaded at run time, so the same binary runs without a driver), sysfs and
 * procfs; and gdinfo --doctor's checks built on them. Internal to the runtime and gdinfo.
 */
#ifndef GDC_RT_TOPO_PROBE_H
#define GDC_RT_TOPO_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_topo.h"

/* Load a topology: from xml_path when not NULL/empty, else this machine's (without hwloc's
 * GPU plugins). with_io: discover the PCI tree and OS devices (GPUs, NICs). */
int gdc_rt_topo_load(const char *xml_path, int with_io, struct hwloc_topology **out);

/* A model that knows nothing (no GPU, no NIC): for a node hwloc cannot read. */
int gdc_rt_topo_node_unknown(gdc_topo_node_t **out);

/* This machine's model (or GDC_TOPO_XML's when xml_path is set), with the driver's peer
 * access facts applied when a driver is there and the model is not replayed. */
int gdc_rt_topo_probe_node(const char *xml_path, gdc_topo_node_t **out);

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
/* Facts NVML has about one GPU; 0 on success. */
int gdc_rt_topo_nvml_gpu(const char *busid, gdc_topo_nvml_gpu_t *out);
/* Shut NVML down (finalize). The CUDA driver stays loaded for the process. */
void gdc_rt_topo_probe_unload(void);

/* ---------------------------------------------------------------------------------------
 * sysfs and procfs (rt_topo_sysfs.c). Every path is read under a root, "" for the real
 * machine; the tests point it at a fake tree.
 */
void        gdc_rt_topo_sysfs_set_root(const char *root);
const char *gdc_rt_topo_sysfs_root(void);

typedef struct gdc_topo_pcie_link {
    int cur_gen, cur_width;   /* what the link runs at now (GPUs slow it down when idle) */
    int max_gen, max_width;   /* what the device can do */
    int port_gen, port_width; /* what the port above it can do; 0 when unknown */
    char port[16];            /* that port's bus id */
} gdc_topo_pcie_link_t;
/* 0 on success; -1 when the device has no sysfs entry or no PCIe link attributes. */
int gdc_rt_topo_sysfs_pcie_link(const char *busid, gdc_topo_pcie_link_t *out);
/* Size of BAR bar (0..5) from the device's resource file; 0 on success. */
int gdc_rt_topo_sysfs_bar_size(const char *busid, int bar, uint64_t *bytes);
/* The loaded peer-memory module: "nvidia_peermem", "nv_peer_mem", or NULL. */
const char *gdc_rt_topo_sysfs_peermem(void);
/* IOMMU: number of groups in /sys/kernel/iommu_groups (0: off), whether the kernel command
 * line asks for passthrough (iommu=pt). */
void gdc_rt_topo_sysfs_iommu(int *groups, int *passthrough);
/* ACS on the PCIe switch ports above a device: 1 when some port redirects peer-to-peer
 * traffic (their bus ids listed in bridges), 0 when none does, -1 when a configuration
 * space cannot be read (not root), -2 when the device is not in sysfs. */
int gdc_rt_topo_sysfs_acs_redirect(const char *busid, char *bridges, size_t len);

/* ---------------------------------------------------------------------------------------
 * UCX as gdinfo sees it (a context of its own; gdc_init's is not needed)
 */
typedef struct gdc_topo_ucx_info {
    int  cuda_module;   /* UCX's CUDA module (libuct_cuda) is installed */
    int  cuda_memory;   /* the context reports CUDA memory support */
    int  cuda_copy, cuda_ipc, gdr_copy; /* CUDA transports among its resources */
    int  rdma;          /* a verbs transport (rc/dc/ud) among its resources */
    char transports[256]; /* the transport names, "self tcp sysv posix cma" */
    char module_dir[200];
} gdc_topo_ucx_info_t;
int gdc_rt_topo_ucx_probe(gdc_topo_ucx_info_t *out);

/* ---------------------------------------------------------------------------------------
 * gdinfo --doctor (rt_topo_doctor.c)
 */
typedef enum {
    GDC_DOCTOR_OK = 0,
    GDC_DOCTOR_NA,
    GDC_DOCTOR_WARN,
    GDC_DOCTOR_FAIL
} gdc_doctor_status_t;

const char *gdc_doctor_status_name(gdc_doctor_status_t status); /* "ok", "n/a", "warn", "fail" */

typedef struct gdc_doctor_check {
    const char         *name;      /* "peermem", "gpu-nic", ... */
    gdc_doctor_status_t status;
    char                text[400]; /* why, and what to do */
} gdc_doctor_check_t;

/* What the checks look at; gdc_rt_topo_doctor_probe fills it from this machine, tests by
 * hand. */
typedef struct gdc_doctor_input {
    const gdc_topo_node_t *node;
    int                    replayed;       /* node from GDC_TOPO_XML */
    int                    cuda_driver;    /* the CUDA driver loaded with devices */
    int                    cuda_devices;
    int                    cuda_version;   /* 12040 for 12.4 */
    int                    nvml;           /* NVML loaded: BAR1 sizes from it */
    const char            *peermem;        /* module name or NULL */
    int                    dma_buf;        /* the driver reports dma-buf on the GPUs */
    gdc_topo_ucx_info_t    ucx;
} gdc_doctor_input_t;

int gdc_rt_topo_doctor_probe(const char *xml_path, gdc_doctor_input_t *in, gdc_topo_node_t **node);

typedef void (*gdc_doctor_emit_fn_t)(const gdc_doctor_check_t *check, void *arg);
/* Run every check, emitting one result per check (some checks emit one per GPU). Returns
 * the worst status seen among ok, warn and fail. */
gdc_doctor_status_t gdc_rt_topo_doctor(const gdc_doctor_input_t *in, gdc_doctor_emit_fn_t emit, void *arg);

#endif
