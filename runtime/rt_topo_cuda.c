/*
 * The CUDA driver and NVML as the topology model uses them. The driver through gdc's one
 * wrapper (rt_cuda.h); NVML, a library of its own, dlopen'd here so the same binary runs
 * where it is not installed. NVML's few types and entry points are declared with the
 * values of nvml.h, so the build needs no header of it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rt_cuda.h"
#include "rt_log.h"
#include "rt_topo_probe.h"

typedef int   nvml_return_t;
typedef void *nvml_device_t;

#define NVML_SUCCESS              0
#define NVML_P2P_CAPS_INDEX_READ  0
#define NVML_P2P_CAPS_INDEX_NVLINK 2
#define NVML_P2P_STATUS_OK        0
#define NVML_NVLINK_MAX_LINKS     18
#define NVML_FEATURE_ENABLED      1

typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory_t; /* nvmlMemory_t and nvmlBAR1Memory_t have this layout */

static struct {
    int  tried;
    int  ok;
    void *lib;
    nvml_return_t (*init)(void);
    nvml_return_t (*shutdown)(void);
    nvml_return_t (*handle_by_bus_id)(const char *, nvml_device_t *);
    nvml_return_t (*p2p_status)(nvml_device_t, nvml_device_t, int, int *);
    nvml_return_t (*bar1_info)(nvml_device_t, nvml_memory_t *);
    nvml_return_t (*memory_info)(nvml_device_t, nvml_memory_t *);
    nvml_return_t (*get_name)(nvml_device_t, char *, unsigned);
    nvml_return_t (*nvlink_state)(nvml_device_t, unsigned, int *);
} nvml;

/* One entry point into *fn_ptr (a function pointer's address); 0 when found. */
static int load_symbol(void *lib, const char *name, void *fn_ptr)
{
    void *sym = dlsym(lib, name);

    if (sym == NULL) {
        GDC_LOG_DEBUG("%s not found: %s", name, dlerror());
        return -1;
    }
    memcpy(fn_ptr, &sym, sizeof(sym));
    return 0;
}

int gdc_rt_topo_cuda_load(void)
{
    const gdc_rt_cuda_api_t *cu = &gdc_rt_cuda;

    if (!gdc_rt_cuda_load()) {
        return 0; /* no driver, or no device: nothing to ask */
    }
    if (cu->cuDeviceGet == NULL || cu->cuDeviceGetPCIBusId == NULL || cu->cuDeviceCanAccessPeer == NULL ||
        cu->cuDeviceGetAttribute == NULL || cu->cuCtxGetCurrent == NULL || cu->cuCtxGetDevice == NULL) {
        GDC_LOG_DEBUG("CUDA driver lacks an entry point the topology model uses");
        return 0;
    }
    return 1;
}

/* A visible device's bus id, lower case ("0000:18:00.0"). */
static int device_busid(gdc_rt_cu_device_t dev, char *busid, size_t len)
{
    char buf[32];

    if (gdc_rt_cuda.cuDeviceGetPCIBusId(buf, (int)sizeof(buf), dev) != GDC_RT_CUDA_SUCCESS) {
        return -1;
    }
    for (char *p = buf; *p; p++) {
        *p = (char)((*p >= 'A' && *p <= 'F') ? *p - 'A' + 'a' : *p);
    }
    snprintf(busid, len, "%s", buf);
    return 0;
}

int gdc_rt_topo_cuda_my_gpu(int local_rank, char *busid, size_t len, int *from_context)
{
    const gdc_rt_cuda_api_t *cu  = &gdc_rt_cuda;
    gdc_rt_cu_context_t      ctx = NULL;
    gdc_rt_cu_device_t       dev;
    int                      count = 0;

    if (!gdc_rt_topo_cuda_load()) {
        return -1;
    }
    *from_context = 0;
    if (cu->cuCtxGetCurrent(&ctx) == GDC_RT_CUDA_SUCCESS && ctx != NULL &&
        cu->cuCtxGetDevice(&dev) == GDC_RT_CUDA_SUCCESS) {
        *from_context = 1;
    } else if (cu->cuDeviceGetCount(&count) != GDC_RT_CUDA_SUCCESS || count <= 0 ||
               cu->cuDeviceGet(&dev, local_rank % count) != GDC_RT_CUDA_SUCCESS) {
        return -1;
    }
    return device_busid(dev, busid, len);
}

/* The visible device with this bus id, or -1. */
static int visible_device(const char *busid, gdc_rt_cu_device_t *out)
{
    int count = 0;

    if (!gdc_rt_topo_cuda_load() || gdc_rt_cuda.cuDeviceGetCount(&count) != GDC_RT_CUDA_SUCCESS) {
        return -1;
    }
    for (int i = 0; i < count; i++) {
        gdc_rt_cu_device_t dev;
        char               id[32];
        unsigned           d1, b1, v1, f1, d2, b2, v2, f2;

        if (gdc_rt_cuda.cuDeviceGet(&dev, i) == GDC_RT_CUDA_SUCCESS && device_busid(dev, id, sizeof(id)) == 0 &&
            sscanf(id, "%x:%x:%x.%x", &d1, &b1, &v1, &f1) == 4 &&
            sscanf(busid, "%x:%x:%x.%x", &d2, &b2, &v2, &f2) == 4 && d1 == d2 && b1 == b2 && v1 == v2 &&
            f1 == f2) {
            *out = dev;
            return 0;
        }
    }
    return -1;
}

int gdc_rt_topo_cuda_dma_buf(const char *busid)
{
    gdc_rt_cu_device_t dev;
    int                supported = 0;

    if (visible_device(busid, &dev) != 0) {
        return 0;
    }
    return gdc_rt_cuda.cuDeviceGetAttribute(&supported, GDC_RT_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) ==
               GDC_RT_CUDA_SUCCESS &&
           supported;
}

int gdc_rt_topo_cuda_fill_p2p(gdc_topo_node_t *node)
{
    const gdc_rt_cuda_api_t *cu    = &gdc_rt_cuda;
    int                      count = 0, pairs = 0;

    if (!gdc_rt_topo_cuda_load() || cu->cuDeviceGetCount(&count) != GDC_RT_CUDA_SUCCESS) {
        return 0;
    }
    for (int i = 0; i < count; i++) {
        for (int j = i + 1; j < count; j++) {
            gdc_rt_cu_device_t di, dj;
            char               bi[32], bj[32];
            int                gi, gj, access = 0;

            if (cu->cuDeviceGet(&di, i) != GDC_RT_CUDA_SUCCESS || cu->cuDeviceGet(&dj, j) != GDC_RT_CUDA_SUCCESS ||
                device_busid(di, bi, sizeof(bi)) || device_busid(dj, bj, sizeof(bj))) {
                continue;
            }
            gi = gdc_rt_topo_node_find_gpu(node, bi);
            gj = gdc_rt_topo_node_find_gpu(node, bj);
            if (gi < 0 || gj < 0 || cu->cuDeviceCanAccessPeer(&access, di, dj) != GDC_RT_CUDA_SUCCESS) {
                continue;
            }
            /* CUDA tells access, not the wire: keep NVLink where the PCI tree showed NVSwitch. */
            gdc_rt_topo_node_set_p2p(node, gi, gj,
                                     !access ? GDC_TOPO_P2P_NONE
                                     : gdc_rt_topo_node_p2p(node, gi, gj) == GDC_TOPO_P2P_NVLINK
                                         ? GDC_TOPO_P2P_NVLINK
                                         : GDC_TOPO_P2P_PCIE,
                                     GDC_TOPO_FACTS_CUDA);
            pairs++;
        }
    }
    return pairs;
}

/* ---------------------------------------------------------------------------------------
 * NVML
 */

int gdc_rt_topo_nvml_load(void)
{
    if (nvml.tried) {
        return nvml.ok;
    }
    nvml.tried = 1;
    nvml.lib   = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml.lib == NULL) {
        GDC_LOG_DEBUG("NVML not loaded (%s)", dlerror());
        return 0;
    }
    if (load_symbol(nvml.lib, "nvmlInit_v2", &nvml.init) || load_symbol(nvml.lib, "nvmlShutdown", &nvml.shutdown) ||
        load_symbol(nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2", &nvml.handle_by_bus_id) ||
        load_symbol(nvml.lib, "nvmlDeviceGetP2PStatus", &nvml.p2p_status) ||
        load_symbol(nvml.lib, "nvmlDeviceGetBAR1MemoryInfo", &nvml.bar1_info) ||
        load_symbol(nvml.lib, "nvmlDeviceGetMemoryInfo", &nvml.memory_info) ||
        load_symbol(nvml.lib, "nvmlDeviceGetName", &nvml.get_name) ||
        load_symbol(nvml.lib, "nvmlDeviceGetNvLinkState", &nvml.nvlink_state)) {
        goto err_close;
    }
    if (nvml.init() != NVML_SUCCESS) {
        GDC_LOG_DEBUG("nvmlInit failed: NVML facts unavailable");
        goto err_close;
    }
    nvml.ok = 1;
    return 1;

err_close:
    dlclose(nvml.lib);
    memset(&nvml, 0, sizeof(nvml));
    nvml.tried = 1;
    return 0;
}

static int nvml_handle(const char *busid, nvml_device_t *dev)
{
    return nvml.ok && nvml.handle_by_bus_id(busid, dev) == NVML_SUCCESS ? 0 : -1;
}

int gdc_rt_topo_nvml_fill_p2p(gdc_topo_node_t *node)
{
    int pairs = 0;

    if (!gdc_rt_topo_nvml_load()) {
        return 0;
    }
    for (int a = 0; a < node->num_gpus; a++) {
        for (int b = a + 1; b < node->num_gpus; b++) {
            nvml_device_t da, db;
            int           read = -1, nvlink = -1;

            if (nvml_handle(node->gpus[a].pci.busid, &da) != 0 || nvml_handle(node->gpus[b].pci.busid, &db) != 0 ||
                nvml.p2p_status(da, db, NVML_P2P_CAPS_INDEX_READ, &read) != NVML_SUCCESS) {
                continue;
            }
            if (nvml.p2p_status(da, db, NVML_P2P_CAPS_INDEX_NVLINK, &nvlink) != NVML_SUCCESS) {
                nvlink = -1;
            }
            gdc_rt_topo_node_set_p2p(node, a, b,
                                     nvlink == NVML_P2P_STATUS_OK ? GDC_TOPO_P2P_NVLINK
                                     : read == NVML_P2P_STATUS_OK ? GDC_TOPO_P2P_PCIE
                                                                  : GDC_TOPO_P2P_NONE,
                                     GDC_TOPO_FACTS_NVML);
            pairs++;
        }
    }
    return pairs;
}

int gdc_rt_topo_nvml_gpu(const char *busid, gdc_topo_nvml_gpu_t *out)
{
    nvml_device_t       dev;
    nvml_memory_t       mem;
    gdc_topo_nvml_gpu_t facts;

    if (!gdc_rt_topo_nvml_load() || nvml_handle(busid, &dev) != 0) {
        return -1;
    }
    memset(&facts, 0, sizeof(facts));
    if (nvml.get_name(dev, facts.name, sizeof(facts.name)) != NVML_SUCCESS) {
        facts.name[0] = '\0';
    }
    if (nvml.bar1_info(dev, &mem) == NVML_SUCCESS) {
        facts.bar1_bytes = mem.total;
    }
    if (nvml.memory_info(dev, &mem) == NVML_SUCCESS) {
        facts.memory_bytes = mem.total;
    }
    facts.nvlinks_active = -1;
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        int active = 0;
        if (nvml.nvlink_state(dev, link, &active) != NVML_SUCCESS) {
            break; /* no such link (or no NVLink at all) */
        }
        facts.nvlinks_active = (facts.nvlinks_active < 0 ? 0 : facts.nvlinks_active) +
                               (active == NVML_FEATURE_ENABLED);
    }
    *out = facts;
    return 0;
}

void gdc_rt_topo_probe_unload(void)
{
    if (nvml.ok) {
        nvml.shutdown();
        dlclose(nvml.lib);
    }
    memset(&nvml, 0, sizeof(nvml));
}
