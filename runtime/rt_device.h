/*
 * Which CUDA device gdc works on in this process: GDC_DEVICE=auto|none|N, read as text and
 * decided by pure functions so that every case is tested without a GPU. The application's
 * own choice (a context current at gdc_init) always wins: gdc cannot move its buffers.
 */
#ifndef GDC_RT_DEVICE_H
#define GDC_RT_DEVICE_H

#include <stddef.h>

#include <gdc.h>

typedef enum {
    GDC_RT_DEVICE_AUTO = 0, /* local rank modulo the node's device count */
    GDC_RT_DEVICE_NONE,     /* gdc makes no device current; device buffers keep their own */
    GDC_RT_DEVICE_INDEX     /* this device ordinal */
} gdc_rt_device_mode_t;

typedef struct gdc_rt_device_setting {
    gdc_rt_device_mode_t mode;
    int                  index; /* GDC_RT_DEVICE_INDEX only */
} gdc_rt_device_setting_t;

/* "auto", "none" or a device ordinal ("0", "3"; decimal digits only). NULL or "" (the
 * variable unset or empty) is auto. GDC_ERR_INVALID_ARG, logged with the accepted values,
 * for anything else; *out is set only on success. */
gdc_status_t gdc_rt_device_parse(const char *text, gdc_rt_device_setting_t *out);

typedef struct gdc_rt_device_choice {
    int  device;       /* the ordinal gdc uses, or -1: none */
    int  make_current; /* 1: gdc retains the device's primary context and makes it current */
    char why[160];     /* for the info line */
} gdc_rt_device_choice_t;

/* The device for this process. current_device is the device of the context the
 * application made current (-1: none). GDC_ERR_INVALID_ARG, logged, when GDC_DEVICE names
 * a device this process does not see, or local_rank is negative. */
gdc_status_t gdc_rt_device_choose(const gdc_rt_device_setting_t *setting, int local_rank, int device_count,
                                  int current_device, gdc_rt_device_choice_t *out);

#endif
