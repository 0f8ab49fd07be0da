/* test_staggered.c -- the staggered operator (kernels/dirac/staggered.h) and
 * the staggered monomial (kernels/hmc/staggered_monomial.h) against
 * references written here independently:
 *   - M and M^dag on a Haar-random SU(3) and SU(2) field equal the seed's
 *     eq. (4) written out with C99 complex and explicit coordinates (eta
 *     phases, antiperiodic t), to 1e-13; D_eo, D_oe and (M^dag M)_ee equal
 *     the full operator restricted to one parity;
 *   - D anti-Hermitian, (M^dag M)_ee Hermitian and >= m^2, gauge covariance
 *     D[U^g](g psi) = g D[U] psi, all to 1e-13;
 *   - free field: parity-restricted plane waves with antiperiodic momenta
 *     are eigenvectors of (M^dag M)_ee with m^2 + sum_mu sin^2 p_mu; the
 *     condensate equals the momentum sum (nc m / V) sum_p 1/(m^2 + sum sin^2 p)
 *     within 3 sigma; the spectral range brackets the free spectrum;
 *   - single precision within 1e-6 of double; solver_cg (mixed) and
 *     solver_multishift_cg (normal view) solve (M^dag M)_ee + sigma;
 *   - the force against the symmetric numerical derivative of the action
 *     (exact mode, a hand-made 3-pole rational, mixed MD solves, npf = 2);
 *   - the exact heatbath identity chi^dag chi = S_e + S_o (header), and the
 *     rational heatbath against per-pole CG solves;
 *   - 1 and 2 OpenMP threads give the same bits; the refusals. */
#include "dirac/staggered.h"
#include "hmc/staggered_monomial.h"
#include "lattice/gauge_transform.h"
#include "math/algebra.h"
#include "math/rng.h"
#include "math/spinor.h"
#include "unit.h"
#include "vec.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const double PI = 3.14159265358979323846;

static struct staggered_op *make_op(const struct field *u, double m)
{
    char why[256];
    struct staggered_op *op = staggered_create(u, m, why, sizeof why);
    if (!op) { fprintf(stderr, "staggered_create: %s\n", why); exit(1); }
    return op;
}

/* the seed's eq. (4), written out: out = (m + s D) in, s = +1 (M) or -1 (M^dag) */
static void reference_m(const struct field *u, double m, int s, double *out, const double *in)
{
    const struct lattice *lat = &u->lat;
    const int n = u->nc;
    for (int64_t x = 0; x < lat->V; x++) {
        int c[4];
        lattice_coords(lat, x, c);
        cplx acc[8];
        for (int a = 0; a < n; a++) acc[a] = m * (in[(x * n + a) * 2] + I * in[(x * n + a) * 2 + 1]);
        for (int mu = 0; mu < 4; mu++) {
            int e = 0;
            for (int nu = 0; nu < mu; nu++) e += c[nu];
            const double eta = (e % 2) ? -1 : 1;
            int cf[4], cb[4];
            memcpy(cf, c, sizeof cf);
            memcpy(cb, c, sizeof cb);
            cf[mu] = (c[mu] + 1) % lat->L[mu];
            cb[mu] = (c[mu] + lat->L[mu] - 1) % lat->L[mu];
            const double bf = (mu == 3 && c[mu] == lat->L[mu] - 1) ? -1 : 1; /* antiperiodic t */
            const double bb = (mu == 3 && c[mu] == 0) ? -1 : 1;
            const int64_t xf = lattice_site(lat, cf), xb = lattice_site(lat, cb);
            const double *uf = field_link(u, x, mu), *ub = field_link(u, xb, mu);
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) {
                    const cplx uab = uf[(a * n + b) * 2] + I * uf[(a * n + b) * 2 + 1];
                    const cplx ubd = ub[(b * n + a) * 2] - I * ub[(b * n + a) * 2 + 1]; /* (U^dag)_ab */
                    const cplx pf = in[(xf * n + b) * 2] + I * in[(xf * n + b) * 2 + 1];
                    const cplx pb = in[(xb * n + b) * 2] + I * in[(xb * n + b) * 2 + 1];
                    acc[a] += s * 0.5 * eta * (bf * uab * pf - bb * ubd * pb);
                }
        }
        for (int a = 0; a < n; a++) {
            out[(x * n + a) * 2] = creal(acc[a]);
            out[(x * n + a) * 2 + 1] = cimag(acc[a]);
        }
    }
}

static void hot_field(struct field *u, const struct lattice *lat, int nc, uint64_t seed)
{
    field_alloc(u, lat, nc, 64);
    field_set_random(u, seed);
}

/* ---- the operator against eq. (4) -------------------------------------- */
static void test_reference(int nc)
{
    struct lattice lat;
    make_lattice(&lat, 4, 2, 4, 4);
    struct field u;
    hot_field(&u, &lat, nc, 11);
    const double m = 0.37;
    struct staggered_op *op = make_op(&u, m);
    const size_t fr = staggered_full_reals(op), hr = staggered_half_reals(op);
    double *in = malloc(fr * 8), *out = malloc(fr * 8), *ref = malloc(fr * 8);
    random_vec(in, fr, 5);
    staggered_apply(op, out, in);
    reference_m(&u, m, +1, ref, in);
    CHECK(rel_diff(out, ref, fr) < 1e-13, "SU(%d): M differs from eq. (4) by %g", nc, rel_diff(out, ref, fr));
    staggered_apply_dag(op, out, in);
    reference_m(&u, m, -1, ref, in);
    CHECK(rel_diff(out, ref, fr) < 1e-13, "SU(%d): M^dag differs from m - D by %g", nc, rel_diff(out, ref, fr));
    /* D_oe, D_eo: (M - m) on a vector of one parity, restricted to the other */
    for (int p = 0; p < 2; p++) {
        double *h = malloc(hr * 8), *o = malloc(hr * 8), *oref = malloc(hr * 8), *full = calloc(fr, 8);
        random_vec(h, hr, 7 + p);
        staggered_half_to_full(op, 1 - p, full, h);
        reference_m(&u, 0, +1, ref, full);
        staggered_full_to_half(op, p, oref, ref);
        staggered_hop(op, p, o, h);
        CHECK(rel_diff(o, oref, hr) < 1e-13, "SU(%d): D from parity %d differs by %g", nc, 1 - p, rel_diff(o, oref, hr));
        /* nothing lands on the input's own parity */
        double *same = malloc(hr * 8);
        staggered_full_to_half(op, 1 - p, same, ref);
        CHECK(norm(same, hr) == 0, "SU(%d): D keeps parity %d (|.| = %g)", nc, 1 - p, norm(same, hr));
        free(h); free(o); free(oref); free(full); free(same);
    }
    /* (M^dag M)_ee = (M^dag (M x_e)) on the even sites */
    double *xe = malloc(hr * 8), *ke = malloc(hr * 8), *kref = malloc(hr * 8), *full = calloc(fr, 8), *t = malloc(fr * 8);
    random_vec(xe, hr, 9);
    staggered_half_to_full(op, 0, full, xe);
    reference_m(&u, m, +1, t, full);
    reference_m(&u, m, -1, ref, t);
    staggered_full_to_half(op, 0, kref, ref);
    staggered_mdagm_ee(op, ke, xe);
    CHECK(rel_diff(ke, kref, hr) < 1e-13, "SU(%d): (M^dag M)_ee differs by %g", nc, rel_diff(ke, kref, hr));
    free(xe); free(ke); free(kref); free(full); free(t);
    free(in); free(out); free(ref);
    staggered_free(op);
    field_free(&u);
}

/* ---- anti-Hermiticity, Hermiticity, positivity, gauge covariance ------- */
static void test_invariants(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 21);
    const double m = 0.2;
    struct staggered_op *op = make_op(&u, 0), *opm = make_op(&u, m);
    const size_t fr = staggered_full_reals(op), hr = staggered_half_reals(op);
    double *a = malloc(fr * 8), *b = malloc(fr * 8), *da = malloc(fr * 8), *db = malloc(fr * 8);
    random_vec(a, fr, 1);
    random_vec(b, fr, 2);
    staggered_apply(op, da, a); /* m = 0: D */
    staggered_apply(op, db, b);
    const cplx l = dot(a, db, fr), r = dot(da, b, fr);
    CHECK(cabs(l + r) < 1e-13 * cabs(l), "<a, D b> + <D a, b> = %g (|<a, D b>| = %g)", cabs(l + r), cabs(l));
    /* (M^dag M)_ee Hermitian and >= m^2 */
    double *ka = malloc(hr * 8), *kb = malloc(hr * 8);
    staggered_mdagm_ee(opm, ka, a);
    staggered_mdagm_ee(opm, kb, b);
    const cplx kl = dot(a, kb, hr), kr = dot(ka, b, hr);
    CHECK(cabs(kl - kr) < 1e-13 * cabs(kl), "(M^dag M)_ee not Hermitian: %g", cabs(kl - kr));
    const cplx q = dot(a, ka, hr);
    CHECK(fabs(cimag(q)) < 1e-12 * creal(q) && creal(q) >= m * m * creal(dot(a, a, hr)),
          "<a, K a> = %g + %gi below m^2 |a|^2 = %g", creal(q), cimag(q), m * m * creal(dot(a, a, hr)));
    /* gauge covariance: D[U^g](g psi) = g D[U] psi */
    double *g = malloc((size_t)lat.V * 18 * 8);
    gauge_transform_random(3, lat.V, 77, 0, g);
    struct field ug;
    field_copy(&ug, &u);
    gauge_transform_apply(&ug, g);
    struct staggered_op *opg = make_op(&ug, 0);
    double *ga = malloc(fr * 8), *gda = malloc(fr * 8), *dga = malloc(fr * 8);
    for (int64_t x = 0; x < lat.V; x++) {
        colour_mul(3, (const lat_complex *)(g + x * 18), (const lat_complex *)(a + x * 6), (lat_complex *)(ga + x * 6));
        colour_mul(3, (const lat_complex *)(g + x * 18), (const lat_complex *)(da + x * 6), (lat_complex *)(gda + x * 6));
    }
    staggered_apply(opg, dga, ga);
    CHECK(rel_diff(dga, gda, fr) < 1e-13, "gauge covariance violated by %g", rel_diff(dga, gda, fr));
    free(a); free(b); free(da); free(db); free(ka); free(kb); free(g); free(ga); free(gda); free(dga);
    staggered_free(op);
    staggered_free(opm);
    staggered_free(opg);
    field_free(&u);
    field_free(&ug);
}

/* ---- free field ----------------------------------------------------------- */
static double free_sin2(const struct lattice *lat, const int *k)
{
    double s = 0;
    for (int mu = 0; mu < 4; mu++) {
        const double p = (2 * PI * k[mu] + (mu == 3 ? PI : 0)) / lat->L[mu];
        s += sin(p) * sin(p);
    }
    return s;
}

static void test_free(int nc)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    field_alloc(&u, &lat, nc, 64);
    field_set_unit(&u);
    const double m = 0.3;
    struct staggered_op *op = make_op(&u, m);
    const size_t hr = staggered_half_reals(op);
    double *v = malloc(hr * 8), *kv = malloc(hr * 8);
    double worst = 0;
    const int ks[4][4] = {{0, 0, 0, 0}, {1, 0, 0, 1}, {1, 2, 3, 2}, {3, 1, 1, 3}};
    for (int j = 0; j < 4; j++) {
        for (int64_t i = 0; i < lat.V / 2; i++) {
            int c[4];
            lattice_coords(&lat, staggered_half_site(op, 0, i), c);
            double ph = 0;
            for (int mu = 0; mu < 4; mu++) ph += (2 * PI * ks[j][mu] + (mu == 3 ? PI : 0)) / lat.L[mu] * c[mu];
            for (int a = 0; a < nc; a++) {
                v[(i * nc + a) * 2] = cos(ph + a);
                v[(i * nc + a) * 2 + 1] = sin(ph + a);
            }
        }
        staggered_mdagm_ee(op, kv, v);
        const double lam = m * m + free_sin2(&lat, ks[j]);
        for (size_t k = 0; k < hr; k++) worst = fmax(worst, fabs(kv[k] - lam * v[k]));
    }
    CHECK(worst < 1e-13, "SU(%d) free field: plane waves miss m^2 + sum sin^2 p by %g", nc, worst);
    /* the condensate: (nc m / V) sum_p 1/(m^2 + sum sin^2 p) */
    double exact = 0, lmax = 0;
    int k[4];
    for (k[0] = 0; k[0] < 4; k[0]++)
        for (k[1] = 0; k[1] < 4; k[1]++)
            for (k[2] = 0; k[2] < 4; k[2]++)
                for (k[3] = 0; k[3] < 4; k[3]++) {
                    exact += 1 / (m * m + free_sin2(&lat, k));
                    lmax = fmax(lmax, m * m + free_sin2(&lat, k));
                }
    exact *= nc * m / lat.V;
    double err;
    long it;
    const double pbp = staggered_condensate(&u, m, 24, 1234, 7, &err, &it);
    CHECK(err > 0 && fabs(pbp - exact) < 3 * err, "SU(%d) free condensate %.6f +- %.6f, exact %.6f", nc, pbp, err, exact);
    CHECK(err < 0.05 * exact, "SU(%d) free condensate error %g too large for a test", nc, err);
    printf("free condensate SU(%d), m = %g, 4^4: %.6f +- %.6f (exact %.6f), %ld CG iterations\n", nc, m, pbp, err, exact, it);
    double lo, hi;
    staggered_spectral_range(&u, m, &lo, &hi);
    CHECK(lo == m * m && hi >= lmax && hi <= 1.2 * lmax, "free spectral range [%g, %g], spectrum [%g, %g]", lo, hi, m * m, lmax);
    free(v); free(kv);
    staggered_free(op);
    field_free(&u);
}

/* ---- single precision and the solvers ------------------------------------ */
static void test_single_and_solvers(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 31);
    const double m = 0.1;
    struct staggered_op *op = make_op(&u, m);
    const size_t hr = staggered_half_reals(op);
    double *b = malloc(hr * 8), *kb = malloc(hr * 8), *x = calloc(hr, 8), *r = malloc(hr * 8);
    float *bf = malloc(hr * 4), *kf = malloc(hr * 4);
    random_vec(b, hr, 3);
    for (size_t k = 0; k < hr; k++) bf[k] = (float)b[k];
    staggered_mdagm_ee(op, kb, b);
    staggered_mdagm_ee_f(op, kf, bf);
    double d = 0;
    for (size_t k = 0; k < hr; k++) d += (kf[k] - kb[k]) * (kf[k] - kb[k]);
    d = sqrt(d) / norm(kb, hr);
    CHECK(d < 1e-6 && d > 0, "single (M^dag M)_ee differs from double by %g", d);
    struct solver_blas *blas = solver_blas_cpu_open(NULL);
    struct solver_op so;
    staggered_solver_op_ee(&so, op);
    struct solver_params par = {.tol = 1e-10, .max_iter = 5000, .sloppy = SOLVER_SINGLE};
    struct solver_result res;
    enum solver_status st = solver_cg(&so, blas, b, x, &par, &res);
    staggered_mdagm_ee(op, r, x);
    CHECK(st == SOLVER_CONVERGED && rel_diff(r, b, hr) < 1e-10, "mixed CG on (M^dag M)_ee: %s, residual %g",
          solver_status_name(st), rel_diff(r, b, hr));
    /* multi-shift on the normal view */
    struct solver_op sn;
    staggered_solver_op_normal(&sn, op);
    double sig[2] = {0, 0.3};
    double *bf2 = calloc(2 * hr, 8), *x0 = malloc(2 * hr * 8), *x1 = malloc(2 * hr * 8), *xs[2] = {x0, x1};
    memcpy(bf2, b, hr * 8);
    struct solver_result rs[2];
    par.sloppy = SOLVER_DOUBLE;
    st = solver_multishift_cg(&sn, blas, bf2, 2, sig, NULL, xs, &par, rs);
    for (int i = 0; i < 2; i++) {
        staggered_mdagm_ee(op, r, xs[i]);
        for (size_t k = 0; k < hr; k++) r[k] += sig[i] * xs[i][k];
        CHECK(st == SOLVER_CONVERGED && rel_diff(r, b, hr) < 1e-9 && norm(xs[i] + hr, hr) == 0,
              "multi-shift shift %g: residual %g, odd half %g", sig[i], rel_diff(r, b, hr), norm(xs[i] + hr, hr));
    }
    /* the normal view in single: A and A^dag as in double, to float rounding */
    float *nf_in = malloc(2 * hr * 4), *nf_out = malloc(2 * hr * 4);
    double *nd_in = malloc(2 * hr * 8), *nd_out = malloc(2 * hr * 8);
    random_vec(nd_in, 2 * hr, 12);
    for (size_t k = 0; k < 2 * hr; k++) nf_in[k] = (float)nd_in[k];
    for (int dag = 0; dag < 2; dag++) {
        (dag ? sn.apply_dag : sn.apply)(sn.ctx, nd_out, nd_in);
        (dag ? sn.apply_dag_f : sn.apply_f)(sn.ctx, nf_out, nf_in);
        double e = 0;
        for (size_t k = 0; k < 2 * hr; k++) e += (nf_out[k] - nd_out[k]) * (nf_out[k] - nd_out[k]);
        e = sqrt(e) / norm(nd_out, 2 * hr);
        CHECK(e < 1e-6 && e > 0, "normal view%s in single differs from double by %g", dag ? " (dagger)" : "", e);
    }
    /* and A^dag is A's adjoint */
    double *nd_b = malloc(2 * hr * 8), *nd_ab = malloc(2 * hr * 8);
    random_vec(nd_b, 2 * hr, 13);
    sn.apply(sn.ctx, nd_out, nd_in);
    sn.apply_dag(sn.ctx, nd_ab, nd_b);
    const cplx l1 = dot(nd_b, nd_out, 2 * hr), l2 = dot(nd_ab, nd_in, 2 * hr);
    CHECK(cabs(l1 - l2) < 1e-13 * cabs(l1), "normal view: <b, A x> - <A^dag b, x> = %g", cabs(l1 - l2));
    free(nf_in); free(nf_out); free(nd_in); free(nd_out); free(nd_b); free(nd_ab);
    solver_blas_cpu_close(blas);
    free(b); free(kb); free(x); free(r); free(bf); free(kf); free(bf2); free(x0); free(x1);
    staggered_free(op);
    field_free(&u);
}

/* ---- the monomial ------------------------------------------------------- */
static struct rational inverse(void)
{
    struct rational r = {.num = -1, .den = 1, .order = 1, .a0 = 0};
    r.a[0] = 1;
    return r;
}

static void mono_make(struct hmc_monomial *mo, const struct staggered_monomial_params *p, const struct field *u)
{
    char why[256];
    if (staggered_monomial_create(mo, p, u, why, sizeof why) != 0) { fprintf(stderr, "monomial: %s\n", why); exit(1); }
}

/* U_mu(x) -> exp(t X) U_mu(x), X = i H */
static void move_link(struct field *u, const struct field *u0, int64_t x, int mu, const lat_complex *h, double t)
{
    const int n = u->nc;
    lat_complex e[LAT_NC_MAX * LAT_NC_MAX];
    sun_exp_i(n, t, h, e);
    sun_mul(n, (lat_complex *)field_link(u, x, mu), e, (const lat_complex *)field_link(u0, x, mu));
}

/* the force of mo at u against (S(e^{tX}U) - S(e^{-tX}U)) / 2t on 4 links */
static void check_force(struct hmc_monomial *mo, const struct field *u, const char *what)
{
    const int n = u->nc;
    const size_t lr = field_link_reals(n), nf = (size_t)u->lat.V * 4 * lr;
    double *g = calloc(nf, 8);
    mo->force(mo->ctx, u, 1.0, g);
    struct field w;
    field_copy(&w, u);
    const int64_t xs[4] = {0, 1, 77, 200};
    const int mus[4] = {0, 3, 2, 1};
    double worst = 0, ah = 0;
    for (int j = 0; j < 4; j++) {
        lat_real pk[LAT_NC_MAX * LAT_NC_MAX];
        lat_complex h[LAT_NC_MAX * LAT_NC_MAX];
        random_vec(pk, (size_t)alg_dim(n), 100 + j);
        alg_unpack(n, pk, h);
        const double t = 1e-4;
        move_link(&w, u, xs[j], mus[j], h, t);
        const double sp = mo->action(mo->ctx, &w);
        move_link(&w, u, xs[j], mus[j], h, -t);
        const double sm = mo->action(mo->ctx, &w);
        memcpy(field_link(&w, xs[j], mus[j]), field_link(u, xs[j], mus[j]), lr * 8);
        const double num = (sp - sm) / (2 * t);
        /* Re tr(X G), X = i H */
        const double *gl = g + ((size_t)xs[j] * 4 + mus[j]) * lr;
        double an = 0;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                const cplx xab = I * (h[a * n + b].re + I * h[a * n + b].im);
                an += creal(xab * (gl[(b * n + a) * 2] + I * gl[(b * n + a) * 2 + 1]));
                /* G anti-Hermitian */
                const cplx gab = gl[(a * n + b) * 2] + I * gl[(a * n + b) * 2 + 1];
                const cplx gba = gl[(b * n + a) * 2] + I * gl[(b * n + a) * 2 + 1];
                ah = fmax(ah, cabs(gab + conj(gba)));
            }
        worst = fmax(worst, fabs(num - an) / fabs(num));
    }
    CHECK(worst < 1e-6 && ah < 1e-13, "%s: force vs numerical derivative %g relative (anti-Hermiticity %g)", what, worst, ah);
    printf("%s: force matches the numerical derivative to %.2g\n", what, worst);
    field_free(&w);
    free(g);
}

static void test_force(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 41);
    struct hmc_monomial mo;
    struct staggered_monomial_params p = {.mass = 0.2, .nf = 4, .npf = 1, .tol_md = 1e-12, .tol_metropolis = 1e-12,
                                          .max_iter = 10000};
    mono_make(&mo, &p, &u);
    mo.refresh(mo.ctx, &u, 5, 1);
    check_force(&mo, &u, "exact mode");
    staggered_monomial_free(&mo);
    /* exact, two pseudofermions of x^-1 each (nf = 8) */
    p.nf = 8;
    p.npf = 2;
    mono_make(&mo, &p, &u);
    mo.refresh(mo.ctx, &u, 5, 2);
    check_force(&mo, &u, "exact mode, npf = 2");
    staggered_monomial_free(&mo);
    /* a hand-made 3-pole "x^(-1/2)" and "x^(1/4)" (nf = 2): any positive
     * combination is a valid rational whose action and force are exact */
    struct rational r = {.num = -1, .den = 2, .order = 3, .a0 = 0.05};
    r.a[0] = 0.3; r.a[1] = 0.7; r.a[2] = 1.9;
    r.b[0] = 0.01; r.b[1] = 0.4; r.b[2] = 3.0;
    struct rational hb = {.num = 1, .den = 4, .order = 2, .a0 = 1.1};
    hb.a[0] = -0.2; hb.a[1] = -0.6;
    hb.b[0] = 0.5; hb.b[1] = 2.0;
    p = (struct staggered_monomial_params){.mass = 0.2, .nf = 2, .npf = 1, .heatbath = &hb, .md = &r, .metropolis = &r,
                                           .tol_md = 1e-12, .tol_metropolis = 1e-12, .max_iter = 10000};
    mono_make(&mo, &p, &u);
    mo.refresh(mo.ctx, &u, 5, 3);
    check_force(&mo, &u, "3-pole rational");
    /* mixed MD solves give the double force to the MD tolerance */
    const size_t nfr = (size_t)lat.V * 4 * 18;
    double *g1 = calloc(nfr, 8), *g2 = calloc(nfr, 8);
    mo.force(mo.ctx, &u, 1.0, g1);
    struct hmc_monomial mm;
    p.mixed = 1;
    p.tol_md = 1e-9;
    mono_make(&mm, &p, &u);
    mm.refresh(mm.ctx, &u, 5, 3);
    mm.force(mm.ctx, &u, 1.0, g2);
    const double dm = rel_diff(g2, g1, nfr);
    CHECK(dm < 1e-7 && dm > 0, "mixed-precision force differs from double by %g", dm);
    const long mixed_iters = mm.iterations(mm.ctx);
    CHECK(mixed_iters > 0 && mm.iterations(mm.ctx) == 0, "iterations() counts and resets");
    printf("3-pole rational, mixed MD solve (tol 1e-9): force within %.2e of double; %ld iterations (refresh + force)\n",
           dm, mixed_iters);
    /* coeff scales and adds */
    double *g3 = calloc(nfr, 8);
    memcpy(g3, g1, nfr * 8);
    mo.force(mo.ctx, &u, -0.5, g3);
    for (size_t k = 0; k < nfr; k++) g3[k] -= 0.5 * g1[k];
    CHECK(norm(g3, nfr) < 1e-12 * norm(g1, nfr), "force(coeff) does not add coeff * G (%g)", norm(g3, nfr));
    free(g1); free(g2); free(g3);
    staggered_monomial_free(&mm);
    staggered_monomial_free(&mo);
    field_free(&u);
}

/* K_oo = m^2 - D_oe D_eo for solver_cg (the test's own, from the hops) */
struct koo { struct staggered_op *op; double *t; size_t n; };
static void koo_apply(void *c, double *o, const double *in)
{
    struct koo *k = c;
    const double m = staggered_mass(k->op);
    staggered_hop(k->op, 0, k->t, in);
    staggered_hop(k->op, 1, o, k->t);
    for (size_t i = 0; i < k->n; i++) o[i] = m * m * in[i] - o[i];
}

static void test_heatbath(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 51);
    const double m = 0.25;
    struct hmc_monomial mo;
    struct staggered_monomial_params p = {.mass = m, .nf = 4, .npf = 1, .tol_md = 1e-12, .tol_metropolis = 1e-13,
                                          .max_iter = 10000};
    mono_make(&mo, &p, &u);
    mo.refresh(mo.ctx, &u, 99, 4);
    const double se = mo.action(mo.ctx, &u);
    /* chi of the documented stream, psi_o = m chi_o - D_oe chi_e, S_o = psi^dag K_oo^-1 psi */
    struct staggered_op *op = make_op(&u, m);
    const size_t fr = staggered_full_reals(op), hr = staggered_half_reals(op);
    double *chi = malloc(fr * 8), *ce = malloc(hr * 8), *co = malloc(hr * 8), *psi = malloc(hr * 8), *x = calloc(hr, 8);
    staggered_gaussian(op, -1, 99, 0, 4, chi);
    staggered_full_to_half(op, 0, ce, chi);
    staggered_full_to_half(op, 1, co, chi);
    staggered_hop(op, 1, psi, ce);
    for (size_t k = 0; k < hr; k++) psi[k] = m * co[k] - psi[k];
    struct koo kc = {op, malloc(hr * 8), hr};
    struct solver_op so = {.n = hr, .site_reals = 6, .ctx = &kc, .apply = koo_apply, .apply_dag = koo_apply};
    struct solver_blas *blas = solver_blas_cpu_open(NULL);
    struct solver_params par = {.tol = 1e-13, .max_iter = 10000};
    struct solver_result res;
    solver_cg(&so, blas, psi, x, &par, &res);
    const double so_ = creal(dot(psi, x, hr)), c2 = creal(dot(chi, chi, fr));
    CHECK(fabs(se + so_ - c2) < 1e-10 * c2, "exact heatbath: S_e + S_o = %.15g, |chi|^2 = %.15g", se + so_, c2);
    CHECK(fabs(se / (double)hr * 2 - 1) < 0.1, "exact heatbath: S_e = %g far from its mean %zu", se, hr / 2);
    printf("exact heatbath: S_e %.6f + S_o %.6f = %.6f, |chi|^2 %.6f\n", se, so_, se + so_, c2);
    staggered_monomial_free(&mo);
    /* rational mode: S after refresh = eta^dag r_hb r r_hb eta, the three
     * applications done here pole by pole with solver_cg */
    struct rational r = {.num = -1, .den = 2, .order = 2, .a0 = 0.1};
    r.a[0] = 0.5; r.a[1] = 1.5; r.b[0] = 0.05; r.b[1] = 1.0;
    struct rational hb = {.num = 1, .den = 4, .order = 2, .a0 = 0.9};
    hb.a[0] = -0.1; hb.a[1] = -0.4; hb.b[0] = 0.3; hb.b[1] = 2.5;
    p = (struct staggered_monomial_params){.mass = m, .nf = 2, .npf = 1, .heatbath = &hb, .md = &r, .metropolis = &r,
                                           .tol_md = 1e-12, .tol_metropolis = 1e-13, .max_iter = 10000};
    mono_make(&mo, &p, &u);
    mo.refresh(mo.ctx, &u, 99, 5);
    const double sr = mo.action(mo.ctx, &u);
    double *eta = malloc(hr * 8), *phi = malloc(hr * 8), *y = malloc(hr * 8);
    staggered_gaussian(op, 0, 99, 0, 5, eta);
    struct solver_op se_op;
    staggered_solver_op_ee(&se_op, op);
    /* apply a rational f to v into out: a0 v + sum a_i (K + b_i)^-1 v; the
     * shift enters through the mass: K + b = (m^2 + b) - D_eo D_oe */
    const struct rational *fs[2] = {&hb, &r};
    const double *in = eta;
    double *outs[2] = {phi, y};
    for (int f = 0; f < 2; f++) {
        for (size_t k = 0; k < hr; k++) outs[f][k] = fs[f]->a0 * in[k];
        for (int i = 0; i < fs[f]->order; i++) {
            struct staggered_op *ops = make_op(&u, sqrt(m * m + fs[f]->b[i]));
            struct solver_op s2;
            staggered_solver_op_ee(&s2, ops);
            memset(x, 0, hr * 8);
            solver_cg(&s2, blas, in, x, &par, &res);
            for (size_t k = 0; k < hr; k++) outs[f][k] += fs[f]->a[i] * x[k];
            staggered_free(ops);
        }
        in = outs[f];
    }
    const double sref = creal(dot(phi, y, hr));
    CHECK(fabs(sr - sref) < 1e-10 * fabs(sref), "rational heatbath + action %.15g, pole by pole %.15g", sr, sref);
    staggered_monomial_free(&mo);
    solver_blas_cpu_close(blas);
    free(chi); free(ce); free(co); free(psi); free(x); free(kc.t); free(eta); free(phi); free(y);
    staggered_free(op);
    field_free(&u);
}

/* ---- threads ---------------------------------------------------------- */
static void test_threads(void)
{
#ifdef _OPENMP
    struct lattice lat;
    make_lattice(&lat, 8, 8, 8, 4);
    struct field u;
    hot_field(&u, &lat, 3, 61);
    const int saved = omp_get_max_threads();
    double *k[2], *g[2], pbp[2], s[2];
    size_t hr = 0, nfr = (size_t)lat.V * 4 * 18;
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        struct staggered_op *op = make_op(&u, 0.3);
        hr = staggered_half_reals(op);
        double *v = malloc(hr * 8);
        random_vec(v, hr, 8);
        k[t] = malloc(hr * 8);
        staggered_mdagm_ee(op, k[t], v);
        staggered_free(op);
        free(v);
        double err;
        pbp[t] = staggered_condensate(&u, 0.3, 2, 3, 1, &err, NULL);
        struct hmc_monomial mo;
        struct staggered_monomial_params p = {.mass = 0.3, .nf = 4, .npf = 1, .tol_md = 1e-8, .tol_metropolis = 1e-10,
                                              .max_iter = 10000};
        mono_make(&mo, &p, &u);
        mo.refresh(mo.ctx, &u, 5, 1);
        s[t] = mo.action(mo.ctx, &u);
        g[t] = calloc(nfr, 8);
        mo.force(mo.ctx, &u, 1.0, g[t]);
        staggered_monomial_free(&mo);
    }
    omp_set_num_threads(saved);
    CHECK(memcmp(k[0], k[1], hr * 8) == 0 && memcmp(g[0], g[1], nfr * 8) == 0 && pbp[0] == pbp[1] && s[0] == s[1],
          "1 and 2 threads differ (operator %d, force %d, condensate %d, action %d)", memcmp(k[0], k[1], hr * 8) != 0,
          memcmp(g[0], g[1], nfr * 8) != 0, pbp[0] != pbp[1], s[0] != s[1]);
    for (int t = 0; t < 2; t++) { free(k[t]); free(g[t]); }
    field_free(&u);
#endif
}

/* ---- refusals -------------------------------------------------------------- */
static void test_refusals(void)
{
    char why[256];
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 71);
    CHECK(!staggered_create(&u, -1, why, sizeof why) && strstr(why, "mass"), "negative mass: %s", why);
    u.kind = FIELD_TRANSFORM; /* slabs are allowed now (test_hmc_mpi); other kinds are not */
    CHECK(!staggered_create(&u, 0.1, why, sizeof why) && strstr(why, "gauge-link field"), "not links: %s", why);
    u.kind = FIELD_LINKS;
    struct hmc_monomial mo;
    struct staggered_monomial_params p = {.mass = 0.1, .nf = 2, .npf = 1, .tol_md = 1e-8, .tol_metropolis = 1e-10,
                                          .max_iter = 100};
    CHECK(staggered_monomial_create(&mo, &p, &u, why, sizeof why) != 0 && strstr(why, "nf = 4 npf"), "exact nf 2: %s", why);
    struct rational inv = inverse();
    p.heatbath = &inv; /* x^-1 is not x^(1/4) */
    p.md = p.metropolis = &inv;
    CHECK(staggered_monomial_create(&mo, &p, &u, why, sizeof why) != 0 && strstr(why, "heatbath"), "wrong power: %s", why);
    p = (struct staggered_monomial_params){.mass = 0.1, .nf = 4, .npf = 1, .tol_md = 2, .tol_metropolis = 1e-10, .max_iter = 100};
    CHECK(staggered_monomial_create(&mo, &p, &u, why, sizeof why) != 0 && strstr(why, "tolerance"), "tol 2: %s", why);
    field_free(&u);
}

int main(void)
{
    test_reference(3);
    test_reference(2);
    test_invariants();
    test_free(3);
    test_free(2);
    test_single_and_solvers();
    test_force();
    test_heatbath();
    test_threads();
    test_refusals();
    return unit_done("test_staggered");
}
