/* hmc_checks.h -- lat-hmc's GPU solver backend (hmc/staggered_gpu_solver.h)
 * in whole HMC trajectories against the CPU path, shared by the host
 * emulation (scripts/hmc-gpu-emulation.cpp: the kernels run on the host)
 * and the real GPU (tests/gpu/test_gpu_hmc.c).  C and C++.
 *
 *   hc_run(L)  on the lattice L (a start: cold links, two pure-gauge HMC
 *       trajectories at beta 5.7), beta 5.6, m = 0.1, tau 0.25, 4 2MN steps
 *       (2 gauge substeps), every solve to 1e-12, the same seed and
 *       trajectory on both paths:
 *   - N_f = 2 (RHMC, rationals fitted as lat-hmc fits them on [m^2,
 *     1.1 lambda_max]) and N_f = 4 (exact HMC), a trajectory without its
 *     Metropolis step (hmc_trajectory's pieces: momenta, refresh, H0,
 *     hmc_integrate, H1): H0 and H1 within 1e-9, |dH_gpu - dH_cpu| <= 1e-9,
 *     the links at the end of the molecular dynamics within 1e-10
 *     (largest |difference| of a real; never restored links), and the GPU
 *     path really solved (iterations > 0, transfer seconds > 0);
 *   - N_f = 2 with the MD solves mixed (single recursion, tol_md 1e-8) on
 *     the GPU path: dH within 1e-6 of the double CPU path's;
 *   - the condensate's CG on the GPU (4 Z2 noise vectors, tol 1e-10):
 *     within 1e-9 relative of the CPU's.
 * The tolerances: both paths run the same solves with the same operator;
 * only the GPU's sums run in another order, so the solutions differ by
 * rounding amplified by the Krylov iteration (the emulation: dH 4e-13,
 * links 2e-15 on 4^4). */
#ifndef LAT_TESTS_HMC_CHECKS_H
#define LAT_TESTS_HMC_CHECKS_H

#include "hmc/staggered_gpu_solver.h"
#include "hmc/staggered_monomial.h"
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#include "hmc/gauge.h"
#include "rational/rational.h"
#include "lattice/field.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double HC_BETA = 5.6, HC_MASS = 0.1;
static const uint64_t HC_SEED = 7;
static const uint32_t HC_TRAJ = 3;
static const double HC_TAU = 0.25;
static const int HC_MD_STEPS = 4;

static inline double hc_max_link_diff(const struct field *a, const struct field *b)
{
    double d = 0;
    for (size_t i = 0; i < field_reals(a); i++) d = fmax(d, fabs(a->d[i] - b->d[i]));
    return d;
}

/* one trajectory of gauge (scale 1) + staggered (scale 0) from start, as
 * hmc_trajectory runs it (momenta, refresh, H0, integrate, H1) but without
 * the Metropolis step: out holds the links at the end of the molecular
 * dynamics whatever dH is, so the link check never compares restored links */
static inline void hc_trajectory(const struct field *start, const struct staggered_monomial_params *sp, struct field *out,
                                 struct hmc_result *res)
{
    char why[256];
    field_copy(out, start);
    struct hmc_monomial mono[2];
    struct hmc_gauge_ctx gctx;
    mono[0] = hmc_gauge_monomial(&gctx, HC_BETA, 1);
    if (staggered_monomial_create(&mono[1], sp, out, why, sizeof why)) lat_die(1, "hmc_checks", "%s", why);
    const struct hmc_integrator it = {HC_TAU, HC_MD_STEPS, 2};
    double *p = hmc_momenta_alloc(out);
    hmc_momenta_draw(p, out, HC_SEED, HC_TRAJ);
    for (int i = 0; i < 2; i++)
        if (mono[i].refresh) mono[i].refresh(mono[i].ctx, out, HC_SEED, HC_TRAJ);
    memset(res, 0, sizeof *res);
    res->H0 = hmc_hamiltonian(mono, 2, out, p, NULL);
    hmc_integrate(&it, mono, 2, out, p, NULL);
    res->H1 = hmc_hamiltonian(mono, 2, out, p, NULL);
    res->dH = res->H1 - res->H0;
    res->iterations = mono[1].iterations(mono[1].ctx);
    free(p);
    staggered_monomial_free(&mono[1]);
}

static inline void hc_compare(const char *name, const struct field *start, struct staggered_monomial_params sp,
                    struct staggered_gpu_solver *gs)
{
    struct field ucpu, ugpu;
    struct hmc_result rc, rg;
    sp.gpu = NULL;
    hc_trajectory(start, &sp, &ucpu, &rc);
    sp.gpu = gs;
    staggered_gpu_solver_take_transfer_seconds(gs);
    hc_trajectory(start, &sp, &ugpu, &rg);
    const double moved = staggered_gpu_solver_take_transfer_seconds(gs);
    const double dl = hc_max_link_diff(&ucpu, &ugpu);
    printf("%s: dH cpu %.12g gpu %.12g (diff %.3g), H0 diff %.3g, H1 diff %.3g, links %.3g, iterations cpu %ld gpu %ld\n",
           name, rc.dH, rg.dH, fabs(rc.dH - rg.dH), fabs(rc.H0 - rg.H0), fabs(rc.H1 - rg.H1), dl, rc.iterations,
           rg.iterations);
    CHECK(fabs(rc.H0 - rg.H0) <= 1e-9 && fabs(rc.H1 - rg.H1) <= 1e-9, "%s: H0 or H1 differ by %.3g, %.3g", name,
          fabs(rc.H0 - rg.H0), fabs(rc.H1 - rg.H1));
    CHECK(fabs(rc.dH - rg.dH) <= 1e-9, "%s: dH differs by %.3g", name, fabs(rc.dH - rg.dH));
    CHECK(dl <= 1e-10, "%s: the links differ by %.3g", name, dl);
    CHECK(rg.iterations > 0 && moved > 0, "%s: the GPU path did not solve (iterations %ld, transfer %.3g s)", name,
          rg.iterations, moved);
    field_free(&ucpu);
    field_free(&ugpu);
}

static inline void hc_run(const int L[4])
{
    struct lattice lat;
    const char *lw;
    lattice_init(&lat, L, &lw);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_unit(&u);
    { /* a non-trivial start: two pure-gauge trajectories */
        struct hmc_gauge_ctx g;
        struct hmc_monomial m = hmc_gauge_monomial(&g, 5.7, 0);
        const struct hmc_params par = {{1, 10, 1}, 1};
        struct hmc_result r;
        for (uint32_t k = 0; k < 2; k++) hmc_trajectory(&par, &m, 1, &u, k, &r, NULL);
    }
    char why[256];
    struct staggered_gpu_solver *gs = staggered_gpu_solver_create(&u, HC_MASS, why, sizeof why);
    CHECK(gs != NULL, "staggered_gpu_solver_create: %s", why);
    if (!gs) {
        field_free(&u);
        return;
    }
    double lo, hi;
    staggered_spectral_range(&u, HC_MASS, &lo, &hi);
    /* N_f = 2: rationals as lat-hmc fits them */
    struct rational hb, md, met;
    if (rational_remez_tol(&hb, 2, 8, 1e-12, lo, hi, why, sizeof why) || rational_remez_tol(&met, -2, 4, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&md, -2, 4, 1e-6, lo, hi, why, sizeof why))
        lat_die(1, "hmc_checks", "remez: %s", why);
    struct staggered_monomial_params sp;
    memset(&sp, 0, sizeof sp);
    sp.mass = HC_MASS, sp.nf = 2, sp.npf = 1, sp.heatbath = &hb, sp.md = &md, sp.metropolis = &met;
    sp.tol_md = 1e-12, sp.tol_metropolis = 1e-12, sp.max_iter = 10000, sp.timescale = 0;
    hc_compare("N_f = 2 RHMC, double", &u, sp, gs);
    /* mixed MD solves on the GPU path against the double CPU path */
    {
        struct field ucpu, ugpu;
        struct hmc_result rc, rg;
        struct staggered_monomial_params sm = sp;
        hc_trajectory(&u, &sm, &ucpu, &rc);
        sm.gpu = gs, sm.mixed = 1, sm.tol_md = 1e-8;
        hc_trajectory(&u, &sm, &ugpu, &rg);
        printf("N_f = 2 RHMC, GPU mixed (tol_md 1e-8) vs CPU double: dH %.12g vs %.12g (diff %.3g), links %.3g\n", rg.dH,
               rc.dH, fabs(rg.dH - rc.dH), hc_max_link_diff(&ucpu, &ugpu));
        CHECK(fabs(rg.dH - rc.dH) <= 1e-6, "mixed: dH differs from the double CPU path's by %.3g", fabs(rg.dH - rc.dH));
        field_free(&ucpu);
        field_free(&ugpu);
    }
    /* N_f = 4: exact HMC */
    struct staggered_monomial_params se;
    memset(&se, 0, sizeof se);
    se.mass = HC_MASS, se.nf = 4, se.npf = 1, se.tol_md = 1e-12, se.tol_metropolis = 1e-12, se.max_iter = 10000;
    hc_compare("N_f = 4 exact HMC, double", &u, se, gs);
    /* the condensate's CG */
    double ec, eg;
    long ic, ig;
    const double cc = staggered_condensate_on(&u, HC_MASS, 4, HC_SEED, HC_TRAJ, &ec, &ic, NULL);
    staggered_gpu_solver_set_links(gs, &u); /* the measurements' contract: the caller sets them */
    const double cg = staggered_condensate_on(&u, HC_MASS, 4, HC_SEED, HC_TRAJ, &eg, &ig, gs);
    printf("condensate cpu %.15g gpu %.15g (relative diff %.3g), iterations %ld %ld\n", cc, cg, fabs(cc - cg) / fabs(cc), ic, ig);
    CHECK(fabs(cc - cg) <= 1e-9 * fabs(cc) && ig > 0, "condensate: cpu %.15g gpu %.15g", cc, cg);
    /* the spectral range's power iteration on the GPU (lat-hmc's check after each trajectory) */
    double lg, hg;
    staggered_spectral_range_on(&u, HC_MASS, &lg, &hg, gs);
    printf("spectral range cpu [%.15g, %.15g] gpu [%.15g, %.15g] (relative diff of hi %.3g)\n", lo, hi, lg, hg, fabs(hg - hi) / hi);
    CHECK(lg == lo && fabs(hg - hi) <= 1e-6 * hi, "spectral range: cpu hi %.15g gpu hi %.15g", hi, hg);
    staggered_gpu_solver_free(gs);
    field_free(&u);
}

#endif
