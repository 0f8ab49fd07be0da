/* bench_cpu.h -- what the CPU operator benchmarks (dirac.c, staggered.c)
 * share, header only:
 *   bench_now()                 the monotonic clock in seconds
 *   bench_time(apply, ctx, &cpu)  seconds per call of apply(ctx): one
 *                               warm-up call, then calls for >= 0.2 s, the
 *                               run's mean by the wall clock; *cpu the same
 *                               in the process's CPU time (all threads: the
 *                               per-core rate, meaningful on a loaded machine)
 *   bench_sizes(argc, argv, sizes, max)  the L of each argument (default
 *                               8 16); returns how many */
#ifndef LAT_BENCH_CPU_H
#define LAT_BENCH_CPU_H

#include "base/clock.h"
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void) { return lat_clock(); }

static inline double bench_time(void (*apply)(void *ctx), void *ctx, double *cpu)
{
    int reps = 0;
    double t0 = 0, dt = 0;
    clock_t c0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        t0 = bench_now();
        c0 = clock();
        reps = 0;
        do {
            apply(ctx);
            reps++;
            dt = bench_now() - t0;
        } while (pass == 1 && dt < 0.2);
    }
    *cpu = (double)(clock() - c0) / CLOCKS_PER_SEC / reps;
    return dt / reps;
}

static inline int bench_sizes(int argc, char **argv, int *sizes, int max)
{
    if (argc <= 1) {
        sizes[0] = 8, sizes[1] = 16;
        return 2;
    }
    int n = 0;
    for (int k = 1; k < argc && n < max; k++) sizes[n++] = atoi(argv[k]);
    return n;
}

#endif
