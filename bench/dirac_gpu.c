/* dirac_gpu.c -- benchmark of the GPU Wilson-clover operator Mhat
 * (kernels/dirac/gpu.h; make bench, GPU present).
 *
 *   build/bench/dirac_gpu [L [reps]]      L^4 (default 32), reps timed
 *                                         applications (default 100)
 *
 * Prints the device and its device-to-device copy bandwidth (cudaMemcpy of
 * 1 GiB, bytes read + written, median of 20: gpu_copy_bandwidth), then per
 * (storage precision double / single / half, links in 18 / 12 / 8 reals,
 * clover on (c_sw 1.769) / off) the time of one application of Mhat (two
 * kernels, dirac/gpu.h), CUDA events around `reps` applications after 5
 * warm-up ones, on Haar-random links (field_set_random), kappa 0.13,
 * antiperiodic in t, and:
 *   G site/s   odd sites (V/2) per second;
 *   GFlop/s    3696 flop per odd site with clover, 2 x 1320 + 48 = 2688
 *              without (dirac.h's count, the seed paper's);
 *   B/site     the bytes the two kernels move per odd site, every load and
 *              store of storage counted once (dirac_gpu_counts):
 *                2 x [8 x (S + l) + c + S] + S
 *              S a spinor (24 reals: 192 B double, 96 B single, 48 + 4 B
 *              half with its norm), l a stored link (ncomp reals of the
 *              link storage: 18/12/8 in double, 20/12/8 in float and half
 *              -- 18 reals are stored as 20 there, whole groups), c the
 *              clover block pair (72 reals, 0 without clover), links and
 *              clover in double for double, in float for single, in 16
 *              bits for half (dirac/gpu_link16.h: 2 B a real, the clover
 *              with a 4-byte factor per site: 148 B).
 *              With clover:    recon 18     12      8
 *                double          7104     6336   5824
 *                single          3680     3168   2912
 *                half            1924     1668   1540
 *              (without clover the two clover reads less: 1152 B double,
 *              576 B single, 296 B half); a fourth row, half32: half
 *              spinors over the float links and clover
 *              (dirac_gpu_set_half_links 32);
 *   paper B    the seed paper's count (quda-multi-gpu §V.A): 2 x 8 x (24 +
 *              link reals) + 2 x 72 + 24 reals per odd site, at 4 bytes in
 *              single: 2976 B for 12-real links with clover, its number
 *              (3360 for 18, 2720 for 8; without clover 2784, 2400, 2144;
 *              8 bytes a real in double; half counted at 4 as single);
 *   GB/s, %copy  B/site x sites/s, and that against the copy bandwidth
 *              (caches can serve neighbour spinors twice, so the real DRAM
 *              traffic is lower and this may pass 100%).
 * Then the even-odd system's ends (dirac/gpu.h; double, links in 12 reals,
 * clover; what lat-propagator --device gpu runs around each solve): the
 * time of dirac_gpu_eo_prepare, _eo_reconstruct and _residual_norm2 (CUDA
 * events, `reps` calls each), against the host's dirac_eo_prepare,
 * dirac_eo_reconstruct and dirac_apply (one call each, the threads
 * OMP_NUM_THREADS gives), and the device's prepared source against the
 * host's (relative difference: 1e-16-ish, 12-real links and fused
 * multiply-adds).
 * Under mpirun -np R (R > 1; one GPU per rank, node-local rank mod count)
 * instead: the L^4 lattice cut into t-slabs of L/R timeslices (even), Mhat
 * with links in 12 reals and clover, double / single / half, timed per
 * application (rank 0's CUDA events after a barrier, `reps` applications)
 * with the face exchange and without it (LAT_GPU_NO_HALO=1 for that
 * operator: wrong results, timing only), and the odd sites per second of
 * the whole lattice and per GPU.
 * LAT_GPU_METRICS=LIST (one process only): after the table, the hardware
 * counters of one application of Mhat per storage precision (double,
 * single, half; links in 12 reals, clover), after 5 warm-up ones: CUPTI's
 * range profiler (gpu_metrics.h; one range per kernel launch, each kernel
 * replayed for the passes the metrics need), LIST the comma-separated
 * Nsight Compute metric names, 1 for GPU_METRICS_DEFAULT; one line per
 * kernel launch and metric,
 *     metrics double12 0 dram__bytes_read.sum 1.234e+08
 * (label, range = launch number, metric, value).  Without the permission
 * to profile (or without CUPTI) a line on stderr says so and the run goes
 * on and exits 0.
 * Exits 0 with a note when built without CUDA or no GPU is present; 2 on a
 * bad argument. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("dirac_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "dirac/dirac.h"
#include "dirac/gpu.h"
#include "gpu/field.h"
#include "lattice/field.h"
#include "math/rng.h"
#include "base/comm.h"
#include "base/log.h"
#include "lattice/geometry.h"
#include "base/clock.h"
#include "solvers/blas_gpu.h"
#include "gpu_metrics.h"
#include <math.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr, "usage: dirac_gpu [L [reps]]   (L even, >= 4; reps >= 1)\n");
    exit(2);
}

/* one application of Mhat timed on a slab: reps after 5 warm-up ones */
static double slab_time(struct dirac_gpu *g, enum solver_prec prec, const double *host, int reps)
{
    struct solver_vec *a = dirac_gpu_vec_new(g, prec), *b = dirac_gpu_vec_new(g, prec);
    dirac_gpu_vec_upload(a, host);
    for (int w = 0; w < 5; w++) dirac_gpu_eo_apply(g, 0, b, a);
    gpu_sync("warm-up");
    comm_barrier();
    gpu_timer_start();
    for (int i = 0; i < reps; i++) dirac_gpu_eo_apply(g, 0, b, a);
    double t = gpu_timer_stop() / reps;
    comm_max(&t, 1); /* the slowest rank */
    dirac_gpu_vec_free(a);
    dirac_gpu_vec_free(b);
    return t;
}

/* the t-slab run (mpirun -np R > 1): with and without the face exchange */
static int slab_bench(int L, int reps)
{
    char why[256];
    struct lattice glob;
    const int ext[4] = {L, L, L, L};
    const char *lwhy;
    if (lattice_init(&glob, ext, &lwhy)) lat_die_all(2, "dirac_gpu", "lattice %d^4: %s", L, lwhy);
    const struct geometry *d = geometry_for(&glob);
    if (d->lt % 2) lat_die_all(2, "dirac_gpu", "%d ranks give %d timeslices each: an even number is needed", d->size, d->lt);
    double ok = gpu_available(why, (int)sizeof why) ? 0 : 1;
    comm_max(&ok, 1);
    if (ok) lat_die_all(1, "dirac_gpu", "a rank has no usable GPU");
    struct field u;
    geometry_field_alloc(&u, d, &glob, 3, 64);
    field_set_random(&u, 2026);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.769);
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die_all(1, "dirac_gpu", "dirac_create: %s", why);
    const size_t n = dirac_half_reals(cpu);
    double *host = lat_malloc(n * sizeof *host);
    struct lat_rng r;
    rng_init(&r, 5, (uint32_t)d->rank, 0, 0, RNG_TEST);
    for (size_t k = 0; k < n; k++) host[k] = rng_normal(&r);
    char dev[256];
    gpu_device_name(dev, (int)sizeof dev);
    if (comm_is_root())
        printf("device (rank 0): %s\nMhat on %d^4 over %d ranks (t-slabs of %d), links in 12 reals, clover, %d applications\n"
               "%-6s %14s %14s %9s %10s %10s\n", dev, L, d->size, d->lt, reps, "prec", "ms (exchange)", "ms (none)",
               "overhead", "Gsite/s", "per GPU");
    struct dirac_gpu *g = dirac_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    setenv("LAT_GPU_NO_HALO", "1", 1);
    struct dirac_gpu *g0 = dirac_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    unsetenv("LAT_GPU_NO_HALO");
    if (!g || !g0) lat_die(1, "dirac_gpu", "dirac_gpu_create: %s", why);
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    for (int q = 0; q < 3; q++) {
        const double t = slab_time(g, precs[q], host, reps), t0 = slab_time(g0, precs[q], host, reps);
        const double sites = (double)(glob.V / 2) / t;
        if (comm_is_root())
            printf("%-6s %14.4f %14.4f %8.1f%% %10.3f %10.3f\n", solver_prec_name(precs[q]), t * 1e3, t0 * 1e3,
                   100 * (t - t0) / t0, sites * 1e-9, sites * 1e-9 / d->size);
    }
    dirac_gpu_free(g);
    dirac_gpu_free(g0);
    dirac_free(cpu);
    free(host);
    field_free(&u);
    return 0;
}

/* the even-odd ends on the device against the host (one process) */
static void ends_bench(struct dirac_op *cpu, const struct field *u, const double *host, int reps)
{
    char why[256];
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, GPU_RECON_12, why, sizeof why);
    if (!g) lat_die(1, "dirac_gpu", "dirac_gpu_create: %s", why);
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 1, &lay);
    struct solver_blas *bl = solver_blas_gpu_open_layout(&lay);
    if (!bl) lat_die(1, "dirac_gpu", "no GPU vector kernels");
    const size_t nh = dirac_half_reals(cpu), nf = dirac_full_reals(cpu);
    struct solver_vec *v[5];
    for (int k = 0; k < 5; k++) v[k] = dirac_gpu_vec_new(g, SOLVER_DOUBLE);
    dirac_gpu_vec_upload(v[0], host); /* b_e, b_o, x_o: the same random half field */
    dirac_gpu_vec_upload(v[1], host);
    dirac_gpu_vec_upload(v[3], host);
    double t[3], r2 = 0, b2 = 0;
    for (int step = 0; step < 3; step++) {
        gpu_sync("warm-up");
        gpu_timer_start();
        for (int i = 0; i < reps; i++) {
            if (step == 0) dirac_gpu_eo_prepare(g, v[2], v[0], v[1]);
            else if (step == 1) dirac_gpu_eo_reconstruct(g, v[4], v[3], v[0]);
            else dirac_gpu_residual_norm2(g, bl, v[4], v[3], v[0], v[1], &r2, &b2);
        }
        t[step] = gpu_timer_stop() / reps;
    }
    /* the host's steps, once each */
    double *b = lat_malloc(nf * sizeof *b), *x = lat_malloc(nf * sizeof *x), *bh = lat_malloc(nh * sizeof *bh),
           *dh = lat_malloc(nh * sizeof *dh), th[3];
    dirac_half_to_full(cpu, 0, b, host);
    dirac_half_to_full(cpu, 1, b, host);
    double c = lat_clock();
    dirac_eo_prepare(cpu, bh, b);
    th[0] = lat_clock() - c;
    c = lat_clock();
    dirac_eo_reconstruct(cpu, x, host, b);
    th[1] = lat_clock() - c;
    c = lat_clock();
    dirac_apply(cpu, x, b); /* M b: the full application the host's residual made */
    th[2] = lat_clock() - c;
    dirac_gpu_vec_download(dh, v[2]);
    double d2 = 0, n2 = 0;
    for (size_t k = 0; k < nh; k++) {
        d2 += (dh[k] - bh[k]) * (dh[k] - bh[k]);
        n2 += bh[k] * bh[k];
    }
    printf("even-odd ends (double, links in 12 reals, clover), ms: prepare %.3f (host %.1f), reconstruct %.3f (host %.1f), "
           "residual %.3f (host's M x alone %.1f); prepared source vs the host's: %.2e; |b - M x| / |b| %.3g\n",
           t[0] * 1e3, th[0] * 1e3, t[1] * 1e3, th[1] * 1e3, t[2] * 1e3, th[2] * 1e3, sqrt(d2 / n2), sqrt(r2 / b2));
    for (int k = 0; k < 5; k++) dirac_gpu_vec_free(v[k]);
    solver_blas_gpu_close(bl);
    dirac_gpu_free(g);
    free(b);
    free(x);
    free(bh);
    free(dh);
}

/* LAT_GPU_METRICS: the counters of one Mhat per precision (12-real links,
 * clover), each after the timing loop's warm-up, with its call */
static void metrics_bench(const char *list, const struct field *u, const double *host)
{
    char why[256];
    if (strcmp(list, "1") == 0) list = GPU_METRICS_DEFAULT;
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.769);
    struct dirac_op *cpu = dirac_create(u, &p, why, sizeof why);
    if (!cpu) lat_die(1, "dirac_gpu", "dirac_create: %s", why);
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, GPU_RECON_12, why, sizeof why);
    if (!g) lat_die(1, "dirac_gpu", "dirac_gpu_create: %s", why);
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    for (int q = 0; q < 3; q++) {
        struct solver_vec *a = dirac_gpu_vec_new(g, precs[q]), *b = dirac_gpu_vec_new(g, precs[q]);
        dirac_gpu_vec_upload(a, host);
        for (int w = 0; w < 5; w++) dirac_gpu_eo_apply(g, 0, b, a);
        gpu_sync("warm-up");
        char label[32];
        snprintf(label, sizeof label, "%s12", solver_prec_name(precs[q]));
        const int on = gpu_metrics_begin(list) == 0; /* no: the line on stderr said why, and no retry */
        if (on) {
            dirac_gpu_eo_apply(g, 0, b, a);
            gpu_sync("metrics");
            if (gpu_metrics_end(stdout, label)) fprintf(stderr, "dirac_gpu: %s: no metrics\n", label);
        }
        dirac_gpu_vec_free(a);
        dirac_gpu_vec_free(b);
        if (!on) break;
    }
    dirac_gpu_free(g);
    dirac_free(cpu);
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    const int L = argc > 1 ? atoi(argv[1]) : 32, reps = argc > 2 ? atoi(argv[2]) : 100;
    if (argc > 3 || L < 4 || L % 2 || reps < 1) usage();
    if (comm_size() > 1) return slab_bench(L, reps);
    char why[256];
    if (!gpu_available(why, (int)sizeof why)) {
        printf("dirac_gpu: no GPU (%s): nothing to measure\n", why);
        return 0;
    }
    char dev[256];
    gpu_device_name(dev, (int)sizeof dev);
    const double bw = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("device: %s\ndevice-to-device copy bandwidth (1 GiB cudaMemcpy, read + write): %.1f GB/s\n", dev, bw * 1e-9);
    struct lattice lat;
    const int ext[4] = {L, L, L, L};
    const char *lwhy;
    if (lattice_init(&lat, ext, &lwhy)) lat_die(2, "dirac_gpu", "lattice %d^4: %s", L, lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 2026);
    printf("Mhat on %d^4 (%lld odd sites), kappa 0.13, %d applications per line\n", L, (long long)(lat.V / 2), reps);
    printf("%-6s %5s %6s %10s %8s %8s %7s %7s %8s %6s\n", "prec", "recon", "clover", "ms/Mhat", "Gsite/s", "GFlop/s",
           "B/site", "paperB", "GB/s", "%copy");
    const double csws[2] = {1.769, 0};
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    /* the fourth row: half spinors over the float links and clover
     * (dirac_gpu_set_half_links 32, lat-propagator's CGNE), "half32" */
    const enum solver_prec precs[4] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF, SOLVER_HALF};
    double *host = lat_malloc((size_t)(lat.V / 2) * 24 * sizeof *host);
    struct lat_rng r;
    rng_init(&r, 5, 0, 0, 0, RNG_TEST);
    for (int64_t k = 0; k < lat.V / 2 * 24; k++) host[k] = rng_normal(&r);
    for (int c = 0; c < 2; c++) {
        struct dirac_params p;
        dirac_params_default(&p, 0.13, csws[c]);
        struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
        if (!cpu) lat_die(1, "dirac_gpu", "dirac_create: %s", why);
        for (int k = 0; k < 3; k++) {
            struct dirac_gpu *g = dirac_gpu_create(cpu, &u, recons[k], why, sizeof why);
            if (!g) lat_die(1, "dirac_gpu", "dirac_gpu_create: %s", why);
            for (int q = 0; q < 4; q++) {
                dirac_gpu_set_half_links(g, q == 3 ? 32 : 16);
                struct solver_vec *a = dirac_gpu_vec_new(g, precs[q]), *b = dirac_gpu_vec_new(g, precs[q]);
                dirac_gpu_vec_upload(a, host);
                for (int w = 0; w < 5; w++) dirac_gpu_eo_apply(g, 0, b, a);
                gpu_sync("warm-up");
                gpu_timer_start();
                /* always from the same input: repeated products could overflow */
                for (int i = 0; i < reps; i++) dirac_gpu_eo_apply(g, 0, b, a);
                const double t = gpu_timer_stop() / reps;
                double flop, bytes, paper;
                dirac_gpu_counts(g, precs[q], &flop, &bytes, &paper);
                const double sites = (double)(lat.V / 2) / t;
                printf("%-6s %5d %6s %10.4f %8.3f %8.1f %7.0f %7.0f %8.1f %5.1f%%\n",
                       q == 3 ? "half32" : solver_prec_name(precs[q]),
                       recons[k], csws[c] != 0 ? "on" : "off", t * 1e3, sites * 1e-9, flop * sites * 1e-9, bytes, paper,
                       bytes * sites * 1e-9, 100 * bytes * sites / bw);
                fflush(stdout);
                dirac_gpu_vec_free(a);
                dirac_gpu_vec_free(b);
            }
            dirac_gpu_free(g);
        }
        if (c == 0) ends_bench(cpu, &u, host, reps);
        dirac_free(cpu);
    }
    const char *metrics = getenv("LAT_GPU_METRICS");
    if (metrics && *metrics) metrics_bench(metrics, &u, host);
    free(host);
    field_free(&u);
    return 0;
}
#endif
