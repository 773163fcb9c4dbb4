/* gdinfo's topology reports (gdinfo_topo.c). Each returns gdinfo's exit status. */
#ifndef GDINFO_TOPO_H
#define GDINFO_TOPO_H

/* No option: this node's topology in a short summary, its GPUs and the findings. */
int gdinfo_topo_summary(void);
/* This node's cores, last-level cache (whole MiB) and a core's own cache (KiB) as a job
 * here counts them (hwloc's, or GDC_TOPO_XML's); 0 when the node cannot be probed. The
 * configuration must be loaded with the topology's parameters. */
void gdinfo_topo_node_counts(int *cores, int *llc_mib, int *core_cache_kib);
/* --doctor: the fast-path checks; 0 unless a check fails (0 on a machine without GPUs). */
int gdinfo_topo_doctor(void);
/* --peers: under a launcher, the link class and UCX transports of every pair (rank 0 prints). */
int gdinfo_topo_peers(void);

#endif
