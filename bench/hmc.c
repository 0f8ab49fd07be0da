/* hmc.c -- benchmark of one HMC trajectory on the CPU (kernels/hmc): seconds
 * per trajectory and where they go -- the fermion solver (0: N_f = 0 in
 * this build), the forces, the link updates, the rest (momenta, actions,
 * Metropolis) -- for SU(3), beta 6.0, tau 1, 10 Omelyan 2MN steps, from a
 * thermalised-enough start (2 trajectories from a hot start, not timed),
 * on the OpenMP threads given (OMP_NUM_THREADS).  Also the gauge force
 * rate in link forces per second (3 force evaluations per 2MN step).
 *
 *   build/bench/hmc [-n TRAJ] [LXxLYxLZxLT ...]   default: -n 2, the
 *       lattices 8x8x8x4 16x16x16x8 32x32x32x8 (-n 1 for a quick 32^3x8) */
#include "base/cli.h"
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "lattice/field.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench(const int L[4], int ntraj)
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
    struct hmc_monomial m = hmc_gauge_monomial(&g, 6.0, 0);
    struct hmc_params par = {{1.0, 10, 1}, 1};
    struct hmc_result res;
    hmc_trajectory(&par, &m, 1, &u, 0, &res, NULL); /* untimed */
    struct hmc_timing t;
    memset(&t, 0, sizeof t);
    double total = 0, acc = 0;
    for (int i = 0; i < ntraj; i++) {
        hmc_trajectory(&par, &m, 1, &u, (uint32_t)(1 + i), &res, &t);
        total += res.seconds;
        acc += res.accepted;
    }
    double per = total / ntraj, force = t.force[0] / ntraj, upd = t.update / ntraj, rest = per - force - upd;
    double links = 4.0 * (double)lat.V * (double)t.force_calls[0] / ntraj;
    printf("hmc %dx%dx%dx%d nf=0 threads=%d trajectories=%d: %.3f s/traj  solver %.3f  force %.3f  update %.3f  "
           "other %.3f  (%.3g link forces/s, acceptance %.2f)\n",
           L[0], L[1], L[2], L[3], omp_get_max_threads(), ntraj, per, 0.0, force, upd, rest, links / force, acc / ntraj);
    field_free(&u);
}

int main(int argc, char **argv)
{
    int ntraj = 2, any = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            ntraj = atoi(argv[++i]);
            if (ntraj < 1) { fprintf(stderr, "hmc: -n must be >= 1\n"); return 2; }
            continue;
        }
        int L[4];
        if (cli_parse_extents(argv[i], L)) { fprintf(stderr, "hmc: '%s' is not LXxLYxLZxLT\n", argv[i]); return 2; }
        bench(L, ntraj);
        any = 1;
    }
    if (!any) {
        const int sizes[3][4] = {{8, 8, 8, 4}, {16, 16, 16, 8}, {32, 32, 32, 8}};
        for (int k = 0; k < 3; k++) bench(sizes[k], ntraj);
    }
    return 0;
}
