#include "rt_msg.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gdc.h>

#include "rt_boot.h"
#include "rt_log.h"
#include "rt_shm.h"
#include "rt_stage.h"
#include "rt_tag.h"
#include "rt_ucx.h"

static gdc_rt_msg_t *pending_head;
static gdc_rt_msg_t *heard_head, *heard_tail; /* told receives whose bytes are not read yet,
                                                 in the order their tales came */

size_t          gdc_rt_msg_cma_bytes;
static int32_t *cma_local;    /* [world size] a rank of this node that cma reaches: its index in
                                 tale_shm (its tale words); -1 for the others and this rank */
static const struct gdc_rt_shm *tale_shm; /* the world's shared memory: the tale words */
static int      telling;      /* messages to them from gdc_rt_msg_cma_bytes on are told */
static uint32_t next_tale;    /* the number of this rank's next tale */
static unsigned long tales_read; /* and their bytes: said at gdc_finalize */
static uint64_t      bytes_read;

_Static_assert(sizeof(((gdc_rt_msg_t *)0)->iov[0]) == sizeof(ucp_dt_iov_t), "the landing's iov is UCX's");

/* Why a message's side ended before the other (a reader that answers it could not read, a
 * sender that withdrew its tale): the other side fails with the same status where that is
 * a failed peer or a timeout, for a call that ended on a rank's death fails its peers'
 * calls in turn, and they must say so, not report a transport error. */
enum { ENDED_OTHER = 1, ENDED_PEER_FAILED = 2, ENDED_TIMEOUT = 3 };

static uint64_t ended_reason(gdc_status_t status)
{
    return status == GDC_ERR_PEER_FAILED ? ENDED_PEER_FAILED : status == GDC_ERR_TIMEOUT ? ENDED_TIMEOUT : ENDED_OTHER;
}

static gdc_status_t ended_status(uint64_t reason)
{
    return reason == ENDED_PEER_FAILED ? GDC_ERR_PEER_FAILED : reason == ENDED_TIMEOUT ? GDC_ERR_TIMEOUT
                                                                                       : GDC_ERR_TRANSPORT;
}

/* What a reader answers: the bytes are read (or the receive was too short for them, its
 * error), or they could not be, and why (the send fails too). Static: an answer is sent and
 * its request given back at once. */
static const uint64_t answers[] = {0, ENDED_OTHER, ENDED_PEER_FAILED, ENDED_TIMEOUT};
#define ANSWER_READ 0

static const uint64_t *answer_for(gdc_status_t status)
{
    return &answers[status == GDC_SUCCESS || status == GDC_ERR_TRUNCATED ? ANSWER_READ : ended_reason(status)];
}

/* A send that ends before its tale was read (a timeout, a failure) has its buffer back, and
 * its reader must not deliver what it read. After reading the bytes the reader looks at
 * the sender's count of withdrawn tales (in the sender's shared memory, which the node's
 * ranks map): unchanged since the tale was told, it stands. Only where some tale was
 * withdrawn since does it look at the tale's own word, which holds a mark and the tale's
 * number while it stands (0 once the send has ended, a later tale's number once that one
 * took the word). The count's line changes only on a withdrawal, so a reader finds it in
 * its cache; the words are the sender's to write. The count's top bits hold why the latest
 * withdrawal was (ended_reason): what the reader of a withdrawn tale fails with. */
#define GDC_RT_TALE_STANDS 0x7a1e57a1u
#define GDC_RT_TALE_WORD_BITS 16
#define GDC_RT_TALE_REASON_SHIFT (64 - GDC_RT_TALE_WORD_BITS) /* above the count, as wide as a tale's word */
#define GDC_RT_TALE_COUNT_MASK ((UINT64_C(1) << GDC_RT_TALE_REASON_SHIFT) - 1)

static uint64_t tale_stands(uint32_t seq)
{
    return (uint64_t)GDC_RT_TALE_STANDS << 32 | seq;
}

/* A free word of this rank's for a tale, from the one its next number falls on; -1 when
 * all are taken (as many told sends in flight: this one goes through UCX). */
static int free_tale_word(void)
{
    volatile uint64_t *words = gdc_rt_shm_tale_words(tale_shm, tale_shm->local_index);

    for (unsigned i = 0; i < GDC_RT_SHM_TALES; i++) {
        unsigned w = (next_tale + i) % GDC_RT_SHM_TALES;
        if (words[w] == 0) {
            return (int)w;
        }
    }
    return -1;
}

/* A telling send's word is free again: read (its answer came), or withdrawn (the send
 * ends first, for why: counted, before its buffer is its owner's again). */
static void release_tale_word(gdc_rt_msg_t *msg, gdc_status_t withdrawn_for)
{
    volatile uint64_t *withdrawals;

    if (msg->tale_word == 0 || tale_shm == NULL) {
        return;
    }
    __atomic_store_n(&gdc_rt_shm_tale_words(tale_shm, tale_shm->local_index)[msg->tale_word - 1], 0,
                     __ATOMIC_SEQ_CST);
    if (withdrawn_for != GDC_SUCCESS) {
        withdrawals = gdc_rt_shm_tale_withdrawals(tale_shm, tale_shm->local_index); /* this rank's alone */
        __atomic_store_n(withdrawals,
                         ((*withdrawals + 1) & GDC_RT_TALE_COUNT_MASK) |
                             ended_reason(withdrawn_for) << GDC_RT_TALE_REASON_SHIFT,
                         __ATOMIC_SEQ_CST);
        /* before any later write of the buffer (a seq_cst store alone does not order later
         * plain stores on every architecture) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    msg->tale_word = 0;
}

/* GDC_SUCCESS where a told message's tale still stood once its bytes were read, else the
 * status its sender's withdrawal gives the reader. */
static gdc_status_t withdrawal_status(const gdc_rt_msg_t *msg, const gdc_rt_msg_told_t *tale)
{
    int      peer = cma_local[msg->peer_world];
    uint64_t word = tale->stands & ((1u << GDC_RT_TALE_WORD_BITS) - 1), since = tale->stands >> GDC_RT_TALE_WORD_BITS;
    uint64_t withdrawals;

    if (word >= GDC_RT_SHM_TALES) {
        return GDC_ERR_TRANSPORT;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* after the bytes */
    withdrawals = __atomic_load_n(gdc_rt_shm_tale_withdrawals(tale_shm, peer), __ATOMIC_ACQUIRE);
    if ((withdrawals & GDC_RT_TALE_COUNT_MASK) == since ||
        __atomic_load_n(&gdc_rt_shm_tale_words(tale_shm, peer)[word], __ATOMIC_ACQUIRE) == tale_stands(tale->seq)) {
        return GDC_SUCCESS;
    }
    return ended_status(withdrawals >> GDC_RT_TALE_REASON_SHIFT);
}

void gdc_rt_msg_finalize(void)
{
    if (tales_read > 0) {
        GDC_LOG_INFO("messages read by cross-memory attach: %lu, %llu bytes", tales_read,
                     (unsigned long long)bytes_read);
    }
    tales_read = 0;
    bytes_read = 0;
}

void gdc_rt_msg_start_telling(size_t from)
{
    gdc_rt_msg_cma_bytes = from;
    if (from == 0) { /* some rank tells none: none comes */
        free(cma_local);
        cma_local = NULL;
        tale_shm  = NULL;
    }
    telling = cma_local != NULL;
    if (telling) {
        GDC_LOG_INFO("host messages of %zu bytes and more to the other ranks of this node: read by the receiver "
                     "from this rank's memory (cross-memory attach, GDC_MSG_CMA); shorter ones through UCX",
                     gdc_rt_msg_cma_bytes);
    }
}

void gdc_rt_msg_set_cma_peers(const struct gdc_rt_shm *shm)
{
    free(cma_local);
    cma_local = NULL;
    tale_shm  = NULL;
    telling   = 0;
    if (shm == NULL || !shm->cma || gdc_rt_msg_cma_bytes == 0) {
        return;
    }
    cma_local = malloc((size_t)gdc_rt_boot.size * sizeof(*cma_local));
    if (cma_local == NULL) { /* this rank could not take tales: it asks for none (start_telling) */
        GDC_LOG_WARN("no memory for the table of this node's ranks: host messages inside nodes go through UCX's "
                     "shared memory (two copies), not cross-memory attach");
        gdc_rt_msg_cma_bytes = 0;
        return;
    }
    for (int r = 0; r < gdc_rt_boot.size; r++) {
        cma_local[r] = -1;
    }
    for (int i = 0; i < shm->local_size; i++) {
        cma_local[shm->local_ranks[i]] = shm->local_ranks[i] != gdc_rt_boot.rank ? i : -1;
    }
    tale_shm = shm;
}

/* A rank of this node that may tell this one, or be told. */
static int cma_peer(int peer_world)
{
    return cma_local != NULL && cma_local[peer_world] >= 0;
}

/* A message long enough to be told, of host memory, to or from such a rank. */
static int tellable(int peer_world, size_t len, gdc_rt_memtype_t memtype)
{
    return cma_peer(peer_world) && memtype == GDC_RT_MEM_HOST && !gdc_rt_stage_wanted(memtype) &&
           len >= gdc_rt_msg_cma_bytes;
}

void gdc_rt_msg_pending_add(gdc_rt_msg_t *msg)
{
    msg->prev = NULL;
    msg->next = pending_head;
    if (pending_head != NULL) {
        pending_head->prev = msg;
    }
    pending_head = msg;
}

void gdc_rt_msg_pending_remove(gdc_rt_msg_t *msg)
{
    if (msg->prev != NULL) {
        msg->prev->next = msg->next;
    } else if (pending_head == msg) {
        pending_head = msg->next;
    }
    if (msg->next != NULL) {
        msg->next->prev = msg->prev;
    }
    msg->prev = msg->next = NULL;
}

static gdc_status_t status_from_ucx(const gdc_rt_msg_t *msg, ucs_status_t status)
{
    switch (status) {
    case UCS_OK:
        return GDC_SUCCESS;
    case UCS_ERR_MESSAGE_TRUNCATED:
        return GDC_ERR_TRUNCATED;
    case UCS_ERR_NO_MEMORY:
        return GDC_ERR_NO_MEMORY;
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
        return GDC_ERR_PEER_FAILED;
    default: /* a shared-memory error of a peer that died, say */
        return gdc_rt_ucx_peer_check(msg->peer_world) ? GDC_ERR_PEER_FAILED : GDC_ERR_TRANSPORT;
    }
}

static void finish(gdc_rt_msg_t *msg, ucs_status_t status)
{
    if (msg->done) {
        return;
    }
    msg->done = 1;
    if (msg->status != GDC_SUCCESS) {
        return; /* the reason of its cancel (a timeout, a failure elsewhere) */
    }
    msg->status = status_from_ucx(msg, status);
    if (msg->status == GDC_ERR_TRANSPORT) {
        GDC_LOG_ERROR("%s rank %d failed in UCX: %s", msg->is_recv ? "receive from" : "send to",
                      msg->peer_world, ucs_status_string(status));
    }
}

static void on_send_done(void *request, ucs_status_t status, void *user_data)
{
    gdc_rt_msg_t *msg = user_data;

    gdc_rt_msg_pending_remove(msg);
    msg->ucx_req = NULL;
    finish(msg, status);
    ucp_request_free(request);
}

static void heard_add(gdc_rt_msg_t *msg)
{
    if (msg->heard) {
        return;
    }
    msg->heard      = 1;
    msg->heard_next = NULL;
    msg->heard_prev = heard_tail;
    if (heard_tail != NULL) {
        heard_tail->heard_next = msg;
    } else {
        heard_head = msg;
    }
    heard_tail = msg;
}

static void heard_remove(gdc_rt_msg_t *msg)
{
    if (!msg->heard) {
        return;
    }
    if (msg->heard_prev != NULL) {
        msg->heard_prev->heard_next = msg->heard_next;
    } else {
        heard_head = msg->heard_next;
    }
    if (msg->heard_next != NULL) {
        msg->heard_next->heard_prev = msg->heard_prev;
    } else {
        heard_tail = msg->heard_prev;
    }
    msg->heard      = 0;
    msg->heard_prev = msg->heard_next = NULL;
}

/* Whether a receive was told where its bytes are, not sent them; a told one waits on the
 * heard list for whichever comes first, its owner's test or the next progress round. */
static void note_tale(gdc_rt_msg_t *msg, uint64_t sender_tag)
{
    msg->told = msg->is_recv && (sender_tag & GDC_RT_TAG_CMA_FLAG) != 0;
    if (!msg->told) {
        return;
    }
    if (!msg->landed && msg->staging != NULL) {
        memcpy(&msg->tale, msg->staging, sizeof(msg->tale)); /* a device receive's host copy */
        msg->landed = 1;
    } else if (!msg->landed && msg->memtype == GDC_RT_MEM_HOST && msg->stage == NULL) {
        memcpy(&msg->tale, msg->buf, sizeof(msg->tale)); /* a receive too short for the message */
        msg->landed = 1;
    }
    heard_add(msg);
}

static void on_recv_done(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                         void *user_data)
{
    gdc_rt_msg_t *msg = user_data;

    gdc_rt_msg_pending_remove(msg);
    msg->ucx_req = NULL;
    if (status == UCS_OK) {
        msg->received = info->length;
        note_tale(msg, info->sender_tag);
    }
    finish(msg, status);
    ucp_request_free(request);
}

static void init_msg(gdc_rt_msg_t *msg, int is_recv, int peer_world, uint64_t tag, void *buf, size_t len,
                     gdc_rt_memtype_t memtype)
{
    heard_remove(msg); /* never on it once its owner saw it end: a guard, not a path */
    memset(msg, 0, sizeof(*msg));
    msg->is_recv    = is_recv;
    msg->peer_world = peer_world;
    msg->tag        = tag;
    msg->buf        = buf;
    msg->length     = len;
    msg->memtype    = memtype;
}

static void free_staging(gdc_rt_msg_t *msg)
{
    gdc_rt_stage_whole_free(msg->staging, msg->length);
    msg->staging = NULL;
}

static void fail_now(gdc_rt_msg_t *msg, gdc_status_t status)
{
    if (msg->stage != NULL) {
        gdc_rt_stage_end(msg->stage);
        msg->stage = NULL;
    }
    free_staging(msg);
    msg->status  = status;
    msg->done    = 1;
}

/* A device buffer UCX cannot reach: its pipeline through bounce buffers, or a host copy of
 * the whole (a send's made now). NULL when there is nothing to stage; *status set when
 * staging failed. */
static const void *stage(gdc_rt_msg_t *msg, void *buf, size_t len, gdc_rt_memtype_t memtype, gdc_status_t *status)
{
    *status = GDC_SUCCESS;
    if (len == 0 || !gdc_rt_stage_wanted(memtype)) {
        return NULL;
    }
    msg->user_memtype = memtype;
    msg->stage        = gdc_rt_stage_start(msg->is_recv, buf, len, memtype, msg->peer_world);
    if (msg->stage != NULL) {
        return msg->stage;
    }
    msg->staging = gdc_rt_stage_whole_alloc(len, buf);
    if (msg->staging == NULL) {
        GDC_LOG_ERROR("no memory for a host copy of a device message of %zu bytes", len);
        *status = GDC_ERR_NO_MEMORY;
        return NULL;
    }
    msg->user_buf = buf;
    if (!msg->is_recv) {
        *status = gdc_rt_stage_copy(msg->staging, buf, len, memtype);
    }
    return msg->staging;
}

static void fill_param(ucp_request_param_t *param, gdc_rt_msg_t *msg, gdc_rt_memtype_t memtype)
{
    memset(param, 0, sizeof(*param));
    param->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                          UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param->user_data    = msg;
    param->memory_type  = (memtype == GDC_RT_MEM_HOST || msg->staging != NULL || msg->stage != NULL)
                              ? UCS_MEMORY_TYPE_HOST
                          : (memtype == GDC_RT_MEM_CUDA_MANAGED) ? UCS_MEMORY_TYPE_CUDA_MANAGED
                                                                 : UCS_MEMORY_TYPE_CUDA;
    if (msg->stage != NULL) {
        param->op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        param->datatype      = gdc_rt_stage_datatype();
    }
}

static void track(gdc_rt_msg_t *msg, ucs_status_ptr_t request)
{
    if (request == NULL) {
        if (!msg->is_recv) {
            free_staging(msg);
        }
        msg->done = 1;
        return;
    }
    if (UCS_PTR_IS_ERR(request)) {
        finish(msg, UCS_PTR_STATUS(request));
        if (!msg->is_recv) {
            free_staging(msg);
        }
        return;
    }
    if (msg->done) {
        /* UCX ran the callback inside the call (seen with a truncated unexpected message):
         * the request is already released. */
        return;
    }
    msg->ucx_req = request;
    gdc_rt_msg_pending_add(msg);
}

/* Send a small message whose request nobody waits for (it is given back at once). */
static ucs_status_t send_and_forget(ucp_ep_h ep, const void *data, size_t len, uint64_t tag)
{
    ucp_request_param_t param;
    ucs_status_ptr_t    request;

    memset(&param, 0, sizeof(param));
    request = ucp_tag_send_nbx(ep, data, len, tag, &param);
    if (UCS_PTR_IS_ERR(request)) {
        return UCS_PTR_STATUS(request);
    }
    if (request != NULL) {
        ucp_request_free(request);
    }
    return UCS_OK;
}

static void on_tale_sent(void *request, ucs_status_t status, void *user_data)
{
    free(user_data);
    ucp_request_free(request);
}

/* A tale goes from a copy of its own: a send UCX cannot start at once reads its data later,
 * when the message may be gone (cancelled by a timeout, its request reused). */
static ucs_status_t send_tale(ucp_ep_h ep, const gdc_rt_msg_told_t *tale, uint64_t tag)
{
    ucp_request_param_t param;
    ucs_status_ptr_t    request;
    gdc_rt_msg_told_t  *copy = malloc(sizeof(*copy));

    if (copy == NULL) {
        return UCS_ERR_NO_MEMORY;
    }
    *copy = *tale;
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send      = on_tale_sent;
    param.user_data    = copy;
    request            = ucp_tag_send_nbx(ep, copy, sizeof(*copy), tag, &param);
    if (request == NULL || UCS_PTR_IS_ERR(request)) {
        free(copy);
        return UCS_PTR_STATUS(request);
    }
    return UCS_OK;
}

/* A host message to a rank of this node: tell it where the bytes are; the message ends
 * with the reader's answer (received first: it may come before the tale's send returns). */
static gdc_status_t tell(gdc_rt_msg_t *msg, ucp_ep_h ep, int word)
{
    ucp_request_param_t param;
    ucs_status_t        status;

    msg->telling = 1;
    msg->tale    = (gdc_rt_msg_told_t){
        (uint64_t)(uintptr_t)msg->buf, msg->length,
        (*gdc_rt_shm_tale_withdrawals(tale_shm, tale_shm->local_index) & GDC_RT_TALE_COUNT_MASK) << GDC_RT_TALE_WORD_BITS |
            (uint64_t)word,
        (int32_t)getpid(), 0};
    fill_param(&param, msg, GDC_RT_MEM_HOST);
    param.cb.recv = on_recv_done;
    do {
        /* an answer there before its tale is sent is a stale one, to a tale of this number
         * whose send was cancelled (a timeout) before its reader read it, 2^24 tales ago:
         * taken off UCX's queue by this receive; the next number then */
        msg->done     = 0;
        msg->tale.seq = next_tale++; /* its answer's tag keeps the low 24 bits; its word all 32 */
        track(msg, ucp_tag_recv_nbx(gdc_rt_ucx_worker(), &msg->answer, sizeof(msg->answer),
                                    gdc_rt_tag_cma_done((uint32_t)msg->peer_world, msg->tale.seq),
                                    GDC_RT_TAG_FULL_MASK, &param));
    } while (msg->done && msg->status == GDC_SUCCESS);
    if (msg->done) {
        return msg->status;
    }
    __atomic_store_n(&gdc_rt_shm_tale_words(tale_shm, tale_shm->local_index)[word], tale_stands(msg->tale.seq),
                     __ATOMIC_RELEASE);
    msg->tale_word = word + 1;
    status         = send_tale(ep, &msg->tale, msg->tag | GDC_RT_TAG_CMA_FLAG);
    if (status != UCS_OK) {
        gdc_rt_msg_cancel(msg, status_from_ucx(msg, status));
        return msg->status;
    }
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_msg_send(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, const void *buf, size_t len,
                             gdc_rt_memtype_t memtype)
{
    ucp_request_param_t param;
    const void         *data, *staged;
    gdc_status_t        status;
    ucp_ep_h            ep;

    init_msg(msg, 0, peer_world, tag, (void *)buf, len, memtype);
    ep = gdc_rt_ucx_ep(peer_world, &status);
    if (ep == NULL) {
        fail_now(msg, status);
        return status;
    }
    if (telling && tellable(peer_world, len, memtype)) {
        int word = free_tale_word();
        if (word >= 0) {
            return tell(msg, ep, word);
        }
    }
    staged = stage(msg, (void *)buf, len, memtype, &status);
    if (status != GDC_SUCCESS) {
        fail_now(msg, status);
        return status;
    }
    data = staged != NULL ? staged : buf;
    fill_param(&param, msg, memtype);
    param.cb.send = on_send_done;
    track(msg, ucp_tag_send_nbx(ep, data, len, tag, &param));
    return msg->done ? msg->status : GDC_SUCCESS;
}

/*
 * Whether a receive that UCX completes at once (a message that was waiting) fills
 * recv_info with its length, as ucp.h promises: from UCX 1.16 on (openucx/ucx#9425; 1.13,
 * Debian 12's, leaves it 0). Where the length matters (a staged receive copies that many
 * bytes to the device, a collective checks it) an older UCX is asked to complete through
 * the callback, which gets the length.
 */
static int ucx_says_length_at_once(void)
{
    static int answer = -1;

    if (answer < 0) {
        unsigned major, minor, release;

        ucp_get_version(&major, &minor, &release);
        answer = major > 1 || (major == 1 && minor >= 16);
    }
    return answer;
}

/* A receive from a rank that may tell: the first bytes land in the message (a tale, or
 * the message's start, copied to the buffer when it ends), the rest in place; one shorter
 * than a tale lands whole. The UCX data and count that say so (*len). */
static void *land(gdc_rt_msg_t *msg, ucp_request_param_t *param, size_t *len)
{
    size_t head = sizeof(msg->tale);

    if (*len < head) {
        *len = head;
        return &msg->tale;
    }
    msg->iov[0].buffer = &msg->tale;
    msg->iov[0].length = head;
    msg->iov[1].buffer = (char *)msg->buf + head;
    msg->iov[1].length = *len > head ? *len - head : 0;
    param->op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    param->datatype      = ucp_dt_make_iov();
    *len                 = *len > head ? 2 : 1;
    return msg->iov;
}

gdc_status_t gdc_rt_msg_recv(gdc_rt_msg_t *msg, int peer_world, uint64_t tag, void *buf, size_t len,
                             gdc_rt_memtype_t memtype)
{
    ucp_request_param_t param;
    ucp_tag_recv_info_t info;
    const void         *staged;
    void               *data;
    gdc_status_t        status;

    init_msg(msg, 1, peer_world, tag, buf, len, memtype);
    /* The endpoint is not needed to receive, but it is how UCX tells us the peer died. */
    if (gdc_rt_ucx_ep(peer_world, &status) == NULL) {
        fail_now(msg, status);
        return status;
    }
    /* a rank of this node may tell instead of send: a receive long enough to be told lands
     * what comes in `tale` first (one shorter takes a tale only to say it is truncated, and
     * one shorter than a tale lands whole) */
    msg->landed = tellable(peer_world, len, memtype) || (cma_peer(peer_world) && len < sizeof(msg->tale));
    status      = GDC_SUCCESS;
    staged      = msg->landed ? NULL : stage(msg, buf, len, memtype, &status);
    if (status != GDC_SUCCESS) {
        fail_now(msg, status);
        return status;
    }
    data = staged != NULL ? (void *)staged : buf;
    fill_param(&param, msg, msg->landed ? GDC_RT_MEM_HOST : memtype);
    if (msg->landed) {
        data = land(msg, &param, &len);
    }
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_RECV_INFO;
    if (!ucx_says_length_at_once() &&
        (staged != NULL || gdc_rt_tag_class(tag) == 1 || cma_peer(peer_world))) {
        param.op_attr_mask |= UCP_OP_ATTR_FLAG_NO_IMM_CMPL; /* the length (and a tale's tag) come with the callback */
    }
    param.cb.recv            = on_recv_done;
    param.recv_info.tag_info = &info;
    info.length              = 0;
    info.sender_tag          = 0;
    {
        ucs_status_ptr_t request = ucp_tag_recv_nbx(gdc_rt_ucx_worker(), data, len, tag, GDC_RT_TAG_RECV_MASK,
                                                    &param);
        if (request == NULL) {
            msg->received = info.length;
            note_tale(msg, info.sender_tag);
        }
        track(msg, request);
    }
    return msg->done && msg->status != GDC_SUCCESS ? msg->status : GDC_SUCCESS;
}

/* The tale's bytes into the receive's buffer, by cross-memory attach (into a host copy
 * first where the buffer is a device's), then the sender's word for the tale: if it no
 * longer stands, the send ended first (a timeout, a failure) and its buffer was the
 * sender's again while it was read (*withdrawn: nobody waits for an answer). */
static gdc_status_t read_tale(const gdc_rt_msg_t *msg, const gdc_rt_msg_told_t *tale, int *withdrawn)
{
    int          on_host = msg->memtype == GDC_RT_MEM_HOST;
    char        *dst     = on_host ? msg->buf : gdc_rt_stage_whole_alloc(tale->length, msg->buf);
    gdc_status_t status, withdrawal;

    *withdrawn = 0;
    if (dst == NULL) {
        GDC_LOG_ERROR("no memory for a host copy of a message of %zu bytes from rank %d",
                      (size_t)tale->length, msg->peer_world);
        return GDC_ERR_NO_MEMORY;
    }
    status = gdc_rt_shm_cma_move(tale->pid, msg->peer_world, dst, (void *)(uintptr_t)tale->address, tale->length, 0);
    if (status != GDC_ERR_PEER_FAILED && (withdrawal = withdrawal_status(msg, tale)) != GDC_SUCCESS) {
        /* read, or its buffer gone since */
        GDC_LOG_ERROR("rank %d withdrew a message of %zu bytes before this rank read it (its send ended first: "
                      "%s): not delivered",
                      msg->peer_world, (size_t)tale->length, gdc_strerror(withdrawal));
        *withdrawn = 1;
        status     = withdrawal;
    }
    if (!on_host) {
        if (status == GDC_SUCCESS) {
            status = gdc_rt_stage_copy(msg->buf, dst, tale->length, msg->memtype);
        }
        gdc_rt_stage_whole_free(dst, tale->length);
    }
    return status;
}

static void answer(const gdc_rt_msg_t *msg, uint32_t seq, const uint64_t *what)
{
    gdc_status_t status;
    ucp_ep_h     ep = gdc_rt_ucx_ep(msg->peer_world, &status);

    if (ep != NULL) { /* else the sender is gone */
        (void)send_and_forget(ep, what, sizeof(*what), gdc_rt_tag_cma_done((uint32_t)gdc_rt_boot.rank, seq));
    }
}

/* What a receive was told: where it landed, or at its buffer's start. */
static gdc_status_t fetch_tale(const gdc_rt_msg_t *msg, gdc_rt_msg_told_t *tale)
{
    if (msg->landed) {
        *tale = msg->tale;
        return GDC_SUCCESS;
    }
    return gdc_rt_stage_copy(tale, msg->buf, sizeof(*tale), msg->memtype);
}

/* A receive that was told where its bytes are: read them, then answer the sender. */
static void take_tale(gdc_rt_msg_t *msg)
{
    gdc_rt_msg_told_t tale;
    gdc_status_t      status;
    int               withdrawn = 0;

    msg->told = 0;
    status    = fetch_tale(msg, &tale);
    msg->landed = 0;
    if (status != GDC_SUCCESS) {
        msg->status = GDC_ERR_TRANSPORT; /* the sender fails with its timeout or our end */
        return;
    }
    msg->received = 0;
    if (tale.length > msg->length) {
        msg->status = GDC_ERR_TRUNCATED; /* the receive's error; the send is done */
    } else {
        msg->status   = read_tale(msg, &tale, &withdrawn);
        msg->received = msg->status == GDC_SUCCESS ? tale.length : 0;
        if (msg->status == GDC_SUCCESS) {
            tales_read++;
            bytes_read += tale.length;
        }
    }
    if (!withdrawn) {
        answer(msg, tale.seq, answer_for(msg->status));
    }
}

/* A told receive that will not read (it failed before, its staging say): the sender learns
 * so now, and fails too. */
static void refuse_tale(gdc_rt_msg_t *msg)
{
    gdc_rt_msg_told_t tale;

    msg->told = 0;
    if (fetch_tale(msg, &tale) == GDC_SUCCESS) {
        answer(msg, tale.seq, answer_for(msg->status != GDC_SUCCESS ? msg->status : GDC_ERR_TRANSPORT));
    }
    msg->landed = 0;
}

/* What landed in the message, into the buffer: the start of a host receive, or the whole of
 * one shorter than a tale (a device buffer's too). */
static void deliver_landed(gdc_rt_msg_t *msg)
{
    msg->landed = 0;
    if (msg->received > msg->length) {
        msg->status = GDC_ERR_TRUNCATED;
    } else if (msg->received > 0) {
        msg->status = gdc_rt_stage_copy(msg->buf, &msg->tale,
                                        msg->received < sizeof(msg->tale) ? msg->received : sizeof(msg->tale),
                                        msg->memtype);
    }
}

/* A send that told: what its reader answered. */
static void heard(gdc_rt_msg_t *msg)
{
    msg->telling = 0;
    release_tale_word(msg, msg->status); /* an answer that did not come: withdrawn */
    if (msg->status == GDC_SUCCESS && msg->answer != ANSWER_READ) {
        msg->status = ended_status(msg->answer);
        GDC_LOG_ERROR("rank %d could not read a message of %zu bytes from this rank's memory (%s)", msg->peer_world,
                      msg->length, gdc_strerror(msg->status));
    }
}

int gdc_rt_msg_test(gdc_rt_msg_t *msg)
{
    if (!msg->done) {
        return 0;
    }
    if (msg->telling) {
        heard(msg);
    }
    if (msg->stage != NULL) {
        if (!gdc_rt_stage_test(msg->stage, msg->is_recv && msg->status == GDC_SUCCESS, msg->received, &msg->status)) {
            return 0;
        }
        gdc_rt_stage_end(msg->stage);
        msg->stage = NULL;
    }
    if (msg->staging != NULL) {
        /* (a tale in it was taken out when it came: it is not the message) */
        if (msg->status == GDC_SUCCESS && msg->is_recv && msg->received > 0 && !msg->told) {
            msg->status = gdc_rt_stage_copy(msg->user_buf, msg->staging, msg->received, msg->user_memtype);
        }
        free_staging(msg);
    }
    if (msg->told) {
        if (msg->status == GDC_SUCCESS) {
            take_tale(msg);
        } else {
            refuse_tale(msg);
        }
    } else if (msg->landed && msg->status == GDC_SUCCESS) {
        deliver_landed(msg);
    }
    heard_remove(msg);
    return 1;
}

int gdc_rt_msg_read_heard(void)
{
    int read = 0;

    for (gdc_rt_msg_t *msg = heard_head; msg != NULL;) {
        gdc_rt_msg_t *next = msg->heard_next; /* a test that ends it takes it off */
        read |= gdc_rt_msg_test(msg);
        msg = next;
    }
    return read;
}

/* How long a message UCX goes on moving after its cancel may take to end: a matched
 * receive is its sender's transfer in progress; a send may be one whose receiver has
 * cancelled its receive (and never will take it), so it gets less. */
#define GDC_RT_MSG_DRAIN_RECV_SECONDS 1.0
#define GDC_RT_MSG_DRAIN_SEND_SECONDS 0.05

/*
 * A receive UCX has matched, or a send it has started, goes on moving bytes into or out of
 * its buffer after ucp_request_cancel, and the buffer's owner frees it next (a collective's
 * scratch: a rendezvous landing in it after that killed the rank). So wait for its end, as
 * long as its peer lives and a little more than a transfer in progress needs; not inside a
 * UCX callback (the worker may not be progressed there: a failed peer's messages, whose
 * bytes stop with it).
 */
static void drain(gdc_rt_msg_t *msg)
{
    double limit = msg->is_recv ? GDC_RT_MSG_DRAIN_RECV_SECONDS : GDC_RT_MSG_DRAIN_SEND_SECONDS, deadline;

    if (msg->ucx_req == NULL || gdc_rt_ucx_in_callback() || gdc_rt_ucx_peer_failed(msg->peer_world)) {
        return;
    }
    deadline = gdc_wtime() + limit;
    while (!msg->done && !gdc_rt_ucx_peer_failed(msg->peer_world) && gdc_wtime() < deadline) {
        gdc_rt_ucx_worker_progress();
    }
    if (!msg->done && msg->is_recv) {
        GDC_LOG_WARN("a receive from rank %d cancelled in UCX's hands did not end within %.0f s: given up to UCX",
                     msg->peer_world, limit);
    }
}

/* A cancelled message that UCX has ended: its pipeline's last copies waited for, so that
 * none goes on into the buffer after the message is over. */
static void finish_stage(gdc_rt_msg_t *msg)
{
    gdc_status_t status;

    if (msg->stage == NULL) {
        return;
    }
    status     = gdc_rt_stage_finish(msg->stage, msg->is_recv && msg->status == GDC_SUCCESS, msg->received);
    msg->stage = NULL;
    if (msg->status == GDC_SUCCESS) {
        msg->status = status;
    }
}

/* A cancelled message that ended: a told receive reads its bytes (they are the sender's
 * and are there; not reading would fail a healthy sender, and leave the tale where the
 * test after the cancel would deliver it as data). */
static void end_cancelled(gdc_rt_msg_t *msg)
{
    finish_stage(msg);
    if (msg->told) {
        free_staging(msg); /* the tale was taken out of it; the bytes go to the buffer */
        take_tale(msg);
    }
    heard_remove(msg);
}

void gdc_rt_msg_cancel(gdc_rt_msg_t *msg, gdc_status_t status)
{
    /* a telling send's tale, withdrawn before its buffer is the owner's again */
    release_tale_word(msg, status != GDC_SUCCESS ? status : GDC_ERR_INTERNAL);
    if (msg->done) {
        end_cancelled(msg);
        return;
    }
    msg->status = status;
    if (msg->ucx_req != NULL && (msg->is_recv || msg->telling)) {
        /* normally completes at once through on_recv_done, keeping our status */
        ucp_request_cancel(gdc_rt_ucx_worker(), msg->ucx_req);
    }
    if (!msg->done) {
        drain(msg);
    }
    if (msg->done) {
        end_cancelled(msg);
        return;
    }
    /* Still in UCX's hands: give the request back, so that a late completion calls nobody
     * whose owner may be gone. Its whole staging copy, if any, stays with UCX (leaked on
     * this error path rather than freed under a transfer); its pipeline stops touching the
     * user's buffer and stays allocated for UCX's late calls. */
    gdc_rt_msg_pending_remove(msg);
    if (msg->ucx_req != NULL) {
        ucp_request_free(msg->ucx_req);
    }
    if (msg->stage != NULL) {
        gdc_rt_stage_abandon(msg->stage);
    }
    msg->ucx_req = NULL;
    msg->staging = NULL;
    msg->stage   = NULL;
    msg->done    = 1;
}

void gdc_rt_msg_pending_fail_peer(int peer_world)
{
    gdc_rt_msg_t *msg = pending_head;

    while (msg != NULL) {
        gdc_rt_msg_t *next = msg->next;
        if (msg->peer_world == peer_world) {
            gdc_rt_msg_cancel(msg, GDC_ERR_PEER_FAILED);
        }
        msg = next;
    }
}

void gdc_rt_msg_pending_watch_peers(void)
{
    static unsigned round;

    round++;
    for (gdc_rt_msg_t *msg = pending_head; msg != NULL;) {
        gdc_rt_msg_t *next = msg->next; /* a failed peer's messages leave the list */
        gdc_rt_ucx_watch_peer(msg->peer_world, round);
        msg = next;
    }
}

void gdc_rt_msg_pending_cancel_all(gdc_status_t status)
{
    while (pending_head != NULL) {
        gdc_rt_msg_cancel(pending_head, status);
    }
}
