/* solvers/cgne.c -- CG on the normal equations, CGNR form.
 * Exported: solver_cgne (solvers.h).
 *
 * CG on A^dag A x = A^dag b, carrying the residual r = b - A x of the
 * original system (not A^dag r): the tolerance and the reported residual
 * are those of A x = b, and CGNR minimises |b - A x| over the Krylov space.
 * Per iteration: w = A p, alpha = |z|^2 / |w|^2, x += alpha p,
 * r -= alpha w, z = A^dag r, beta = |z_new|^2 / |z|^2, p = z + beta p.
 *
 * Mixed precision by reliable updates (solvers.h): x, r and z of the
 * recursion live in the sloppy precision (the sloppy solution xs in
 * single when the sloppy precision is half); when |r| has fallen below
 * delta times its value at the last update, or below the tolerance, x +=
 * xs and r = b - A x are computed in double, the recursion's r restarts
 * from it (z recomputed), p is kept.  In double the same code runs with
 * updates only at the tolerance (the true residual decides convergence).
 * A mixed recursion whose updates stop lowering the true residual
 * (solve_stalled, core.h) starts again from the true r one precision up
 * (half -> single -> double; res->promotions). */
#include "solvers/core.h"
#include <math.h>

/* the recursion's vectors in the sloppy precision s->sloppy, started from
 * the true residual s->r: r, z = A^dag r, p = z; returns |z|^2 */
struct cgne_vecs {
    struct solver_vec *r, *z, *p, *w, *x;
};
static double cgne_start(struct solve *s, struct cgne_vecs *v)
{
    const enum solver_prec sp = s->sloppy;
    void *c = s->blas->ctx;
    v->r = solve_vec(s, sp), v->z = solve_vec(s, sp), v->p = solve_vec(s, sp), v->w = solve_vec(s, sp);
    v->x = solve_vec(s, solve_accumulator_prec(sp));
    s->blas->copy(c, v->r, s->r);
    sloppy_apply(s, 1, v->z, v->r);
    s->blas->copy(c, v->p, v->z);
    return s->blas->norm2(c, v->z);
}

enum solver_status solver_cgne(const struct solver_op *op, const struct solver_blas *blas, const double *b, double *x,
                               const struct solver_params *par, struct solver_result *res)
{
    struct solve S, *s = &S;
    if (solve_begin(s, "solver_cgne", op, blas, b, x, par, res, 1)) return res->status;
    void *c = blas->ctx;
    int mixed = s->sloppy != SOLVER_DOUBLE;
    double rn = solve_true_residual(s, 0);
    if (solve_done(s, rn)) return solve_end(s, SOLVER_CONVERGED, 0);
    struct cgne_vecs v;
    double zz = cgne_start(s, &v), maxr = rn;
    struct solver_vec *rs = v.r, *zs = v.z, *ps = v.p, *ws = v.w, *xs = v.x;
    enum solver_status st = SOLVER_MAX_ITER;
    int k;
    for (k = 1; k <= par->max_iter; k++) {
        sloppy_apply(s, 0, ws, ps);
        double ww = blas->norm2(c, ws);
        if (!(ww > 0) || !isfinite(ww) || !(zz > 0)) {
            st = SOLVER_BREAKDOWN;
            break;
        }
        double alpha = zz / ww;
        blas->axpy(c, alpha, ps, xs);
        blas->axpy(c, -alpha, ws, rs);
        rn = sqrt(blas->norm2(c, rs));
        solve_iteration(s, k, rn);
        enum reliable_step rel = solve_reliable(s, k, mixed, xs, rs, &rn, &maxr);
        if (rel == RELIABLE_CONVERGED) {
            st = SOLVER_CONVERGED;
            break;
        }
        if (rel == RELIABLE_UPDATED && solve_stalled(s, k, rn)) {
            /* the sloppy operator no longer brings the true residual down
             * (core.h): a new recursion one precision up from the true r
             * (xs is zero after the update) */
            solve_vec_free(s, rs), solve_vec_free(s, zs), solve_vec_free(s, ps), solve_vec_free(s, ws), solve_vec_free(s, xs);
            mixed = solve_promote(s, k, rn) != SOLVER_DOUBLE;
            zz = cgne_start(s, &v);
            rs = v.r, zs = v.z, ps = v.p, ws = v.w, xs = v.x;
            maxr = rn;
            continue;
        }
        if (rel == RELIABLE_UPDATED) {
            sloppy_apply(s, 1, zs, rs);
            double zn = blas->norm2(c, zs);
            /* z = A^dag r of the true r is not quite orthogonal to p as the
             * recursion's was: project it out (QUDA's CG does the same) */
            solver_complex zp = blas->cdot(c, zs, ps);
            blas->caxpby(c, (solver_complex){-zp.re / zn, -zp.im / zn}, zs, (solver_complex){1, 0}, ps);
        } else
            sloppy_apply(s, 1, zs, rs);
        double zz_new = blas->norm2(c, zs);
        blas->xpay(c, zs, zz_new / zz, ps);
        zz = zz_new;
    }
    if (k > par->max_iter) k = par->max_iter;
    solve_accumulate(s, xs);
    return solve_end(s, st, k);
}
