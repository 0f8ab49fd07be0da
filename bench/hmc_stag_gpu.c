/* hmc_stag_gpu.c -- benchmark of the staggered monomial's device path
 * (hmc/staggered_monomial_gpu.c: refresh_gpu, action_gpu, force_gpu; make
 * bench, GPU present).
 *
 *   build/bench/hmc_stag_gpu [L [Lt [reps]]]     (default 16, 16, 5)
 *
 * On L^3 x Lt, weak-field SU(3) links (fields_weak 0.3), m = 0.1, N_f = 2
 * RHMC (rationals by rational_remez_tol on [m^2, lambda_max]: heatbath and
 * metropolis to 1e-12, md to 1e-6), solves to 1e-10 (md: 1e-8, mixed):
 *   1. the check: one refresh, action and force of the device path against
 *      the host callbacks of the same monomial (their solves on the same
 *      GPU, the formulas on the CPU): "PASS" when S agrees to 1e-10
 *      relative and the force to 1e-8 relative (largest difference over
 *      largest |F|; the host path's solutions come back rounded to the
 *      same solves), else "FAIL" (exit 1);
 *   2. seconds per call (wall clock, the device synchronised) of
 *      refresh, action and force on both paths, `reps` calls each after a
 *      warm-up, with the solver iterations per call: the device path saves
 *      the transfers and the host formulas;
 *   3. the force kernel alone (CUDA events), for the md rational's poles:
 *      µs per call and GB/s of what it loads and stores per site (per pole
 *      and mu two colour vectors, 96 bytes; per mu the link, the force
 *      loaded and stored, 432 bytes).
 * Exits 0 with a note when built without CUDA or no GPU is present. */
#include "gpu/gpu.h"
#include "base/clock.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("hmc_stag_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "base/log.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "hmc/staggered_gpu_solver.h"
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_monomial_impl.h"
#include "rational/rational.h"
#include "../tests/gpu/gpu_fields.h"
#include <math.h>
#include <string.h>

static double rel(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return m > 0 ? d / m : d;
}

int main(int argc, char **argv)
{
    lat_progname = "hmc_stag_gpu";
    const int L = argc > 1 ? atoi(argv[1]) : 16, Lt = argc > 2 ? atoi(argv[2]) : 16, reps = argc > 3 ? atoi(argv[3]) : 5;
    if (L < 2 || Lt < 2 || L % 2 || Lt % 2 || reps < 1) lat_die(2, NULL, "usage: hmc_stag_gpu [L [Lt [reps]]] (even, >= 2)");
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("hmc_stag_gpu: no GPU (%s): nothing to measure\n", why);
        return 0;
    }
    const double mass = 0.1;
    struct lattice lat;
    fields_lattice(&lat, L, Lt);
    struct field u;
    fields_weak(&u, &lat, 3, 0.3, 5);
    struct staggered_gpu_solver *gs = staggered_gpu_solver_create(&u, mass, why, sizeof why);
    if (!gs) lat_die(1, NULL, "%s", why);
    double lo, hi;
    staggered_spectral_range(&u, mass, &lo, &hi);
    struct rational hb, md, met;
    if (rational_remez_tol(&hb, 2, 8, 1e-12, lo, hi, why, sizeof why) || rational_remez_tol(&met, -2, 4, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&md, -2, 4, 1e-6, lo, hi, why, sizeof why))
        lat_die(1, NULL, "remez: %s", why);
    struct staggered_monomial_params sp;
    memset(&sp, 0, sizeof sp);
    sp.mass = mass, sp.nf = 2, sp.npf = 1, sp.heatbath = &hb, sp.md = &md, sp.metropolis = &met;
    sp.tol_md = 1e-8, sp.tol_metropolis = 1e-10, sp.mixed = 1, sp.max_iter = 20000, sp.gpu = gs;
    struct hmc_monomial m;
    if (staggered_monomial_create(&m, &sp, &u, why, sizeof why)) lat_die(1, NULL, "%s", why);
    printf("hmc_stag_gpu: %dx%dx%dx%d, m %g, N_f 2, poles hb %d md %d met %d\n", L, L, L, Lt, mass, hb.order, md.order,
           met.order);

    struct gpu_field U, F;
    gpu_field_create_recon(&U, &u, 'd', 0, GPU_RECON_FULL);
    gpu_field_upload(&U, &u, NULL);
    struct field f;
    field_alloc(&f, &lat, 3, 64);
    gpu_field_create_recon(&F, &u, 'd', 0, GPU_RECON_FULL);
    gpu_field_upload(&F, &f, NULL);
    const size_t nr = field_reals(&f);
    double *fh = (double *)calloc(nr, sizeof(double));

    /* 1. the check: device path vs host callbacks (same phi: both refresh
     * from the same streams) */
    m.refresh(m.ctx, &u, 3, 1);
    m.refresh_gpu(m.ctx, &U, 3, 1);
    const double sh = m.action(m.ctx, &u), sd = m.action_gpu(m.ctx, &U);
    m.force(m.ctx, &u, 1.0, fh);
    m.force_gpu(m.ctx, &U, 1.0, &F);
    gpu_field_download(&F, &f, NULL);
    const double ds = fabs(sd - sh) / fabs(sh), df = rel(f.d, fh, nr);
    const int ok = ds <= 1e-10 && df <= 1e-8;
    printf("check: S host %.12g device %.12g (rel %.3g), force rel %.3g: %s\n", sh, sd, ds, df, ok ? "PASS" : "FAIL");

    /* 2. seconds per call */
    const char *names[3] = {"refresh", "action", "force"};
    for (int path = 0; path < 2; path++)
        for (int k = 0; k < 3; k++) {
            double t = 0;
            m.iterations(m.ctx);
            for (int r = 0; r <= reps; r++) {
                const double t0 = lat_clock();
                if (path == 0) {
                    if (k == 0) m.refresh_gpu(m.ctx, &U, 3, (uint32_t)r);
                    else if (k == 1) m.action_gpu(m.ctx, &U);
                    else m.force_gpu(m.ctx, &U, 1.0, &F);
                    gpu_sync("hmc_stag_gpu");
                } else {
                    if (k == 0) m.refresh(m.ctx, &u, 3, (uint32_t)r);
                    else if (k == 1) m.action(m.ctx, &u);
                    else m.force(m.ctx, &u, 1.0, fh);
                }
                if (r > 0) t += lat_clock() - t0;
                else m.iterations(m.ctx); /* the warm-up's */
            }
            printf("%-7s %s path: %.4f s per call, %ld solver iterations per call\n", names[k],
                   path == 0 ? "device" : "host  ", t / reps, m.iterations(m.ctx) / reps);
        }

    /* 3. the force kernel alone (zero vectors: the same loads and stores) */
    struct stag_mono_poles p;
    memset(&p, 0, sizeof p);
    const size_t vbytes = gpu_spinor_storage(lat.V, 6) * sizeof(double);
    double *x = (double *)gpu_alloc(vbytes, "bench vector"), *y = (double *)gpu_alloc(vbytes, "bench vector");
    gpu_memset(x, 0, vbytes);
    gpu_memset(y, 0, vbytes);
    p.order = md.order;
    for (int i = 0; i < md.order; i++) p.a[i] = md.a[i], p.x[i] = x, p.y[i] = y;
    stag_mono_gpu_force_d(&U, U.L[3], 1.0, &p, &F);
    gpu_timer_start();
    for (int r = 0; r < reps; r++) stag_mono_gpu_force_d(&U, U.L[3], 1.0, &p, &F);
    const double tk = gpu_timer_stop() / reps;
    const double bytes = (double)lat.V * 4 * (96.0 * md.order + 432.0);
    printf("force kernel (%d poles): %.1f us per call, %.1f GB/s\n", md.order, 1e6 * tk, bytes / tk * 1e-9);

    gpu_free(x);
    gpu_free(y);
    free(fh);
    field_free(&f);
    gpu_field_free(&F);
    gpu_field_free(&U);
    staggered_monomial_free(&m);
    staggered_gpu_solver_free(gs);
    field_free(&u);
    return ok ? 0 : 1;
}
#endif
