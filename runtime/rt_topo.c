/* TEMPORARY (replaced by the topology branch). */
#include "rt_topo.h"

const char *gdc_link_class_name(gdc_link_class_t c)
{
    static const char *const names[] = {"self", "shm", "nvlink", "pcie", "net-gdr", "net"};

    return (unsigned)c < GDC_LINK_NUM_CLASSES ? names[c] : "unknown";
}
