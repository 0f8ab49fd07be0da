/* staggered.c (bench) -- CPU rates of the staggered operator
 * (kernels/dirac/staggered.h): (M^dag M)_ee = m^2 - D_eo D_oe on the even
 * sites, double and single, on L^4 SU(3) lattices (hot links), one thread
 * and all of OpenMP's.
 *
 *   build/bench/staggered [L ...]        (default: 8 16)
 *
 * Counting (per even output site, SU(3)): each of the two hop sweeps is 570
 * flop (8 colour matrix-vector products of 66 and 7 sums of 6) and moves 8
 * links (18 reals) and 8 neighbour vectors (6 reals) in and one vector out;
 * the m^2 x - y of the second sweep adds 12 flop and reads one vector: 1152
 * flop and 2 x 198 + 6 = 402 reals per even site.  Each rate is the mean of
 * a run of applications lasting >= 0.2 s after one warm-up, by the wall
 * clock; the last column divides by the process's CPU time instead (the
 * per-core rate, meaningful also on a shared, loaded machine). */
#include "dirac/staggered.h"
#include "lattice/field.h"
#include "bench_cpu.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STAGGERED_FLOP 1152.0
#define STAGGERED_REALS 402.0

/* one application of (M^dag M)_ee (bench_time's callback) */
struct op_call {
    struct staggered_op *op;
    int single;
    void *out;
    const void *in;
};
static void apply_op(void *ctx)
{
    struct op_call *c = ctx;
    if (c->single) staggered_mdagm_ee_f(c->op, (float *)c->out, (const float *)c->in);
    else staggered_mdagm_ee(c->op, (double *)c->out, (const double *)c->in);
}

int main(int argc, char **argv)
{
    int sizes[8];
    const int nsizes = bench_sizes(argc, argv, sizes, 8);
    const int maxt = omp_get_max_threads();
    printf("# staggered (M^dag M)_ee, SU(3), hot links, m 0.01, CPU\n");
    printf("# %-9s %4s %7s %10s %12s %10s %9s %8s %12s\n", "precision", "L", "threads", "Gsite/s", "Gsite/s/core",
           "GFlop/s", "GB/s", "flop/site", "GFlop/cpu-s");
    for (int si = 0; si < nsizes; si++) {
        const int l = sizes[si];
        int L[4] = {l, l, l, l};
        struct lattice lat;
        const char *lwhy;
        if (lattice_init(&lat, L, &lwhy) != 0) { fprintf(stderr, "staggered: %d^4: %s\n", l, lwhy); return 2; }
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 1);
        char why[256];
        struct staggered_op *op = staggered_create(&u, 0.01, why, sizeof why);
        if (!op) { fprintf(stderr, "staggered: %s\n", why); return 1; }
        const size_t nr = staggered_half_reals(op);
        double *in = malloc(nr * sizeof(double)), *out = malloc(nr * sizeof(double));
        float *inf = malloc(nr * sizeof(float)), *outf = malloc(nr * sizeof(float));
        for (size_t k = 0; k < nr; k++) {
            in[k] = (double)((k * 2654435761u) % 1000) / 1000 - 0.5;
            inf[k] = (float)in[k];
        }
        const double sites = (double)lat.V / 2;
        for (int single = 0; single < 2; single++) {
            int tc[2] = {1, maxt};
            for (int ti = 0; ti < (maxt > 1 ? 2 : 1); ti++) {
                omp_set_num_threads(tc[ti]);
                double cpu;
                struct op_call call = {op, single, single ? (void *)outf : (void *)out, single ? (const void *)inf : (const void *)in};
                const double t = bench_time(apply_op, &call, &cpu);
                const double rate = sites / t;
                printf("  %-9s %4d %7d %10.5f %12.5f %10.3f %9.3f %8.0f %12.3f\n", single ? "single" : "double", l,
                       tc[ti], rate * 1e-9, rate * 1e-9 / tc[ti], rate * STAGGERED_FLOP * 1e-9,
                       rate * STAGGERED_REALS * (single ? 4 : 8) * 1e-9, STAGGERED_FLOP, sites * STAGGERED_FLOP / cpu * 1e-9);
            }
        }
        omp_set_num_threads(maxt);
        free(in); free(out); free(inf); free(outf);
        staggered_free(op);
        field_free(&u);
    }
    return 0;
}
