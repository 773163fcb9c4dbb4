/*
 * sysfs and procfs facts the topology model needs: the peer-memory kernel module. Every
 * path is read under a root ("" on the real machine) so the tests can lay out a fake tree;
 * gdinfo's own readers (launcher/gdinfo_sysfs.c) share it.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_topo_probe.h"

/* Bounded so that root + relative path always fit in PATH_MAX. */
static char sysfs_root[1024];

void gdc_rt_topo_sysfs_set_root(const char *root)
{
    snprintf(sysfs_root, sizeof(sysfs_root), "%s", root != NULL ? root : "");
}

const char *gdc_rt_topo_sysfs_root(void)
{
    return sysfs_root;
}

static void make_path(char *path, size_t len, const char *fmt, const char *arg)
{
    char rel[1024];

    snprintf(rel, sizeof(rel), fmt, arg);
    snprintf(path, len, "%s%s", sysfs_root, rel);
}

static int module_loaded(const char *name)
{
    char  path[PATH_MAX], line[256];
    FILE *f;
    int   found = 0;
    size_t len  = strlen(name);

    make_path(path, sizeof(path), "/sys/module/%s", name);
    if (access(path, F_OK) == 0) {
        return 1;
    }
    make_path(path, sizeof(path), "%s", "/proc/modules");
    f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        found = strncmp(line, name, len) == 0 && line[len] == ' ';
    }
    fclose(f);
    return found;
}

const char *gdc_rt_topo_sysfs_peermem(void)
{
    if (module_loaded("nvidia_peermem")) {
        return "nvidia_peermem";
    }
    if (module_loaded("nv_peer_mem")) {
        return "nv_peer_mem";
    }
    return NULL;
}
