/* The job's node layout: which node each rank is on. Without --emulate-nodes every rank is
 * on this host; with K emulated nodes the ranks are split into K consecutive blocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdrun.h"

/* A growable string for the comma-separated lists PMIx takes. */
typedef struct {
    char  *text;
    size_t len, cap;
} strbuf_t;

static int strbuf_printf(strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int strbuf_printf(strbuf_t *sb, const char *fmt, ...)
{
    va_list ap;
    int     n;

    for (;;) {
        size_t room = sb->cap - sb->len;

        va_start(ap, fmt);
        n = vsnprintf(sb->text != NULL ? sb->text + sb->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            return -1;
        }
        if ((size_t)n < room) {
            sb->len += (size_t)n;
            return 0;
        }
        size_t cap  = (sb->cap + (size_t)n + 1) * 2;
        char  *grown = realloc(sb->text, cap);
        if (grown == NULL) {
            return -1;
        }
        sb->text = grown;
        sb->cap  = cap;
    }
}

static char *strbuf_finish(strbuf_t *sb, int ok)
{
    if (!ok || (sb->text == NULL && strbuf_printf(sb, "%s", "") != 0)) {
        free(sb->text);
        return NULL;
    }
    return sb->text;
}

int gdrun_layout_init(gdrun_layout_t *layout, int nranks, int nnodes, const char *host)
{
    gdrun_layout_t l = {.nranks = nranks, .nnodes = nnodes};
    int            rank = 0;

    if (nranks < 1 || nnodes < 1 || nnodes > nranks) {
        return -1;
    }
    l.node_of    = calloc((size_t)nranks, sizeof(int));
    l.local_rank = calloc((size_t)nranks, sizeof(int));
    l.node_first = calloc((size_t)nnodes, sizeof(int));
    l.node_size  = calloc((size_t)nnodes, sizeof(int));
    l.node_name  = calloc((size_t)nnodes, sizeof(char *));
    if (l.node_of == NULL || l.local_rank == NULL || l.node_first == NULL || l.node_size == NULL ||
        l.node_name == NULL) {
        goto err;
    }
    for (int node = 0; node < nnodes; node++) {
        char name[300];

        l.node_first[node] = rank;
        l.node_size[node]  = nranks / nnodes + (node < nranks % nnodes ? 1 : 0);
        for (int i = 0; i < l.node_size[node]; i++, rank++) {
            l.node_of[rank]    = node;
            l.local_rank[rank] = i;
        }
        if (nnodes == 1) {
            snprintf(name, sizeof(name), "%s", host);
        } else {
            snprintf(name, sizeof(name), "%s-n%d", host, node);
        }
        if ((l.node_name[node] = strdup(name)) == NULL) {
            goto err;
        }
    }
    *layout = l;
    return 0;

err:
    gdrun_layout_free(&l);
    return -1;
}

void gdrun_layout_free(gdrun_layout_t *layout)
{
    for (int node = 0; layout->node_name != NULL && node < layout->nnodes; node++) {
        free(layout->node_name[node]);
    }
    free(layout->node_name);
    free(layout->node_size);
    free(layout->node_first);
    free(layout->local_rank);
    free(layout->node_of);
    memset(layout, 0, sizeof(*layout));
}

static int append_node_ranks(strbuf_t *sb, const gdrun_layout_t *layout, int node)
{
    for (int i = 0; i < layout->node_size[node]; i++) {
        if (strbuf_printf(sb, "%s%d", i > 0 ? "," : "", layout->node_first[node] + i) != 0) {
            return -1;
        }
    }
    return 0;
}

char *gdrun_layout_node_peers(const gdrun_layout_t *layout, int node)
{
    strbuf_t sb = {0};

    return strbuf_finish(&sb, append_node_ranks(&sb, layout, node) == 0);
}

char *gdrun_layout_node_list(const gdrun_layout_t *layout)
{
    strbuf_t sb = {0};
    int      ok = 1;

    for (int node = 0; ok && node < layout->nnodes; node++) {
        ok = strbuf_printf(&sb, "%s%s", node > 0 ? "," : "", layout->node_name[node]) == 0;
    }
    return strbuf_finish(&sb, ok);
}

char *gdrun_layout_proc_map(const gdrun_layout_t *layout)
{
    strbuf_t sb = {0};
    int      ok = 1;

    for (int node = 0; ok && node < layout->nnodes; node++) {
        ok = (node == 0 || strbuf_printf(&sb, ";") == 0) && append_node_ranks(&sb, layout, node) == 0;
    }
    return strbuf_finish(&sb, ok);
}

char *gdrun_format_ranks(const int *mask, int nranks)
{
    strbuf_t sb = {0};
    int      ok = 1, first = 1;

    for (int r = 0; ok && r < nranks; r++) {
        int end = r;

        if (!mask[r]) {
            continue;
        }
        while (end + 1 < nranks && mask[end + 1]) {
            end++;
        }
        if (end > r) {
            ok = strbuf_printf(&sb, "%s%d-%d", first ? "" : ",", r, end) == 0;
        } else {
            ok = strbuf_printf(&sb, "%s%d", first ? "" : ",", r) == 0;
        }
        first = 0;
        r     = end;
    }
    return strbuf_finish(&sb, ok);
}
