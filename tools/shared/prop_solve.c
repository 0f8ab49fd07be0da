/* prop_solve.c -- one propagator column through the solver module; the
 * contract is prop_solve.h.  The Krylov solvers live in kernels/solvers
 * (written once over struct solver_op); this file only prepares the
 * system, picks the solver and precision, and checks the answer in double
 * with the full operator.  Over MPI ranks the fields are this rank's slabs
 * (dirac.h) and every norm, here and in the solvers, is a sum with one slot
 * per global timeslice (dirac_reduce_layout): the same bits for any rank
 * count. */
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
    solver_blas_gpu_close(d->blas);
    dirac_gpu_free(d->g);
#endif
    free(d);
}

#ifdef LAT_HAVE_CUDA
/* Mhat x_o = bhat_o on the GPU: bhat_o up, x_o (from zero) down */
static enum solver_status solve_on_device(struct prop_device *d, int bicgstab, const struct solver_params *sp,
                                          const double *bh, double *xh, size_t nh, size_t site_reals,
                                          struct solver_result *res)
{
    struct solver_op A;
    dirac_gpu_solver_op(&A, d->g);
    struct solver_blas *bl = d->blas;
    struct solver_vec *b = bl->alloc(bl->ctx, nh, site_reals, SOLVER_DOUBLE);
    struct solver_vec *x = bl->alloc(bl->ctx, nh, site_reals, SOLVER_DOUBLE);
    if (!b || !x) lat_die(1, NULL, "out of device memory for the solver's right-hand side and solution");
    const int64_t nsites = (int64_t)(nh / site_reals);
    gpu_spinor_upload(b->data, bh, nsites, (int)site_reals);
    enum solver_status st = bicgstab ? solver_bicgstab(&A, bl, b->data, x->data, sp, res)
                                     : solver_cgne(&A, bl, b->data, x->data, sp, res);
    gpu_spinor_download(xh, x->data, nsites, (int)site_reals);
    bl->free(bl->ctx, b);
    bl->free(bl->ctx, x);
    return st;
}
#endif

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
    const size_t nf = dirac_full_reals(op), nh = dirac_half_reals(op);
    struct solver_op A;
    const double *rhs = b;
    double *sol = x, *bh = NULL, *xh = NULL, tol = o->tol;
    if (o->eo) {
        dirac_solver_op_eo(&A, op);
        bh = lat_malloc(nh * sizeof(double));
        xh = lat_calloc(nh, sizeof(double));
        dirac_eo_prepare(op, bh, b);
        /* the full residual lives on the odd sites: |r| <= tol |b| needs tol |b| / |bhat| there */
        double nb = sqrt(norm2(op, 0, b, nf)), nbh = sqrt(norm2(op, 1, bh, nh));
        if (nbh > nb) tol *= nb / nbh;
        rhs = bh;
        sol = xh;
    } else {
        dirac_solver_op_full(&A, op);
        memset(x, 0, nf * sizeof(double));
    }
    struct solver_params sp = {.tol = tol, .max_iter = o->max_iter, .delta = 0};
    sp.sloppy = o->precision == 'm' ? (o->sloppy == 'h' ? SOLVER_HALF : SOLVER_SINGLE)
              : o->precision == 's' ? SOLVER_SINGLE : SOLVER_DOUBLE;
    struct solver_result res;
    memset(sol, 0, (o->eo ? nh : nf) * sizeof(double));
    enum solver_status st;
    const double t0 = lat_clock();
    if (dev) {
#ifdef LAT_HAVE_CUDA
        st = solve_on_device(dev, o->bicgstab, &sp, bh, xh, nh, dirac_site_reals(op), &res);
#else
        lat_die(1, NULL, "prop_solve: a device without CUDA"); /* prop_device_open never gives one */
#endif
    } else {
        struct solver_reduce_layout lay;
        dirac_reduce_layout(op, o->eo, &lay);
        struct solver_blas *blas = solver_blas_cpu_open(&lay);
        if (!blas) lat_die(1, NULL, "out of memory for the solver's vectors");
        st = o->bicgstab ? solver_bicgstab(&A, blas, rhs, sol, &sp, &res) : solver_cgne(&A, blas, rhs, sol, &sp, &res);
        solver_blas_cpu_close(blas);
    }
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
