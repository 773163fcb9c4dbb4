/*
 * sysfs and procfs facts that gdinfo reports and --doctor checks: PCIe link generation and
 * width, BAR sizes, IOMMU and ACS. Every path is read under the runtime's sysfs root
 * (gdc_rt_topo_sysfs_root: "" on the real machine) so the tests can lay out a fake tree.
 */
#include "gdinfo_sysfs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_topo_probe.h"

#define PCI_EXT_CAP_START   0x100
#define PCI_EXT_CAP_ID_ACS  0x000d
#define PCI_ACS_CTRL        6          /* offset of the ACS control register in the capability */
#define PCI_ACS_REQ_REDIR   (1u << 2)  /* P2P request redirect */
#define PCI_ACS_CMPL_REDIR  (1u << 3)  /* P2P completion redirect */
#define PCI_ACS_EGRESS_CTL  (1u << 5)  /* P2P egress control */
#define PCI_CONFIG_SPACE    4096
#define PCI_CONFIG_UNPRIVILEGED 64     /* what sysfs shows a non-root reader */

static void make_path(char *path, size_t len, const char *fmt, const char *arg)
{
    char rel[1024];

    snprintf(rel, sizeof(rel), fmt, arg);
    snprintf(path, len, "%s%s", gdc_rt_topo_sysfs_root(), rel);
}

/* The first line of a file, without its newline; 0 on success. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    int   ok;

    if (f == NULL) {
        return -1;
    }
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok) {
        return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int read_device_attr(const char *busid, const char *attr, char *buf, size_t len)
{
    char path[PATH_MAX], rel[128];

    snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%%s/%s", attr);
    make_path(path, sizeof(path), rel, busid);
    return read_line(path, buf, len);
}

/* "16.0 GT/s PCIe" -> 4; "8 GT/s" -> 3; 0 when unknown. */
static int speed_to_gen(const char *text)
{
    static const double gts[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    double              speed;

    if (sscanf(text, "%lf", &speed) != 1 || speed <= 0) {
        return 0;
    }
    for (int g = 0; g < (int)(sizeof(gts) / sizeof(gts[0])); g++) {
        if (speed <= gts[g] + 0.01) {
            return g + 1;
        }
    }
    return 6;
}

static int read_gen(const char *busid, const char *attr)
{
    char text[64];

    return read_device_attr(busid, attr, text, sizeof(text)) == 0 ? speed_to_gen(text) : 0;
}

static int read_width(const char *busid, const char *attr)
{
    char text[64];
    int  width;

    if (read_device_attr(busid, attr, text, sizeof(text)) != 0 || sscanf(text, "%d", &width) != 1) {
        return 0;
    }
    return width > 0 && width <= 32 ? width : 0; /* 255 means "unknown" */
}

static int looks_like_busid(const char *name)
{
    unsigned d, b, v, f;
    char     extra;

    return sscanf(name, "%x:%x:%x.%x%c", &d, &b, &v, &f, &extra) == 4 && strlen(name) == 12;
}

/*
 * The bridges above a device, outermost first (the root port, then switch ports), from
 * the sysfs path of the device: /sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/...
 */
static int upstream_bridges(const char *busid, char (*out)[16], int max)
{
    char  path[PATH_MAX], real[PATH_MAX];
    int   count = 0;
    char *save  = NULL;

    make_path(path, sizeof(path), "/sys/bus/pci/devices/%s", busid);
    if (realpath(path, real) == NULL) {
        return 0;
    }
    for (char *part = strtok_r(real, "/", &save); part != NULL; part = strtok_r(NULL, "/", &save)) {
        if (looks_like_busid(part) && strcmp(part, busid) != 0 && count < max) {
            snprintf(out[count++], 16, "%s", part);
        }
    }
    return count;
}

int gdinfo_sysfs_pcie_link(const char *busid, gdinfo_pcie_link_t *out)
{
    gdinfo_pcie_link_t link;
    char                 bridges[16][16];
    int                  n;

    memset(&link, 0, sizeof(link));
    link.max_gen   = read_gen(busid, "max_link_speed");
    link.max_width = read_width(busid, "max_link_width");
    if (link.max_gen == 0 && link.max_width == 0) {
        return -1;
    }
    link.cur_gen   = read_gen(busid, "current_link_speed");
    link.cur_width = read_width(busid, "current_link_width");
    n              = upstream_bridges(busid, bridges, 16);
    if (n > 0) {
        snprintf(link.port, sizeof(link.port), "%s", bridges[n - 1]);
        link.port_gen   = read_gen(link.port, "max_link_speed");
        link.port_width = read_width(link.port, "max_link_width");
    }
    *out = link;
    return 0;
}

int gdinfo_sysfs_bar_size(const char *busid, int bar, uint64_t *bytes)
{
    char               path[PATH_MAX], line[128];
    unsigned long long start, end, flags;
    FILE              *f;
    int                found = -1;

    make_path(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", busid);
    f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    for (int i = 0; fgets(line, sizeof(line), f) != NULL; i++) {
        if (i == bar && sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3 && end > start) {
            *bytes = (uint64_t)(end - start + 1);
            found  = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

void gdinfo_sysfs_iommu(int *groups, int *passthrough)
{
    static const char *const pt_words[] = {"iommu=pt", "iommu.passthrough=1", "amd_iommu=pt"};
    char                     path[PATH_MAX], cmdline[4096];
    DIR                     *dir;
    struct dirent           *entry;

    *groups      = 0;
    *passthrough = 0;
    make_path(path, sizeof(path), "%s", "/sys/kernel/iommu_groups");
    dir = opendir(path);
    if (dir != NULL) {
        while ((entry = readdir(dir)) != NULL) {
            *groups += entry->d_name[0] != '.';
        }
        closedir(dir);
    }
    make_path(path, sizeof(path), "%s", "/proc/cmdline");
    if (read_line(path, cmdline, sizeof(cmdline)) == 0) {
        char *save = NULL;
        for (char *word = strtok_r(cmdline, " ", &save); word != NULL; word = strtok_r(NULL, " ", &save)) {
            for (size_t i = 0; i < sizeof(pt_words) / sizeof(pt_words[0]); i++) {
                *passthrough |= strcmp(word, pt_words[i]) == 0;
            }
        }
    }
}

/* The ACS control register of a bridge: >= 0, -1 without an ACS capability, -2 when the
 * extended configuration space cannot be read. */
static int acs_control(const char *busid)
{
    char          path[PATH_MAX];
    unsigned char cfg[PCI_CONFIG_SPACE];
    size_t        got;
    FILE         *f;
    unsigned      offset = PCI_EXT_CAP_START;

    make_path(path, sizeof(path), "/sys/bus/pci/devices/%s/config", busid);
    f = fopen(path, "rb");
    if (f == NULL) {
        return -2;
    }
    got = fread(cfg, 1, sizeof(cfg), f);
    fclose(f);
    if (got <= PCI_CONFIG_UNPRIVILEGED) {
        return -2;
    }
    for (int guard = 0; guard < 128 && offset >= PCI_EXT_CAP_START && offset + 8 <= got; guard++) {
        uint32_t header = (uint32_t)cfg[offset] | (uint32_t)cfg[offset + 1] << 8 |
                          (uint32_t)cfg[offset + 2] << 16 | (uint32_t)cfg[offset + 3] << 24;
        if (header == 0 || header == 0xffffffffu) {
            break;
        }
        if ((header & 0xffff) == PCI_EXT_CAP_ID_ACS) {
            return (int)(cfg[offset + PCI_ACS_CTRL] | cfg[offset + PCI_ACS_CTRL + 1] << 8);
        }
        offset = (header >> 20) & 0xffc;
    }
    return -1;
}

int gdinfo_sysfs_acs_redirect(const char *busid, char *bridges, size_t len)
{
    char   up[16][16], path[PATH_MAX];
    int    n = upstream_bridges(busid, up, 16);
    int    found = 0, unreadable = 0;
    size_t used  = 0;

    if (len > 0) {
        bridges[0] = '\0';
    }
    make_path(path, sizeof(path), "/sys/bus/pci/devices/%s", busid);
    if (access(path, F_OK) != 0) {
        return -2;
    }
    /* The root port (up[0]) is skipped: traffic between root ports crosses the root
     * complex anyway, and ACS there is the normal setting. Switch ports are what matter. */
    for (int i = 1; i < n; i++) {
        int ctrl = acs_control(up[i]);

        if (ctrl == -2) {
            unreadable = 1;
        } else if (ctrl >= 0 && (ctrl & (PCI_ACS_REQ_REDIR | PCI_ACS_CMPL_REDIR | PCI_ACS_EGRESS_CTL)) != 0) {
            found = 1;
            if (used < len) {
                used += (size_t)snprintf(bridges + used, len - used, "%s%s", used ? " " : "", up[i]);
            }
        }
    }
    if (found) {
        return 1;
    }
    return unreadable ? -1 : 0;
}
