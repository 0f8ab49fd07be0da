/* field.h -- the host gauge-field container.
 *
 * A field holds U_mu(x) for every site and direction as N x N complex
 * matrices, in ILDG order (site-major in ILDG site order, then mu = x,y,z,t,
 * then the row-major matrix, re/im interleaved), in double (prec 64) or single
 * (prec 32) precision.  I/O and measurements work on double fields; compute
 * kernels may convert to single with field_convert. */
#ifndef LAT_FIELD_H
#define LAT_FIELD_H

#include "lattice/sites.h"
#include <stddef.h>
#include <stdint.h>

struct geometry;

struct field {
    struct lattice lat;
    int nc;    /* N of SU(N) */
    int prec;  /* 64: d holds the links; 32: f does */
    double *d;
    float *f;
    /* NULL: lat is the whole lattice.  Else this rank's slab of the
     * lattice d->global with halo slices, lat == d->local (geometry.h). */
    const struct geometry *dom;
};

/* reals per link matrix: 2 N^2 */
static inline size_t field_link_reals(int nc) { return (size_t)2 * nc * nc; }
static inline size_t field_reals(const struct field *u)
{ return (size_t)u->lat.V * LAT_ND * field_link_reals(u->nc); }

/* pointer to the 2N^2 reals of U_mu(site) (double field) */
static inline double *field_link(const struct field *u, int64_t site, int mu)
{ return u->d + ((size_t)site * LAT_ND + mu) * field_link_reals(u->nc); }
static inline float *field_link_f(const struct field *u, int64_t site, int mu)
{ return u->f + ((size_t)site * LAT_ND + mu) * field_link_reals(u->nc); }

void field_alloc(struct field *u, const struct lattice *lat, int nc, int prec);
void field_free(struct field *u);
void field_copy(struct field *dst, const struct field *src); /* allocates dst */
void field_convert(struct field *u, int prec);                     /* in place */

void field_set_unit(struct field *u);
/* Haar-random SU(N) links from Philox (seed, global site, purpose
 * RNG_HOT_START); on a slab the halo slices get the same links as their
 * owners (drawn from the same counters) */
void field_set_random(struct field *u, uint64_t seed);

/* Returns the index of the first non-finite real, or -1 if all are finite. */
int64_t field_find_nonfinite(const struct field *u);

/* Haar-random SU(N) matrix m (n x n complex, interleaved) from a stream;
 * shared by the hot start and lat-randomize-orbit. */
struct lat_rng;
void sun_random_haar(int n, double *m, struct lat_rng *r);

#endif
