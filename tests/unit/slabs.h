/* slabs.h -- what the unit tests of code on MPI t-slabs share
 * (test_dirac_mpi.c, test_hmc_mpi.c): each runs alone (one process, d NULL
 * or one slab) or under mpirun -np R, and rank 0 checks the ranks' owned
 * parts against one process's computation on the whole lattice.
 *   slabs_open(s, nc, seed)   the global 4^3 x 8 lattice, its geometry
 *       (geometry_for: NULL without mpirun), the Haar-random field
 *       (field_set_random: the same links for any R) on this rank's slab in
 *       s->u and, on rank 0 only, the same field whole in s->w;
 *   slabs_close(s)            frees both;
 *   slabs_fnv(p, bytes)       the 64-bit FNV-1a hash of the bytes (the
 *       lines the bats files compare across R);
 *   slabs_gather(d, own, whole, owned_bytes)  rank 0: the ranks' owned
 *       parts one after the other in whole (slab order = global order;
 *       every rank owns owned_bytes); the others send theirs;
 *   slabs_write(out, d, what, own, owned_reals)  gathers the ranks' owned
 *       doubles; rank 0 writes "WHAT N reals" and the N doubles to out
 *       (NULL: not) and prints "WHAT: hash H" (the results files and lines
 *       the GPU slab checks compare across R);
 *   slabs_compare(d, what, own, ref, owned_bytes)  gathers and, on rank 0,
 *       CHECKs the whole byte for byte against ref (one process's result;
 *       NULL: nothing to check, a collective's result); returns the
 *       whole's hash there, 0 on the other ranks;
 *   slabs_site_normals(seed, stream, g, n, v)  n standard normals of the
 *       global site (or half-site) index g: the same input on any R. */
#ifndef LAT_TEST_SLABS_H
#define LAT_TEST_SLABS_H
#include "base/comm.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "math/rng.h"
#include "unit.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slabs {
    struct lattice glob;         /* the whole lattice */
    const struct geometry *d;    /* this rank's slab (NULL: one process) */
    struct field u;              /* the field on the slab */
    struct field w;              /* rank 0: the field whole; zero elsewhere */
};

static inline void slabs_open(struct slabs *s, int nc, uint64_t seed)
{
    const int L[LAT_ND] = {4, 4, 4, 8};
    lattice_init(&s->glob, L, NULL);
    s->d = geometry_for(&s->glob);
    geometry_field_alloc(&s->u, s->d, &s->glob, nc, 64);
    field_set_random(&s->u, seed);
    memset(&s->w, 0, sizeof s->w);
    if (comm_is_root()) {
        field_alloc(&s->w, &s->glob, nc, 64);
        field_set_random(&s->w, seed);
    }
}

static inline void slabs_close(struct slabs *s)
{
    field_free(&s->u);
    if (comm_is_root()) field_free(&s->w);
}

static inline uint64_t slabs_fnv(const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static inline void slabs_gather(const struct geometry *d, const void *own, void *whole, size_t owned_bytes)
{
    if (!d) {
        memcpy(whole, own, owned_bytes);
        return;
    }
    if (d->rank == 0) {
        memcpy(whole, own, owned_bytes);
        for (int r = 1; r < d->size; r++) comm_recv((char *)whole + (size_t)r * owned_bytes, owned_bytes, r, 71);
    } else {
        comm_send(own, owned_bytes, 0, 71);
    }
}

static inline void slabs_write(FILE *out, const struct geometry *d, const char *what, const double *own, size_t owned_reals)
{
    const size_t whole = owned_reals * (size_t)(d ? d->size : 1);
    double *w = comm_is_root() ? (double *)malloc(whole * sizeof(double)) : NULL; /* C++ too */
    slabs_gather(d, own, w, owned_reals * sizeof(double));
    if (comm_is_root()) {
        if (out) {
            fprintf(out, "%s %zu reals\n", what, whole);
            fwrite(w, sizeof(double), whole, out);
        }
        printf("%s: hash %016llx\n", what, (unsigned long long)slabs_fnv(w, whole * sizeof(double)));
    }
    free(w);
}

static inline uint64_t slabs_compare(const struct geometry *d, const char *what, const void *own, const void *ref,
                                     size_t owned_bytes)
{
    const size_t whole_bytes = owned_bytes * (size_t)(d ? d->size : 1);
    char *whole = comm_is_root() ? (char *)malloc(whole_bytes) : NULL; /* C++ too */
    uint64_t hash = 0;
    slabs_gather(d, own, whole, owned_bytes);
    if (comm_is_root()) {
        if (ref)
            CHECK(memcmp(whole, ref, whole_bytes) == 0, "%s: the %d-rank result differs from one process's",
                  what, comm_size());
        hash = slabs_fnv(whole, whole_bytes);
    }
    free(whole);
    return hash;
}

static inline void slabs_site_normals(uint64_t seed, int stream, uint64_t g, int n, double *v)
{
    struct lat_rng r;
    rng_init(&r, seed, (uint32_t)stream, g, 0, RNG_TEST);
    for (int k = 0; k < n; k++) v[k] = rng_normal(&r);
}
#endif
