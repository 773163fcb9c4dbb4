/*
 * sysfs and procfs facts that gdinfo reports and --doctor checks (gdinfo_sysfs.c), read
 * under the runtime's sysfs root (gdc_rt_topo_sysfs_set_root: the tests point it at a fake
 * tree). The library itself needs none of them.
 */
#ifndef GDINFO_SYSFS_H
#define GDINFO_SYSFS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gdinfo_pcie_link {
    int cur_gen, cur_width;   /* what the link runs at now (GPUs slow it down when idle) */
    int max_gen, max_width;   /* what the device can do */
    int port_gen, port_width; /* what the port above it can do; 0 when unknown */
    char port[16];            /* that port's bus id */
} gdinfo_pcie_link_t;
/* 0 on success; -1 when the device has no sysfs entry or no PCIe link attributes. */
int gdinfo_sysfs_pcie_link(const char *busid, gdinfo_pcie_link_t *out);
/* Size of BAR bar (0..5) from the device's resource file; 0 on success. */
int gdinfo_sysfs_bar_size(const char *busid, int bar, uint64_t *bytes);
/* IOMMU: number of groups in /sys/kernel/iommu_groups (0: off), whether the kernel command
 * line asks for passthrough (iommu=pt). */
void gdinfo_sysfs_iommu(int *groups, int *passthrough);
/* ACS on the PCIe switch ports above a device: 1 when some port redirects peer-to-peer
 * traffic (their bus ids listed in bridges), 0 when none does, -1 when a configuration
 * space cannot be read (not root), -2 when the device is not in sysfs. */
int gdinfo_sysfs_acs_redirect(const char *busid, char *bridges, size_t len);

#endif
