/*
 * gdinfo --doctor: the fast-path checks, each ok / warn / fail / n/a with one line of why
 * and what to do. The checks read a gdinfo_doctor_input_t (the node model plus what was
 * probed) and sysfs under gdc_rt_topo_sysfs_root(), so the tests run them against
 * fixtures and fake trees. Part of gdinfo, not of the library: only gdinfo asks.
 */
#include "gdinfo_doctor.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include <gdc.h>

#include "gdinfo_sysfs.h"
#include "rt_cuda.h"
#include "rt_log.h"
#include "rt_topo_probe.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)
#define SMALL_BAR1_BYTES (1024ull * 1024 * 1024) /* below this, BAR1 limits what can be mapped */

const char *gdinfo_doctor_status_name(gdinfo_doctor_status_t status)
{
    switch (status) {
    case GDINFO_DOCTOR_OK: return "ok";
    case GDINFO_DOCTOR_NA: return "n/a";
    case GDINFO_DOCTOR_WARN: return "warn";
    case GDINFO_DOCTOR_FAIL: return "fail";
    }
    return "?";
}

/* ---------------------------------------------------------------------------------------
 * UCX
 */

static void ucx_module_dir(char *dir, size_t len)
{
    const char *env = getenv("UCX_MODULE_DIR");
    Dl_info     info;

    if (env != NULL && env[0] != '\0') {
        snprintf(dir, len, "%s", env);
    } else if (dladdr((void *)&ucp_init_version, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        int         n     = slash != NULL ? (int)(slash - info.dli_fname) : 0;
        snprintf(dir, len, "%.*s/ucx", n, info.dli_fname);
    } else {
        dir[0] = '\0';
    }
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = strstr(list, word); p != NULL; p = strstr(p + 1, word)) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
            return 1;
        }
    }
    return 0;
}

/* "#      resource 3  :  md 2  dev 3  flags -- sysv/memory": collect "sysv", once each. */
static void parse_resources(const char *text, gdinfo_ucx_info_t *info)
{
    size_t used = 0;

    for (const char *p = strstr(text, "resource"); p != NULL; p = strstr(p + 1, "resource")) {
        const char *tl = strstr(p, "-- ");
        const char *eol = strchr(p, '\n');
        char        name[32];
        size_t      n;

        if (tl == NULL || (eol != NULL && tl > eol)) {
            continue;
        }
        tl += 3;
        n = strcspn(tl, "/\n");
        if (n == 0 || n >= sizeof(name)) {
            continue;
        }
        memcpy(name, tl, n);
        name[n] = '\0';
        if (!has_word(info->transports, name) && used + n + 2 < sizeof(info->transports)) {
            used += (size_t)snprintf(info->transports + used, sizeof(info->transports) - used, "%s%s",
                                     used ? " " : "", name);
        }
    }
    info->cuda_copy = has_word(info->transports, "cuda_copy");
    info->cuda_ipc  = has_word(info->transports, "cuda_ipc");
    info->gdr_copy  = has_word(info->transports, "gdr_copy");
    info->rdma      = has_word(info->transports, "rc_verbs") || has_word(info->transports, "rc_mlx5") ||
                 has_word(info->transports, "dc_mlx5") || has_word(info->transports, "ud_verbs") ||
                 has_word(info->transports, "ud_mlx5");
}

gdc_status_t gdinfo_ucx_probe(gdinfo_ucx_info_t *out)
{
    gdinfo_ucx_info_t  info;
    ucp_params_t       params;
    ucp_config_t      *config;
    ucp_context_h      context;
    ucp_context_attr_t attr;
    char               path[300];
    char              *text = NULL;
    size_t             text_len = 0;
    FILE              *stream;

    memset(&info, 0, sizeof(info));
    ucx_module_dir(info.module_dir, sizeof(info.module_dir));
    snprintf(path, sizeof(path), "%s/libuct_cuda.so.0", info.module_dir);
    info.cuda_module = access(path, F_OK) == 0;
    if (ucp_config_read(NULL, NULL, &config) != UCS_OK) {
        return GDC_ERR_TRANSPORT;
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features   = UCP_FEATURE_TAG;
    if (ucp_init(&params, config, &context) != UCS_OK) {
        ucp_config_release(config);
        return GDC_ERR_TRANSPORT;
    }
    ucp_config_release(config);
    memset(&attr, 0, sizeof(attr));
    attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
    if (ucp_context_query(context, &attr) == UCS_OK) {
        info.cuda_memory = (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
    }
    stream = open_memstream(&text, &text_len);
    if (stream != NULL) {
        ucp_context_print_info(context, stream);
        fclose(stream);
        parse_resources(text, &info);
        free(text);
    }
    ucp_cleanup(context);
    *out = info;
    return GDC_SUCCESS;
}

gdc_status_t gdinfo_doctor_probe(const char *xml_path, gdinfo_doctor_input_t *in, gdc_topo_node_t **node)
{
    gdc_status_t status;

    memset(in, 0, sizeof(*in));
    status = gdc_rt_topo_probe_node(xml_path, node);
    if (status != GDC_SUCCESS) {
        return status;
    }
    in->node     = *node;
    in->replayed = xml_path != NULL && xml_path[0] != '\0';
    (void)gdc_rt_cuda_load();
    in->cuda_driver  = !in->replayed && gdc_rt_topo_cuda_load();
    in->cuda_devices = gdc_rt_cuda_device_count();
    in->cuda_version = gdc_rt_cuda_driver_version();
    in->nvml         = in->cuda_driver && gdc_rt_topo_nvml_load();
    in->peermem      = gdc_rt_topo_sysfs_peermem();
    for (int g = 0; g < (*node)->num_gpus && in->cuda_driver; g++) {
        in->dma_buf |= gdc_rt_topo_cuda_dma_buf((*node)->gpus[g].pci.busid);
    }
    if (gdinfo_ucx_probe(&in->ucx) != GDC_SUCCESS) {
        GDC_LOG_WARN("UCX could not be initialised: its CUDA support is unknown");
    }
    return GDC_SUCCESS;
}

/* ---------------------------------------------------------------------------------------
 * Checks
 */

typedef struct doctor {
    const gdinfo_doctor_input_t *in;
    gdinfo_doctor_emit_fn_t      emit;
    void                        *arg;
    gdinfo_doctor_status_t       worst;
} doctor_t;

static void report(doctor_t *d, const char *name, gdinfo_doctor_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(doctor_t *d, const char *name, gdinfo_doctor_status_t status, const char *fmt, ...)
{
    gdinfo_doctor_check_t check;
    va_list               ap;

    check.name   = name;
    check.status = status;
    va_start(ap, fmt);
    vsnprintf(check.text, sizeof(check.text), fmt, ap);
    va_end(ap);
    if (status != GDINFO_DOCTOR_NA && status > d->worst) {
        d->worst = status;
    }
    d->emit(&check, d->arg);
}

static int rdma_nics(const gdc_topo_node_t *node)
{
    int count = 0;

    for (int n = 0; n < node->num_nics; n++) {
        count += node->nics[n].rdma;
    }
    return count;
}

static const char *const replay_why = "the model is replayed from GDC_TOPO_XML; this check reads the machine itself";

static void check_gpus(doctor_t *d)
{
    const gdinfo_doctor_input_t *in = d->in;
    int                       gpus = in->node->num_gpus;

    if (in->replayed) {
        report(d, "cuda-driver", GDINFO_DOCTOR_NA, "%s", replay_why);
    } else if (!in->cuda_driver) {
        report(d, "cuda-driver", GDINFO_DOCTOR_FAIL,
               "%d NVIDIA GPU%s on the PCI bus, but no usable CUDA driver (libcuda.so.1): every buffer is host "
               "memory; fix: install the NVIDIA driver and check nvidia-smi",
               gpus, gpus == 1 ? "" : "s");
    } else {
        report(d, "cuda-driver", GDINFO_DOCTOR_OK, "CUDA driver %d.%d sees %d of the %d GPU%s on the PCI bus%s",
               in->cuda_version / 1000, in->cuda_version % 1000 / 10, in->cuda_devices, gpus, gpus == 1 ? "" : "s",
               in->cuda_devices < gpus ? " (CUDA_VISIBLE_DEVICES or cgroups hide the others)" : "");
    }
}

static void check_ucx(doctor_t *d)
{
    const gdinfo_ucx_info_t *u = &d->in->ucx;

    if (d->in->replayed) {
        report(d, "ucx-cuda", GDINFO_DOCTOR_NA, "%s", replay_why);
    } else if (!u->cuda_module) {
        report(d, "ucx-cuda", GDINFO_DOCTOR_FAIL,
               "UCX was built without CUDA (no libuct_cuda in %s): device buffers are staged through host memory; "
               "fix: a UCX configured --with-cuda (check: ucx_info -d | grep cuda)",
               u->module_dir[0] ? u->module_dir : "UCX's module directory");
    } else if (!u->cuda_memory || !u->cuda_copy) {
        report(d, "ucx-cuda", GDINFO_DOCTOR_FAIL,
               "UCX has its CUDA module but did not enable it (transports: %s): device buffers are staged through "
               "host memory; fix: check that libcuda.so.1 loads and UCX_TLS does not exclude cuda",
               u->transports);
    } else if (!u->cuda_ipc || !u->gdr_copy) {
        report(d, "ucx-cuda", GDINFO_DOCTOR_WARN, "UCX CUDA transports: cuda_copy%s%s; missing %s%s%s",
               u->cuda_ipc ? " cuda_ipc" : "", u->gdr_copy ? " gdr_copy" : "",
               !u->cuda_ipc ? "cuda_ipc (device buffers between GPUs of this node go through host memory)" : "",
               !u->cuda_ipc && !u->gdr_copy ? ", " : "",
               !u->gdr_copy ? "gdr_copy (small device messages are slower; fix: install gdrcopy, load gdrdrv)" : "");
    } else {
        report(d, "ucx-cuda", GDINFO_DOCTOR_OK, "UCX CUDA transports: cuda_copy cuda_ipc gdr_copy");
    }
}

static void check_peermem(doctor_t *d)
{
    const gdinfo_doctor_input_t *in = d->in;

    if (in->replayed) {
        report(d, "peermem", GDINFO_DOCTOR_NA, "%s", replay_why);
    } else if (rdma_nics(in->node) == 0) {
        report(d, "peermem", GDINFO_DOCTOR_NA, "no RDMA NIC on this node: GPUDirect RDMA does not apply");
    } else if (in->peermem != NULL) {
        report(d, "peermem", GDINFO_DOCTOR_OK, "%s is loaded: NICs can read and write GPU memory", in->peermem);
    } else if (in->dma_buf) {
        report(d, "peermem", GDINFO_DOCTOR_OK, "no peer-memory module, but the CUDA driver offers dma-buf for "
                                            "GPUDirect RDMA (needs Linux >= 5.12 and rdma-core >= 34)");
    } else {
        report(d, "peermem", GDINFO_DOCTOR_FAIL,
               "neither nvidia_peermem nor nv_peer_mem is loaded and the driver offers no dma-buf: GPUDirect RDMA "
               "is off, device buffers to other nodes are staged through host memory; fix: modprobe nvidia_peermem");
    }
}

static void check_gpu_nic(doctor_t *d)
{
    const gdc_topo_node_t *node = d->in->node;

    if (rdma_nics(node) == 0) {
        report(d, "gpu-nic", GDINFO_DOCTOR_NA, "no RDMA NIC on this node: GPUDirect RDMA does not apply%s",
               node->num_nics > 0 ? " (traffic to other nodes goes over TCP from host memory)" : "");
        return;
    }
    for (int g = 0; g < node->num_gpus; g++) {
        const gdc_topo_gpu_t *gpu = &node->gpus[g];
        const gdc_topo_nic_t *nic = &node->nics[gpu->nic];

        switch (gpu->nic_path) {
        case GDC_TOPO_PATH_SWITCH:
        case GDC_TOPO_PATH_ROOT:
            report(d, "gpu-nic", GDINFO_DOCTOR_OK, "GPU %d (%s): %s, %s", g, gpu->pci.busid, nic->name,
                   gdc_topo_path_name(gpu->nic_path));
            break;
        case GDC_TOPO_PATH_NUMA:
            report(d, "gpu-nic", GDINFO_DOCTOR_WARN,
                   "GPU %d (%s): nearest RDMA NIC %s is on NUMA %d but under another root complex: GPUDirect RDMA "
                   "crosses the CPU; fix: a NIC under the GPU's PCIe switch or root port",
                   g, gpu->pci.busid, nic->name, nic->pci.numa);
            break;
        default:
            report(d, "gpu-nic", GDINFO_DOCTOR_FAIL,
                   "GPU %d (%s, NUMA %d): no RDMA NIC on its NUMA node (nearest: %s on NUMA %d): GPUDirect RDMA is "
                   "off for it; fix: a NIC on NUMA %d, or multi-node jobs on GPUs near %s",
                   g, gpu->pci.busid, gpu->pci.numa, nic->name, nic->pci.numa, gpu->pci.numa, nic->name);
            break;
        }
    }
}

/* One device's PCIe link: the capability of device and port, and what it runs at. GPUs
 * lower the speed when idle, so only a lower width counts against them. */
static void check_link(doctor_t *d, const char *what, const char *busid, int is_gpu)
{
    gdinfo_pcie_link_t l;
    int                gen, width;

    if (gdinfo_sysfs_pcie_link(busid, &l) != 0) {
        report(d, "pcie-link", GDINFO_DOCTOR_NA, "%s (%s): no PCIe link attributes in sysfs", what, busid);
        return;
    }
    gen   = l.port_gen > 0 && l.port_gen < l.max_gen ? l.port_gen : l.max_gen;
    width = l.port_width > 0 && l.port_width < l.max_width ? l.port_width : l.max_width;
    if (gen < l.max_gen || width < l.max_width) {
        report(d, "pcie-link", GDINFO_DOCTOR_WARN,
               "%s (%s): a Gen%d x%d device in a Gen%d x%d port (%s): the slot limits its bandwidth; fix: a full "
               "Gen%d x%d slot",
               what, busid, l.max_gen, l.max_width, l.port_gen, l.port_width, l.port, l.max_gen, l.max_width);
    } else if (l.cur_width > 0 && l.cur_width < width) {
        report(d, "pcie-link", GDINFO_DOCTOR_WARN,
               "%s (%s): link trained at x%d of x%d: bandwidth lost; fix: reseat the card, check the riser/cable",
               what, busid, l.cur_width, width);
    } else if (!is_gpu && l.cur_gen > 0 && l.cur_gen < gen) {
        report(d, "pcie-link", GDINFO_DOCTOR_WARN,
               "%s (%s): link runs at Gen%d of Gen%d; fix: check BIOS PCIe settings", what, busid, l.cur_gen, gen);
    } else {
        report(d, "pcie-link", gen <= 3 && is_gpu ? GDINFO_DOCTOR_WARN : GDINFO_DOCTOR_OK,
               "%s (%s): Gen%d x%d%s%s", what, busid, gen, width,
               is_gpu && l.cur_gen > 0 && l.cur_gen < gen ? " (idle now, at a lower speed: normal for GPUs)" : "",
               gen <= 3 && is_gpu ? "; Gen3 or older gives at most ~13 GB/s host-to-GPU" : "");
    }
}

static void check_links(doctor_t *d)
{
    const gdc_topo_node_t *node = d->in->node;
    char                   what[48];

    if (d->in->replayed) {
        report(d, "pcie-link", GDINFO_DOCTOR_NA, "%s", replay_why);
        return;
    }
    for (int g = 0; g < node->num_gpus; g++) {
        snprintf(what, sizeof(what), "GPU %d", g);
        check_link(d, what, node->gpus[g].pci.busid, 1);
    }
    for (int n = 0; n < node->num_nics; n++) {
        if (node->nics[n].rdma) {
            check_link(d, node->nics[n].name, node->nics[n].pci.busid, 0);
        }
    }
}

static void check_bar1(doctor_t *d)
{
    const gdc_topo_node_t *node = d->in->node;

    if (d->in->replayed) {
        report(d, "bar1", GDINFO_DOCTOR_NA, "%s", replay_why);
        return;
    }
    for (int g = 0; g < node->num_gpus; g++) {
        const char         *busid = node->gpus[g].pci.busid;
        gdc_topo_nvml_gpu_t facts;
        uint64_t            bytes = 0;

        if (d->in->nvml && gdc_rt_topo_nvml_gpu(busid, &facts) == 0) {
            bytes = facts.bar1_bytes;
        }
        if (bytes == 0 && gdinfo_sysfs_bar_size(busid, 1, &bytes) != 0) {
            report(d, "bar1", GDINFO_DOCTOR_NA, "GPU %d (%s): BAR1 size unknown (no NVML and no sysfs resource file)",
                   g, busid);
            continue;
        }
        if (bytes < SMALL_BAR1_BYTES) {
            report(d, "bar1", GDINFO_DOCTOR_WARN,
                   "GPU %d (%s): BAR1 is %.0f MiB: GPUDirect RDMA and peer mappings are limited to that much at "
                   "once; fix: enable Resizable BAR (and Above 4G Decoding) in the BIOS, or a data-center GPU",
                   g, busid, (double)bytes / MIB);
        } else {
            report(d, "bar1", GDINFO_DOCTOR_OK, "GPU %d (%s): BAR1 %.0f GiB", g, busid, (double)bytes / GIB);
        }
    }
}

static const char *p2p_source_name(int source)
{
    return source == GDC_TOPO_FACTS_NVML ? "NVML" : source == GDC_TOPO_FACTS_CUDA ? "the CUDA driver"
                                                                                  : "the PCI tree (no driver asked)";
}

static void check_p2p(doctor_t *d)
{
    const gdc_topo_node_t *node = d->in->node;
    char                   missing[200] = "";
    size_t                 used = 0;
    int                    nvlink = 0, none = 0, pairs = 0;

    if (node->num_gpus < 2) {
        report(d, "p2p", GDINFO_DOCTOR_NA, "one GPU: no peer access to check");
        return;
    }
    for (int a = 0; a < node->num_gpus; a++) {
        for (int b = a + 1; b < node->num_gpus; b++) {
            gdc_topo_p2p_t p2p = gdc_rt_topo_node_p2p(node, a, b);
            pairs++;
            nvlink += p2p == GDC_TOPO_P2P_NVLINK;
            if (p2p == GDC_TOPO_P2P_NONE) {
                none++;
                if (used + 12 < sizeof(missing)) {
                    used += (size_t)snprintf(missing + used, sizeof(missing) - used, "%s%d-%d", used ? " " : "", a, b);
                }
            }
        }
    }
    if (none > 0) {
        report(d, "p2p", GDINFO_DOCTOR_WARN,
               "%d of %d GPU pairs have no peer access (%s; from %s): device buffers between them are staged "
               "through host memory; fix: GPUs of one job on one socket, or ACS/IOMMU settings (see acs, iommu)",
               none, pairs, missing, p2p_source_name(node->p2p_source));
    } else {
        report(d, "p2p", GDINFO_DOCTOR_OK, "peer access between all %d GPUs, %s (from %s)", node->num_gpus,
               nvlink == pairs ? "over NVLink" : nvlink > 0 ? "partly over NVLink" : "over PCIe",
               p2p_source_name(node->p2p_source));
    }
}

static void check_iommu(doctor_t *d)
{
    int groups, passthrough;

    if (d->in->replayed) {
        report(d, "iommu", GDINFO_DOCTOR_NA, "%s", replay_why);
        return;
    }
    gdinfo_sysfs_iommu(&groups, &passthrough);
    if (groups == 0) {
        report(d, "iommu", GDINFO_DOCTOR_OK, "no IOMMU groups: DMA between devices is not translated");
    } else if (passthrough) {
        report(d, "iommu", GDINFO_DOCTOR_OK, "IOMMU on in passthrough mode (iommu=pt), %d groups", groups);
    } else {
        report(d, "iommu", GDINFO_DOCTOR_WARN,
               "IOMMU on with translation (%d groups, no iommu=pt on the kernel command line): peer-to-peer and "
               "GPUDirect RDMA may be blocked or slowed; fix: boot with iommu=pt",
               groups);
    }
}

static void check_acs(doctor_t *d)
{
    const gdc_topo_node_t *node = d->in->node;

    if (d->in->replayed) {
        report(d, "acs", GDINFO_DOCTOR_NA, "%s", replay_why);
        return;
    }
    for (int g = 0; g < node->num_gpus; g++) {
        char bridges[160];
        int  acs = gdinfo_sysfs_acs_redirect(node->gpus[g].pci.busid, bridges, sizeof(bridges));

        if (acs == -2) {
            report(d, "acs", GDINFO_DOCTOR_NA, "GPU %d (%s): not in sysfs", g, node->gpus[g].pci.busid);
        } else if (acs < 0) {
            report(d, "acs", GDINFO_DOCTOR_NA,
                   "GPU %d (%s): PCIe configuration space not readable: run as root to check", g,
                   node->gpus[g].pci.busid);
        } else if (acs > 0) {
            report(d, "acs", GDINFO_DOCTOR_WARN,
                   "GPU %d (%s): ACS redirects peer-to-peer traffic at %s: GPU-GPU and GPU-NIC traffic climbs to the "
                   "root complex; fix: disable ACS on those switch ports (BIOS, or setpci -s BDF ECAP_ACS+6.w=0)",
                   g, node->gpus[g].pci.busid, bridges);
        } else {
            report(d, "acs", GDINFO_DOCTOR_OK, "GPU %d (%s): no ACS redirect on the PCIe switch ports above it", g,
                   node->gpus[g].pci.busid);
        }
    }
}

/* Every check, and why it does not apply on a node without GPUs. */
static const struct {
    const char *name;
    const char *without_gpu;
} checks[] = {
    {"cuda-driver", "no NVIDIA GPU on the PCI bus: no CUDA driver needed"},
    {"ucx-cuda", "no GPU: device buffers cannot occur, UCX needs no CUDA transports"},
    {"peermem", "no GPU: GPUDirect RDMA does not apply"},
    {"gpu-nic", "no GPU: no GPU-NIC placement to check"},
    {"pcie-link", "no GPU: PCIe links are checked for GPUs and the RDMA NICs next to them"},
    {"bar1", "no GPU: no BAR1 aperture to size"},
    {"p2p", "no GPU: no peer access to check"},
    {"iommu", "no GPU: the IOMMU matters here only for device peer-to-peer and GPUDirect RDMA"},
    {"acs", "no GPU: no PCIe switch path between devices to check"},
};

gdinfo_doctor_status_t gdinfo_doctor_run(const gdinfo_doctor_input_t *in, gdinfo_doctor_emit_fn_t emit, void *arg)
{
    doctor_t d = {in, emit, arg, GDINFO_DOCTOR_OK};

    if (in->node->num_gpus == 0) {
        for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
            report(&d, checks[i].name, GDINFO_DOCTOR_NA, "%s%s", checks[i].without_gpu,
                   in->node->io ? "" : " (the PCI tree could not be read)");
        }
        return d.worst;
    }
    check_gpus(&d);
    check_ucx(&d);
    check_peermem(&d);
    check_gpu_nic(&d);
    check_links(&d);
    check_bar1(&d);
    check_p2p(&d);
    check_iommu(&d);
    check_acs(&d);
    return d.worst;
}
