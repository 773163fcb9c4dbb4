/*
 * The topology model: what each pair of ranks goes through, and what on this node keeps
 * gdc off the fast path.
 *
 * Three layers:
 *  - the node model (gdc_topo_node_t): packages, NUMA nodes, cores, the GPUs and NICs on
 *    the PCI tree with their locality, the PCIe path between every GPU and NIC and the
 *    peer access between GPUs. Built from a loaded hwloc topology by a pure function, so
 *    the tests build it from XML fixtures of real machine shapes (share/topo/).
 *  - the classification: a link class for a pair of ranks (gdc_topo_rank_t: node, GPU,
 *    GPUDirect RDMA capability) and findings (what is slow and why), also pure.
 *  - this process's state (rt_topo.c): the model of my node, the CUDA/NVML facts, a small
 *    record per rank exchanged through PMIx, gdc_rt_topo_link() for the layers above.
 *
 * Which GPU a rank uses: the device of the current CUDA context when one is current at
 * gdc_init; else visible device (local rank mod number of visible devices), where visible
 * means what CUDA_VISIBLE_DEVICES lets the driver show; mapped to the node's GPU by PCI bus
 * id (local rank mod the model's GPUs when the driver's device is not in hwloc's tree).
 * Without a CUDA driver a rank has no GPU (device buffers cannot exist), unless GDC_TOPO_XML
 * replays another machine: then it is GPU (local rank mod number of GPUs in the model), so
 * a replayed DGX shows its NVLink matrix.
 * The node's GPUs are numbered in PCI bus order, as nvidia-smi and NVML number them.
 */
#ifndef GDC_RT_TOPO_H
#define GDC_RT_TOPO_H

#include <gdc.h>

#include <stddef.h>
#include <stdint.h>

struct hwloc_topology;

/* ---------------------------------------------------------------------------------------
 * Link classes
 */
typedef enum {
    GDC_LINK_SELF = 0,   /* the rank itself */
    GDC_LINK_SHM,        /* same node through host shared memory (host buffers; or device buffers
                          * without peer access, staged through host) */
    GDC_LINK_NVLINK,     /* same node, device buffers, CUDA IPC over NVLink / NVSwitch (or both
                          * ranks on one GPU: IPC inside the device) */
    GDC_LINK_PCIE,       /* same node, device buffers, CUDA IPC over PCIe peer access */
    GDC_LINK_NET_GDR,    /* other node, device buffers, GPUDirect RDMA (both ends capable) */
    GDC_LINK_NET,        /* other node through the network from host memory (host buffers, or
                          * device buffers staged through host) */
    GDC_LINK_NUM_CLASSES
} gdc_link_class_t;

/* "self", "shm", "nvlink", "pcie", "net-gdr", "net"; "?" for anything else. */
const char *gdc_link_class_name(gdc_link_class_t c);
/* One line on what the class means, for legends. */
const char *gdc_link_class_desc(gdc_link_class_t c);

/* The class between this rank and peer (world ranks) for buffers in host or device memory.
 * A rank without a GPU gets the host classes. Valid between gdc_rt_topo_init and
 * gdc_rt_topo_finalize; the first query about a peer reads its record (cached). */
gdc_link_class_t gdc_rt_topo_link(int peer_world, int on_device);

/* Build this process's model (after gdc_rt_boot_init and gdc_rt_ucx_init, before the PMIx
 * fence of gdc_rt_boot_exchange: it publishes this rank's record). An XML file replaces
 * hwloc's discovery when GDC_TOPO_XML is set. */
gdc_status_t gdc_rt_topo_init(void);
/* After the fence: log the node's findings once (local rank 0, at warn when they matter to
 * this job, at info otherwise). */
void gdc_rt_topo_report(void);
void gdc_rt_topo_finalize(void);
/* GDC_TOPO_* parameters; registered before the configuration is read. */
void gdc_rt_topo_register_params(void);

/* ---------------------------------------------------------------------------------------
 * The node model
 */

/* How far apart two PCI devices are (nvidia-smi topo's PIX/PXB, PHB, NODE, SYS). */
typedef enum {
    GDC_TOPO_PATH_SWITCH = 0, /* below a common PCIe switch: traffic never reaches the CPU */
    GDC_TOPO_PATH_ROOT,       /* the same PCIe root complex (host bridge) */
    GDC_TOPO_PATH_NUMA,       /* the same NUMA node, across root complexes */
    GDC_TOPO_PATH_SYSTEM,     /* across NUMA nodes or sockets: the inter-socket link */
    GDC_TOPO_PATH_NONE        /* nothing there */
} gdc_topo_path_t;

const char *gdc_topo_path_name(gdc_topo_path_t path); /* "same PCIe switch", ... */

/* Peer access between two GPUs of a node. */
typedef enum {
    GDC_TOPO_P2P_NONE = 0,  /* no peer access: device buffers staged through host */
    GDC_TOPO_P2P_PCIE,
    GDC_TOPO_P2P_NVLINK
} gdc_topo_p2p_t;

typedef struct gdc_topo_pci {
    char     busid[16];    /* "0000:18:00.0" */
    uint16_t vendor, device;
    uint16_t class_id;     /* 0x0302: 3D controller, 0x0207: InfiniBand, ... */
    float    link_gbps;    /* hwloc's PCIe link speed of the device, GB/s; 0 when unknown */
    int      numa;         /* OS index of the NUMA node it is attached to; -1 when not one */
    int      package;      /* logical index of its package; -1 when not one */
    int      root;         /* index of its PCIe host bridge among the node's */
} gdc_topo_pci_t;

typedef struct gdc_topo_gpu {
    gdc_topo_pci_t  pci;
    char            model[64];  /* "NVIDIA H100 80GB HBM3" where hwloc knows, else the PCI ids */
    int             nic;        /* nearest RDMA NIC (index in nics), -1 when none */
    gdc_topo_path_t nic_path;   /* the path to it; GDC_TOPO_PATH_NONE when none */
} gdc_topo_gpu_t;

typedef struct gdc_topo_nic {
    gdc_topo_pci_t pci;
    char           name[32];    /* the verbs device ("mlx5_0") for RDMA NICs, else the netdev */
    char           netdev[32];  /* "ib0", "eth0", "" */
    int            rdma;        /* has a verbs (OpenFabrics) device */
    int            infiniband;  /* InfiniBand link layer (PCI class or netdev); else Ethernet */
} gdc_topo_nic_t;

typedef struct gdc_topo_node {
    char             hostname[64];
    int              num_packages, num_numa, num_cores, num_pus;
    size_t           llc_bytes;   /* the last-level cache of the first package (0: unknown) */
    size_t           core_cache_bytes; /* the first core's own cache below it: L2 (0: unknown) */
    int              num_roots;   /* PCIe host bridges */
    int              nvswitch;    /* NVSwitch devices on the PCI bus */
    int              io;          /* 1 when the PCI tree was discovered (0: no GPUs/NICs known) */
    int              num_gpus;
    gdc_topo_gpu_t  *gpus;        /* [num_gpus], PCI bus order */
    int              num_nics;
    gdc_topo_nic_t  *nics;        /* [num_nics], PCI bus order */
    gdc_topo_path_t *gpu_path;    /* [num_gpus * num_gpus] PCIe path between GPUs */
    uint8_t         *p2p;         /* [num_gpus * num_gpus] gdc_topo_p2p_t; diagonal NVLINK */
    int              p2p_source;  /* where p2p comes from: GDC_TOPO_FACTS_* */
} gdc_topo_node_t;

enum {
    GDC_TOPO_FACTS_TOPOLOGY = 0, /* derived from the PCI tree (NVSwitch: NVLink; same package: PCIe) */
    GDC_TOPO_FACTS_CUDA,         /* the CUDA driver's peer access (visible devices only) */
    GDC_TOPO_FACTS_NVML          /* NVML's P2P status, every GPU of the node */
};

/* Build the model from a loaded topology (with I/O objects for GPUs and NICs). The peer
 * access between GPUs is derived from the PCI tree until gdc_rt_topo_node_set_p2p replaces
 * it: NVLink between all GPUs when NVSwitch devices are present, PCIe between GPUs of one
 * package, none across packages. */
gdc_status_t gdc_rt_topo_node_build(struct hwloc_topology *topo, gdc_topo_node_t **out);
void gdc_rt_topo_node_free(gdc_topo_node_t *node);
/* Load an XML file (hwloc's format) with the I/O filters the model needs and build from
 * it. The topology is destroyed before returning. */
gdc_status_t gdc_rt_topo_node_from_xml(const char *path, gdc_topo_node_t **out);

/* Record peer access between GPUs a and b (both directions). */
void gdc_rt_topo_node_set_p2p(gdc_topo_node_t *node, int a, int b, gdc_topo_p2p_t p2p, int source);
static inline gdc_topo_p2p_t gdc_rt_topo_node_p2p(const gdc_topo_node_t *node, int a, int b)
{
    return (gdc_topo_p2p_t)node->p2p[a * node->num_gpus + b];
}
/* The index of the GPU with this PCI bus id ("0000:18:00.0", case and domain width
 * insensitive), or -1. */
int gdc_rt_topo_node_find_gpu(const gdc_topo_node_t *node, const char *busid);

/* A one-line summary: "node vm: 1 package, 1 NUMA node, 2 cores (2 PUs); GPUs: none; NICs:
 * eth0 (ethernet)". Returns the length that was needed (like snprintf). */
int gdc_rt_topo_node_summary(const gdc_topo_node_t *node, char *buf, size_t len);

/* ---------------------------------------------------------------------------------------
 * Classification and findings (pure)
 */

/* What the classification needs to know about a rank. */
typedef struct gdc_topo_rank {
    int rank;  /* world rank */
    int node;  /* job node index (gdc_rt_boot.node_of) */
    int gpu;   /* index in its node's GPU list; -1: no GPU */
    int numa;  /* NUMA node (OS index) its CPU binding lies in; -1: unbound or spanning */
    int gdr;   /* capable of GPUDirect RDMA (gdc_rt_topo_gpu_gdr) */
} gdc_topo_rank_t;

/* What the node's software offers, from probing (or from a test). */
typedef struct gdc_topo_env {
    int ucx_cuda;    /* UCX moves CUDA memory (gdc_rt_ucx_handles_cuda) */
    int peermem;     /* nvidia_peermem / nv_peer_mem loaded, or dma-buf usable */
    int multi_node;  /* the job spans nodes: NIC findings matter */
} gdc_topo_env_t;

/* Can a rank on this GPU do GPUDirect RDMA: UCX handles CUDA memory, a peer-memory module
 * or dma-buf is there, and an RDMA NIC sits on the GPU's NUMA node or root complex. */
int gdc_rt_topo_gpu_gdr(const gdc_topo_node_t *node, int gpu, const gdc_topo_env_t *env);

/* The class between me and peer. my_node is the model of me's node: it decides between
 * NVLink, PCIe and staging when both are on it. */
gdc_link_class_t gdc_rt_topo_classify(const gdc_topo_node_t *my_node, const gdc_topo_rank_t *me,
                                      const gdc_topo_rank_t *peer, int on_device);

typedef enum {
    GDC_TOPO_FINDING_NO_RDMA_NIC = 0, /* GPUs but no RDMA NIC on the node */
    GDC_TOPO_FINDING_GPU_FAR_NIC,     /* a GPU without an RDMA NIC on its NUMA node / root complex */
    GDC_TOPO_FINDING_GPU_NIC_CROSS_ROOT, /* nearest RDMA NIC on the same NUMA node, another root complex */
    GDC_TOPO_FINDING_UCX_NO_CUDA,     /* GPUs, but UCX cannot move CUDA memory */
    GDC_TOPO_FINDING_NO_PEERMEM,      /* RDMA NIC near a GPU, but no peer-memory module or dma-buf */
    GDC_TOPO_FINDING_NUM_KINDS
} gdc_topo_finding_kind_t;

typedef enum {
    GDC_TOPO_SEV_INFO = 0,  /* worth knowing; the path is still direct */
    GDC_TOPO_SEV_WARN       /* a slower path than the hardware could give */
} gdc_topo_severity_t;

typedef struct gdc_topo_finding {
    gdc_topo_finding_kind_t kind;
    gdc_topo_severity_t     severity;
    int                     gpu;       /* the GPU concerned; -1 for the node */
    int                     relevant;  /* matters to this job (e.g. NIC findings: multi-node) */
    char                    text[320]; /* what, why, what to do: one line */
} gdc_topo_finding_t;

/* Findings about the node's GPUs listed in gpus_in_use (a [num_gpus] array of flags; NULL:
 * every GPU). At most max are written to out; returns how many there are. */
int gdc_rt_topo_findings(const gdc_topo_node_t *node, const gdc_topo_env_t *env,
                         const uint8_t *gpus_in_use, gdc_topo_finding_t *out, int max);
const char *gdc_topo_finding_kind_name(gdc_topo_finding_kind_t kind); /* "no-rdma-nic", ... */

/* ---------------------------------------------------------------------------------------
 * This process's view (valid after gdc_rt_topo_init), for gdinfo and the layers above
 */
const gdc_topo_node_t *gdc_rt_topo_my_node(void);
/* This node's cores as its first rank's hwloc counted them (0: unknown): one number for
 * every rank of the node, which hwloc restricted to different cgroups need not give, for
 * what the node's ranks must agree on (the cost model's choices, the barrier's protocol). */
int gdc_rt_topo_node_cores(void);
/* This node's last-level cache in whole MiB, from the same record (0: unknown). */
int gdc_rt_topo_node_llc_mib(void);
/* ... and the cache of one of its cores in KiB (0: unknown). */
int gdc_rt_topo_node_core_cache_kib(void);
/* My record: GPU, NUMA binding, GPUDirect capability. */
const gdc_topo_rank_t *gdc_rt_topo_me(void);
/* Is the model replayed from GDC_TOPO_XML rather than discovered? */
int gdc_rt_topo_replayed(void);
/* GDC_TOPO_XML as the configuration read it ("" when unset). */
const char *gdc_rt_topo_xml_path(void);

#endif
