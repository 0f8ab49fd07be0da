/* hmc_gauge_mpi_checks.h -- the checks of the GPU HMC's gauge part on MPI
 * t-slabs (kernels/hmc/gpu.h on a slab field), shared by the real-GPU test
 * (tests/gpu/test_gpu_hmc_gauge_mpi.c) and the host emulation
 * (scripts/hmc-gauge-slab-emulation.cpp).  C and C++; include once, after
 * unit.h's CHECK (tests/unit) and slabs.h.
 *
 *   hgm_main(name, out, bits)  on the 4^3 x 8 Haar-random field of slabs.h (this
 *       rank's slab; one process: the whole lattice), side by side on the
 *       device and with the CPU HMC functions on the same slab
 *       (hmc/momenta.h, hmc/gauge.h): momenta draw (seed 7, trajectory 2),
 *       kinetic energy T and gauge action S (beta 5.7), then two Omelyan
 *       2MN steps by hand (eps 0.125, lambda 0.1931833275037836: kick
 *       lambda eps, drift eps/2, kick (1 - 2 lambda) eps, drift eps/2, kick
 *       lambda eps; a kick is F = 0, F += G, P += c F), then T and S again.
 *       Asserts: the momenta equal to the CPU's, bit for bit with bits = 1
 *       (the host emulation: the same stream, formula and arithmetic), else
 *       to 1e-14 (the GPU: the CUDA compiler fuses multiply-adds); |T, S - CPU| <= 1e-13 relative (the same
 *       per-timeslice slots, in-block trees instead of the CPU's running
 *       long-double sums); after the steps the links of the WHOLE local
 *       field (halo slices included: hmc_gpu_link_update's refresh) and
 *       the owned momenta within 1e-12 of the CPU's (the same formulas of
 *       hmc/site.h in another order of operations only where the compiler
 *       contracts: an FMA on the GPU); every sum the same bits on every
 *       rank.  Rank 0 writes to `out` (NULL: nothing) T and S before and
 *       after in %a and the gathered owned links and momenta as bytes: the
 *       file must not depend on R.  Prints one line per check group and
 *       "NAME R=<R>: P passed, F failed" (rank 0); returns the exit status
 *       (0: all passed).  Needs comm_init called. */
#ifdef __cplusplus
extern "C" { /* the CPU HMC's C declarations */
#endif
#include "hmc/gauge.h"
#include "hmc/momenta.h"
#ifdef __cplusplus
}
#endif
#include "hmc/gpu.h"
#include <math.h>
#include <stdio.h>

#define HGM_LR (4 * 18) /* reals of a site's links, momenta */

/* the largest |a - b| over n reals, maximised over the ranks */
static double hgm_maxdiff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(a[i] - b[i]);
        if (!(e <= m)) m = e; /* NaN wins */
    }
    comm_max(&m, 1);
    return m;
}

/* a sum: the same bits on every rank, and within rel of the CPU's */
static void hgm_sum(const char *what, double gpu, double cpu, double rel)
{
    double mx = gpu, mn = -gpu;
    comm_max(&mx, 1);
    comm_max(&mn, 1);
    CHECK(mx == gpu && -mn == gpu, "%s: %.17g on this rank, max %.17g, min %.17g over the ranks", what, gpu, mx, -mn);
    CHECK(fabs(gpu - cpu) <= rel * fabs(cpu), "%s: GPU %.17g, CPU %.17g (rel. tolerance %g)", what, gpu, cpu, rel);
    if (comm_is_root()) printf("%s: GPU %.17g, CPU %.17g, |diff| %.3g\n", what, gpu, cpu, fabs(gpu - cpu));
}

/* one kick on both sides: F = G, P += c F */
static void hgm_kick(struct gpu_field *U, struct gpu_field *P, struct gpu_field *F, struct field *u, double *p, double *f,
                     double beta, double c)
{
    const size_t n = (size_t)u->lat.V * HGM_LR;
    memset(f, 0, n * sizeof(double));
    hmc_gauge_force(u, beta, 1.0, f);
    for (int64_t x = hmc_owned_begin(u); x < hmc_owned_end(u); x++)
        for (int k = 0; k < HGM_LR; k++) p[(size_t)x * HGM_LR + k] += c * f[(size_t)x * HGM_LR + k];
    hmc_gpu_zero(F);
    hmc_gpu_gauge_force(U, beta, 1.0, F);
    hmc_gpu_momenta_add(P, c, F);
}

static void hgm_drift(struct gpu_field *U, struct gpu_field *P, struct field *u, double *p, double eps)
{
    hmc_link_update(u, p, eps);
    hmc_gpu_link_update(U, P, eps);
}

static int hgm_main(const char *name, const char *out_path, int bits)
{
    struct slabs s;
    slabs_open(&s, 3, 13);
    const struct geometry *d = s.d;
    const int R = d ? d->size : 1;
    const double beta = 5.7, eps = 0.125, lambda = 0.1931833275037836;
    struct field *u = &s.u;
    const size_t n = (size_t)u->lat.V * HGM_LR;
    const int64_t x0 = hmc_owned_begin(u), x1 = hmc_owned_end(u);
    const size_t own = (size_t)(x1 - x0) * HGM_LR;
    double *p = hmc_momenta_alloc(u), *f = hmc_momenta_alloc(u), *ph = hmc_momenta_alloc(u);
    struct field ug;
    geometry_field_alloc(&ug, d, &s.glob, 3, 64);

    struct gpu_field U, P, F;
    hmc_gpu_field_create(&U, u);
    hmc_gpu_links_upload(&U, u);
    hmc_gpu_field_like(&P, &U);
    hmc_gpu_field_like(&F, &U);
    FILE *out = NULL; /* opened once the device fields exist: a refused slab leaves no file */
    if (comm_is_root() && out_path && !(out = fopen(out_path, "wb"))) lat_die(1, name, "cannot write %s", out_path);

    /* the momenta: the CPU's streams, bit for bit */
    hmc_momenta_draw(p, u, 7, 2);
    hmc_gpu_momenta_draw(&P, 7, 2);
    hmc_gpu_momenta_download(&P, ph, u);
    double dp = hgm_maxdiff(ph + (size_t)x0 * HGM_LR, p + (size_t)x0 * HGM_LR, own);
    CHECK(bits ? dp == 0 : dp <= 1e-14, "momenta draw: largest difference from the CPU's %.3g (want %s)", dp,
          bits ? "the same bits" : "<= 1e-14");
    if (comm_is_root()) printf("momenta draw: largest |GPU - CPU| %.3g (owned sites)\n", dp);
    const double T0 = hmc_gpu_kinetic_energy(&P), S0 = hmc_gpu_gauge_action(&U, beta);
    hgm_sum("kinetic energy before", T0, hmc_kinetic_energy(p, u), 1e-13);
    hgm_sum("gauge action before", S0, hmc_gauge_action(u, beta), 1e-13);

    /* two 2MN steps by hand */
    for (int step = 0; step < 2; step++) {
        hgm_kick(&U, &P, &F, u, p, f, beta, lambda * eps);
        hgm_drift(&U, &P, u, p, eps / 2);
        hgm_kick(&U, &P, &F, u, p, f, beta, (1 - 2 * lambda) * eps);
        hgm_drift(&U, &P, u, p, eps / 2);
        hgm_kick(&U, &P, &F, u, p, f, beta, lambda * eps);
    }
    hmc_gpu_links_download(&U, &ug);
    hmc_gpu_momenta_download(&P, ph, u);
    double du = hgm_maxdiff(ug.d, u->d, n), dm = hgm_maxdiff(ph + (size_t)x0 * HGM_LR, p + (size_t)x0 * HGM_LR, own);
    CHECK(du <= 1e-12, "links after two 2MN steps (halo slices included): largest |GPU - CPU| %.3g > 1e-12", du);
    CHECK(dm <= 1e-12, "momenta after two 2MN steps: largest |GPU - CPU| %.3g > 1e-12", dm);
    if (comm_is_root())
        printf("two 2MN steps: largest |GPU - CPU| links (whole local field, halos included) %.3g, momenta %.3g\n", du, dm);
    const double T1 = hmc_gpu_kinetic_energy(&P), S1 = hmc_gpu_gauge_action(&U, beta);
    hgm_sum("kinetic energy after", T1, hmc_kinetic_energy(p, u), 1e-13);
    hgm_sum("gauge action after", S1, hmc_gauge_action(u, beta), 1e-13);
    if (comm_is_root()) printf("H before %.17g after %.17g, dH %.3g\n", T0 + S0, T1 + S1, (T1 + S1) - (T0 + S0));

    if (out) fprintf(out, "T0 %a S0 %a T1 %a S1 %a\n", T0, S0, T1, S1);
    slabs_write(out, d, "links", ug.d + (size_t)x0 * HGM_LR, own);
    slabs_write(out, d, "momenta", ph + (size_t)x0 * HGM_LR, own);
    if (out && fclose(out)) lat_die(1, name, "cannot write %s", out_path);

    hmc_gpu_field_free(&F);
    hmc_gpu_field_free(&P);
    hmc_gpu_field_free(&U);
    field_free(&ug);
    free(p);
    free(f);
    free(ph);
    slabs_close(&s);
    double fails = unit_fail; /* any rank's failure fails the run */
    comm_sum(&fails, 1);
    if (comm_is_root()) printf("%s R=%d: %d passed, %d failed\n", name, R, unit_pass, unit_fail);
    return fails != 0;
}
