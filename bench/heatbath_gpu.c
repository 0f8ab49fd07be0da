/* heatbath_gpu.c -- benchmark of the CUDA heatbath backend (make bench, GPU
 * present).
 *
 *   build/bench/heatbath_gpu [--nc 2,3,4,5,6,8] [--sizes 32,24]
 *                            [--seconds S] [--variants] [--tsv FILE]
 *
 * Measures first the device-to-device copy bandwidth (cudaMemcpy of 1 GiB,
 * bytes read + written, median of 20), then for each SU(N) of --nc
 * (default 2, 3, 4, 5, 6, 8) on L^4 in single, mixed and double precision
 * the heatbath sweep and the overrelaxation sweep of hb_backend_gpu, timed
 * with CUDA events (the median of 5 timed runs of about S/10 seconds each,
 * default S = 1), on a field brought towards equilibrium at beta = 2N^2/3
 * (6 for SU(3)) by 30 heatbath sweeps from a hot start.  SU(2) and SU(3)
 * run at every --sizes L (default 32, 24); SU(N >= 4) at the first only.
 * Reports per line: link updates per second (and site updates: 4 links);
 * bytes moved per second, counting per link update what k_link
 * (heatbath/gpu_link.cuh) loads and stores: the 18 staple links (6 per
 * nu != mu), the link itself loaded and stored -- 20 links of ncomp stored
 * reals, ncomp = 12 for SU(3), else 2N^2 rounded up to 16 bytes:
 *     N          2     3     4     5     6     8
 *     single   640   960  2560  4160  5760 10240   bytes per link update
 *     double  1280  1920  5120  8000 11520 20480   (mixed: as single)
 * (caches make the DRAM traffic smaller, so this can pass 100%); that as a
 * percentage of the copy bandwidth; and for SU(3) GFlop/s at 4245 flop per
 * link update, the arithmetic of the header functions without the random
 * numbers: staple sum 3 x (4 matrix products of 198 + 2 sums of 18) =
 * 2484, third-row rebuilds 19 x 42 = 798, W = U A 198, three SU(2)
 * subgroup steps of 213 (g, g U and g W) = 639, reprojection 126 (the
 * same count for heatbath and overrelaxation); other N: no flop count.
 * The launch shapes are the tuner's (gpu/tune.h); --variants times every
 * launch candidate of k_link for that N (heatbath/gpu.h) instead.  Exits 0
 * with a note when built without CUDA or no GPU is present. */
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

#define FLOP_PER_LINK_SU3 4245.0
#define LINKS_MOVED 20.0 /* per link update: 18 staple links, the link loaded and stored */

/* stored reals per link on the device (gpu/field.h): 12 for SU(3), else
 * 2N^2 in whole 16-byte groups (vec reals) */
static int stored_reals(int nc, char prec)
{
    int vec = prec == 'd' ? 2 : 4;
    return nc == 3 ? 12 : (2 * nc * nc + vec - 1) / vec * vec;
}

static uint32_t counter;

static double beta_now = 6.0;

static double time_sweeps(struct hb_state *s, int hb, int n)
{
    gpu_timer_start();
    for (int k = 0; k < n; k++) {
        if (hb) hb_backend_gpu.heatbath(s, beta_now, 1, counter++);
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

/* --nc LIST (taken out of argv before bench_parse sees it) */
static int take_nc(int *argc, char **argv, int *ncs)
{
    int n = 0;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--nc") != 0 || i + 1 >= *argc) continue;
        for (char *t = strtok(argv[i + 1], ","); t && n < 8; t = strtok(NULL, ",")) {
            ncs[n] = atoi(t);
            if (ncs[n] < GPU_MIN_NC || ncs[n] > GPU_MAX_NC) {
                fprintf(stderr, "heatbath_gpu: --nc %s: N from %d to %d\n", t, GPU_MIN_NC, GPU_MAX_NC);
                exit(2);
            }
            n++;
        }
        for (int j = i; j + 2 < *argc; j++) argv[j] = argv[j + 2];
        *argc -= 2;
        i--;
    }
    return n;
}

int main(int argc, char **argv)
{
    int ncs[8] = {2, 3, 4, 5, 6, 8}, nnc = take_nc(&argc, argv, ncs);
    if (nnc == 0) nnc = 6;
    struct bench_opts o = {{32, 24}, 2, 1, 0, NULL};
    bench_parse(&o, "heatbath_gpu", argc, argv);
    const int *sizes = o.sizes, nsizes = o.nsizes, variants = o.variants;
    const double seconds = o.seconds;
    const char *tsv = o.tsv;
    char dev[256];
    double bw = bench_device("heatbath_gpu", dev, (int)sizeof dev);
    if (bw <= 0) return 0;
    struct bench_row rows[512];
    int nrows = 0;
    const char precs[3] = {'s', 'm', 'd'};
    for (int ni = 0; ni < nnc; ni++) {
        int nc = ncs[ni];
        beta_now = nc == 3 ? 6.0 : 2.0 * nc * nc / 3.0;
        for (int si = 0; si < (nc <= 3 ? nsizes : 1); si++) {
            int L = sizes[si], e[4] = {L, L, L, L};
            struct lattice lat;
            const char *w;
            if (lattice_init(&lat, e, &w)) {
                fprintf(stderr, "heatbath_gpu: --sizes %d: %s\n", L, w);
                return 2;
            }
            struct field u;
            field_alloc(&u, &lat, nc, 64);
            field_set_random(&u, 1);
            for (int pi = 0; pi < 3; pi++) {
                char prec = precs[pi];
                struct hb_state *s = hb_backend_gpu.create(&u, prec);
                time_sweeps(s, 1, 30); /* towards equilibrium (and tuned) */
                int nv = variants ? HB_GPU_NCAND(nc) : 1;
                double bytes = LINKS_MOVED * stored_reals(nc, prec) * (prec == 'd' ? 8 : 4);
                char kernel[32];
                for (int hb = 1; hb >= 0; hb--)
                    for (int v = 0; v < nv; v++) {
                        gpu_tune_force(variants ? v : -1);
                        double t = measure(s, hb, seconds);
                        snprintf(kernel, sizeof kernel, "SU(%d) %s", nc, hb ? "heatbath" : "overrelax");
                        struct bench_row *r = bench_add(rows, &nrows, 512, kernel, L, prec, variants ? v : -1,
                                                        4.0 * (double)lat.V / t, bytes, nc == 3 ? FLOP_PER_LINK_SU3 : 0, bw);
                        int cand = variants ? v : gpu_tune_last();
                        printf("  %-18s %2d^4 %c %s %d (%s): %.4f G link-updates/s (%.4f G site-updates/s), %.0f B/update, "
                               "%.0f GB/s, %.1f%% of copy", r->kernel, L, prec, variants ? "candidate" : "tuned, the last",
                               cand, hb_gpu_candidate_name(nc, cand), r->rate * 1e-9, r->rate * 0.25e-9, bytes, r->gbs * 1e-9,
                               r->pct);
                        if (nc == 3) printf(", %.0f GFlop/s", r->gflops * 1e-9);
                        printf("\n");
                        fflush(stdout);
                    }
                gpu_tune_force(-1);
                struct plaquette p;
                hb_backend_gpu.measure(s, &p, NULL, NULL);
                printf("  (SU(%d) %d^4 %c: plaquette after the timed sweeps at beta %g: %.6f)\n", nc, L, prec, beta_now,
                       p.all);
                hb_backend_gpu.destroy(s);
            }
            field_free(&u);
        }
    }
    double bw2 = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("copy bandwidth again at the end: %.1f GB/s\n", bw2 * 1e-9);
    printf("\nSU(N) heatbath on %s (copy bandwidth %.1f GB/s; per link update %g links of 12 (SU(3)) or 2N^2 reals "
           "moved; %g flop for SU(3))\n", dev, bw * 1e-9, LINKS_MOVED, FLOP_PER_LINK_SU3);
    bench_table(rows, nrows, tsv, bw, "link", 1);
    return 0;
}
#endif
