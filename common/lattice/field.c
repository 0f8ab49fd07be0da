/* field.c -- host fields of every kind: allocation, conversion between
 * storage precisions (double, single, half), unit and Haar-random starts,
 * a rank's slab (geometry_field_alloc); see field.h for the layout. */
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include "math/rng.h"
#include "math/sun.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void field_alloc_kind(struct field *u, enum field_kind kind, const struct lattice *lat, int nc, int prec)
{
    if (prec != 64 && prec != 32 && prec != 16) lat_die(1, NULL, "field_alloc: storage precision %d (64, 32 or 16)", prec);
    struct lattice shape = *lat; /* lat may point into *u (field_alloc(u, &u->lat, ...)) */
    memset(u, 0, sizeof *u);
    u->lat = shape;
    u->nc = nc;
    u->prec = prec;
    u->kind = kind;
    size_t n = field_reals(u);
    if (prec == 64) u->d = lat_calloc(n, sizeof(double));
    else if (prec == 32) u->f = lat_calloc(n, sizeof(float));
    else {
        u->h = lat_calloc(n, sizeof(int16_t));
        u->norm = lat_calloc((size_t)lat->V, sizeof(float));
    }
}

void field_alloc(struct field *u, const struct lattice *lat, int nc, int prec)
{
    field_alloc_kind(u, FIELD_LINKS, lat, nc, prec);
}

void field_free(struct field *u)
{
    free(u->d);
    free(u->f);
    free(u->h);
    free(u->norm);
    u->d = NULL;
    u->f = NULL;
    u->h = NULL;
    u->norm = NULL;
}

/* Half precision: each site's reals as 16-bit fractions of the site's
 * largest |real| (norm), rounded to nearest; a site of zeros has norm 0.
 * The absolute error of a real is at most norm / 65534. */
#define HALF_MAX 32767.0
static double half_value(const struct field *u, size_t i, size_t sr)
{
    return u->h[i] * (double)u->norm[i / sr] / HALF_MAX;
}

double field_real(const struct field *u, size_t i)
{
    if (u->prec == 64) return u->d[i];
    if (u->prec == 32) return u->f[i];
    return half_value(u, i, field_site_reals(u->kind, u->nc));
}

/* dst (allocated, same shape) = src, element by element */
static void field_store(struct field *dst, const struct field *src)
{
    size_t sr = field_site_reals(src->kind, src->nc), n = field_reals(src);
    if (dst->prec != 16) {
        for (size_t i = 0; i < n; i++) {
            double x = field_real(src, i);
            if (dst->prec == 64) dst->d[i] = x;
            else dst->f[i] = (float)x;
        }
        return;
    }
    for (int64_t s = 0; s < src->lat.V; s++) {
        size_t i0 = (size_t)s * sr;
        double m = 0;
        for (size_t i = i0; i < i0 + sr; i++) m = fmax(m, fabs(field_real(src, i)));
        dst->norm[s] = (float)m;
        double scale = dst->norm[s] > 0 ? HALF_MAX / dst->norm[s] : 0;
        for (size_t i = i0; i < i0 + sr; i++) {
            double q = nearbyint(field_real(src, i) * scale);
            dst->h[i] = (int16_t)(q > HALF_MAX ? HALF_MAX : q < -HALF_MAX ? -HALF_MAX : q);
        }
    }
}

void field_copy_as(struct field *dst, const struct field *src, int prec)
{
    field_alloc_kind(dst, src->kind, &src->lat, src->nc, prec);
    dst->dom = src->dom;
    if (prec == src->prec) {
        size_t n = field_reals(src);
        if (prec == 64) memcpy(dst->d, src->d, n * sizeof(double));
        else if (prec == 32) memcpy(dst->f, src->f, n * sizeof(float));
        else {
            memcpy(dst->h, src->h, n * sizeof(int16_t));
            memcpy(dst->norm, src->norm, (size_t)src->lat.V * sizeof(float));
        }
    } else
        field_store(dst, src);
}

void field_copy(struct field *dst, const struct field *src) { field_copy_as(dst, src, src->prec); }

void field_convert(struct field *u, int prec)
{
    if (u->prec == prec) return;
    struct field t;
    field_copy_as(&t, u, prec);
    field_free(u);
    *u = t;
}

void field_set_unit(struct field *u)
{
    for (int64_t s = 0; s < u->lat.V; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            lat_complex *m = (lat_complex *)field_link(u, s, mu);
            sun_unit(u->nc, m);
        }
}

/* Haar measure on U(N) from Gram-Schmidt of a complex Gaussian matrix, then
 * divided by a root of its determinant: the result is Haar on SU(N) because
 * the map commutes with left multiplication by SU(N). */
void sun_random_haar(int n, double *md, struct lat_rng *r)
{
    lat_complex *m = (lat_complex *)md;
    for (int i = 0; i < n * n; i++) m[i] = c_make(rng_normal(r), rng_normal(r));
    /* Gram-Schmidt twice: one pass leaves ~1e-13 errors for N >= 4 */
    for (int pass = 0; pass < 2; pass++)
    for (int row = 0; row < n; row++) {
        for (int p = 0; p < row; p++) {
            lat_complex ov = c_make(0, 0);
            for (int k = 0; k < n; k++) ov = c_add(ov, c_cmul(m[p * n + k], m[row * n + k]));
            for (int k = 0; k < n; k++) m[row * n + k] = c_sub(m[row * n + k], c_mul(ov, m[p * n + k]));
        }
        double nr = 0;
        for (int k = 0; k < n; k++) nr += c_norm2(m[row * n + k]);
        nr = 1 / sqrt(nr);
        for (int k = 0; k < n; k++) m[row * n + k] = c_scale(nr, m[row * n + k]);
    }
    lat_complex d = sun_det(n, m);
    double phi = atan2(d.im, d.re) / n;
    lat_complex f = c_make(cos(phi), -sin(phi));
    for (int i = 0; i < n * n; i++) m[i] = c_mul(m[i], f);
}

void field_set_random(struct field *u, uint64_t seed)
{
    /* every site its own Philox stream: the threads give the same bits */
#pragma omp parallel for schedule(static) if (u->lat.V >= 1024)
    for (int64_t s = 0; s < u->lat.V; s++) {
        struct lat_rng r;
        rng_init(&r, seed, 0, (uint64_t)geometry_any_global_site(u->dom, s), 0, RNG_HOT_START);
        for (int mu = 0; mu < LAT_ND; mu++) sun_random_haar(u->nc, field_link(u, s, mu), &r);
    }
}

int64_t field_find_nonfinite(const struct field *u)
{
    size_t n = field_reals(u);
    for (size_t i = 0; i < n; i++) {
        if (u->prec == 16) {
            if (i % field_site_reals(u->kind, u->nc) == 0 && !isfinite(u->norm[i / field_site_reals(u->kind, u->nc)]))
                return (int64_t)i;
            continue;
        }
        double x = u->prec == 64 ? u->d[i] : u->f[i];
        if (!isfinite(x)) return (int64_t)i;
    }
    return -1;
}

/* declared in geometry.h beside the slabs it allocates for; defined here,
 * with field_alloc, so that geometry.c needs nothing of this file */
void geometry_field_alloc(struct field *u, const struct geometry *d, const struct lattice *glob, int nc, int prec)
{
    field_alloc(u, d ? &d->local : glob, nc, prec);
    u->dom = d;
}
