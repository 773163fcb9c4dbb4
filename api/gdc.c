/*
 * gdc_init and gdc_finalize: the library's start and stop, above both layers. The runtime
 * comes up first and goes down last; the collectives layer starts once the runtime can
 * carry it and stops before the runtime's last teardown.
 */
#include <gdc.h>

#include "gdc_coll.h"
#include "gdc_rt.h"

gdc_status_t gdc_init(int *argc, char ***argv)
{
    gdc_status_t status;

    (void)argc;
    (void)argv;
    status = gdc_rt_check_can_init();
    if (status != GDC_SUCCESS) {
        return status;
    }
    gdc_coll_register_params();
    status = gdc_rt_init();
    if (status != GDC_SUCCESS) {
        return status;
    }
    status = gdc_coll_init();
    if (status != GDC_SUCCESS) {
        goto err_rt;
    }
    status = gdc_rt_init_world();
    if (status != GDC_SUCCESS) {
        goto err_coll;
    }
    status = gdc_coll_init_world();
    if (status != GDC_SUCCESS) { /* every rank alike: the same inputs as gdc_coll_init's */
        (void)gdc_rt_finalize_begin();
        gdc_coll_finalize();
        gdc_rt_finalize_end();
        return status;
    }
    return GDC_SUCCESS;

err_coll:
    gdc_coll_finalize();
err_rt:
    gdc_rt_init_undo();
    return status;
}

gdc_status_t gdc_finalize(void)
{
    gdc_status_t status = gdc_rt_check_init("gdc_finalize");
    gdc_status_t barrier_status;

    if (status != GDC_SUCCESS) {
        return status;
    }
    barrier_status = gdc_rt_finalize_begin();
    gdc_coll_finalize();
    gdc_rt_finalize_end();
    return barrier_status;
}
