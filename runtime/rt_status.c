#include <gdc.h>

const char *gdc_strerror(gdc_status_t status)
{
    switch (status) {
    case GDC_SUCCESS: return "success";
    case GDC_ERR_INVALID_ARG: return "invalid argument";
    case GDC_ERR_NO_MEMORY: return "out of memory";
    case GDC_ERR_NOT_INITIALIZED: return "gdc is not initialized";
    case GDC_ERR_UNSUPPORTED: return "not supported";
    case GDC_ERR_TRANSPORT: return "transport (UCX or PMIx) error";
    case GDC_ERR_PEER_FAILED: return "a peer process failed";
    case GDC_ERR_TIMEOUT: return "timed out without progress";
    case GDC_ERR_TRUNCATED: return "message truncated: the receive buffer is too small";
    case GDC_ERR_INTERNAL: return "internal error";
    }
    return "unknown status code";
}
