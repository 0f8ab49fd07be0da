/* solver_gpu.c (bench) -- where a GPU Krylov solve's time goes, per
 * operation: the Wilson-clover even-odd solve of lat-propagator --device
 * gpu (tools/shared/prop_solve.c: dirac_gpu_solver_op, the GPU vector
 * kernels with one reduction slot per timeslice) timed whole and then
 * through wrappers of every callback.
 *
 *   build/bench/solver_gpu [--lattice LXxLYxLZxLT] [--iters N] [--kappa K]
 *       [--csw C] [--links 12|8|18] [--solvers bicgstab,cgne]
 *       [--precisions double,single,half] [--tsv FILE] [--cpu]
 *   defaults: 32x32x32x64, 200, 0.1340, 1.769, 12, bicgstab,cgne,
 *   double,single,half.
 *
 * The system: links from a Haar-random start (field_set_random, seed 2026)
 * after 4 heatbath sweeps at beta 6.0 (kernels/heatbath: the GPU backend
 * in a GPU run, the CPU one with --cpu; reproducible, the plaquette is
 * printed), the CPU operator (dirac_create, antiperiodic in t), its device
 * copy with links in --links reals; the right-hand side a Gaussian odd
 * half field (Philox RNG_TEST stream, seed 7).  Each solve runs exactly N
 * iterations from x = 0 (tol 1e-30, max_iter N: timing, not convergence;
 * it stops earlier only on a breakdown).  --precisions names the sloppy
 * precision: double is a pure double solve; single and half are double
 * outer solves with reliable updates, delta 0 (the solvers' 0.1), exactly
 * as prop_solve sets solver_params.
 *
 * Per solver x precision: (1) a warm-up solve, then the unwrapped solve:
 * wall seconds (device synchronised before and after) per iteration;
 * (2) the same solve through wrappers of struct solver_op (apply,
 * apply_dag, apply_f, apply_dag_f, apply_vec) and struct solver_blas
 * (every member; an optional fused one stays NULL where the real one is
 * NULL): each wrapper synchronises the device, reads the clock, calls the
 * real callback, synchronises again and adds the elapsed time to a bucket
 * of (operation, precisions) with a call count.  The table, slowest first:
 * operation, precisions (d double, s single, h half; "x,y" for y op= x,
 * "x->y" for a copy, the input for the operator), calls per iteration (all
 * calls of the solve over its iterations: set-up, reliable updates and the
 * final residual included), microseconds per call, share of the wrapped
 * solve's wall time, and GB/s with % of the copy bandwidth measured in this
 * run (bench_gpu.h): vector kernels from bench/gpu_bytes.h's stored-vector
 * pass (every operand read, y written, half norms), Mhat from
 * dirac_gpu_counts.  The reliable updates appear as their own rows: the
 * double Mhat of the true residual is "Mhat apply d" (the iteration's
 * Mhat goes through apply_vec), the conversions are the copy rows (d->h,
 * s->d, ...).  Then the callbacks' sum, the host time outside them, the
 * wrapped and the unwrapped ms per iteration (their difference is what the
 * synchronisation and the clock reads cost), and the true residuals of
 * both solves (the same kernels in the same order: the same bits).
 * Two checks per solve, printed PASS/FAIL (exit 1 if any fails): the
 * wrapped solve took the unwrapped one's iterations and residual bits, and
 * the operator rows hold 2 calls an iteration (CGNE: + the first A^dag r)
 * plus one double Mhat per true residual -- no call lost or counted twice.
 * The solve's own work vectors are allocated and freed by every solve
 * (solve_vec, through blas->alloc/free: cudaMalloc, cudaFree) as in
 * lat-propagator; they are the alloc/free rows.  Not timed: the upload of
 * b and the download of x, the CPU's even-odd preparation.
 * --tsv FILE: every row as TSV, written whole at the end (never partial):
 * solver, sloppy, operation, precision, calls, iterations,
 * reliable_updates, true_residual (%.17g), seconds, calls_per_iter,
 * us_per_call, ms_per_iter, share_pct, GB_per_s, pct_copy ("-" without a
 * rate); then per solve the rows "(callbacks)", "(outside)", "(wrapped)"
 * and "(unwrapped)" (calls 1: the whole solve; the unwrapped row has the
 * unwrapped solve's iterations, residual and seconds).
 * --cpu: the same wrappers over the CPU operator and kernels (no device:
 * no synchronisation, no byte rates) -- the bookkeeping check of
 * tests/solver-profile.bats (the GPU path with emulated kernels:
 * scripts/solver-profile-emulation).  Without CUDA or a GPU (and no
 * --cpu): one note, exit 0.  Bad options: one line, exit 2. */
#include "base/cli.h"
#include "base/clock.h"
#include "base/comm.h"
#include "base/log.h"
#include "base/output.h"
#include "dirac/dirac.h"
#include "heatbath/backend.h"
#include "lattice/field.h"
#include "lattice/observables.h"
#include "math/rng.h"
#include "solvers/solvers.h"
#include "gpu/gpu.h"
#include "gpu_bytes.h"
#ifdef LAT_HAVE_CUDA
#include "dirac/gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "solvers/blas_gpu.h"
#include "bench_gpu.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "solver_gpu"
#define HB_SWEEPS 4
#define HB_BETA 6.0
#define FIELD_SEED 2026
#define SOLVE_TOL 1e-30 /* never reached: every solve runs its N iterations */

/* ---- the buckets: one per (operation, precisions) ------------------------ */
enum kind {
    K_APPLY, K_APPLY_DAG, K_APPLY_F, K_APPLY_DAG_F, K_VEC, K_VEC_DAG,
    K_ALLOC, K_FREE, K_ZERO, K_COPY, K_SCALE, K_AXPY, K_XPAY, K_CAXPBY, K_CDOT, K_NORM2,
    K_MULTI_AXPY, K_MULTI_CAXPBY, K_AXPY_NORM2, K_AXPY_CDOT, K_MULTI_AXPY_CAXPBY, K_CDOT_NORM2,
    K_CAXPBY_NORM2_CDOT, K_CAXPBY2, K_N
};
static const char *const kind_name[K_N] = {
    "Mhat apply", "Mhat^dag apply_dag", "Mhat apply_f", "Mhat^dag apply_dag_f", "Mhat apply_vec",
    "Mhat^dag apply_vec", "alloc", "free", "zero", "copy", "scale", "axpy", "xpay", "caxpby", "cdot", "norm2",
    "multi_axpy", "multi_caxpby", "axpy_norm2", "axpy_cdot", "multi_axpy_caxpby", "cdot_norm2",
    "caxpby_norm2_cdot", "caxpby2"};

struct bucket {
    enum kind kind;
    int px, py; /* precisions (enum solver_prec) of x and y; -1: none */
    long calls;
    double seconds, bytes;
};
#define MAX_BUCKETS 128

/* the profiler: the ctx of the wrapped operator and of the wrapped kernels */
struct prof {
    const struct solver_op *op;   /* the real operator */
    const struct solver_blas *bl; /* the real vector kernels */
    void (*sync)(void);           /* waits for the device; NULL on the CPU */
    double mhat_bytes[3];         /* bytes of one Mhat application per precision (0: not known) */
    struct bucket b[MAX_BUCKETS];
    int nb;
    double t0;
};

static void tic(struct prof *p)
{
    if (p->sync) p->sync();
    p->t0 = lat_clock();
}

static void toc(struct prof *p, enum kind k, int px, int py, double bytes)
{
    if (p->sync) p->sync();
    const double dt = lat_clock() - p->t0;
    struct bucket *b = NULL;
    for (int i = 0; i < p->nb && !b; i++)
        if (p->b[i].kind == k && p->b[i].px == px && p->b[i].py == py) b = &p->b[i];
    if (!b) {
        if (p->nb == MAX_BUCKETS) lat_die(1, PROG, "more than %d (operation, precision) buckets", MAX_BUCKETS);
        b = &p->b[p->nb++];
        *b = (struct bucket){k, px, py, 0, 0, 0};
    }
    b->calls++;
    b->seconds += dt;
    b->bytes += bytes;
}

/* one pass over a stored vector on the device (gpu_bytes.h) */
static double pass(const struct solver_vec *v)
{
    return bytes_vec_stored((int64_t)(v->n / v->site_reals), (int)v->site_reals, v->prec);
}

/* ---- the operator's wrappers --------------------------------------------- */
#define P ((struct prof *)c)
static void w_apply(void *c, double *o, const double *i)
{
    tic(P), P->op->apply(P->op->ctx, o, i), toc(P, K_APPLY, SOLVER_DOUBLE, -1, P->mhat_bytes[SOLVER_DOUBLE]);
}
static void w_apply_dag(void *c, double *o, const double *i)
{
    tic(P), P->op->apply_dag(P->op->ctx, o, i), toc(P, K_APPLY_DAG, SOLVER_DOUBLE, -1, P->mhat_bytes[SOLVER_DOUBLE]);
}
static void w_apply_f(void *c, float *o, const float *i)
{
    tic(P), P->op->apply_f(P->op->ctx, o, i), toc(P, K_APPLY_F, SOLVER_SINGLE, -1, P->mhat_bytes[SOLVER_SINGLE]);
}
static void w_apply_dag_f(void *c, float *o, const float *i)
{
    tic(P), P->op->apply_dag_f(P->op->ctx, o, i), toc(P, K_APPLY_DAG_F, SOLVER_SINGLE, -1, P->mhat_bytes[SOLVER_SINGLE]);
}
static void w_apply_vec(void *c, int dag, struct solver_vec *o, const struct solver_vec *i)
{
    tic(P), P->op->apply_vec(P->op->ctx, dag, o, i), toc(P, dag ? K_VEC_DAG : K_VEC, i->prec, -1, P->mhat_bytes[i->prec]);
}

/* ---- the vector kernels' wrappers ----------------------------------------- */
static struct solver_vec *w_alloc(void *c, size_t n, size_t sr, enum solver_prec pr)
{
    tic(P);
    struct solver_vec *v = P->bl->alloc(P->bl->ctx, n, sr, pr);
    toc(P, K_ALLOC, pr, -1, 0);
    return v;
}
static void w_free(void *c, struct solver_vec *v)
{
    const int pr = v ? (int)v->prec : -1;
    tic(P), P->bl->free(P->bl->ctx, v), toc(P, K_FREE, pr, -1, 0);
}
static void w_zero(void *c, struct solver_vec *y) { tic(P), P->bl->zero(P->bl->ctx, y), toc(P, K_ZERO, -1, y->prec, pass(y)); }
static void w_copy(void *c, struct solver_vec *y, const struct solver_vec *x)
{
    tic(P), P->bl->copy(P->bl->ctx, y, x), toc(P, K_COPY, x->prec, y->prec, pass(x) + pass(y));
}
static void w_scale(void *c, double a, struct solver_vec *y)
{
    tic(P), P->bl->scale(P->bl->ctx, a, y), toc(P, K_SCALE, -1, y->prec, 2 * pass(y));
}
static void w_axpy(void *c, double a, const struct solver_vec *x, struct solver_vec *y)
{
    tic(P), P->bl->axpy(P->bl->ctx, a, x, y), toc(P, K_AXPY, x->prec, y->prec, pass(x) + 2 * pass(y));
}
static void w_xpay(void *c, const struct solver_vec *x, double a, struct solver_vec *y)
{
    tic(P), P->bl->xpay(P->bl->ctx, x, a, y), toc(P, K_XPAY, x->prec, y->prec, pass(x) + 2 * pass(y));
}
static void w_caxpby(void *c, solver_complex a, const struct solver_vec *x, solver_complex b, struct solver_vec *y)
{
    tic(P), P->bl->caxpby(P->bl->ctx, a, x, b, y), toc(P, K_CAXPBY, x->prec, y->prec, pass(x) + 2 * pass(y));
}
static solver_complex w_cdot(void *c, const struct solver_vec *x, const struct solver_vec *y)
{
    tic(P);
    const solver_complex r = P->bl->cdot(P->bl->ctx, x, y);
    toc(P, K_CDOT, x->prec, y->prec, pass(x) + pass(y));
    return r;
}
static double w_norm2(void *c, const struct solver_vec *x)
{
    tic(P);
    const double r = P->bl->norm2(P->bl->ctx, x);
    toc(P, K_NORM2, x->prec, -1, pass(x));
    return r;
}
static void w_multi_axpy(void *c, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    double bytes = 0;
    for (int i = 0; i < n; i++) bytes += pass(x[i]) + 2 * pass(y[i]);
    tic(P), P->bl->multi_axpy(P->bl->ctx, n, a, x, y);
    toc(P, K_MULTI_AXPY, n > 0 ? (int)x[0]->prec : -1, n > 0 ? (int)y[0]->prec : -1, bytes);
}
static void w_multi_caxpby(void *c, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                           struct solver_vec *const *y)
{
    double bytes = pass(x);
    for (int i = 0; i < n; i++) bytes += 2 * pass(y[i]);
    tic(P), P->bl->multi_caxpby(P->bl->ctx, n, a, x, b, y);
    toc(P, K_MULTI_CAXPBY, x->prec, n > 0 ? (int)y[0]->prec : -1, bytes);
}
static double w_axpy_norm2(void *c, double a, const struct solver_vec *x, struct solver_vec *y)
{
    tic(P);
    const double r = P->bl->axpy_norm2(P->bl->ctx, a, x, y);
    toc(P, K_AXPY_NORM2, x->prec, y->prec, pass(x) + 2 * pass(y));
    return r;
}
static solver_complex w_axpy_cdot(void *c, double a, const struct solver_vec *x, struct solver_vec *y)
{
    tic(P);
    const solver_complex r = P->bl->axpy_cdot(P->bl->ctx, a, x, y);
    toc(P, K_AXPY_CDOT, x->prec, y->prec, pass(x) + 2 * pass(y));
    return r;
}
static void w_multi_axpy_caxpby(void *c, int n, const double *a, const struct solver_vec *x, const solver_complex *b,
                                const solver_complex *cc, struct solver_vec *const *p, struct solver_vec *const *y)
{
    double bytes = pass(x);
    for (int i = 0; i < n; i++) bytes += 2 * pass(p[i]) + 2 * pass(y[i]);
    tic(P), P->bl->multi_axpy_caxpby(P->bl->ctx, n, a, x, b, cc, p, y);
    toc(P, K_MULTI_AXPY_CAXPBY, x->prec, n > 0 ? (int)y[0]->prec : -1, bytes);
}
/* BiCGstab's fused kernels: "x,y" are the read operand's and the written
 * (or, cdot_norm2, the second read) operand's precisions */
static solver_complex w_cdot_norm2(void *c, const struct solver_vec *x, const struct solver_vec *y, double *xx)
{
    tic(P);
    const solver_complex r = P->bl->cdot_norm2(P->bl->ctx, x, y, xx);
    toc(P, K_CDOT_NORM2, x->prec, y->prec, pass(x) + pass(y));
    return r;
}
static double w_caxpby_norm2_cdot(void *c, solver_complex a, const struct solver_vec *x, solver_complex b,
                                  struct solver_vec *y, const struct solver_vec *z, solver_complex *zy)
{
    tic(P);
    const double r = P->bl->caxpby_norm2_cdot(P->bl->ctx, a, x, b, y, z, zy);
    toc(P, K_CAXPBY_NORM2_CDOT, x->prec, y->prec, pass(x) + 2 * pass(y) + pass(z));
    return r;
}
static void w_caxpby2(void *c, solver_complex a1, const struct solver_vec *x1, solver_complex b1, solver_complex a2,
                      const struct solver_vec *x2, solver_complex b2, struct solver_vec *y)
{
    tic(P), P->bl->caxpby2(P->bl->ctx, a1, x1, b1, a2, x2, b2, y);
    toc(P, K_CAXPBY2, x1->prec, y->prec, pass(x1) + pass(x2) + 2 * pass(y));
}
#undef P

/* the wrapped operator and kernels over p's real ones: a member is wrapped
 * where the real one is set and stays NULL where it is NULL */
static void prof_wrap(struct prof *p, struct solver_op *op, struct solver_blas *bl)
{
    const struct solver_op *o = p->op;
    const struct solver_blas *b = p->bl;
#define W(real, wrapper) ((real) ? (wrapper) : NULL)
    *op = (struct solver_op){.n = o->n, .site_reals = o->site_reals, .ctx = p, .apply = W(o->apply, w_apply),
                             .apply_dag = W(o->apply_dag, w_apply_dag), .apply_f = W(o->apply_f, w_apply_f),
                             .apply_dag_f = W(o->apply_dag_f, w_apply_dag_f), .apply_vec = W(o->apply_vec, w_apply_vec)};
    *bl = (struct solver_blas){.ctx = p, .alloc = W(b->alloc, w_alloc), .free = W(b->free, w_free),
                               .zero = W(b->zero, w_zero), .copy = W(b->copy, w_copy), .scale = W(b->scale, w_scale),
                               .axpy = W(b->axpy, w_axpy), .xpay = W(b->xpay, w_xpay), .caxpby = W(b->caxpby, w_caxpby),
                               .cdot = W(b->cdot, w_cdot), .norm2 = W(b->norm2, w_norm2),
                               .multi_axpy = W(b->multi_axpy, w_multi_axpy),
                               .multi_caxpby = W(b->multi_caxpby, w_multi_caxpby),
                               .axpy_norm2 = W(b->axpy_norm2, w_axpy_norm2), .axpy_cdot = W(b->axpy_cdot, w_axpy_cdot),
                               .multi_axpy_caxpby = W(b->multi_axpy_caxpby, w_multi_axpy_caxpby),
                               .cdot_norm2 = W(b->cdot_norm2, w_cdot_norm2),
                               .caxpby_norm2_cdot = W(b->caxpby_norm2_cdot, w_caxpby_norm2_cdot),
                               .caxpby2 = W(b->caxpby2, w_caxpby2)};
#undef W
}

/* ---- the system and one profiled solver x precision ------------------------ */
struct system {
    struct solver_op op;          /* the real operator */
    const struct solver_blas *bl; /* the real vector kernels */
    struct solver_vec *b, *x;     /* right-hand side and solution, double, the backend's memory */
    void (*sync)(void);           /* NULL on the CPU */
    double mhat_bytes[3];         /* per application, 0 on the CPU */
    double bw;                    /* copy bandwidth, bytes/s; 0 on the CPU */
};

static double solve_seconds(const struct system *s, int bicgstab, const struct solver_op *op,
                            const struct solver_blas *bl, const struct solver_params *par, struct solver_result *res)
{
    s->bl->zero(s->bl->ctx, s->x); /* x = 0 as lat-propagator starts, untimed */
    if (s->sync) s->sync();
    const double t0 = lat_clock();
    if (bicgstab) solver_bicgstab(op, bl, (const double *)s->b->data, (double *)s->x->data, par, res);
    else solver_cgne(op, bl, (const double *)s->b->data, (double *)s->x->data, par, res);
    if (s->sync) s->sync();
    return lat_clock() - t0;
}

static const char pchar[3] = {'d', 's', 'h'};
static void prec_label(char *buf, size_t len, const struct bucket *b)
{
    if (b->px >= 0 && b->py >= 0) snprintf(buf, len, "%c%s%c", pchar[b->px], b->kind == K_COPY ? "->" : ",", pchar[b->py]);
    else snprintf(buf, len, "%c", pchar[b->px >= 0 ? b->px : b->py >= 0 ? b->py : 0]);
}

static int by_seconds(const void *a, const void *b)
{
    const double x = ((const struct bucket *)a)->seconds, y = ((const struct bucket *)b)->seconds;
    return (x < y) - (x > y);
}

static void tsv_row(FILE *f, const char *solver, enum solver_prec sp, const char *op, const char *prec, long calls,
                    const struct solver_result *r, double seconds, double iters, double share, double gbs, double pct)
{
    if (!f) return;
    fprintf(f, "%s\t%s\t%s\t%s\t%ld\t%d\t%d\t%.17g\t%.6g\t%.4f\t%.3f\t%.6f\t%.2f\t", solver, solver_prec_name(sp), op, prec,
            calls, r->iterations, r->reliable_updates, r->residual, seconds, calls / iters,
            calls ? seconds / calls * 1e6 : 0, seconds / iters * 1e3, share);
    if (gbs > 0) fprintf(f, "%.1f\t%.2f\n", gbs * 1e-9, pct);
    else fprintf(f, "-\t-\n");
}

static void profile(const struct system *s, int bicgstab, enum solver_prec sp, int iters, FILE *tsv, int *failed)
{
    const char *solver = bicgstab ? "bicgstab" : "cgne";
    const struct solver_params par = {.tol = SOLVE_TOL, .max_iter = iters, .sloppy = sp, .delta = 0};
    struct solver_result ru, rw;
    solve_seconds(s, bicgstab, &s->op, s->bl, &par, &ru); /* warm-up */
    const double tu = solve_seconds(s, bicgstab, &s->op, s->bl, &par, &ru);
    struct prof p;
    memset(&p, 0, sizeof p);
    p.op = &s->op, p.bl = s->bl, p.sync = s->sync;
    memcpy(p.mhat_bytes, s->mhat_bytes, sizeof p.mhat_bytes);
    struct solver_op wop;
    struct solver_blas wbl;
    prof_wrap(&p, &wop, &wbl);
    const double tw = solve_seconds(s, bicgstab, &wop, &wbl, &par, &rw);
    const double n = rw.iterations > 0 ? rw.iterations : 1, nu = ru.iterations > 0 ? ru.iterations : 1;
    printf("\n== %s, %s: %d iterations (unwrapped %d), %d reliable updates (the final residual included), %s; "
           "true residual %.6e wrapped, %.6e unwrapped (%s)\n",
           solver, sp == SOLVER_DOUBLE ? "double" : sp == SOLVER_SINGLE ? "double-single" : "double-half",
           rw.iterations, ru.iterations, rw.reliable_updates, solver_status_name(rw.status), rw.residual, ru.residual,
           rw.residual == ru.residual ? "the same bits" : "DIFFERENT");
    printf("%-22s %-5s %9s %10s %7s %8s %7s\n", "operation", "prec", "calls/it", "us/call", "share", "GB/s", "%copy");
    qsort(p.b, (size_t)p.nb, sizeof p.b[0], by_seconds);
    double sum = 0;
    for (int i = 0; i < p.nb; i++) {
        const struct bucket *b = &p.b[i];
        char pl[8], gb[16] = "-", pc[16] = "-";
        prec_label(pl, sizeof pl, b);
        const double gbs = s->bw > 0 && b->bytes > 0 && b->seconds > 0 ? b->bytes / b->seconds : 0;
        if (gbs > 0) snprintf(gb, sizeof gb, "%.0f", gbs * 1e-9), snprintf(pc, sizeof pc, "%.1f%%", 100 * gbs / s->bw);
        printf("%-22s %-5s %9.3f %10.1f %6.1f%% %8s %7s\n", kind_name[b->kind], pl, b->calls / n, b->seconds / b->calls * 1e6,
               100 * b->seconds / tw, gb, pc);
        tsv_row(tsv, solver, sp, kind_name[b->kind], pl, b->calls, &rw, b->seconds, n, 100 * b->seconds / tw, gbs,
                gbs > 0 ? 100 * gbs / s->bw : 0);
        sum += b->seconds;
    }
    printf("ms per iteration: callbacks %.4f + outside them (host) %.4f = wrapped %.4f; unwrapped %.4f "
           "(synchronisation and clock: %+.4f)\n",
           sum / n * 1e3, (tw - sum) / n * 1e3, tw / n * 1e3, tu / nu * 1e3, (tw / n - tu / nu) * 1e3);
    /* the bookkeeping: the wrapped solve is the unwrapped one (same bits),
     * and every operator application is one row's call: 2 a step (CGNE:
     * and the first A^dag r) plus one double Mhat per true residual */
    long opcalls = 0;
    for (int i = 0; i < p.nb; i++) opcalls += p.b[i].kind <= K_VEC_DAG ? p.b[i].calls : 0;
    const long want = 2L * rw.iterations + !bicgstab + rw.reliable_updates;
    const int same = rw.residual == ru.residual && rw.iterations == ru.iterations, counted = opcalls == want;
    printf("check: %s wrapped solve = unwrapped solve (iterations, true residual bits); %s operator calls %ld = 2 x %d "
           "iterations%s + %d true residuals\n",
           same ? "PASS" : "FAIL", counted ? "PASS" : "FAIL", opcalls, rw.iterations, bicgstab ? "" : " + 1",
           rw.reliable_updates);
    *failed += !same + !counted;
    tsv_row(tsv, solver, sp, "(callbacks)", "-", 1, &rw, sum, n, 100 * sum / tw, 0, 0);
    tsv_row(tsv, solver, sp, "(outside)", "-", 1, &rw, tw - sum, n, 100 * (tw - sum) / tw, 0, 0);
    tsv_row(tsv, solver, sp, "(wrapped)", "-", 1, &rw, tw, n, 100, 0, 0);
    tsv_row(tsv, solver, sp, "(unwrapped)", "-", 1, &ru, tu, nu, 100 * tu / tw, 0, 0);
    fflush(stdout);
}

/* ---- options --------------------------------------------------------------- */
struct opts {
    int L[4], iters, links, cpu;
    double kappa, csw;
    int solvers[2], nsolvers;          /* 1 bicgstab, 0 cgne, in the order given */
    enum solver_prec precs[3];
    int nprecs;
    const char *tsv;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--lattice LXxLYxLZxLT] [--iters N] [--kappa K] [--csw C] [--links 12|8|18]\n"
               "       [--solvers bicgstab,cgne] [--precisions double,single,half] [--tsv FILE] [--cpu]\n");
}

static double num(const char *opt, const char *v, double lo, double hi)
{
    char *end;
    const double x = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || !(x >= lo && x <= hi)) lat_die(2, NULL, "%s: '%s' is not a number in [%g, %g]", opt, v ? v : "", lo, hi);
    return x;
}

static void parse(struct opts *o, int argc, char **argv)
{
    *o = (struct opts){{32, 32, 32, 64}, 200, 12, 0, 0.1340, 1.769, {1, 0}, 2, {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF}, 3, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) usage(stdout), exit(0);
        if (strcmp(a, "--cpu") == 0) {
            o->cpu = 1;
            continue;
        }
        if (!v) lat_die(2, NULL, "%s: an option with a value expected (--help)", a);
        i++;
        if (strcmp(a, "--lattice") == 0) {
            struct lattice lat;
            const char *why;
            if (cli_parse_extents(v, o->L)) lat_die(2, NULL, "--lattice: '%s' is not LXxLYxLZxLT", v);
            if (lattice_init(&lat, o->L, &why)) lat_die(2, NULL, "--lattice %s: %s", v, why);
        } else if (strcmp(a, "--iters") == 0) o->iters = (int)num(a, v, 1, 1e6);
        else if (strcmp(a, "--kappa") == 0) o->kappa = num(a, v, 1e-6, 1);
        else if (strcmp(a, "--csw") == 0) o->csw = num(a, v, 0, 10);
        else if (strcmp(a, "--links") == 0) {
            o->links = (int)num(a, v, 8, 18);
            if (o->links != 8 && o->links != 12 && o->links != 18) lat_die(2, NULL, "--links: %s (12, 8 or 18 expected)", v);
        } else if (strcmp(a, "--tsv") == 0) o->tsv = v;
        else if (strcmp(a, "--solvers") == 0 || strcmp(a, "--precisions") == 0) {
            const int solvers = a[2] == 's';
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            int n = 0, seen = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int k = -1;
                if (solvers) k = strcmp(t, "bicgstab") == 0 ? 1 : strcmp(t, "cgne") == 0 ? 0 : -1;
                else k = strcmp(t, "double") == 0 ? 0 : strcmp(t, "single") == 0 ? 1 : strcmp(t, "half") == 0 ? 2 : -1;
                if (k < 0) lat_die(2, NULL, "%s: '%s' is not one of %s", a, t, solvers ? "bicgstab, cgne" : "double, single, half");
                if (seen & 1 << k) lat_die(2, NULL, "%s: '%s' named twice", a, t);
                seen |= 1 << k;
                if (solvers) o->solvers[n++] = k;
                else o->precs[n++] = (enum solver_prec)k;
            }
            if (n == 0) lat_die(2, NULL, "%s: an empty list", a);
            if (solvers) o->nsolvers = n;
            else o->nprecs = n;
        } else lat_die(2, NULL, "unknown option %s (--help)", a);
    }
}

/* ---- the links and the right-hand side -------------------------------------- */
static void make_links(struct field *u, const struct lattice *lat, const struct hb_backend *hb)
{
    field_alloc(u, lat, 3, 64);
    field_set_random(u, FIELD_SEED);
    struct hb_state *st = hb->create(u, 'd');
    for (uint32_t k = 0; k < HB_SWEEPS; k++) hb->heatbath(st, HB_BETA, FIELD_SEED, k);
    hb->download(st, u);
    hb->destroy(st);
}

static double *make_rhs(size_t n)
{
    double *h = lat_malloc(n * sizeof *h);
    struct lat_rng r;
    rng_init(&r, 7, 0, 0, 0, RNG_TEST);
    for (size_t k = 0; k < n; k++) h[k] = rng_normal(&r);
    return h;
}

#ifdef LAT_HAVE_CUDA
static void sync_device(void) { gpu_sync(PROG); }
#endif

int main(int argc, char **argv)
{
    lat_progname = PROG;
    comm_init(&argc, &argv);
    struct opts o;
    parse(&o, argc, argv);
    if (comm_size() > 1) lat_die_all(2, NULL, "one process only (no mpirun)");
    struct system s = {0};
    char dev[256] = "CPU (--cpu)", why[256];
#ifdef LAT_HAVE_CUDA
    (void)bench_parse, (void)bench_median5, (void)bench_add, (void)bench_table; /* bench_gpu.h's other helpers */
    if (!o.cpu && (s.bw = bench_device(PROG, dev, (int)sizeof dev)) == 0) return 0;
#else
    if (!o.cpu) {
        printf(PROG ": built without CUDA: nothing to measure (--cpu runs the same profile on the CPU)\n");
        return 0;
    }
#endif
    struct lattice lat;
    const char *lwhy;
    if (lattice_init(&lat, o.L, &lwhy)) lat_die(2, NULL, "--lattice: %s", lwhy);
    const struct hb_backend *hb = o.cpu ? &hb_backend_cpu : hb_backend_for(BACKEND_GPU);
    if (!hb) hb = &hb_backend_cpu;
    struct field u;
    make_links(&u, &lat, hb);
    const struct plaquette pl = measure_plaquette(&u);
    struct dirac_params dp;
    dirac_params_default(&dp, o.kappa, o.csw);
    struct dirac_op *cpu = dirac_create(&u, &dp, why, sizeof why);
    if (!cpu) lat_die(1, NULL, "dirac_create: %s", why);
    const size_t nh = dirac_half_reals(cpu), sr = dirac_site_reals(cpu);
    double *host_b = make_rhs(nh);
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 1, &lay); /* one slot per timeslice, as prop_solve */
    struct solver_blas *blas = NULL;
#ifdef LAT_HAVE_CUDA
    struct dirac_gpu *g = NULL;
    if (!o.cpu) {
        g = dirac_gpu_create(cpu, &u, o.links, why, sizeof why);
        if (!g) lat_die(1, NULL, "dirac_gpu_create: %s", why);
        blas = solver_blas_gpu_open_layout(&lay);
        if (!blas) lat_die(1, NULL, "solver_blas_gpu_open_layout returned NULL");
        dirac_gpu_solver_op(&s.op, g);
        s.sync = sync_device;
        for (int q = 0; q < 3; q++) {
            double flop, bytes, paper;
            dirac_gpu_counts(g, (enum solver_prec)q, &flop, &bytes, &paper);
            s.mhat_bytes[q] = bytes * (double)dirac_gpu_nsites(g);
        }
    }
#endif
    if (o.cpu) {
        blas = solver_blas_cpu_open(&lay);
        if (!blas) lat_die(1, NULL, "out of memory for the CPU vector kernels");
        dirac_solver_op_eo(&s.op, cpu);
    }
    s.bl = blas;
    s.b = blas->alloc(blas->ctx, nh, sr, SOLVER_DOUBLE);
    s.x = blas->alloc(blas->ctx, nh, sr, SOLVER_DOUBLE);
    if (!s.b || !s.x) lat_die(1, NULL, "out of memory for the right-hand side and the solution");
#ifdef LAT_HAVE_CUDA
    if (!o.cpu) gpu_spinor_upload(s.b->data, host_b, (int64_t)(nh / sr), (int)sr);
#endif
    if (o.cpu) memcpy(s.b->data, host_b, nh * sizeof(double));
    FILE *tsv = o.tsv ? out_open(o.tsv, 0) : NULL;
    if (tsv)
        fprintf(tsv, "solver\tsloppy\toperation\tprecision\tcalls\titerations\treliable_updates\ttrue_residual\tseconds\t"
                     "calls_per_iter\tus_per_call\tms_per_iter\tshare_pct\tGB_per_s\tpct_copy\n");
    printf("%s on %s: Wilson-clover Mhat x = b on %dx%dx%dx%d (%zu odd sites), kappa %.4f, c_sw %.4f, links in %d reals%s\n"
           "links: Haar-random start, %d heatbath sweeps at beta %.1f (%s backend): plaquette %.6f; b Gaussian; "
           "%d iterations per solve (tol %g)\n",
           PROG, dev, o.L[0], o.L[1], o.L[2], o.L[3], nh / sr, o.kappa, o.csw, o.links, o.cpu ? " (GPU only)" : "",
           HB_SWEEPS, HB_BETA, hb->name, pl.all, o.iters, SOLVE_TOL);
    int failed = 0;
    for (int i = 0; i < o.nsolvers; i++)
        for (int q = 0; q < o.nprecs; q++) profile(&s, o.solvers[i], o.precs[q], o.iters, tsv, &failed);
    if (tsv) out_commit(tsv);
    blas->free(blas->ctx, s.b);
    blas->free(blas->ctx, s.x);
#ifdef LAT_HAVE_CUDA
    if (g) {
        solver_blas_gpu_close(blas);
        dirac_gpu_free(g);
    }
#endif
    if (o.cpu) solver_blas_cpu_close(blas);
    dirac_free(cpu);
    free(host_b);
    field_free(&u);
    if (failed) fprintf(stderr, PROG ": %d bookkeeping checks failed\n", failed);
    return failed ? 1 : 0;
}
