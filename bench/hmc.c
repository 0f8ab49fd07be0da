/* hmc.c -- benchmark of one HMC trajectory on the CPU (kernels/hmc): seconds
 * per trajectory and where they go -- the fermion solver (with --nf 2: the
 * staggered monomial's force, i.e. its multi-shift CG and the force
 * assembly; its heatbath and Metropolis solves are in "other"; N_f = 0:
 * 0), the gauge force, the link updates, the rest (momenta, actions,
 * Metropolis) -- for SU(3), beta 6.0, tau 1, 10 Omelyan 2MN steps, from a
 * thermalised-enough start (2 trajectories from a hot start, not timed),
 * on the OpenMP threads given (OMP_NUM_THREADS).  Also the gauge force
 * rate in link forces per second (3 force evaluations per 2MN step).
 *
 *   build/bench/hmc [-n TRAJ] [--nf 2] [--device cpu|gpu] [LXxLYxLZxLT ...]   default: -n 2,
 *       the lattices 8x8x8x4 16x16x16x8 32x32x32x8 (-n 1 for a quick 32^3x8)
 * --nf 2: N_f = 2 RHMC as lat-hmc runs it (am 0.1, fermions on the 10 2MN
 * steps, the gauge action on 2 substeps per half step, rationals to 1e-12 /
 * 1e-6 on the estimated range, double solves to 1e-8 / 1e-12).
 * --device gpu (with --nf 2): the monomial's solves on one GPU as lat-hmc
 * --device gpu runs them (hmc/staggered_gpu_solver.h), the rest on the
 * CPU; "solver" then includes the host<->device copies, also printed
 * alone as "transfer"; no GPU: one line, exit 1. */
#include "base/cli.h"
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_gpu_solver.h"
#include "rational/rational.h"
#include "lattice/field.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MASS 0.1

static void bench(const int L[4], int ntraj, int nf, int gpu)
{
    struct lattice lat;
    const char *why = NULL;
    if (lattice_init(&lat, L, &why)) {
        fprintf(stderr, "hmc: %dx%dx%dx%d: %s\n", L[0], L[1], L[2], L[3], why);
        exit(2);
    }
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 1);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m[2] = {hmc_gauge_monomial(&g, 6.0, 0)};
    struct hmc_params par = {{1.0, 10, 1}, 1};
    struct hmc_result res;
    hmc_trajectory(&par, m, 1, &u, 0, &res, NULL); /* untimed, quenched */
    int nm = 1, fi = 0, gi = 0;
    struct rational hb, md, met;
    struct staggered_gpu_solver *gs = NULL;
    if (nf > 0) {
        char why[256];
        double lo, hi;
        staggered_spectral_range(&u, BENCH_MASS, &lo, &hi);
        hi *= 1.5; /* room for the trajectories ahead: no refit in the timed part */
        if (rational_remez_tol(&hb, nf, 8, 1e-12, lo, hi, why, sizeof why) ||
            rational_remez_tol(&met, -nf, 4, 1e-12, lo, hi, why, sizeof why) ||
            rational_remez_tol(&md, -nf, 4, 1e-6, lo, hi, why, sizeof why)) {
            fprintf(stderr, "hmc: rationals: %s\n", why);
            exit(1);
        }
        struct staggered_monomial_params sp = {.mass = BENCH_MASS, .nf = nf, .npf = 1, .heatbath = &hb, .md = &md,
                                               .metropolis = &met, .tol_md = 1e-8, .tol_metropolis = 1e-12,
                                               .max_iter = 100000, .timescale = 0};
        if (gpu && !(sp.gpu = gs = staggered_gpu_solver_create(&u, BENCH_MASS, why, sizeof why))) {
            fprintf(stderr, "hmc: --device gpu: %s\n", why);
            exit(1);
        }
        m[0] = hmc_gauge_monomial(&g, 6.0, 1);
        if (staggered_monomial_create(&m[1], &sp, &u, why, sizeof why)) {
            fprintf(stderr, "hmc: %s\n", why);
            exit(1);
        }
        par.it.substeps = 2;
        nm = 2, fi = 1;
    }
    struct hmc_timing t;
    memset(&t, 0, sizeof t);
    double total = 0, acc = 0;
    long iters = 0;
    if (gs) staggered_gpu_solver_take_transfer_seconds(gs);
    for (int i = 0; i < ntraj; i++) {
        hmc_trajectory(&par, m, nm, &u, (uint32_t)(1 + i), &res, &t);
        total += res.seconds;
        acc += res.accepted;
        iters += res.iterations;
    }
    double solver = fi ? t.force[fi] / ntraj : 0, force = t.force[gi] / ntraj, upd = t.update / ntraj;
    double per = total / ntraj, rest = per - solver - force - upd;
    const double transfer = gs ? staggered_gpu_solver_take_transfer_seconds(gs) / ntraj : 0;
    double links = 4.0 * (double)lat.V * (double)t.force_calls[gi] / ntraj;
    printf("hmc %dx%dx%dx%d nf=%d device=%s threads=%d trajectories=%d: %.3f s/traj  solver %.3f  force %.3f  update %.3f  "
           "other %.3f  transfer %.3f  (%.3g link forces/s, acceptance %.2f, CG iterations/traj %.0f)\n",
           L[0], L[1], L[2], L[3], nf, gs ? "gpu" : "cpu", omp_get_max_threads(), ntraj, per, solver, force, upd, rest,
           transfer, links / force, acc / ntraj, (double)iters / ntraj);
    if (fi) staggered_monomial_free(&m[1]);
    staggered_gpu_solver_free(gs);
    field_free(&u);
}

int main(int argc, char **argv)
{
    int ntraj = 2, any = 0, nf = 0, gpu = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            ntraj = atoi(argv[++i]);
            if (ntraj < 1) { fprintf(stderr, "hmc: -n must be >= 1\n"); return 2; }
            continue;
        }
        if (strcmp(argv[i], "--nf") == 0 && i + 1 < argc) {
            nf = atoi(argv[++i]);
            if (nf != 0 && nf != 2) { fprintf(stderr, "hmc: --nf takes 0 or 2\n"); return 2; }
            continue;
        }
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            gpu = strcmp(argv[++i], "gpu") == 0;
            if (!gpu && strcmp(argv[i], "cpu") != 0) { fprintf(stderr, "hmc: --device takes cpu or gpu\n"); return 2; }
            continue;
        }
        int L[4];
        if (cli_parse_extents(argv[i], L)) { fprintf(stderr, "hmc: '%s' is not LXxLYxLZxLT\n", argv[i]); return 2; }
        if (gpu && nf == 0) { fprintf(stderr, "hmc: --device gpu needs --nf 2 (it moves the staggered solves)\n"); return 2; }
        bench(L, ntraj, nf, gpu);
        any = 1;
    }
    if (!any) {
        const int sizes[3][4] = {{8, 8, 8, 4}, {16, 16, 16, 8}, {32, 32, 32, 8}};
        if (gpu && nf == 0) { fprintf(stderr, "hmc: --device gpu needs --nf 2 (it moves the staggered solves)\n"); return 2; }
        for (int k = 0; k < 3; k++) bench(sizes[k], ntraj, nf, gpu);
    }
    return 0;
}
