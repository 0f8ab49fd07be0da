/* hmc-gpu-emulation.cpp -- lat-hmc's GPU solver backend
 * (kernels/hmc/staggered_gpu_solver.h) run on the host without a GPU or
 * nvcc, one whole HMC trajectory of the staggered monomial against the
 * CPU path (scripts/hmc-gpu-emulation builds and runs it; tests/emulation.bats
 * in `make check`, any CUDA=).
 *
 * What runs as on a GPU: the staggered kernels of
 * kernels/dirac/staggered_gpu_kernel.cuh thread by thread
 * (scripts/staggered-emulation.cpp's parts 'd' and 's', linked in), the
 * solvers' vector kernels of kernels/solvers/blas_gpu.cuh (included whole
 * here, launched as scripts/blas-emulation.cpp does: threads one after the
 * other, fibers between the barriers of the reductions), and the host sides
 * dirac/staggered_gpu.c, hmc/staggered_gpu_solver.c, gpu/field.c and
 * gpu/spinor.c compiled as the CUDA build compiles them (device memory is
 * host memory).  The monomial, integrator and gauge action are the
 * library's.  -ffp-contract=off: no fused multiply-add, like the CPU build.
 *
 * Checks, on 4^4 (a thermalised-ish start: cold links, two pure-gauge
 * trajectories at beta 5.7), beta 5.6, m = 0.1, tau 0.25, 4 2MN steps (2
 * gauge substeps), CG
 * tolerances 1e-12 (MD and Metropolis), the same seed and trajectory:
 *   - N_f = 2 (RHMC, rationals on [m^2, 1.1 lambda_max]) and N_f = 4 (exact
 *     HMC): H0, H1 within 1e-9 of the CPU path's (absolute: they are O(V)
 *     sums), |dH_gpu - dH_cpu| <= 1e-9, both accepted, the links after the
 *     trajectory within 1e-10 (largest |difference| of a real);
 *   - the GPU path really ran: solver iterations > 0 and transfer seconds
 *     > 0 (the solver backend was called);
 *   - N_f = 2 with mixed precision (MD solves with single-precision
 *     recursion, tol_md 1e-8) on the GPU path: dH within 1e-6 of the
 *     double CPU path (the MD solves' tolerance moves the trajectory);
 *   - the condensate's CG on the GPU (4 noise vectors, tol 1e-10): within
 *     1e-9 relative of the CPU's.
 * Prints the numbers and "hmc-gpu-emulation: N passed, M failed". */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

/* ---- the solvers' GPU vector kernels on the host (blas-emulation.cpp's way) */
static void *blas_dev_alloc(size_t bytes) { return calloc(bytes ? bytes : 1, 1); }
static void blas_dev_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args);

#include "solvers/blas_gpu.cuh"

template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args)
{
    blockDim.x = GPU_RED_BS;
    for (unsigned b = 0; b < nb; b++) {
        blockIdx.x = b;
        if (barriers)
            cuda_on_host_block(GPU_RED_BS, [&] { kernel(args...); });
        else
            for (unsigned t = 0; t < GPU_RED_BS; t++) {
                threadIdx.x = t;
                kernel(args...);
            }
    }
}

extern "C" {
#include "solvers/blas_gpu.h"
#include "hmc/staggered_gpu_solver.h"
#include "hmc/staggered_monomial.h"
#include "hmc/integrator.h"
#include "hmc/gauge.h"
#include "rational/rational.h"
#include "lattice/field.h"
#include "base/log.h"
}
#include "unit.h"

/* what blas_gpu.cu defines, on the emulated kernels */
extern "C" struct solver_blas *solver_blas_gpu_open(void) { return blas_gpu_make(); }
extern "C" void solver_blas_gpu_close(struct solver_blas *blas) { blas_gpu_destroy(blas); }

/* the device entry points the host sides call: host memory, no GPU */
extern "C" void *gpu_alloc(size_t bytes, const char *what) { (void)what; return lat_calloc(bytes ? bytes : 1, 1); }
extern "C" void gpu_free(void *p) { free(p); }
extern "C" void gpu_upload(void *d, const void *s, size_t n) { memcpy(d, s, n); }
extern "C" void gpu_download(void *d, const void *s, size_t n) { memcpy(d, s, n); }
extern "C" void gpu_memset(void *d, int v, size_t n) { memset(d, v, n); }
extern "C" void gpu_sync(const char *w) { (void)w; }
extern "C" void gpu_check(const char *w) { (void)w; }
extern "C" int gpu_available(char *why, int len) { (void)why, (void)len; return 1; }
extern "C" void gpu_inject_fault(void) {}
static void not_here(void) { lat_die(1, "hmc-gpu-emulation", "no halo exchange or observables here"); }
extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *f) { (void)f; not_here(); return NULL; }
extern "C" void gpu_halo_free(struct gpu_halo *x) { (void)x; }
extern "C" void gpu_halo_start(struct gpu_halo *, const struct gpu_field *, const struct geometry *,
                               const struct halo_part *, int, int) { not_here(); }
extern "C" void gpu_halo_finish(struct gpu_halo *, const struct gpu_field *, const struct geometry *, int) { not_here(); }
extern "C" void gpu_observables_sums(const struct gpu_field *, double *) { not_here(); }

static const double BETA = 5.6, MASS = 0.1;
static const uint64_t SEED = 7;
static const uint32_t TRAJ = 3;
static const double TAU = 0.25;
static const int MD_STEPS = 4;

static double max_link_diff(const struct field *a, const struct field *b)
{
    double d = 0;
    for (size_t i = 0; i < field_reals(a); i++) d = fmax(d, fabs(a->d[i] - b->d[i]));
    return d;
}

/* one trajectory of gauge (scale 1) + staggered (scale 0) from u (a copy is evolved) */
static void trajectory(const struct field *start, const struct staggered_monomial_params *sp, struct field *out,
                       struct hmc_result *res)
{
    char why[256];
    field_copy(out, start);
    struct hmc_monomial mono[2];
    struct hmc_gauge_ctx gctx;
    mono[0] = hmc_gauge_monomial(&gctx, BETA, 1);
    if (staggered_monomial_create(&mono[1], sp, out, why, sizeof why)) lat_die(1, "hmc-gpu-emulation", "%s", why);
    const struct hmc_params par = {{TAU, MD_STEPS, 2}, SEED};
    hmc_trajectory(&par, mono, 2, out, TRAJ, res, NULL);
    staggered_monomial_free(&mono[1]);
}

static void compare(const char *name, const struct field *start, struct staggered_monomial_params sp,
                    struct staggered_gpu_solver *gs)
{
    struct field ucpu, ugpu;
    struct hmc_result rc, rg;
    sp.gpu = NULL;
    trajectory(start, &sp, &ucpu, &rc);
    sp.gpu = gs;
    staggered_gpu_solver_take_transfer_seconds(gs);
    trajectory(start, &sp, &ugpu, &rg);
    const double moved = staggered_gpu_solver_take_transfer_seconds(gs);
    const double dl = max_link_diff(&ucpu, &ugpu);
    printf("%s: dH cpu %.12g gpu %.12g (diff %.3g), H0 diff %.3g, H1 diff %.3g, links %.3g, iterations cpu %ld gpu %ld, "
           "accepted %d %d\n", name, rc.dH, rg.dH, fabs(rc.dH - rg.dH), fabs(rc.H0 - rg.H0), fabs(rc.H1 - rg.H1), dl,
           rc.iterations, rg.iterations, rc.accepted, rg.accepted);
    CHECK(fabs(rc.H0 - rg.H0) <= 1e-9 && fabs(rc.H1 - rg.H1) <= 1e-9, "%s: H0 or H1 differ by %.3g, %.3g", name,
          fabs(rc.H0 - rg.H0), fabs(rc.H1 - rg.H1));
    CHECK(fabs(rc.dH - rg.dH) <= 1e-9, "%s: dH differs by %.3g", name, fabs(rc.dH - rg.dH));
    CHECK(rc.accepted && rg.accepted, "%s: a trajectory was rejected (cpu %d, gpu %d): the link check would be trivial", name,
          rc.accepted, rg.accepted);
    CHECK(dl <= 1e-10, "%s: the links differ by %.3g", name, dl);
    CHECK(rg.iterations > 0 && moved > 0, "%s: the GPU path did not solve (iterations %ld, transfer %.3g s)", name,
          rg.iterations, moved);
    field_free(&ucpu);
    field_free(&ugpu);
}

int main(void)
{
    const int L[4] = {4, 4, 4, 4};
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
    struct staggered_gpu_solver *gs = staggered_gpu_solver_create(&u, MASS, why, sizeof why);
    CHECK(gs != NULL, "staggered_gpu_solver_create: %s", why);
    if (!gs) return unit_done("hmc-gpu-emulation");
    double lo, hi;
    staggered_spectral_range(&u, MASS, &lo, &hi);
    /* N_f = 2: rationals as lat-hmc fits them */
    struct rational hb, md, met;
    if (rational_remez_tol(&hb, 2, 8, 1e-12, lo, hi, why, sizeof why) || rational_remez_tol(&met, -2, 4, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&md, -2, 4, 1e-6, lo, hi, why, sizeof why))
        lat_die(1, "hmc-gpu-emulation", "remez: %s", why);
    struct staggered_monomial_params sp = {};
    sp.mass = MASS, sp.nf = 2, sp.npf = 1, sp.heatbath = &hb, sp.md = &md, sp.metropolis = &met;
    sp.tol_md = 1e-12, sp.tol_metropolis = 1e-12, sp.max_iter = 10000, sp.timescale = 0;
    compare("N_f = 2 RHMC, double", &u, sp, gs);
    /* mixed MD solves on the GPU path against the double CPU path */
    {
        struct field ucpu, ugpu;
        struct hmc_result rc, rg;
        struct staggered_monomial_params sm = sp;
        trajectory(&u, &sm, &ucpu, &rc);
        sm.gpu = gs, sm.mixed = 1, sm.tol_md = 1e-8;
        trajectory(&u, &sm, &ugpu, &rg);
        printf("N_f = 2 RHMC, GPU mixed (tol_md 1e-8) vs CPU double: dH %.12g vs %.12g (diff %.3g), links %.3g\n", rg.dH,
               rc.dH, fabs(rg.dH - rc.dH), max_link_diff(&ucpu, &ugpu));
        CHECK(fabs(rg.dH - rc.dH) <= 1e-6, "mixed: dH differs from the double CPU path's by %.3g", fabs(rg.dH - rc.dH));
        field_free(&ucpu);
        field_free(&ugpu);
    }
    /* N_f = 4: exact HMC */
    struct staggered_monomial_params se = {};
    se.mass = MASS, se.nf = 4, se.npf = 1, se.tol_md = 1e-12, se.tol_metropolis = 1e-12, se.max_iter = 10000;
    compare("N_f = 4 exact HMC, double", &u, se, gs);
    /* the condensate's CG */
    double ec, eg;
    long ic, ig;
    const double cc = staggered_condensate_on(&u, MASS, 4, SEED, TRAJ, &ec, &ic, NULL);
    const double cg = staggered_condensate_on(&u, MASS, 4, SEED, TRAJ, &eg, &ig, gs);
    printf("condensate cpu %.15g gpu %.15g (relative diff %.3g), iterations %ld %ld\n", cc, cg, fabs(cc - cg) / fabs(cc), ic, ig);
    CHECK(fabs(cc - cg) <= 1e-9 * fabs(cc) && ig > 0, "condensate: cpu %.15g gpu %.15g", cc, cg);
    staggered_gpu_solver_free(gs);
    field_free(&u);
    return unit_done("hmc-gpu-emulation");
}
