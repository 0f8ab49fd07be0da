/* geometry.h -- the slab of timeslices one rank holds when a program runs on
 * R MPI ranks (comm.h), and the moves of links between ranks.
 *
 * The lattice is cut along t: rank r owns the global timeslices
 * t0 = r*Lt/R .. t0+lt-1 (lt = Lt/R, any lt >= 1).  Its field (a
 * gauge_field with dom set) has the local lattice Lx x Ly x Lz x (lt+2):
 * local slice 0 is the halo copy of global slice t0-1, slices 1..lt are
 * owned, slice lt+1 is the halo copy of t0+lt (both modulo Lt).  Because
 * ILDG order runs t slowest, every slice is one contiguous block.
 *
 * Everything that depends on a site's place in the whole lattice uses the
 * global site (geometry_global_site): random-number counters, parity,
 * per-timeslice sums.  So each owned site sees exactly the arithmetic it
 * would see on one rank, and outputs do not depend on R.
 *
 * With one rank no domain exists (gauge_field.dom == NULL) and the field is
 * the whole periodic lattice; the helpers below accept dom == NULL and then
 * describe that. */
#ifndef LAT_GEOMETRY_H
#define LAT_GEOMETRY_H

#include "base/comm.h"
#include "lattice/sites.h"
#include <stddef.h>
#include <stdint.h>

struct field;

struct geometry {
    struct lattice global; /* the whole lattice */
    struct lattice local;  /* Lx, Ly, Lz, lt+2 */
    int rank, size;
    /* the process grid and this rank's place in it: ready for a 4-D
     * decomposition, today {1, 1, 1, R} (t-slabs) */
    int grid[LAT_ND], coord[LAT_ND];
    int halo;              /* halo depth in slices on each cut side: 1 */
    int parity0;           /* global parity of local site 0 (local parity ^ parity0 = global) */
    int t0, lt;            /* owned global timeslices t0 .. t0+lt-1 */
    int64_t v3;            /* sites per timeslice */
};

/* The domain of this rank for the lattice glob; NULL when the run has one
 * rank.  Dies (exit 1, on every rank alike) when R does not divide Lt. */
const struct geometry *geometry_for(const struct lattice *glob);

/* owned local timeslices [geometry_t_begin, geometry_t_end) of a field on lat */
static inline int geometry_t_begin(const struct geometry *d) { return d ? 1 : 0; }
static inline int geometry_t_end(const struct geometry *d, const struct lattice *lat) { return d ? d->lt + 1 : lat->L[3]; }
/* global timeslice of local slice t (owned slices) */
static inline int geometry_t_global(const struct geometry *d, int t) { return d ? d->t0 + t - 1 : t; }
/* global site of a local site of an owned slice */
static inline int64_t geometry_global_site(const struct geometry *d, int64_t s)
{ return d ? s + (int64_t)(d->t0 - 1) * d->v3 : s; }
/* global site of any local site, halo slices included (periodic in t) */
static inline int64_t geometry_any_global_site(const struct geometry *d, int64_t s)
{
    if (!d) return s;
    int Lt = d->global.L[3], t = (int)(s / d->v3);
    return s % d->v3 + (int64_t)(((d->t0 - 1 + t) % Lt + Lt) % Lt) * d->v3;
}
/* parity (x+y+z+t global) of a local site */
static inline int geometry_parity(const struct geometry *d, const struct lattice *lat, int64_t s)
{ return lattice_parity(lat, s) ^ (d ? d->parity0 : 0); }
/* the global lattice of a field's lattice */
static inline const struct lattice *geometry_global(const struct geometry *d, const struct lattice *lat)
{ return d ? &d->global : lat; }

/* Rank 0's whole-lattice array (site-major, site_reals doubles per site)
 * to every rank's slab with both halo slices, and back (owned slices only).
 * full is only read/written on rank 0. */
void geometry_scatter(const struct geometry *d, const double *full, double *local, size_t site_reals);
void geometry_gather(const struct geometry *d, const double *local, double *full, size_t site_reals);

#include "lattice/halo.h"

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

/* A field for this rank: the whole lattice (d NULL) or the slab of d. */
void geometry_field_alloc(struct field *u, const struct geometry *d, const struct lattice *glob, int nc, int prec);

#ifdef __cplusplus
}
#endif

#endif
