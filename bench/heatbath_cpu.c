/* heatbath_cpu.c -- benchmark of the CPU heatbath backend: heatbath and
 * overrelaxation sweep rates in link updates per second, for SU(3) on 16^4
 * by default, in double, single and mixed precision, on the OpenMP threads
 * given (OMP_NUM_THREADS).  Also bytes per second counting each link loaded
 * and stored once per sweep (2 N^2 reals each way), against the machine's
 * memcpy bandwidth measured in the same run.
 *
 *   build/bench/heatbath_cpu [L [NC [SWEEPS]]]      defaults 16 3 4 */
#include "lattice/field.h"
#include "heatbath/backend.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double copy_bandwidth(void)
{
    size_t n = (size_t)256 << 20; /* 256 MiB */
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b) { free(a); free(b); return 0; }
    memset(a, 1, n);
    memset(b, 2, n);
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        double t0 = omp_get_wtime();
        int nt = omp_get_max_threads();
#pragma omp parallel for schedule(static)
        for (int t = 0; t < nt; t++) {
            size_t lo = n / (size_t)nt * (size_t)t, hi = t == nt - 1 ? n : n / (size_t)nt * (size_t)(t + 1);
            memcpy(b + lo, a + lo, hi - lo);
        }
        double dt = omp_get_wtime() - t0;
        if (dt < best) best = dt;
    }
    volatile char sink = b[n / 3];
    (void)sink;
    free(a);
    free(b);
    return 2.0 * (double)n / best; /* read + write */
}

int main(int argc, char **argv)
{
    int L = argc > 1 ? atoi(argv[1]) : 16, nc = argc > 2 ? atoi(argv[2]) : 3, sweeps = argc > 3 ? atoi(argv[3]) : 4;
    int e[4] = {L, L, L, L};
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, e, &why) || nc < 2 || nc > LAT_NC_MAX || sweeps < 1) {
        fprintf(stderr, "usage: heatbath_cpu [L [NC [SWEEPS]]] (L even, 2 <= NC <= %d)\n", LAT_NC_MAX);
        return 2;
    }
    struct field u;
    field_alloc(&u, &lat, nc, 64);
    field_set_random(&u, 1);
    double bw = copy_bandwidth();
    double links = 4.0 * (double)lat.V;
    printf("heatbath_cpu: SU(%d) %d^4, %d threads, memcpy bandwidth %.2f GB/s\n", nc, L, omp_get_max_threads(),
           bw / 1e9);
    const char *names[3] = {"double", "single", "mixed"};
    const char precs[3] = {'d', 's', 'm'};
    for (int p = 0; p < 3; p++) {
        struct hb_state *s = hb_backend_cpu.create(&u, precs[p]);
        hb_backend_cpu.heatbath(s, 6.0, 1, 0); /* warm-up, and a thermal-ish field */
        double t0 = omp_get_wtime();
        for (int k = 1; k <= sweeps; k++) hb_backend_cpu.heatbath(s, 6.0, 1, (uint32_t)k);
        double thb = (omp_get_wtime() - t0) / sweeps;
        t0 = omp_get_wtime();
        for (int k = 0; k < sweeps; k++) hb_backend_cpu.overrelax(s);
        double tor = (omp_get_wtime() - t0) / sweeps;
        hb_backend_cpu.destroy(s);
        double bytes = 2.0 * links * 2 * nc * nc * (precs[p] == 'd' ? 8 : 4); /* load + store each link */
        printf("  %-6s heatbath       %9.3g link updates/s  %7.3f s/sweep  %6.2f GB/s (%4.1f%% of memcpy)\n",
               names[p], links / thb, thb, bytes / thb / 1e9, 100 * bytes / thb / bw);
        printf("  %-6s overrelaxation %9.3g link updates/s  %7.3f s/sweep  %6.2f GB/s (%4.1f%% of memcpy)\n",
               names[p], links / tor, tor, bytes / tor / 1e9, 100 * bytes / tor / bw);
    }
    field_free(&u);
    return 0;
}
