/* gpu_fields.h -- inputs for the GPU checks and the GPU benchmark, made fast
 * on the host (OpenMP) from Philox streams (purpose RNG_TEST):
 *   fields_haar    Haar-random links (a hot start)
 *   fields_weak    U = P_SU(N)(1 + a R), R Haar: a smooth field
 *   fields_orbit   a Haar-random gauge transformation applied (lat-randomize-orbit)
 *   fields_pure    U_mu(x) = h(x) h(x+mu)^dag: a pure gauge
 * and rel_diff, the largest ||A - B||_F / ||B||_F over the links of two fields.
 * The same (seed, size) always gives the same field. */
#ifndef LAT_GPU_FIELDS_H
#define LAT_GPU_FIELDS_H

#include "lattice/field.h"
#include "lattice/gauge_transform.h"
#include "math/rng.h"
#include "math/sun.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static inline void fields_lattice(struct lattice *lat, int l, int lt)
{
    int L[4] = {l, l, l, lt};
    const char *why = NULL;
    if (lattice_init(lat, L, &why) != 0) { fprintf(stderr, "lattice_init: %s\n", why); exit(1); }
}

static inline void fields_haar(struct field *u, const struct lattice *lat, int nc, uint64_t seed)
{
    field_alloc(u, lat, nc, 64);
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < lat->V; x++)
        for (int mu = 0; mu < 4; mu++) {
            struct lat_rng r;
            rng_init(&r, seed, 7, (uint64_t)x * 4 + mu, 0, RNG_TEST);
            sun_random_haar(nc, field_link(u, x, mu), &r);
        }
}

static inline void fields_weak(struct field *u, const struct lattice *lat, int nc, double a, uint64_t seed)
{
    fields_haar(u, lat, nc, seed);
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < lat->V; x++)
        for (int mu = 0; mu < 4; mu++) sun_near_unit(nc, (lat_complex *)field_link(u, x, mu), a);
}

static inline void fields_orbit(struct field *u, uint64_t seed)
{
    double *g = (double *)malloc((size_t)u->lat.V * field_link_reals(u->nc) * sizeof(double));
    gauge_transform_random(u->nc, u->lat.V, seed, 3, g);
    gauge_transform_apply(u, g);
    free(g);
}

static inline void fields_pure(struct field *u, const struct lattice *lat, int nc, uint64_t seed)
{
    field_alloc(u, lat, nc, 64);
    field_set_unit(u);
    fields_orbit(u, seed);
}

/* ||A - B||_F / ||B||_F of link (x, mu) */
static inline double link_rel_diff(const struct field *a, const struct field *b, int64_t x, int mu)
{
    size_t lr = field_link_reals(a->nc);
    const double *p = field_link(a, x, mu), *q = field_link(b, x, mu);
    double d = 0, n = 0;
    for (size_t k = 0; k < lr; k++) {
        d += (p[k] - q[k]) * (p[k] - q[k]);
        n += q[k] * q[k];
    }
    return sqrt(d / n);
}

static inline double rel_diff(const struct field *a, const struct field *b)
{
    double worst = 0;
    for (int64_t x = 0; x < a->lat.V; x++)
        for (int mu = 0; mu < 4; mu++) {
            double r = link_rel_diff(a, b, x, mu);
            if (!(r <= worst)) worst = r; /* NaN wins */
        }
    return worst;
}

#endif
