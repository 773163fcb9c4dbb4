/* Assertions for multi-rank test programs: a failure names the rank, the place and the
 * values, and ends the job with exit status 1 (the launcher then stops the other ranks). */
#ifndef GDC_TEST_CHECK_H
#define GDC_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <gdc.h>

static int check_rank = -1;

#define CHECK_OK(call)                                                                        \
    do {                                                                                      \
        int _rc = (call);                                                                     \
        if (_rc != GDC_SUCCESS) {                                                             \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d (%s)\n", check_rank,          \
                    __FILE__, __LINE__, #call, _rc, gdc_strerror(_rc));                       \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CHECK_STATUS(call, expected)                                                          \
    do {                                                                                      \
        int _rc = (call);                                                                     \
        if (_rc != (expected)) {                                                              \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d (%s), expected %d (%s)\n",    \
                    check_rank, __FILE__, __LINE__, #call, _rc, gdc_strerror(_rc),            \
                    (int)(expected), gdc_strerror(expected));                                 \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", check_rank, __FILE__, __LINE__,       \
                    #cond);                                                                   \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static inline void *check_malloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);

    CHECK(p != NULL, "malloc(%zu) failed", bytes);
    return p;
}

#endif
