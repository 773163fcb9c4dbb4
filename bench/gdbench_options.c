/* The command line: OSU's options plus --json and --plot. Bad input exits 2 with usage. */
#include "config.h"
#include "gdbench.h"
#include "gdbench_backend.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_JSON = 256,
    OPT_PLOT,
    OPT_WITH_BARRIER,
    OPT_INJECT_ERROR
};

const char *gdbench_launcher_name(void)
{
    return strcmp(gdbench_be_name(), "gdc") == 0 ? "gdrun" : "mpirun";
}

void gdbench_usage(FILE *out)
{
    const char *prog     = gdbench_be_program();
    const char *launcher = gdbench_launcher_name();

    fprintf(out,
            "usage: %s <test> [options]      (under a launcher: %s -n N %s <test> ...)\n"
            "\n"
            "tests and what their Size column means (bytes):\n",
            prog, launcher, prog);
    for (int t = 0; t < GDBENCH_TEST_COUNT; t++) {
        const gdbench_test_info_t *info = gdbench_test_info((gdbench_test_t)t);
        fprintf(out, "  %-15s %s\n", info->name, info->size_help);
    }
    fprintf(out,
            "  latency, bw and bibw need exactly 2 ranks.\n"
            "\n"
            "options:\n"
            "  -m [MIN:]MAX   sizes in bytes, powers of two from MIN to MAX; K, M, G suffixes\n"
            "                 (default: collectives one element to 1M, latency 0 to 4M, bw 1 to 4M)\n"
            "  -i ITERS       timed iterations per size (default as OSU: collectives 1000 up to 8K\n"
            "                 and 100 above; latency 10000/1000; bw, bibw 100/20 windows of %d)\n"
            "  -x WARMUP      untimed iterations first (default as OSU: 200/10, latency 100/10, bw 10/2)\n"
            "  -f             full output: min and max latency across ranks, and iterations\n"
            "  -c             validate every result; a wrong element fails the run (exit 1)\n"
            "  -T DTYPE       int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16\n"
            "                 float32 float64 (default: float32 for reductions, uint8 otherwise)\n"
            "  -o OP          sum prod min max avg band bor bxor (reductions; default sum)\n"
            "  -r ROOT        root of bcast, reduce, gather, scatter (default 0)\n"
            "  -l             in place (allreduce, reduce, reduce_scatter, allgather, alltoall,\n"
            "                 gather, scatter)\n"
            "  -d host|cuda|cuda-pool  where the buffers are (default host; cuda-pool: cudaMallocAsync)\n"
            "  -a ALGORITHM   force the collective's algorithm (gdc: sets GDC_<COLL>_ALGO)\n"
            "  --json FILE    write the parameters and every row as JSON\n"
            "  --plot FILE    draw latency and bus bandwidth against size as SVG\n"
            "  --with-barrier time each call with the barrier that follows it (collectives):\n"
            "                 a whole iteration, however the two share its time\n"
            "  -h, --help     this text;  -v, --version  version and build\n"
            "\n"
            "columns: latency in microseconds per call (average, min, max across ranks);\n"
            "algbw = bytes / time and busbw = algbw x factor, in GB/s, as nccl-tests defines them:\n"
            "factor 2(n-1)/n for allreduce, (n-1)/n for allgather, reduce_scatter, alltoall(v),\n"
            "gather and scatter (whose bytes are ranks x Size), 1 for bcast, reduce and point-to-point.\n"
            "exit status: 0 ok, 1 failed (wrong result, error), 2 bad usage, 3 not supported by\n"
            "this backend or build.  See gdbench(1).\n",
            GDBENCH_WINDOW);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", gdbench_be_program());
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    gdbench_usage(stderr);
    return GDBENCH_ERR;
}

static int parse_long(const char *text, long min, long *value)
{
    char *end;
    long  v;

    errno = 0;
    v     = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min) {
        return -1;
    }
    *value = v;
    return 0;
}

/* "-m MAX", "-m MIN:MAX" or "-m MIN:" */
static int parse_sizes(const char *text, size_t *min_size, size_t *max_size, int *have_min, int *have_max)
{
    const char *colon = strchr(text, ':');
    char        first[64];

    if (colon == NULL) {
        *have_max = 1;
        return gdbench_parse_bytes(text, max_size);
    }
    if ((size_t)(colon - text) >= sizeof(first)) {
        return -1;
    }
    memcpy(first, text, (size_t)(colon - text));
    first[colon - text] = '\0';
    if (gdbench_parse_bytes(first, min_size) != 0) {
        return -1;
    }
    *have_min = 1;
    if (colon[1] == '\0') {
        return 0;
    }
    *have_max = 1;
    return gdbench_parse_bytes(colon + 1, max_size);
}

static void print_version(void)
{
    printf("%s (gdbench of gdc %s), backend %s, CUDA buffers: %s\n", gdbench_be_program(), PACKAGE_VERSION,
           gdbench_be_name(), gdbench_mem_cuda_built() ? "yes" : "no (built without CUDA)");
}

/* Options that mean nothing for the chosen test are errors, not silently ignored. */
static int check_combination(const gdbench_options_t *o, int have_op, int have_root, int have_dtype,
                             int have_sizes)
{
    const gdbench_test_info_t *info = gdbench_test_info(o->test);

    if (have_op && !(info->flags & GDBENCH_F_REDUCTION)) {
        return usage_error("-o: %s is not a reduction (-o applies to allreduce, reduce, reduce_scatter)",
                           info->name);
    }
    if (have_root && !(info->flags & GDBENCH_F_ROOTED)) {
        return usage_error("-r: %s has no root (-r applies to bcast, reduce, gather, scatter)", info->name);
    }
    if (o->in_place && !(info->flags & GDBENCH_F_IN_PLACE)) {
        return usage_error("-l: %s has no in-place form", info->name);
    }
    if (o->algorithm != NULL && (info->flags & GDBENCH_F_P2P)) {
        return usage_error("-a: %s is point-to-point and has no algorithm to choose", info->name);
    }
    if ((info->flags & GDBENCH_F_NO_DATA) && (have_dtype || have_sizes || o->memory != GDBENCH_MEM_HOST)) {
        return usage_error("%s moves no data: -m, -T and -d do not apply", info->name);
    }
    if (!gdbench_op_valid_for(o->op, o->dtype)) {
        return usage_error("-o: %s needs an integer datatype (-T int8 ... uint64)", gdbench_op_name(o->op));
    }
    if (o->with_barrier && ((info->flags & GDBENCH_F_P2P) || o->validate)) {
        return usage_error("--with-barrier: %s", (info->flags & GDBENCH_F_P2P) ? "collectives only" : "not with -c");
    }
    if (o->min_size > o->max_size) {
        return usage_error("-m: the minimum size is larger than the maximum%s", "");
    }
    return GDBENCH_OK;
}

static int parse(int argc, char **argv, gdbench_options_t *o, int *exit_now)
{
    static const struct option long_options[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'v'},
        {"json", required_argument, NULL, OPT_JSON},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"with-barrier", no_argument, NULL, OPT_WITH_BARRIER},
        {"inject-error", no_argument, NULL, OPT_INJECT_ERROR},
        {NULL, 0, NULL, 0},
    };
    const char *test_name = NULL;
    int         have_op = 0, have_root = 0, have_dtype = 0, have_min = 0, have_max = 0;
    size_t      min_size = 0, max_size = 0;
    long        value;
    int         c;

    memset(o, 0, sizeof(*o));
    o->iterations = -1;
    o->warmup     = -1;
    o->op         = GDBENCH_SUM;
    *exit_now     = 0;
    opterr        = 0;
    optind        = 1;
    while ((c = getopt_long(argc, argv, ":m:i:x:fcT:o:r:ld:a:hv", long_options, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (parse_sizes(optarg, &min_size, &max_size, &have_min, &have_max) != 0) {
                return usage_error("-m: '%s' is not [MIN:]MAX in bytes (e.g. 4:1M)", optarg);
            }
            break;
        case 'i':
            if (parse_long(optarg, 1, &value) != 0) {
                return usage_error("-i: '%s' is not a number of iterations >= 1", optarg);
            }
            o->iterations = value;
            break;
        case 'x':
            if (parse_long(optarg, 0, &value) != 0) {
                return usage_error("-x: '%s' is not a number of warm-up iterations >= 0", optarg);
            }
            o->warmup = value;
            break;
        case 'f': o->full = 1; break;
        case 'c': o->validate = 1; break;
        case 'T':
            if (gdbench_dtype_by_name(optarg, &o->dtype) != 0) {
                return usage_error("-T: unknown datatype '%s'", optarg);
            }
            have_dtype = 1;
            break;
        case 'o':
            if (gdbench_op_by_name(optarg, &o->op) != 0) {
                return usage_error("-o: unknown operation '%s'", optarg);
            }
            have_op = 1;
            break;
        case 'r':
            if (parse_long(optarg, 0, &value) != 0 || value > INT_MAX) {
                return usage_error("-r: '%s' is not a rank >= 0", optarg);
            }
            o->root   = (int)value;
            have_root = 1;
            break;
        case 'l': o->in_place = 1; break;
        case 'd':
            if (strcmp(optarg, "host") == 0) {
                o->memory = GDBENCH_MEM_HOST;
            } else if (strcmp(optarg, "cuda") == 0) {
                o->memory = GDBENCH_MEM_CUDA;
            } else if (strcmp(optarg, "cuda-pool") == 0) {
                o->memory = GDBENCH_MEM_CUDA_POOL;
            } else {
                return usage_error("-d: '%s' is none of host, cuda, cuda-pool", optarg);
            }
            break;
        case 'a': o->algorithm = optarg; break;
        case OPT_JSON: o->json_path = optarg; break;
        case OPT_PLOT: o->plot_path = optarg; break;
        case OPT_WITH_BARRIER: o->with_barrier = 1; break;
        case OPT_INJECT_ERROR: o->inject_error = 1; break;
        case 'h':
            gdbench_usage(stdout);
            *exit_now = 1;
            return GDBENCH_OK;
        case 'v':
            print_version();
            *exit_now = 1;
            return GDBENCH_OK;
        case ':': return usage_error("%s needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        return usage_error("no test given%s", "");
    }
    test_name = argv[optind];
    if (optind + 1 < argc) {
        return usage_error("unexpected argument '%s' (one test per run)", argv[optind + 1]);
    }
    if (gdbench_test_by_name(test_name, &o->test) != 0) {
        return usage_error("unknown test '%s'", test_name);
    }
    if (!have_dtype) {
        o->dtype = gdbench_default_dtype(o->test);
    }
    gdbench_default_sizes(o->test, o->dtype, &o->min_size, &o->max_size);
    if (have_min) {
        o->min_size = min_size;
    }
    if (have_max) {
        o->max_size = max_size;
        if (!have_min && o->min_size > o->max_size) {
            o->min_size = o->max_size; /* "-m 2" alone means up to 2 bytes */
        }
    }
    return check_combination(o, have_op, have_root, have_dtype, have_min || have_max);
}

int gdbench_options_parse(int argc, char **argv, gdbench_options_t *opts, int *exit_now)
{
    gdbench_options_t parsed;
    int               status = parse(argc, argv, &parsed, exit_now);

    if (status == GDBENCH_OK) {
        *opts = parsed;
    }
    return status;
}
