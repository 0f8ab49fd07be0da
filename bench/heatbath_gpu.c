/* heatbath_gpu.c -- benchmark of the CUDA heatbath backend (make bench, GPU
 * present).
 *
 *   build/bench/heatbath_gpu [--sizes 32,24] [--seconds S] [--variants]
 *                            [--tsv FILE]
 *
 * Measures first the device-to-device copy bandwidth (cudaMemcpy of 1 GiB,
 * bytes read + written, median of 20), then for SU(3) on L^4 in single,
 * mixed and double precision the heatbath sweep and the overrelaxation
 * sweep of hb_backend_gpu, timed with CUDA events (the median of 5 timed
 * runs of about S/10 seconds each, default S = 1), on a field brought to
 * equilibrium at beta = 6 by 30 heatbath sweeps from a hot start.
 * Reports per line: link updates per second; bytes moved per second,
 * counting per link update the link and the 6 staples x 3 links loaded and
 * the link stored, 20 links of 12 reals (960 B single/mixed, 1920 B double;
 * caches make the DRAM traffic smaller, so this can pass 100%); that as a
 * percentage of the copy bandwidth; and GFlop/s at 4245 flop per link
 * update, the arithmetic of the header functions for SU(3) without the
 * random numbers: staple sum 3 x (4 matrix products of 198 + 2 sums of 18)
 * = 2484, third-row rebuilds 19 x 42 = 798, W = U A 198, three SU(2)
 * subgroup steps of 213 (g, g U and g W) = 639, reprojection 126 (the same
 * count for heatbath and overrelaxation).  The launch shapes are the
 * tuner's (gpu/tune.h); --variants times every launch candidate of k_link
 * (heatbath/gpu.h) instead.  Exits 0 with a note when built without
 * CUDA or no GPU is present. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("heatbath_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "lattice/field.h"
#include "heatbath/backend.h"
#include "heatbath/gpu.h"
#include "gpu/tune.h"
#include "bench_gpu.h"

#define FLOP_PER_LINK 4245.0
#define LINKS_MOVED 20.0

static uint32_t counter;

static double time_sweeps(struct hb_state *s, int hb, int n)
{
    gpu_timer_start();
    for (int k = 0; k < n; k++) {
        if (hb) hb_backend_gpu.heatbath(s, 6.0, 1, counter++);
        else hb_backend_gpu.overrelax(s);
    }
    return gpu_timer_stop();
}

struct timed_hb { struct hb_state *s; int hb; };
static double timed_hb(void *arg, int n)
{
    const struct timed_hb *a = arg;
    return time_sweeps(a->s, a->hb, n);
}

/* median seconds per sweep */
static double measure(struct hb_state *s, int hb, double seconds)
{
    struct timed_hb a = {s, hb};
    return bench_median5(timed_hb, &a, 3, 5, seconds / 10, 3);
}

int main(int argc, char **argv)
{
    struct bench_opts o = {{32, 24}, 2, 1, 0, NULL};
    bench_parse(&o, "heatbath_gpu", argc, argv);
    const int *sizes = o.sizes, nsizes = o.nsizes, variants = o.variants;
    const double seconds = o.seconds;
    const char *tsv = o.tsv;
    char dev[256];
    double bw = bench_device("heatbath_gpu", dev, (int)sizeof dev);
    if (bw <= 0) return 0;
    struct bench_row rows[128];
    int nrows = 0;
    const char precs[3] = {'s', 'm', 'd'};
    for (int si = 0; si < nsizes; si++) {
        int L = sizes[si], e[4] = {L, L, L, L};
        struct lattice lat;
        const char *w;
        if (lattice_init(&lat, e, &w)) {
            fprintf(stderr, "heatbath_gpu: --sizes %d: %s\n", L, w);
            return 2;
        }
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 1);
        for (int pi = 0; pi < 3; pi++) {
            char prec = precs[pi];
            struct hb_state *s = hb_backend_gpu.create(&u, prec);
            time_sweeps(s, 1, 30); /* to equilibrium at beta = 6 (and tuned) */
            int nv = variants ? HB_CANDIDATES : 1;
            for (int hb = 1; hb >= 0; hb--)
                for (int v = 0; v < nv; v++) {
                    gpu_tune_force(variants ? v : -1);
                    double t = measure(s, hb, seconds);
                    struct bench_row *r = bench_add(rows, &nrows, 128, hb ? "heatbath" : "overrelax", L, prec, variants ? v : -1,
                                                    4.0 * (double)lat.V / t, LINKS_MOVED * 12 * (prec == 'd' ? 8 : 4),
                                                    FLOP_PER_LINK, bw);
                    printf("  %-9s %2d^4 %c %s %d (%s): %.3f G link-updates/s, %.0f GB/s, %.1f%% of copy, %.0f GFlop/s\n",
                           r->kernel, L, prec, variants ? "candidate" : "tuned per launch, the last", variants ? v : gpu_tune_last(),
                           hb_gpu_candidate_name(variants ? v : gpu_tune_last()), r->rate * 1e-9, r->gbs * 1e-9, r->pct,
                           r->gflops * 1e-9);
                    fflush(stdout);
                }
            gpu_tune_force(-1);
            struct plaquette p;
            hb_backend_gpu.measure(s, &p, NULL, NULL);
            printf("  (%d^4 %c: plaquette after the timed sweeps %.6f)\n", L, prec, p.all);
            hb_backend_gpu.destroy(s);
        }
        field_free(&u);
    }
    double bw2 = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("copy bandwidth again at the end: %.1f GB/s\n", bw2 * 1e-9);
    printf("\nSU(3) heatbath on %s (copy bandwidth %.1f GB/s; %g links x 12 reals moved, %g flop per link update)\n", dev,
           bw * 1e-9, LINKS_MOVED, FLOP_PER_LINK);
    bench_table(rows, nrows, tsv, bw, "link", 1);
    return 0;
}
#endif
