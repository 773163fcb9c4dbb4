/* --bind-to core|numa: spread the ranks over the cores (or NUMA nodes) of this machine,
 * as far apart as their number allows, and say where each went (--report-bindings);
 * --bind-to auto: cores, where the ranks outnumber them (auto_binds). The
 * plan is made in gdrun; the child only applies a ready cpu mask (a system call), since a
 * child of a threaded process must not allocate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include "gdrun.h"

static const char *bind_unit(gdrun_bind_t bind)
{
    return bind == GDRUN_BIND_NUMA ? "NUMA node" : "core";
}

static int plan_one(hwloc_topology_t topo, hwloc_obj_t obj, gdrun_binding_t *b)
{
    int   last = hwloc_bitmap_last(obj->cpuset);
    char *list = NULL;

    if (last < 0 || hwloc_bitmap_list_asprintf(&list, obj->cpuset) < 0) {
        return -1;
    }
    b->cpulist   = list;
    b->mask_size = CPU_ALLOC_SIZE(last + 1);
    b->mask      = CPU_ALLOC(last + 1);
    b->hwloc_set = hwloc_bitmap_dup(obj->cpuset);
    if (b->mask == NULL || b->hwloc_set == NULL ||
        hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, b->mask, b->mask_size) != 0) {
        return -1;
    }
    return 0;
}

/* --bind-to auto: a rank to a core where the ranks outnumber the cores. gdc's waits yield
 * the core there, and a rank that yields never leaves its core idle: the kernel, which moves
 * a rank to a core when that goes idle, can then keep three of four ranks on one of two
 * cores for the rest of the job (4 ranks of the development VM: an alltoall of 512 KiB
 * took 1.4 to 1.5 times as long in four jobs of eight, of 1 MiB in two; bound, in none of
 * six: bench/RESULTS.md 2026-12-06 18:45-20:12 UTC). Not where gdrun itself is bound to
 * part of the machine (taskset, numactl): its ranks keep to that. */
static int auto_binds(const gdrun_job_t *job, hwloc_topology_t topo, int cores)
{
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    int            whole;

    if (mine == NULL || job->opt.np <= cores) {
        hwloc_bitmap_free(mine);
        return 0;
    }
    whole = hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) == 0 &&
            hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo), mine);
    hwloc_bitmap_free(mine);
    return whole;
}

int gdrun_bind_plan(gdrun_job_t *job)
{
    hwloc_obj_type_t type = job->opt.bind == GDRUN_BIND_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_CORE;
    hwloc_topology_t topo;
    int              nobj, np = job->opt.np, automatic = job->opt.bind == GDRUN_BIND_AUTO;
    int              status = -1;

    if (job->opt.bind == GDRUN_BIND_NONE) {
        return 0;
    }
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        if (automatic) { /* nothing asked for: the ranks run unbound */
            gdrun_info(&job->opt, "--bind-to auto: hwloc cannot read this machine's topology (%s): ranks unbound",
                       strerror(errno));
            return 0;
        }
        gdrun_msg("--bind-to %s: hwloc cannot read this machine's topology: %s",
                  bind_unit(job->opt.bind), strerror(errno));
        return -1;
    }
    nobj = hwloc_get_nbobjs_by_type(topo, type);
    if (nobj <= 0 && type == HWLOC_OBJ_CORE) {
        type = HWLOC_OBJ_PU; /* some virtual machines report no cores */
        nobj = hwloc_get_nbobjs_by_type(topo, type);
    }
    if (automatic) {
        status = 0;
        if (nobj <= 0 || !auto_binds(job, topo, nobj)) {
            goto out;
        }
        gdrun_info(&job->opt, "--bind-to auto: %d ranks on %d cores: each rank bound to one, in turn", np, nobj);
    } else if (nobj <= 0) {
        gdrun_msg("--bind-to %s: hwloc finds no %s on this machine", bind_unit(job->opt.bind),
                  bind_unit(job->opt.bind));
        goto out;
    } else if (np > nobj) {
        gdrun_msg("warning: --bind-to %s with %d ranks on %d %s%s: ranks share them", bind_unit(job->opt.bind),
                  np, nobj, bind_unit(job->opt.bind), nobj > 1 ? "s" : "");
    }
    status        = -1;
    job->bindings = calloc((size_t)np, sizeof(gdrun_binding_t));
    if (job->bindings == NULL) {
        goto out;
    }
    for (int r = 0; r < np; r++) {
        /* Spread: ranks as far apart as possible when there are fewer ranks than objects. */
        int         index = np <= nobj ? (int)((long)r * nobj / np) : r % nobj;
        hwloc_obj_t obj   = hwloc_get_obj_by_type(topo, type, (unsigned)index);
        char        what[64];

        snprintf(what, sizeof(what), "%s %u", bind_unit(job->opt.bind), obj->logical_index);
        if ((job->bindings[r].what = strdup(what)) == NULL ||
            plan_one(topo, obj, &job->bindings[r]) != 0) {
            gdrun_msg("--bind-to %s: cannot build the cpu mask of rank %d", bind_unit(job->opt.bind), r);
            goto out;
        }
    }
    status = 0;
out:
    hwloc_topology_destroy(topo);
    return status;
}

void gdrun_bind_report(const gdrun_job_t *job)
{
    for (int r = 0; r < job->opt.np; r++) {
        const char *node = job->layout.node_name[job->layout.node_of[r]];

        if (job->bindings != NULL) {
            gdrun_msg("rank %d (node %s) bound to %s: cpus %s", r, node, job->bindings[r].what,
                      job->bindings[r].cpulist);
        } else {
            gdrun_msg("rank %d (node %s) not bound (--bind-to %s)", r, node,
                      job->opt.bind == GDRUN_BIND_AUTO ? "auto: no more ranks than cores, or gdrun bound" : "none");
        }
    }
}

void gdrun_bind_free(gdrun_job_t *job)
{
    for (int r = 0; job->bindings != NULL && r < job->opt.np; r++) {
        gdrun_binding_t *b = &job->bindings[r];

        if (b->mask != NULL) {
            CPU_FREE(b->mask);
        }
        if (b->hwloc_set != NULL) {
            hwloc_bitmap_free(b->hwloc_set);
        }
        free(b->what);
        free(b->cpulist);
        free(b->locality);
    }
    free(job->bindings);
    job->bindings = NULL;
}
