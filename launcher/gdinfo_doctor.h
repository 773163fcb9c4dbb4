/*
 * gdinfo --doctor (gdinfo_doctor.c): the GPU fast-path checks, each ok / warn / fail / n/a
 * with one line of why and what to do, and what they probe that the library does not need
 * (UCX's CUDA support as a context of gdinfo's own sees it).
 */
#ifndef GDINFO_DOCTOR_H
#define GDINFO_DOCTOR_H

#include <gdc.h>

#include "rt_topo.h"

/* ---------------------------------------------------------------------------------------
 * UCX as gdinfo sees it (a context of its own; gdc_init's is not needed)
 */
typedef struct gdinfo_ucx_info {
    int  cuda_module;   /* UCX's CUDA module (libuct_cuda) is installed */
    int  cuda_memory;   /* the context reports CUDA memory support */
    int  cuda_copy, cuda_ipc, gdr_copy; /* CUDA transports among its resources */
    int  rdma;          /* a verbs transport (rc/dc/ud) among its resources */
    char transports[256]; /* the transport names, "self tcp sysv posix cma" */
    char module_dir[200];
} gdinfo_ucx_info_t;
gdc_status_t gdinfo_ucx_probe(gdinfo_ucx_info_t *out);

/* ---------------------------------------------------------------------------------------
 * The checks
 */
typedef enum {
    GDINFO_DOCTOR_OK = 0,
    GDINFO_DOCTOR_NA,
    GDINFO_DOCTOR_WARN,
    GDINFO_DOCTOR_FAIL
} gdinfo_doctor_status_t;

const char *gdinfo_doctor_status_name(gdinfo_doctor_status_t status); /* "ok", "n/a", "warn", "fail" */

typedef struct gdinfo_doctor_check {
    const char            *name;      /* "peermem", "gpu-nic", ... */
    gdinfo_doctor_status_t status;
    char                   text[400]; /* why, and what to do */
} gdinfo_doctor_check_t;

/* What the checks look at; gdinfo_doctor_probe fills it from this machine, tests by hand. */
typedef struct gdinfo_doctor_input {
    const gdc_topo_node_t *node;
    int                    replayed;       /* node from GDC_TOPO_XML */
    int                    cuda_driver;    /* the CUDA driver loaded with devices */
    int                    cuda_devices;
    int                    cuda_version;   /* 12040 for 12.4 */
    int                    nvml;           /* NVML loaded: BAR1 sizes from it */
    const char            *peermem;        /* module name or NULL */
    int                    dma_buf;        /* the driver reports dma-buf on the GPUs */
    gdinfo_ucx_info_t      ucx;
} gdinfo_doctor_input_t;

gdc_status_t gdinfo_doctor_probe(const char *xml_path, gdinfo_doctor_input_t *in, gdc_topo_node_t **node);

typedef void (*gdinfo_doctor_emit_fn_t)(const gdinfo_doctor_check_t *check, void *arg);
/* Run every check, emitting one result per check (some checks emit one per GPU). Returns
 * the worst status seen among ok, warn and fail. */
gdinfo_doctor_status_t gdinfo_doctor_run(const gdinfo_doctor_input_t *in, gdinfo_doctor_emit_fn_t emit, void *arg);

#endif
