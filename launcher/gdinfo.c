/*
 * gdinfo: what gdc sees and would do. The single-process parts need no launcher.
 *   gdinfo               version and build
 *   gdinfo --algorithms  one line per algorithm: <collective> <name> <description>
 *   gdinfo --params      every GDC_* variable with its current value and help
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "config.h"
#include "gdc_rt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: gdinfo [OPTION]\n"
            "Show what gdc sees and would do.\n"
            "\n"
            "  (no option)      version and build: UCX, PMIx, hwloc and CUDA\n"
            "  --algorithms     every collective algorithm: <collective> <name> <description>\n"
            "  --params         every GDC_* environment variable, its value and what it does\n"
            "  -h, --help       this help\n"
            "  --version        gdc's version\n");
}

static void print_algorithms(void)
{
    for (int i = 0; i < gdc_coll_num_algos; i++) {
        printf("%-15s %-22s %s\n", gdc_coll_type_name(gdc_coll_algos[i].coll), gdc_coll_algos[i].name,
               gdc_coll_algos[i].desc);
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
    gdc_rt_memtype_init();
    if (gdc_rt_cuda_available()) {
        printf("  driver  CUDA %d.%d, %d device(s)\n", gdc_rt_cuda_driver_version() / 1000,
               gdc_rt_cuda_driver_version() % 1000 / 10, gdc_rt_cuda_device_count());
    } else {
        printf("  driver  no CUDA driver or device on this machine: every buffer is host memory\n");
    }
}

int main(int argc, char **argv)
{
    enum { OPT_ALGORITHMS = 256, OPT_PARAMS, OPT_VERSION };
    static const struct option options[] = {
        {"algorithms", no_argument, NULL, OPT_ALGORITHMS},
        {"params", no_argument, NULL, OPT_PARAMS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int what = 0, opt;

    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_ALGORITHMS:
        case OPT_PARAMS:
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
        gdc_rt_config_foreach(print_param, NULL);
        break;
    default:
        print_build();
        break;
    }
    return 0;
}
