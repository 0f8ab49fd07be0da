/* fourier/cpu.c -- the CPU backend of Fourier-accelerated gauge fixing in
 * one precision (cpu/variant.h: fa_cpu_*_d, _s, _m).  Exports the
 * fa_cpu_* functions of fourier/cpu.h; fourier/cpu_backend.c makes them
 * fa_backend_cpu (backend.h has the contracts).
 *
 * Every loop over sites runs timeslice by timeslice, each slice on one
 * OpenMP thread in site order, and every per-slice sum is made that way:
 * the bits do not depend on the number of threads, and with the transforms
 * of fft/fft.h and the exact per-slice sums of comm_sum not on the number
 * of ranks either.  The physics is math/algebra.h (the su(N) packing and
 * exponential) and gaugefix/site.h (F and theta per site, the functions
 * lat-measure uses). */
#include "cpu/variant.h"
#include "fourier/cpu.h"
#include "fft/fft.h"
#include "fourier/site.h"
#include "math/rng.h"
#include "lattice/halo.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define VSFX CPU_VARIANT
#define NN (LAT_NC_MAX * LAT_NC_MAX)
typedef cpu_store store_t;

static size_t link_reals(const struct fa_state *s) { return 2 * (size_t)s->nc * s->nc; }
static store_t *link_at(const struct fa_state *s, int64_t x, int mu)
{ return (store_t *)s->links + ((size_t)x * LAT_ND + mu) * link_reals(s); }
static lat_real *alg_at(void *f, const struct fa_state *s, int64_t x)
{ return (lat_real *)f + (size_t)x * (size_t)alg_dim(s->nc); }
static lat_complex *G_at(const struct fa_state *s, int64_t x) { return (lat_complex *)s->G + (size_t)x * s->nc * s->nc; }

/* a view of a raw array as a field, for the halo exchange */
static struct field view(const struct fa_state *s, void *p, enum field_kind k, int prec)
{
    struct field f;
    memset(&f, 0, sizeof f);
    f.lat = s->lat;
    f.nc = s->nc;
    f.prec = prec;
    f.dom = s->dom;
    f.kind = k;
    if (prec == 64) f.d = p;
    else f.f = p;
    return f;
}
static void refresh_links(struct fa_state *s)
{
    if (!s->dom || s->nd < 4) return; /* Coulomb: the spatial links of a slice stay on its rank */
    struct field f = view(s, s->links, FIELD_LINKS, sizeof(store_t) == 8 ? 64 : 32);
    field_halo_refresh(&f);
}
static void refresh_G(struct fa_state *s)
{
    if (!s->dom || s->nd < 4) return;
    halo_refresh_raw(s->dom, s->G, sizeof(lat_real), 2 * (size_t)s->nc * s->nc);
}

static int global_t(const struct fa_state *s, int t) { return geometry_t_global(s->dom, t); }

void VSFX(fa_cpu_upload)(struct fa_state *s, const struct field *u, const double *transform)
{
    const size_t lr = link_reals(s), V = (size_t)s->lat.V;
    store_t *U = lat_malloc(V * LAT_ND * lr * sizeof(store_t));
    for (size_t i = 0; i < V * LAT_ND * lr; i++) U[i] = (store_t)u->d[i];
    s->links = U;
    if (transform) {
        store_t *T = lat_malloc(V * lr * sizeof(store_t));
        for (size_t i = 0; i < V * lr; i++) T[i] = (store_t)transform[i];
        s->transform = T;
    }
    const size_t ad = (size_t)alg_dim(s->nc) * V * sizeof(lat_real);
    s->grad = lat_calloc(1, ad);
    s->pgrad = lat_calloc(1, ad);
    s->pgrad_old = lat_calloc(1, ad);
    s->dir = lat_calloc(1, ad);
    s->G = lat_calloc(V * (size_t)s->nc * s->nc, sizeof(lat_complex));
    /* the transform: 4-D for Landau, each timeslice in 3-D for Coulomb;
     * components: the packed reals of Delta two by two */
    const struct lattice *glob = geometry_global(s->dom, &s->lat);
    s->ncomp = (alg_dim(s->nc) + 1) / 2;
    s->fft = VSFX(fft_create)(glob, s->dom, s->nd == 4 ? 4 : 3, s->ncomp);
    int64_t cnt = VSFX(fft_count)(s->fft), kc = VSFX(fft_kcount)(s->fft);
    s->fftbuf = lat_malloc(sizeof(lat_complex) * (size_t)s->ncomp * (size_t)cnt);
    lat_real *w = lat_malloc(sizeof(lat_real) * (size_t)kc);
    /* p^2_max / p^2(k), divided by the transform's N (backward is
     * unnormalised); the zero mode is left out */
    double norm = s->nd == 4 ? (double)glob->V : (double)s->v3;
    for (int64_t j = 0; j < kc; j++) {
        int k[4];
        VSFX(fft_momentum)(s->fft, j, k);
        w[j] = fa_weight(glob->L, s->nd, k, norm);
    }
    s->weight = w;
}

void VSFX(fa_cpu_free)(struct fa_state *s)
{
    VSFX(fft_destroy)(s->fft);
    free(s->links);
    free(s->transform);
    free(s->grad);
    free(s->pgrad);
    free(s->pgrad_old);
    free(s->dir);
    free(s->G);
    free(s->fftbuf);
    free(s->weight);
}

/* ---- the gradient -------------------------------------------------------- */

/* Loops over the owned timeslices, one slice per thread (the per-slice
 * sums are then made in site order, whatever the thread count); SU(3) gets
 * its own copy with n = 3 known to the compiler, which unrolls the matrix
 * algebra (3-4x faster than the general loops). */
#define OVER_SLICES(s, slice_fn, ...)                                                                        \
    do {                                                                                                     \
        const int par_ = (s)->lat.V >= 4096;                                                                 \
        if ((s)->nc == 3) {                                                                                  \
            _Pragma("omp parallel for schedule(dynamic, 1) if (par_)")                                       \
            for (int t_ = (s)->tb; t_ < (s)->te; t_++) slice_fn(s, 3, t_, __VA_ARGS__);                      \
        } else {                                                                                             \
            _Pragma("omp parallel for schedule(dynamic, 1) if (par_)")                                       \
            for (int t_ = (s)->tb; t_ < (s)->te; t_++) slice_fn(s, (s)->nc, t_, __VA_ARGS__);                \
        }                                                                                                    \
    } while (0)

CPU_INLINE void gradient_slice(struct fa_state *s, const int n, int t, double *fsums, double *dphi)
{
    const int nn = n * n, nd = s->nd, tg = global_t(s, t);
    if (!s->on[tg]) { /* frozen: its links no longer move */
        fsums[2 * tg] = s->fcache[2 * tg];
        fsums[2 * tg + 1] = s->fcache[2 * tg + 1];
        return;
    }
    lat_complex up[4 * NN], dn[4 * NN];
    double fs = 0, ts = 0, ds = 0;
    for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
        for (int mu = 0; mu < nd; mu++) {
            cpu_load(nn, up + mu * nn, link_at(s, x, mu));
            cpu_load(nn, dn + mu * nn, link_at(s, s->bwd[4 * x + mu], mu));
        }
        fs += gf_site_functional(n, s->gauge, up);
        ts += gf_site_theta(n, s->gauge, up, dn);
        lat_real *d = alg_at(s->grad, s, x);
        fa_site_gradient(n, nd, up, dn, d);
        ds += alg_dot(n, d, alg_at(s->dir, s, x));
    }
    fsums[2 * tg] = s->fcache[2 * tg] = fs;
    fsums[2 * tg + 1] = s->fcache[2 * tg + 1] = ts;
    dphi[tg] = ds;
}

void VSFX(fa_cpu_gradient)(struct fa_state *s, double *fsums, double *dphi)
{
    memset(fsums, 0, sizeof(double) * 2 * (size_t)s->nt);
    memset(dphi, 0, sizeof(double) * (size_t)s->nt);
    OVER_SLICES(s, gradient_slice, fsums, dphi);
    if (s->dom) {
        comm_sum(fsums, 2 * (size_t)s->nt);
        comm_sum(dphi, (size_t)s->nt);
    }
}

/* ---- the preconditioner --------------------------------------------------- */

void VSFX(fa_cpu_precondition)(struct fa_state *s, double *dots)
{
    const int n = s->nc, ad = alg_dim(n), nc2 = s->ncomp;
    const int64_t cnt = VSFX(fft_count)(s->fft), kc = VSFX(fft_kcount)(s->fft);
    lat_complex *b = s->fftbuf;
    void *sw = s->pgrad_old;
    s->pgrad_old = s->pgrad;
    s->pgrad = sw;
    const int lt = s->te - s->tb;
    /* Delta's packed reals two by two into the components */
#pragma omp parallel for schedule(static) if (s->lat.V >= 4096)
    for (int t = 0; t < lt; t++)
        for (int64_t i = 0; i < s->v3 && s->on[global_t(s, s->tb + t)]; i++) {
            const lat_real *d = alg_at(s->grad, s, (s->tb + t) * s->v3 + i);
            for (int c = 0; c < nc2; c++)
                b[c * cnt + t * s->v3 + i] = c_make(d[2 * c], 2 * c + 1 < ad ? d[2 * c + 1] : 0);
        }
    VSFX(fft_forward)(s->fft, b);
    const lat_real *w = s->weight;
#pragma omp parallel for schedule(static) if (kc >= 4096)
    for (int64_t j = 0; j < kc; j++)
        for (int c = 0; c < nc2; c++) b[c * cnt + j] = c_scale(w[j], b[c * cnt + j]);
    VSFX(fft_backward)(s->fft, b);
    memset(dots, 0, sizeof(double) * 2 * (size_t)s->nt);
#pragma omp parallel for schedule(dynamic, 1) if (s->lat.V >= 4096)
    for (int t = 0; t < lt; t++) {
        double d1 = 0, d2 = 0;
        lat_real p[LAT_NC_MAX * LAT_NC_MAX];
        if (!s->on[global_t(s, s->tb + t)]) continue;
        for (int64_t i = 0; i < s->v3; i++) {
            int64_t x = (s->tb + t) * s->v3 + i;
            for (int c = 0; c < nc2; c++) {
                lat_complex z = b[c * cnt + t * s->v3 + i];
                p[2 * c] = z.re;
                if (2 * c + 1 < ad) p[2 * c + 1] = z.im;
            }
            memcpy(alg_at(s->pgrad, s, x), p, sizeof(lat_real) * (size_t)ad);
            const lat_real *d = alg_at(s->grad, s, x);
            d1 += alg_dot(n, d, p);
            if (s->have_pold) d2 += alg_dot(n, d, alg_at(s->pgrad_old, s, x));
        }
        int tg = global_t(s, s->tb + t);
        dots[2 * tg] = d1;
        dots[2 * tg + 1] = d2;
    }
    s->have_pold = 1;
    if (s->dom) comm_sum(dots, 2 * (size_t)s->nt);
}

void VSFX(fa_cpu_direction)(struct fa_state *s, const unsigned char *set, const double *beta, double *dphi)
{
    const int n = s->nc, ad = alg_dim(n);
    memset(dphi, 0, sizeof(double) * (size_t)s->nt);
#pragma omp parallel for schedule(dynamic, 1) if (s->lat.V >= 4096)
    for (int t = s->tb; t < s->te; t++) {
        int tg = global_t(s, t);
        double ds = 0;
        if (!s->on[tg]) continue;
        for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
            lat_real *d = alg_at(s->dir, s, x);
            if (set[tg]) {
                const lat_real *p = alg_at(s->pgrad, s, x);
                lat_real bt = (lat_real)beta[tg];
                for (int a = 0; a < ad; a++) d[a] = p[a] + bt * d[a];
            }
            ds += alg_dot(n, alg_at(s->grad, s, x), d);
        }
        dphi[tg] = ds;
    }
    if (s->dom) comm_sum(dphi, (size_t)s->nt);
}

/* sum_x,mu Re tr(2 h(x) U h(x+mu) - h(x)^2 U - U h(x+mu)^2), regrouped per
 * site (fa_site_curvature): five products a site, not nine */
CPU_INLINE void curvature_slice(struct fa_state *s, const int n, int t, double *d2)
{
    const int nn = n * n, nd = s->nd;
    if (!s->on[global_t(s, t)]) return;
    lat_complex h[NN], hy[4 * NN], up[4 * NN], dn[4 * NN];
    double sum = 0;
    for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
        alg_unpack(n, alg_at(s->dir, s, x), h);
        for (int mu = 0; mu < nd; mu++) {
            cpu_load(nn, up + mu * nn, link_at(s, x, mu));
            cpu_load(nn, dn + mu * nn, link_at(s, s->bwd[4 * x + mu], mu));
            alg_unpack(n, alg_at(s->dir, s, s->fwd[4 * x + mu]), hy + mu * nn);
        }
        sum += fa_site_curvature(n, nd, h, up, dn, hy);
    }
    d2[global_t(s, t)] = sum;
}

void VSFX(fa_cpu_curvature)(struct fa_state *s, double *d2)
{
    if (s->dom && s->nd == 4) halo_refresh_raw(s->dom, s->dir, sizeof(lat_real), (size_t)alg_dim(s->nc));
    memset(d2, 0, sizeof(double) * (size_t)s->nt);
    OVER_SLICES(s, curvature_slice, d2);
    if (s->dom) comm_sum(d2, (size_t)s->nt);
}

/* ---- moving along the orbit ---------------------------------------------- */

/* U_mu(x) -> G(x) U_mu(x) G(x+mu)^dag for the functional's directions, g ->
 * G g, on the owned sites; G must be set on the owned sites (and, for
 * Landau on a slab, is exchanged here for the slice above) */
CPU_INLINE void apply_slice(struct fa_state *s, const int n, int t, int unused)
{
    const int nn = n * n, nd = s->nd;
    lat_complex u[NN], a[NN], r[NN];
    (void)unused;
    if (!s->on[global_t(s, t)]) return; /* frozen (Coulomb: its links stay within the slice) */
    for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
        const lat_complex *g = G_at(s, x);
        for (int mu = 0; mu < nd; mu++) {
            store_t *p = link_at(s, x, mu);
            cpu_load(nn, u, p);
            sun_mul(n, a, g, u);
            sun_mul_nd(n, r, a, G_at(s, s->fwd[4 * x + mu]));
            cpu_store_to(nn, p, r);
        }
        if (s->transform) {
            store_t *p = (store_t *)s->transform + (size_t)x * link_reals(s);
            cpu_load(nn, u, p);
            sun_mul(n, r, g, u);
            cpu_store_to(nn, p, r);
        }
    }
}

static void apply_G(struct fa_state *s)
{
    refresh_G(s);
    OVER_SLICES(s, apply_slice, 0);
    refresh_links(s);
}

CPU_INLINE void exp_slice(struct fa_state *s, const int n, int t, const double *alpha)
{
    lat_complex h[NN];
    lat_real a = (lat_real)alpha[global_t(s, t)];
    if (!s->on[global_t(s, t)]) return;
    for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
        if (a == 0) {
            sun_unit(n, G_at(s, x));
            continue;
        }
        alg_unpack(n, alg_at(s->dir, s, x), h);
        sun_exp_i(n, -a, h, G_at(s, x));
    }
}

void VSFX(fa_cpu_step)(struct fa_state *s, const double *alpha)
{
    OVER_SLICES(s, exp_slice, alpha);
    apply_G(s);
}

void VSFX(fa_cpu_orbit)(struct fa_state *s, const unsigned char *set, uint64_t seed, uint32_t copy, uint32_t k)
{
    const int n = s->nc, nn = n * n;
#pragma omp parallel for schedule(static) if (s->lat.V >= 4096)
    for (int t = s->tb; t < s->te; t++) {
        double m[2 * NN];
        int on = set[global_t(s, t)];
        for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
            lat_complex *g = G_at(s, x);
            if (!on) { sun_unit(n, g); continue; }
            struct lat_rng r;
            rng_init(&r, seed, copy, (uint64_t)geometry_global_site(s->dom, x), k, RNG_ORBIT);
            sun_random_haar(n, m, &r);
            for (int a = 0; a < nn; a++) g[a] = c_make((lat_real)m[2 * a], (lat_real)m[2 * a + 1]);
        }
    }
    apply_G(s);
}

void VSFX(fa_cpu_freeze)(struct fa_state *s, const unsigned char *on)
{
    memcpy(s->on, on, (size_t)s->nt);
    if (s->nd < 4) VSFX(fft_skip)(s->fft, s->on);
}

void VSFX(fa_cpu_reunitarize)(struct fa_state *s)
{
    const int n = s->nc, nn = n * n;
    const int64_t nl = s->lat.V * LAT_ND;
#pragma omp parallel for schedule(static) if (nl >= 16384)
    for (int64_t l = 0; l < nl; l++) {
        lat_complex m[NN];
        store_t *p = (store_t *)s->links + (size_t)l * link_reals(s);
        cpu_load(nn, m, p);
        sun_reunitarize(n, m);
        cpu_store_to(nn, p, m);
    }
    if (s->transform)
        for (int64_t x = 0; x < s->lat.V; x++) {
            lat_complex m[NN];
            store_t *p = (store_t *)s->transform + (size_t)x * link_reals(s);
            cpu_load(nn, m, p);
            sun_reunitarize(n, m);
            cpu_store_to(nn, p, m);
        }
}

void VSFX(fa_cpu_download)(struct fa_state *s, struct field *u, double *transform)
{
    const size_t lr = link_reals(s), V = (size_t)s->lat.V;
    const store_t *U = s->links;
    for (size_t i = 0; i < V * LAT_ND * lr; i++) u->d[i] = (double)U[i];
    if (transform && s->transform) {
        const store_t *T = s->transform;
        for (size_t i = 0; i < V * lr; i++) transform[i] = (double)T[i];
    }
}
