/*
 * Fuzz target: the machine profile (GDC_PROFILE, gdinfo --profile; coll/select/model.c),
 * the input read as the file over the built-in defaults. Beyond not crashing or leaking: a
 * profile that is accepted is one the cost model can price, so every link has a latency
 * and a bandwidth that are numbers (finite, >= 0 and > 0), and so do the rates; and a
 * small call on it (allreduce and bcast over 2 nodes, host and device buffers) gets a
 * finite prediction from every algorithm that applies.
 */
#include <math.h>

#include "fuzz.h"

#include "builder.h"
#include "select/model.h"
#include "select/table.h"

static int finite_nonnegative(double x)
{
    return isfinite(x) && x >= 0;
}

static int finite_positive(double x)
{
    return isfinite(x) && x > 0;
}

static void check_machine(const gdc_coll_machine_t *m)
{
    for (int c = 0; c < GDC_LINK_NUM_CLASSES; c++) {
        FUZZ_CHECK(finite_nonnegative(m->link[c].latency));
        FUZZ_CHECK(finite_positive(m->link[c].bandwidth));
    }
    FUZZ_CHECK(finite_positive(m->reduce_bw) && finite_positive(m->reduce_bw_gpu));
    FUZZ_CHECK(finite_positive(m->copy_bw) && finite_positive(m->copy_bw_gpu));
    FUZZ_CHECK(finite_nonnegative(m->step_overhead) && finite_nonnegative(m->signal_latency));
    FUZZ_CHECK(finite_nonnegative(m->switch_time) && m->cores_per_node >= 0);
    FUZZ_CHECK(m->nics_per_node >= 1 && m->gpus_per_node >= 0);
    FUZZ_CHECK((unsigned)m->intra_host < GDC_LINK_NUM_CLASSES && (unsigned)m->intra_device < GDC_LINK_NUM_CLASSES);
    FUZZ_CHECK((unsigned)m->inter_host < GDC_LINK_NUM_CLASSES && (unsigned)m->inter_device < GDC_LINK_NUM_CLASSES);
    FUZZ_CHECK(memchr(m->name, '\0', sizeof(m->name)) != NULL);
    FUZZ_CHECK(memchr(m->description, '\0', sizeof(m->description)) != NULL);
}

/* 6 ranks on 2 nodes of 3: rings, trees and the hierarchical algorithms all apply. */
static void check_predictions(const gdc_coll_machine_t *m, gdc_coll_type_t coll, int on_device)
{
    static const int node_of[] = {0, 0, 0, 1, 1, 1};
    gdc_coll_args_t  args;

    memset(&args, 0, sizeof(args));
    args.coll      = coll;
    args.dtype     = GDC_FLOAT32;
    args.dsize     = 4;
    args.op        = GDC_SUM;
    args.size      = 6;
    args.count     = 3000;
    args.node_of   = node_of;
    args.num_nodes = 2;
    args.shm_bytes = 2 << 20;
    args.on_device = on_device;
    args.config    = &gdc_coll_config_defaults;
    for (int i = 0; i < GDC_COLL_ALGO_COUNT; i++) {
        const gdc_coll_algo_t *algo = &gdc_coll_algos[i];
        gdc_coll_prediction_t  p;

        if (algo->coll != coll || (algo->supports != NULL && !algo->supports(&args))) {
            continue;
        }
        FUZZ_CHECK(gdc_coll_predict(m, algo, &args, on_device, &p) == GDC_SUCCESS);
        FUZZ_CHECK(finite_nonnegative(p.seconds));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gdc_coll_machine_t m;
    FILE              *f = fuzz_stream(data, size);
    gdc_status_t       status;

    if (f == NULL) {
        return 0;
    }
    gdc_coll_machine_default(&m);
    status = gdc_coll_machine_read(&m, f, "fuzz");
    fclose(f);
    FUZZ_CHECK(status == GDC_SUCCESS || status == GDC_ERR_INVALID_ARG);
    if (status == GDC_SUCCESS) {
        check_machine(&m);
        check_predictions(&m, GDC_COLL_ALLREDUCE, 0);
        check_predictions(&m, GDC_COLL_ALLREDUCE, 1);
        check_predictions(&m, GDC_COLL_BCAST, 1);
    }
    return 0;
}
