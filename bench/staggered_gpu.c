/* staggered_gpu.c (bench) -- rates of the GPU staggered operator
 * (kernels/dirac/staggered_gpu.h): K = (M^dag M)_ee on the even sites of an
 * L^3 x Lt SU(3) lattice of random links, per vector precision (double,
 * single, half) and link compression (12, 18, 8 reals).
 *
 *   build/bench/staggered_gpu [L Lt reps]     (default 16 8 200)
 *
 * Under mpirun -np R (R > 1; one GPU per rank) instead: the global L^3 x Lt
 * lattice cut into t-slabs of Lt/R timeslices (even), K with links in 12
 * reals, double / single / half, timed per application (rank 0's CUDA
 * events after a barrier, the slowest rank's time) with the face exchange
 * and without it (LAT_GPU_NO_HALO=1 for that operator: wrong results,
 * timing only), and the even sites per second of the whole lattice and
 * per GPU.
 *
 * Prints the device, its copy bandwidth (gpu_copy_bandwidth: 1 GiB
 * cudaMemcpy, bytes read + written) and per (precision, recon): the time
 * per K application (the mean of `reps` after 10 untimed, CUDA events),
 * G site/s (even sites per second), GFlop/s, bytes per site, GB/s and % of
 * the copy bandwidth.  LAT_GPU_METRICS=LIST (one process; 1 for
 * gpu_metrics.h's default list): after each 12-real row's timing, the
 * hardware counters of one K (its two sweeps' launches), one line
 * "metrics double12 RANGE METRIC VALUE" per launch and metric (CUPTI's
 * range profiler, gpu_metrics.h; without the permission a line on stderr
 * and the run goes on).
 *
 * Counting (per even site of K; K is two hop sweeps, t_o = D_oe x and
 * out_e = m^2 x - D_eo t_o, one thread per output site):
 *   flop: 2 x 570 (8 colour matrix-vector products of 66 and 7 sums of 6,
 *     staggered_site.h's count) + 12 (m^2 x - y) = 1152, as bench/staggered.c;
 *     the third-row rebuild (12, 8), the unpacking (8) and the half
 *     decoding are not counted (the seed paper's convention: only the
 *     algebra of the operator);
 *   bytes, the seed paper's way (staggered-rhmc-gpu: every thread loads
 *     what its hops use, no reuse; a 12-real link is 12 reals, as its 72
 *     bytes for an SU(3) product in single): per sweep 8 links of R reals
 *     (float for single and half, double for double) + 8 neighbour vectors
 *     and 1 output vector of 6 reals, plus the m^2 x input of the second
 *     sweep: 16 R link reals + 19 vectors per site (a half vector is 6
 *     int16 + its 4-byte norm; bench/gpu_bytes.h's bytes_stag_site).
 *     double/12: 16*12*8 + 19*48 = 2448 B;
 *     single/12: 1224 B; half/12: 768 + 19*16 = 1072 B.  The device reads
 *     more than that (gpu/spinor.h pads a site to 8 reals: the column
 *     "layout B" counts the padding) and less (the L2 cache serves a
 *     neighbour vector several times), so GB/s is the effective rate of
 *     the count above, as QUDA and the seed paper report it. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("staggered_gpu: this lat was built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "gpu/field.h"
#include "lattice/field.h"
#include "../tests/gpu/staggered_vecs.h"
#include "base/comm.h"
#include "base/log.h"
#include "lattice/geometry.h"
#include "gpu_bytes.h"
#include "gpu_metrics.h"

#define K_FLOP 1152.0

/* K timed on a slab: reps applications after 5, the slowest rank's time */
static double slab_time(struct staggered_gpu *g, enum solver_prec p, const double *x, int64_t vh, int reps)
{
    struct solver_vec in = sv_upload(p, vh, x), out = sv_upload(p, vh, x);
    for (int k = 0; k < 5; k++) staggered_gpu_ee_apply(g, p, &out, &in);
    gpu_sync("warm-up");
    comm_barrier();
    gpu_timer_start();
    for (int k = 0; k < reps; k++) staggered_gpu_ee_apply(g, p, &out, &in);
    double t = gpu_timer_stop() / reps;
    comm_max(&t, 1);
    sv_free(&in);
    sv_free(&out);
    return t;
}

/* the t-slab run (mpirun -np R > 1): with and without the face exchange */
static int slab_bench(const struct lattice *glob, int reps)
{
    char why[256], dev[256];
    const struct geometry *d = geometry_for(glob);
    if (d->lt % 2)
        lat_die_all(2, "staggered_gpu", "%d ranks give %d timeslices each: an even number is needed", d->size, d->lt);
    double bad = gpu_available(why, (int)sizeof why) ? 0 : 1;
    comm_max(&bad, 1);
    if (bad) lat_die_all(1, "staggered_gpu", "a rank has no usable GPU");
    struct field u;
    geometry_field_alloc(&u, d, glob, 3, 64);
    field_set_random(&u, 7);
    struct staggered_op *cpu = staggered_create(&u, 0.05, why, sizeof why);
    if (!cpu) lat_die_all(1, "staggered_gpu", "staggered_create: %s", why);
    const int64_t vh = (int64_t)(staggered_half_reals(cpu) / 6);
    double *x = lat_malloc((size_t)vh * 6 * sizeof(double));
    sv_random(x, (size_t)vh * 6, 3 + (uint64_t)d->rank);
    struct staggered_gpu *g = staggered_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    setenv("LAT_GPU_NO_HALO", "1", 1);
    struct staggered_gpu *g0 = staggered_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    unsetenv("LAT_GPU_NO_HALO");
    if (!g || !g0) lat_die(1, "staggered_gpu", "staggered_gpu_create: %s", why);
    gpu_device_name(dev, (int)sizeof dev);
    if (comm_is_root())
        printf("device (rank 0): %s\nK on %d^3x%d over %d ranks (t-slabs of %d), links in 12 reals, m 0.05, %d "
               "applications\n%-6s %14s %14s %9s %10s %10s\n", dev, glob->L[0], glob->L[3], d->size, d->lt, reps, "prec",
               "ms (exchange)", "ms (none)", "overhead", "Gsite/s", "per GPU");
    for (int p = 0; p < 3; p++) {
        const double t = slab_time(g, (enum solver_prec)p, x, vh, reps), t0 = slab_time(g0, (enum solver_prec)p, x, vh, reps);
        const double sites = (double)(glob->V / 2) / t;
        if (comm_is_root())
            printf("%-6s %14.4f %14.4f %8.1f%% %10.3f %10.3f\n", solver_prec_name((enum solver_prec)p), t * 1e3, t0 * 1e3,
                   100 * (t - t0) / t0, sites * 1e-9, sites * 1e-9 / d->size);
    }
    staggered_gpu_free(g);
    staggered_gpu_free(g0);
    staggered_free(cpu);
    free(x);
    field_free(&u);
    return 0;
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    int l = 16, lt = 8, reps = 200;
    if (argc != 1 && argc != 4) {
        fprintf(stderr, "usage: %s [L Lt reps]   (default 16 8 200)\n", argv[0]);
        return 2;
    }
    if (argc == 4) l = atoi(argv[1]), lt = atoi(argv[2]), reps = atoi(argv[3]);
    struct lattice lat;
    const char *lw;
    const int L[4] = {l, l, l, lt};
    if (reps < 1 || lattice_init(&lat, L, &lw) != 0) {
        fprintf(stderr, "staggered_gpu: %d^3x%d, %d repetitions: %s\n", l, lt, reps, reps < 1 ? "reps >= 1 needed" : lw);
        return 2;
    }
    if (comm_size() > 1) return slab_bench(&lat, reps);
    char why[256], dev[256];
    if (!gpu_available(why, sizeof why)) {
        printf("staggered_gpu: no GPU (%s): nothing to measure\n", why);
        return 0;
    }
    gpu_device_name(dev, sizeof dev);
    const double bw = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("device: %s\ndevice-to-device copy bandwidth (1 GiB cudaMemcpy, read + write): %.1f GB/s\n", dev, bw * 1e-9);
    printf("# staggered K = (M^dag M)_ee, SU(3), random links, m 0.05, %d^3x%d (%lld even sites), %d applications\n", l, lt,
           (long long)(lat.V / 2), reps);
    printf("# %-7s %5s %10s %9s %9s %8s %9s %8s %7s\n", "prec", "recon", "us/apply", "Gsite/s", "GFlop/s", "bytes", "layout B",
           "GB/s", "%copy");
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 7);
    struct staggered_op *cpu = staggered_create(&u, 0.05, why, sizeof why);
    if (!cpu) { fprintf(stderr, "staggered_gpu: %s\n", why); return 1; }
    const int64_t vh = lat.V / 2;
    double *x = malloc((size_t)vh * 6 * sizeof(double));
    sv_random(x, (size_t)vh * 6, 3);
    const int recons[3] = {12, 18, 8};
    const char *pn[3] = {"double", "single", "half"};
    const char *metrics = getenv("LAT_GPU_METRICS");
    int metrics_on = 1; /* off after a begin that failed (its line said why) */
    for (int r = 0; r < 3; r++) {
        struct staggered_gpu *g = staggered_gpu_create(cpu, &u, recons[r], why, sizeof why);
        if (!g) { fprintf(stderr, "staggered_gpu: %s\n", why); return 1; }
        for (int p = 0; p < 3; p++) {
            struct solver_vec in = sv_upload((enum solver_prec)p, vh, x), out = sv_upload((enum solver_prec)p, vh, x);
            for (int k = 0; k < 10; k++) staggered_gpu_ee_apply(g, (enum solver_prec)p, &out, &in);
            gpu_timer_start();
            for (int k = 0; k < reps; k++) staggered_gpu_ee_apply(g, (enum solver_prec)p, &out, &in);
            const double t = gpu_timer_stop() / reps;
            if (r == 0 && metrics && *metrics && metrics_on) { /* LAT_GPU_METRICS: one K under the counters */
                char label[32];
                snprintf(label, sizeof label, "%s12", pn[p]);
                metrics_on = gpu_metrics_begin(strcmp(metrics, "1") ? metrics : GPU_METRICS_DEFAULT) == 0;
                if (metrics_on) {
                    staggered_gpu_ee_apply(g, (enum solver_prec)p, &out, &in);
                    gpu_sync("metrics");
                    if (gpu_metrics_end(stdout, label)) fprintf(stderr, "staggered_gpu: %s: no metrics\n", label);
                }
            }
            const enum solver_prec sp = (enum solver_prec)p;
            const double bytes = bytes_stag_site(recons[r], sp, STAG_K_VECTORS, 0),
                         padded = bytes_stag_site(recons[r], sp, STAG_K_VECTORS, 1);
            const double rate = (double)vh / t;
            printf("  %-7s %5d %10.2f %9.3f %9.1f %8.0f %9.0f %8.1f %7.1f\n", pn[p], recons[r], t * 1e6, rate * 1e-9,
                   rate * K_FLOP * 1e-9, bytes, padded, rate * bytes * 1e-9, 100 * rate * bytes / bw);
            sv_free(&in);
            sv_free(&out);
        }
        staggered_gpu_free(g);
    }
    free(x);
    staggered_free(cpu);
    field_free(&u);
    return 0;
}
#endif
