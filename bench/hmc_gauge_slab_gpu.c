/* hmc_gauge_slab_gpu.c -- benchmark of the GPU HMC's gauge part on MPI
 * t-slabs, one GPU per rank (kernels/hmc/gpu.h on a slab field; make bench,
 * GPUs present).
 *
 *   mpirun -np R build/bench/hmc_gauge_slab_gpu [L [reps]]   (default 32, 20)
 *
 * On L^4 (Haar-random links, SU(3), double, 18-real links; L/R even) each
 * piece `reps` times after a warm-up, timed with CUDA events on rank 0
 * between barriers of all ranks: the links' halo refresh alone
 * (hmc_gpu_links_refresh: 16 slices of V3/2 links each way), the link
 * update with its refresh, the gauge force, P += eps F, the kinetic energy
 * and the gauge action (per-timeslice sums over the ranks), and one Omelyan
 * 2MN step (2 forces, 2 link updates with their refreshes, 3 kicks): µs per
 * call and the refresh's share of the link update.  Then a check: the
 * action of the links after the timed steps, once from the device and once
 * by hmc_gauge_action on the downloaded slab (the CPU): "PASS" when they
 * agree to 1e-13 relative, else "FAIL" (exit 1).  The halo goes device to
 * device (gpu/peer.h) unless LAT_GPU_HALO=host.  Exits 0 with a note when
 * built without CUDA or no GPU is present. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("hmc_gauge_slab_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "base/comm.h"
#include "base/log.h"
#include "gpu/field.h"
#include "hmc/gauge.h"
#include "hmc/gpu.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include <math.h>
#include <string.h>

enum { B_REFRESH, B_UPDATE, B_FORCE, B_ADD, B_KINETIC, B_ACTION, B_STEP, B_N };
static const char *const names[B_N] = {"halo refresh", "link update", "gauge force", "P += eps F", "kinetic energy",
                                       "gauge action", "2MN step"};

static void run(int k, struct gpu_field *U, struct gpu_field *P, struct gpu_field *F)
{
    const double eps = 1e-3, lambda = 0.1931833275037836;
    switch (k) {
    case B_REFRESH: hmc_gpu_links_refresh(U); break;
    case B_UPDATE: hmc_gpu_link_update(U, P, eps); break;
    case B_FORCE: hmc_gpu_gauge_force(U, 5.7, 1.0, F); break;
    case B_ADD: hmc_gpu_momenta_add(P, eps, F); break;
    case B_KINETIC: (void)hmc_gpu_kinetic_energy(P); break;
    case B_ACTION: (void)hmc_gpu_gauge_action(U, 5.7); break;
    case B_STEP:
        hmc_gpu_momenta_add(P, lambda * eps, F);
        hmc_gpu_link_update(U, P, eps / 2);
        hmc_gpu_zero(F);
        hmc_gpu_gauge_force(U, 5.7, 1.0, F);
        hmc_gpu_momenta_add(P, (1 - 2 * lambda) * eps, F);
        hmc_gpu_link_update(U, P, eps / 2);
        hmc_gpu_zero(F);
        hmc_gpu_gauge_force(U, 5.7, 1.0, F);
        hmc_gpu_momenta_add(P, lambda * eps, F);
        break;
    }
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    lat_progname = "hmc_gauge_slab_gpu";
    int L = argc > 1 ? atoi(argv[1]) : 32, reps = argc > 2 ? atoi(argv[2]) : 20;
    if (argc > 3 || L < 4 || L % 2 || reps < 1) lat_die_all(2, NULL, "usage: hmc_gauge_slab_gpu [L (even, >= 4) [reps (>= 1)]]");
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        if (comm_is_root()) printf("hmc_gauge_slab_gpu: no GPU (%s): nothing to measure\n", why);
        comm_exit(0);
    }
    const int dims[4] = {L, L, L, L};
    struct lattice glob;
    const char *lw = NULL;
    if (lattice_init(&glob, dims, &lw)) lat_die_all(2, NULL, "lattice %d^4: %s", L, lw);
    const struct geometry *d = geometry_for(&glob);
    struct field u;
    geometry_field_alloc(&u, d, &glob, 3, 64);
    field_set_random(&u, 5);
    struct gpu_field U, P, F;
    hmc_gpu_field_create(&U, &u);
    hmc_gpu_links_upload(&U, &u);
    hmc_gpu_field_like(&P, &U);
    hmc_gpu_field_like(&F, &U);
    hmc_gpu_momenta_draw(&P, 3, 0);
    hmc_gpu_gauge_force(&U, 5.7, 1.0, &F);
    char dev[256];
    gpu_device_name(dev, sizeof dev);
    const char *via = getenv("LAT_GPU_HALO");
    if (comm_is_root())
        printf("device: %s; %d rank(s), %d timeslices each, halo %s\n%d^4 SU(3) double, 18-real links, %d calls each:\n%-16s %10s\n",
               dev, comm_size(), d ? d->lt : L, d ? (via && !strcmp(via, "host") ? "through the host" : "device to device") : "none",
               L, reps, "piece", "us/call");
    double us[B_N];
    for (int k = 0; k < B_N; k++) {
        run(k, &U, &P, &F); /* warm-up (the first refresh maps the peers) */
        hmc_gpu_sync();
        comm_barrier();
        gpu_timer_start();
        for (int r = 0; r < reps; r++) run(k, &U, &P, &F);
        double t = gpu_timer_stop();
        comm_barrier();
        comm_max(&t, 1); /* the slowest rank */
        us[k] = t / reps * 1e6;
        if (comm_is_root()) printf("%-16s %10.1f\n", names[k], us[k]);
    }
    if (comm_is_root() && d && us[B_UPDATE] > 0)
        printf("the halo refresh: %.0f%% of a link update\n", 100 * us[B_REFRESH] / us[B_UPDATE]);
    /* the check: the device's action of the evolved links = the CPU's */
    const double sg = hmc_gpu_gauge_action(&U, 5.7);
    hmc_gpu_links_download(&U, &u);
    const double sc = hmc_gauge_action(&u, 5.7), rel = fabs(sg - sc) / fabs(sc);
    const int ok = rel <= 1e-13;
    if (comm_is_root())
        printf("%s: gauge action after the timed steps GPU %.17g, CPU %.17g (rel %.2e, bound 1e-13)\n", ok ? "PASS" : "FAIL", sg,
               sc, rel);
    hmc_gpu_field_free(&F);
    hmc_gpu_field_free(&P);
    hmc_gpu_field_free(&U);
    field_free(&u);
    comm_exit(ok ? 0 : 1);
}
#endif
