/*
 * gdinfo: what gdc sees and would do. The single-process parts need no launcher.
 *   gdinfo               version and build; this node's topology (gdinfo_topo.c)
 *   gdinfo --algorithms  one line per algorithm: <collective> <name> <description>
 *   gdinfo --params      every GDC_* variable with its current value and help
 *   gdinfo --plan COLL --bytes B [--ranks N] [--nodes K] [--profile NAME] [--device]
 *                        the predicted time of every candidate algorithm on a machine
 *   gdinfo --doctor      the GPU fast-path checks (gdinfo_topo.c)
 *   gdinfo --peers       under a launcher: link class and transports of every pair
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "gdc_coll.h"
#include "select/price.h"
#include "select/select.h"
#include "select/table.h"
#include "config.h"
#include "gdc_rt.h"
#include "rt_calib.h"
#include "rt_msg.h"
#include "rt_shm.h"
#include "gdinfo_topo.h"
#include "rt_topo.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gdinfo [OPTION]\n"
            "Show what gdc sees and would do.\n"
            "\n"
            "  (no option)      version and build: UCX, PMIx, hwloc and CUDA; this node's topology\n"
            "  --algorithms     every collective algorithm: <collective> <name> <description>\n"
            "  --params         every GDC_* environment variable, its value and what it does\n"
            "  --plan COLL --bytes B [--ranks N] [--nodes K] [--profile NAME] [--device] [--simulate]\n"
            "                   predicted time and bus bandwidth of every algorithm of COLL for a\n"
            "                   message of B bytes (K/M/G suffixes; what gdbench's Size column means\n"
            "                   for COLL) on N ranks over K nodes (ranks spread in blocks), marking\n"
            "                   the one gdc would choose; on this machine's model (GDC_PROFILE,\n"
            "                   GDC_LINK_*, this node's cores) or on a profile (dgx-a100, dgx-h100,\n"
            "                   pcie-node, a path), which also gives the ranks and cores per node;\n"
            "                   --device prices GPU buffers;\n"
            "                   --simulate also runs the simulator (every rank's schedule, the\n"
            "                   reference the prices are held to) and shows its time, messages and\n"
            "                   bytes per link class (up to 4096 ranks)\n"
            "  --calibrate      measure this host's costs (memcpy, reduction, shared-memory signal,\n"
            "                   cross-memory attach, UCX shared memory) and keep them where gdc_init\n"
            "                   finds them (GDC_CALIBRATION=auto); prints them and the file\n"
            "  --doctor         GPU fast-path checks: ok / warn / fail / n/a, why, what to do\n"
            "  --peers          under a launcher (gdrun -n N gdinfo --peers): link class and UCX\n"
            "                   transports of every pair of ranks\n"
            "  -h, --help       this help\n"
            "  --version        gdc's version\n");
}

static void print_algorithms(void)
{
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        printf("%-15s %-22s %s%s%s%s%s\n", gdc_coll_type_name(algo->coll), algo->name, algo->desc,
               algo->flags & GDC_COLL_ALGO_FLAG_HIER ? " [needs several nodes]" : "",
               algo->run_blocking != NULL ? " [blocking fast path]" : "",
               algo->flags & GDC_COLL_ALGO_FLAG_ON_REQUEST ? " [when forced or tuned]"
               : algo->flags & GDC_COLL_ALGO_FLAG_MEASURED
                   ? " [where cross-memory attach was measured (GDC_CALIBRATION)]"
                   : "",
               algo->flags & GDC_COLL_ALGO_FLAG_OWN_CORES ? " [measured numbers choose it on cores the ranks do not outnumber]"
                                                         : "");
    }
}

static void print_param(const char *layer, const gdc_rt_param_t *param, const char *value, void *arg)
{
    printf("%-24s %-10s %s (default \"%s\"; %s)\n", param->name, value[0] ? value : "\"\"", param->help,
           param->defval, layer);
}

static void print_build(void)
{
    printf("%s\n", gdc_version_string());
    printf("  UCX     %s at build time, %s at run time\n", GDC_BUILD_UCX_VERSION, gdc_rt_ucx_version());
    printf("  PMIx    %s\n", GDC_BUILD_PMIX_VERSION);
    printf("  hwloc   %s\n", GDC_BUILD_HWLOC_VERSION);
#ifdef GDC_HAVE_CUDA
    printf("  CUDA    kernels built with CUDA %s\n", GDC_BUILD_CUDA_VERSION);
#else
    printf("  CUDA    kernels not built (configure found no CUDA toolkit)\n");
#endif
    (void)gdc_rt_cuda_load();
    if (gdc_rt_cuda_available()) {
        printf("  driver  CUDA %d.%d, %d device(s)\n", gdc_rt_cuda_driver_version() / 1000,
               gdc_rt_cuda_driver_version() % 1000 / 10, gdc_rt_cuda_device_count());
    } else {
        printf("  driver  no CUDA driver or device on this machine: every buffer is host memory\n");
    }
}


typedef struct plan_opts {
    const char *coll;
    const char *bytes;
    const char *profile;
    int         ranks, nodes, device, simulate;
} plan_opts_t;

/* The simulator builds every rank's schedule: beyond this many ranks it takes minutes. */
#define PLAN_SIMULATE_MAX_RANKS 4096

/* nccl-tests' bus-bandwidth factors, and gdbench's meaning of a message size per collective. */
static double bus_factor(gdc_coll_type_t coll, int n)
{
    switch (coll) {
    case GDC_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
    case GDC_COLL_BCAST:
    case GDC_COLL_REDUCE: return 1;
    default: return (double)(n - 1) / n;
    }
}

static size_t plan_count(gdc_coll_type_t coll, size_t bytes, int n, size_t dsize)
{
    return coll == GDC_COLL_REDUCE_SCATTER ? bytes / dsize / (size_t)n : bytes / dsize;
}

/* algbw's bytes: the data of the whole call as nccl-tests counts it. */
static double plan_data_bytes(gdc_coll_type_t coll, size_t count, int n, size_t dsize)
{
    switch (coll) {
    case GDC_COLL_ALLGATHER:
    case GDC_COLL_ALLTOALL:
    case GDC_COLL_GATHER:
    case GDC_COLL_SCATTER:
    case GDC_COLL_REDUCE_SCATTER: return (double)count * dsize * n;
    default: return (double)count * dsize;
    }
}

static int plan_coll(const char *name, gdc_coll_type_t *coll)
{
    for (int c = 0; c < GDC_COLL_TYPE_COUNT; c++) {
        if (strcmp(name, gdc_coll_type_name((gdc_coll_type_t)c)) == 0 && c != GDC_COLL_ALLTOALLV) {
            *coll = (gdc_coll_type_t)c;
            return 0;
        }
    }
    fprintf(stderr, "gdinfo: --plan %s: not a collective gdinfo can plan (allreduce, bcast, reduce, allgather, "
                    "reduce_scatter, alltoall, gather, scatter, barrier)\n",
            name);
    return -1;
}

static int usable_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static const char *human_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    int                      u       = 0;

    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        u++;
    }
    snprintf(buf, len, "%.3g%s", bytes, units[u]);
    return buf;
}

/* The simulator's figures for algo, next to its price. */
static void print_simulated(const gdc_coll_machine_t *m, const gdc_coll_algo_t *algo, const gdc_coll_args_t *args,
                            int device, double price)
{
    gdc_coll_prediction_t p;
    unsigned              msgs = 0;

    if (gdc_coll_predict(m, algo, args, device, &p) != GDC_SUCCESS) {
        printf("  (the simulator failed)");
        return;
    }
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        msgs += p.messages[c];
    }
    printf(" %10.2f %9.3f %9u ", p.seconds * 1e6, p.seconds > 0 ? price / p.seconds : 1, msgs);
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        char human[32];
        if (p.bytes[c] > 0) {
            printf(" %s %s", gdc_link_class_name((gdc_link_class_t)c), human_bytes(p.bytes[c], human, sizeof(human)));
        }
    }
}

static int plan(const plan_opts_t *o)
{
    gdc_coll_type_t        coll;
    size_t                 bytes = 0, dsize;
    gdc_coll_args_t        args;
    gdc_coll_machine_t     *m = &gdc_coll_machine;
    gdc_coll_select_config_t select;
    const gdc_coll_algo_t *chosen;
    int                    n, nodes = o->nodes > 0 ? o->nodes : 1, device, simulate;
    int                   *node_of;

    if (plan_coll(o->coll, &coll) != 0) {
        return 2;
    }
    if (coll != GDC_COLL_BARRIER && (o->bytes == NULL || gdc_rt_parse_bytes(o->bytes, &bytes) != 0)) {
        fprintf(stderr, "gdinfo: --plan needs --bytes B (e.g. 64K, 16M, 1G)\n");
        return 2;
    }
    gdc_coll_register_params();
    gdc_rt_topo_register_params();
    if (gdc_rt_config_load() != GDC_SUCCESS) {
        return 1;
    }
    select = *gdc_coll_select_config_get();
    if (o->profile != NULL) {
        select.profile = o->profile;
    }
    if (o->profile == NULL) {
        gdc_rt_calib_local(); /* the numbers a job on this host would price with */
    }
    if (gdc_coll_select_init(&select) != GDC_SUCCESS) {
        return 1;
    }
    if (o->profile == NULL && m->cores_per_node == 0) {
        /* as a job on this node would count them: ranks that outnumber them wait longer,
         * and buffers that fit the cache are copied faster by cross-memory attach */
        int cores = 0, llc_mib = 0, core_cache_kib = 0;
        gdinfo_topo_node_counts(&cores, &llc_mib, &core_cache_kib);
        gdc_coll_select_node_counts(cores, llc_mib, core_cache_kib);
    }
    device = o->device || m->gpus_per_node > 0;
    n      = o->ranks > 0 ? o->ranks : nodes * (m->gpus_per_node > 0 ? m->gpus_per_node : usable_cores());
    if (n < nodes) {
        fprintf(stderr, "gdinfo: %d ranks cannot fill %d nodes\n", n, nodes);
        return 2;
    }
    node_of = malloc((size_t)n * sizeof(int));
    for (int r = 0; r < n; r++) {
        node_of[r] = (int)((long)r * nodes / n);
    }
    dsize = coll == GDC_COLL_BARRIER ? 1 : 4;
    memset(&args, 0, sizeof(args));
    args.coll      = coll;
    args.dtype     = coll == GDC_COLL_BARRIER ? GDC_BYTE : GDC_FLOAT32;
    args.dsize     = dsize;
    args.op        = GDC_SUM;
    args.size      = n;
    args.count     = plan_count(coll, bytes, n, dsize);
    args.node_of   = node_of;
    args.num_nodes = nodes;
    args.shm_bytes = gdc_rt_shm_bytes; /* GDC_SHM_SIZE: what the node's ranks would share */
    args.shm_cma   = 1;                /* as where the kernel lets a user's processes read each other */
    args.on_device = device;
    args.node_cores = m->cores_per_node;
    args.core_cache = (size_t)m->core_cache_kib << 10;
    args.config    = gdc_coll_config_get();
    gdc_coll_machine_chunks(m, &args);
    chosen = gdc_coll_select(&args);

    printf("# plan: %s of %zu bytes (%zu x float32%s) on %d ranks, %d node(s), %s buffers\n",
           gdc_coll_type_name(coll), bytes, args.count, coll == GDC_COLL_ALLREDUCE || coll == GDC_COLL_REDUCE ||
                                                            coll == GDC_COLL_REDUCE_SCATTER ? " sum" : "",
           n, nodes, device ? "device" : "host");
    gdc_coll_machine_print(m, stdout);
    printf("# busbw = algbw x %.4g (nccl-tests' factor for %s)\n", bus_factor(coll, n), gdc_coll_type_name(coll));
    simulate = o->simulate && n <= PLAN_SIMULATE_MAX_RANKS;
    if (o->simulate && !simulate) {
        printf("# --simulate: %d ranks are more than the simulator takes (%d); prices only\n", n,
               PLAN_SIMULATE_MAX_RANKS);
    }
    printf("#   %-22s %14s %12s %12s%s\n", "algorithm", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
           simulate ? "    sim(us) price/sim  messages  bytes moved per link class" : "");
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        double                 seconds, algbw;

        if (algo->coll != coll) {
            continue;
        }
        if (algo->supports != NULL && !algo->supports(&args)) {
            printf("    %-22s %14s  (does not apply to this call)\n", algo->name, "-");
            continue;
        }
        if (gdc_coll_price(m, algo, &args, NULL, &seconds) != GDC_SUCCESS) {
            printf("    %-22s %14s  (no price)\n", algo->name, "-");
            continue;
        }
        algbw = seconds > 0 ? plan_data_bytes(coll, args.count, n, dsize) / seconds / 1e9 : 0;
        printf("  %c %-22s %14.2f %12.2f %12.2f", algo == chosen ? '*' : ' ', algo->name, seconds * 1e6, algbw,
               algbw * bus_factor(coll, n));
        if (simulate) {
            print_simulated(m, algo, &args, device, seconds);
        }
        printf("\n");
    }
    printf("# * the algorithm gdc would choose (GDC_%s_ALGO and GDC_TUNING apply)\n", "<COLL>");
    gdc_coll_select_finalize();
    free(node_of);
    return 0;
}

/* gdinfo --calibrate: probe, keep, show. */
static int calibrate(void)
{
    gdc_rt_calib_numbers_t n;
    char                   path[PATH_MAX], line[512];

    if (gdc_rt_config_load() != GDC_SUCCESS) {
        return 1;
    }
    if (gdc_rt_calib_cache_path(path, sizeof(path)) != 0) {
        fprintf(stderr, "gdinfo: --calibrate: neither HOME nor XDG_CACHE_HOME names a cache directory\n");
        return 1;
    }
    if (gdc_rt_calib_probe(&n) != GDC_SUCCESS || gdc_rt_calib_write(path, &n, "gdinfo --calibrate") != GDC_SUCCESS) {
        fprintf(stderr, "gdinfo: --calibrate: the measurement could not be made or kept (see above)\n");
        return 1;
    }
    gdc_rt_calib_format(&n, line, sizeof(line));
    printf("calibration of this host: %s\nkept in %s\n", line, path);
    if (strcmp(gdc_rt_calib_setting, "auto") != 0) {
        printf("jobs price with it under GDC_CALIBRATION=auto (now: %s)\n", gdc_rt_calib_setting);
    }
    return 0;
}

/* What the cost model prices this host with, and where the numbers come from. */
static void print_calibration(void)
{
    char line[512];

    if (gdc_rt_config_load() != GDC_SUCCESS) {
        return;
    }
    gdc_rt_calib_local();
    if (gdc_rt_calib.valid) {
        gdc_rt_calib_format(&gdc_rt_calib.n, line, sizeof(line));
        printf("  costs   measured: %s\n          from %s (GDC_CALIBRATION=%s)\n", line, gdc_rt_calib.source,
               gdc_rt_calib_setting);
    } else if (gdc_rt_calib_in_job()) {
        printf("  costs   built-in numbers, but for cross-memory attach and the copies out of a peer's shared memory "
               "in cache,\n          which each job measures at gdc_init (GDC_CALIBRATION=job)\n");
    } else {
        char path[PATH_MAX];
        int  kept = gdc_rt_calib_cache_path(path, sizeof(path)) == 0 && access(path, R_OK) == 0;
        printf("  costs   built-in numbers (GDC_CALIBRATION=%s)%s%s\n", gdc_rt_calib_setting,
               kept ? "; this host's measured ones, not in force, are in " : "; gdinfo --calibrate measures this host",
               kept ? path : "");
    }
}

/* Which way messages between ranks go (runtime/rt_msg.c); after print_calibration, which
 * loads the configuration. */
static void print_messages(void)
{
    if (gdc_rt_msg_cma_bytes == 0) {
        printf("  messages through UCX, inside a node too (GDC_MSG_CMA=0)\n");
        return;
    }
    printf("  messages host ones of %zu bytes and more to a rank of the same node: read by the receiver from the "
           "sender's\n           buffer (cross-memory attach, GDC_MSG_CMA), where gdc_init finds that it works; "
           "the others through UCX\n",
           gdc_rt_msg_cma_bytes);
}

int main(int argc, char **argv)
{
    enum { OPT_ALGORITHMS = 256, OPT_PARAMS, OPT_VERSION, OPT_PLAN, OPT_BYTES, OPT_RANKS, OPT_NODES, OPT_PROFILE,
           OPT_DEVICE, OPT_SIMULATE, OPT_DOCTOR, OPT_PEERS, OPT_CALIBRATE };
    static const struct option options[] = {
        {"algorithms", no_argument, NULL, OPT_ALGORITHMS},
        {"params", no_argument, NULL, OPT_PARAMS},
        {"plan", required_argument, NULL, OPT_PLAN},
        {"bytes", required_argument, NULL, OPT_BYTES},
        {"ranks", required_argument, NULL, OPT_RANKS},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"profile", required_argument, NULL, OPT_PROFILE},
        {"device", no_argument, NULL, OPT_DEVICE},
        {"simulate", no_argument, NULL, OPT_SIMULATE},
        {"doctor", no_argument, NULL, OPT_DOCTOR},
        {"peers", no_argument, NULL, OPT_PEERS},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int         what = 0, opt;
    plan_opts_t po   = {NULL, NULL, NULL, 0, 0, 0, 0};

    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_PLAN:
            what    = opt;
            po.coll = optarg;
            break;
        case OPT_BYTES:
            po.bytes = optarg;
            break;
        case OPT_RANKS:
        case OPT_NODES: {
            char *end;
            long  v = strtol(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > 1 << 20) {
                fprintf(stderr, "gdinfo: --%s %s: expected a positive number\n", opt == OPT_RANKS ? "ranks" : "nodes",
                        optarg);
                return 2;
            }
            *(opt == OPT_RANKS ? &po.ranks : &po.nodes) = (int)v;
            break;
        }
        case OPT_PROFILE:
            po.profile = optarg;
            break;
        case OPT_DEVICE:
            po.device = 1;
            break;
        case OPT_SIMULATE:
            po.simulate = 1;
            break;
        case OPT_ALGORITHMS:
        case OPT_PARAMS:
        case OPT_DOCTOR:
        case OPT_PEERS:
        case OPT_CALIBRATE:
            what = opt;
            break;
        case OPT_VERSION:
            printf("gdinfo (gdc) %s\n", PACKAGE_VERSION);
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gdinfo: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    switch (what) {
    case OPT_ALGORITHMS:
        print_algorithms();
        break;
    case OPT_PARAMS:
        gdc_coll_register_params();
        gdc_rt_topo_register_params();
        gdc_rt_config_foreach(print_param, NULL);
        break;
    case OPT_PLAN:
        return plan(&po);
    case OPT_DOCTOR:
        return gdinfo_topo_doctor();
    case OPT_PEERS:
        return gdinfo_topo_peers();
    case OPT_CALIBRATE:
        return calibrate();
    default:
        print_build();
        print_calibration();
        print_messages();
        return gdinfo_topo_summary();
    }
    return 0;
}
