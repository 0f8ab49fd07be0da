/* prop_solve.c -- one propagator column through the solver module; the
 * contract is prop_solve.h.  The Krylov solvers live in kernels/solvers
 * (written once over struct solver_op); this file only prepares the
 * system, picks the solver and precision, and checks the answer in double
 * with the full operator (with a device all of it on the GPU:
 * dirac/gpu.h's prepare, reconstruct and residual).  Over MPI ranks the
 * fields are this rank's slabs (dirac.h) and every norm, here and in the
 * solvers, is a sum with one slot per global timeslice
 * (dirac_reduce_layout): the same bits for any rank count. */
#include "shared/prop_solve.h"
#include "base/clock.h"
#include "base/log.h"
#include "solvers/solvers.h"
#ifdef LAT_HAVE_CUDA
#include "dirac/gpu.h"
#include "solvers/blas_gpu.h"
#include "gpu/spinor.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* |v|^2 over all ranks of a full (half 0) or half field */
static double norm2(struct dirac_op *op, int half, const double *v, size_t n)
{
    struct solver_reduce_layout l;
    dirac_reduce_layout(op, half, &l);
    struct solver_blas *blas = solver_blas_cpu_open(&l);
    if (!blas) lat_die(1, NULL, "out of memory for a norm");
    const struct solver_vec x = {SOLVER_DOUBLE, n, dirac_site_reals(op), (void *)v, NULL};
    double s = blas->norm2(blas->ctx, &x);
    solver_blas_cpu_close(blas);
    return s;
}

int prop_solve_check(struct prop_solve_opts *o)
{
    o->why[0] = 0;
    if (o->precision == 's' && o->tol < 1e-6) {
        snprintf(o->why, sizeof o->why, "--precision single cannot reach --tol %g (at best about 1e-6; use mixed)", o->tol);
        return -1;
    }
    if (o->gpu && !o->eo) {
        snprintf(o->why, sizeof o->why, "--no-eo runs on the CPU only (the GPU solves the even-odd system)");
        return -1;
    }
    return 0;
}

struct prop_device {
#ifdef LAT_HAVE_CUDA
    struct dirac_gpu *g;
    struct solver_blas *blas;
    /* kept from column to column (made at the first): the source's two
     * halves, the prepared source and the solution on the device, and the
     * host's half field and device-layout buffer (fresh 200 MB buffers a
     * column at 32^3x64 cost their page faults every time) */
    struct solver_vec *v[4];
    double *half, *work;
    /* prop_solve_block: the block layout's vector kernels and the blocks
     * of the sources, prepared source and solution (made at the first call) */
    struct solver_blas *bblas;
    struct solver_vec *bv[4];
    int bcols;
#endif
    int unused;
};

struct prop_device *prop_device_open(struct dirac_op *op, const struct field *u, int recon, char *why, size_t len)
{
#ifdef LAT_HAVE_CUDA
    struct dirac_gpu *g = dirac_gpu_create(op, u, recon, why, len);
    if (!g) return NULL;
    /* one reduction slot per global timeslice, as on the CPU: the same bits
     * on any number of ranks (one process included) */
    struct solver_reduce_layout lay;
    dirac_reduce_layout(op, 1, &lay);
    struct solver_blas *blas = solver_blas_gpu_open_layout(&lay);
    if (!blas) {
        dirac_gpu_free(g);
        snprintf(why, len, "no GPU vector kernels for the solvers");
        return NULL;
    }
    struct prop_device *d = lat_calloc(1, sizeof *d);
    d->g = g;
    d->blas = blas;
    return d;
#else
    (void)op, (void)u, (void)recon;
    snprintf(why, len, "this lat was built without CUDA");
    return NULL;
#endif
}

void prop_device_close(struct prop_device *d)
{
    if (!d) return;
#ifdef LAT_HAVE_CUDA
    for (int k = 0; k < 4; k++)
        if (d->v[k]) d->blas->free(d->blas->ctx, d->v[k]);
    for (int k = 0; k < 4; k++)
        if (d->bv[k]) d->bblas->free(d->bblas->ctx, d->bv[k]);
    if (d->bblas) solver_blas_gpu_close(d->bblas);
    free(d->half);
    free(d->work);
    solver_blas_gpu_close(d->blas);
    dirac_gpu_free(d->g);
#endif
    free(d);
}

/* the even-odd system's tolerance from |b| (full) and |bhat_o|: the full
 * residual lives on the odd sites, so |r| <= tol |b| needs tol |b| / |bhat|
 * there */
static void eo_tolerance(struct solver_params *sp, double nb, double nbh)
{
    if (nbh > nb) sp->tol *= nb / nbh;
}

/* the Krylov solver the options name, on A x = b (x holds the initial guess) */
static enum solver_status krylov(const struct prop_solve_opts *o, const struct solver_op *A, const struct solver_blas *bl,
                                 const double *b, double *x, const struct solver_params *sp, struct solver_result *res)
{
    return o->bicgstab ? solver_bicgstab(A, bl, b, x, sp, res) : solver_cgne(A, bl, b, x, sp, res);
}

#ifdef LAT_HAVE_CUDA
/* what the half sweeps read: a half sloppy operator over 16-bit links is a
 * fixed perturbation of Mhat (~3e-5) that CG on the normal equations, whose
 * condition number is Mhat's squared, does not converge through near
 * kappa_c; BiCGstab does (dirac/gpu.h, dirac_gpu_set_half_links) */
static void device_half_links(struct prop_device *d, const struct prop_solve_opts *o)
{
    dirac_gpu_set_half_links(d->g, o->bicgstab ? 16 : 32);
}

/* one column up: b's two halves (a full field) into be, bo through the
 * host's staging buffers (made at the first call), bhat_o = prepare(b) into
 * bh; *nb = |b|, *nbh = |bhat_o| by the one-column vector kernels */
static void column_up(struct prop_device *d, struct dirac_op *op, const double *b, struct solver_vec *be,
                      struct solver_vec *bo, struct solver_vec *bh, double *nb, double *nbh)
{
    const size_t nh = dirac_half_reals(op), sr = dirac_site_reals(op);
    const int64_t nsites = (int64_t)(nh / sr);
    if (!d->half) d->half = lat_malloc(nh * sizeof(double));
    if (!d->work) d->work = lat_malloc(gpu_spinor_storage(nsites, (int)sr) * sizeof(double));
    dirac_full_to_half(op, 0, d->half, b);
    gpu_spinor_upload_work(be->data, d->half, nsites, (int)sr, d->work);
    dirac_full_to_half(op, 1, d->half, b);
    gpu_spinor_upload_work(bo->data, d->half, nsites, (int)sr, d->work);
    dirac_gpu_eo_prepare(d->g, bh, be, bo);
    struct solver_blas *bl = d->blas;
    *nb = sqrt(bl->norm2(bl->ctx, be) + bl->norm2(bl->ctx, bo));
    *nbh = sqrt(bl->norm2(bl->ctx, bh));
}

/* one column down: x_e = reconstruct(x_o, b_e) into xe, the true residual
 * |b - M x| / |b| (returned), x's two halves into the full field x */
static double column_down(struct prop_device *d, struct dirac_op *op, struct solver_vec *xe, struct solver_vec *xo,
                          const struct solver_vec *be, const struct solver_vec *bo, double *x)
{
    const size_t nh = dirac_half_reals(op), sr = dirac_site_reals(op);
    const int64_t nsites = (int64_t)(nh / sr);
    dirac_gpu_eo_reconstruct(d->g, xe, xo, be);
    double r2, b2;
    dirac_gpu_residual_norm2(d->g, d->blas, xe, xo, be, bo, &r2, &b2);
    gpu_spinor_download_work(d->half, xe->data, nsites, (int)sr, d->work);
    dirac_half_to_full(op, 0, x, d->half);
    gpu_spinor_download_work(d->half, xo->data, nsites, (int)sr, d->work);
    dirac_half_to_full(op, 1, x, d->half);
    return sqrt(r2 / b2);
}
#endif

#ifdef LAT_HAVE_CUDA
/* the whole even-odd column on the GPU in double: b's two halves up once,
 * bhat_o = prepare(b), Mhat x_o = bhat_o (timed: *solve_seconds), x_e =
 * reconstruct(x_o, b_e), the true residual |b - M x| / |b| with the full
 * operator, x's two halves down once.  The norms are the device vector
 * kernels' (one slot per global timeslice): the same bits for any rank
 * count. */
static enum solver_status solve_on_device(struct prop_device *d, struct dirac_op *op, const struct prop_solve_opts *o,
                                          struct solver_params *sp, const double *b, double *x,
                                          struct solver_result *res, double *solve_seconds, double *true_res)
{
    struct solver_op A;
    dirac_gpu_solver_op(&A, d->g);
    device_half_links(d, o);
    struct solver_blas *bl = d->blas;
    const size_t nh = dirac_half_reals(op), sr = dirac_site_reals(op);
    struct solver_vec **v = d->v;
    for (int k = 0; k < 4; k++)
        if (!v[k] && !(v[k] = bl->alloc(bl->ctx, nh, sr, SOLVER_DOUBLE)))
            lat_die(1, NULL, "out of device memory for the source, the prepared source and the solution");
    struct solver_vec *be = v[0], *bo = v[1], *bh = v[2], *xo = v[3], *xe = bh; /* x_e once bhat_o is spent */
    const double t_up = lat_clock();
    double nb, nbh;
    column_up(d, op, b, be, bo, bh, &nb, &nbh);
    eo_tolerance(sp, nb, nbh);
    bl->zero(bl->ctx, xo); /* the initial guess (the vector holds the last column's solution) */
    const double t0 = lat_clock();
    enum solver_status st = krylov(o, &A, bl, bh->data, xo->data, sp, res);
    const double t_end = lat_clock();
    *solve_seconds = t_end - t0;
    *true_res = column_down(d, op, xe, xo, be, bo, x);
    /* where a column's time goes besides the Krylov solve (-v) */
    lat_debug("GPU column: %.3f s up and prepared, %.3f s solve, %.3f s reconstruction, true residual and back", t0 - t_up,
              t_end - t0, lat_clock() - t_end);
    return st;
}
#endif

#ifdef LAT_HAVE_CUDA
/* the stacked solve's accept test (solvers.h): every column's residual
 * (the block residual's column views, the one-column vector kernels) within
 * its own target; else the next stacked target, |r| / f with f the worst
 * column's excess, 10 % lower still, never below the smallest column
 * target (there every column meets its own) */
struct block_accept {
    struct prop_device *d;
    int ncols, refusals;
    const double *target; /* per column, |r_c| to reach */
    double safe, worst;   /* the smallest target; the last worst |r_c| / target_c */
};
static int block_accept(void *ctx, const struct solver_vec *r, double rn, double *next)
{
    struct block_accept *a = ctx;
    double f = 0;
    for (int c = 0; c < a->ncols; c++) {
        struct solver_vec rc;
        dirac_gpu_block_column(a->d->g, r, c, &rc);
        f = fmax(f, sqrt(a->d->blas->norm2(a->d->blas->ctx, &rc)) / a->target[c]);
    }
    a->worst = f;
    if (f <= 1) return 1;
    a->refusals++;
    *next = fmax(a->safe, 0.9 * rn / f);
    return 0;
}

/* prop_solve_block on the device: the ncols columns' halves up, each
 * prepared (dirac_gpu_eo_prepare on the block's column views), the block
 * system solved in one recursion (dirac_gpu_block_solver_op, the vector
 * kernels of a layout of ncols parts: each column's timeslices its own
 * slots), then each column reconstructed, checked and brought down as
 * solve_on_device does it.  Column c's target: |r_c| <= tol_c |bhat_c|,
 * tol_c its even-odd tolerance (eo_tolerance); the recursion's stacked
 * target starts at the root of their squares' sum and block_accept lowers
 * it until every column meets its own (the smallest column target, where
 * |r_c| <= |r| ensures it, would over-solve by sqrt(ncols): half a decade
 * for 12). */
static enum solver_status solve_block_on_device(struct prop_device *d, struct dirac_op *op, const struct prop_solve_opts *o,
                                                struct solver_params *sp, int ncols, prop_source_fn source, void *sctx,
                                                double *const *x, struct solver_result *res, double *solve_seconds,
                                                double *true_res)
{
    struct solver_op A;
    if (dirac_gpu_block_solver_op(&A, d->g, ncols) != 0)
        lat_die(1, NULL, "internal error: no block operator here (prop_solve_block_possible said yes)");
    device_half_links(d, o);
    const size_t nh = dirac_half_reals(op), sr = dirac_site_reals(op);
    if (d->bcols != ncols) {
        for (int k = 0; k < 4; k++)
            if (d->bv[k]) d->bblas->free(d->bblas->ctx, d->bv[k]), d->bv[k] = NULL;
        if (d->bblas) solver_blas_gpu_close(d->bblas);
        struct solver_reduce_layout lay;
        dirac_reduce_layout(op, 1, &lay);
        lay.parts = (size_t)ncols;
        if (!(d->bblas = solver_blas_gpu_open_layout(&lay))) lat_die(1, NULL, "no GPU vector kernels for a block of columns");
        for (int k = 0; k < 4; k++)
            if (!(d->bv[k] = d->bblas->alloc(d->bblas->ctx, (size_t)ncols * nh, sr, SOLVER_DOUBLE)))
                lat_die(1, NULL, "out of device memory for the blocks of %d columns (use the columns one by one)", ncols);
        d->bcols = ncols;
    }
    struct solver_blas *bb = d->bblas;
    struct solver_vec *be = d->bv[0], *bo = d->bv[1], *bh = d->bv[2], *xo = d->bv[3];
    double nbh2 = 0, t2 = 0;
    double *b = lat_malloc(dirac_full_reals(op) * sizeof *b); /* one column's source at a time */
    double *target = lat_malloc((size_t)ncols * sizeof *target);
    struct block_accept acc = {d, ncols, 0, target, INFINITY, 0};
    for (int c = 0; c < ncols; c++) {
        struct solver_vec ce, co, ch;
        dirac_gpu_block_column(d->g, be, c, &ce);
        dirac_gpu_block_column(d->g, bo, c, &co);
        dirac_gpu_block_column(d->g, bh, c, &ch);
        source(sctx, c, b);
        double nb, nbh;
        column_up(d, op, b, &ce, &co, &ch, &nb, &nbh);
        struct solver_params one = {.tol = o->tol};
        eo_tolerance(&one, nb, nbh);
        target[c] = one.tol * nbh;
        acc.safe = fmin(acc.safe, target[c]);
        t2 += target[c] * target[c];
        nbh2 += nbh * nbh;
    }
    free(b);
    /* first the loosest stacked target that every column could meet (the
     * columns' targets in quadrature: equal shares), then the accept test */
    sp->tol = nbh2 > 0 ? sqrt(t2 / nbh2) : o->tol;
    sp->accept = block_accept;
    sp->accept_ctx = &acc;
    bb->zero(bb->ctx, xo);
    const double t0 = lat_clock();
    enum solver_status st = krylov(o, &A, bb, bh->data, xo->data, sp, res);
    *solve_seconds = lat_clock() - t0;
    lat_debug("%d columns together: %d iterations, the stacked target lowered %d times, worst column at %.3f of its "
              "target", ncols, res->iterations, acc.refusals, acc.worst);
    free(target);
    for (int c = 0; c < ncols; c++) {
        struct solver_vec ce, co, ch, cx;
        dirac_gpu_block_column(d->g, be, c, &ce);
        dirac_gpu_block_column(d->g, bo, c, &co);
        dirac_gpu_block_column(d->g, bh, c, &ch); /* x_e once bhat_o is spent */
        dirac_gpu_block_column(d->g, xo, c, &cx);
        true_res[c] = column_down(d, op, &ch, &cx, &ce, &co, x[c]);
    }
    return st;
}
#endif

int prop_solve_block_possible(struct prop_device *dev, int ncols, char *why, size_t len)
{
#ifdef LAT_HAVE_CUDA
    struct solver_op A;
    if (dev && ncols > 1 && dirac_gpu_block_solver_op(&A, dev->g, ncols) == 0) return 1;
    snprintf(why, len, "%s", !dev ? "the columns are solved together on the GPU only"
                             : "the columns are solved together on one GPU of one process, with V/2 a multiple of 32");
#else
    (void)dev, (void)ncols;
    snprintf(why, len, "this lat was built without CUDA");
#endif
    return 0;
}

void prop_solve_block(struct dirac_op *op, struct prop_device *dev, const struct prop_solve_opts *o, int ncols,
                      prop_source_fn source, void *sctx, double *const *x, struct prop_solve_result *r)
{
    char why[160];
    if (!prop_solve_block_possible(dev, ncols, why, sizeof why)) lat_die(1, NULL, "internal error: prop_solve_block: %s", why);
#ifdef LAT_HAVE_CUDA
    struct solver_params sp = {.tol = o->tol, .max_iter = o->max_iter, .delta = o->delta, .history = o->history,
                               .history_ctx = o->history_ctx};
    sp.sloppy = o->precision == 'm' ? (o->sloppy == 'h' ? SOLVER_HALF : SOLVER_SINGLE)
              : o->precision == 's' ? SOLVER_SINGLE : SOLVER_DOUBLE;
    struct solver_result res;
    double secs, *tr = lat_malloc((size_t)ncols * sizeof *tr);
    enum solver_status st = solve_block_on_device(dev, op, o, &sp, ncols, source, sctx, x, &res, &secs, tr);
    for (int c = 0; c < ncols; c++) {
        r[c].iterations = res.iterations;
        r[c].true_residual = tr[c];
        r[c].converged = st == SOLVER_CONVERGED && tr[c] <= o->tol;
        r[c].solver_seconds = secs / ncols;
    }
    free(tr);
#else
    (void)op, (void)o, (void)source, (void)sctx, (void)x, (void)r;
#endif
}

/* the relative true residual |b - M x| / |b| in double */
static double true_residual(struct dirac_op *op, const double *b, const double *x, size_t n)
{
    double *r = lat_malloc(n * sizeof(double));
    dirac_apply(op, r, x);
    for (size_t i = 0; i < n; i++) r[i] = b[i] - r[i];
    double res = sqrt(norm2(op, 0, r, n) / norm2(op, 0, b, n));
    free(r);
    return res;
}

void prop_solve(struct dirac_op *op, struct prop_device *dev, const struct prop_solve_opts *o, const double *b, double *x,
                struct prop_solve_result *r)
{
    struct solver_params sp = {.tol = o->tol, .max_iter = o->max_iter, .delta = o->delta, .history = o->history,
                               .history_ctx = o->history_ctx};
    sp.sloppy = o->precision == 'm' ? (o->sloppy == 'h' ? SOLVER_HALF : SOLVER_SINGLE)
              : o->precision == 's' ? SOLVER_SINGLE : SOLVER_DOUBLE;
    struct solver_result res;
    if (dev) {
#ifdef LAT_HAVE_CUDA
        enum solver_status st = solve_on_device(dev, op, o, &sp, b, x, &res, &r->solver_seconds, &r->true_residual);
        r->iterations = res.iterations;
        r->converged = st == SOLVER_CONVERGED && r->true_residual <= o->tol;
        return;
#else
        lat_die(1, NULL, "prop_solve: a device without CUDA"); /* prop_device_open never gives one */
#endif
    }
    const size_t nf = dirac_full_reals(op), nh = dirac_half_reals(op);
    struct solver_op A;
    const double *rhs = b;
    double *sol = x, *bh = NULL, *xh = NULL;
    if (o->eo) {
        dirac_solver_op_eo(&A, op);
        bh = lat_malloc(nh * sizeof(double));
        xh = lat_calloc(nh, sizeof(double));
        dirac_eo_prepare(op, bh, b);
        eo_tolerance(&sp, sqrt(norm2(op, 0, b, nf)), sqrt(norm2(op, 1, bh, nh)));
        rhs = bh;
        sol = xh;
    } else {
        dirac_solver_op_full(&A, op);
        memset(x, 0, nf * sizeof(double));
    }
    memset(sol, 0, (o->eo ? nh : nf) * sizeof(double));
    const double t0 = lat_clock();
    struct solver_reduce_layout lay;
    dirac_reduce_layout(op, o->eo, &lay);
    struct solver_blas *blas = solver_blas_cpu_open(&lay);
    if (!blas) lat_die(1, NULL, "out of memory for the solver's vectors");
    enum solver_status st = krylov(o, &A, blas, rhs, sol, &sp, &res);
    solver_blas_cpu_close(blas);
    r->solver_seconds = lat_clock() - t0;
    int iters = res.iterations, ok = st == SOLVER_CONVERGED;
    if (o->eo) {
        dirac_eo_reconstruct(op, x, xh, b);
        free(bh);
        free(xh);
    }
    r->iterations = iters;
    r->true_residual = true_residual(op, b, x, nf);
    r->converged = ok && r->true_residual <= o->tol;
}
