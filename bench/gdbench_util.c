/* Small helpers shared by the harness and the backends: the error message, sizes. */
#include "gdbench.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char error_message[512] = "no error";

void gdbench_set_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(error_message, sizeof(error_message), fmt, ap);
    va_end(ap);
}

const char *gdbench_error(void)
{
    return error_message;
}

int gdbench_parse_bytes(const char *text, size_t *bytes)
{
    char              *end;
    unsigned long long value;
    unsigned           shift = 0;

    if (text == NULL || !isdigit((unsigned char)text[0])) {
        return -1;
    }
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0) {
        return -1;
    }
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: return -1;
    }
    /* "4KiB" and "4KB" read as 4K too */
    if (shift != 0 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)) {
        end += strlen(end);
    }
    if (*end != '\0' || value > (SIZE_MAX >> shift)) {
        return -1;
    }
    *bytes = (size_t)(value << shift);
    return 0;
}

void gdbench_format_bytes_short(size_t bytes, char *out, size_t outlen)
{
    static const char units[] = "KMGT";
    int               unit    = -1;
    size_t            value   = bytes;

    while (value >= 1024 && value % 1024 == 0 && unit < 3) {
        value /= 1024;
        unit++;
    }
    if (unit < 0) {
        snprintf(out, outlen, "%zu", value);
    } else {
        snprintf(out, outlen, "%zu%c", value, units[unit]);
    }
}
