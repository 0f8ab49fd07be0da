/* dirac_block_gpu.c -- benchmark of Mhat on a block of columns
 * (dirac_gpu_eo_apply_block, kernels/dirac/gpu.h) against one column at a
 * time (make bench, GPU present).
 *
 *   build/bench/dirac_block_gpu [LXxLYxLZxLT [reps [K...]]]
 *       default 24x24x24x48, 50 timed applications, K = 1 2 4 12
 *
 * Why: the 12 spin-colour columns of a propagator see the same links and
 * clover.  A block launch runs the K thread blocks of one stretch of sites
 * side by side, so the links and the clover come from memory once and from
 * the L2 for the other K - 1; in the half sweep they are most of the bytes
 * (dirac_gpu_counts).  Prints the device, its copy bandwidth (1 GiB
 * cudaMemcpy, read + write, median of 20), then per storage precision
 * (double, single, half; links in 12 reals, clover c_sw 1.769, kappa 0.13,
 * Haar-random links, antiperiodic in t): the time of one application on
 * one column (CUDA events around `reps` applications after 5 warm-up
 * ones), then for each K the time of one block application divided by K
 * (per column), its speed-up over the single column, and the bytes a
 * column would move per odd site at the copy bandwidth in that time.
 * One check per precision and K, PASS or FAIL (exit 1 on a FAIL): every
 * column of the block's output has the bits of dirac_gpu_eo_apply on that
 * column (the K columns hold different Gaussian fields).
 * Exits 0 with a note without CUDA or without a GPU; 2 on a bad argument. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("dirac_block_gpu: built without CUDA: nothing to measure\n");
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
#include "base/cli.h"
#include "bench_gpu.h"
#include <string.h>

enum { KMAX = 64 };

static void usage(void)
{
    fprintf(stderr, "usage: dirac_block_gpu [LXxLYxLZxLT [reps [K...]]]   (reps >= 1, 1 <= K <= %d)\n", KMAX);
    exit(2);
}

/* ms per application of Mhat on ncols columns (ncols 0: one vector) */
static double timed(struct dirac_gpu *g, struct solver_vec *out, const struct solver_vec *in, int ncols, int reps)
{
    for (int w = 0; w < 5; w++)
        if (ncols) dirac_gpu_eo_apply_block(g, 0, out, in, ncols);
        else dirac_gpu_eo_apply(g, 0, out, in);
    gpu_sync("warm-up");
    gpu_timer_start();
    for (int i = 0; i < reps; i++)
        if (ncols) dirac_gpu_eo_apply_block(g, 0, out, in, ncols);
        else dirac_gpu_eo_apply(g, 0, out, in);
    return gpu_timer_stop() / reps * 1e3;
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    int L[4] = {24, 24, 24, 48}, reps = 50, ks[KMAX], nk = 0;
    if (argc > 1 && cli_parse_extents(argv[1], L)) usage();
    if (argc > 2 && (reps = atoi(argv[2])) < 1) usage();
    for (int a = 3; a < argc; a++) {
        if (nk == KMAX || (ks[nk] = atoi(argv[a])) < 1 || ks[nk] > KMAX) usage();
        nk++;
    }
    if (!nk) ks[nk++] = 1, ks[nk++] = 2, ks[nk++] = 4, ks[nk++] = 12;
    char why[256], dev[256];
    const double bw = bench_device("dirac_block_gpu", dev, (int)sizeof dev);
    if (bw == 0) return 0; /* no GPU: the note is printed */
    struct lattice lat;
    const char *lwhy;
    if (lattice_init(&lat, L, &lwhy)) lat_die(2, "dirac_block_gpu", "lattice: %s", lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 2026);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.769);
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die(1, "dirac_block_gpu", "dirac_create: %s", why);
    struct dirac_gpu *g = dirac_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    if (!g) lat_die(1, "dirac_block_gpu", "dirac_gpu_create: %s", why);
    const int64_t ns = dirac_gpu_nsites(g);
    int kmax = 1;
    for (int k = 0; k < nk; k++) kmax = ks[k] > kmax ? ks[k] : kmax;
    printf("Mhat on %dx%dx%dx%d (%lld odd sites), links in 12 reals, clover, %d applications per line\n", L[0], L[1], L[2],
           L[3], (long long)ns, reps);
    printf("%-6s %6s %12s %10s %8s %10s %6s  %s\n", "prec", "K", "ms/column", "ms/block", "speedup", "B/site@cp", "%copy",
           "check");
    double *host = lat_malloc((size_t)ns * 24 * sizeof *host), *a = lat_malloc((size_t)ns * 24 * sizeof *a),
           *b = lat_malloc((size_t)ns * 24 * sizeof *b);
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    int failed = 0;
    for (int q = 0; q < 3; q++) {
        double flop, bytes, paper;
        dirac_gpu_counts(g, precs[q], &flop, &bytes, &paper);
        struct solver_vec *bin = dirac_gpu_block_new(g, precs[q], kmax), *bout = dirac_gpu_block_new(g, precs[q], kmax);
        struct solver_vec *one = dirac_gpu_vec_new(g, precs[q]), col, colo;
        struct lat_rng r;
        rng_init(&r, 5, 0, 0, 0, RNG_TEST);
        for (int c = 0; c < kmax; c++) {
            for (int64_t k = 0; k < ns * 24; k++) host[k] = rng_normal(&r);
            dirac_gpu_block_column(g, bin, c, &col);
            dirac_gpu_vec_upload(&col, host);
        }
        dirac_gpu_block_column(g, bin, 0, &col);
        const double t1 = timed(g, one, &col, 0, reps);
        printf("%-6s %6s %12.4f %10s %8s %10.0f %5.1f%%  %s\n", solver_prec_name(precs[q]), "single", t1, "-", "-",
               bw * t1 * 1e-3 / (double)ns, 100 * bytes * ns / (t1 * 1e-3) / bw, "-");
        for (int k = 0; k < nk; k++) {
            /* the first ks[k] columns of the blocks: a block of its own */
            struct solver_vec vin = *bin, vout = *bout;
            vin.n = vout.n = (size_t)ks[k] * (size_t)dirac_gpu_col_sites(g) * 24;
            const double tb = timed(g, &vout, &vin, ks[k], reps), tc = tb / ks[k];
            int same = 1;
            for (int c = 0; c < ks[k]; c++) {
                dirac_gpu_block_column(g, bin, c, &col);
                dirac_gpu_block_column(g, bout, c, &colo);
                dirac_gpu_eo_apply(g, 0, one, &col);
                dirac_gpu_vec_download(a, one);
                dirac_gpu_vec_download(b, &colo);
                same &= memcmp(a, b, (size_t)ns * 24 * sizeof *a) == 0;
            }
            failed += !same;
            /* B/site@cp: what the copy bandwidth moves per odd site and column in tc */
            printf("%-6s %6d %12.4f %10.4f %7.2fx %10.0f %5.1f%%  %s\n", solver_prec_name(precs[q]), ks[k], tc, tb, t1 / tc,
                   bw * tc * 1e-3 / (double)ns, 100 * bytes * ns / (tc * 1e-3) / bw, same ? "PASS" : "FAIL");
            fflush(stdout);
        }
        dirac_gpu_vec_free(one);
        dirac_gpu_vec_free(bin);
        dirac_gpu_vec_free(bout);
    }
    printf("(%%copy: dirac_gpu_counts' bytes of one column, every load counted, over the time a column takes, against "
           "the copy bandwidth)\n");
    free(host);
    free(a);
    free(b);
    dirac_gpu_free(g);
    dirac_free(cpu);
    field_free(&u);
    return failed ? 1 : 0;
}
#endif
