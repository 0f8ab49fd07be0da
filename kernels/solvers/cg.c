/* solvers/cg.c -- conjugate gradients for a Hermitian positive definite A
 * (only op->apply is used).  Exported: solver_cg (solvers.h).
 * Per iteration: q = A p, alpha = |r|^2 / <p, q>, x += alpha p,
 * r -= alpha q, beta = |r_new|^2 / |r|^2, p = r + beta p.
 * Mixed precision by reliable updates exactly as cgne.c: the recursion in
 * the sloppy precision, x and the true residual in double whenever |r| has
 * fallen by delta since the last update or below the tolerance, p kept. */
#include "solvers/core.h"
#include <math.h>

/* the recursion's vectors in the sloppy precision s->sloppy, started from
 * the true residual s->r: r, p = r, q; the accumulator x; returns |r|^2 */
struct cg_vecs {
    struct solver_vec *r, *p, *q, *x;
};
static double cg_start(struct solve *s, struct cg_vecs *v)
{
    const enum solver_prec sp = s->sloppy;
    void *c = s->blas->ctx;
    v->r = solve_vec(s, sp), v->p = solve_vec(s, sp), v->q = solve_vec(s, sp);
    v->x = solve_vec(s, solve_accumulator_prec(sp));
    s->blas->copy(c, v->r, s->r);
    s->blas->copy(c, v->p, v->r);
    return s->blas->norm2(c, v->r);
}

enum solver_status solver_cg(const struct solver_op *op, const struct solver_blas *blas, const double *b, double *x,
                             const struct solver_params *par, struct solver_result *res)
{
    struct solve S, *s = &S;
    if (solve_begin(s, "solver_cg", op, blas, b, x, par, res, 0)) return res->status;
    void *c = blas->ctx;
    int mixed = s->sloppy != SOLVER_DOUBLE;
    double rn = solve_true_residual(s, 0);
    if (solve_done(s, rn)) return solve_end(s, SOLVER_CONVERGED, 0);
    struct cg_vecs v;
    double rr = cg_start(s, &v), maxr = rn;
    struct solver_vec *rs = v.r, *ps = v.p, *qs = v.q, *xs = v.x;
    enum solver_status st = SOLVER_MAX_ITER;
    int k;
    for (k = 1; k <= par->max_iter; k++) {
        sloppy_apply(s, 0, qs, ps);
        double pq = blas->cdot(c, ps, qs).re;
        if (!(pq > 0) || !isfinite(pq) || !(rr > 0)) { /* not positive definite, or NaN */
            st = SOLVER_BREAKDOWN;
            break;
        }
        double alpha = rr / pq;
        blas->axpy(c, alpha, ps, xs);
        double rr_new = blas_axpy_norm2(blas, -alpha, qs, rs); /* r -= alpha q, |r|^2: one kernel where fused */
        rn = sqrt(rr_new);
        solve_iteration(s, k, rn);
        enum reliable_step rel = solve_reliable(s, k, mixed, xs, rs, &rn, &maxr);
        if (rel == RELIABLE_CONVERGED) {
            st = SOLVER_CONVERGED;
            break;
        }
        if (rel == RELIABLE_UPDATED && solve_stalled(s, k, rn)) {
            /* the sloppy operator no longer pays (core.h): a new recursion
             * one precision up from the true r (xs is zero after the update) */
            solve_vec_free(s, rs), solve_vec_free(s, ps), solve_vec_free(s, qs), solve_vec_free(s, xs);
            mixed = solve_promote(s, k, rn) != SOLVER_DOUBLE;
            rr = cg_start(s, &v);
            rs = v.r, ps = v.p, qs = v.q, xs = v.x;
            maxr = rn;
            continue;
        }
        if (rel == RELIABLE_UPDATED) {
            rr_new = blas->norm2(c, rs);
            /* the true r is not quite orthogonal to p as the recursion's
             * was: project it out (QUDA does the same) */
            solver_complex rp = blas->cdot(c, rs, ps);
            blas->caxpby(c, (solver_complex){-rp.re / rr_new, -rp.im / rr_new}, rs, (solver_complex){1, 0}, ps);
        }
        blas->xpay(c, rs, rr_new / rr, ps);
        rr = rr_new;
    }
    if (k > par->max_iter) k = par->max_iter;
    solve_accumulate(s, xs);
    return solve_end(s, st, k);
}
