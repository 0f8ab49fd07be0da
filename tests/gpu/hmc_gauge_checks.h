/* hmc_gauge_checks.h -- the checks of the GPU HMC's gauge part (hmc/gpu.h)
 * against the CPU HMC (hmc/momenta.h, gauge.h, integrator.h), shared by the
 * host emulation (scripts/hmc-gauge-emulation.cpp: the kernels run on the
 * host, bits = 1) and the real-GPU test (tests/gpu/test_gpu_hmc_gauge.c,
 * bits = 0: the CUDA compiler fuses multiply-adds, so only the tolerances
 * hold there).  Needs unit.h's CHECK and gpu_fields.h.
 *
 *   hmc_gauge_check_kernels(lat, name, bits)  on Haar-random SU(3) links:
 *     - momenta of (seed, trajectory) = hmc_momenta_draw's to 1e-15 of
 *       the largest |P| (bits: memcmp);
 *     - kinetic energy = hmc_kinetic_energy to 1e-13 relative, and its
 *       mean per link 4 (8 Gaussian generators) within 5 standard errors;
 *     - U <- exp(eps P) U = hmc_link_update to 1e-14;
 *     - F += coeff G = hmc_gauge_force (into a nonzero F) to 1e-13 of the
 *       largest |G|; and G against a central difference of the GPU action
 *       along exp(tX) on one link (Re tr(X G), monomial.h) to 1e-6;
 *     - P += eps F = the host loop to 1e-15;
 *     - action = hmc_gauge_action to 1e-13 relative.
 *   hmc_gauge_check_md(lat, name, bits)  on a smooth field (fields_weak,
 *     a = 0.3), the general integrator (integrator.h) on device fields
 *     against host fields: hmc_integrate_gpu vs hmc_integrate with the
 *     gauge action split over two time scales (beta 5.7 = 0.6 + 0.4 of it,
 *     tau 0.5, 5 steps x 2 substeps), the same momenta: links to 1e-13
 *     (bits) or 1e-12, dH to 1e-12 (bits) or 1e-10 but at least 2 ulps of
 *     H (hgc_tol_dh), the same force calls,
 *     the links moved (> 1e-3), unitarity <= 1e-13; then P -> -P and the
 *     device integration again: the start back to 1e-12; then whole
 *     trajectories hmc_trajectory_gpu vs hmc_trajectory (tau 0.5, 10 steps;
 *     tau 3, 1 step): dH and links to the same tolerances, the same
 *     Metropolis number and decision, and the long one rejected with the
 *     device links restored bit for bit. */
#ifndef LAT_HMC_GAUGE_CHECKS_H
#define LAT_HMC_GAUGE_CHECKS_H

#include "hmc/gpu.h"
#ifdef __cplusplus
extern "C" { /* the CPU HMC's headers are C (the host emulation is C++) */
#endif
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#ifdef __cplusplus
}
#endif
#include "hmc/site.h"
#include "lattice/observables.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the largest |a_i - b_i| and the largest |b_i| over n reals */
static inline double hgc_maxdiff(const double *a, const double *b, size_t n, double *scale)
{
    double w = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        w = fmax(w, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    if (scale) *scale = s;
    return w;
}

static inline void hmc_gauge_check_kernels(const struct lattice *lat, const char *name, int bits)
{
    const double beta = 5.7, eps = 0.37, coeff = 0.29;
    const uint64_t seed = 4242;
    const uint32_t traj = 17;
    struct field u;
    fields_haar(&u, lat, 3, 99);
    const size_t nr = (size_t)lat->V * 4 * 18;
    double *p_cpu = hmc_momenta_alloc(&u), *p_gpu = hmc_momenta_alloc(&u), *f_cpu = hmc_momenta_alloc(&u),
           *f_gpu = hmc_momenta_alloc(&u);
    struct gpu_field U, P, F;
    hmc_gpu_field_create(&U, &u);
    hmc_gpu_field_create(&P, &u);
    hmc_gpu_field_create(&F, &u);
    hmc_gpu_links_upload(&U, &u);

    /* momenta */
    hmc_momenta_draw(p_cpu, &u, seed, traj);
    hmc_gpu_momenta_draw(&P, seed, traj);
    hmc_gpu_momenta_download(&P, p_gpu, &u);
    double scale, d = hgc_maxdiff(p_gpu, p_cpu, nr, &scale);
    int same = memcmp(p_gpu, p_cpu, nr * sizeof(double)) == 0;
    printf("%s momenta: max |P_gpu - P_cpu| %.2e (largest |P| %.2f)%s\n", name, d, scale, same ? ", bit-identical" : "");
    CHECK(bits ? same : d <= 1e-15 * scale, "%s: momenta differ by %g", name, d);
    CHECK(scale > 1, "%s: the momenta are all small (%g): nothing drawn?", name, scale);

    /* kinetic energy */
    double t_cpu = hmc_kinetic_energy(p_cpu, &u), t_gpu = hmc_gpu_kinetic_energy(&P);
    double t_rel = fabs(t_gpu - t_cpu) / t_cpu;
    printf("%s kinetic energy: GPU %.17g CPU %.17g rel %.2e (mean per link %.3f, expect 4)\n", name, t_gpu, t_cpu, t_rel,
           t_cpu / (4.0 * (double)lat->V));
    CHECK(t_rel <= 1e-13, "%s: kinetic energy rel diff %g", name, t_rel);
    /* T per link = 1/2 sum of 8 squared normals: mean 4, standard deviation 2 */
    double mean = t_gpu / (4.0 * (double)lat->V), sd = 2 / sqrt(4.0 * (double)lat->V);
    CHECK(fabs(mean - 4) <= 5 * sd, "%s: kinetic energy per link %g, expected 4 +- %g", name, mean, sd);

    /* action */
    double s_cpu = hmc_gauge_action(&u, beta), s_gpu = hmc_gpu_gauge_action(&U, beta);
    double s_rel = fabs(s_gpu - s_cpu) / fabs(s_cpu);
    printf("%s action: GPU %.17g CPU %.17g rel %.2e\n", name, s_gpu, s_cpu, s_rel);
    CHECK(s_rel <= 1e-13, "%s: action rel diff %g", name, s_rel);

    /* force, added into a nonzero field (the momenta) */
    memcpy(f_cpu, p_cpu, nr * sizeof(double));
    hmc_gpu_momenta_upload(&F, p_cpu, &u);
    hmc_gauge_force(&u, beta, coeff, f_cpu);
    hmc_gpu_gauge_force(&U, beta, coeff, &F);
    hmc_gpu_momenta_download(&F, f_gpu, &u);
    for (size_t i = 0; i < nr; i++) p_gpu[i] = f_cpu[i] - p_cpu[i]; /* coeff G, for the scale */
    hgc_maxdiff(p_gpu, p_gpu, nr, &scale);
    d = hgc_maxdiff(f_gpu, f_cpu, nr, NULL);
    printf("%s force: max |F_gpu - F_cpu| %.2e of largest |coeff G| %.2f%s\n", name, d, scale,
           memcmp(f_gpu, f_cpu, nr * sizeof(double)) ? "" : ", bit-identical");
    CHECK(d <= 1e-13 * scale && scale > 0.1, "%s: force differs by %g (scale %g)", name, d, scale);

    /* the force as the derivative of the GPU action: link (x0, mu0) moved
     * along exp(tX) U, X = P there; dS/dt = Re tr(X G) */
    {
        const int64_t x0 = lat->V / 3;
        const int mu0 = 2;
        hmc_gpu_zero(&F);
        hmc_gpu_gauge_force(&U, beta, 1.0, &F);
        hmc_gpu_momenta_download(&F, f_gpu, &u);
        const lat_complex *X = (const lat_complex *)(p_cpu + ((size_t)x0 * 4 + mu0) * 18);
        const lat_complex *G = (const lat_complex *)(f_gpu + ((size_t)x0 * 4 + mu0) * 18);
        double expect = sun_retrace_mul(3, X, G), ds[2];
        const double t = 1e-4;
        struct field w;
        field_copy(&w, &u);
        for (int k = 0; k < 2; k++) {
            double *l = field_link(&w, x0, mu0);
            memcpy(l, field_link(&u, x0, mu0), 18 * sizeof(double));
            hmc_site_link_update(3, k ? -t : t, X, (lat_complex *)l);
            hmc_gpu_links_upload(&U, &w);
            ds[k] = hmc_gpu_gauge_action(&U, beta);
        }
        double numeric = (ds[0] - ds[1]) / (2 * t), rel = fabs(numeric - expect) / fabs(expect);
        /* the difference of two sums of S's size loses their rounding: about
         * 1e-14 |S| each on the GPU's block sums (measured 3e-6 relative on 8^4,
         * S ~ 6e4), so the bound is that or 1e-6, whichever is larger */
        double bound = fmax(1e-6, 1e-14 * fabs(ds[0]) / (t * fabs(expect)));
        printf("%s force vs numerical derivative: Re tr(X G) %.12g, (S(+t) - S(-t))/2t %.12g, rel %.2e (bound %.1e)\n", name,
               expect, numeric, rel, bound);
        CHECK(rel <= bound, "%s: force is not the action's derivative (rel %g, bound %g)", name, rel, bound);
        field_free(&w);
        hmc_gpu_links_upload(&U, &u);
    }

    /* momentum update P += eps F (F: the GPU force of coeff 1 above) */
    hmc_gpu_momenta_add(&P, eps, &F);
    hmc_gpu_momenta_download(&P, p_gpu, &u);
    for (size_t i = 0; i < nr; i++) f_cpu[i] = p_cpu[i] + eps * f_gpu[i];
    d = hgc_maxdiff(p_gpu, f_cpu, nr, NULL);
    printf("%s momentum update P += eps F: max diff %.2e\n", name, d);
    CHECK(d <= 1e-15, "%s: P += eps F differs by %g", name, d);

    /* link update with the drawn momenta */
    hmc_gpu_momenta_upload(&P, p_cpu, &u);
    hmc_gpu_link_update(&U, &P, eps);
    struct field ug;
    field_alloc(&ug, lat, 3, 64);
    hmc_gpu_links_download(&U, &ug);
    struct field uc;
    field_copy(&uc, &u);
    hmc_link_update(&uc, p_cpu, eps);
    d = hgc_maxdiff(ug.d, uc.d, nr, NULL);
    double moved = hgc_maxdiff(uc.d, u.d, nr, NULL);
    printf("%s link update: max |U_gpu - U_cpu| %.2e%s (links moved by up to %.2f)\n", name, d,
           memcmp(ug.d, uc.d, nr * sizeof(double)) ? "" : ", bit-identical", moved);
    CHECK(d <= 1e-14 && moved > 0.1, "%s: link update differs by %g (moved %g)", name, d, moved);

    field_free(&ug);
    field_free(&uc);
    field_free(&u);
    gpu_field_free(&U);
    gpu_field_free(&P);
    gpu_field_free(&F);
    free(p_cpu);
    free(p_gpu);
    free(f_cpu);
    free(f_gpu);
}

/* the links of a device field against host links: the largest difference */
static inline double hgc_links_diff(const struct gpu_field *U, const struct field *want)
{
    struct field w;
    field_alloc(&w, &want->lat, 3, 64);
    hmc_gpu_links_download(U, &w);
    double d = hgc_maxdiff(w.d, want->d, (size_t)want->lat.V * 4 * 18, NULL);
    field_free(&w);
    return d;
}

/* the dH tolerance: 1e-12 (bits: the host emulation runs the CPU's
 * arithmetic, only the sums' order differs) or 1e-10 (a GPU fuses
 * multiply-adds), but never below 2 ulps of H: T and S come back as
 * doubles on both paths, so dH carries an ulp of H ~ 1e4 (1.8e-12) */
static inline double hgc_tol_dh(int bits, double h)
{
    return fmax(bits ? 1e-12 : 1e-10, 2 * DBL_EPSILON * fabs(h));
}

/* the general integrator's device path against its host path */
static inline void hmc_gauge_check_md(const struct lattice *lat, const char *name, int bits)
{
    const double beta = 5.7, tau = 0.5, tol_links = bits ? 1e-13 : 1e-12;
    const int steps = 10;
    const uint64_t seed = 777;
    const uint32_t traj = 3;
    struct field u0, uc;
    fields_weak(&u0, lat, 3, 0.3, 5);
    field_copy(&uc, &u0);
    const size_t nr = (size_t)lat->V * 4 * 18;

    /* the integrator on host fields, the gauge action split over two time
     * scales (beta = 0.6 beta + 0.4 beta, 2 substeps): the multi-scale
     * sequence of kicks and drifts, not only one scale */
    struct hmc_gauge_ctx gctx[2];
    struct hmc_monomial m[2] = {hmc_gauge_monomial(&gctx[0], 0.6 * beta, 0), hmc_gauge_monomial(&gctx[1], 0.4 * beta, 1)};
    struct hmc_integrator it = {tau, steps / 2, 2};
    double *p_cpu = hmc_momenta_alloc(&u0), *p_gpu = hmc_momenta_alloc(&u0), *p0 = hmc_momenta_alloc(&u0);
    hmc_momenta_draw(p_cpu, &uc, seed, traj);
    memcpy(p0, p_cpu, nr * sizeof(double));
    double h0_cpu = hmc_hamiltonian(m, 2, &uc, p_cpu, NULL);
    struct hmc_timing tc, tg;
    memset(&tc, 0, sizeof tc);
    memset(&tg, 0, sizeof tg);
    hmc_integrate(&it, m, 2, &uc, p_cpu, &tc);
    double dh_cpu = hmc_hamiltonian(m, 2, &uc, p_cpu, NULL) - h0_cpu;

    /* the same integrator on device fields */
    struct gpu_field U, P;
    hmc_gpu_field_create(&U, &u0);
    hmc_gpu_field_create(&P, &u0);
    hmc_gpu_links_upload(&U, &u0);
    hmc_gpu_momenta_draw(&P, seed, traj);
    double h0_gpu = hmc_hamiltonian_gpu(m, 2, &U, &P, NULL);
    hmc_integrate_gpu(&it, m, 2, &U, &P, &tg);
    double dh_gpu = hmc_hamiltonian_gpu(m, 2, &U, &P, NULL) - h0_gpu;
    struct field ug;
    field_alloc(&ug, lat, 3, 64);
    hmc_gpu_links_download(&U, &ug);
    double d = hgc_maxdiff(ug.d, uc.d, nr, NULL), moved = hgc_maxdiff(uc.d, u0.d, nr, NULL);
    struct unitarity un = measure_unitarity(&ug);
    printf("%s MD (beta %.1f, tau %.1f, %d 2MN steps x 2 substeps, two time scales): links GPU vs CPU %.2e (moved %.2f), "
           "dH GPU %.12g CPU %.12g diff %.2e, unitarity max %.1e, force calls GPU %ld+%ld CPU %ld+%ld\n",
           name, beta, tau, it.md_steps, d, moved, dh_gpu, dh_cpu, fabs(dh_gpu - dh_cpu), un.max, tg.force_calls[0],
           tg.force_calls[1], tc.force_calls[0], tc.force_calls[1]);
    CHECK(d <= tol_links, "%s: MD links differ by %g", name, d);
    CHECK(moved > 1e-3, "%s: MD did not move the links (%g)", name, moved);
    CHECK(fabs(dh_gpu - dh_cpu) <= hgc_tol_dh(bits, h0_cpu), "%s: dH GPU %.17g CPU %.17g (H0 %.6g)", name, dh_gpu, dh_cpu,
          h0_cpu);
    CHECK(un.max <= 1e-13, "%s: GPU links off SU(3) by %g", name, un.max);
    CHECK(tg.force_calls[0] == tc.force_calls[0] && tg.force_calls[1] == tc.force_calls[1] &&
              tc.force_calls[0] == 2 * it.md_steps + 1 && /* 2 drifts a step, 2 substeps + 1 kicks a drift */
              tc.force_calls[1] == 2 * it.md_steps * (2 * it.substeps + 1),
          "%s: force calls GPU %ld+%ld CPU %ld+%ld", name, tg.force_calls[0], tg.force_calls[1], tc.force_calls[0],
          tc.force_calls[1]);

    /* reversibility of the device path: P -> -P, the trajectory again */
    hmc_gpu_momenta_download(&P, p_gpu, &u0);
    for (size_t i = 0; i < nr; i++) p_gpu[i] = -p_gpu[i];
    hmc_gpu_momenta_upload(&P, p_gpu, &u0);
    hmc_integrate_gpu(&it, m, 2, &U, &P, NULL);
    hmc_gpu_links_download(&U, &ug);
    hmc_gpu_momenta_download(&P, p_gpu, &u0);
    for (size_t i = 0; i < nr; i++) p_gpu[i] = -p_gpu[i];
    double back = hgc_maxdiff(ug.d, u0.d, nr, NULL), pback = hgc_maxdiff(p_gpu, p0, nr, NULL);
    printf("%s reversibility: links back to %.2e, momenta back to %.2e\n", name, back, pback);
    CHECK(back <= 1e-12 && pback <= 1e-12, "%s: not reversible: links %g, momenta %g", name, back, pback);

    /* whole trajectories, hmc_trajectory_gpu against hmc_trajectory: a
     * short step (accepted or not, the same decision) and a far too long
     * one (dH >> 1: rejected, the start links restored bit for bit) */
    struct hmc_gauge_ctx g1;
    struct hmc_monomial one = hmc_gauge_monomial(&g1, beta, 0);
    const struct hmc_params pars[2] = {{{tau, steps, 1}, seed}, {{3.0, 1, 1}, seed}};
    for (int k = 0; k < 2; k++) {
        struct hmc_result rc, rg;
        field_copy(&uc, &u0);
        hmc_gpu_links_upload(&U, &u0);
        hmc_trajectory(&pars[k], &one, 1, &uc, traj + (uint32_t)k, &rc, NULL);
        hmc_trajectory_gpu(&pars[k], &one, 1, &U, traj + (uint32_t)k, &rg, NULL);
        double dl = hgc_links_diff(&U, &uc), ddh = fabs(rg.dH - rc.dH);
        hmc_gpu_links_download(&U, &ug);
        int back_bits = memcmp(ug.d, u0.d, nr * sizeof(double)) == 0;
        printf("%s trajectory (tau %.1f, %d steps): dH GPU %.12g CPU %.12g diff %.2e, H0 diff %.2e, accepted GPU %d CPU %d, "
               "links GPU vs CPU %.2e%s\n",
               name, pars[k].it.tau, pars[k].it.md_steps, rg.dH, rc.dH, ddh, fabs(rg.H0 - rc.H0), rg.accepted, rc.accepted,
               dl, !rg.accepted && back_bits ? ", rejected: start links restored bit for bit" : "");
        CHECK(ddh <= hgc_tol_dh(bits, rc.H0) && rg.accepted == rc.accepted && rg.uniform == rc.uniform && dl <= tol_links,
              "%s trajectory %d: dH %.17g vs %.17g, accepted %d vs %d, links %g", name, k, rg.dH, rc.dH, rg.accepted,
              rc.accepted, dl);
        if (k == 1)
            CHECK(rg.dH > 1 && !rg.accepted && back_bits, "%s: the long trajectory (dH %g, accepted %d) did not restore "
                  "the start links bit for bit", name, rg.dH, rg.accepted);
    }

    hmc_gpu_field_free(&U);
    hmc_gpu_field_free(&P);
    field_free(&u0);
    field_free(&uc);
    field_free(&ug);
    free(p_cpu);
    free(p_gpu);
    free(p0);
}

#endif
