/* gaugefix_cpu.c (bench) -- the CPU rate of Landau overrelaxation: site
 * updates per second per core on a 16^4 SU(3) lattice, double and single
 * (and mixed) precision, with the paper's flop count (2274 flop per site)
 * and the bytes moved (8 links loaded and stored per site, 12 reals per
 * link as the paper counts them, 8 or 4 bytes per real).
 *
 *   build/bench/gaugefix_cpu [L [SWEEPS]]     (defaults 16 and 20)
 *
 * Runs on one thread (the per-core number) and, when OpenMP has more, on all
 * of them.  Prints one line per precision and thread count, and for
 * comparison one line of Landau annealing (heatbath sweeps at T = 1, double,
 * one thread). */
#include "lattice/field.h"
#include "base/clock.h"
#include "gaugefix/backend.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int l = argc > 1 ? atoi(argv[1]) : 16, sweeps = argc > 2 ? atoi(argv[2]) : 20;
    int L[4] = {l, l, l, l};
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why) != 0) { fprintf(stderr, "gaugefix_cpu: %s\n", why); return 2; }
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 1);
    int maxt = omp_get_max_threads();
    struct gf_params p = {GAUGE_LANDAU, GF_OVERRELAX, 1.7, 0, 0};
    printf("# Landau overrelaxation (omega 1.7), SU(3), %d^4, %d sweeps, CPU backend\n", l, sweeps);
    printf("# %-8s %7s %16s %16s %10s %10s\n", "precision", "threads", "site_upd/s", "site_upd/s/core", "GFlop/s", "GB/s");
    const char *names[] = {"double", "single", "mixed"};
    const char precs[] = {'d', 's', 'm'};
    int tcounts[2] = {1, maxt};
    for (int ti = 0; ti < (maxt > 1 ? 2 : 1); ti++) {
        omp_set_num_threads(tcounts[ti]);
        for (int k = 0; k < 3; k++) {
            const struct gf_backend *b = &gf_backend_cpu;
            struct gf_state *st = b->create(&u, NULL, precs[k]);
            b->sweep(st, &p, 1, 0, 0, NULL); /* warm-up */
            double t0 = lat_clock();
            for (int s = 0; s < sweeps; s++) b->sweep(st, &p, 1, 0, (uint32_t)s + 1, NULL);
            double dt = lat_clock() - t0;
            b->destroy(st);
            double rate = (double)lat.V * sweeps / dt;
            double bytes = 8.0 * 2 * 12 * (precs[k] == 'd' ? 8 : 4);
            printf("  %-8s %7d %16.4g %16.4g %10.3g %10.3g\n", names[k], tcounts[ti], rate, rate / tcounts[ti],
                   rate * 2274e-9, rate * bytes * 1e-9);
        }
    }
    omp_set_num_threads(1);
    struct gf_params hb = {GAUGE_LANDAU, GF_ANNEAL, 1, 0, 1.0};
    struct gf_state *st = gf_backend_cpu.create(&u, NULL, 'd');
    double t0 = lat_clock();
    for (int s = 0; s < sweeps; s++) gf_backend_cpu.sweep(st, &hb, 1, 0, (uint32_t)s, NULL);
    double rate = (double)lat.V * sweeps / (lat_clock() - t0);
    gf_backend_cpu.destroy(st);
    printf("# Landau annealing heatbath (T = 1), double, 1 thread: %.4g site updates/s\n", rate);
    field_free(&u);
    return 0;
}
