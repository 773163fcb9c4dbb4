#include "rt_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_args.h"
#include "rt_boot.h"
#include "rt_calib.h"
#include "rt_cuda_ipc.h"
#include "rt_log.h"
#include "rt_msg.h"
#include "rt_p2p.h"
#include "rt_shm.h"
#include "rt_tag.h"
#include "rt_topo.h"
#include "rt_ucx.h"

struct gdc_comm gdc_comm_world_instance;

static struct gdc_comm           *live_comms; /* split/dup results */
static uint32_t                   next_ctx = 1;
static unsigned                   shm_segments; /* created by this process: their labels */
static gdc_rt_shm_t              *world_shm;    /* created before the world exists */
static const gdc_rt_comm_hooks_t *hooks;

void gdc_rt_comm_set_hooks(const gdc_rt_comm_hooks_t *h)
{
    hooks = h;
}

static gdc_status_t run_created_hook(struct gdc_comm *comm)
{
    return (hooks != NULL && hooks->created != NULL) ? hooks->created(comm) : GDC_SUCCESS;
}

static void run_destroyed_hook(struct gdc_comm *comm)
{
    if (hooks != NULL && hooks->destroyed != NULL) {
        hooks->destroyed(comm);
    }
}

/* A shared memory segment for a communicator about to be made: created before the
 * exchange that tells the peers where it is (*where). NULL when shared memory is off or
 * fails. */
static gdc_rt_shm_t *create_shm(gdc_rt_shm_locator_t *where)
{
    gdc_rt_shm_t *shm;
    char          label[64];

    *where = gdc_rt_shm_locator(NULL);
    if (gdc_rt_shm_bytes == 0 || (shm = calloc(1, sizeof(*shm))) == NULL) {
        return NULL;
    }
    snprintf(label, sizeof(label), "gdc-r%d-%u", gdc_rt_boot.rank, shm_segments++);
    if (gdc_rt_shm_create(shm, label) != GDC_SUCCESS) {
        free(shm);
        return NULL;
    }
    *where = gdc_rt_shm_locator(shm);
    return shm;
}

static gdc_status_t internal_allgather(struct gdc_comm *comm, const void *mine, void *all, size_t rec);

/* Mappings of peers' device buffers a communicator keeps open (unused ones close first). */
#define GDC_RT_COMM_IPC_MAPPINGS 256

/* Whether this rank can map its node's peers' device buffers (CUDA IPC): a driver with a
 * device and the IPC entry points. Every rank of the node must, for the algorithms that
 * do to be chosen alike. */
static int cuda_ipc_usable(void)
{
    return gdc_rt_cuda_available() && gdc_rt_cuda_ipc_driver_check() == GDC_SUCCESS;
}

static void drop_shm(struct gdc_comm *comm);

/*
 * Give comm the shared memory of its ranks on my node: map the peers' segments (where[r]
 * says where rank r's is), agree over comm that every rank managed (one allgather:
 * shared-memory algorithms must be all or nothing), then close my segment's descriptor,
 * since everyone has mapped it.
 */
static gdc_status_t attach_shm(struct gdc_comm *comm, gdc_rt_shm_t *shm, const gdc_rt_shm_locator_t *where)
{
    int my_node = comm->node_of[comm->rank], local = 0, me = 0, ok, all_ok = 1, all_cma = 1, all_ipc = 1;
    int                   one_gpu = 1;
    char                  busid[32] = "";
    uint32_t              gpu = 0, mine[2];
    gdc_status_t          status;
    int                  *ranks  = malloc((size_t)comm->size * sizeof(int));
    gdc_rt_shm_locator_t *places = malloc((size_t)comm->size * sizeof(*places));
    uint32_t             *oks    = malloc((size_t)comm->size * sizeof(mine));

    if (ranks == NULL || places == NULL || oks == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto out;
    }
    for (int r = 0; r < comm->size; r++) {
        if (comm->node_of[r] == my_node) {
            me = r == comm->rank ? local : me;
            ranks[local]  = r;
            places[local] = where[r];
            local++;
        }
    }
    /* bit 0: attached; bit 1: cross-memory attach reaches every local peer; bit 2: this
     * rank can map the peers' device buffers (CUDA IPC); bit 3: it sees one device only, not
     * shared through MPS, the one the second word names */
    ok = local < 2 || (shm != NULL && gdc_rt_shm_attach(shm, local, me, ranks, places) == GDC_SUCCESS);
    ok |= (local < 2 || (ok && shm->cma)) ? 2 : 0;
    ok |= (local < 2 || ((ok & 1) && cuda_ipc_usable())) ? 4 : 0;
    ok |= ((ok & 4) && gdc_rt_cuda_sole_device(&gpu, busid)) ? 8 : 0;
    mine[0] = (uint32_t)ok;
    mine[1] = gpu;
    status  = internal_allgather(comm, mine, oks, sizeof(mine));
    for (int r = 0; r < comm->size && status == GDC_SUCCESS; r++) {
        all_ok &= oks[2 * r] & 1;
        all_cma &= (oks[2 * r] >> 1) & 1;
        all_ipc &= (oks[2 * r] >> 2) & 1;
    }
    /* my node's ranks on one GPU (the algorithms that use it run in one node only) */
    for (int i = 0; i < local && status == GDC_SUCCESS; i++) {
        one_gpu &= (oks[2 * ranks[i]] >> 3) & 1 && oks[2 * ranks[i] + 1] == oks[2 * ranks[0] + 1];
    }
    if (shm != NULL) {
        gdc_rt_shm_close_handle(shm);
    }
    if (status == GDC_SUCCESS && all_ok && local >= 2) {
        shm->cma  = all_cma; /* the same on every rank: the algorithms that use it are chosen alike */
        shm->ipc  = all_ipc && gdc_rt_cuda_ipc_cache_create(&gdc_rt_cuda_ipc_driver_ops, local, GDC_RT_COMM_IPC_MAPPINGS,
                                                            &shm->ipc_cache) == GDC_SUCCESS;
        shm->one_gpu = shm->ipc && one_gpu;
        if (shm->one_gpu && me == 0) {
            GDC_LOG_WARN_ONCE("%d ranks of this node share GPU %s without MPS: a GPU operation from another "
                              "rank's context than the last costs a switch between contexts (270 us on an H200), "
                              "so the ipc_leader algorithms make each call's GPU work from one rank; with MPS "
                              "(nvidia-cuda-mps-control -d) every rank's own would be faster",
                              local, busid);
        }
        if (all_ipc && !shm->ipc) {
            GDC_LOG_WARN("communicator ctx %u: no CUDA IPC cache (out of memory): device buffers in this node take "
                         "the staged path",
                         comm->ctx);
        }
        comm->shm = shm;
        shm       = NULL;
        GDC_LOG_DEBUG("communicator ctx %u: shared memory with %d rank(s) on this node", comm->ctx, local);
    } else if (status == GDC_SUCCESS && !all_ok) {
        GDC_LOG_WARN_ONCE("shared memory could not be set up on every node (see the warnings above): "
                          "collectives inside a node use messages only");
    }
out:
    if (shm != NULL) {
        gdc_rt_shm_destroy(shm);
        free(shm);
    }
    free(places);
    free(ranks);
    free(oks);
    return status;
}

void gdc_rt_comm_world_unprepare(void)
{
    if (world_shm != NULL) {
        gdc_rt_shm_destroy(world_shm);
        free(world_shm);
        world_shm = NULL;
    }
}

/* Where each rank's world segment is: published before the job's fence, read after it. */
#define GDC_RT_WORLD_SHM_KEY "gdc.shm.world"

gdc_status_t gdc_rt_comm_world_prepare(void)
{
    gdc_rt_shm_locator_t where;

    shm_segments = 0;
    world_shm    = NULL;
    if (gdc_rt_boot.local_size < 2) {
        return GDC_SUCCESS;
    }
    world_shm = create_shm(&where); /* where says "none" if it fails */
    return gdc_rt_boot_put_local(GDC_RT_WORLD_SHM_KEY, &where, sizeof(where));
}

/* Every rank's world segment (those of my node; the others' stay unknown). */
static gdc_rt_shm_locator_t *world_locators(const struct gdc_comm *world)
{
    gdc_rt_shm_locator_t *where = calloc((size_t)world->size, sizeof(*where));

    for (int r = 0; where != NULL && r < world->size; r++) {
        if (r == world->rank) {
            where[r] = gdc_rt_shm_locator(world_shm);
        } else if (world->node_of[r] == world->node_of[world->rank] &&
                   gdc_rt_boot_get(r, GDC_RT_WORLD_SHM_KEY, &where[r], sizeof(where[r])) != 0) {
            where[r] = gdc_rt_shm_locator(NULL); /* attach says it cannot */
        }
    }
    return where;
}

/* The node of each rank of comm, renumbered densely in order of first appearance (so a
 * communicator's nodes are 0..num_nodes-1 whatever the job's numbering). */
static gdc_status_t map_comm_nodes(struct gdc_comm *comm)
{
    int *seen = malloc((size_t)gdc_rt_boot.num_nodes * sizeof(int));

    comm->node_of = malloc((size_t)comm->size * sizeof(int));
    if (seen == NULL || comm->node_of == NULL) {
        free(seen);
        free(comm->node_of);
        comm->node_of = NULL;
        return GDC_ERR_NO_MEMORY;
    }
    for (int n = 0; n < gdc_rt_boot.num_nodes; n++) {
        seen[n] = -1;
    }
    comm->num_nodes = 0;
    for (int r = 0; r < comm->size; r++) {
        int job_node = gdc_rt_boot.node_of[gdc_rt_comm_world_rank(comm, r)];
        if (seen[job_node] < 0) {
            seen[job_node] = comm->num_nodes++;
        }
        comm->node_of[r] = seen[job_node];
    }
    free(seen);
    return GDC_SUCCESS;
}

/* GDC_CALIBRATION=job: each node's first two ranks measure what the cost model weighs
 * cross-memory attach against shared-memory copies with (rt_calib.h), over the world's
 * fresh segments, and every rank takes the same numbers from one allgather. */
static gdc_status_t measure_in_job(struct gdc_comm *world)
{
    gdc_rt_calib_job_record_t mine, *all;
    gdc_status_t              status;
    int                       probed;

    if (!gdc_rt_calib_in_job()) {
        return GDC_SUCCESS;
    }
    if ((all = malloc((size_t)world->size * sizeof(*all))) == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    probed = gdc_rt_calib_job_measure(world->shm, &mine);
    status = internal_allgather(world, &mine, all, sizeof(mine));
    if (status == GDC_SUCCESS) {
        gdc_rt_calib_job_agree(all, world->size);
        /* everyone is past the probe: its area as the segment was made, zero */
        if (probed && world->shm->local_index == 0) {
            memset(gdc_rt_shm_data(world->shm, 0), 0, gdc_rt_calib_pair_bytes());
        }
    }
    free(all);
    return status;
}

/* Host messages to this node's ranks are told, not sent (rt_msg.h), once every rank takes
 * tales: each receives them from here on, and sends them after an allgather that every
 * rank enters only then, which also makes the size they start from everyone's (the
 * largest GDC_MSG_CMA; none where a rank has 0). */
static gdc_status_t start_telling(struct gdc_comm *world)
{
    uint64_t     mine = gdc_rt_msg_cma_bytes, *all = malloc((size_t)world->size * sizeof(uint64_t)), from = 0;
    gdc_status_t status;

    if (all == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    gdc_rt_msg_set_cma_peers(world->shm);
    status = internal_allgather(world, &mine, all, sizeof(mine));
    for (int r = 0; r < world->size && status == GDC_SUCCESS; r++) {
        if (all[r] == 0) {
            from = 0;
            break;
        }
        from = all[r] > from ? all[r] : from;
    }
    free(all);
    if (status == GDC_SUCCESS) {
        gdc_rt_msg_start_telling((size_t)from);
    }
    return status;
}

gdc_status_t gdc_rt_comm_world_init(void)
{
    struct gdc_comm *world = &gdc_comm_world_instance;
    gdc_status_t     status;

    memset(world, 0, sizeof(*world));
    world->ctx   = 0;
    world->rank  = gdc_rt_boot.rank;
    world->size  = gdc_rt_boot.size;
    world->magic = GDC_RT_COMM_MAGIC;
    next_ctx     = 1;
    status       = map_comm_nodes(world);
    if (status != GDC_SUCCESS) {
        world->magic = 0;
        return status;
    }
    {
        gdc_rt_shm_locator_t *where = world_locators(world);
        status                      = where != NULL ? attach_shm(world, world_shm, where) : GDC_ERR_NO_MEMORY;
        world_shm                   = NULL;
        free(where);
    }
    if (status == GDC_SUCCESS) {
        status = start_telling(world);
    }
    if (status == GDC_SUCCESS) {
        status = measure_in_job(world);
    }
    if (status == GDC_SUCCESS) {
        status = run_created_hook(world);
    }
    if (status != GDC_SUCCESS) {
        drop_shm(world);
        free(world->node_of);
        world->node_of = NULL;
        world->magic   = 0;
    }
    return status;
}

static void drop_shm(struct gdc_comm *comm)
{
    if (comm->shm != NULL) {
        gdc_rt_shm_destroy(comm->shm);
        free(comm->shm);
        comm->shm = NULL;
    }
}

static void destroy(struct gdc_comm *comm)
{
    if (comm == &gdc_comm_world_instance) {
        gdc_rt_msg_set_cma_peers(NULL);
    }
    run_destroyed_hook(comm);
    drop_shm(comm);
    comm->magic = 0;
    free(comm->world_of);
    free(comm->node_of);
    comm->node_of = NULL;
    if (comm != &gdc_comm_world_instance) {
        free(comm);
    }
}

void gdc_rt_comm_finalize_all(void)
{
    while (live_comms != NULL) {
        struct gdc_comm *next = live_comms->next;
        destroy(live_comms);
        live_comms = next;
    }
    if (gdc_comm_world_instance.magic == GDC_RT_COMM_MAGIC) {
        destroy(&gdc_comm_world_instance);
    }
}

int gdc_rt_comm_failed_member(struct gdc_comm *comm)
{
    unsigned failures = gdc_rt_ucx_failures();

    if (comm->failures_seen != failures) {
        comm->failures_seen = failures;
        comm->failed_member = 0;
        for (int i = 0; i < comm->size && comm->failed_member == 0; i++) {
            int world_rank = gdc_rt_comm_world_rank(comm, i);
            if (gdc_rt_ucx_peer_failed(world_rank)) {
                comm->failed_member = world_rank + 1;
            }
        }
    }
    return comm->failed_member - 1;
}

void gdc_rt_comm_watch_member(struct gdc_comm *comm)
{
    int i = comm->watch_next;

    comm->watch_next = (i + 1) % comm->size;
    if (i != comm->rank) {
        (void)gdc_rt_ucx_peer_check(gdc_rt_comm_world_rank(comm, i));
    }
}

/*
 * Allgather of one fixed-size record per rank over comm, for the runtime's own use
 * (communicator construction happens below the collectives layer). Bruck's algorithm:
 * ceil(log2 size) rounds; after round k a rank holds the records of the 2^k ranks after it.
 */
static gdc_status_t internal_allgather(struct gdc_comm *comm, const void *mine, void *all, size_t rec)
{
    char    *rot = malloc((size_t)comm->size * rec);
    uint32_t seq = comm->internal_seq++;
    int      have = 1;
    gdc_status_t status = GDC_SUCCESS;

    if (rot == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    if (gdc_rt_comm_failed_member(comm) >= 0) {
        free(rot);
        return GDC_ERR_PEER_FAILED;
    }
    memcpy(rot, mine, rec);
    for (int dist = 1; dist < comm->size && status == GDC_SUCCESS; dist *= 2) {
        int                 count = dist < comm->size - have ? dist : comm->size - have;
        int                 to    = (comm->rank - dist + comm->size) % comm->size;
        int                 from  = (comm->rank + dist) % comm->size;
        struct gdc_request *rreq, *sreq;
        int                 rstatus, sstatus;

        status = gdc_rt_p2p_irecv(comm, from, gdc_rt_tag_internal(comm->ctx, (uint32_t)from, seq),
                                  rot + (size_t)have * rec, (size_t)count * rec, &rreq);
        if (status != GDC_SUCCESS) {
            break;
        }
        status = gdc_rt_p2p_isend(comm, to, gdc_rt_tag_internal(comm->ctx, (uint32_t)comm->rank, seq),
                                  rot, (size_t)count * rec, &sreq);
        if (status != GDC_SUCCESS) {
            gdc_rt_request_cancel(rreq, status);
            break;
        }
        rreq->whole_comm = sreq->whole_comm = 1;
        rstatus = gdc_rt_request_finish(rreq);
        sstatus = gdc_rt_request_finish(sreq);
        status  = rstatus != GDC_SUCCESS ? rstatus : sstatus;
        have += count;
    }
    if (status == GDC_SUCCESS) {
        for (int i = 0; i < comm->size; i++) {
            memcpy((char *)all + (size_t)((comm->rank + i) % comm->size) * rec, rot + (size_t)i * rec, rec);
        }
    }
    free(rot);
    return status;
}

typedef struct split_record {
    int32_t  color;
    int32_t  key;
    uint32_t next_ctx;
    int32_t  rank;
    gdc_rt_shm_locator_t shm; /* where the shared memory made for the new communicator is */
} split_record_t;

static int compare_members(const void *a, const void *b)
{
    const split_record_t *x = a, *y = b;

    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->rank < y->rank ? -1 : (x->rank > y->rank);
}

/* The new communicator of my color from everyone's records, or NULL (no memory). */
static struct gdc_comm *build_comm(struct gdc_comm *parent, split_record_t *recs, int color,
                                   uint32_t ctx, gdc_rt_shm_locator_t **where)
{
    struct gdc_comm *comm = calloc(1, sizeof(*comm));
    int              n    = 0;

    if (comm == NULL) {
        return NULL;
    }
    for (int r = 0; r < parent->size; r++) {
        if (recs[r].color == color) {
            recs[n++] = recs[r];
        }
    }
    qsort(recs, (size_t)n, sizeof(*recs), compare_members);
    comm->world_of = malloc((size_t)n * sizeof(int));
    if (comm->world_of == NULL) {
        free(comm);
        return NULL;
    }
    *where = malloc((size_t)n * sizeof(**where));
    if (*where == NULL) {
        free(comm->world_of);
        free(comm);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        comm->world_of[i] = gdc_rt_comm_world_rank(parent, recs[i].rank);
        (*where)[i]       = recs[i].shm;
        if (recs[i].rank == parent->rank) {
            comm->rank = i;
        }
    }
    comm->size  = n;
    comm->ctx   = ctx;
    comm->magic = GDC_RT_COMM_MAGIC;
    if (map_comm_nodes(comm) != GDC_SUCCESS) {
        free(*where);
        free(comm->world_of);
        free(comm);
        return NULL;
    }
    return comm;
}

/*
 * Context ids: every process keeps next_ctx above the id of every communicator it belongs
 * to; a new communicator takes the largest next_ctx of the parent's ranks, so no member
 * already uses it. Groups of one split are disjoint and may share an id. The agreement
 * needs no communication beyond the parent's own allgather.
 */
static gdc_status_t split(struct gdc_comm *parent, int color, int key, gdc_comm_t *newcomm)
{
    split_record_t   mine = {color, key, next_ctx, parent->rank, gdc_rt_shm_locator(NULL)};
    split_record_t  *recs = malloc((size_t)parent->size * sizeof(*recs));
    uint32_t         ctx  = 0;
    struct gdc_comm *comm;
    gdc_rt_shm_locator_t *where = NULL;
    gdc_rt_shm_t    *shm   = NULL;
    gdc_status_t     status;

    if (recs == NULL) {
        return GDC_ERR_NO_MEMORY;
    }
    /* made before the exchange that names it; dropped if the new communicator has no
     * other rank on this node */
    if (color != GDC_UNDEFINED) {
        shm = create_shm(&mine.shm);
    }
    status = internal_allgather(parent, &mine, recs, sizeof(mine));
    if (status != GDC_SUCCESS) {
        goto out;
    }
    for (int r = 0; r < parent->size; r++) {
        ctx = recs[r].next_ctx > ctx ? recs[r].next_ctx : ctx;
    }
    if (ctx > GDC_RT_TAG_MAX_CTX) {
        GDC_LOG_ERROR("communicator ids exhausted (%u created); free communicators are not reused",
                      GDC_RT_TAG_MAX_CTX);
        status = GDC_ERR_NO_MEMORY;
        goto out;
    }
    next_ctx = ctx + 1;
    if (color == GDC_UNDEFINED) {
        *newcomm = GDC_COMM_NULL;
        goto out;
    }
    comm = build_comm(parent, recs, color, ctx, &where);
    if (comm == NULL) {
        status = GDC_ERR_NO_MEMORY;
        goto out;
    }
    status = attach_shm(comm, shm, where);
    shm    = NULL;
    if (status == GDC_SUCCESS) {
        status = run_created_hook(comm);
    }
    if (status != GDC_SUCCESS) {
        comm->magic = 0;
        drop_shm(comm);
        free(comm->world_of);
        free(comm->node_of);
        free(comm);
        goto out;
    }
    comm->next = live_comms;
    live_comms = comm;
    *newcomm   = comm;
    GDC_LOG_DEBUG("new communicator ctx %u: rank %d of %d", comm->ctx, comm->rank, comm->size);
out:
    if (shm != NULL) {
        gdc_rt_shm_destroy(shm);
        free(shm);
    }
    free(where);
    free(recs);
    return status;
}

gdc_status_t gdc_comm_rank(gdc_comm_t comm, int *rank)
{
    gdc_status_t status = gdc_rt_check_comm("gdc_comm_rank", comm);

    if (status == GDC_SUCCESS && (status = gdc_rt_check_pointer("gdc_comm_rank", "rank", rank)) == 0) {
        *rank = comm->rank;
    }
    return status;
}

gdc_status_t gdc_comm_size(gdc_comm_t comm, int *size)
{
    gdc_status_t status = gdc_rt_check_comm("gdc_comm_size", comm);

    if (status == GDC_SUCCESS && (status = gdc_rt_check_pointer("gdc_comm_size", "size", size)) == 0) {
        *size = comm->size;
    }
    return status;
}

gdc_status_t gdc_comm_split(gdc_comm_t comm, int color, int key, gdc_comm_t *newcomm)
{
    gdc_status_t status = gdc_rt_check_comm("gdc_comm_split", comm);

    if (status != GDC_SUCCESS ||
        (status = gdc_rt_check_pointer("gdc_comm_split", "newcomm", newcomm)) != GDC_SUCCESS) {
        return status;
    }
    if (color < 0 && color != GDC_UNDEFINED) {
        GDC_LOG_ERROR("gdc_comm_split: color %d must be >= 0 or GDC_UNDEFINED", color);
        return GDC_ERR_INVALID_ARG;
    }
    return split(comm, color, key, newcomm);
}

gdc_status_t gdc_comm_dup(gdc_comm_t comm, gdc_comm_t *newcomm)
{
    gdc_status_t status = gdc_rt_check_comm("gdc_comm_dup", comm);

    if (status != GDC_SUCCESS ||
        (status = gdc_rt_check_pointer("gdc_comm_dup", "newcomm", newcomm)) != GDC_SUCCESS) {
        return status;
    }
    return split(comm, 0, comm->rank, newcomm);
}

gdc_status_t gdc_comm_free(gdc_comm_t *comm)
{
    struct gdc_comm **link;
    gdc_status_t      status = gdc_rt_check_init("gdc_comm_free");

    if (status != GDC_SUCCESS ||
        (status = gdc_rt_check_pointer("gdc_comm_free", "comm", comm)) != GDC_SUCCESS ||
        (status = gdc_rt_check_comm("gdc_comm_free", *comm)) != GDC_SUCCESS) {
        return status;
    }
    if (*comm == GDC_COMM_WORLD) {
        GDC_LOG_ERROR("gdc_comm_free: GDC_COMM_WORLD cannot be freed");
        return GDC_ERR_INVALID_ARG;
    }
    for (link = &live_comms; *link != NULL && *link != *comm; link = &(*link)->next) {
    }
    if (*link == NULL) {
        GDC_LOG_ERROR("gdc_comm_free: communicator %p is not one of gdc's", (void *)*comm);
        return GDC_ERR_INTERNAL;
    }
    *link = (*comm)->next;
    destroy(*comm);
    *comm = GDC_COMM_NULL;
    return GDC_SUCCESS;
}
