/* hmc/staggered_monomial.c -- the staggered pseudofermion monomial
 * (hmc/staggered_monomial.h: the formulas, the modes, the noise streams):
 * parameter checks, refresh (exact and rational heatbath), action, force
 * from the multi-shift solutions, and the noise generators. */
#include "hmc/staggered_monomial.h"
#include "base/clock.h"
#include "hmc/staggered_monomial_impl.h"
#include "hmc/staggered_monomial_site.h"
#include "hmc/staggered_gpu_solver.h"
#include "dirac/staggered.h"
#include "solvers/solvers.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "math/algebra.h"
#include "math/rng.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char WHO[] = "staggered monomial";

/* below this many sites a loop runs on one thread */
#define MONO_OMP_MIN 1024


/* the links of every solve and hop that follows; the GPU copy is refreshed
 * before the next solve (an exact-mode refresh solves nothing) */
static void set_links(struct stag_mono *c, const struct field *u)
{
    staggered_set_links(c->op, u);
    c->links = u;
    c->gpu_links_stale = 1;
}

/* ---- noise ----------------------------------------------------------------- */
static void noise(const struct staggered_op *op, int parity, uint64_t seed, uint32_t copy, uint32_t traj,
                  int purpose, double *out)
{
    const int n = staggered_nc(op);
    const int64_t count = parity < 0 ? staggered_owned_sites(op) : staggered_owned_sites(op) / 2;
#pragma omp parallel for schedule(static) if (count >= MONO_OMP_MIN)
    for (int64_t i = 0; i < count; i++) {
        const int64_t x = staggered_global_site(op, parity < 0 ? i : staggered_half_site(op, parity, i));
        stag_noise_site(n, seed, copy, (uint64_t)x, traj, purpose, out + (size_t)i * 2 * n);
    }
}

void staggered_gaussian(const struct staggered_op *op, int parity, uint64_t seed, uint32_t copy, uint32_t trajectory,
                        double *out)
{ noise(op, parity, seed, copy, trajectory, RNG_PSEUDOFERMION, out); }
void staggered_z2(const struct staggered_op *op, int parity, uint64_t seed, uint32_t copy, uint32_t trajectory,
                  double *out)
{ noise(op, parity, seed, copy, trajectory, RNG_NOISE, out); }

/* Re a^dag b of two even half fields through the solvers' reduction (one
 * slot per global timeslice): the same bits for any thread and rank count */
static double half_dot(const struct stag_mono *c, const double *a, const double *b)
{
    const size_t hr = staggered_half_reals(c->op), sr = 2 * (size_t)staggered_nc(c->op);
    const struct solver_vec va = {SOLVER_DOUBLE, hr, sr, (void *)a, NULL}, vb = {SOLVER_DOUBLE, hr, sr, (void *)b, NULL};
    return c->blas_half->cdot(c->blas_half->ctx, &va, &vb).re;
}

/* ---- solves ---------------------------------------------------------------- */
/* x[i] = (K + r->b[i])^-1 b for every pole (even half fields) */
static void solve_shifts(struct stag_mono *c, const struct rational *r, double tol, int sloppy, const double *b,
                         double **x, const char *what)
{
    const size_t hr = staggered_half_reals(c->op);
    /* mixed: the multi-shift recursion in single, each pole refined to tol
     * by the solver module (true residuals in double) */
    struct solver_params par = {.tol = tol, .max_iter = c->p.max_iter, .sloppy = sloppy ? SOLVER_SINGLE : SOLVER_DOUBLE};
    struct solver_result res[RATIONAL_MAX_ORDER];
    if (r->order == 0) return;
    const double t0 = lat_clock();
    if (c->p.gpu) {
        /* the same solve on the GPU (hmc/staggered_gpu_solver.h) */
        if (c->gpu_links_stale) staggered_gpu_solver_set_links(c->p.gpu, c->links);
        c->gpu_links_stale = 0;
        staggered_gpu_solver_multishift(c->p.gpu, b, r->order, r->b, x, &par, res);
        stag_mono_account(c, r, res, tol, what, t0);
        return;
    }
    /* the normal view: [even | odd] vectors, b with a zero odd half */
    struct solver_op so;
    staggered_solver_op_normal(&so, c->op);
    double *bf = (double *)calloc(2 * hr, sizeof(double));
    double *xf[RATIONAL_MAX_ORDER];
    if (!bf) lat_die(1, WHO, "out of memory");
    memcpy(bf, b, hr * sizeof(double));
    for (int i = 0; i < r->order; i++) xf[i] = (double *)lat_malloc(2 * hr * sizeof(double));
    enum solver_status st = solver_multishift_cg(&so, c->blas, bf, r->order, r->b, NULL, xf, &par, res);
    for (int i = 0; i < r->order; i++) {
        memcpy(x[i], xf[i], hr * sizeof(double));
        free(xf[i]);
    }
    (void)st;
    free(bf);
    stag_mono_account(c, r, res, tol, what, t0);
}

static double **alloc_halves(int k, size_t hr)
{
    double **v = (double **)lat_malloc((size_t)(k > 0 ? k : 1) * sizeof(double *));
    for (int i = 0; i < k; i++) v[i] = (double *)lat_malloc(hr * sizeof(double));
    return v;
}
static void free_halves(double **v, int k)
{
    for (int i = 0; i < k; i++) free(v[i]);
    free(v);
}

/* ---- the callbacks ------------------------------------------------------- */
static void mono_refresh(void *ctx, const struct field *u, uint64_t seed, uint32_t trajectory)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    set_links(c, u);
    const size_t hr = staggered_half_reals(c->op);
    const double m = staggered_mass(c->op);
    for (int k = 0; k < c->p.npf; k++) {
        if (!stag_mono_mine(k)) continue;
        if (c->exact) {
            /* phi = m chi_e - D_eo chi_o */
            double *chi = (double *)lat_malloc(2 * hr * sizeof(double)), *ce = (double *)lat_malloc(hr * sizeof(double));
            double *co = (double *)lat_malloc(hr * sizeof(double));
            staggered_gaussian(c->op, -1, seed, (uint32_t)k, trajectory, chi);
            staggered_full_to_half(c->op, 0, ce, chi);
            staggered_full_to_half(c->op, 1, co, chi);
            staggered_hop(c->op, 0, c->phi[k], co);
            for (size_t i = 0; i < hr; i++) c->phi[k][i] = m * ce[i] - c->phi[k][i];
            free(chi);
            free(ce);
            free(co);
        } else {
            double *eta = (double *)lat_malloc(hr * sizeof(double));
            double **x = alloc_halves(c->hb.order, hr);
            staggered_gaussian(c->op, 0, seed, (uint32_t)k, trajectory, eta);
            solve_shifts(c, &c->hb, c->p.tol_metropolis, 0, eta, x, "pseudofermion heatbath");
            rational_combine(&c->hb, hr, eta, x, c->phi[k]);
            free_halves(x, c->hb.order);
            free(eta);
        }
    }
}

static double mono_action(void *ctx, const struct field *u)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    set_links(c, u);
    const size_t hr = staggered_half_reals(c->op);
    double **x = alloc_halves(c->met.order, hr), *parts = (double *)lat_calloc((size_t)c->p.npf, sizeof(double));
    for (int k = 0; k < c->p.npf; k++) {
        if (!stag_mono_mine(k)) continue;
        solve_shifts(c, &c->met, c->p.tol_metropolis, 0, c->phi[k], x, "action");
        double s = c->met.a0 * half_dot(c, c->phi[k], c->phi[k]);
        for (int j = 0; j < c->met.order; j++) s += c->met.a[j] * half_dot(c, c->phi[k], x[j]);
        parts[k] = s;
    }
    free_halves(x, c->met.order);
    return stag_mono_action_total(parts, c->p.npf);
}

/* out += coeff TA(W) per link, W of the header's formula */
static void mono_force(void *ctx, const struct field *u, double coeff, double *out)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    set_links(c, u);
    const struct rational *r = &c->md;
    const size_t hr = staggered_half_reals(c->op), lhr = staggered_local_half_reals(c->op);
    const int n = staggered_nc(c->op);
    const struct lattice *lat = staggered_lattice(c->op);
    const size_t lr = field_link_reals(n);
    const int64_t vh = staggered_owned_sites(c->op) / 2, off = staggered_owned_offset(c->op);
    /* x, y: the owned solutions; xl, yl: with the halo slices the hops to
     * x + mu of the last owned slice read (local half index = local site / 2) */
    double **x = alloc_halves(r->order, hr), **y = alloc_halves(r->order, hr);
    double **xl = alloc_halves(r->order, lhr), **yl = alloc_halves(r->order, lhr);
    /* a round: fields k0 .. k0 + R - 1, field k0 + r's force in part r */
    const int R = comm_replicas(), me = comm_replica();
    const size_t np = (size_t)lat->V * LAT_ND * lr;
    if (!c->fparts) c->fparts = (double *)lat_malloc((size_t)R * np * sizeof(double));
    for (int k0 = 0; k0 < c->p.npf; k0 += R) {
        const int k = k0 + me;
        double *part = c->fparts + (size_t)me * np;
        memset(part, 0, np * sizeof(double));
        if (k < c->p.npf) {
            solve_shifts(c, r, c->p.tol_md, c->p.mixed, c->phi[k], x, "molecular-dynamics");
            for (int i = 0; i < r->order; i++) {
                staggered_hop(c->op, 1, y[i], x[i]);
                staggered_half_with_halo(c->op, xl[i], x[i]);
                staggered_half_with_halo(c->op, yl[i], y[i]);
            }
            /* every owned site, even ones first: no sums across sites, so the
             * order is free */
#pragma omp parallel for schedule(static) if (2 * vh >= MONO_OMP_MIN)
            for (int64_t j = 0; j < 2 * vh; j++) {
                const int even = j < vh;
                const int64_t s = off + staggered_half_site(c->op, even ? 0 : 1, even ? j : j - vh);
                for (int mu = 0; mu < LAT_ND; mu++) {
                    const int64_t t = lattice_neighbour(lat, s, mu, +1);
                    /* O = sum_i a_i v_i w_i^dag: v = Y(y+mu), w = X(y) (y even) or v = Y(y), w = X(y+mu) */
                    lat_complex o[LAT_NC_MAX * LAT_NC_MAX];
                    sun_zero(n, o);
                    for (int i = 0; i < r->order; i++) {
                        const double *v = yl[i] + (size_t)((even ? t : s) >> 1) * 2 * n;
                        const double *ww = xl[i] + (size_t)((even ? s : t) >> 1) * 2 * n;
                        stag_force_outer_add(n, r->a[i], (const lat_complex *)v, (const lat_complex *)ww, o);
                    }
                    const lat_complex *ul = (const lat_complex *)staggered_link(c->op, s, mu);
                    stag_force_link(n, even, coeff, ul, o, (lat_complex *)(part + ((size_t)s * LAT_ND + mu) * lr));
                }
            }
        }
        comm_replica_gather(c->fparts, np);
        for (int q = 0; q < R && k0 + q < c->p.npf; q++) {
            const double *f = c->fparts + (size_t)q * np;
#pragma omp parallel for schedule(static) if (np >= 16 * MONO_OMP_MIN)
            for (size_t i = 0; i < np; i++) out[i] += f[i];
        }
    }
    free_halves(x, r->order);
    free_halves(y, r->order);
    free_halves(xl, r->order);
    free_halves(yl, r->order);
}

void staggered_monomial_take_solve_seconds(const struct hmc_monomial *m, double *md, double *other)
{
    struct stag_mono *c = (struct stag_mono *)m->ctx;
    *md = c->solve_md;
    *other = c->solve_other;
    c->solve_md = c->solve_other = 0;
}

static long mono_iterations(void *ctx)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    double k = (double)c->iters; /* every replica's solves (exact below 2^53) */
    comm_replica_sum(&k, 1);
    c->iters = 0;
    return (long)k;
}

/* ---- creation -------------------------------------------------------------- */
static int bad(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return -1;
}

/* r approximates x^(num/den) with num/den = pn/pd, coefficients sane */
static int check_rational(const struct rational *r, long pn, long pd, const char *name, char *why, size_t len)
{
    if (r->order < 0 || r->order > RATIONAL_MAX_ORDER || r->den == 0 || (long)r->num * pd != pn * (long)r->den) {
        snprintf(why, len, "the %s rational approximates x^(%d/%d) with %d poles, not x^(%ld/%ld) with 0 to %d",
                 name, r->num, r->den, r->order, pn, pd, RATIONAL_MAX_ORDER);
        return -1;
    }
    int ok = isfinite(r->a0);
    for (int i = 0; i < r->order; i++) ok = ok && isfinite(r->a[i]) && isfinite(r->b[i]) && r->b[i] >= 0;
    if (!ok) {
        snprintf(why, len, "the %s rational has a coefficient that is not finite or a shift < 0", name);
        return -1;
    }
    return 0;
}

int staggered_monomial_create(struct hmc_monomial *m, const struct staggered_monomial_params *p,
                              const struct field *u_shape, char *why, size_t len)
{
    if (!(p->mass > 0) || !isfinite(p->mass)) {
        snprintf(why, len, "the staggered mass must be a finite number > 0, not %g", p->mass);
        return -1;
    }
    if (p->nf < 1 || p->npf < 1) {
        snprintf(why, len, "staggered quarks need nf >= 1 and npf >= 1 (got nf %d, npf %d)", p->nf, p->npf);
        return -1;
    }
    if (!(p->tol_md > 0 && p->tol_md < 1) || !(p->tol_metropolis > 0 && p->tol_metropolis < 1))
        return bad(why, len, "the staggered solver tolerances must lie in (0, 1)");
    if (p->max_iter < 1) return bad(why, len, "the staggered solver needs max_iter >= 1");
    if (p->timescale < 0) return bad(why, len, "the staggered monomial's time scale must be >= 0");
    const int exact = p->heatbath == NULL;
    if (exact && p->nf != 4 * p->npf) {
        snprintf(why, len, "exact (non-rational) staggered HMC needs nf = 4 npf, not nf %d with npf %d: give the rationals",
                 p->nf, p->npf);
        return -1;
    }
    /* x^-1 exactly: the exact mode's action and force */
    struct rational inv = {.num = -1, .den = 1, .order = 1, .lo = 0, .hi = INFINITY, .a0 = 0};
    inv.a[0] = 1;
    inv.b[0] = 0;
    const long pd = 4L * p->npf;
    if (!exact) {
        if (!p->md || !p->metropolis) return bad(why, len, "rational staggered HMC needs the md and metropolis rationals");
        if (check_rational(p->heatbath, p->nf, 2 * pd, "heatbath", why, len)) return -1;
    }
    if (p->md && check_rational(p->md, -p->nf, pd, "md", why, len)) return -1;
    if (p->metropolis && check_rational(p->metropolis, -p->nf, pd, "metropolis", why, len)) return -1;
    if (p->gpu && staggered_gpu_solver_mass(p->gpu) != p->mass)
        return bad(why, len, "the GPU solver backend must have the monomial's mass");
    struct staggered_op *op = staggered_create(u_shape, p->mass, why, len);
    if (!op) return -1;
    struct stag_mono *c = (struct stag_mono *)calloc(1, sizeof *c);
    struct solver_reduce_layout normal, half;
    staggered_reduce_layout(op, 1, &normal);
    staggered_reduce_layout(op, 0, &half);
    struct solver_blas *blas = solver_blas_cpu_open(&normal), *blas_half = solver_blas_cpu_open(&half);
    if (!c || !blas || !blas_half) lat_die(1, WHO, "out of memory");
    c->p = *p;
    c->dom = u_shape->dom;
    c->ltg = u_shape->dom ? u_shape->dom->global.L[3] : u_shape->lat.L[3];
    c->blas_half = blas_half;
    c->exact = exact;
    c->op = op;
    c->blas = blas;
    c->md = p->md ? *p->md : inv;
    c->met = p->metropolis ? *p->metropolis : inv;
    if (!exact) c->hb = *p->heatbath;
    c->p.heatbath = c->p.md = c->p.metropolis = NULL; /* the copies above are used */
    c->phi = (double **)lat_malloc((size_t)p->npf * sizeof(double *));
    for (int k = 0; k < p->npf; k++) c->phi[k] = (double *)calloc(staggered_half_reals(op), sizeof(double));
    *m = (struct hmc_monomial){.name = exact ? "staggered-hmc" : "staggered-rhmc", .ctx = c, .timescale = p->timescale,
                               .refresh = mono_refresh, .action = mono_action, .force = mono_force,
                               .iterations = mono_iterations};
    if (p->gpu) {
        /* the whole trajectory on the device (staggered_monomial_gpu.c) */
        m->refresh_gpu = stag_mono_refresh_gpu;
        m->action_gpu = stag_mono_action_gpu;
        m->force_gpu = stag_mono_force_gpu;
    }
    return 0;
}

void staggered_monomial_free(struct hmc_monomial *m)
{
    struct stag_mono *c = (struct stag_mono *)m->ctx;
    if (!c) return;
    stag_mono_gpu_free(c);
    free(c->fparts);
    for (int k = 0; k < c->p.npf; k++) free(c->phi[k]);
    free(c->phi);
    staggered_free(c->op);
    solver_blas_cpu_close(c->blas);
    solver_blas_cpu_close(c->blas_half);
    free(c);
    m->ctx = NULL;
}
