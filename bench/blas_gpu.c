/* blas_gpu.c -- benchmark of the solvers' GPU vector kernels
 * (kernels/solvers/blas_gpu.h; make bench, GPU present).
 *
 *   build/bench/blas_gpu [--sizes 32,48] [--seconds S] [--tsv FILE]
 *
 * For each L of --sizes (default 32, 48) the vectors of an even-odd half
 * lattice L^4/2: Wilson spinors (24 reals a site) and staggered ones (6
 * reals, stored in 8), in double, single and half: axpy (y += a x), xpay,
 * caxpby (complex), norm2, cdot, and the conversions double -> half and
 * half -> single (a sloppy solve's copies).  Each kernel: the median of 5
 * runs of about S/20 seconds (default S = 2) after a warm-up, timed with
 * CUDA events; reductions include their partials' download and host sum.
 * Reported: microseconds per call, G sites/s, and GB/s counting the bytes
 * the kernel must move -- every STORED real (padding included: what the
 * layout makes it read) of each operand read, of y written, plus the half
 * norms (4 bytes a site; bench/gpu_bytes.h's bytes_vec_stored) -- and
 * that as a percentage of the device-to-device copy bandwidth
 * (bench_gpu.h), the yardstick of a memory-bound kernel.  Then one multi-shift CG iteration's vector work (12 shifts,
 * 6 reals a site, on 12^3x4/2, 16^3x8/2 and 32^3x8/2 sites; sloppy double
 * and single): the unfused calls (2 x 12 + 4 launches) against the fused
 * kernels (4 launches) and against the fused kernels with x_i and p_i
 * updated in one (multi_axpy_caxpby: 3 launches, each p_i read once; the
 * solver's iteration without a reliable update), microseconds per
 * iteration, all with the two host waits of the reductions, and the bytes
 * of an iteration in each form (bench/gpu_bytes.h's bytes_ms_iteration)
 * with the rate of the x_i/p_i-fused form; each with the grid's reductions ("grid")
 * and on a table with a reduction layout of one chunk per timeslice
 * ("per-t": the staggered HMC's GPU solver's, whose axpy_norm2 and
 * axpy_cdot run on the chunk grid).  Then one BiCGstab iteration's vector
 * work (Mhat left out; Wilson even-odd 16^3x32/2 and 32^3x64/2 sites;
 * sloppy double, single, half; grid and per-t sums): the unfused calls (11
 * launches, 5 host waits) against BiCGstab's fused kernels (cdot_norm2,
 * caxpby_norm2_cdot, caxpby2: 6 launches, 3 waits), microseconds per
 * iteration, the bytes of each form and the fused form's share of the copy
 * bandwidth.  --tsv FILE: the rows as TSV.  Exits 0
 * with a note when built without CUDA or no GPU is present. */
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LAT_HAVE_CUDA
int main(void)
{
    printf("blas_gpu: built without CUDA: nothing to measure\n");
    return 0;
}
#else
#include "solvers/solvers.h"
#include "solvers/blas_gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "bench_gpu.h"
#include "gpu_bytes.h"

enum { K_AXPY, K_XPAY, K_CAXPBY, K_NORM2, K_CDOT, K_TOHALF, K_FROMHALF, K_N };
static const char *kname[K_N] = {"axpy", "xpay", "caxpby", "norm2", "cdot", "copy d->h", "copy h->s"};
/* operands read, written (in units of one vector of the row's precision) */
static const int kread[K_N] = {2, 2, 2, 1, 2, 1, 1}, kwrite[K_N] = {1, 1, 1, 0, 0, 1, 1};

struct job {
    const struct solver_blas *b;
    struct solver_vec *x, *y, *xd, *yh, *ys;
    int kernel;
    double sink;
};

static double timed(void *arg, int n)
{
    struct job *j = arg;
    const struct solver_blas *b = j->b;
    solver_complex a = {0.5, 0.25}, c = {0.75, -0.125};
    gpu_timer_start();
    for (int i = 0; i < n; i++) switch (j->kernel) {
        case K_AXPY: b->axpy(b->ctx, 1e-3, j->x, j->y); break;
        case K_XPAY: b->xpay(b->ctx, j->x, 0.999, j->y); break;
        case K_CAXPBY: b->caxpby(b->ctx, a, j->x, c, j->y); break;
        case K_NORM2: j->sink += b->norm2(b->ctx, j->x); break;
        case K_CDOT: j->sink += b->cdot(b->ctx, j->x, j->y).re; break;
        case K_TOHALF: b->copy(b->ctx, j->yh, j->xd); break;
        default: b->copy(b->ctx, j->ys, j->yh); break;
        }
    return gpu_timer_stop();
}

/* ---- one multi-shift CG iteration's vector work (solver_multishift_cg):
 * q += sigma p_base, <p_base, q>; x_i += alpha_i p_i (every shift);
 * r -= alpha q, |r|^2; p_i = zeta_i r + beta_i p_i (every shift) -- as the
 * unfused calls (form 0: 2 nshift + 4 launches, 2 host waits), the fused
 * ones (form 1: multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot: 4
 * launches, 2 waits) or with x_i and p_i in one call (form 2: axpy_cdot,
 * axpy_norm2, multi_axpy_caxpby: 3 launches, 2 waits, each p_i read once).
 * r, q, p_i in the sloppy precision, x_i in double, as the solver has them.
 * The forms are gpu_bytes.h's BYTES_MS_UNFUSED, _FUSED, _FUSED_XP. */
#define MS_SHIFTS 12
#define MS_FORMS 3
struct ms_job {
    const struct solver_blas *b;
    struct solver_vec *r, *q, *p[MS_SHIFTS], *x[MS_SHIFTS];
    int form;
    double sink;
};

static double ms_timed(void *arg, int n)
{
    struct ms_job *j = arg;
    const struct solver_blas *b = j->b;
    void *c = b->ctx;
    double a[MS_SHIFTS];
    solver_complex za[MS_SHIFTS], zb[MS_SHIFTS];
    for (int i = 0; i < MS_SHIFTS; i++) {
        a[i] = 1e-3 / (1 + i);
        za[i] = (solver_complex){0.5, 0};
        zb[i] = (solver_complex){0.5 - 0.01 * i, 0};
    }
    gpu_timer_start();
    for (int it = 0; it < n; it++) {
        const double sign = it % 2 ? -1 : 1; /* keeps the vectors bounded */
        if (j->form == BYTES_MS_FUSED_XP) {
            j->sink += b->axpy_cdot(c, sign * 1e-2, j->p[0], j->q).re;
            j->sink += b->axpy_norm2(c, sign * -1e-3, j->q, j->r);
            b->multi_axpy_caxpby(c, MS_SHIFTS, a, j->r, za, zb, j->p, j->x);
        } else if (j->form == BYTES_MS_FUSED) {
            j->sink += b->axpy_cdot(c, sign * 1e-2, j->p[0], j->q).re;
            b->multi_axpy(c, MS_SHIFTS, a, (const struct solver_vec *const *)j->p, j->x);
            j->sink += b->axpy_norm2(c, sign * -1e-3, j->q, j->r);
            b->multi_caxpby(c, MS_SHIFTS, za, j->r, zb, j->p);
        } else {
            b->axpy(c, sign * 1e-2, j->p[0], j->q);
            j->sink += b->cdot(c, j->p[0], j->q).re;
            for (int i = 0; i < MS_SHIFTS; i++) b->axpy(c, a[i], j->p[i], j->x[i]);
            b->axpy(c, sign * -1e-3, j->q, j->r);
            j->sink += b->norm2(c, j->r);
            for (int i = 0; i < MS_SHIFTS; i++) b->caxpby(c, za[i], j->r, zb[i], j->p[i]);
        }
    }
    return gpu_timer_stop();
}

/* the multi-shift table: 12^3x4/2, 16^3x8/2, 32^3x8/2 sites of 6 reals,
 * sloppy double and single, unfused, fused and fused with x_i and p_i in
 * one call, with the grid's reductions
 * (b) and with a reduction layout of one chunk per timeslice (a table
 * opened per lattice: staggered_reduce_layout's for a half field, as the
 * staggered HMC's GPU solver has it): microseconds per iteration */
static void multishift_table(const struct solver_blas *b, double seconds, FILE *tsv)
{
    static const int dims[3][2] = {{12, 4}, {16, 8}, {32, 8}};
    printf("\none multi-shift CG iteration's vector work, %d shifts, staggered (6 reals a site), x_i in double:\n", MS_SHIFTS);
    printf("(x+p: x_i and p_i in one call, multi_axpy_caxpby; MB: bytes_ms_iteration's bytes of an iteration)\n");
    printf("%-9s %7s %-6s %-8s %11s %9s %9s %8s %8s %9s %9s %7s\n", "lattice", "sites", "sloppy", "sums", "unfused us",
           "fused us", "x+p us", "speedup", "x+p/fus", "MB fused", "MB x+p", "x+p GB/s");
    if (tsv)
        fprintf(tsv, "\nlattice\tsites\tsloppy\tsums\tunfused_us_per_iter\tfused_us_per_iter\tfused_xp_us_per_iter"
                     "\tunfused_bytes_per_iter\tfused_bytes_per_iter\tfused_xp_bytes_per_iter\n");
    for (int d = 0; d < 3; d++) {
        int64_t L = dims[d][0], T = dims[d][1], ns = L * L * L * T / 2;
        size_t n = (size_t)ns * 6;
        double *h = malloc(n * sizeof *h);
        if (!h) return;
        for (size_t k = 0; k < n; k++) h[k] = (double)((k * 2654435761u) % 1000) / 500.0 - 1;
        struct solver_vec *src = b->alloc(b->ctx, n, 6, SOLVER_DOUBLE);
        if (!src) {
            printf("blas_gpu: %dx%d: out of device memory\n", (int)L, (int)T);
            free(h);
            return;
        }
        gpu_spinor_upload(src->data, h, ns, 6);
        const struct solver_reduce_layout lay = {(size_t)(L * L * L / 2) * 6, 0, (size_t)T, 1}; /* one chunk a timeslice */
        struct solver_blas *bt = solver_blas_gpu_open_layout(&lay);
        for (int pl = 0; pl < 4; pl++) {
            const int p = pl / 2;
            const struct solver_blas *b_run = pl % 2 ? bt : b;
            const char *sums = pl % 2 ? "per-t" : "grid";
            if (!b_run) continue;
            enum solver_prec sp = p ? SOLVER_SINGLE : SOLVER_DOUBLE;
            struct ms_job j = {b_run, NULL, NULL, {NULL}, {NULL}, 0, 0};
            int ok = 1;
            j.r = b->alloc(b->ctx, n, 6, sp);
            j.q = b->alloc(b->ctx, n, 6, sp);
            ok = j.r && j.q;
            for (int i = 0; i < MS_SHIFTS; i++) {
                j.p[i] = b->alloc(b->ctx, n, 6, sp);
                j.x[i] = b->alloc(b->ctx, n, 6, SOLVER_DOUBLE);
                ok = ok && j.p[i] && j.x[i];
            }
            double t[MS_FORMS] = {0, 0, 0}, mb[MS_FORMS];
            if (ok) {
                b->copy(b->ctx, j.r, src);
                b->copy(b->ctx, j.q, src);
                for (int i = 0; i < MS_SHIFTS; i++) b->copy(b->ctx, j.p[i], src);
                for (j.form = 0; j.form < MS_FORMS; j.form++) {
                    t[j.form] = bench_median5(ms_timed, &j, 3, 10, seconds / 20, 10);
                    mb[j.form] = bytes_ms_iteration(ns, 6, sp, MS_SHIFTS, j.form) * 1e-6;
                }
                printf("%2dx%-6d %7lld %-6s %-8s %11.1f %9.1f %9.1f %7.2fx %7.2fx %9.1f %9.1f %7.0f\n", (int)L, (int)T,
                       (long long)ns, p ? "single" : "double", sums, t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, t[0] / t[1],
                       t[1] / t[2], mb[1], mb[2], mb[2] * 1e-3 / t[2]);
                if (tsv)
                    fprintf(tsv, "%dx%d\t%lld\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\n", (int)L, (int)T, (long long)ns,
                            p ? "single" : "double", sums, t[0] * 1e6, t[1] * 1e6, t[2] * 1e6, mb[0] * 1e6, mb[1] * 1e6,
                            mb[2] * 1e6);
            } else
                printf("blas_gpu: %dx%d: out of device memory\n", (int)L, (int)T);
            if (j.sink == 12345.678) printf("(sink)\n");
            b->free(b->ctx, j.r);
            b->free(b->ctx, j.q);
            for (int i = 0; i < MS_SHIFTS; i++) b->free(b->ctx, j.p[i]), b->free(b->ctx, j.x[i]);
        }
        if (bt) solver_blas_gpu_close(bt);
        else printf("blas_gpu: %dx%d: solver_blas_gpu_open_layout returned NULL\n", (int)L, (int)T);
        b->free(b->ctx, src);
        free(h);
        fflush(stdout);
    }
}

/* ---- one BiCGstab iteration's vector work (bicgstab.c, Mhat left out):
 * <r0, v>; r = r - alpha v; <t, r>, |t|^2; x += alpha p + omega r;
 * r = r - omega t, |r|^2, <r0, r>; p = r + beta (p - omega v) -- as the
 * unfused calls (form 0: 6 caxpby, 3 cdot, 2 norm2: 11 launches, 5 host
 * waits) or BiCGstab's fused kernels (form 1: cdot, caxpby, cdot_norm2,
 * caxpby2, caxpby_norm2_cdot, caxpby2: 6 launches, 3 waits).  r, r0, p, v,
 * t in the sloppy precision, x in its accumulator's (single for half), as
 * the solver has them.  Bytes of an iteration in stored-vector passes S
 * (sloppy) and X (x): 22 S + 4 X unfused, 17 S + 2 X fused. */
struct bicg_job {
    const struct solver_blas *b;
    struct solver_vec *r, *r0, *p, *v, *t, *x;
    int fused;
    double sink;
};
static double bicg_timed(void *arg, int n)
{
    struct bicg_job *j = arg;
    const struct solver_blas *b = j->b;
    void *c = b->ctx;
    const solver_complex one = {1, 0}, beta = {0.5, 0};
    gpu_timer_start();
    for (int it = 0; it < n; it++) {
        const double sg = it % 2 ? -1 : 1; /* keeps the vectors bounded */
        const solver_complex alpha = {sg * 1e-3, 0}, omega = {sg * 2e-3, 0}, malpha = {-alpha.re, 0}, momega = {-omega.re, 0};
        j->sink += b->cdot(c, j->r0, j->v).re;
        b->caxpby(c, malpha, j->v, one, j->r);
        if (j->fused) {
            double tt;
            solver_complex rho;
            j->sink += b->cdot_norm2(c, j->t, j->r, &tt).re + tt;
            b->caxpby2(c, alpha, j->p, one, omega, j->r, one, j->x);
            j->sink += b->caxpby_norm2_cdot(c, momega, j->t, one, j->r, j->r0, &rho) + rho.re;
            b->caxpby2(c, momega, j->v, one, one, j->r, beta, j->p);
        } else {
            j->sink += b->norm2(c, j->t) + b->cdot(c, j->t, j->r).re;
            b->caxpby(c, alpha, j->p, one, j->x);
            b->caxpby(c, omega, j->r, one, j->x);
            b->caxpby(c, momega, j->t, one, j->r);
            j->sink += b->norm2(c, j->r) + b->cdot(c, j->r0, j->r).re;
            b->caxpby(c, momega, j->v, one, j->p);
            b->caxpby(c, one, j->r, beta, j->p);
        }
    }
    return gpu_timer_stop();
}

/* the BiCGstab table: Wilson even-odd half fields (24 reals a site) of
 * 16^3x32 and 32^3x64 (bench/solver_gpu's lattice), sloppy double, single,
 * half, with the grid's reductions and with one reduction chunk per
 * timeslice (lat-propagator's GPU solve): microseconds per iteration
 * unfused and fused, the bytes of each form, the fused form's share of the
 * copy bandwidth */
static void bicgstab_table(const struct solver_blas *b, double seconds, double bw, FILE *tsv)
{
    static const int dims[2][2] = {{16, 32}, {32, 64}};
    printf("\none BiCGstab iteration's vector work (Mhat left out), Wilson even-odd (24 reals a site):\n");
    printf("(unfused: 11 launches, 5 host waits; fused: cdot_norm2, caxpby_norm2_cdot, caxpby2: 6 launches, 3 waits)\n");
    printf("%-9s %8s %-6s %-6s %11s %9s %8s %9s %9s %7s\n", "lattice", "sites", "sloppy", "sums", "unfused us", "fused us",
           "speedup", "MB unfus", "MB fused", "%copy");
    if (tsv)
        fprintf(tsv, "\nlattice\tsites\tsloppy\tsums\tunfused_us_per_iter\tfused_us_per_iter\tunfused_bytes_per_iter"
                     "\tfused_bytes_per_iter\tfused_pct_copy\n");
    const char *pname[3] = {"double", "single", "half"};
    for (int d = 0; d < 2; d++) {
        const int64_t L = dims[d][0], T = dims[d][1], ns = L * L * L * T / 2;
        const size_t n = (size_t)ns * 24;
        double *h = malloc(n * sizeof *h);
        struct solver_vec *src = h ? b->alloc(b->ctx, n, 24, SOLVER_DOUBLE) : NULL;
        if (!src) {
            printf("blas_gpu: %dx%d: out of memory\n", (int)L, (int)T);
            free(h);
            return;
        }
        for (size_t k = 0; k < n; k++) h[k] = (double)((k * 2654435761u) % 1000) / 500.0 - 1;
        gpu_spinor_upload(src->data, h, ns, 24);
        const struct solver_reduce_layout lay = {(size_t)(L * L * L / 2) * 24, 0, (size_t)T, 1}; /* one chunk a timeslice */
        struct solver_blas *bt = solver_blas_gpu_open_layout(&lay);
        for (int pl = 0; pl < 6; pl++) {
            const enum solver_prec sp = (enum solver_prec)(pl / 2), xp = sp == SOLVER_HALF ? SOLVER_SINGLE : sp;
            const struct solver_blas *b_run = pl % 2 ? bt : b;
            if (!b_run) continue;
            struct bicg_job j = {b_run, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
            struct solver_vec **v[5] = {&j.r, &j.r0, &j.p, &j.v, &j.t};
            int ok = 1;
            for (int k = 0; k < 5; k++) {
                *v[k] = b->alloc(b->ctx, n, 24, sp);
                ok = ok && *v[k];
                if (*v[k]) b->copy(b->ctx, *v[k], src);
            }
            j.x = b->alloc(b->ctx, n, 24, xp);
            ok = ok && j.x;
            if (ok) {
                double t[2];
                for (j.fused = 0; j.fused < 2; j.fused++) t[j.fused] = bench_median5(bicg_timed, &j, 3, 10, seconds / 20, 10);
                const double S = bytes_vec_stored(ns, 24, sp), X = bytes_vec_stored(ns, 24, xp);
                const double mb[2] = {(22 * S + 4 * X) * 1e-6, (17 * S + 2 * X) * 1e-6};
                printf("%2dx%-6d %8lld %-6s %-6s %11.1f %9.1f %7.2fx %9.1f %9.1f %6.1f%%\n", (int)L, (int)T, (long long)ns,
                       pname[sp], pl % 2 ? "per-t" : "grid", t[0] * 1e6, t[1] * 1e6, t[0] / t[1], mb[0], mb[1],
                       100 * mb[1] * 1e6 / t[1] / bw);
                if (tsv)
                    fprintf(tsv, "%dx%d\t%lld\t%s\t%s\t%.2f\t%.2f\t%.0f\t%.0f\t%.2f\n", (int)L, (int)T, (long long)ns,
                            pname[sp], pl % 2 ? "per-t" : "grid", t[0] * 1e6, t[1] * 1e6, mb[0] * 1e6, mb[1] * 1e6,
                            100 * mb[1] * 1e6 / t[1] / bw);
            } else
                printf("blas_gpu: %dx%d %s: out of device memory\n", (int)L, (int)T, pname[sp]);
            if (j.sink == 12345.678) printf("(sink)\n");
            for (int k = 0; k < 5; k++) b->free(b->ctx, *v[k]);
            b->free(b->ctx, j.x);
        }
        if (bt) solver_blas_gpu_close(bt);
        b->free(b->ctx, src);
        free(h);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    (void)bench_table, (void)bench_add; /* bench_gpu.h's table is for site-update rates */
    struct bench_opts o = {{32, 48}, 2, 2.0, 0, NULL};
    bench_parse(&o, "blas_gpu", argc, argv);
    char dev[256];
    double bw = bench_device("blas_gpu", dev, sizeof dev);
    if (bw == 0) return 0;
    struct solver_blas *b = solver_blas_gpu_open();
    if (!b) {
        printf("blas_gpu: solver_blas_gpu_open returned NULL\n");
        return 1;
    }
    FILE *tsv = o.tsv ? fopen(o.tsv, "w") : NULL;
    if (o.tsv && !tsv) fprintf(stderr, "blas_gpu: cannot write %s\n", o.tsv);
    if (tsv) fprintf(tsv, "L\tsite_reals\tprecision\tkernel\tus_per_call\tGsites_per_s\tGB_per_s\tpct_copy\n");
    printf("%4s %5s %-6s %-10s %10s %9s %8s %7s\n", "L", "reals", "prec", "kernel", "us/call", "Gsite/s", "GB/s", "%copy");
    const char *pname[3] = {"double", "single", "half"};
    for (int li = 0; li < o.nsizes; li++) {
        int64_t L = o.sizes[li], ns = L * L * L * L / 2;
        for (int sr = 24; sr >= 6; sr -= 18) {
            size_t n = (size_t)ns * (size_t)sr;
            double *h = malloc(n * sizeof *h);
            for (size_t k = 0; k < n; k++) h[k] = (double)((k * 2654435761u) % 1000) / 500.0 - 1;
            struct job j = {b, NULL, NULL, NULL, NULL, NULL, 0, 0};
            j.xd = b->alloc(b->ctx, n, (size_t)sr, SOLVER_DOUBLE);
            j.yh = b->alloc(b->ctx, n, (size_t)sr, SOLVER_HALF);
            j.ys = b->alloc(b->ctx, n, (size_t)sr, SOLVER_SINGLE);
            if (!j.xd || !j.yh || !j.ys) {
                printf("blas_gpu: L = %d: out of device memory\n", (int)L);
                break;
            }
            gpu_spinor_upload(j.xd->data, h, ns, sr);
            for (int p = 0; p < 3; p++) {
                j.x = b->alloc(b->ctx, n, (size_t)sr, (enum solver_prec)p);
                j.y = b->alloc(b->ctx, n, (size_t)sr, (enum solver_prec)p);
                b->copy(b->ctx, j.x, j.xd);
                b->copy(b->ctx, j.y, j.xd);
                const double pass = bytes_vec_stored(ns, sr, (enum solver_prec)p); /* one operand */
                for (int k = 0; k < K_N; k++) {
                    if ((k == K_TOHALF || k == K_FROMHALF) && p != 0) continue; /* once per size */
                    j.kernel = k;
                    double t = bench_median5(timed, &j, 3, 10, o.seconds / 20, 10);
                    double bytes;
                    if (k == K_TOHALF) bytes = bytes_vec_stored(ns, sr, SOLVER_DOUBLE) + bytes_vec_stored(ns, sr, SOLVER_HALF);
                    else if (k == K_FROMHALF)
                        bytes = bytes_vec_stored(ns, sr, SOLVER_HALF) + bytes_vec_stored(ns, sr, SOLVER_SINGLE);
                    else bytes = (kread[k] + kwrite[k]) * pass;
                    const char *pn = k == K_TOHALF || k == K_FROMHALF ? "-" : pname[p];
                    printf("%4d %5d %-6s %-10s %10.1f %9.3f %8.0f %6.1f%%\n", (int)L, sr, pn, kname[k], t * 1e6,
                           ns / t * 1e-9, bytes / t * 1e-9, 100 * bytes / t / bw);
                    if (tsv)
                        fprintf(tsv, "%d\t%d\t%s\t%s\t%.2f\t%.4f\t%.1f\t%.2f\n", (int)L, sr, pn, kname[k], t * 1e6,
                                ns / t * 1e-9, bytes / t * 1e-9, 100 * bytes / t / bw);
                }
                b->free(b->ctx, j.x);
                b->free(b->ctx, j.y);
            }
            if (j.sink == 12345.678) printf("(sink)\n"); /* keeps the reductions' results used */
            b->free(b->ctx, j.xd);
            b->free(b->ctx, j.yh);
            b->free(b->ctx, j.ys);
            free(h);
        }
        fflush(stdout);
    }
    multishift_table(b, o.seconds, tsv);
    bicgstab_table(b, o.seconds, bw, tsv);
    if (tsv) fclose(tsv);
    solver_blas_gpu_close(b);
    return 0;
}
#endif
