/*
 * gdinfo's topology reports:
 *   gdinfo            (after the build) this node: packages, NUMA nodes, cores, GPUs, NICs,
 *                     whether UCX moves CUDA memory; each GPU's nearest NIC; the findings
 *   gdinfo --doctor   the fast-path checks, one line each: ok / warn / fail / n/a, why, fix
 *   gdinfo --peers    under a launcher: link class and UCX transports of every pair
 * GDC_TOPO_XML replays another machine's topology for the first two (and for --peers, in
 * every rank).
 */
#include "gdinfo_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gdc_rt.h"
#include "gdinfo_doctor.h"
#include "gdinfo_sysfs.h"
#include "rt_topo.h"
#include "rt_topo_probe.h"

/* The configuration (GDC_TOPO_XML, GDC_LOG) as gdc_init would read it. */
static gdc_status_t load_config(void)
{
    gdc_rt_topo_register_params();
    return gdc_rt_config_load();
}

static const char *xml_path(void)
{
    const char *xml = gdc_rt_topo_xml_path();

    return xml != NULL && xml[0] != '\0' ? xml : NULL;
}

/* ---------------------------------------------------------------------------------------
 * Summary
 */

static void print_gpus(const gdc_topo_node_t *node)
{
    for (int g = 0; g < node->num_gpus; g++) {
        const gdc_topo_gpu_t *gpu = &node->gpus[g];
        gdinfo_pcie_link_t    link;
        char                  numa[16] = "-", pcie[32] = "";

        if (gpu->pci.numa >= 0) {
            snprintf(numa, sizeof(numa), "%d", gpu->pci.numa);
        }
        /* what the device can do (an idle GPU runs its link slower) */
        if (xml_path() == NULL && gdinfo_sysfs_pcie_link(gpu->pci.busid, &link) == 0) {
            snprintf(pcie, sizeof(pcie), "PCIe Gen%d x%d, ", link.max_gen, link.max_width);
        }
        printf("  GPU %-2d %s  %-28s %sNUMA %-2s nearest RDMA NIC: %s%s%s%s\n", g, gpu->pci.busid, gpu->model, pcie,
               numa, gpu->nic >= 0 ? node->nics[gpu->nic].name : "none", gpu->nic >= 0 ? " (" : "",
               gpu->nic >= 0 ? gdc_topo_path_name(gpu->nic_path) : "", gpu->nic >= 0 ? ")" : "");
    }
}

static void print_p2p(const gdc_topo_node_t *node)
{
    int pairs = 0, nvlink = 0, pcie = 0;

    if (node->num_gpus < 2) {
        return;
    }
    for (int a = 0; a < node->num_gpus; a++) {
        for (int b = a + 1; b < node->num_gpus; b++) {
            gdc_topo_p2p_t p2p = gdc_rt_topo_node_p2p(node, a, b);
            pairs++;
            nvlink += p2p == GDC_TOPO_P2P_NVLINK;
            pcie += p2p == GDC_TOPO_P2P_PCIE;
        }
    }
    printf("  peer access: %d of %d GPU pairs over NVLink, %d over PCIe, %d staged through host (from %s)\n", nvlink,
           pairs, pcie, pairs - nvlink - pcie,
           node->p2p_source == GDC_TOPO_FACTS_NVML   ? "NVML"
           : node->p2p_source == GDC_TOPO_FACTS_CUDA ? "the CUDA driver"
                                                     : "the PCI tree");
}

static void print_findings(const gdc_topo_node_t *node, const gdinfo_ucx_info_t *ucx)
{
    gdc_topo_finding_t findings[32];
    gdc_topo_env_t     env;
    int                count;

    /* As a multi-node job on every GPU would see the node. */
    env.ucx_cuda   = ucx->cuda_memory;
    env.peermem    = gdc_rt_topo_sysfs_peermem() != NULL;
    env.multi_node = 1;
    for (int g = 0; g < node->num_gpus && !env.peermem && !xml_path(); g++) {
        env.peermem = gdc_rt_topo_cuda_dma_buf(node->gpus[g].pci.busid);
    }
    count = gdc_rt_topo_findings(node, &env, NULL, findings, 32);
    for (int i = 0; i < count && i < 32; i++) {
        printf("  finding (%s): %s\n", findings[i].severity == GDC_TOPO_SEV_WARN ? "warn" : "info", findings[i].text);
    }
}

void gdinfo_topo_node_counts(int *cores, int *llc_mib, int *core_cache_kib)
{
    gdc_topo_node_t *node;

    *cores          = 0;
    *llc_mib        = 0;
    *core_cache_kib = 0;
    if (gdc_rt_topo_probe_node(xml_path(), &node) != GDC_SUCCESS) {
        return;
    }
    *cores          = node->num_cores;
    *llc_mib        = (int)(node->llc_bytes >> 20);
    *core_cache_kib = (int)(node->core_cache_bytes >> 10);
    gdc_rt_topo_node_free(node);
    gdc_rt_topo_probe_unload();
}

int gdinfo_topo_summary(void)
{
    gdc_topo_node_t  *node;
    gdinfo_ucx_info_t ucx;
    char              summary[1024];

    if (load_config() != GDC_SUCCESS || gdc_rt_topo_probe_node(xml_path(), &node) != GDC_SUCCESS) {
        return 1;
    }
    if (gdinfo_ucx_probe(&ucx) != GDC_SUCCESS) {
        memset(&ucx, 0, sizeof(ucx));
    }
    gdc_rt_topo_node_summary(node, summary, sizeof(summary));
    if (xml_path() != NULL) {
        printf("topology (replayed from GDC_TOPO_XML=%s; UCX is this machine's):\n", xml_path());
    } else {
        printf("topology (this node, hwloc %s):\n", GDC_BUILD_HWLOC_VERSION);
    }
    printf("  %s; UCX CUDA memory: %s\n", summary, ucx.cuda_memory ? "yes" : "no");
    print_gpus(node);
    print_p2p(node);
    print_findings(node, &ucx);
    gdc_rt_topo_node_free(node);
    gdc_rt_topo_probe_unload();
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Doctor
 */

typedef struct doctor_counts {
    int by_status[4];
} doctor_counts_t;

static void print_check(const gdinfo_doctor_check_t *check, void *arg)
{
    doctor_counts_t *counts = arg;

    counts->by_status[check->status]++;
    printf("%-4s  %-11s  %s\n", gdinfo_doctor_status_name(check->status), check->name, check->text);
}

int gdinfo_topo_doctor(void)
{
    gdinfo_doctor_input_t  in;
    gdc_topo_node_t       *node;
    doctor_counts_t        counts = {{0, 0, 0, 0}};
    gdinfo_doctor_status_t worst;

    if (load_config() != GDC_SUCCESS || gdinfo_doctor_probe(xml_path(), &in, &node) != GDC_SUCCESS) {
        return 1;
    }
    printf("gdinfo --doctor: GPU fast-path checks on node %s%s%s\n", node->hostname[0] ? node->hostname : "?",
           in.replayed ? ", replayed from " : "", in.replayed ? xml_path() : "");
    if (node->num_gpus == 0) {
        printf("no NVIDIA GPU on this node: the GPU fast-path checks do not apply, nothing to fix\n");
    }
    worst = gdinfo_doctor_run(&in, print_check, &counts);
    printf("summary: %d ok, %d warn, %d fail, %d n/a\n", counts.by_status[GDINFO_DOCTOR_OK],
           counts.by_status[GDINFO_DOCTOR_WARN], counts.by_status[GDINFO_DOCTOR_FAIL],
           counts.by_status[GDINFO_DOCTOR_NA]);
    gdc_rt_topo_node_free(node);
    gdc_rt_topo_probe_unload();
    return worst == GDINFO_DOCTOR_FAIL ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------
 * Peers
 */

#define PEERS_TAG        4242
#define PEERS_TLS_LEN    96 /* as long as rt_ucx.c keeps them */
#define PEERS_HOST_LEN   32

/* What each rank sends to rank 0: a header, then per peer its classes and transports. */
typedef struct peers_header {
    int32_t node;
    int32_t numa;
    int32_t gpu;
    char    busid[16];
    char    host[PEERS_HOST_LEN];
} peers_header_t;

typedef struct peers_cell {
    int8_t host_class;
    int8_t device_class;
    char   tls[PEERS_TLS_LEN];
} peers_cell_t;

/* Rows are gathered back to back: round them up so every header stays aligned. */
static size_t row_size(int size)
{
    size_t bytes = sizeof(peers_header_t) + (size_t)size * sizeof(peers_cell_t);

    return (bytes + 7) & ~(size_t)7;
}

static peers_cell_t *row_cells(char *row)
{
    return (peers_cell_t *)(void *)(row + sizeof(peers_header_t));
}

static const peers_header_t *header_at(const char *all, int size, int row)
{
    return (const peers_header_t *)(const void *)(all + (size_t)row * row_size(size));
}

/* A zero-byte message each way with every peer: endpoints connected, transports known. */
static gdc_status_t connect_all(int rank, int size)
{
    gdc_request_t *reqs = calloc((size_t)size * 2, sizeof(*reqs));
    gdc_status_t   status = GDC_SUCCESS;

    if (reqs == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    for (int p = 0; p < size && status == GDC_SUCCESS; p++) {
        if (p == rank) {
            continue;
        }
        status = gdc_irecv(NULL, 0, GDC_BYTE, p, PEERS_TAG, GDC_COMM_WORLD, &reqs[2 * p]);
        if (status == GDC_SUCCESS) {
            status = gdc_isend(NULL, 0, GDC_BYTE, p, PEERS_TAG, GDC_COMM_WORLD, &reqs[2 * p + 1]);
        }
    }
    if (status == GDC_SUCCESS) {
        status = gdc_waitall(size * 2, reqs);
    } else {
        (void)gdc_waitall(size * 2, reqs);
    }
    free(reqs);
    return status;
}

static void fill_row(char *row, int rank, int size)
{
    peers_header_t        *h    = (peers_header_t *)(void *)row;
    peers_cell_t          *cell = row_cells(row);
    const gdc_topo_rank_t *me   = gdc_rt_topo_me();
    const gdc_topo_node_t *node = gdc_rt_topo_my_node();

    memset(row, 0, row_size(size));
    h->node = gdc_rt_boot.node_of[rank];
    h->numa = me != NULL ? me->numa : -1;
    h->gpu  = me != NULL ? me->gpu : -1;
    if (h->gpu >= 0) {
        snprintf(h->busid, sizeof(h->busid), "%s", node->gpus[h->gpu].pci.busid);
    }
    snprintf(h->host, sizeof(h->host), "%s", gdc_rt_boot.node_names[gdc_rt_boot.node_of[rank]]);
    for (int p = 0; p < size; p++) {
        cell[p].host_class   = (int8_t)gdc_rt_topo_link(p, 0);
        cell[p].device_class = (int8_t)gdc_rt_topo_link(p, 1);
        snprintf(cell[p].tls, sizeof(cell[p].tls), "%s", p == rank ? "" : gdc_rt_ucx_transports(p));
    }
}

static const peers_cell_t *cell_at(const char *all, int size, int row, int col)
{
    const char *cells = (const char *)header_at(all, size, row) + sizeof(peers_header_t);

    return (const peers_cell_t *)(const void *)cells + col;
}

static void print_class_matrix(const char *all, int size, int device, int *counts)
{
    printf("\nlink class, %s buffers (row: from, column: to):\n     ", device ? "device" : "host");
    for (int c = 0; c < size; c++) {
        printf(" %7d", c);
    }
    printf("\n");
    for (int r = 0; r < size; r++) {
        printf("%5d", r);
        for (int c = 0; c < size; c++) {
            const peers_cell_t *cell = cell_at(all, size, r, c);
            int                 cls  = device ? cell->device_class : cell->host_class;
            printf(" %7s", gdc_link_class_name((gdc_link_class_t)cls));
            if (r != c && cls >= 0 && cls < GDC_LINK_NUM_CLASSES) {
                counts[cls]++;
            }
        }
        printf("\n");
    }
}

/* Transport sets get labels A, B, ... in order of first appearance; returns the label. */
static char transport_label(char (*sets)[PEERS_TLS_LEN], int *num_sets, const char *tls)
{
    static const char labels[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    int               i;

    if (tls[0] == '\0') {
        return '-';
    }
    for (i = 0; i < *num_sets && strcmp(sets[i], tls) != 0; i++) {
    }
    if (i == *num_sets) {
        if (*num_sets == (int)sizeof(labels) - 1) {
            return '?';
        }
        snprintf(sets[(*num_sets)++], PEERS_TLS_LEN, "%s", tls);
    }
    return labels[i];
}

static void print_transports(const char *all, int size)
{
    char (*sets)[PEERS_TLS_LEN] = calloc(52, PEERS_TLS_LEN);
    int  num_sets = 0;

    if (sets == NULL) {
        return;
    }
    printf("\nUCX transports (labels below; '-': none, the rank itself):\n     ");
    for (int c = 0; c < size; c++) {
        printf(" %3d", c);
    }
    printf("\n");
    for (int r = 0; r < size; r++) {
        printf("%5d", r);
        for (int c = 0; c < size; c++) {
            printf(" %3c", transport_label(sets, &num_sets, cell_at(all, size, r, c)->tls));
        }
        printf("\n");
    }
    for (int i = 0; i < num_sets; i++) {
        printf("  %c = %s\n", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[i], sets[i]);
    }
    free(sets);
}

static void print_counts(const char *what, const int *counts)
{
    printf("%s pairs:", what);
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        if (counts[c] > 0) {
            printf(" %s %d", gdc_link_class_name((gdc_link_class_t)c), counts[c]);
        }
    }
    printf("\n");
}

static void print_peers(const char *all, int size)
{
    int host_counts[GDC_LINK_NUM_CLASSES] = {0}, device_counts[GDC_LINK_NUM_CLASSES] = {0};
    int with_gpu = 0;

    printf("gdinfo --peers: %d ranks on %d node%s, launcher %s%s%s\n", size, gdc_rt_boot.num_nodes,
           gdc_rt_boot.num_nodes == 1 ? "" : "s", gdc_rt_boot.launcher, gdc_rt_topo_replayed() ? ", topology from " : "",
           gdc_rt_topo_replayed() ? gdc_rt_topo_xml_path() : "");
    printf(" rank  node  host                 NUMA  GPU\n");
    for (int r = 0; r < size; r++) {
        const peers_header_t *h        = header_at(all, size, r);
        char                  numa[16] = "-";

        if (h->numa >= 0) {
            snprintf(numa, sizeof(numa), "%d", h->numa);
        }
        printf("%5d  %4d  %-20s %4s  %s\n", r, h->node, h->host, numa, h->gpu >= 0 ? h->busid : "none");
        with_gpu += h->gpu >= 0;
    }
    print_class_matrix(all, size, 0, host_counts);
    if (with_gpu > 0) {
        print_class_matrix(all, size, 1, device_counts);
    }
    print_transports(all, size);
    printf("\nlegend:\n");
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        printf("  %-8s %s\n", gdc_link_class_name((gdc_link_class_t)c), gdc_link_class_desc((gdc_link_class_t)c));
    }
    print_counts("host-buffer", host_counts);
    if (with_gpu > 0) {
        print_counts("device-buffer", device_counts);
    } else {
        printf("device-buffer pairs: no rank has a GPU, device buffers do not apply\n");
    }
}

int gdinfo_topo_peers(void)
{
    int   rank, size;
    gdc_status_t status;
    char *row = NULL, *all = NULL;

    status = gdc_init(NULL, NULL);
    if (status != GDC_SUCCESS) {
        fprintf(stderr, "gdinfo --peers: gdc_init failed: %s\n", gdc_strerror(status));
        return 1;
    }
    if (gdc_rt_boot.singleton) {
        fprintf(stderr, "gdinfo --peers needs a launcher to start the ranks whose pairs it shows: run it as\n"
                        "  gdrun -n N gdinfo --peers      (or: mpirun -n N gdinfo --peers)\n");
        gdc_finalize();
        return 1;
    }
    gdc_comm_rank(GDC_COMM_WORLD, &rank);
    gdc_comm_size(GDC_COMM_WORLD, &size);
    row = malloc(row_size(size));
    all = rank == 0 ? malloc(row_size(size) * (size_t)size) : NULL;
    if (row == NULL || (rank == 0 && all == NULL)) {
        status = GDC_ERR_NO_MEMORY;
        goto out;
    }
    status = connect_all(rank, size);
    if (status != GDC_SUCCESS) {
        goto out;
    }
    fill_row(row, rank, size);
    status = gdc_gather(row, all, row_size(size), GDC_BYTE, 0, GDC_COMM_WORLD);
    if (status == GDC_SUCCESS && rank == 0) {
        print_peers(all, size);
    }
out:
    if (status != GDC_SUCCESS) {
        fprintf(stderr, "gdinfo --peers: rank %d: %s\n", rank, gdc_strerror(status));
    }
    free(all);
    free(row);
    return gdc_finalize() == GDC_SUCCESS && status == GDC_SUCCESS ? 0 : 1;
}
