/* solvers/core.c -- the start and end of a solve, the true residual and
 * the sloppy operator, shared by every solver (contracts in core.h). */
#include "solvers/core.h"
#include "solvers/bicgstab_step.h" /* solve_reliable_due */
#include "base/log.h"
#include <math.h>
#include <string.h>

const char *solver_prec_name(enum solver_prec p)
{
    return p == SOLVER_DOUBLE ? "double" : p == SOLVER_SINGLE ? "single" : p == SOLVER_HALF ? "half" : "?";
}

const char *solver_status_name(enum solver_status st)
{
    return st == SOLVER_CONVERGED ? "converged" : st == SOLVER_MAX_ITER ? "iteration limit" : "breakdown";
}

enum solver_prec solve_accumulator_prec(enum solver_prec sloppy)
{
    return sloppy == SOLVER_HALF ? SOLVER_SINGLE : sloppy;
}

struct solver_vec *solve_vec(struct solve *s, enum solver_prec prec)
{
    if (s->nvecs == SOLVE_MAX_VECS) lat_die(1, s->who, "more than %d work vectors", SOLVE_MAX_VECS);
    struct solver_vec *v = s->blas->alloc(s->blas->ctx, s->op->n, s->op->site_reals, prec);
    if (!v) lat_die(1, s->who, "out of memory for a work vector of %zu reals (%s)", s->op->n, solver_prec_name(prec));
    s->vecs[s->nvecs++] = v;
    return v;
}

void op_apply(const struct solver_op *op, int dag, struct solver_vec *out, const struct solver_vec *in)
{
    (dag ? op->apply_dag : op->apply)(op->ctx, (double *)out->data, (const double *)in->data);
}

void sloppy_apply(struct solve *s, int dag, struct solver_vec *out, const struct solver_vec *in)
{
    const struct solver_op *op = s->op;
    void (*f)(void *, float *, const float *) = dag ? op->apply_dag_f : op->apply_f;
    if (op->apply_vec) { /* the backend applies every precision itself */
        op->apply_vec(op->ctx, dag, out, in);
    } else if (in->prec == SOLVER_DOUBLE) {
        op_apply(op, dag, out, in);
    } else if (in->prec == SOLVER_SINGLE && f) {
        f(op->ctx, (float *)out->data, (const float *)in->data);
    } else { /* half, or single without a single operator: through s->sl_in/out */
        s->blas->copy(s->blas->ctx, s->sl_in, in);
        if (s->sl_in->prec == SOLVER_SINGLE)
            f(op->ctx, (float *)s->sl_out->data, (const float *)s->sl_in->data);
        else
            op_apply(op, dag, s->sl_out, s->sl_in);
        s->blas->copy(s->blas->ctx, out, s->sl_out);
    }
}

static void report(struct solve *s, int iteration, int reliable, double rnorm)
{
    if (!s->par->history) return;
    struct solver_step st = {iteration, 0, reliable, s->bnorm > 0 ? rnorm / s->bnorm : 0};
    s->par->history(s->par->history_ctx, &st);
}

void solve_iteration(struct solve *s, int iteration, double rnorm)
{
    report(s, iteration, 0, rnorm);
}

double solve_true_residual(struct solve *s, int iteration)
{
    const struct solver_blas *bl = s->blas;
    op_apply(s->op, 0, s->tmp, &s->x);
    bl->copy(bl->ctx, s->r, &s->b);
    bl->axpy(bl->ctx, -1, s->tmp, s->r);
    double rn = sqrt(bl->norm2(bl->ctx, s->r));
    s->res->reliable_updates++;
    report(s, iteration, 1, rn);
    return rn;
}

void solve_accumulate(struct solve *s, struct solver_vec *xs)
{
    /* after a breakdown xs may hold NaN: x keeps its last good value */
    if (isfinite(s->blas->norm2(s->blas->ctx, xs))) s->blas->axpy(s->blas->ctx, 1, xs, &s->x);
    s->blas->zero(s->blas->ctx, xs);
}

int solve_done(struct solve *s, double rn)
{
    if (!(rn <= s->target)) return 0;
    if (!s->par->accept) return 1;
    double t = s->target;
    if (s->par->accept(s->par->accept_ctx, s->r, rn, &t)) return 1;
    if (!(t < rn) || !(t > 0)) lat_die(1, s->who, "internal error: the accept test asked for |r| %g next, at |r| %g", t, rn);
    s->target = t;
    return 0;
}

enum reliable_step solve_reliable(struct solve *s, int iteration, int mixed, struct solver_vec *xs, struct solver_vec *rs,
                                  double *rn, double *maxr)
{
    /* after a plateau cycle the true residual is looked at as soon as the
     * recursion claims a clear gain over the best one (on a plateau that
     * gain is missing, and waiting for delta would cost a whole cycle), or
     * once this cycle is as long as that one (a recursion restarted from a
     * residual it cannot explain may crawl for thousands of iterations) */
    const int check_early = mixed && s->stall_plateau > 0 &&
                            (*rn * (SOLVE_PLATEAU_GAIN * SOLVE_PLATEAU_GAIN) <= s->stall_best ||
                             iteration - s->stall_iter >= s->stall_length);
    if (!(solve_reliable_due(*rn, maxr, s->target, s->delta, mixed) || check_early)) return RELIABLE_NONE; /* maxr takes rn in */
    s->stall_claimed = *rn;
    solve_accumulate(s, xs);
    *rn = solve_true_residual(s, iteration);
    if (solve_done(s, *rn)) return RELIABLE_CONVERGED;
    s->blas->copy(s->blas->ctx, rs, s->r);
    *maxr = *rn;
    return RELIABLE_UPDATED;
}

int solve_stalled(struct solve *s, int iteration, double rn)
{
    if (s->stall_last == 0) /* the start: x = 0 has |r| = |b| */
        s->stall_last = s->stall_best = s->bnorm, s->stall_iter = 0;
    /* growth: each decade of the true residual dearer than the last */
    const double decades = log10(s->stall_last / rn);
    const double cost = decades > 0.05 ? (iteration - s->stall_iter) / decades : INFINITY;
    if (s->stall_cost > 0 && cost >= SOLVE_STALL_GROWTH * s->stall_cost)
        s->stall_count++;
    else
        s->stall_count = 0;
    s->stall_last = rn;
    s->stall_length = iteration - s->stall_iter;
    s->stall_iter = iteration;
    s->stall_cost = cost;
    /* plateau: the recursion claimed a fall (to stall_claimed) of which
     * the true residual shows less than half (in decades): it is
     * SOLVE_PLATEAU_GAIN or more above the recursion's and further above
     * it than below the best true residual so far -- the sloppy
     * operator's corrections no longer correct.  A healthy recursion
     * agrees with the true residual within a few per cent, so a cycle
     * where CG's residual rose and fell back, or one ended by the
     * tolerance just short of it, never starts a plateau.  The early
     * check after such a cycle (solve_reliable) confirms it when the true
     * residual is still not SOLVE_PLATEAU_GAIN below the best: the
     * recursion may have crawled meanwhile (then it claimed nothing). */
    const double gain = s->stall_best / rn, lie = rn / s->stall_claimed;
    const int plateau = s->sloppy != SOLVER_DOUBLE &&
                        (s->stall_plateau > 0 ? gain < SOLVE_PLATEAU_GAIN : lie >= SOLVE_PLATEAU_GAIN && gain < lie);
    s->stall_plateau = plateau ? s->stall_plateau + 1 : 0;
    if (rn < s->stall_best) s->stall_best = rn;
    return s->stall_count >= SOLVE_STALL_CYCLES || s->stall_plateau >= SOLVE_PLATEAU_CYCLES;
}

enum solver_prec solve_promote(struct solve *s, int iteration, double rn)
{
    const enum solver_prec from = s->sloppy;
    s->sloppy = from == SOLVER_HALF ? SOLVER_SINGLE : SOLVER_DOUBLE;
    if (s->res->promotions++ == 0) s->res->promoted_at = iteration;
    s->stall_last = s->stall_best = rn; /* the new recursion's cycles are measured from here */
    s->stall_iter = iteration;
    s->stall_cost = 0;
    s->stall_count = 0;
    s->stall_plateau = 0;
    lat_debug("%s: the %s recursion stalled at the true relative residual %.3e (iteration %d): going on in %s", s->who,
              solver_prec_name(from), rn / s->bnorm, iteration, solver_prec_name(s->sloppy));
    return s->sloppy;
}

void solve_vec_free(struct solve *s, struct solver_vec *v)
{
    for (int i = 0; i < s->nvecs; i++)
        if (s->vecs[i] == v) {
            s->blas->free(s->blas->ctx, v);
            s->vecs[i] = s->vecs[--s->nvecs];
            return;
        }
    lat_die(1, s->who, "solve_vec_free: not a work vector of this solve");
}

void solve_free(struct solve *s)
{
    for (int i = 0; i < s->nvecs; i++) s->blas->free(s->blas->ctx, s->vecs[i]);
    s->nvecs = 0;
}

enum solver_status solve_end(struct solve *s, enum solver_status status, int iterations)
{
    double rn = solve_true_residual(s, iterations);
    s->res->iterations = iterations;
    s->res->residual = rn / s->bnorm;
    /* the true residual decides: a recursion that claimed convergence
     * without it does not */
    if (status == SOLVER_CONVERGED && !(rn <= s->target)) status = SOLVER_MAX_ITER;
    s->res->status = status;
    solve_free(s);
    return status;
}

int solve_begin(struct solve *s, const char *who, const struct solver_op *op, const struct solver_blas *blas,
                const double *b, double *x, const struct solver_params *par, struct solver_result *res, int need_dag)
{
    memset(s, 0, sizeof *s);
    if (!op || !blas || !b || !x || !par || !res || !op->apply || (need_dag && !op->apply_dag))
        lat_die(1, who, "called without an operator%s, vectors, parameters or result", need_dag ? " (A and A^dag)" : "");
    if (op->site_reals == 0 || op->site_reals % 2 || op->n % op->site_reals || op->site_reals > SOLVER_SITE_REALS_MAX)
        lat_die(1, who, "operator on %zu reals in site blocks of %zu (an even block of 2..%d reals dividing n expected)",
                op->n, op->site_reals, SOLVER_SITE_REALS_MAX);
    if (!(par->tol > 0) || par->max_iter < 0 || par->sloppy < SOLVER_DOUBLE || par->sloppy > SOLVER_HALF ||
        par->delta < 0 || par->delta >= 1)
        lat_die(1, who, "parameters: tol %g, max_iter %d, sloppy %d, delta %g", par->tol, par->max_iter, (int)par->sloppy,
                par->delta);
    s->who = who;
    s->op = op;
    s->blas = blas;
    s->par = par;
    s->res = res;
    memset(res, 0, sizeof *res);
    s->sloppy = par->sloppy;
    s->delta = par->delta > 0 ? par->delta : 0.1;
    s->b = (struct solver_vec){SOLVER_DOUBLE, op->n, op->site_reals, (void *)b, NULL};
    s->x = (struct solver_vec){SOLVER_DOUBLE, op->n, op->site_reals, x, NULL};
    s->r = solve_vec(s, SOLVER_DOUBLE);
    s->tmp = solve_vec(s, SOLVER_DOUBLE);
    if (s->sloppy != SOLVER_DOUBLE && !op->apply_vec) {
        int have_f = op->apply_f && (!need_dag || op->apply_dag_f);
        if (s->sloppy == SOLVER_HALF || !have_f) {
            enum solver_prec wp = have_f ? SOLVER_SINGLE : SOLVER_DOUBLE;
            s->sl_in = solve_vec(s, wp);
            s->sl_out = solve_vec(s, wp);
        }
    }
    s->bnorm = sqrt(blas->norm2(blas->ctx, &s->b));
    s->target = par->tol * s->bnorm;
    if (s->bnorm == 0) { /* the solution of A x = 0 */
        blas->zero(blas->ctx, &s->x);
        res->status = SOLVER_CONVERGED;
        solve_free(s);
        return 1;
    }
    return 0;
}

/* ---- the fused kernels, or the calls they stand for -------------------- */
void blas_multi_axpy(const struct solver_blas *bl, int n, const double *a, const struct solver_vec *const *x,
                     struct solver_vec *const *y)
{
    if (n <= 0) return;
    if (bl->multi_axpy) bl->multi_axpy(bl->ctx, n, a, x, y);
    else
        for (int i = 0; i < n; i++) bl->axpy(bl->ctx, a[i], x[i], y[i]);
}

void blas_multi_caxpby(const struct solver_blas *bl, int n, const solver_complex *a, const struct solver_vec *x,
                       const solver_complex *b, struct solver_vec *const *y)
{
    if (n <= 0) return;
    if (bl->multi_caxpby) bl->multi_caxpby(bl->ctx, n, a, x, b, y);
    else
        for (int i = 0; i < n; i++) bl->caxpby(bl->ctx, a[i], x, b[i], y[i]);
}

double blas_axpy_norm2(const struct solver_blas *bl, double a, const struct solver_vec *x, struct solver_vec *y)
{
    if (bl->axpy_norm2) return bl->axpy_norm2(bl->ctx, a, x, y);
    bl->axpy(bl->ctx, a, x, y);
    return bl->norm2(bl->ctx, y);
}

solver_complex blas_axpy_cdot(const struct solver_blas *bl, double a, const struct solver_vec *x, struct solver_vec *y)
{
    if (bl->axpy_cdot) return bl->axpy_cdot(bl->ctx, a, x, y);
    bl->axpy(bl->ctx, a, x, y);
    return bl->cdot(bl->ctx, x, y);
}

void blas_multi_axpy_caxpby(const struct solver_blas *bl, int n, const double *a, const struct solver_vec *x,
                            const solver_complex *b, const solver_complex *c, struct solver_vec *const *p,
                            struct solver_vec *const *y)
{
    if (n <= 0) return;
    if (bl->multi_axpy_caxpby) {
        bl->multi_axpy_caxpby(bl->ctx, n, a, x, b, c, p, y);
        return;
    }
    blas_multi_axpy(bl, n, a, (const struct solver_vec *const *)p, y); /* y_i += a_i p_i */
    blas_multi_caxpby(bl, n, b, x, c, p);                              /* p_i = b_i x + c_i p_i */
}

solver_complex blas_cdot_norm2(const struct solver_blas *bl, const struct solver_vec *x, const struct solver_vec *y,
                               double *xx)
{
    if (bl->cdot_norm2) return bl->cdot_norm2(bl->ctx, x, y, xx);
    *xx = bl->norm2(bl->ctx, x);
    return bl->cdot(bl->ctx, x, y);
}

double blas_caxpby_norm2_cdot(const struct solver_blas *bl, solver_complex a, const struct solver_vec *x, solver_complex b,
                              struct solver_vec *y, const struct solver_vec *z, solver_complex *zy)
{
    if (bl->caxpby_norm2_cdot) return bl->caxpby_norm2_cdot(bl->ctx, a, x, b, y, z, zy);
    bl->caxpby(bl->ctx, a, x, b, y);
    const double yy = bl->norm2(bl->ctx, y);
    *zy = bl->cdot(bl->ctx, z, y);
    return yy;
}

void blas_caxpby2(const struct solver_blas *bl, solver_complex a1, const struct solver_vec *x1, solver_complex b1,
                  solver_complex a2, const struct solver_vec *x2, solver_complex b2, struct solver_vec *y)
{
    if (bl->caxpby2) {
        bl->caxpby2(bl->ctx, a1, x1, b1, a2, x2, b2, y);
        return;
    }
    bl->caxpby(bl->ctx, a1, x1, b1, y);
    bl->caxpby(bl->ctx, a2, x2, b2, y);
}

/* ---- the backends' argument checks (solvers.h) ----------------------------- */
void solver_vec_same_shape(const struct solver_vec *x, const struct solver_vec *y, const char *where)
{
    if (x->n != y->n || x->site_reals != y->site_reals)
        lat_die(1, where, "vectors of %zu and %zu reals (blocks of %zu and %zu) combined", x->n, y->n, x->site_reals,
                y->site_reals);
}

void solver_caxpby2_check(const struct solver_vec *x1, const struct solver_vec *x2, const struct solver_vec *y,
                          const char *where)
{
    solver_vec_same_shape(x1, y, where);
    solver_vec_same_shape(x2, y, where);
    if (y == x1 || y == x2) lat_die(1, where, "y is also x1 or x2");
}
