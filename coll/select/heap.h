/*
 * A binary min-heap over an array its user keeps, of any element type, ordered by a strict
 * before(const T *a, const T *b): the simulator's ready steps (model.c), a walk's queued
 * sends (price_walk.c), a tree's hops (price.c). Macros, so that each heap keeps its own
 * element type and its comparison inlined; an index `len` of any integer type. Elements
 * that compare equal come off in an order the heap's shape decides: give each a tie-break
 * (a push count, a rank) where the order matters.
 */
#ifndef GDC_COLL_SELECT_HEAP_H
#define GDC_COLL_SELECT_HEAP_H

#include <stddef.h>

/* Adds `item` (an lvalue) to heap[0..len), len one more. */
#define GDC_COLL_HEAP_PUSH(heap, len, item, before)                                                 \
    do {                                                                                            \
        size_t heap_at_ = (size_t)(len)++;                                                          \
                                                                                                    \
        while (heap_at_ > 0 && before(&(item), &(heap)[(heap_at_ - 1) / 2])) {                      \
            (heap)[heap_at_] = (heap)[(heap_at_ - 1) / 2];                                          \
            heap_at_         = (heap_at_ - 1) / 2;                                                  \
        }                                                                                           \
        (heap)[heap_at_] = (item);                                                                  \
    } while (0)

/* Takes the first element of heap[0..len) (len > 0) into `top`, len one less. */
#define GDC_COLL_HEAP_POP(heap, len, top, before)                                                   \
    do {                                                                                            \
        size_t heap_at_ = 0, heap_last_ = (size_t)--(len);                                          \
                                                                                                    \
        (top) = (heap)[0];                                                                          \
        for (size_t heap_child_ = 1; heap_child_ < heap_last_; heap_child_ = 2 * heap_at_ + 1) {    \
            heap_child_ += heap_child_ + 1 < heap_last_ && before(&(heap)[heap_child_ + 1], &(heap)[heap_child_]); \
            if (!before(&(heap)[heap_child_], &(heap)[heap_last_])) {                               \
                break;                                                                              \
            }                                                                                       \
            (heap)[heap_at_] = (heap)[heap_child_];                                                 \
            heap_at_         = heap_child_;                                                         \
        }                                                                                           \
        (heap)[heap_at_] = (heap)[heap_last_];                                                      \
    } while (0)

#endif
