/*
 * GDC_DEVICE and the choice of this process's device.
 */
#include "rt_device.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "rt_log.h"

#define ACCEPTED "auto, none or a device index (0, 1, ...)"

gdc_status_t gdc_rt_device_parse(const char *text, gdc_rt_device_setting_t *out)
{
    gdc_rt_device_setting_t setting = {GDC_RT_DEVICE_AUTO, -1};
    int                     index   = 0;

    if (out == NULL) {
        GDC_LOG_ERROR("GDC_DEVICE: out is NULL");
        return GDC_ERR_INVALID_ARG;
    }
    if (text == NULL || text[0] == '\0' || strcmp(text, "auto") == 0) {
        *out = setting;
        return GDC_SUCCESS;
    }
    if (strcmp(text, "none") == 0) {
        setting.mode = GDC_RT_DEVICE_NONE;
        *out         = setting;
        return GDC_SUCCESS;
    }
    /* Digits only: strtol would take " 1", "+1" and "1x", which hide typos. */
    for (const char *p = text; *p != '\0'; p++) {
        int digit = *p - '0';

        if (digit < 0 || digit > 9 || index > (INT_MAX - digit) / 10) {
            GDC_LOG_ERROR("GDC_DEVICE=%s: expected %s", text, ACCEPTED);
            return GDC_ERR_INVALID_ARG;
        }
        index = index * 10 + digit;
    }
    setting.mode  = GDC_RT_DEVICE_INDEX;
    setting.index = index;
    *out          = setting;
    return GDC_SUCCESS;
}

gdc_status_t gdc_rt_device_choose(const gdc_rt_device_setting_t *setting, int local_rank, int device_count,
                                  int current_device, gdc_rt_device_choice_t *out)
{
    gdc_rt_device_choice_t choice = {.device = -1, .make_current = 0, .why = ""};

    if (setting == NULL || out == NULL || local_rank < 0) {
        GDC_LOG_ERROR("device choice: %s", setting == NULL ? "setting is NULL" :
                                           out == NULL ? "out is NULL" : "negative local rank");
        return GDC_ERR_INVALID_ARG;
    }
    if (device_count <= 0) {
        /* Without a device there is nothing to choose, whatever GDC_DEVICE says: the run
         * without CUDA is complete, not an error. */
        snprintf(choice.why, sizeof(choice.why), "no CUDA device: all buffers are host memory");
    } else if (current_device >= 0) {
        choice.device = current_device;
        if (setting->mode == GDC_RT_DEVICE_INDEX && setting->index != current_device) {
            snprintf(choice.why, sizeof(choice.why),
                     "device %d, the application's current context (GDC_DEVICE=%d ignored: gdc cannot move the "
                     "application's buffers)",
                     current_device, setting->index);
        } else {
            snprintf(choice.why, sizeof(choice.why), "device %d, the application's current context",
                     current_device);
        }
    } else if (setting->mode == GDC_RT_DEVICE_NONE) {
        snprintf(choice.why, sizeof(choice.why),
                 "no device made current (GDC_DEVICE=none): device buffers are used in their own contexts");
    } else if (setting->mode == GDC_RT_DEVICE_INDEX) {
        if (setting->index >= device_count) {
            GDC_LOG_ERROR("GDC_DEVICE=%d: this process sees %d CUDA device(s), 0..%d (CUDA_VISIBLE_DEVICES "
                          "renumbers them)",
                          setting->index, device_count, device_count - 1);
            return GDC_ERR_INVALID_ARG;
        }
        choice.device       = setting->index;
        choice.make_current = 1;
        snprintf(choice.why, sizeof(choice.why), "device %d of %d (GDC_DEVICE=%d)", choice.device, device_count,
                 setting->index);
    } else {
        choice.device       = local_rank % device_count;
        choice.make_current = 1;
        snprintf(choice.why, sizeof(choice.why), "device %d of %d (local rank %d modulo %d devices)",
                 choice.device, device_count, local_rank, device_count);
    }
    *out = choice;
    return GDC_SUCCESS;
}
