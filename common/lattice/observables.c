/* observables.c -- plaquette, link trace, Polyakov loop and unitarity
 * deviation of a host gauge field; see observables.h for the definitions.
 *
 * Contract: any N (1 <= nc <= LAT_NC_MAX), double or single fields (a single
 * field is measured through a temporary double copy).  Every sum is
 * deterministic: every timeslice is cut into fixed chunks of at most
 * OBS_CHUNK sites (in site order); within a chunk per-site values (double)
 * are added in site order into a long double, and the chunk sums are added
 * in chunk order (t slowest).  Chunks may run on any number of OpenMP
 * threads or MPI ranks (a slab field, geometry.h: each rank fills the chunks
 * of its timeslices, comm_sum_ld adds the others' zeros): the result
 * depends only on the field.  SU(3) (and SU(2)) take separately instantiated code paths with the
 * constant N, so the sun.h loops are unrolled.  The per-site formulas are
 * those of lattice/observables_site.h, shared with the GPU kernel
 * (kernels/gpu/observables.cu).
 * Exported: measure_plaquette, measure_link_trace, measure_polyakov,
 * measure_unitarity (observables.h). */
#include "lattice/observables.h"
#include "lattice/observables_site.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include "math/sun.h"
#include <math.h>
#include <stdlib.h>

#define OBS_CHUNK 512

/* number of chunks of OBS_CHUNK sites among n sites */
static int64_t nchunks(int64_t n) { return (n + OBS_CHUNK - 1) / OBS_CHUNK; }

/* sum of a[0..n) in index order */
static long double sum_ordered(const long double *a, int64_t n)
{
    long double s = 0;
    for (int64_t i = 0; i < n; i++) s += a[i];
    return s;
}

/* The chunks of a field: cps per timeslice, numbered tg*cps + j by global
 * timeslice tg; this rank computes those of its local slices tb..te-1. */
struct chunks {
    const struct geometry *d;
    int64_t v3, cps, n; /* sites per slice, chunks per slice, chunks in all */
    int tb, te;
};

static struct chunks chunks_of(const struct field *u, int64_t v3)
{
    struct chunks c;
    c.d = u->dom;
    c.v3 = v3;
    c.cps = nchunks(v3);
    c.n = c.cps * geometry_global(u->dom, &u->lat)->L[3];
    c.tb = geometry_t_begin(u->dom);
    c.te = geometry_t_end(u->dom, &u->lat);
    return c;
}

/* the local sites [*begin, *end) and global chunk number of the k-th chunk
 * this rank computes (0 <= k < (te-tb)*cps) */
static int64_t chunk_at(const struct chunks *c, int64_t k, int64_t *begin, int64_t *end)
{
    int t = c->tb + (int)(k / c->cps);
    int64_t j = k % c->cps;
    *begin = t * c->v3 + j * OBS_CHUNK;
    *end = *begin + OBS_CHUNK < (t + 1) * c->v3 ? *begin + OBS_CHUNK : (t + 1) * c->v3;
    return geometry_t_global(c->d, t) * c->cps + j;
}
static int64_t chunks_here(const struct chunks *c) { return (int64_t)(c->te - c->tb) * c->cps; }

#if defined(__GNUC__)
#define OBS_INLINE static inline __attribute__((always_inline))
#else
#define OBS_INLINE static inline
#endif

/* The field as double precision: u itself, or a converted copy in *tmp. */
static const struct field *as_double(const struct field *u, struct field *tmp, int *made)
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

static inline const lat_complex *link(const struct field *u, int64_t s, int mu)
{
    return (const lat_complex *)field_link(u, s, mu);
}

/* ---- plaquette ------------------------------------------------------------ */

/* Sums over all sites of the spatial (mu<nu<3) and temporal (nu=3) plaquette
 * traces Re tr[U_mu(x) U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag]. */
OBS_INLINE void plaquette_sums(const struct field *u, int n, long double *sp, long double *tm)
{
    struct chunks ch = chunks_of(u, u->lat.V / u->lat.L[3]);
    const int64_t nch = ch.n;
    long double *cs = lat_calloc((size_t)nch * 2, sizeof(long double)), *ct = cs + nch;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < chunks_here(&ch); k++) {
        long double ssum = 0, tsum = 0;
        int64_t begin, end, c = chunk_at(&ch, k, &begin, &end);
        for (int64_t s = begin; s < end; s++) {
            const lat_complex *ux[LAT_ND], *fwd[LAT_ND][LAT_ND];
            for (int mu = 0; mu < LAT_ND; mu++) {
                int64_t f = lattice_neighbour(&u->lat, s, mu, +1);
                ux[mu] = link(u, s, mu);
                for (int nu = 0; nu < LAT_ND; nu++) fwd[mu][nu] = link(u, f, nu); /* U_nu(x+mu) */
            }
            double ps, pt;
            obs_site_plaquettes(n, ux, fwd, &ps, &pt);
            ssum += ps;
            tsum += pt;
        }
        cs[c] = ssum;
        ct[c] = tsum;
    }
    if (ch.d) comm_sum_ld(cs, (size_t)nch * 2);
    *sp = sum_ordered(cs, nch);
    *tm = sum_ordered(ct, nch);
    free(cs);
}

/* the sums for the field's N (2 and 3 instantiated with a constant N) */
static void plaquette_sums_n(const struct field *u, long double *sp, long double *tm)
{
    if (u->nc == 3) plaquette_sums(u, 3, sp, tm);
    else if (u->nc == 2) plaquette_sums(u, 2, sp, tm);
    else plaquette_sums(u, u->nc, sp, tm);
}

long double measure_plaquette_sum(const struct field *u0)
{
    struct field tmp;
    int made;
    const struct field *u = as_double(u0, &tmp, &made);
    long double sp, tm;
    plaquette_sums_n(u, &sp, &tm);
    if (made) field_free(&tmp);
    return sp + tm;
}

struct plaquette measure_plaquette(const struct field *u0)
{
    struct field tmp;
    int made;
    const struct field *u = as_double(u0, &tmp, &made);
    long double sp, tm;
    plaquette_sums_n(u, &sp, &tm);
    long double nv = (long double)u->nc * (long double)geometry_global(u->dom, &u->lat)->V;
    struct plaquette p;
    p.all = (double)((sp + tm) / (6 * nv));
    p.spatial = (double)(sp / (3 * nv));
    p.temporal = (double)(tm / (3 * nv));
    if (made) field_free(&tmp);
    return p;
}

/* ---- link trace ----------------------------------------------------------- */

OBS_INLINE long double link_trace_sum(const struct field *u, int n)
{
    struct chunks ch = chunks_of(u, u->lat.V / u->lat.L[3]);
    const int64_t nch = ch.n;
    long double *cs = lat_calloc((size_t)nch, sizeof(long double));
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < chunks_here(&ch); k++) {
        long double sum = 0;
        int64_t begin, end, c = chunk_at(&ch, k, &begin, &end);
        for (int64_t s = begin; s < end; s++) {
            const lat_complex *ux[LAT_ND];
            for (int mu = 0; mu < LAT_ND; mu++) ux[mu] = link(u, s, mu);
            sum += obs_site_link_trace(n, ux);
        }
        cs[c] = sum;
    }
    if (ch.d) comm_sum_ld(cs, (size_t)nch);
    long double sum = sum_ordered(cs, nch);
    free(cs);
    return sum;
}

double measure_link_trace(const struct field *u0)
{
    struct field tmp;
    int made;
    const struct field *u = as_double(u0, &tmp, &made);
    long double sum = u->nc == 3 ? link_trace_sum(u, 3) : link_trace_sum(u, u->nc);
    double r = (double)(sum / (4.0L * u->nc * (long double)geometry_global(u->dom, &u->lat)->V));
    if (made) field_free(&tmp);
    return r;
}

/* ---- Polyakov loop -------------------------------------------------------- */

/* Sum over spatial sites of tr prod_{t=0}^{Lt-1} U_t(xvec, t).  On slabs
 * the running products travel from rank to rank in t order, so every
 * product is formed in the same order as on one rank; the last rank sums
 * the traces and tells everyone. */
OBS_INLINE void polyakov_sum(const struct field *u, int n, long double *re, long double *im)
{
    const struct geometry *d = u->dom;
    const int64_t v3 = u->lat.V / u->lat.L[3], nch = nchunks(v3);
    const int tb = geometry_t_begin(d), te = geometry_t_end(d, &u->lat);
    const size_t mr = 2 * (size_t)n * n;
    const int first = !d || d->rank == 0, last = !d || d->rank == d->size - 1;
    double *run = lat_malloc(sizeof(double) * (size_t)v3 * mr); /* the products so far */
    if (!first) comm_recv(run, sizeof(double) * (size_t)v3 * mr, d->rank - 1, 13);
#pragma omp parallel for schedule(static)
    for (int64_t s3 = 0; s3 < v3; s3++) {
        lat_complex *p = (lat_complex *)(run + (size_t)s3 * mr);
        int t = tb;
        if (first) obs_polyakov_start(n, p, link(u, s3 + v3 * t++, 3));
        for (; t < te; t++) obs_polyakov_mul(n, p, link(u, s3 + v3 * t, 3));
    }
    long double sums[2] = {0, 0};
    if (!last) comm_send(run, sizeof(double) * (size_t)v3 * mr, d->rank + 1, 13);
    else {
        long double *cr = lat_malloc(sizeof(long double) * (size_t)nch * 2), *ci = cr + nch;
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < nch; c++) {
            long double sre = 0, sim = 0;
            int64_t end = (c + 1) * OBS_CHUNK < v3 ? (c + 1) * OBS_CHUNK : v3;
            for (int64_t s3 = c * OBS_CHUNK; s3 < end; s3++) {
                lat_complex tr = sun_trace(n, (const lat_complex *)(run + (size_t)s3 * mr));
                sre += tr.re;
                sim += tr.im;
            }
            cr[c] = sre;
            ci[c] = sim;
        }
        sums[0] = sum_ordered(cr, nch);
        sums[1] = sum_ordered(ci, nch);
        free(cr);
    }
    if (d) comm_bcast(sums, sizeof sums, d->size - 1);
    *re = sums[0];
    *im = sums[1];
    free(run);
}

void measure_polyakov(const struct field *u0, double *re, double *im)
{
    struct field tmp;
    int made;
    const struct field *u = as_double(u0, &tmp, &made);
    long double sre, sim;
    if (u->nc == 3) polyakov_sum(u, 3, &sre, &sim);
    else polyakov_sum(u, u->nc, &sre, &sim);
    long double norm = (long double)u->nc * (long double)(u->lat.V / u->lat.L[3]); /* V3: the same on slabs */
    *re = (double)(sre / norm);
    *im = (double)(sim / norm);
    if (made) field_free(&tmp);
}

/* ---- unitarity ------------------------------------------------------------ */

/* the larger of a and b, NaN if either is NaN (a non-finite link shows) */
#define max_nan obs_max_nan

OBS_INLINE void unitarity_sums(const struct field *u, int n, struct unitarity *r)
{
    struct chunks ch = chunks_of(u, u->lat.V / u->lat.L[3]);
    const int64_t nch = ch.n;
    long double *cu = lat_calloc((size_t)nch * 2, sizeof(long double)), *cd = cu + nch;
    double *mu_ = lat_calloc((size_t)nch * 2, sizeof(double)), *md = mu_ + nch;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < chunks_here(&ch); k++) {
        long double usum = 0, dsum = 0;
        double umax = 0, dmax = 0;
        int64_t begin, end, c = chunk_at(&ch, k, &begin, &end);
        for (int64_t s = begin; s < end; s++) {
            double us = 0, ds = 0;
            for (int mu = 0; mu < LAT_ND; mu++) {
                double du, dd;
                obs_link_unitarity(n, link(u, s, mu), &du, &dd);
                umax = max_nan(umax, du);
                dmax = max_nan(dmax, dd);
                us += du;
                ds += dd;
            }
            usum += us;
            dsum += ds;
        }
        cu[c] = usum;
        cd[c] = dsum;
        mu_[c] = umax;
        md[c] = dmax;
    }
    if (ch.d) {
        comm_sum_ld(cu, (size_t)nch * 2);
        comm_sum(mu_, (size_t)nch * 2);
    } /* one rank's value per chunk, NaN stays NaN */
    double umax = 0, dmax = 0;
    for (int64_t c = 0; c < nch; c++) {
        umax = max_nan(umax, mu_[c]);
        dmax = max_nan(dmax, md[c]);
    }
    long double links = 4.0L * (long double)geometry_global(u->dom, &u->lat)->V;
    r->mean = (double)(sum_ordered(cu, nch) / links);
    r->det_mean = (double)(sum_ordered(cd, nch) / links);
    r->max = umax;
    r->det_max = dmax;
    free(cu);
    free(mu_);
}

struct unitarity measure_unitarity(const struct field *u0)
{
    struct field tmp;
    int made;
    const struct field *u = as_double(u0, &tmp, &made);
    struct unitarity r;
    if (u->nc == 3) unitarity_sums(u, 3, &r);
    else unitarity_sums(u, u->nc, &r);
    if (made) field_free(&tmp);
    return r;
}
