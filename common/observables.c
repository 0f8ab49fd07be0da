/* observables.c -- plaquette, link trace, Polyakov loop and unitarity
 * deviation of a host gauge field; see observables.h for the definitions.
 *
 * Contract: any N (1 <= nc <= LAT_NC_MAX), double or single fields (a single
 * field is measured through a temporary double copy).  Every sum is
 * deterministic: per-site values are formed in double and added in site order
 * into a long double accumulator, so the result does not depend on anything
 * but the field.  SU(3) takes a separately instantiated code path with the
 * constant 3, so the sun.h loops are unrolled. */
#include "observables.h"
#include "log.h"
#include "sun.h"
#include <math.h>

#if defined(__GNUC__)
#define OBS_INLINE static inline __attribute__((always_inline))
#else
#define OBS_INLINE static inline
#endif

/* The field as double precision: u itself, or a converted copy in *tmp. */
static const struct gauge_field *as_double(const struct gauge_field *u, struct gauge_field *tmp, int *made)
{
    if (u->nc < 1 || u->nc > LAT_NC_MAX)
        lat_die(1, NULL, "internal error: measuring SU(%d), supported are N = 1..%d", u->nc, LAT_NC_MAX);
    *made = 0;
    if (u->prec == 64) return u;
    field_copy(tmp, u);
    field_convert(tmp, 64);
    *made = 1;
    return tmp;
}

static inline const lat_complex *link(const struct gauge_field *u, int64_t s, int mu)
{
    return (const lat_complex *)field_link(u, s, mu);
}

/* ---- plaquette ------------------------------------------------------------ */

/* Sums over all sites of the spatial (mu<nu<3) and temporal (nu=3) plaquette
 * traces Re tr[U_mu(x) U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag]. */
OBS_INLINE void plaquette_sums(const struct gauge_field *u, int n, long double *sp, long double *tm)
{
    lat_complex a[LAT_NC_MAX * LAT_NC_MAX], b[LAT_NC_MAX * LAT_NC_MAX];
    long double ssum = 0, tsum = 0;
    for (int64_t s = 0; s < u->lat.V; s++) {
        int64_t fwd[LAT_ND];
        for (int mu = 0; mu < LAT_ND; mu++) fwd[mu] = lattice_neighbour(&u->lat, s, mu, +1);
        double ps = 0, pt = 0;
        for (int mu = 0; mu < LAT_ND; mu++)
            for (int nu = mu + 1; nu < LAT_ND; nu++) {
                sun_mul(n, a, link(u, s, mu), link(u, fwd[mu], nu)); /* U_mu(x) U_nu(x+mu) */
                sun_mul(n, b, link(u, s, nu), link(u, fwd[nu], mu)); /* U_nu(x) U_mu(x+nu) */
                double p = sun_retrace_mul_nd(n, a, b);
                if (nu == LAT_ND - 1) pt += p;
                else ps += p;
            }
        ssum += ps;
        tsum += pt;
    }
    *sp = ssum;
    *tm = tsum;
}

struct plaquette measure_plaquette(const struct gauge_field *u0)
{
    struct gauge_field tmp;
    int made;
    const struct gauge_field *u = as_double(u0, &tmp, &made);
    long double sp, tm;
    if (u->nc == 3) plaquette_sums(u, 3, &sp, &tm);
    else if (u->nc == 2) plaquette_sums(u, 2, &sp, &tm);
    else plaquette_sums(u, u->nc, &sp, &tm);
    long double nv = (long double)u->nc * (long double)u->lat.V;
    struct plaquette p;
    p.all = (double)((sp + tm) / (6 * nv));
    p.spatial = (double)(sp / (3 * nv));
    p.temporal = (double)(tm / (3 * nv));
    if (made) field_free(&tmp);
    return p;
}

/* ---- link trace ----------------------------------------------------------- */

OBS_INLINE long double link_trace_sum(const struct gauge_field *u, int n)
{
    long double sum = 0;
    for (int64_t s = 0; s < u->lat.V; s++) {
        double t = 0;
        for (int mu = 0; mu < LAT_ND; mu++) t += sun_retrace(n, link(u, s, mu));
        sum += t;
    }
    return sum;
}

double measure_link_trace(const struct gauge_field *u0)
{
    struct gauge_field tmp;
    int made;
    const struct gauge_field *u = as_double(u0, &tmp, &made);
    long double sum = u->nc == 3 ? link_trace_sum(u, 3) : link_trace_sum(u, u->nc);
    double r = (double)(sum / (4.0L * u->nc * (long double)u->lat.V));
    if (made) field_free(&tmp);
    return r;
}

/* ---- Polyakov loop -------------------------------------------------------- */

/* Sum over spatial sites of tr prod_{t=0}^{Lt-1} U_t(xvec, t). */
OBS_INLINE void polyakov_sum(const struct gauge_field *u, int n, long double *re, long double *im)
{
    lat_complex p[LAT_NC_MAX * LAT_NC_MAX], q[LAT_NC_MAX * LAT_NC_MAX];
    int64_t v3 = u->lat.V / u->lat.L[3];
    long double sre = 0, sim = 0;
    for (int64_t s3 = 0; s3 < v3; s3++) {
        sun_copy(n, p, link(u, s3, 3));
        for (int t = 1; t < u->lat.L[3]; t++) {
            sun_mul(n, q, p, link(u, s3 + v3 * t, 3));
            sun_copy(n, p, q);
        }
        lat_complex tr = sun_trace(n, p);
        sre += tr.re;
        sim += tr.im;
    }
    *re = sre;
    *im = sim;
}

void measure_polyakov(const struct gauge_field *u0, double *re, double *im)
{
    struct gauge_field tmp;
    int made;
    const struct gauge_field *u = as_double(u0, &tmp, &made);
    long double sre, sim;
    if (u->nc == 3) polyakov_sum(u, 3, &sre, &sim);
    else polyakov_sum(u, u->nc, &sre, &sim);
    long double norm = (long double)u->nc * (long double)(u->lat.V / u->lat.L[3]);
    *re = (double)(sre / norm);
    *im = (double)(sim / norm);
    if (made) field_free(&tmp);
}

/* ---- unitarity ------------------------------------------------------------ */

OBS_INLINE void unitarity_sums(const struct gauge_field *u, int n, struct unitarity *r)
{
    long double usum = 0, dsum = 0;
    double umax = 0, dmax = 0;
    for (int64_t s = 0; s < u->lat.V; s++) {
        double us = 0, ds = 0;
        for (int mu = 0; mu < LAT_ND; mu++) {
            const lat_complex *m = link(u, s, mu);
            double du = sun_unitarity_dev(n, m);
            lat_complex d = sun_det(n, m);
            double dd = hypot(d.re - 1, d.im);
            /* NaN compares false: make a non-finite link the maximum */
            if (du > umax || isnan(du)) umax = du;
            if (dd > dmax || isnan(dd)) dmax = dd;
            us += du;
            ds += dd;
        }
        usum += us;
        dsum += ds;
    }
    long double links = 4.0L * (long double)u->lat.V;
    r->mean = (double)(usum / links);
    r->det_mean = (double)(dsum / links);
    r->max = umax;
    r->det_max = dmax;
}

struct unitarity measure_unitarity(const struct gauge_field *u0)
{
    struct gauge_field tmp;
    int made;
    const struct gauge_field *u = as_double(u0, &tmp, &made);
    struct unitarity r;
    if (u->nc == 3) unitarity_sums(u, 3, &r);
    else unitarity_sums(u, u->nc, &r);
    if (made) field_free(&tmp);
    return r;
}
