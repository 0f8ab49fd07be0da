/* gaugefix_gpu.c -- benchmark of the CUDA gauge-fixing backend (make bench,
 * GPU present).
 *
 *   build/bench/gaugefix_gpu [--sizes 32,48] [--seconds S] [--variants]
 *                            [--tsv FILE]
 *
 * Measures first the device-to-device copy bandwidth (cudaMemcpy of 1 GiB,
 * bytes read + written, median of 20), then, for SU(3) Landau
 * overrelaxation on L^4 in single, mixed and double precision, whole sweeps
 * through gf_backend_gpu timed with CUDA events (after 20 warm-up sweeps,
 * the median of 5 timed runs of about S/5 seconds each, default S = 1), and
 * the same on the first size for Coulomb OR and MAG OR, and last one
 * annealing heatbath sweep (T = 0.5) on fresh states.  Reports per line: site updates per second, bytes moved
 * per second counting 8 links of 12 reals loaded and stored per site update
 * (768 B single/mixed, 1536 B double; Coulomb, which leaves U_t alone and
 * carries the run's g(x) as the tools do (gf_open): 6 links and 18 reals of
 * g, 720 B / 1440 B), the paper's flop rate (2274 flop per
 * site update, Landau OR only) and the percentage of the copy
 * bandwidth.  Rows named "-8" run on 8 reals per SU(3) link (--links 8:
 * 512 B per site update in single and mixed, Coulomb 528 B).
 * Each kernel runs in the launch shape the tuner chose
 * (gpu/tune.h, its cache file); --variants times every launch candidate
 * instead (gpu_tune_force).  The input
 * is a smooth SU(3) field on a random gauge orbit (its content does not
 * change the OR cost).  Exits 0 with a note when built without CUDA or no
 * GPU is present. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("gaugefix_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "gaugefix/backend.h"
#include "gaugefix/driver.h"
#include "gaugefix/gpu.h"
#include "gpu/tune.h"
#include "bench_gpu.h"
#include "../tests/gpu/gpu_fields.h"

/* Annealing is timed as lat-anneal runs it on the GPU: a reprojection every
 * 10 sweeps (kernels/gaugefix_tool.c; without it the two-row links lose
 * unitarity ~1.2x per sweep and turn to NaN within a few hundred sweeps, and
 * a sweep over NaN runs at a rate that means nothing).  OR sweeps are timed
 * bare, as cuLGT and QUDA time them. */
#define ANNEAL_REUNITARIZE_EVERY 10

static double time_sweeps(struct gf_state *s, const struct gf_params *p, int n)
{
    int every = p->update == GF_ANNEAL ? ANNEAL_REUNITARIZE_EVERY : 0;
    gpu_timer_start();
    for (int k = 0; k < n; k++) {
        gf_backend_gpu.sweep(s, p, 1, 0, (uint32_t)k, NULL);
        if (every && (k + 1) % every == 0) gf_backend_gpu.reunitarize(s);
    }
    return gpu_timer_stop();
}

struct timed_gf { struct gf_state *s; const struct gf_params *p; };
static double timed_gf(void *arg, int n)
{
    const struct timed_gf *a = arg;
    return time_sweeps(a->s, a->p, n);
}

/* median seconds per sweep; NaN (and a note) if the field is not sane after
 * the timed sweeps (F and theta finite, F <= 1 as for unitary links): a rate
 * measured on a broken field is not reported */
static double measure(struct gf_state *s, const struct gf_params *p, double seconds)
{
    struct timed_gf a = {s, p};
    double t = bench_median5(timed_gf, &a, 20, 20, seconds / 5, 10);
    struct gauge_quality q;
    gf_backend_gpu.measure(s, p->gauge, &q);
    free(q.F_t);
    free(q.theta_t);
    if (!isfinite(q.F) || !isfinite(q.theta) || q.F > 1 + 1e-5 || q.F < 0) {
        printf("  (the field is broken after the timed sweeps: F %g, theta %g; rate not reported)\n", q.F, q.theta);
        return NAN;
    }
    return t;
}

int main(int argc, char **argv)
{
    struct bench_opts o = {{32, 48}, 2, 1, 0, NULL};
    bench_parse(&o, "gaugefix_gpu", argc, argv);
    const int *sizes = o.sizes, nsizes = o.nsizes, variants = o.variants;
    const double seconds = o.seconds;
    const char *tsv = o.tsv;
    char dev[256];
    double bw = bench_device("gaugefix_gpu", dev, (int)sizeof dev);
    if (bw <= 0) return 0;

    struct bench_row rows[128];
    int nrows = 0;
    const char precs[3] = {'s', 'm', 'd'};
    for (int si = 0; si < nsizes; si++) {
        int L = sizes[si];
        struct lattice lat;
        fields_lattice(&lat, L, L);
        struct field u;
        fields_weak(&u, &lat, 3, 0.5, 1234);
        fields_orbit(&u, 99);
        /* 12 reals per SU(3) link in each precision, then 8 reals (--links 8)
         * in single and mixed: 16 links of 48 B, 96 B or 32 B move per site
         * update (Coulomb: 12 links and g read and written) */
        for (int pi = 0; pi < 5; pi++) {
            char prec = precs[pi % 3];
            int reals = pi < 3 ? 12 : 8;
            double link_b = (double)reals * (prec == 'd' ? 8 : 4);
            double bytes = 16 * link_b, bytes_c = 12 * link_b + 2 * 18 * (prec == 'd' ? 8 : 4);
            gf_backend_gpu.set_link_reals(reals);
            struct gf_state *s = gf_backend_gpu.create(&u, NULL, prec);
            double *time_g;
            struct gf_state *sc = gf_open(&gf_backend_gpu, &u, NULL, prec, GAUGE_COULOMB, &time_g);
            struct {
                const char *name;
                struct gf_params p;
                int flops;
            } ks[] = {{reals == 8 ? "landau-or-8" : "landau-or", {GAUGE_LANDAU, GF_OVERRELAX, 1.7, 0, 0}, 1},
                      {reals == 8 ? "coulomb-or-8" : "coulomb-or", {GAUGE_COULOMB, GF_OVERRELAX, 1.7, 0, 0}, 0},
                      {reals == 8 ? "mag-or-8" : "mag-or", {GAUGE_MAG, GF_OVERRELAX, 1.7, 0, 0}, 0}};
            int nk = si == 0 ? 3 : 1; /* annealing: below, on fresh states */
            for (int k = 0; k < nk; k++) {
                /* without --variants: the tuner's choice (gpu/tune.h); with
                 * it, every launch candidate forced in turn */
                int nv = variants ? GF_CANDIDATES : 1;
                for (int v = 0; v < nv; v++) {
                    gpu_tune_force(variants ? v : -1);
                    const int coulomb = ks[k].p.gauge == GAUGE_COULOMB;
                    double t = measure(coulomb ? sc : s, &ks[k].p, seconds);
                    double b = coulomb ? bytes_c : bytes;
                    int c = variants ? v : gpu_tune_last();
                    struct bench_row *r = bench_add(rows, &nrows, 128, ks[k].name, L, prec, c, (double)lat.V / t, b,
                                                    ks[k].flops ? 2274 : 0, bw);
                    printf("  %-14s %2d^4 %c %s %d (%s): %.3f G site-updates/s, %.0f GB/s, %.1f%% of copy\n", r->kernel,
                           L, prec, variants ? "candidate" : "tuned, candidate", c, gf_gpu_candidate_name(prec, c),
                           r->rate * 1e-9, r->gbs * 1e-9, r->pct);
                    fflush(stdout);
                }
                gpu_tune_force(-1);
            }
            gf_backend_gpu.destroy(s);
            gf_backend_gpu.destroy(sc);
            free(time_g);
            gf_backend_gpu.set_link_reals(12);
        }
        field_free(&u);
    }
    /* one annealing heatbath sweep (Landau, T = 0.5), first size, fresh states */
    {
        int L = sizes[0];
        struct lattice lat;
        fields_lattice(&lat, L, L);
        struct field u;
        fields_weak(&u, &lat, 3, 0.5, 1234);
        fields_orbit(&u, 99);
        struct gf_params an = {GAUGE_LANDAU, GF_ANNEAL, 1, 0, 0.5};
        for (int pi = 0; pi < 3; pi++) {
            char prec = precs[pi];
            struct gf_state *s = gf_backend_gpu.create(&u, NULL, prec);
            double t = measure(s, &an, seconds);
            struct bench_row *r =
                bench_add(rows, &nrows, 128, "landau-anneal", L, prec, gpu_tune_last(), (double)lat.V / t, prec == 'd' ? 1536 : 768, 0, bw);
            printf("  %-14s %2d^4 %c: %.3f G site-updates/s, %.0f GB/s, %.1f%% of copy\n", r->kernel, L, prec, r->rate * 1e-9,
                   r->gbs * 1e-9, r->pct);
            fflush(stdout);
            gf_backend_gpu.destroy(s);
        }
        field_free(&u);
    }
    double bw2 = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("copy bandwidth again at the end: %.1f GB/s\n", bw2 * 1e-9);

    printf("\nSU(3) gauge fixing on %s (copy bandwidth %.1f GB/s)\n", dev, bw * 1e-9);
    bench_table(rows, nrows, tsv, bw, "site", 1);
    return 0;
}
#endif
