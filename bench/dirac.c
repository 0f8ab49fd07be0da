/* dirac.c (bench) -- CPU rates of the Dirac operators (kernels/dirac): M and
 * the even-odd Mhat, Wilson and clover, double and single, on L^4 SU(3)
 * lattices (hot links), one thread and all of OpenMP's.
 *
 *   build/bench/dirac [L ...]        (default: 8 16)
 *
 * Per operator, precision and thread count: G site/s (output sites: V for
 * M, the V/2 odd sites for Mhat), GFlop/s and GB/s with the seed paper's
 * counting (QUDA, Babich/Clark/Joo): per output site a hopping term is 1320
 * flop and 8 x (24 spinor + 18 link) + 24 = 360 reals moved, a clover block
 * pair 504 flop, the final a x + b y 48 flop and 24 reals (the local spinor);
 * so M: 1368 (Wilson) / 1872 (clover) flop and 384 reals; Mhat: 2688 /
 * 3696 flop and 744 reals (2976 bytes in single: the seed's figure for its
 * 3696 flop; the clover matrices are not counted, as there).  Each rate is
 * the mean of a run of applications lasting >= 0.2 s after one warm-up, by
 * the wall clock; the last column divides by the process's CPU time instead
 * (GFlop per CPU second: the per-core rate, meaningful also on a shared,
 * loaded machine where the wall-clock rates are not).
 * The GPU columns come with the CUDA backend. */
#include "dirac/dirac.h"
#include "lattice/field.h"
#include "bench_cpu.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* one application of the operator under test (bench_time's callback) */
struct op_call {
    struct dirac_op *op;
    int eo, single;
    void *out;
    const void *in;
};
static void apply_op(void *ctx)
{
    struct op_call *c = ctx;
    if (c->single) (c->eo ? dirac_eo_apply_f : dirac_apply_f)(c->op, (float *)c->out, (const float *)c->in);
    else (c->eo ? dirac_eo_apply : dirac_apply)(c->op, (double *)c->out, (const double *)c->in);
}

int main(int argc, char **argv)
{
    int sizes[8];
    const int nsizes = bench_sizes(argc, argv, sizes, 8);
    const int maxt = omp_get_max_threads();
    printf("# Dirac operators, SU(3), hot links, kappa 0.12, CPU (GPU columns: later, with the CUDA backend)\n");
    printf("# %-6s %-7s %-9s %4s %7s %10s %12s %10s %9s %8s %12s\n", "op", "action", "precision", "L", "threads",
           "Gsite/s", "Gsite/s/core", "GFlop/s", "GB/s", "flop/site", "GFlop/cpu-s");
    for (int si = 0; si < nsizes; si++) {
        const int l = sizes[si];
        int L[4] = {l, l, l, l};
        struct lattice lat;
        const char *lwhy;
        if (lattice_init(&lat, L, &lwhy) != 0) { fprintf(stderr, "dirac: %d^4: %s\n", l, lwhy); return 2; }
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 1);
        for (int clover = 0; clover < 2; clover++) {
            struct dirac_params p;
            dirac_params_default(&p, 0.12, clover ? 1.769 : 0);
            char why[256];
            struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
            if (!op) { fprintf(stderr, "dirac: %s\n", why); return 1; }
            const size_t nr = dirac_full_reals(op);
            double *in = malloc(nr * sizeof(double)), *out = malloc(nr * sizeof(double));
            for (size_t k = 0; k < nr; k++) in[k] = (double)((k * 2654435761u) % 1000) / 1000 - 0.5;
            float *inf = malloc(nr * sizeof(float)), *outf = malloc(nr * sizeof(float));
            for (size_t k = 0; k < nr; k++) inf[k] = (float)in[k];
            for (int eo = 0; eo < 2; eo++)
                for (int single = 0; single < 2; single++) {
                    const double flop = eo ? 2 * 1320 + 48 + (clover ? 2 * 504 : 0) : 1320 + 48 + (clover ? 504 : 0);
                    const double reals = eo ? 2 * 360 + 24 : 360 + 24;
                    const double sites = eo ? (double)lat.V / 2 : (double)lat.V;
                    int tc[2] = {1, maxt};
                    for (int ti = 0; ti < (maxt > 1 ? 2 : 1); ti++) {
                        omp_set_num_threads(tc[ti]);
                        double cpu;
                        struct op_call call = {op, eo, single, single ? (void *)outf : (void *)out, single ? (const void *)inf : (const void *)in};
                        const double t = bench_time(apply_op, &call, &cpu);
                        const double rate = sites / t;
                        printf("  %-6s %-7s %-9s %4d %7d %10.5f %12.5f %10.3f %9.3f %8.0f %12.3f\n", eo ? "Mhat" : "M",
                               clover ? "clover" : "Wilson", single ? "single" : "double", l, tc[ti], rate * 1e-9,
                               rate * 1e-9 / tc[ti], rate * flop * 1e-9, rate * reals * (single ? 4 : 8) * 1e-9, flop,
                               sites * flop / cpu * 1e-9);
                    }
                }
            omp_set_num_threads(maxt);
            free(in); free(out); free(inf); free(outf);
            dirac_free(op);
        }
        field_free(&u);
    }
    return 0;
}
