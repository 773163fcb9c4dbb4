/*
 * The device path choice (runtime/rt_devpath.c) over every combination of its inputs: the
 * rules each combination must keep, a few rows spelled out, and that more capability never
 * gives a slower path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <gdc.h>

#include "rt_devpath.h"

static const gdc_rt_devpath_link_t links[] = {GDC_RT_DEVPATH_LINK_NONE, GDC_RT_DEVPATH_LINK_PCIE,
                                              GDC_RT_DEVPATH_LINK_NVLINK};

/* Every combination through visit; returns how many. */
static int for_each_caps(void (*visit)(const gdc_rt_devpath_caps_t *caps))
{
    int n = 0;

    for (int bits = 0; bits < 64; bits++) {
        for (int l = 0; l < 3; l++) {
            gdc_rt_devpath_caps_t caps = {
                .same_node   = (bits >> 0) & 1,
                .same_gpu    = (bits >> 1) & 1,
                .peer_access = (bits >> 2) & 1,
                .link        = links[l],
                .ipc_capable = (bits >> 3) & 1,
                .ucx_cuda    = (bits >> 4) & 1,
                .gdr         = (bits >> 5) & 1,
            };

            visit(&caps);
            n++;
        }
    }
    return n;
}

static gdc_rt_devpath_t choose(const gdc_rt_devpath_caps_t *caps)
{
    gdc_rt_devpath_t path;

    memset(&path, 0x5a, sizeof(path)); /* no field may be left from before */
    gdc_rt_devpath_choose(caps, &path);
    return path;
}

static void print_caps(const gdc_rt_devpath_caps_t *c, const gdc_rt_devpath_t *p)
{
    print_message("# same_node %d same_gpu %d peer_access %d link %d ipc %d ucx_cuda %d gdr %d -> %s (%s)\n",
                  c->same_node, c->same_gpu, c->peer_access, (int)c->link, c->ipc_capable, c->ucx_cuda, c->gdr,
                  gdc_rt_devpath_name(p->kind), p->reason);
}

static void check_rules(const gdc_rt_devpath_caps_t *c)
{
    gdc_rt_devpath_t p      = choose(c);
    size_t           len    = strnlen(p.reason, sizeof(p.reason));
    int              ipc    = gdc_rt_devpath_is_ipc(p.kind);
    int              ok     = 1;
    int              is_best;

    /* a valid kind and a terminated reason, not cut short */
    ok &= (unsigned)p.kind < GDC_RT_DEVPATH_COUNT;
    ok &= len < sizeof(p.reason) - 1;
    /* cuda-ipc only inside a node, and only for memory legacy IPC can map */
    ok &= !ipc || (c->same_node && c->ipc_capable);
    /* one GPU: same-gpu, whatever the peer access says */
    if (c->same_node && c->same_gpu && c->ipc_capable) {
        ok &= p.kind == GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU;
    }
    /* a GPU of another node is never "the same GPU" */
    ok &= p.kind != GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU || c->same_node;
    /* two GPUs with peer access: ipc on the link they have (unknown counts as PCIe) */
    if (c->same_node && !c->same_gpu && c->ipc_capable && c->peer_access) {
        ok &= p.kind == (c->link == GDC_RT_DEVPATH_LINK_NVLINK ? GDC_RT_DEVPATH_CUDA_IPC_NVLINK
                                                                : GDC_RT_DEVPATH_CUDA_IPC_PCIE);
    }
    /* two GPUs without peer access: no ipc */
    if (c->same_node && !c->same_gpu && !c->peer_access) {
        ok &= !ipc;
    }
    /* without ipc: UCX when it can move device memory, GPUDirect only between nodes */
    if (!ipc) {
        if (!c->ucx_cuda) {
            ok &= p.kind == GDC_RT_DEVPATH_HOST_STAGED;
            ok &= strstr(p.reason, "UCX has no cuda transport; build UCX with --with-cuda") != NULL;
        } else if (!c->same_node && c->gdr) {
            ok &= p.kind == GDC_RT_DEVPATH_UCX_CUDA_GDR;
        } else {
            ok &= p.kind == GDC_RT_DEVPATH_UCX_CUDA;
        }
    }
    /* inside a node, the reason says why gdc does not map the memory itself */
    if (c->same_node && !ipc) {
        ok &= strstr(p.reason, c->ipc_capable ? "peer access" : "VMM or pool memory") != NULL;
    }
    /* a reason for every path but the best the pair could have */
    is_best = p.kind == GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU || p.kind == GDC_RT_DEVPATH_CUDA_IPC_NVLINK ||
              p.kind == GDC_RT_DEVPATH_UCX_CUDA_GDR;
    ok &= is_best ? len == 0 : len > 0;
    if (!ok) {
        print_caps(c, &p);
    }
    assert_true(ok);
}

static void test_rules_hold_for_every_combination(void **state)
{
    assert_int_equal(for_each_caps(check_rules), 2 * 2 * 2 * 3 * 2 * 2 * 2);
}

/* More of any capability (of one pair: the placement of the ranks is not one) never gives a
 * slower path; kinds are ordered best first. */
static void check_monotonic(const gdc_rt_devpath_caps_t *c)
{
    gdc_rt_devpath_t      p = choose(c), q;
    gdc_rt_devpath_caps_t more;

#define CHECK_MORE(field, value)                                                     \
    more       = *c;                                                                 \
    more.field = value;                                                              \
    q          = choose(&more);                                                      \
    if (q.kind > p.kind) {                                                           \
        print_message("# more " #field " gives a slower path:\n");                   \
        print_caps(c, &p);                                                           \
        print_caps(&more, &q);                                                       \
    }                                                                                \
    assert_true(q.kind <= p.kind);

    CHECK_MORE(same_gpu, 1)
    CHECK_MORE(peer_access, 1)
    CHECK_MORE(ipc_capable, 1)
    CHECK_MORE(ucx_cuda, 1)
    CHECK_MORE(gdr, 1)
    if (c->link == GDC_RT_DEVPATH_LINK_NONE) {
        CHECK_MORE(link, GDC_RT_DEVPATH_LINK_PCIE)
    }
    CHECK_MORE(link, GDC_RT_DEVPATH_LINK_NVLINK)
#undef CHECK_MORE
}

static void test_more_capability_is_never_slower(void **state)
{
    for_each_caps(check_monotonic);
}

/* A few rows spelled out, as a user would meet them. */
static void test_rows(void **state)
{
    const struct {
        gdc_rt_devpath_caps_t caps;
        gdc_rt_devpath_kind_t kind;
        const char           *name;
        const char           *in_reason; /* NULL: no reason */
    } rows[] = {
        /* 8 ranks sharing the lent H200 */
        {{.same_node = 1, .same_gpu = 1, .ipc_capable = 1}, GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU, "cuda-ipc same-gpu", NULL},
        /* a DGX: NVSwitch between every pair */
        {{.same_node = 1, .peer_access = 1, .link = GDC_RT_DEVPATH_LINK_NVLINK, .ipc_capable = 1},
         GDC_RT_DEVPATH_CUDA_IPC_NVLINK, "cuda-ipc nvlink", NULL},
        {{.same_node = 1, .peer_access = 1, .link = GDC_RT_DEVPATH_LINK_PCIE, .ipc_capable = 1},
         GDC_RT_DEVPATH_CUDA_IPC_PCIE, "cuda-ipc pcie", "over PCIe"},
        /* a cloud VM with the IOMMU on and Debian's UCX */
        {{.same_node = 1, .link = GDC_RT_DEVPATH_LINK_PCIE, .ipc_capable = 1}, GDC_RT_DEVPATH_HOST_STAGED,
         "host-staged", "no peer access"},
        /* PyTorch's caching allocator on expandable segments: VMM memory */
        {{.same_node = 1, .same_gpu = 1, .ucx_cuda = 1}, GDC_RT_DEVPATH_UCX_CUDA, "ucx-cuda (no gdr)", "VMM"},
        {{.ucx_cuda = 1, .gdr = 1, .ipc_capable = 1}, GDC_RT_DEVPATH_UCX_CUDA_GDR, "ucx-cuda (gdr)", NULL},
        {{.ucx_cuda = 1, .ipc_capable = 1}, GDC_RT_DEVPATH_UCX_CUDA, "ucx-cuda (no gdr)", "nvidia_peermem"},
        /* two nodes whose GPUs have equal bus ids: not one GPU */
        {{.same_gpu = 1, .peer_access = 1, .ipc_capable = 1, .gdr = 1}, GDC_RT_DEVPATH_HOST_STAGED, "host-staged",
         "UCX has no cuda transport; build UCX with --with-cuda"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gdc_rt_devpath_t p = choose(&rows[i].caps);

        print_message("# row %zu: %s%s%s\n", i, gdc_rt_devpath_name(p.kind), p.reason[0] ? ": " : "", p.reason);
        assert_int_equal(p.kind, rows[i].kind);
        assert_string_equal(gdc_rt_devpath_name(p.kind), rows[i].name);
        if (rows[i].in_reason == NULL) {
            assert_string_equal(p.reason, "");
        } else {
            assert_non_null(strstr(p.reason, rows[i].in_reason));
        }
    }
}

static void test_names(void **state)
{
    /* every kind has its own name, and the names are these */
    for (int i = 0; i < GDC_RT_DEVPATH_COUNT; i++) {
        assert_string_not_equal(gdc_rt_devpath_name((gdc_rt_devpath_kind_t)i), "unknown");
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(gdc_rt_devpath_name((gdc_rt_devpath_kind_t)i),
                                    gdc_rt_devpath_name((gdc_rt_devpath_kind_t)j));
        }
    }
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_CUDA_IPC_NVLINK), "cuda-ipc nvlink");
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_CUDA_IPC_PCIE), "cuda-ipc pcie");
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_CUDA_IPC_SAME_GPU), "cuda-ipc same-gpu");
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_UCX_CUDA_GDR), "ucx-cuda (gdr)");
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_HOST_STAGED), "host-staged");
    assert_string_equal(gdc_rt_devpath_name(GDC_RT_DEVPATH_COUNT), "unknown");
    assert_string_equal(gdc_rt_devpath_name((gdc_rt_devpath_kind_t)-1), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_hold_for_every_combination),
        cmocka_unit_test(test_more_capability_is_never_slower),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_names),
    };

    return cmocka_run_group_tests_name("device path choice", tests, NULL, NULL);
}
