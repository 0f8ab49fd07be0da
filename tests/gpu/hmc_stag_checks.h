/* hmc_stag_checks.h -- the staggered monomial's device path
 * (hmc/staggered_monomial_gpu.c: refresh_gpu, action_gpu, force_gpu on
 * device fields) against its host callbacks with CPU solves, shared by the
 * host emulation (scripts/hmc-stag-emulation.cpp: the kernels run on the
 * host) and the real GPU (tests/gpu/test_gpu_hmc_stag.c).  C and C++.
 *
 *   hsc_run(L, bits, derivative)   on the lattice L, Haar-random SU(3) links
 *       (field_set_random), m = HSC_MASS, every solve to 1e-12:
 *   - the device link refresh (staggered_gpu_set_links_device) of GPU
 *     operators storing 12, 18 and 8 reals: the double and float links
 *     read back equal to those uploaded from the host links (bits 1: every
 *     real equal; bits 0: within 1e-14 / 1e-6);
 *   - the noise: the device's RNG_PSEUDOFERMION noise of the even half and
 *     of all sites against staggered_gaussian (bits 1: bit for bit; bits 0:
 *     within 1e-14, the device's log and cos may round otherwise);
 *   - N_f = 2 RHMC (the remez rationals on [m^2, lambda_max] of
 *     staggered_spectral_range, md = metropolis to 1e-12) and N_f = 4 exact
 *     HMC: after refresh_gpu / refresh the device phi within 1e-12
 *     relative (largest |difference| over largest |phi|) of the host's, S
 *     of action_gpu within 1e-12 relative of action's, the force of
 *     force_gpu (coeff 0.7, into zero) within 1e-12 relative (largest
 *     difference over largest |F|) of force's, and for one link (site 5,
 *     mu 2) Re tr(X G) against the central difference (S(t) - S(-t)) / 2t
 *     of action_gpu along U -> exp(tX) U, t = 1e-4, X a fixed su(3)
 *     element: within 1e-6 of max(1, |dS/dt|) (derivative 1 only: two more
 *     action solves per mode);
 *   - N_f = 2 with the MD solves mixed (tol_md 1e-8) on both paths: the
 *     forces within 1e-6 relative;
 *   - the device path spends solver iterations (iterations() > 0).
 * Prints each number with the lattice's name. */
#ifndef LAT_TESTS_HMC_STAG_CHECKS_H
#define LAT_TESTS_HMC_STAG_CHECKS_H

#include "hmc/staggered_gpu_solver.h"
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_monomial_impl.h"
#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "dirac/staggered_gpu_impl.h"
#include "rational/rational.h"
#include "lattice/field.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "math/algebra.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double HSC_MASS = 0.3;
static const uint64_t HSC_SEED = 11;
static const uint32_t HSC_TRAJ = 4;
/* the solves' relative residual: both paths' solutions within ~1e-14 of
 * the exact ones, so their difference measures the device path, not the
 * stopping point (at 1e-12 a CG stopping one iteration apart differs by
 * 1e-12) */
static const double HSC_TOL = 1e-14;

/* largest |a - b| over largest |b| */
static inline double hsc_rel(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return m > 0 ? d / m : d;
}

/* a device field of u's shape in the HMC's storage (18 doubles), holding u */
static inline void hsc_device_links(struct gpu_field *f, const struct field *u)
{
    gpu_field_create_recon(f, u, 'd', 0, GPU_RECON_FULL);
    gpu_field_upload(f, u, NULL);
}

static inline void hsc_check_links(const struct field *u, const char *name, int bits)
{
    const int recons[3] = {12, 18, 8};
    char why[256];
    struct staggered_op *cpu = staggered_create(u, HSC_MASS, why, sizeof why);
    if (!cpu) lat_die(1, "hmc_stag_checks", "%s", why);
    struct gpu_field U;
    hsc_device_links(&U, u);
    for (int r = 0; r < 3; r++) {
        struct staggered_gpu *g = staggered_gpu_create(cpu, u, recons[r], why, sizeof why);
        if (!g) lat_die(1, "hmc_stag_checks", "%s", why);
        struct gpu_field ref_d, ref_s; /* the host upload of the same links */
        gpu_field_create_recon(&ref_d, u, 'd', 0, g->recon);
        gpu_field_create_recon(&ref_s, u, 's', 0, g->recon);
        gpu_field_upload(&ref_d, u, NULL);
        gpu_field_upload(&ref_s, u, NULL);
        gpu_memset(g->links_d.links, 0, 8 * (size_t)g->links_d.nblk * g->links_d.ncomp * 32 * sizeof(double));
        gpu_memset(g->links_s.links, 0, 8 * (size_t)g->links_s.nblk * g->links_s.ncomp * 32 * sizeof(float));
        staggered_gpu_set_links_device(g, &U);
        struct field a, b;
        double dd, ds;
        field_alloc(&a, &u->lat, 3, 64);
        field_alloc(&b, &u->lat, 3, 64);
        gpu_field_download(&g->links_d, &a, NULL);
        gpu_field_download(&ref_d, &b, NULL);
        dd = hsc_rel(a.d, b.d, field_reals(&a));
        gpu_field_download(&g->links_s, &a, NULL);
        gpu_field_download(&ref_s, &b, NULL);
        ds = hsc_rel(a.d, b.d, field_reals(&a));
        printf("%s device link refresh, %d reals: double links differ by %.3g, float links by %.3g from the host upload\n",
               name, g->recon, dd, ds);
        CHECK(bits ? dd == 0 && ds == 0 : dd <= 1e-14 && ds <= 1e-6, "%s link refresh %d reals: %.3g %.3g", name, g->recon,
              dd, ds);
        field_free(&a);
        field_free(&b);
        gpu_field_free(&ref_d);
        gpu_field_free(&ref_s);
        staggered_gpu_free(g);
    }
    gpu_field_free(&U);
    staggered_free(cpu);
}

static inline void hsc_check_noise(const struct field *u, const char *name, int bits)
{
    char why[256];
    struct staggered_op *op = staggered_create(u, HSC_MASS, why, sizeof why);
    if (!op) lat_die(1, "hmc_stag_checks", "%s", why);
    struct gpu_field U;
    hsc_device_links(&U, u);
    const int64_t vh = u->lat.V / 2;
    const size_t hr = (size_t)vh * 6;
    double *dev = (double *)gpu_alloc(gpu_spinor_storage(2 * vh, 6) * sizeof(double), "noise check");
    double *h = (double *)calloc(2 * hr, sizeof(double)), *d = (double *)calloc(2 * hr, sizeof(double));
    double *full = (double *)calloc(2 * hr, sizeof(double));
    /* the even half */
    staggered_gaussian(op, 0, HSC_SEED, 1, HSC_TRAJ, h);
    stag_mono_gpu_noise_d(&U, dev, 0, HSC_SEED, 1, HSC_TRAJ);
    gpu_spinor_download(d, dev, vh, 6);
    const double re = hsc_rel(d, h, hr);
    const int be = memcmp(d, h, hr * sizeof(double)) == 0;
    /* all sites: [even | odd] on the device, site order on the host */
    staggered_gaussian(op, -1, HSC_SEED, 0, HSC_TRAJ, full);
    staggered_full_to_half(op, 0, h, full);
    staggered_full_to_half(op, 1, h + hr, full);
    stag_mono_gpu_noise_d(&U, dev, 1, HSC_SEED, 0, HSC_TRAJ);
    gpu_spinor_download(d, dev, 2 * vh, 6);
    const double rf = hsc_rel(d, h, 2 * hr);
    const int bf = memcmp(d, h, 2 * hr * sizeof(double)) == 0;
    printf("%s noise: even half %s (%.3g), all sites %s (%.3g)\n", name, be ? "bit-identical" : "differs", re,
           bf ? "bit-identical" : "differs", rf);
    CHECK(bits ? be && bf : re <= 1e-14 && rf <= 1e-14, "%s noise: %.3g %.3g", name, re, rf);
    free(h);
    free(d);
    free(full);
    gpu_free(dev);
    gpu_field_free(&U);
    staggered_free(op);
}

/* S along U_mu(x) -> exp(t X) U_mu(x) on the device */
static inline double hsc_action_at(struct hmc_monomial *m, const struct field *u, int64_t x, int mu, const lat_real *xp,
                                   double t, struct gpu_field *U)
{
    struct field v;
    field_alloc(&v, &u->lat, 3, 64);
    memcpy(v.d, u->d, field_reals(u) * sizeof(double));
    lat_complex h[9], e[9], l[9];
    alg_unpack(3, xp, h); /* X = i H */
    sun_exp_i(3, t, h, e);
    double *link = field_link(&v, x, mu);
    sun_mul(3, l, e, (const lat_complex *)link);
    memcpy(link, l, sizeof l);
    gpu_field_upload(U, &v, NULL);
    const double s = m->action_gpu(m->ctx, U);
    field_free(&v);
    return s;
}

/* Re tr(X G) of the force f (coeff G) at one link against the central
 * difference of action_gpu along U -> exp(tX) U; U is left changed */
static inline void hsc_check_derivative(struct hmc_monomial *mg, const struct field *u, const struct field *f, double coeff,
                                        struct gpu_field *U, const char *name, const char *mode)
{
    const int64_t x = 5;
    const int mu = 2;
    const lat_real xp[8] = {0.3, -0.2, 0.5, 0.1, -0.4, 0.25, 0.15, -0.35};
    lat_complex h[9], xm[9];
    alg_unpack(3, xp, h);
    for (int e = 0; e < 9; e++) xm[e] = c_make(-h[e].im, h[e].re); /* X = i H */
    const lat_complex *g = (const lat_complex *)field_link(f, x, mu);
    double pred = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) pred += c_mul(xm[a * 3 + b], g[b * 3 + a]).re;
    pred /= coeff;
    const double t = 1e-4;
    const double num = (hsc_action_at(mg, u, x, mu, xp, t, U) - hsc_action_at(mg, u, x, mu, xp, -t, U)) / (2 * t);
    const double dd = fabs(num - pred) / fmax(1, fabs(pred));
    printf("%s %s: force vs numerical derivative of action_gpu: Re tr(X G) %.10g, (S(t) - S(-t))/2t %.10g (rel %.3g)\n",
           name, mode, pred, num, dd);
    CHECK(dd <= 1e-6, "%s %s: force vs numerical derivative %.10g %.10g", name, mode, pred, num);
}

static inline void hsc_compare(const struct field *u, const char *name, const char *mode, struct staggered_monomial_params sp,
                               struct staggered_gpu_solver *gs, int derivative)
{
    char why[256];
    struct hmc_monomial mc, mg;
    if (staggered_monomial_create(&mc, &sp, u, why, sizeof why)) lat_die(1, "hmc_stag_checks", "%s", why);
    sp.gpu = gs;
    if (staggered_monomial_create(&mg, &sp, u, why, sizeof why)) lat_die(1, "hmc_stag_checks", "%s", why);
    CHECK(mg.refresh_gpu && mg.action_gpu && mg.force_gpu && !mc.refresh_gpu && !mc.action_gpu && !mc.force_gpu,
          "%s %s: the device callbacks are set exactly with params.gpu", name, mode);
    struct gpu_field U, F;
    hsc_device_links(&U, u);
    struct field f;
    field_alloc(&f, &u->lat, 3, 64); /* zero: the force's start */
    gpu_field_create_recon(&F, u, 'd', 0, GPU_RECON_FULL);
    gpu_field_upload(&F, &f, NULL);
    mc.iterations(mc.ctx);
    mg.iterations(mg.ctx);
    /* refresh: phi */
    mc.refresh(mc.ctx, u, HSC_SEED, HSC_TRAJ);
    mg.refresh_gpu(mg.ctx, &U, HSC_SEED, HSC_TRAJ);
    const struct stag_mono *cc = (const struct stag_mono *)mc.ctx, *cg = (const struct stag_mono *)mg.ctx;
    const int64_t vh = u->lat.V / 2;
    const size_t hr = (size_t)vh * 6;
    double *phi = (double *)calloc(hr, sizeof(double));
    gpu_spinor_download(phi, stag_mono_gpu_phi(cg, 0), vh, 6);
    const double dphi = hsc_rel(phi, cc->phi[0], hr);
    /* action */
    const double sc = mc.action(mc.ctx, u), sgpu = mg.action_gpu(mg.ctx, &U);
    const double ds = fabs(sgpu - sc) / fabs(sc);
    /* force */
    const double coeff = 0.7;
    const size_t nr = field_reals(&f);
    double *fc = (double *)calloc(nr, sizeof(double));
    mc.force(mc.ctx, u, coeff, fc);
    mg.force_gpu(mg.ctx, &U, coeff, &F);
    gpu_field_download(&F, &f, NULL);
    const double df = hsc_rel(f.d, fc, nr);
    const long itc = mc.iterations(mc.ctx), itg = mg.iterations(mg.ctx);
    printf("%s %s: phi rel %.3g, S cpu %.15g gpu %.15g (rel %.3g), force rel %.3g; iterations cpu %ld gpu %ld\n", name, mode,
           dphi, sc, sgpu, ds, df, itc, itg);
    CHECK(dphi <= 1e-12, "%s %s: phi differs by %.3g", name, mode, dphi);
    CHECK(ds <= 1e-12, "%s %s: S differs by %.3g", name, mode, ds);
    CHECK(df <= 1e-12, "%s %s: force differs by %.3g", name, mode, df);
    CHECK(itg > 0 && itc > 0, "%s %s: iterations cpu %ld gpu %ld", name, mode, itc, itg);
    if (derivative) hsc_check_derivative(&mg, u, &f, coeff, &U, name, mode);
    if (sp.heatbath) {
        /* the mixed MD solve (single recursion, every pole refined to 1e-8
         * in double) on both paths: the same phi, the monomials' own
         * parameters switched (test only) */
        struct stag_mono *wc = (struct stag_mono *)mc.ctx, *wg = (struct stag_mono *)mg.ctx;
        wc->p.mixed = wg->p.mixed = 1;
        wc->p.tol_md = wg->p.tol_md = 1e-8;
        gpu_field_upload(&U, u, NULL);
        memset(fc, 0, nr * sizeof(double));
        memset(f.d, 0, nr * sizeof(double));
        gpu_field_upload(&F, &f, NULL);
        mc.force(mc.ctx, u, coeff, fc);
        mg.force_gpu(mg.ctx, &U, coeff, &F);
        gpu_field_download(&F, &f, NULL);
        const double dm = hsc_rel(f.d, fc, nr);
        printf("%s %s, mixed MD solves (tol 1e-8): force rel %.3g\n", name, mode, dm);
        CHECK(dm <= 1e-6, "%s %s: mixed force differs by %.3g", name, mode, dm);
    }
    free(phi);
    free(fc);
    field_free(&f);
    gpu_field_free(&F);
    gpu_field_free(&U);
    staggered_monomial_free(&mc);
    staggered_monomial_free(&mg);
}

static inline void hsc_run(const int L[4], int bits, int derivative)
{
    struct lattice lat;
    const char *lw;
    if (lattice_init(&lat, L, &lw)) lat_die(1, "hmc_stag_checks", "lattice: %s", lw);
    char name[64], why[256];
    snprintf(name, sizeof name, "%dx%dx%dx%d", L[0], L[1], L[2], L[3]);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 17);
    hsc_check_links(&u, name, bits);
    hsc_check_noise(&u, name, bits);
    struct staggered_gpu_solver *gs = staggered_gpu_solver_create(&u, HSC_MASS, why, sizeof why);
    if (!gs) lat_die(1, "hmc_stag_checks", "%s", why);
    double lo, hi;
    staggered_spectral_range(&u, HSC_MASS, &lo, &hi);
    struct rational hb, met;
    if (rational_remez_tol(&hb, 2, 8, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&met, -2, 4, 1e-12, lo, hi, why, sizeof why))
        lat_die(1, "hmc_stag_checks", "remez: %s", why);
    struct staggered_monomial_params sp;
    memset(&sp, 0, sizeof sp);
    sp.mass = HSC_MASS, sp.nf = 2, sp.npf = 1, sp.heatbath = &hb, sp.md = &met, sp.metropolis = &met;
    sp.tol_md = HSC_TOL, sp.tol_metropolis = HSC_TOL, sp.max_iter = 10000, sp.timescale = 0;
    hsc_compare(&u, name, "N_f = 2 RHMC", sp, gs, derivative);
    struct staggered_monomial_params se;
    memset(&se, 0, sizeof se);
    se.mass = HSC_MASS, se.nf = 4, se.npf = 1;
    se.tol_md = HSC_TOL, se.tol_metropolis = HSC_TOL, se.max_iter = 10000, se.timescale = 0;
    hsc_compare(&u, name, "N_f = 4 exact", se, gs, derivative);
    staggered_gpu_solver_free(gs);
    field_free(&u);
}

#endif
