/*
 * ring: the smallest complete gdc program. A token goes once around the ring of ranks,
 * each rank adding its number, then every rank exchanges one message with every other.
 *
 *   mpirun -n 4 ./ring        (or any PMIx launcher; alone it runs as a singleton)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gdc.h>

#define CHECK(call)                                                                           \
    do {                                                                                      \
        int _rc = (call);                                                                     \
        if (_rc != GDC_SUCCESS) {                                                             \
            fprintf(stderr, "ring: %s failed: %s\n", #call, gdc_strerror(_rc));               \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    int     rank, size;
    int64_t token;

    CHECK(gdc_init(&argc, &argv));
    CHECK(gdc_comm_rank(GDC_COMM_WORLD, &rank));
    CHECK(gdc_comm_size(GDC_COMM_WORLD, &size));

    /* The token: rank 0 starts it, everybody adds its rank and passes it on. */
    if (rank == 0) {
        token = 0;
        CHECK(gdc_send(&token, 1, GDC_INT64, 1 % size, 0, GDC_COMM_WORLD));
        CHECK(gdc_recv(&token, 1, GDC_INT64, size - 1, 0, GDC_COMM_WORLD));
        printf("ring: the token went around %d ranks and came back as %lld (expected %lld)\n", size,
               (long long)token, (long long)size * (size - 1) / 2);
        if (token != (int64_t)size * (size - 1) / 2) {
            return 1;
        }
    } else {
        CHECK(gdc_recv(&token, 1, GDC_INT64, rank - 1, 0, GDC_COMM_WORLD));
        token += rank;
        CHECK(gdc_send(&token, 1, GDC_INT64, (rank + 1) % size, 0, GDC_COMM_WORLD));
    }

    /* All pairs: post every receive and send, then wait for all of them. */
    {
        gdc_request_t *reqs = malloc(2 * (size_t)size * sizeof(*reqs));
        int           *in   = malloc((size_t)size * sizeof(int));
        int            bad  = 0;

        for (int peer = 0; peer < size; peer++) {
            CHECK(gdc_irecv(&in[peer], 1, GDC_INT32, peer, 1, GDC_COMM_WORLD, &reqs[peer]));
        }
        for (int peer = 0; peer < size; peer++) {
            CHECK(gdc_isend(&rank, 1, GDC_INT32, peer, 1, GDC_COMM_WORLD, &reqs[size + peer]));
        }
        CHECK(gdc_waitall(2 * size, reqs));
        for (int peer = 0; peer < size; peer++) {
            bad += in[peer] != peer;
        }
        printf("ring: rank %d of %d exchanged a message with each of %d ranks: %s\n", rank, size, size,
               bad ? "WRONG DATA" : "ok");
        free(in);
        free(reqs);
        if (bad) {
            return 1;
        }
    }
    CHECK(gdc_finalize());
    return 0;
}
