/* gauge_transform.h -- gauge transformations g(x) of host fields: applying,
 * composing, identity and Haar-random ones.
 *
 * A transformation is an array of V * 2*nc*nc doubles: for every site in
 * ILDG site order (x fastest) the nc x nc complex matrix g(x), row-major, real
 * then imaginary -- the layout of struct conf.transform (conf.h) and of the
 * lat-gauge-transform record.  All functions are deterministic and any
 * number of OpenMP threads gives the same bits.
 *
 *   gauge_transform_apply    U_mu(x) -> g(x) U_mu(x) g(x+mu)^dag  (SPEC §3),
 *                            double fields only, in place
 *   gauge_transform_apply_time  the same for mu = t only: how Coulomb
 *                            gauge moves the time links once at the end
 *                            (common/gaugefix.h); on a slab it first
 *                            fills g's halo slices from their owners
 *   gauge_transform_compose  acc(x) -> g(x) acc(x): the accumulated
 *                            transformation after applying g on top of acc
 *   gauge_transform_random   g(x) Haar-random in SU(nc), drawn by
 *                            sun_random_haar from the Philox stream
 *                            (seed, copy, x, sweep 0, RNG_ORBIT): the random
 *                            orbit point of lat-randomize-orbit */
#ifndef LAT_GAUGE_TRANSFORM_H
#define LAT_GAUGE_TRANSFORM_H

#include "lattice/field.h"
#include <stdint.h>

void gauge_transform_identity(int nc, int64_t V, double *g);
void gauge_transform_random(int nc, int64_t V, uint64_t seed, uint32_t copy, double *g);
/* the same for this rank's field u (V = u->lat.V sites; on a slab every
 * site, halos included, gets the g of its global site) */
void gauge_transform_random_field(const struct field *u, uint64_t seed, uint32_t copy, double *g);
void gauge_transform_apply(struct field *u, const double *g);
void gauge_transform_apply_time(struct field *u, double *g);
void gauge_transform_compose(int nc, int64_t V, double *acc, const double *g);

#endif
