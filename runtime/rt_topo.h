/* TEMPORARY (replaced by the topology branch): the link classes between two ranks. */
#ifndef GDC_RT_TOPO_H
#define GDC_RT_TOPO_H

typedef enum {
    GDC_LINK_SELF = 0,
    GDC_LINK_SHM,
    GDC_LINK_NVLINK,
    GDC_LINK_PCIE,
    GDC_LINK_NET_GDR,
    GDC_LINK_NET,
    GDC_LINK_NUM_CLASSES
} gdc_link_class_t;

const char *gdc_link_class_name(gdc_link_class_t c);

#endif
