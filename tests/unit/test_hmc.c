/* test_hmc.c -- the HMC machinery (math/su3_exp.h, kernels/hmc):
 *   - su3_exp_antiherm against a long-double Taylor series (scaling and
 *     squaring) to 1e-14, over |Q| from 1e-9 to 8, degenerate eigenvalues
 *     (c0 = +-c0max) and c0 < 0; unitarity and |det - 1| to 1e-14; the
 *     general-N path (N = 2, 4) against the same series to 1e-14
 *     (unitarity 3e-14: its squarings);
 *   - momenta: anti-Hermitian and traceless; <T> per link = (N^2-1)/2
 *     within 4 sigma on 8^4 (16384 links); the same bits for the same
 *     (seed, trajectory), other bits for another trajectory;
 *   - the gauge action equals beta 6V (1 - P) of lat-measure's plaquette;
 *     the gauge force is traceless anti-Hermitian and equals the
 *     numerical derivative d/dt S(exp(tX) U) (fourth-order central
 *     differences) along random su(3) directions X to 1e-7 relative;
 *   - reversibility: integrate, flip P, integrate: links back to 1e-10 and
 *     H back to 1e-9 (4^4 and 8^4, two time scales: the gauge action split in two
 *     monomials beta/2 on scales 0 and 1);
 *   - energy error: over 6 fixed starts (thermalised 4^4, beta 5.7)
 *     mean(dH^2) ~ h^(2p) with the step h = tau/md_steps (md_steps 12,
 *     24, 48): the fitted exponent 2p is 4 +- 0.5 (2MN is second order:
 *     dH ~ h^2 per trajectory, so <dH^2> ~ h^4 and, at equilibrium,
 *     <dH> = <dH^2>/2 ~ h^4);
 *   - trajectories give the same bits with 1 and 2 threads; a rejected
 *     trajectory restores the links bit for bit;
 *   - hmc_on_device: the gauge monomial has its device callbacks, a
 *     monomial without force_gpu or with refresh but no refresh_gpu has
 *     none (the device path itself: scripts/hmc-gauge-emulation). */
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#include "lattice/field.h"
#include "lattice/observables.h"
#include "math/rng.h"
#include "math/su3_exp.h"
#include "unit.h"
#include "vec.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long double re, im; } lcx;

/* reference exp(Q) in long double: scale until |Q| < 1/4, 30 Taylor terms,
 * square back */
static void ref_exp(int n, const lat_complex *q, lcx *r)
{
    lcx x[64], t[64], term[64];
    long double nrm = 0;
    for (int i = 0; i < n * n; i++) nrm += fabsl((long double)q[i].re) + fabsl((long double)q[i].im);
    int sq = 0;
    long double s = 1;
    while (nrm * s > 0.25L) { s /= 2; sq++; }
    for (int i = 0; i < n * n; i++) { x[i].re = q[i].re * s; x[i].im = q[i].im * s; }
    for (int i = 0; i < n * n; i++) { r[i].re = term[i].re = (i % (n + 1) == 0); r[i].im = term[i].im = 0; }
    for (int k = 1; k <= 30; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                lcx a = {0, 0};
                for (int l = 0; l < n; l++) {
                    a.re += term[i * n + l].re * x[l * n + j].re - term[i * n + l].im * x[l * n + j].im;
                    a.im += term[i * n + l].re * x[l * n + j].im + term[i * n + l].im * x[l * n + j].re;
                }
                t[i * n + j].re = a.re / k;
                t[i * n + j].im = a.im / k;
            }
        for (int i = 0; i < n * n; i++) { term[i] = t[i]; r[i].re += t[i].re; r[i].im += t[i].im; }
    }
    for (int k = 0; k < sq; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                lcx a = {0, 0};
                for (int l = 0; l < n; l++) {
                    a.re += r[i * n + l].re * r[l * n + j].re - r[i * n + l].im * r[l * n + j].im;
                    a.im += r[i * n + l].re * r[l * n + j].im + r[i * n + l].im * r[l * n + j].re;
                }
                t[i * n + j] = a;
            }
        for (int i = 0; i < n * n; i++) r[i] = t[i];
    }
}

/* a random traceless anti-Hermitian matrix of Frobenius-ish size scale */
static void random_antiherm(int n, struct lat_rng *r, double scale, lat_complex *q)
{
    lat_real p[LAT_NC_MAX * LAT_NC_MAX];
    lat_complex h[LAT_NC_MAX * LAT_NC_MAX];
    for (int k = 0; k < n * n - 1; k++) p[k] = scale * rng_normal(r);
    alg_unpack(n, p, h);
    for (int i = 0; i < n * n; i++) q[i] = c_make(-h[i].im, h[i].re); /* Q = i H */
}

static double exp_error(int n, const lat_complex *q, double *unit, double *det)
{
    lat_complex e[LAT_NC_MAX * LAT_NC_MAX];
    lcx ref[64];
    sun_exp_antiherm(n, q, e);
    ref_exp(n, q, ref);
    double err = 0;
    for (int i = 0; i < n * n; i++) {
        double d = (double)hypotl(e[i].re - ref[i].re, e[i].im - ref[i].im);
        if (d > err) err = d;
    }
    *unit = sun_unitarity_dev(n, e);
    lat_complex dt = sun_det(n, e);
    *det = hypot(dt.re - 1, dt.im);
    return err;
}

static void test_exp(void)
{
    struct lat_rng r;
    rng_init(&r, 11, 0, 0, 0, RNG_TEST);
    const double scales[] = {1e-9, 1e-6, 1e-4, 3e-3, 0.03, 0.1, 0.3, 1, 2, 4, 8};
    double worst = 0, worst_u = 0, worst_d = 0;
    for (size_t s = 0; s < sizeof scales / sizeof *scales; s++)
        for (int k = 0; k < 50; k++) {
            lat_complex q[9];
            double u, d;
            random_antiherm(3, &r, scales[s], q);
            double e = exp_error(3, q, &u, &d);
            if (e > worst) worst = e;
            if (u > worst_u) worst_u = u;
            if (d > worst_d) worst_d = d;
        }
    printf("su3_exp: max error %.3g, unitarity %.3g, |det-1| %.3g\n", worst, worst_u, worst_d);
    CHECK(worst < 1e-14, "su3_exp vs Taylor: max error %.3g", worst);
    CHECK(worst_u < 1e-14 && worst_d < 1e-14, "su3_exp: unitarity %.3g, |det-1| %.3g", worst_u, worst_d);
    /* degenerate eigenvalues: H = diag(a, a, -2a) (c0 = -c0max for a > 0,
     * +c0max for a < 0), and H with c0 = 0 (eigenvalues a, 0, -a) */
    const double as[] = {1e-5, 0.3, 1.7, -0.3, -1.7};
    for (size_t i = 0; i < sizeof as / sizeof *as; i++) {
        lat_complex q[9];
        double u, d;
        sun_zero(3, q);
        q[0] = c_make(0, as[i]);
        q[4] = c_make(0, as[i]);
        q[8] = c_make(0, -2 * as[i]);
        double e = exp_error(3, q, &u, &d);
        CHECK(e < 1e-14 && u < 1e-14 && d < 1e-14, "su3_exp diag(a,a,-2a) a=%g: err %.3g unit %.3g det %.3g", as[i], e, u, d);
        sun_zero(3, q);
        q[0] = c_make(0, as[i]);
        q[8] = c_make(0, -as[i]);
        q[1] = c_make(0.2 * as[i], 0.1 * as[i]);
        q[3] = c_make(-0.2 * as[i], 0.1 * as[i]);
        e = exp_error(3, q, &u, &d);
        CHECK(e < 1e-14 && u < 1e-14 && d < 1e-14, "su3_exp c0~0 a=%g: err %.3g unit %.3g det %.3g", as[i], e, u, d);
    }
    /* c0 < 0 and c0 > 0 agree with exp(-Q) = exp(Q)^dag */
    for (int n = 2; n <= 4; n += 2) {
        double w = 0, wu = 0;
        for (int k = 0; k < 30; k++) {
            lat_complex q[16];
            double u, d;
            random_antiherm(n, &r, 0.5 + k * 0.1, q);
            double e = exp_error(n, q, &u, &d);
            if (e > w) w = e;
            if (u > wu) wu = u;
        }
        /* the squarings of the series (|Q| up to 3.4: 3 of them) leave
         * ||U^dag U - 1||_F at ~1e-14 for N = 4 */
        CHECK(w < 1e-14 && wu < 3e-14, "sun_exp_antiherm N=%d: err %.3g unitarity %.3g", n, w, wu);
    }
}

static void cold_or_hot(struct field *u, int L, int hot, uint64_t seed)
{
    struct lattice lat;
    int e[4] = {L, L, L, L};
    lattice_init(&lat, e, NULL);
    field_alloc(u, &lat, 3, 64);
    if (hot) field_set_random(u, seed); else field_set_unit(u);
}

static void test_momenta(void)
{
    struct field u;
    cold_or_hot(&u, 8, 0, 1);
    double *p = hmc_momenta_alloc(&u), *p2 = hmc_momenta_alloc(&u);
    hmc_momenta_draw(p, &u, 5, 3);
    double worst = 0;
    for (int64_t i = 0; i < u.lat.V * 4; i++) {
        const lat_complex *m = (const lat_complex *)(p + i * 18);
        lat_complex tr = sun_trace(3, m);
        double d = hypot(tr.re, tr.im);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) d += hypot(m[a * 3 + b].re + m[b * 3 + a].re, m[a * 3 + b].im - m[b * 3 + a].im);
        if (d > worst) worst = d;
    }
    CHECK(worst < 1e-15, "momenta: anti-Hermitian and traceless, deviation %.3g", worst);
    double links = (double)u.lat.V * 4, T = hmc_kinetic_energy(p, &u);
    /* T per link = chi^2_8 / 2: mean 4, variance 4 */
    double sigma = 2 / sqrt(links);
    CHECK(fabs(T / links - 4) < 4 * sigma, "<T> per link = %.5f, expected 4 +- %.4f", T / links, sigma);
    hmc_momenta_draw(p2, &u, 5, 3);
    size_t n = (size_t)u.lat.V * 4 * 18;
    CHECK(memcmp(p, p2, n * sizeof *p) == 0, "momenta: same (seed, trajectory), same bits");
    hmc_momenta_draw(p2, &u, 5, 4);
    CHECK(memcmp(p, p2, n * sizeof *p) != 0, "momenta: another trajectory, other numbers");
    free(p);
    free(p2);
    field_free(&u);
}

static void test_force(void)
{
    struct field u, v;
    cold_or_hot(&u, 4, 1, 21);
    const double beta = 5.7;
    struct plaquette pl = measure_plaquette(&u);
    double S = hmc_gauge_action(&u, beta);
    CHECK(fabs(S - beta * 6 * u.lat.V * (1 - pl.all)) < 1e-10 * S, "S = %.15g vs beta 6V(1-P) = %.15g", S,
          beta * 6 * u.lat.V * (1 - pl.all));
    double *f = hmc_momenta_alloc(&u);
    hmc_gauge_force(&u, beta, 1.0, f);
    double worst_ah = 0, worst_rel = 0;
    struct lat_rng r;
    rng_init(&r, 9, 0, 0, 0, RNG_TEST);
    for (int64_t i = 0; i < u.lat.V * 4; i++) {
        const lat_complex *g = (const lat_complex *)(f + i * 18);
        lat_complex tr = sun_trace(3, g);
        double d = hypot(tr.re, tr.im);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) d += hypot(g[a * 3 + b].re + g[b * 3 + a].re, g[a * 3 + b].im - g[b * 3 + a].im);
        if (d > worst_ah) worst_ah = d;
    }
    CHECK(worst_ah < 1e-13, "force: traceless anti-Hermitian, deviation %.3g", worst_ah);
    field_copy(&v, &u);
    for (int k = 0; k < 12; k++) {
        int64_t x = (int64_t)(rng_uniform(&r) * u.lat.V);
        int mu = k % 4;
        lat_complex X[9], e[9], t[9];
        random_antiherm(3, &r, 1.0, X);
        const lat_complex *G = (const lat_complex *)(f + (x * 4 + mu) * 18);
        double analytic = sun_retrace_mul(3, X, G);
        const double h = 1e-3;
        double s[4];
        const double ts[4] = {-2 * h, -h, h, 2 * h};
        for (int j = 0; j < 4; j++) {
            for (int i = 0; i < 9; i++) t[i] = c_scale(ts[j], X[i]);
            sun_exp_antiherm(3, t, e);
            memcpy(v.d, u.d, field_reals(&u) * sizeof *u.d);
            lat_complex *l = (lat_complex *)field_link(&v, x, mu);
            sun_mul(3, t, e, (const lat_complex *)field_link(&u, x, mu));
            sun_copy(3, l, t);
            s[j] = hmc_gauge_action(&v, beta);
        }
        double numeric = (8 * (s[2] - s[1]) - (s[3] - s[0])) / (12 * h);
        double rel = fabs(numeric - analytic) / fabs(analytic);
        if (rel > worst_rel) worst_rel = rel;
    }
    printf("gauge force vs numerical derivative: max relative difference %.3g\n", worst_rel);
    CHECK(worst_rel < 1e-7, "force vs numerical derivative: max relative difference %.3g", worst_rel);
    field_free(&v);
    free(f);
    field_free(&u);
}

/* thermalise a 4^4 field at beta from cold with n trajectories */
static void thermalised_L(struct field *u, int L, double beta, int n, uint64_t seed)
{
    cold_or_hot(u, L, 0, seed);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, beta, 0);
    struct hmc_params par = {{1.0, 10, 1}, seed};
    for (int i = 0; i < n; i++) {
        struct hmc_result res;
        hmc_trajectory(&par, &m, 1, u, (uint32_t)i, &res, NULL);
    }
}

static void thermalised(struct field *u, double beta, int n, uint64_t seed) { thermalised_L(u, 4, beta, n, seed); }

static void test_reversibility(int L)
{
    struct field u, u0;
    thermalised_L(&u, L, 5.7, 5, 3);
    field_copy(&u0, &u);
    struct hmc_gauge_ctx g1, g2;
    struct hmc_monomial m[2] = {hmc_gauge_monomial(&g1, 2.85, 0), hmc_gauge_monomial(&g2, 2.85, 1)};
    struct hmc_integrator it = {0.5, 3, 2};
    double *p = hmc_momenta_alloc(&u);
    hmc_momenta_draw(p, &u, 77, 0);
    double H0 = hmc_hamiltonian(m, 2, &u, p, NULL);
    hmc_integrate(&it, m, 2, &u, p, NULL);
    double H1 = hmc_hamiltonian(m, 2, &u, p, NULL);
    size_t n = (size_t)u.lat.V * 4 * 18;
    for (size_t i = 0; i < n; i++) p[i] = -p[i];
    hmc_integrate(&it, m, 2, &u, p, NULL);
    double H2 = hmc_hamiltonian(m, 2, &u, p, NULL), dmax = 0;
    for (size_t i = 0; i < field_reals(&u); i++) {
        double d = fabs(u.d[i] - u0.d[i]);
        if (d > dmax) dmax = d;
    }
    printf("reversibility %d^4: max link change %.3g, |H(back) - H0| %.3g, forward dH %.3g\n", L, dmax, fabs(H2 - H0), H1 - H0);
    CHECK(dmax < 1e-10, "reversibility: max link change %.3g", dmax);
    CHECK(fabs(H2 - H0) < 1e-9, "reversibility: |H(back) - H0| = %.3g (dH forward %.3g)", fabs(H2 - H0), H1 - H0);
    CHECK(fabs(H1 - H0) > 1e-6, "the forward trajectory moved H (%.3g): the test is not trivial", H1 - H0);
    free(p);
    field_free(&u);
    field_free(&u0);
}

static void test_scaling(void)
{
    struct field start, u;
    thermalised(&start, 5.7, 8, 4);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, 5.7, 0);
    const int steps[3] = {12, 24, 48};
    double msq[3] = {0, 0, 0};
    double *p = hmc_momenta_alloc(&start);
    const int nstart = 6;
    for (int s = 0; s < nstart; s++) {
        for (int k = 0; k < 3; k++) {
            field_copy(&u, &start);
            hmc_momenta_draw(p, &u, 99, (uint32_t)s);
            struct hmc_integrator it = {1.0, steps[k], 1};
            double H0 = hmc_hamiltonian(&m, 1, &u, p, NULL);
            hmc_integrate(&it, &m, 1, &u, p, NULL);
            double dH = hmc_hamiltonian(&m, 1, &u, p, NULL) - H0;
            msq[k] += dH * dH / nstart;
            field_free(&u);
        }
    }
    /* the exponent of mean(dH^2) in the step size h = 1/md_steps */
    double h[3];
    for (int k = 0; k < 3; k++) h[k] = 1.0 / steps[k];
    double slope = loglog_slope(h, msq, 3);
    printf("dH scaling: mean dH^2 = %.3g, %.3g, %.3g at md_steps 12, 24, 48: exponent %.3f\n", msq[0], msq[1], msq[2],
           slope);
    CHECK(fabs(slope - 4) < 0.5, "mean(dH^2) ~ h^%.3f, expected h^4 +- 0.5", slope);
    free(p);
    field_free(&start);
}

static void test_threads_and_reject(void)
{
    struct field a, b;
    thermalised(&a, 6.0, 2, 8);
    field_copy(&b, &a);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, 6.0, 0);
    struct hmc_params par = {{1.0, 6, 1}, 8};
    struct hmc_result ra, rb;
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    for (int i = 0; i < 3; i++) hmc_trajectory(&par, &m, 1, &a, 100 + i, &ra, NULL);
    omp_set_num_threads(2);
    for (int i = 0; i < 3; i++) hmc_trajectory(&par, &m, 1, &b, 100 + i, &rb, NULL);
    omp_set_num_threads(nt);
    CHECK(memcmp(a.d, b.d, field_reals(&a) * sizeof *a.d) == 0 && memcmp(&ra.dH, &rb.dH, sizeof ra.dH) == 0,
          "1 and 2 threads: same links and dH (%.17g vs %.17g)", ra.dH, rb.dH);
    /* one step over a long trajectory from a hot start: dH is huge */
    struct field h, h0;
    cold_or_hot(&h, 4, 1, 5);
    field_copy(&h0, &h);
    struct hmc_params bad = {{2.0, 1, 1}, 8};
    hmc_trajectory(&bad, &m, 1, &h, 0, &ra, NULL);
    CHECK(!ra.accepted && ra.dH > 10, "a trajectory with dH = %g is rejected", ra.dH);
    CHECK(memcmp(h.d, h0.d, field_reals(&h) * sizeof *h.d) == 0, "a rejected trajectory restores the links bit for bit");
    field_free(&h);
    field_free(&h0);
    field_free(&a);
    field_free(&b);
}

/* a refresh that never runs: hmc_on_device only looks at the pointers */
static void no_refresh(void *ctx, const struct field *u, uint64_t seed, uint32_t trajectory)
{
    (void)ctx, (void)u, (void)seed, (void)trajectory;
}

/* which monomials the device integrator takes: every one with its device
 * callbacks (the gauge monomial has them), none without */
static void test_on_device(void)
{
    struct hmc_gauge_ctx g;
    struct hmc_monomial m[2] = {hmc_gauge_monomial(&g, 6.0, 0), hmc_gauge_monomial(&g, 6.0, 1)};
    CHECK(hmc_on_device(m, 2) == 1 && m[0].action_gpu && m[0].force_gpu && !m[0].refresh_gpu,
          "the gauge monomial has device action and force (no refresh)");
    m[1].force_gpu = NULL;
    CHECK(hmc_on_device(m, 2) == 0 && hmc_on_device(m, 1) == 1, "a monomial without force_gpu: no device path");
    m[1] = m[0];
    m[1].refresh = no_refresh; /* random fields drawn on the host only */
    CHECK(hmc_on_device(m, 2) == 0, "a monomial with refresh but no refresh_gpu: no device path");
}

int main(void)
{
    test_on_device();
    test_exp();
    test_momenta();
    test_force();
    test_reversibility(4);
    test_reversibility(8);
    test_scaling();
    test_threads_and_reject();
    return unit_done("test_hmc");
}
