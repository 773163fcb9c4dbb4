/* How gdc names its shared-memory segments, shared with gdrun so that a launcher can remove
 * what a job killed in the middle of gdc_init left in /dev/shm. Header only: gdrun does
 * not link the runtime. */
#ifndef GDC_RT_SHM_NAME_H
#define GDC_RT_SHM_NAME_H

#include <stddef.h>

/* "gdc-<namespace>-": every segment of the job's ranks starts with it (in /dev/shm). The
 * namespace is made safe for a file name: letters and digits kept, the rest '_', at most
 * 40 characters. */
static inline void gdc_rt_shm_job_prefix(const char *nspace, char *buf, size_t len)
{
    size_t n = 0;

    if (len < 6) {
        buf[0] = '\0';
        return;
    }
    buf[n++] = 'g';
    buf[n++] = 'd';
    buf[n++] = 'c';
    buf[n++] = '-';
    for (size_t i = 0; nspace[i] != '\0' && i < 40 && n + 2 < len; i++) {
        char ch  = nspace[i];
        buf[n++] = (char)((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ? ch : '_');
    }
    buf[n++] = '-';
    buf[n]   = '\0';
}

#endif
