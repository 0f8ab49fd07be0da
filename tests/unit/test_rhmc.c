/* test_rhmc.c -- the HMC with dynamical staggered fermions as lat-hmc
 * assembles it (hmc/integrator.h over the gauge monomial on time scale 1
 * and the staggered monomial, hmc/staggered_monomial.h, on scale 0, with
 * rationals from rational_remez_tol on the staggered_spectral_range):
 *   - reversibility, N_f = 2 RHMC on a thermalised 4^4 (beta 5.5, am 0.1),
 *     solver tolerances 1e-14: integrate, flip P, integrate: the links
 *     come back to 1e-10 and H (with the fermion action) to 1e-9; and the
 *     same for exact N_f = 4 HMC;
 *   - the energy error, am 0.5 (at 0.1 this quenched-thermalised start
 *     has eigenvalues near m^2 that keep md_steps 4..8 out of the
 *     asymptotic regime): over 4 fixed starts (one thermalised 4^4, momenta
 *     and pseudofermions of 4 trajectory numbers), mean(dH^2) ~ h^(2p) for
 *     h = 1/md_steps, md_steps 4, 6, 8 (two gauge substeps); the fitted
 *     exponent is 4 +- 0.5 (2MN: dH ~ h^2 per trajectory).  The MD rational
 *     is the Metropolis one here, so that H is the exact shadow of the
 *     force to 1e-12 and nothing but the step size makes dH;
 *   - the refresh identity: right after refresh the fermion action equals
 *     |eta|^2 of its Gaussian draw: its mean over the field is 1 per complex
 *     entry within 5 sigma (r_hb^2 r_met = 1 to 1e-12);
 *   - the spectral range holds the power-iteration estimate: lo = m^2
 *     exactly and hi >= the Rayleigh quotient of a Gaussian vector
 *     (any vector's quotient is <= lambda_max).
 * The free-field condensate (momentum sum) and the force against the
 * numerical derivative are in test_staggered. */
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#include "hmc/staggered_monomial.h"
#include "dirac/staggered.h"
#include "lattice/field.h"
#include "rational/rational.h"
#include "unit.h"
#include "vec.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MASS 0.1
#define BETA 5.5

static struct rational hb, met;

static void thermalised(struct field *u, uint64_t seed)
{
    struct lattice lat;
    int e[4] = {4, 4, 4, 4};
    lattice_init(&lat, e, NULL);
    field_alloc(u, &lat, 3, 64);
    field_set_random(u, seed);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, BETA, 0);
    struct hmc_params par = {{1.0, 10, 1}, seed};
    for (int i = 0; i < 10; i++) {
        struct hmc_result res;
        hmc_trajectory(&par, &m, 1, u, (uint32_t)i, &res, NULL);
    }
}

/* the gauge monomial (scale 1) and N_f staggered flavours (scale 0) */
static void make_monomials(struct hmc_monomial m[2], struct hmc_gauge_ctx *g, const struct field *u, int nf,
                           int rational, double tol, double mass)
{
    char why[256];
    m[0] = hmc_gauge_monomial(g, BETA, 1);
    struct staggered_monomial_params p = {.mass = mass, .nf = nf, .npf = 1, .tol_md = tol, .tol_metropolis = tol,
                                          .max_iter = 100000, .timescale = 0};
    if (rational) {
        double lo, hi;
        staggered_spectral_range(u, mass, &lo, &hi);
        int e = rational_remez_tol(&hb, nf, 8, 1e-12, lo, hi, why, sizeof why);
        e = e || rational_remez_tol(&met, -nf, 4, 1e-12, lo, hi, why, sizeof why);
        CHECK(e == 0, "rationals on [%g, %g]: %s", lo, hi, e ? why : "ok");
        CHECK(hb.max_rel_error <= 1e-12 && met.max_rel_error <= 1e-12, "rational errors %.3g, %.3g <= 1e-12",
              hb.max_rel_error, met.max_rel_error);
        p.heatbath = &hb;
        p.md = &met;
        p.metropolis = &met;
    }
    int c = staggered_monomial_create(&m[1], &p, u, why, sizeof why);
    CHECK(c == 0, "staggered monomial: %s", c ? why : "ok");
    if (c) exit(1);
}

static void test_reversibility(int nf, int rational)
{
    struct field u, u0;
    thermalised(&u, 3);
    field_copy(&u0, &u);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m[2];
    make_monomials(m, &g, &u, nf, rational, 1e-14, MASS);
    struct hmc_integrator it = {0.5, 4, 2};
    double *p = hmc_momenta_alloc(&u);
    hmc_momenta_draw(p, &u, 77, 0);
    m[1].refresh(m[1].ctx, &u, 77, 0);
    double s0[2], s2[2];
    double H0 = hmc_hamiltonian(m, 2, &u, p, s0);
    hmc_integrate(&it, m, 2, &u, p, NULL);
    double H1 = hmc_hamiltonian(m, 2, &u, p, NULL);
    size_t n = (size_t)u.lat.V * 4 * 18;
    for (size_t i = 0; i < n; i++) p[i] = -p[i];
    hmc_integrate(&it, m, 2, &u, p, NULL);
    double H2 = hmc_hamiltonian(m, 2, &u, p, s2), dmax = 0;
    for (size_t i = 0; i < field_reals(&u); i++) dmax = fmax(dmax, fabs(u.d[i] - u0.d[i]));
    printf("reversibility nf %d %s: max link change %.3g, |H(back) - H0| %.3g (fermion action %.3g), forward dH %.3g\n", nf,
           rational ? "rhmc" : "exact", dmax, fabs(H2 - H0), fabs(s2[1] - s0[1]), H1 - H0);
    CHECK(dmax < 1e-10, "reversibility nf %d: max link change %.3g", nf, dmax);
    CHECK(fabs(H2 - H0) < 1e-9, "reversibility nf %d: |H(back) - H0| = %.3g", nf, fabs(H2 - H0));
    CHECK(fabs(H1 - H0) > 1e-6, "the forward trajectory moved H (%.3g): the test is not trivial", H1 - H0);
    CHECK(s0[1] > 0, "the fermion action is part of H (%.6g)", s0[1]);
    staggered_monomial_free(&m[1]);
    free(p);
    field_free(&u);
    field_free(&u0);
}

static void test_scaling(void)
{
    struct field start, u;
    thermalised(&start, 4);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m[2];
    make_monomials(m, &g, &start, 2, 1, 1e-12, 0.5);
    const int steps[3] = {4, 6, 8};
    double msq[3] = {0, 0, 0};
    double *p = hmc_momenta_alloc(&start);
    const int nstart = 4;
    for (int s = 0; s < nstart; s++) {
        for (int k = 0; k < 3; k++) {
            field_copy(&u, &start);
            hmc_momenta_draw(p, &u, 99, (uint32_t)s);
            m[1].refresh(m[1].ctx, &u, 99, (uint32_t)s);
            struct hmc_integrator it = {1.0, steps[k], 2};
            double H0 = hmc_hamiltonian(m, 2, &u, p, NULL);
            hmc_integrate(&it, m, 2, &u, p, NULL);
            double dH = hmc_hamiltonian(m, 2, &u, p, NULL) - H0;
            msq[k] += dH * dH / nstart;
            field_free(&u);
        }
    }
    /* the exponent of mean(dH^2) in the step size h = 1/md_steps */
    double h[3];
    for (int k = 0; k < 3; k++) h[k] = 1.0 / steps[k];
    double slope = loglog_slope(h, msq, 3);
    printf("nf 2 dH scaling: mean dH^2 = %.3g, %.3g, %.3g at md_steps 4, 6, 8: exponent %.3f\n", msq[0], msq[1], msq[2],
           slope);
    CHECK(fabs(slope - 4) < 0.5, "nf 2: mean(dH^2) ~ h^%.3f, expected h^4 +- 0.5", slope);
    staggered_monomial_free(&m[1]);
    free(p);
    field_free(&start);
}

static void test_refresh_and_range(void)
{
    struct field u;
    thermalised(&u, 5);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m[2];
    make_monomials(m, &g, &u, 2, 1, 1e-12, MASS);
    m[1].refresh(m[1].ctx, &u, 5, 0);
    const double S = m[1].action(m[1].ctx, &u);
    const double n = (double)u.lat.V / 2 * 3; /* complex entries on the even sites */
    /* |eta|^2 with E|eta_i|^2 = 1 is a sum of n Exp(1): variance n */
    printf("refresh: S / n = %.6f (n %.0f, sigma %.4f)\n", S / n, n, 1 / sqrt(n));
    CHECK(fabs(S / n - 1) < 5 / sqrt(n), "after refresh S / n = %.6f, expected 1 +- %.4f", S / n, 5 / sqrt(n));
    staggered_monomial_free(&m[1]);

    double lo, hi;
    staggered_spectral_range(&u, MASS, &lo, &hi);
    char why[256];
    struct staggered_op *op = staggered_create(&u, MASS, why, sizeof why);
    const size_t hr = staggered_half_reals(op);
    double *v = calloc(hr, sizeof *v), *w = calloc(hr, sizeof *w);
    staggered_gaussian(op, 0, 9, 0, 0, v);
    staggered_mdagm_ee(op, w, v);
    double vv = 0, vw = 0;
    for (size_t k = 0; k < hr; k++) vv += v[k] * v[k], vw += v[k] * w[k];
    CHECK(lo == MASS * MASS, "lo = %.17g is m^2 exactly", lo);
    CHECK(hi >= vw / vv && hi <= MASS * MASS + 16, "hi = %.6g holds a Rayleigh quotient %.6g and is <= m^2 + 16", hi,
          vw / vv);
    free(v);
    free(w);
    staggered_free(op);
    field_free(&u);
}

int main(void)
{
    test_reversibility(2, 1);
    test_reversibility(4, 0);
    test_scaling();
    test_refresh_and_range();
    return unit_done("test_rhmc");
}
