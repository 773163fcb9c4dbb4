/*
 * What the fuzz targets share: the libFuzzer entry points, the input as a string or a
 * stream, and FUZZ_CHECK for what the code under test promises beyond not crashing.
 */
#ifndef GDC_FUZZ_H
#define GDC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* run.sh closes the targets' stdout and stderr (gdc logs every bad input); the sanitizers'
 * report channel stays open, so a broken promise is told there, then crashes for libFuzzer
 * to keep the input. */
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_fail(#cond, __FILE__, __LINE__))

static inline void fuzz_fail(const char *what, const char *file, int line)
{
    char text[512];

    snprintf(text, sizeof(text), "fuzz check failed: %s (%s:%d)", what, file, line);
    __sanitizer_report_error_summary(text);
    abort();
}

/* The input as a C string, cut at its first NUL; malloc'd, NULL when out of memory. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);

    if (text != NULL) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* The input as a file to read (fmemopen: no temporary file, nothing left between inputs). */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
    static char empty[1];

    return fmemopen(size > 0 ? (void *)data : empty, size, "r");
}

#endif
