/*
 * This process's topology: the model of my node (hwloc once per process, I/O objects only
 * when a GPU can matter), my GPU and binding, a 12-byte record per rank through PMIx, and
 * the link class of every peer, computed on first query and cached.
 *
 * Start-up cost: without a CUDA driver, hwloc loads without I/O discovery (CPUs only, ~3 ms
 * on the development VM, ~11 ms with I/O); with one, the PCI tree is read once. NVML is
 * opened only at the first question about device buffers between two GPUs of this node,
 * so host-only jobs never pay for it. Peers' records are read from PMIx on first query,
 * so a large job pays nothing at gdc_init for peers it never asks about.
 */
#include "rt_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include <gdc.h>

#include "rt_boot.h"
#include "rt_config.h"
#include "rt_log.h"
#include "rt_memtype.h"
#include "rt_topo_probe.h"
#include "rt_ucx.h"

#define GDC_RT_TOPO_KEY   "gdc.topo"
#define GDC_RT_TOPO_MAGIC 0x67746f70u /* "gtop" */

/* What each rank publishes. */
typedef struct topo_record {
    uint32_t magic;
    int16_t  gpu;   /* index in its node's GPU list, -1 */
    int16_t  numa;  /* NUMA node of its binding, -1 */
    uint8_t  gdr;
    uint8_t  pad;
    uint16_t cores;   /* of its node, as its hwloc counts them (0: unknown) */
    uint16_t llc_mib; /* its node's last-level cache, whole MiB (0: unknown) */
    uint16_t core_cache_kib; /* its node's cache of one core, KiB (0: unknown) */
} topo_record_t;

static const char *topo_xml = "";

static const gdc_rt_param_t topo_params[] = {
    {"GDC_TOPO_XML", "",
     "hwloc XML file that replaces this node's discovery (lstopo --of xml; share/topo/ has examples): "
     "to see what gdc would do on another machine",
     gdc_rt_parse_string, &topo_xml},
};

void gdc_rt_topo_register_params(void)
{
    gdc_rt_config_register("topology", topo_params, (int)(sizeof(topo_params) / sizeof(topo_params[0])));
}

static struct {
    int              initialized;
    int              replayed;
    int              p2p_probed; /* the driver was asked about peer access */
    gdc_topo_node_t *node;
    gdc_topo_rank_t  me;
    gdc_topo_env_t   env;
    topo_record_t   *records;  /* [size]; magic 0 until read */
    int8_t          *classes;  /* [size * 2]: host, device; -1 until computed */
} topo;

/* ---------------------------------------------------------------------------------------
 * Building the model
 */

/* The NUMA node the process is bound within, or -1 (unbound, or bound across nodes). */
static int binding_numa(hwloc_topology_t t)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int            numa = -1;

    if (set != NULL && hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_obj_t obj = NULL;
        int         matches = 0;

        while ((obj = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, obj)) != NULL) {
            if (obj->cpuset != NULL && !hwloc_bitmap_iszero(obj->cpuset) && hwloc_bitmap_isincluded(set, obj->cpuset)) {
                numa = (int)obj->os_index;
                matches++;
            }
        }
        if (matches != 1) {
            numa = -1; /* not within exactly one NUMA node */
        }
    }
    hwloc_bitmap_free(set);
    return numa;
}

/* Peer access from the driver where it is there: NVML sees every GPU; the CUDA driver only
 * the visible ones. A replayed model keeps what its PCI tree implies. */
static void apply_driver_facts(gdc_topo_node_t *node)
{
    if (node->num_gpus < 2 || !gdc_rt_topo_cuda_load()) {
        return;
    }
    if (gdc_rt_topo_nvml_fill_p2p(node) == 0) {
        (void)gdc_rt_topo_cuda_fill_p2p(node);
    }
}

static gdc_status_t build_model(const char *xml, int with_io, int want_p2p, gdc_topo_node_t **out, int *numa)
{
    hwloc_topology_t t;
    int              replay = xml != NULL && xml[0] != '\0';
    gdc_status_t     status = gdc_rt_topo_load(xml, with_io || replay, &t);

    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_rt_topo_node_build(t, out);
    if (status == GDC_SUCCESS && numa != NULL) {
        *numa = replay ? -1 : binding_numa(t);
    }
    hwloc_topology_destroy(t);
    if (status == GDC_SUCCESS && !replay && want_p2p) {
        apply_driver_facts(*out);
    }
    return status;
}

gdc_status_t gdc_rt_topo_probe_node(const char *xml_path, gdc_topo_node_t **out)
{
    return build_model(xml_path, 1, 1, out, NULL);
}

/* My GPU, by the rule of rt_topo.h. */
static int choose_gpu(const gdc_topo_node_t *node, int local_rank, int replayed)
{
    char busid[32];
    int  from_context = 0, gpu;

    if (node->num_gpus == 0) {
        return -1;
    }
    if (!replayed && gdc_rt_topo_cuda_my_gpu(local_rank, busid, sizeof(busid), &from_context) == 0) {
        gpu = gdc_rt_topo_node_find_gpu(node, busid);
        if (gpu >= 0) {
            GDC_LOG_DEBUG("topology: GPU %d (%s) from %s", gpu, busid,
                          from_context ? "the current CUDA context" : "local rank mod visible devices");
            return gpu;
        }
        GDC_LOG_DEBUG("topology: CUDA device %s is not in hwloc's PCI tree; using local rank mod GPUs", busid);
    }
    return local_rank % node->num_gpus;
}

/* A count for the record's 16 bits (0, unknown, where it does not fit). */
static uint16_t record_u16(size_t value)
{
    return value <= UINT16_MAX ? (uint16_t)value : 0;
}

/* What I publish, and what I take for my own record. */
static topo_record_t my_record(void)
{
    const gdc_topo_node_t *node = topo.node;
    topo_record_t          rec  = {GDC_RT_TOPO_MAGIC, (int16_t)topo.me.gpu, (int16_t)topo.me.numa,
                                   (uint8_t)topo.me.gdr, 0, 0, 0, 0};

    if (node != NULL) {
        rec.cores          = node->num_cores > 0 ? record_u16((size_t)node->num_cores) : 0;
        rec.llc_mib        = record_u16(node->llc_bytes >> 20);
        rec.core_cache_kib = record_u16(node->core_cache_bytes >> 10);
    }
    return rec;
}

static gdc_status_t publish_record(void)
{
    topo_record_t record = my_record();

    return gdc_rt_boot_put(GDC_RT_TOPO_KEY, &record, sizeof(record));
}

static void describe_me(void)
{
    const gdc_topo_gpu_t *gpu     = topo.me.gpu >= 0 ? &topo.node->gpus[topo.me.gpu] : NULL;
    char                  numa[32] = "not bound within one NUMA node";

    if (topo.me.numa >= 0) {
        snprintf(numa, sizeof(numa), "bound to NUMA node %d", topo.me.numa);
    }
    GDC_LOG_INFO("topology: rank %d: GPU %s%s%s, %s, GPUDirect RDMA %s%s%s", topo.me.rank,
                 gpu != NULL ? gpu->pci.busid : "none", gpu != NULL ? " " : "", gpu != NULL ? gpu->model : "",
                 numa, topo.me.gdr ? "yes via " : "no", topo.me.gdr ? topo.node->nics[gpu->nic].name : "",
                 topo.replayed ? " (model replayed from GDC_TOPO_XML)" : "");
}

/* My GPU, my node's software, and from them my GPUDirect RDMA capability. */
static void probe_me(void)
{
    topo.me.rank        = gdc_rt_boot.rank;
    topo.me.node        = gdc_rt_boot.node_of[gdc_rt_boot.rank];
    topo.me.gpu         = choose_gpu(topo.node, gdc_rt_boot.local_rank, topo.replayed);
    topo.env.ucx_cuda   = gdc_rt_ucx_handles_cuda();
    topo.env.multi_node = gdc_rt_boot.num_nodes > 1;
    topo.env.peermem    = gdc_rt_topo_sysfs_peermem() != NULL ||
                       (topo.me.gpu >= 0 && !topo.replayed &&
                        gdc_rt_topo_cuda_dma_buf(topo.node->gpus[topo.me.gpu].pci.busid));
    topo.me.gdr = gdc_rt_topo_gpu_gdr(topo.node, topo.me.gpu, &topo.env);
}

gdc_status_t gdc_rt_topo_init(void)
{
    int size = gdc_rt_boot.size;
    int with_io;
    gdc_status_t status;

    double started = gdc_wtime();

    memset(&topo, 0, sizeof(topo));
    topo.replayed = topo_xml[0] != '\0';
    /* Without a CUDA device the PCI tree cannot change any link class: skip its discovery. */
    with_io = topo.replayed || gdc_rt_cuda_available();
    status  = build_model(topo_xml, with_io, 0, &topo.node, &topo.me.numa);
    if (status != GDC_SUCCESS && !topo.replayed && status != GDC_ERR_NO_MEMORY) {
        /* A machine hwloc cannot read (a locked-down container) still runs, knowing less. */
        GDC_LOG_WARN("topology: hwloc could not discover this node; every peer on it counts as shared memory "
                     "and no GPU is known");
        status = gdc_rt_topo_node_unknown(&topo.node);
        topo.me.numa = -1;
    }
    if (status != GDC_SUCCESS) {
        return status;
    }
    probe_me();
    topo.records = calloc((size_t)size, sizeof(*topo.records));
    topo.classes = malloc((size_t)size * 2);
    if (topo.records == NULL || topo.classes == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto err_free;
    }
    memset(topo.classes, -1, (size_t)size * 2);
    status = publish_record();
    if (status != GDC_SUCCESS) {
        goto err_free;
    }
    topo.initialized = 1;
    describe_me();
    GDC_LOG_DEBUG("topology: model built in %.1f ms (%s)", 1e3 * (gdc_wtime() - started),
                  with_io ? "with the PCI tree" : "CPUs only: no CUDA device");
    return GDC_SUCCESS;

err_free:
    free(topo.classes);
    free(topo.records);
    gdc_rt_topo_node_free(topo.node);
    memset(&topo, 0, sizeof(topo));
    return status;
}

void gdc_rt_topo_finalize(void)
{
    free(topo.classes);
    free(topo.records);
    gdc_rt_topo_node_free(topo.node);
    memset(&topo, 0, sizeof(topo));
    gdc_rt_topo_probe_unload();
}

/* ---------------------------------------------------------------------------------------
 * Peers
 */

/* A peer's record, read from PMIx once; a peer whose record cannot be read counts as
 * having no GPU (the safe answer: host classes). */
static const topo_record_t *peer_record(int peer)
{
    topo_record_t *rec = &topo.records[peer];
    topo_record_t  got;

    if (rec->magic == GDC_RT_TOPO_MAGIC) {
        return rec;
    }
    if (peer == topo.me.rank) {
        *rec = my_record();
        return rec;
    }
    *rec = (topo_record_t){GDC_RT_TOPO_MAGIC, -1, -1, 0, 0, 0, 0, 0}; /* unknown, unless PMIx has it */
    if (gdc_rt_boot_get(peer, GDC_RT_TOPO_KEY, &got, sizeof(got)) == 0 && got.magic == GDC_RT_TOPO_MAGIC) {
        *rec = got;
    } else {
        GDC_LOG_WARN_ONCE("topology: no record of rank %d from PMIx: its GPU is unknown, so device buffers to it "
                          "take the host path",
                          peer);
    }
    return rec;
}

static gdc_topo_rank_t peer_rank(int peer)
{
    const topo_record_t *rec = peer_record(peer);
    gdc_topo_rank_t      r   = {peer, gdc_rt_boot.node_of[peer], rec->gpu, rec->numa, rec->gdr};

    return r;
}

gdc_link_class_t gdc_rt_topo_link(int peer_world, int on_device)
{
    int8_t *cached;

    if (!topo.initialized || peer_world < 0 || peer_world >= gdc_rt_boot.size) {
        return peer_world == gdc_rt_boot.rank ? GDC_LINK_SELF : GDC_LINK_SHM;
    }
    on_device = on_device ? 1 : 0;
    cached    = &topo.classes[peer_world * 2 + on_device];
    if (*cached < 0) {
        gdc_topo_rank_t peer = peer_rank(peer_world);

        if (on_device && peer.node == topo.me.node && peer.gpu >= 0 && topo.me.gpu >= 0 && peer.gpu != topo.me.gpu &&
            !topo.p2p_probed && !topo.replayed) {
            topo.p2p_probed = 1;
            apply_driver_facts(topo.node);
        }
        *cached = (int8_t)gdc_rt_topo_classify(topo.node, &topo.me, &peer, on_device);
    }
    if (on_device && topo.me.gpu >= 0 && !topo.env.ucx_cuda && peer_world != topo.me.rank &&
        gdc_rt_boot.local_rank == 0) {
        GDC_LOG_WARN_ONCE("topology: UCX on this node cannot move CUDA memory (no cuda_copy/cuda_ipc "
                          "transport): device buffers are staged through host memory; fix: a UCX built with "
                          "CUDA (check: ucx_info -d | grep cuda)");
    }
    return (gdc_link_class_t)*cached;
}

/* ---------------------------------------------------------------------------------------
 * Findings
 */

void gdc_rt_topo_report(void)
{
    gdc_topo_finding_t findings[16];
    uint8_t           *in_use;
    int                count;

    if (!topo.initialized || gdc_rt_boot.local_rank != 0 || topo.node->num_gpus == 0) {
        return;
    }
    in_use = calloc((size_t)topo.node->num_gpus, 1);
    if (in_use == NULL) {
        return;
    }
    for (int r = 0; r < gdc_rt_boot.size; r++) {
        if (gdc_rt_boot.node_of[r] == topo.me.node) {
            const topo_record_t *rec = peer_record(r);
            if (rec->gpu >= 0 && rec->gpu < topo.node->num_gpus) {
                in_use[rec->gpu] = 1;
            }
        }
    }
    count = gdc_rt_topo_findings(topo.node, &topo.env, in_use, findings, 16);
    for (int i = 0; i < count && i < 16; i++) {
        /* UCX without CUDA is said at the first use of device buffers (gdc_rt_topo_link). */
        if (findings[i].severity == GDC_TOPO_SEV_WARN && findings[i].relevant &&
            findings[i].kind != GDC_TOPO_FINDING_UCX_NO_CUDA) {
            GDC_LOG_WARN("topology: %s", findings[i].text);
        } else {
            GDC_LOG_INFO("topology: %s", findings[i].text);
        }
    }
    free(in_use);
}

/* ---------------------------------------------------------------------------------------
 * Accessors
 */

const gdc_topo_node_t *gdc_rt_topo_my_node(void)
{
    return topo.node;
}

/* The record of my node's first rank; mine before the job's records are there. */
static topo_record_t node_first_record(void)
{
    int first = gdc_rt_boot.rank;

    if (!topo.initialized || gdc_rt_boot.node_of == NULL) {
        return my_record();
    }
    for (int r = 0; r < gdc_rt_boot.rank; r++) {
        if (gdc_rt_boot.node_of[r] == topo.me.node) {
            first = r;
            break;
        }
    }
    return *peer_record(first);
}

int gdc_rt_topo_node_cores(void)
{
    return node_first_record().cores;
}

int gdc_rt_topo_node_llc_mib(void)
{
    return node_first_record().llc_mib;
}

int gdc_rt_topo_node_core_cache_kib(void)
{
    return node_first_record().core_cache_kib;
}

const gdc_topo_rank_t *gdc_rt_topo_me(void)
{
    return topo.initialized ? &topo.me : NULL;
}

int gdc_rt_topo_replayed(void)
{
    return topo.replayed;
}

const char *gdc_rt_topo_xml_path(void)
{
    return topo_xml;
}
