/* field.c -- host gauge fields: allocation, conversion, unit and Haar-random
 * starts; see field.h for the layout. */
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include "math/rng.h"
#include "math/sun.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void field_alloc(struct field *u, const struct lattice *lat, int nc, int prec)
{
    u->lat = *lat;
    u->nc = nc;
    u->prec = prec;
    u->d = NULL;
    u->f = NULL;
    u->dom = NULL;
    size_t n = field_reals(u);
    if (prec == 64) u->d = lat_calloc(n, sizeof(double));
    else u->f = lat_calloc(n, sizeof(float));
}

void field_free(struct field *u)
{
    free(u->d);
    free(u->f);
    u->d = NULL;
    u->f = NULL;
}

void field_copy(struct field *dst, const struct field *src)
{
    field_alloc(dst, &src->lat, src->nc, src->prec);
    size_t n = field_reals(src);
    if (src->prec == 64) memcpy(dst->d, src->d, n * sizeof(double));
    else memcpy(dst->f, src->f, n * sizeof(float));
    dst->dom = src->dom;
}

void field_convert(struct field *u, int prec)
{
    if (u->prec == prec) return;
    size_t n = field_reals(u);
    if (prec == 32) {
        u->f = lat_malloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) u->f[i] = (float)u->d[i];
        free(u->d);
        u->d = NULL;
    } else {
        u->d = lat_malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) u->d[i] = u->f[i];
        free(u->f);
        u->f = NULL;
    }
    u->prec = prec;
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
        double x = u->prec == 64 ? u->d[i] : u->f[i];
        if (!isfinite(x)) return (int64_t)i;
    }
    return -1;
}
