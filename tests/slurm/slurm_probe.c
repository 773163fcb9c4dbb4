/*
 * What gdc makes of the job information Slurm's PMIx plugin gives, checked against what
 * Slurm itself tells each task in its environment (SLURM_NODEID, SLURMD_NODENAME,
 * SLURM_LOCALID, SLURM_STEP_NUM_NODES). On the test's emulated cluster every node is the
 * same machine, so only the launcher's notion of nodes can make these checks pass.
 *
 *   slurm_probe nodes    gdc's nodes, node names and local ranks are Slurm's, on the world
 *                        and on a split communicator (what the topology model and the
 *                        hierarchical algorithms are given)
 *
 * Prints "nodes rank R: node X (NAME), local rank L of S" and exits 0 when every check passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "gdc_rt.h"
#include "rt_comm.h"

enum { NAME_LEN = 64 };

static int rank, size;

static int env_int(const char *name)
{
    const char *value = getenv(name);

    CHECK(value != NULL, "%s is not set: not a task of a Slurm step?", name);
    return atoi(value);
}

/* comm's node grouping must be the one Slurm reports for the comm's world ranks. */
static void check_comm_nodes(gdc_comm_t comm, const int32_t *slurm_node, const char *what)
{
    int n = comm->size;

    for (int a = 0; a < n; a++) {
        int wa = gdc_rt_comm_world_rank(comm, a);
        for (int b = 0; b < n; b++) {
            int wb = gdc_rt_comm_world_rank(comm, b);
            CHECK((comm->node_of[a] == comm->node_of[b]) == (slurm_node[wa] == slurm_node[wb]),
                  "%s: ranks %d and %d are %s node for gdc, Slurm has them on nodes %d and %d", what, wa,
                  wb, comm->node_of[a] == comm->node_of[b] ? "on one" : "not on one", slurm_node[wa],
                  slurm_node[wb]);
        }
    }
}

static void check_nodes(void)
{
    const gdc_rt_boot_t *b          = &gdc_rt_boot;
    int32_t              my_node    = env_int("SLURM_NODEID");
    int                  step_nodes = env_int("SLURM_STEP_NUM_NODES");
    int                  local_id   = env_int("SLURM_LOCALID");
    const char          *host       = getenv("SLURMD_NODENAME");
    int32_t             *nodes      = check_malloc((size_t)size * sizeof(int32_t));
    char                *names      = check_malloc((size_t)size * NAME_LEN);
    char                 my_name[NAME_LEN] = "";
    int                  local_size = 0;
    gdc_comm_t           half;

    CHECK(host != NULL, "SLURMD_NODENAME is not set");
    snprintf(my_name, sizeof(my_name), "%s", host);
    CHECK_OK(gdc_allgather(&my_node, nodes, 1, GDC_INT32, GDC_COMM_WORLD));
    CHECK_OK(gdc_allgather(my_name, names, NAME_LEN, GDC_BYTE, GDC_COMM_WORLD));

    CHECK(strcmp(b->launcher, "srun") == 0, "gdc takes the launcher for %s", b->launcher);
    CHECK(b->num_nodes == step_nodes, "gdc sees %d node(s), the step has %d", b->num_nodes, step_nodes);
    for (int r = 0; r < size; r++) {
        const char *name = b->node_names[b->node_of[r]];
        CHECK(strcmp(name, names + (size_t)r * NAME_LEN) == 0, "rank %d: gdc names its node %s, Slurm %s", r,
              name, names + (size_t)r * NAME_LEN);
        local_size += nodes[r] == my_node;
    }
    CHECK(b->local_rank == local_id, "local rank %d, SLURM_LOCALID %d", b->local_rank, local_id);
    CHECK(b->local_size == local_size, "local size %d, Slurm has %d task(s) on %s", b->local_size,
          local_size, my_name);
    check_comm_nodes(GDC_COMM_WORLD, nodes, "world");
    CHECK(GDC_COMM_WORLD->num_nodes == step_nodes, "the world spans %d node(s)", GDC_COMM_WORLD->num_nodes);

    /* A communicator that cuts across the nodes keeps Slurm's grouping of its members. */
    CHECK_OK(gdc_comm_split(GDC_COMM_WORLD, rank % 2, -rank, &half));
    check_comm_nodes(half, nodes, "odd/even split");
    CHECK_OK(gdc_comm_free(&half));

    printf("nodes rank %d: node %d (%s), local rank %d of %d\n", rank, b->node_of[rank], my_name,
           b->local_rank, b->local_size);
    free(names);
    free(nodes);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "nodes") != 0) {
        fprintf(stderr, "usage: slurm_probe nodes\n");
        return 2;
    }
    CHECK_OK(gdc_init(&argc, &argv));
    CHECK_OK(gdc_comm_rank(GDC_COMM_WORLD, &rank));
    CHECK_OK(gdc_comm_size(GDC_COMM_WORLD, &size));
    check_rank = rank;
    check_nodes();
    CHECK_OK(gdc_finalize());
    return 0;
}
