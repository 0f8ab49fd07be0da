/* field.h -- the host field: gauge links, gauge transformations, colour
 * vectors, spinors and algebra-valued momenta in one type.
 *
 * A field holds, for every site of its lattice (ILDG order: x fastest, then
 * y, z, t), the reals of its kind (field_site_reals):
 *   FIELD_LINKS      U_mu(x), mu = x,y,z,t: 4 N x N complex matrices
 *   FIELD_TRANSFORM  g(x): one N x N complex matrix
 *   FIELD_COLOUR     a colour vector: N complex numbers
 *   FIELD_SPINOR     a Dirac spinor: 4 spins x N colours, spin slowest
 *   FIELD_MOMENTUM   P_mu(x) in su(N): 4 x (N^2 - 1) real coefficients
 * matrices row-major, complex numbers re then im.
 *
 * Storage precision is a property of the field (prec): 64 (double, d), 32
 * (single, f) or 16 (half: h holds 16-bit fixed point x/norm*32767 and norm
 * one float per site, the largest |real| of the site -- the seed paper's
 * §V.C half precision).  The compute precision is a separate choice of the
 * algorithm that reads the field (gauge fixing: gf_params.prec), so one
 * function can hold fields of two precisions (field_copy_as).  I/O and
 * measurements work on double fields.
 *
 * The field carries its geometry: lat is the lattice this process stores
 * (with halo slices on a slab), dom the decomposition over MPI ranks
 * (lattice/geometry.h: global extents, process grid, halo depth, parity of
 * local site 0); dom NULL means one process holding the whole periodic
 * lattice. */
#ifndef LAT_FIELD_H
#define LAT_FIELD_H

#include "lattice/sites.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

struct geometry;

enum field_kind { FIELD_LINKS = 0, FIELD_TRANSFORM, FIELD_COLOUR, FIELD_SPINOR, FIELD_MOMENTUM };

struct field {
    struct lattice lat;
    int nc;    /* N of SU(N) */
    int prec;  /* storage: 64 (d), 32 (f) or 16 (h + norm) */
    double *d;
    float *f;
    /* NULL: lat is the whole lattice.  Else this rank's slab of the
     * lattice d->global with halo slices, lat == d->local (geometry.h). */
    const struct geometry *dom;
    enum field_kind kind; /* 0 = FIELD_LINKS: what a zeroed field is */
    int16_t *h;
    float *norm;
};

/* reals per link matrix: 2 N^2 */
static inline size_t field_link_reals(int nc) { return (size_t)2 * nc * nc; }
/* reals per site of a field of this kind */
static inline size_t field_site_reals(enum field_kind k, int nc)
{
    switch (k) {
    case FIELD_LINKS: return LAT_ND * field_link_reals(nc);
    case FIELD_TRANSFORM: return field_link_reals(nc);
    case FIELD_COLOUR: return (size_t)2 * nc;
    case FIELD_SPINOR: return (size_t)2 * 4 * nc;
    default: return (size_t)LAT_ND * (size_t)(nc * nc - 1);
    }
}
static inline size_t field_reals(const struct field *u)
{ return (size_t)u->lat.V * field_site_reals(u->kind, u->nc); }

/* pointer to the 2N^2 reals of U_mu(site) (double links field) */
static inline double *field_link(const struct field *u, int64_t site, int mu)
{ return u->d + ((size_t)site * LAT_ND + mu) * field_link_reals(u->nc); }
static inline float *field_link_f(const struct field *u, int64_t site, int mu)
{ return u->f + ((size_t)site * LAT_ND + mu) * field_link_reals(u->nc); }
/* pointer to the reals of a site (double field of any kind) */
static inline double *field_site(const struct field *u, int64_t site)
{ return u->d + (size_t)site * field_site_reals(u->kind, u->nc); }

/* a zeroed field of links (field_alloc) or of any kind, storage prec 64,
 * 32 or 16; dom NULL */
void field_alloc(struct field *u, const struct lattice *lat, int nc, int prec);
void field_alloc_kind(struct field *u, enum field_kind kind, const struct lattice *lat, int nc, int prec);
void field_free(struct field *u);
void field_copy(struct field *dst, const struct field *src); /* allocates dst */
/* dst (allocated here) = src stored in precision prec: the conversion a
 * mixed-precision algorithm makes between its two fields */
void field_copy_as(struct field *dst, const struct field *src, int prec);
void field_convert(struct field *u, int prec);                     /* in place */
/* the value of real i (any storage precision), as a double */
double field_real(const struct field *u, size_t i);

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

#ifdef __cplusplus
}
#endif

#endif
