/* bench_gpu.h -- what the GPU benchmarks (bench/gaugefix_gpu.c,
 * bench/heatbath_gpu.c; bench_device also bench/dirac_block_gpu.c) share:
 * their command line
 *     PROG [--sizes 32,48] [--seconds S] [--variants] [--tsv FILE]
 * their start: the device's name and its device-to-device copy
 * bandwidth (1 GiB cudaMemcpy, bytes read + written), the yardstick every
 * rate is reported against; the median timing; and the rows of results with
 * their closing table and TSV file.  Header only (static inline: a
 * benchmark takes what it needs); built with CUDA. */
#ifndef LAT_BENCH_GPU_H
#define LAT_BENCH_GPU_H

#include "gaugefix/gpu.h"
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_opts {
    int sizes[8], nsizes;
    double seconds;
    int variants;
    const char *tsv;
};

/* Parse argv into o (whose sizes hold the defaults); exits 2 on a bad one. */
static inline void bench_parse(struct bench_opts *o, const char *prog, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            o->nsizes = 0;
            for (char *t = strtok(argv[++i], ","); t && o->nsizes < 8; t = strtok(NULL, ","))
                o->sizes[o->nsizes++] = atoi(t);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) o->seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--variants") == 0) o->variants = 1;
        else if (strcmp(argv[i], "--tsv") == 0 && i + 1 < argc) o->tsv = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--sizes %d,%d] [--seconds S] [--variants] [--tsv FILE]\n", prog, o->sizes[0],
                    o->sizes[1]);
            exit(2);
        }
    }
}

/* The copy bandwidth in bytes/s after printing the device (its name into
 * dev[len]) and it, or 0 (with a note) when there is no GPU. */
static inline double bench_device(const char *prog, char *dev, int len)
{
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("%s: no GPU (%s): nothing to measure\n", prog, why);
        return 0;
    }
    gpu_device_name(dev, len);
    double bw = gpu_copy_bandwidth((size_t)1 << 30, 20);
    printf("device: %s\ndevice-to-device copy bandwidth (1 GiB cudaMemcpy, read + write): %.1f GB/s\n", dev, bw * 1e-9);
    fflush(stdout);
    return bw;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds per sweep of 5 timed runs: timed(arg, n) runs n sweeps
 * and returns their seconds; first `warm` sweeps untimed, then `probe`
 * sweeps size the runs to about run_seconds each (at least nmin sweeps). */
static inline double bench_median5(double (*timed)(void *arg, int n), void *arg, int warm, int probe, double run_seconds,
                            int nmin)
{
    timed(arg, warm);
    double t1 = timed(arg, probe) / probe;
    int n = (int)(run_seconds / t1);
    if (n < nmin) n = nmin;
    double t[5];
    for (int r = 0; r < 5; r++) t[r] = timed(arg, n) / n;
    qsort(t, 5, sizeof t[0], bench_cmp_double);
    return t[2];
}

/* one measured rate: updates per second, bytes and flop per update counted
 * as the benchmark says, % of the copy bandwidth */
struct bench_row {
    char kernel[32];
    int L, variant;
    char prec;
    double rate, gbs, gflops, pct;
};

static inline struct bench_row *bench_add(struct bench_row *rows, int *n, int max, const char *kernel, int L, char prec,
                                   int variant, double rate, double bytes, double flop, double bw)
{
    if (*n >= max) {
        fprintf(stderr, "bench: more than %d rows\n", max);
        exit(1);
    }
    struct bench_row *r = &rows[(*n)++];
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
    r->L = L;
    r->prec = prec;
    r->variant = variant;
    r->rate = rate;
    r->gbs = rate * bytes;
    r->gflops = rate * flop;
    r->pct = 100 * r->gbs / bw;
    return r;
}

/* The table on standard output (every row, or with all = 0 only those of
 * launch candidate 0) and every row into the TSV file tsv (if not NULL);
 * what = "site" or "link", the unit of the update rate.  The "cand" column
 * is the launch candidate (gpu/tune.h) the row ran, "t" where the tuner
 * chose per launch (several kernels in one row). */
static inline void bench_table(const struct bench_row *rows, int n, const char *tsv, double bw, const char *what, int all)
{
    FILE *f = tsv ? fopen(tsv, "w") : NULL;
    if (tsv && !f) fprintf(stderr, "bench: cannot write %s\n", tsv);
    if (f) fprintf(f, "kernel\tL\tprecision\tcandidate\tG%s_per_s\tGB_per_s\tGflop_per_s\tpct_copy\tcopy_GB_per_s\n", what);
    char head[32];
    snprintf(head, sizeof head, "G%s-upd/s", what);
    printf("%-14s %5s %-6s %4s %12s %8s %9s %8s\n", "kernel", "L^4", "prec", "cand", head, "GB/s", "GFlop/s", "%copy");
    for (int i = 0; i < n; i++) {
        const struct bench_row *r = &rows[i];
        const char *pn = r->prec == 's' ? "single" : r->prec == 'm' ? "mixed" : "double";
        if (f)
            fprintf(f, "%s\t%d\t%s\t%d\t%.4f\t%.1f\t%.1f\t%.2f\t%.1f\n", r->kernel, r->L, pn, r->variant, r->rate * 1e-9,
                    r->gbs * 1e-9, r->gflops * 1e-9, r->pct, bw * 1e-9);
        if (!all && r->variant != 0) continue;
        char gf[32] = "-";
        if (r->gflops > 0) snprintf(gf, sizeof gf, "%.0f", r->gflops * 1e-9);
        char cand[16] = "t";
        if (r->variant >= 0) snprintf(cand, sizeof cand, "%d", r->variant);
        printf("%-14s %5d %-6s %4s %12.3f %8.0f %9s %7.1f%%\n", r->kernel, r->L, pn, cand, r->rate * 1e-9, r->gbs * 1e-9,
               gf, r->pct);
    }
    if (f) fclose(f);
}

#endif
