/* hmc_stag_mpi_checks.h -- the staggered monomial's device path on MPI
 * t-slabs (hmc/staggered_monomial_gpu.c with the slab GPU solver of
 * hmc/staggered_gpu_solver.h) against the CPU monomial on the same slabs,
 * for the host emulation (scripts/hmc-stag-slab-emulation.cpp under mpirun
 * -np 1, 2, 4) and a GPU per rank.  C and C++; include after unit.h and
 * slabs.h (tests/unit); needs comm_init called.
 *
 *   hssm_main(name, out, bits)  on the 4^3 x 8 Haar-random field of slabs.h
 *       (this rank's slab, one process: the whole lattice), m = 0.3, every
 *       solve to 1e-14, N_f = 2 RHMC (remez rationals to 1e-8 on the collective
 *       staggered_spectral_range) and N_f = 4 exact HMC:
 *   - the device noise (RNG_PSEUDOFERMION, even half and all owned sites)
 *     against staggered_gaussian on the slab: bit for bit with bits = 1
 *     (the emulation: the same stream and arithmetic), else within 1e-14;
 *   - after refresh_gpu / refresh (seed 11, trajectory 4) the device phi
 *     within 1e-12 relative (largest |difference| over largest |phi|, over
 *     all ranks) of the CPU's; S of action_gpu within 1e-12 relative of
 *     action's and the same bits on every rank; the force of force_gpu
 *     (coeff 0.7, into zero) on the owned links within 1e-12 relative of
 *     force's (the CPU's forward neighbours through its field halos, the
 *     device's through the force face);
 *   Rank 0 writes to `out` (NULL: nothing) both modes' S in %a and the
 *   gathered device noise, phi and owned force as bytes: the file must not
 *   depend on R (the per-timeslice sums and the global-site noise).
 *   Prints one line per check group and "NAME R=<R>: P passed, F failed"
 *   (rank 0, every rank's checks counted); returns the exit status. */
#include "hmc/staggered_gpu_solver.h"
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_monomial_impl.h"
#include "hmc/gpu.h"
#include "dirac/staggered.h"
#include "rational/rational.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "base/comm.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HSSM_MASS 0.3
#define HSSM_TOL 1e-14
#define HSSM_LR (4 * 18)

/* largest |a - b| over largest |b|, both maximised over the ranks */
static double hssm_rel(const double *a, const double *b, size_t n)
{
    double v[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const double e = fabs(a[i] - b[i]);
        if (!(e <= v[0])) v[0] = e; /* NaN wins */
        v[1] = fmax(v[1], fabs(b[i]));
    }
    comm_max(v, 2);
    return v[1] > 0 ? v[0] / v[1] : v[0];
}

static void hssm_noise(struct field *u, struct gpu_field *U, int bits, FILE *out)
{
    char why[256];
    struct staggered_op *op = staggered_create(u, HSSM_MASS, why, sizeof why);
    if (!op) lat_die(1, "hmc_stag_mpi_checks", "%s", why);
    const int64_t vh = staggered_owned_sites(op) / 2;
    const size_t hr = (size_t)vh * 6;
    double *dev = (double *)gpu_alloc(gpu_spinor_storage(2 * vh, 6) * sizeof(double), "noise check");
    double *h = (double *)calloc(2 * hr, sizeof(double)), *g = (double *)calloc(2 * hr, sizeof(double));
    double *full = (double *)calloc(2 * hr, sizeof(double));
    staggered_gaussian(op, 0, 11, 1, 4, h);
    stag_mono_gpu_noise_d(U, dev, 0, 11, 1, 4);
    gpu_spinor_download(g, dev, vh, 6);
    const double re = hssm_rel(g, h, hr);
    double be = memcmp(g, h, hr * sizeof(double)) != 0;
    slabs_write(out, u->dom, "noise even half", g, hr);
    staggered_gaussian(op, -1, 11, 0, 4, full);
    staggered_full_to_half(op, 0, h, full);
    staggered_full_to_half(op, 1, h + hr, full);
    stag_mono_gpu_noise_d(U, dev, 1, 11, 0, 4);
    gpu_spinor_download(g, dev, 2 * vh, 6);
    const double rf = hssm_rel(g, h, 2 * hr);
    double bf = memcmp(g, h, 2 * hr * sizeof(double)) != 0;
    slabs_write(out, u->dom, "noise all sites, even half", g, hr); /* each half gathered: global order */
    slabs_write(out, u->dom, "noise all sites, odd half", g + hr, hr);
    comm_max(&be, 1);
    comm_max(&bf, 1);
    if (comm_is_root())
        printf("noise on the slabs: even half %s (%.3g), all sites %s (%.3g)\n", be == 0 ? "bit-identical" : "differs", re,
               bf == 0 ? "bit-identical" : "differs", rf);
    CHECK(bits ? be == 0 && bf == 0 : re <= 1e-14 && rf <= 1e-14, "noise on the slabs: %.3g %.3g", re, rf);
    free(h);
    free(g);
    free(full);
    gpu_free(dev);
    staggered_free(op);
}

static void hssm_compare(struct field *u, struct gpu_field *U, const char *mode, struct staggered_monomial_params sp,
                         struct staggered_gpu_solver *gs, FILE *out)
{
    char why[256];
    struct hmc_monomial mc, mg;
    if (staggered_monomial_create(&mc, &sp, u, why, sizeof why)) lat_die(1, "hmc_stag_mpi_checks", "%s", why);
    sp.gpu = gs;
    if (staggered_monomial_create(&mg, &sp, u, why, sizeof why)) lat_die(1, "hmc_stag_mpi_checks", "%s", why);
    const int64_t x0 = u->dom ? (int64_t)u->dom->v3 : 0, nown = u->dom ? (int64_t)u->dom->v3 * u->dom->lt : u->lat.V;
    const size_t nr = (size_t)u->lat.V * HSSM_LR, own = (size_t)nown * HSSM_LR;
    struct gpu_field F;
    hmc_gpu_field_like(&F, U);
    hmc_gpu_zero(&F);
    /* refresh: phi */
    mc.refresh(mc.ctx, u, 11, 4);
    mg.refresh_gpu(mg.ctx, U, 11, 4);
    const struct stag_mono *cc = (const struct stag_mono *)mc.ctx, *cg = (const struct stag_mono *)mg.ctx;
    const int64_t vh = nown / 2;
    const size_t hr = (size_t)vh * 6;
    double *phi = (double *)calloc(hr, sizeof(double));
    gpu_spinor_download(phi, stag_mono_gpu_phi(cg, 0), vh, 6);
    const double dphi = hssm_rel(phi, cc->phi[0], hr);
    /* action */
    const double sc = mc.action(mc.ctx, u), sg = mg.action_gpu(mg.ctx, U);
    double smax = sg, smin = -sg;
    comm_max(&smax, 1);
    comm_max(&smin, 1);
    /* force */
    const double coeff = 0.7;
    double *fc = (double *)calloc(nr, sizeof(double)), *fg = (double *)calloc(nr, sizeof(double));
    mc.force(mc.ctx, u, coeff, fc);
    mg.force_gpu(mg.ctx, U, coeff, &F);
    hmc_gpu_momenta_download(&F, fg, u);
    const double df = hssm_rel(fg + (size_t)x0 * HSSM_LR, fc + (size_t)x0 * HSSM_LR, own);
    if (comm_is_root())
        printf("%s on the slabs: phi rel %.3g, S cpu %.15g gpu %.15g (rel %.3g), force rel %.3g\n", mode, dphi, sc, sg,
               fabs(sg - sc) / fabs(sc), df);
    CHECK(dphi <= 1e-12, "%s: phi differs by %.3g", mode, dphi);
    CHECK(fabs(sg - sc) <= 1e-12 * fabs(sc), "%s: S gpu %.17g cpu %.17g", mode, sg, sc);
    CHECK(smax == sg && -smin == sg, "%s: S %.17g on this rank, max %.17g min %.17g over the ranks", mode, sg, smax, -smin);
    CHECK(df <= 1e-12, "%s: force differs by %.3g", mode, df);
    if (out) fprintf(out, "%s S %a\n", mode, sg);
    slabs_write(out, u->dom, "phi", phi, hr);
    slabs_write(out, u->dom, "force", fg + (size_t)x0 * HSSM_LR, own);
    free(phi);
    free(fc);
    free(fg);
    hmc_gpu_field_free(&F);
    staggered_monomial_free(&mc);
    staggered_monomial_free(&mg); /* collective: the force face's peers */
}

static int hssm_main(const char *name, const char *out_path, int bits)
{
    struct slabs s;
    slabs_open(&s, 3, 17);
    const int R = s.d ? s.d->size : 1;
    struct field *u = &s.u;
    char why[256];
    struct gpu_field U;
    hmc_gpu_field_create(&U, u);
    hmc_gpu_links_upload(&U, u);
    struct staggered_gpu_solver *gs = staggered_gpu_solver_create(u, HSSM_MASS, why, sizeof why);
    if (!gs) lat_die(1, name, "%s", why);
    FILE *out = NULL;
    if (comm_is_root() && out_path && !(out = fopen(out_path, "wb"))) lat_die(1, name, "cannot write %s", out_path);
    hssm_noise(u, &U, bits, out);
    double lo, hi;
    staggered_spectral_range(u, HSSM_MASS, &lo, &hi);
    struct rational hb, met;
    /* rationals to 1e-8 (fewer poles: the emulation's time); both paths use the same */
    if (rational_remez_tol(&hb, 2, 8, 1e-8, lo, hi, why, sizeof why) ||
        rational_remez_tol(&met, -2, 4, 1e-8, lo, hi, why, sizeof why))
        lat_die(1, name, "remez: %s", why);
    struct staggered_monomial_params sp;
    memset(&sp, 0, sizeof sp);
    sp.mass = HSSM_MASS, sp.nf = 2, sp.npf = 1, sp.heatbath = &hb, sp.md = &met, sp.metropolis = &met;
    sp.tol_md = HSSM_TOL, sp.tol_metropolis = HSSM_TOL, sp.max_iter = 10000;
    hssm_compare(u, &U, "N_f = 2 RHMC", sp, gs, out);
    struct staggered_monomial_params se;
    memset(&se, 0, sizeof se);
    se.mass = HSSM_MASS, se.nf = 4, se.npf = 1;
    se.tol_md = HSSM_TOL, se.tol_metropolis = HSSM_TOL, se.max_iter = 10000;
    hssm_compare(u, &U, "N_f = 4 exact", se, gs, out);
    if (out && fclose(out)) lat_die(1, name, "cannot write %s", out_path);
    staggered_gpu_solver_free(gs);
    hmc_gpu_field_free(&U);
    slabs_close(&s);
    double counts[2] = {(double)unit_pass, (double)unit_fail};
    comm_sum(counts, 2);
    if (comm_is_root()) printf("%s R=%d: %.0f passed, %.0f failed\n", name, R, counts[0], counts[1]);
    return counts[1] != 0;
}
