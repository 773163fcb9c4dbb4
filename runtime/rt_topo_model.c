/*
 * The node model from a loaded hwloc topology: counts, GPUs and NICs with their locality,
 * the PCIe path between devices, the nearest RDMA NIC of each GPU. Pure: it reads only
 * the topology it is given, so XML fixtures exercise it without the hardware.
 */
#include "rt_topo.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include <gdc.h>

#include "rt_log.h"
#include "rt_topo_probe.h"

#define PCI_VENDOR_NVIDIA      0x10de
#define PCI_BASE_CLASS_DISPLAY 0x03
#define PCI_BASE_CLASS_NETWORK 0x02
#define PCI_CLASS_INFINIBAND   0x0207
#define PCI_CLASS_OTHER_BRIDGE 0x0680 /* NVIDIA's NVSwitch */

const char *gdc_topo_path_name(gdc_topo_path_t path)
{
    switch (path) {
    case GDC_TOPO_PATH_SWITCH: return "same PCIe switch";
    case GDC_TOPO_PATH_ROOT: return "same root complex";
    case GDC_TOPO_PATH_NUMA: return "same NUMA node, other root complex";
    case GDC_TOPO_PATH_SYSTEM: return "other NUMA node";
    case GDC_TOPO_PATH_NONE: return "none";
    }
    return "?";
}

/* ---------------------------------------------------------------------------------------
 * Loading
 */

/* hwloc's GPU plugins would initialise CUDA, NVML, OpenCL or an X display inside every
 * rank at topology load (hundreds of milliseconds); we identify GPUs by their PCI class
 * and ask the driver ourselves, only when needed. The x86 backend (CPUID on every core)
 * adds only cache and CPU-model details the model never reads, and costs ~12 ms per
 * process on a VM, where CPUID traps; Linux's sysfs gives the topology alone. */
static void blacklist_slow_components(hwloc_topology_t topo)
{
#if HWLOC_API_VERSION >= 0x00020100
    static const char *const slow[] = {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl", "x86"};

    for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++) {
        (void)hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, slow[i]);
    }
#else
    (void)topo;
#endif
}

gdc_status_t gdc_rt_topo_load(const char *xml_path, int with_io, struct hwloc_topology **out)
{
    hwloc_topology_t topo;
    unsigned long    flags = 0;

    if (hwloc_topology_init(&topo) != 0) {
        GDC_LOG_ERROR("hwloc_topology_init failed");
        return GDC_ERR_NO_MEMORY;
    }
    /* Only what the model reads: data caches (the last level sizes the streaming copies),
     * and the I/O objects hwloc calls important (GPUs, NICs, storage, the bridges above). */
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, with_io ? HWLOC_TYPE_FILTER_KEEP_IMPORTANT
                                                     : HWLOC_TYPE_FILTER_KEEP_NONE);
#if HWLOC_API_VERSION >= 0x00020800
    flags |= HWLOC_TOPOLOGY_FLAG_NO_DISTANCES | HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS |
             HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS;
#endif
    hwloc_topology_set_flags(topo, flags);
    if (xml_path != NULL && xml_path[0] != '\0') {
        if (access(xml_path, R_OK) != 0) {
            GDC_LOG_ERROR("cannot read the topology XML file %s (GDC_TOPO_XML): %m", xml_path);
            hwloc_topology_destroy(topo);
            return GDC_ERR_INVALID_ARG;
        }
        if (hwloc_topology_set_xml(topo, xml_path) != 0) {
            GDC_LOG_ERROR("%s (GDC_TOPO_XML) is not a topology hwloc can load (export one with "
                          "lstopo --of xml)", xml_path);
            hwloc_topology_destroy(topo);
            return GDC_ERR_INVALID_ARG;
        }
    } else {
        blacklist_slow_components(topo);
    }
    if (hwloc_topology_load(topo) != 0) {
        if (xml_path != NULL && xml_path[0] != '\0') {
            GDC_LOG_ERROR("%s (GDC_TOPO_XML) is not a topology hwloc can load (export one with "
                          "lstopo --of xml)", xml_path);
        } else {
            GDC_LOG_ERROR("hwloc could not discover this machine's topology: %m");
        }
        hwloc_topology_destroy(topo);
        return xml_path != NULL && xml_path[0] != '\0' ? GDC_ERR_INVALID_ARG : GDC_ERR_INTERNAL;
    }
    *out = topo;
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_topo_node_from_xml(const char *path, gdc_topo_node_t **out)
{
    hwloc_topology_t topo;
    gdc_status_t     status = gdc_rt_topo_load(path, 1, &topo);

    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_rt_topo_node_build(topo, out);
    hwloc_topology_destroy(topo);
    return status;
}

/* ---------------------------------------------------------------------------------------
 * Locality of PCI objects
 */

/* The PCIe host bridges, in topology order: a device's root complex is an index here. */
typedef struct roots {
    int         count;
    hwloc_obj_t obj[64];
} roots_t;

static void collect_roots(hwloc_topology_t topo, roots_t *roots)
{
    roots->count = 0;
    for (hwloc_obj_t b = hwloc_get_next_bridge(topo, NULL); b != NULL; b = hwloc_get_next_bridge(topo, b)) {
        if (b->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST &&
            roots->count < (int)(sizeof(roots->obj) / sizeof(roots->obj[0]))) {
            roots->obj[roots->count++] = b;
        }
    }
}

static int root_of(hwloc_obj_t obj, const roots_t *roots)
{
    for (hwloc_obj_t o = obj; o != NULL && hwloc_obj_type_is_io(o->type); o = o->parent) {
        for (int i = 0; i < roots->count; i++) {
            if (roots->obj[i] == o) {
                return i;
            }
        }
    }
    return -1;
}

static void locate(hwloc_topology_t topo, hwloc_obj_t obj, const roots_t *roots, gdc_topo_pci_t *pci)
{
    hwloc_obj_t anchor = hwloc_get_non_io_ancestor_obj(topo, obj);
    hwloc_obj_t package = NULL;

    pci->numa    = -1;
    pci->package = -1;
    if (anchor != NULL && anchor->nodeset != NULL && hwloc_bitmap_weight(anchor->nodeset) == 1) {
        pci->numa = hwloc_bitmap_first(anchor->nodeset);
    }
    if (anchor != NULL) {
        package = anchor->type == HWLOC_OBJ_PACKAGE
                      ? anchor
                      : hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, anchor);
    }
    if (package != NULL) {
        pci->package = (int)package->logical_index;
    } else if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) == 1) {
        pci->package = 0;
    }
    pci->root = root_of(obj, roots);
}

static void describe_pci(hwloc_topology_t topo, hwloc_obj_t obj, const roots_t *roots, gdc_topo_pci_t *pci)
{
    const struct hwloc_pcidev_attr_s *a = &obj->attr->pcidev;

    snprintf(pci->busid, sizeof(pci->busid), "%04x:%02x:%02x.%01x", (unsigned)a->domain, a->bus, a->dev,
             a->func);
    pci->vendor    = a->vendor_id;
    pci->device    = a->device_id;
    pci->class_id  = a->class_id;
    pci->link_gbps = a->linkspeed;
    locate(topo, obj, roots, pci);
}

/*
 * The path between two I/O objects, from their lowest common ancestor: a PCI bridge or
 * device (a PCIe switch), a host bridge (one root complex), or a CPU-side object (then the
 * NUMA nodes decide). hwloc_get_common_ancestor_obj() compares depths, which I/O objects
 * do not have, so walk the parents.
 */
static gdc_topo_path_t path_between(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b, int numa_a, int numa_b)
{
    for (hwloc_obj_t pa = a; pa != NULL; pa = pa->parent) {
        for (hwloc_obj_t pb = b; pb != NULL; pb = pb->parent) {
            if (pa != pb) {
                continue;
            }
            if (pa->type == HWLOC_OBJ_PCI_DEVICE ||
                (pa->type == HWLOC_OBJ_BRIDGE && pa->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)) {
                return GDC_TOPO_PATH_SWITCH;
            }
            if (pa->type == HWLOC_OBJ_BRIDGE) {
                return GDC_TOPO_PATH_ROOT;
            }
            if (numa_a >= 0 && numa_b >= 0) {
                return numa_a == numa_b ? GDC_TOPO_PATH_NUMA : GDC_TOPO_PATH_SYSTEM;
            }
            /* A device local to a whole package (sub-NUMA clustering) has no NUMA node of
             * its own: within one package it still does not cross the inter-socket link. */
            if ((pa->nodeset != NULL && hwloc_bitmap_weight(pa->nodeset) == 1) || pa->type == HWLOC_OBJ_PACKAGE ||
                hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pa) != NULL) {
                return GDC_TOPO_PATH_NUMA;
            }
            return GDC_TOPO_PATH_SYSTEM;
        }
    }
    return GDC_TOPO_PATH_SYSTEM;
}

/* ---------------------------------------------------------------------------------------
 * Devices
 */

static int is_gpu(const struct hwloc_pcidev_attr_s *a)
{
    return a->vendor_id == PCI_VENDOR_NVIDIA && (a->class_id >> 8) == PCI_BASE_CLASS_DISPLAY;
}

static int is_nvswitch(hwloc_obj_t obj)
{
    return obj->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
           (obj->attr->pcidev.class_id == PCI_CLASS_OTHER_BRIDGE ||
            (obj->subtype != NULL && strcmp(obj->subtype, "NVSwitch") == 0));
}

static hwloc_obj_t first_osdev(hwloc_obj_t pci, hwloc_obj_osdev_type_t type)
{
    for (hwloc_obj_t c = pci->io_first_child; c != NULL; c = c->next_sibling) {
        if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == type) {
            return c;
        }
    }
    return NULL;
}

static int is_nic(hwloc_obj_t obj)
{
    return (obj->attr->pcidev.class_id >> 8) == PCI_BASE_CLASS_NETWORK ||
           obj->attr->pcidev.class_id == PCI_CLASS_INFINIBAND ||
           first_osdev(obj, HWLOC_OBJ_OSDEV_OPENFABRICS) != NULL;
}

static void describe_gpu(hwloc_topology_t topo, hwloc_obj_t obj, const roots_t *roots, gdc_topo_gpu_t *gpu)
{
    const char *model = NULL;

    describe_pci(topo, obj, roots, &gpu->pci);
    for (hwloc_obj_t c = obj->io_first_child; c != NULL && model == NULL; c = c->next_sibling) {
        model = hwloc_obj_get_info_by_name(c, "GPUModel");
    }
    if (model != NULL) {
        snprintf(gpu->model, sizeof(gpu->model), "%s", model);
    } else {
        snprintf(gpu->model, sizeof(gpu->model), "NVIDIA GPU [%04x:%04x]", gpu->pci.vendor, gpu->pci.device);
    }
    gpu->nic      = -1;
    gpu->nic_path = GDC_TOPO_PATH_NONE;
}

static void describe_nic(hwloc_topology_t topo, hwloc_obj_t obj, const roots_t *roots, gdc_topo_nic_t *nic)
{
    hwloc_obj_t verbs  = first_osdev(obj, HWLOC_OBJ_OSDEV_OPENFABRICS);
    hwloc_obj_t netdev = first_osdev(obj, HWLOC_OBJ_OSDEV_NETWORK);

    describe_pci(topo, obj, roots, &nic->pci);
    nic->rdma = verbs != NULL;
    snprintf(nic->netdev, sizeof(nic->netdev), "%s", netdev != NULL && netdev->name ? netdev->name : "");
    snprintf(nic->name, sizeof(nic->name), "%s",
             verbs != NULL && verbs->name ? verbs->name : nic->netdev[0] ? nic->netdev : nic->pci.busid);
    nic->infiniband = nic->pci.class_id == PCI_CLASS_INFINIBAND || strncmp(nic->netdev, "ib", 2) == 0;
}

/* The PCI objects of the model's GPUs and NICs, to compute paths between them. */
typedef struct device_objs {
    hwloc_obj_t *gpu;
    hwloc_obj_t *nic;
} device_objs_t;

static gdc_status_t collect_devices(hwloc_topology_t topo, gdc_topo_node_t *node, device_objs_t *objs)
{
    roots_t     roots;
    int         gpus = 0, nics = 0;
    hwloc_obj_t obj;

    collect_roots(topo, &roots);
    node->num_roots = roots.count;
    for (obj = hwloc_get_next_pcidev(topo, NULL); obj != NULL; obj = hwloc_get_next_pcidev(topo, obj)) {
        gpus += is_gpu(&obj->attr->pcidev);
        nics += !is_gpu(&obj->attr->pcidev) && is_nic(obj);
    }
    node->gpus = calloc((size_t)(gpus > 0 ? gpus : 1), sizeof(*node->gpus));
    node->nics = calloc((size_t)(nics > 0 ? nics : 1), sizeof(*node->nics));
    objs->gpu  = calloc((size_t)(gpus > 0 ? gpus : 1), sizeof(hwloc_obj_t));
    objs->nic  = calloc((size_t)(nics > 0 ? nics : 1), sizeof(hwloc_obj_t));
    if (node->gpus == NULL || node->nics == NULL || objs->gpu == NULL || objs->nic == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (obj = hwloc_get_next_pcidev(topo, NULL); obj != NULL; obj = hwloc_get_next_pcidev(topo, obj)) {
        node->io = 1;
        if (is_gpu(&obj->attr->pcidev)) {
            objs->gpu[node->num_gpus] = obj;
            describe_gpu(topo, obj, &roots, &node->gpus[node->num_gpus++]);
        } else if (is_nic(obj)) {
            objs->nic[node->num_nics] = obj;
            describe_nic(topo, obj, &roots, &node->nics[node->num_nics++]);
        } else if (is_nvswitch(obj)) {
            node->nvswitch++;
        }
    }
    return GDC_SUCCESS;
}

/*
 * Each GPU's RDMA NIC: the nearest; among equally near ones the one fewest GPUs took
 * already, so two GPUs under a switch with two NICs get one each (rails), then the lowest.
 */
static void assign_nics(hwloc_topology_t topo, gdc_topo_node_t *node, const device_objs_t *objs)
{
    int *load = calloc((size_t)(node->num_nics > 0 ? node->num_nics : 1), sizeof(int));

    for (int g = 0; g < node->num_gpus; g++) {
        gdc_topo_gpu_t *gpu = &node->gpus[g];

        for (int n = 0; n < node->num_nics; n++) {
            gdc_topo_path_t path;

            if (!node->nics[n].rdma) {
                continue;
            }
            path = path_between(topo, objs->gpu[g], objs->nic[n], gpu->pci.numa, node->nics[n].pci.numa);
            if (path < gpu->nic_path ||
                (path == gpu->nic_path && load != NULL && load[n] < load[gpu->nic])) {
                gpu->nic      = n;
                gpu->nic_path = path;
            }
        }
        if (gpu->nic >= 0 && load != NULL) {
            load[gpu->nic]++;
        }
    }
    free(load);
}

/* Peer access as the PCI tree suggests, until the driver says better. */
static void derive_p2p(gdc_topo_node_t *node)
{
    for (int a = 0; a < node->num_gpus; a++) {
        for (int b = 0; b < node->num_gpus; b++) {
            gdc_topo_p2p_t p2p;
            const gdc_topo_pci_t *pa = &node->gpus[a].pci, *pb = &node->gpus[b].pci;

            if (a == b || node->nvswitch > 0) {
                p2p = GDC_TOPO_P2P_NVLINK;
            } else if (node->gpu_path[a * node->num_gpus + b] <= GDC_TOPO_PATH_NUMA ||
                       (pa->package >= 0 && pa->package == pb->package)) {
                p2p = GDC_TOPO_P2P_PCIE;
            } else {
                p2p = GDC_TOPO_P2P_NONE;
            }
            node->p2p[a * node->num_gpus + b] = (uint8_t)p2p;
        }
    }
    node->p2p_source = GDC_TOPO_FACTS_TOPOLOGY;
}

static size_t last_level_cache(hwloc_topology_t topo)
{
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
                                              HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};

    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        hwloc_obj_t cache = hwloc_get_obj_by_type(topo, levels[i], 0);
        if (cache != NULL && cache->attr != NULL && cache->attr->cache.size > 0) {
            return (size_t)cache->attr->cache.size;
        }
    }
    return 0;
}

/* The cache of one core under the last level (L2 where there is an L3). */
static size_t core_cache(hwloc_topology_t topo)
{
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);

    if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE) == 0 || l2 == NULL || l2->attr == NULL) {
        return 0;
    }
    return (size_t)l2->attr->cache.size;
}

static void count_cpus(hwloc_topology_t topo, gdc_topo_node_t *node)
{
    const char *host = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "HostName");

    node->num_packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    node->num_numa     = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    node->num_cores    = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    node->num_pus      = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    node->llc_bytes    = last_level_cache(topo);
    node->core_cache_bytes = core_cache(topo);
    snprintf(node->hostname, sizeof(node->hostname), "%s", host != NULL ? host : "");
}

gdc_status_t gdc_rt_topo_node_build(struct hwloc_topology *topo, gdc_topo_node_t **out)
{
    gdc_topo_node_t *node = calloc(1, sizeof(*node));
    device_objs_t    objs = {NULL, NULL};
    size_t           pairs;
    gdc_status_t     status = GDC_ERR_NO_MEMORY;

    if (node == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    count_cpus(topo, node);
    if (collect_devices(topo, node, &objs) != GDC_SUCCESS) {
        goto err_free;
    }
    pairs          = (size_t)(node->num_gpus > 0 ? node->num_gpus * node->num_gpus : 1);
    node->gpu_path = calloc(pairs, sizeof(*node->gpu_path));
    node->p2p      = calloc(pairs, sizeof(*node->p2p));
    if (node->gpu_path == NULL || node->p2p == NULL) {
        goto err_free;
    }
    for (int a = 0; a < node->num_gpus; a++) {
        for (int b = 0; b < node->num_gpus; b++) {
            node->gpu_path[a * node->num_gpus + b] =
                a == b ? GDC_TOPO_PATH_SWITCH
                       : path_between(topo, objs.gpu[a], objs.gpu[b], node->gpus[a].pci.numa, node->gpus[b].pci.numa);
        }
    }
    assign_nics(topo, node, &objs);
    derive_p2p(node);
    free(objs.gpu);
    free(objs.nic);
    *out = node;
    return GDC_SUCCESS;

err_free:
    free(objs.gpu);
    free(objs.nic);
    gdc_rt_topo_node_free(node);
    return status;
}

gdc_status_t gdc_rt_topo_node_unknown(gdc_topo_node_t **out)
{
    gdc_topo_node_t *node = calloc(1, sizeof(*node));

    if (node == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    node->gpus     = calloc(1, sizeof(*node->gpus));
    node->nics     = calloc(1, sizeof(*node->nics));
    node->gpu_path = calloc(1, sizeof(*node->gpu_path));
    node->p2p      = calloc(1, sizeof(*node->p2p));
    if (node->gpus == NULL || node->nics == NULL || node->gpu_path == NULL || node->p2p == NULL) {
        gdc_rt_topo_node_free(node);
        return GDC_ERR_NO_MEMORY;
    }
    if (gethostname(node->hostname, sizeof(node->hostname)) != 0) {
        node->hostname[0] = '\0';
    }
    node->hostname[sizeof(node->hostname) - 1] = '\0';
    *out = node;
    return GDC_SUCCESS;
}

void gdc_rt_topo_node_free(gdc_topo_node_t *node)
{
    if (node == NULL) {
        return;
    }
    free(node->p2p);
    free(node->gpu_path);
    free(node->nics);
    free(node->gpus);
    free(node);
}

void gdc_rt_topo_node_set_p2p(gdc_topo_node_t *node, int a, int b, gdc_topo_p2p_t p2p, int source)
{
    if (a < 0 || b < 0 || a >= node->num_gpus || b >= node->num_gpus) {
        return;
    }
    node->p2p[a * node->num_gpus + b] = (uint8_t)p2p;
    node->p2p[b * node->num_gpus + a] = (uint8_t)p2p;
    node->p2p_source                  = source;
}

/* "0000:18:00.0", "00000000:18:00.0" (NVML) and "0000:18:00.0" in capitals all name one
 * device: compare domain, bus, device and function as numbers. */
static int parse_busid(const char *text, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *func)
{
    return sscanf(text, "%x:%x:%x.%x", domain, bus, dev, func) == 4 ? 0 : -1;
}

int gdc_rt_topo_node_find_gpu(const gdc_topo_node_t *node, const char *busid)
{
    unsigned d, b, v, f;

    if (busid == NULL || parse_busid(busid, &d, &b, &v, &f) != 0) {
        return -1;
    }
    for (int g = 0; g < node->num_gpus; g++) {
        unsigned gd, gb, gv, gf;
        if (parse_busid(node->gpus[g].pci.busid, &gd, &gb, &gv, &gf) == 0 && gd == d && gb == b && gv == v &&
            gf == f) {
            return g;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------------------------------
 * Summary
 */

typedef struct text {
    char  *buf;
    size_t len;
    size_t used; /* what was needed, may exceed len */
} text_t;

static void text_add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    int     n;
    size_t  room = t->used < t->len ? t->len - t->used : 0;

    va_start(ap, fmt);
    n = vsnprintf(room > 0 ? t->buf + t->used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) {
        t->used += (size_t)n;
    }
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Split "mlx5_12" into "mlx5_" and 12; -1 when the name ends in no number. */
static long name_number(const char *name, size_t *prefix_len)
{
    size_t len = strlen(name), i = len;

    while (i > 0 && isdigit((unsigned char)name[i - 1])) {
        i--;
    }
    *prefix_len = i;
    return i < len ? strtol(name + i, NULL, 10) : -1;
}

static const char *nic_kind(const gdc_topo_nic_t *nic)
{
    return nic->infiniband ? "infiniband" : "ethernet";
}

/* Do NICs a and b belong to one run "mlx5_0-7": same kind, same prefix, b's number next? */
static int same_run(const gdc_topo_nic_t *a, const gdc_topo_nic_t *b)
{
    size_t pa, pb;
    long   na = name_number(a->name, &pa), nb = name_number(b->name, &pb);

    return na >= 0 && nb == na + 1 && pa == pb && strncmp(a->name, b->name, pa) == 0 && a->rdma == b->rdma &&
           a->infiniband == b->infiniband;
}

/* Summary order: RDMA NICs first, then by name prefix and number ("mlx5_2" before "mlx5_10"). */
static int nic_order(const void *pa, const void *pb)
{
    const gdc_topo_nic_t *a = *(const gdc_topo_nic_t *const *)pa, *b = *(const gdc_topo_nic_t *const *)pb;
    size_t                la, lb;
    long                  na = name_number(a->name, &la), nb = name_number(b->name, &lb);
    int                   c;

    if (a->rdma != b->rdma) {
        return b->rdma - a->rdma;
    }
    c = strncmp(a->name, b->name, la < lb ? la : lb);
    if (c != 0 || la != lb) {
        return c != 0 ? c : (la < lb ? -1 : 1);
    }
    return na < nb ? -1 : na > nb;
}

static void summarize_nics(const gdc_topo_node_t *node, text_t *t)
{
    const gdc_topo_nic_t **sorted;

    if (node->num_nics == 0) {
        text_add(t, "none");
        return;
    }
    sorted = malloc((size_t)node->num_nics * sizeof(*sorted));
    if (sorted == NULL) {
        text_add(t, "%d", node->num_nics);
        return;
    }
    for (int n = 0; n < node->num_nics; n++) {
        sorted[n] = &node->nics[n];
    }
    qsort(sorted, (size_t)node->num_nics, sizeof(*sorted), nic_order);
    for (int n = 0; n < node->num_nics;) {
        int    last = n;
        size_t prefix;

        while (last + 1 < node->num_nics && same_run(sorted[last], sorted[last + 1])) {
            last++;
        }
        text_add(t, "%s%s", n > 0 ? ", " : "", sorted[n]->name);
        if (last > n) {
            (void)name_number(sorted[last]->name, &prefix);
            text_add(t, "-%s", sorted[last]->name + prefix);
        }
        text_add(t, " (%s%s)", nic_kind(sorted[n]), sorted[n]->rdma ? ", RDMA" : "");
        n = last + 1;
    }
    free(sorted);
}

static void summarize_gpus(const gdc_topo_node_t *node, text_t *t)
{
    if (node->num_gpus == 0) {
        text_add(t, "none");
        return;
    }
    /* "8 x NVIDIA H100 80GB HBM3", models in order of first appearance */
    for (int g = 0; g < node->num_gpus; g++) {
        int seen = 0, count = 0;

        for (int p = 0; p < g && !seen; p++) {
            seen = strcmp(node->gpus[p].model, node->gpus[g].model) == 0;
        }
        if (seen) {
            continue;
        }
        for (int o = g; o < node->num_gpus; o++) {
            count += strcmp(node->gpus[o].model, node->gpus[g].model) == 0;
        }
        text_add(t, "%s%d x %s", g > 0 ? ", " : "", count, node->gpus[g].model);
    }
    if (node->nvswitch > 0) {
        text_add(t, ", NVSwitch");
    }
}

int gdc_rt_topo_node_summary(const gdc_topo_node_t *node, char *buf, size_t len)
{
    text_t t = {buf, len, 0};

    if (len > 0) {
        buf[0] = '\0';
    }
    text_add(&t, "node %s: %d %s, %d NUMA %s, %d %s (%d %s)", node->hostname[0] ? node->hostname : "?",
             node->num_packages, plural(node->num_packages, "package", "packages"), node->num_numa,
             plural(node->num_numa, "node", "nodes"), node->num_cores, plural(node->num_cores, "core", "cores"),
             node->num_pus, plural(node->num_pus, "PU", "PUs"));
    if (!node->io) {
        text_add(&t, "; PCI devices not discovered");
        return (int)t.used;
    }
    text_add(&t, "; GPUs: ");
    summarize_gpus(node, &t);
    text_add(&t, "; NICs: ");
    summarize_nics(node, &t);
    return (int)t.used;
}
