/* solvers/multishift.c -- multi-shift CG (Jegerlehner, hep-lat/9612014):
 * (A^dag A + sigma_i) x_i = b for all shifts with the Krylov space of one
 * (op->hermitian: (A + sigma_i) x_i = b, one application an iteration),
 * in double or mixed precision.  Exported: solver_multishift_cg (solvers.h).
 *
 * The base system is the smallest shift (the worst conditioned, which
 * converges last); its CG gives alpha_k, beta_k and r_k, and the residual
 * of shift i is zeta_i r_k, with s_i = sigma_i - sigma_base,
 *   zeta_{k+1} = zeta_k zeta_{k-1} alpha_{k-1} /
 *       (alpha_k beta_{k-1} (zeta_{k-1} - zeta_k) + zeta_{k-1} alpha_{k-1} (1 + s_i alpha_k)),
 *   alpha_i = alpha_k zeta_{k+1} / zeta_k,  beta_i = beta_k (zeta_{k+1} / zeta_k)^2,
 *   x_i += alpha_i p_i,  p_i = zeta_{k+1} r_{k+1} + beta_i p_i,
 * from zeta_{-1} = zeta_0 = 1, alpha_{-1} = 1, beta_{-1} = 0.  Shift i is
 * frozen once |zeta_i r| <= its stopping tolerance |b| (the scalar steps:
 * multishift_step.h; in double a backend with a multishift_loop, the GPU's,
 * may run this recursion itself, its scalars on the device, with the same
 * bits: solvers.h's struct solver_ms_loop).  Then every shift's
 * true residual b - (A^dag A + sigma_i) x_i is computed in double; a shift
 * that misses its tolerance there is refined by solver_cg on the operator
 * A^dag A + sigma_i (normal_op below), started from its x_i.
 *
 * Mixed precision (params.sloppy single or half): r, the p_i and the
 * operator products of the shared recursion live in the sloppy precision
 * (the operator's apply_f/apply_dag_f), the x_i accumulate in double.  The
 * recursion's residual keeps falling while the true one stalls near the
 * sloppy precision's rounding.  The base shift therefore gets reliable
 * updates (true residual in double whenever |r| fell by delta, r restarted
 * from it, directions kept, as in cg.c) and runs to its tolerance; the
 * other shifts stop at tol_i (single) or max(tol_i, SLOPPY_FLOOR_HALF)
 * (half), and every shift whose true residual misses tol_i is then refined
 * by solver_cg in the same mixed precision (its own reliable updates).
 * The other shifts cannot be kept true the same way: their residuals are
 * zeta_i r only while collinear, and restoring that would cost a double
 * residual per shift per update; the base's updates leave their gaps
 * (measured) as they were. */
#include "solvers/core.h"
#include "solvers/multishift_step.h"
#include "base/log.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* where half's recursion stops the shifts other than the base (relative
 * residual): about a decade above where a half recursion's true residual
 * stalls (its 2^-15 ~ 3e-5 resolution); the refinement mends the rest.
 * Single used a floor of 1e-6 until issue 21 (below). */
#define SLOPPY_FLOOR_HALF 1e-4
/* Issue 21: the floor stopped every shift at 1e-6 and the per-shift
 * refinement CGs (each restarting its Krylov space) then cost more sloppy
 * iterations than the shared recursion (bench/hmc_solve_counts, 8^3x8,
 * am 0.0125, MD tol 1e-8: 1072 shared + 1136 refinement iterations per
 * solve).  Now the base shift gets reliable updates in the recursion (its
 * true residual recomputed in double whenever |r| fell by delta, r
 * restarted from it, the directions kept), so its recursion runs to its
 * own tolerance and it needs no refinement; the other shifts, whose true
 * residuals stall near 1e-7..1e-5 (the rounding of the shared single r,
 * scaled by their 1/zeta), are stopped at their tolerance too when the
 * sloppy precision is single (running them on costs only their vector
 * work, and every decade they gain is one their refinement does not
 * redo: 1e-6, 1e-7 and tol as their stop cost 14742, 8736 and 6741
 * refinement iterations per trajectory there); half keeps its floor. */

/* A^dag A + sigma as a Hermitian operator for solver_cg, in double and
 * (when the operator has both single forms) in single */
struct normal_op {
    const struct solver_op *op;
    const struct solver_blas *blas;
    double sigma;
    struct solver_vec *tmp, *tmp_f; /* A in, double and single */
};

static void normal_apply(void *ctx, double *out, const double *in)
{
    struct normal_op *N = ctx;
    const struct solver_op *op = N->op;
    struct solver_vec vin = {SOLVER_DOUBLE, op->n, op->site_reals, (void *)in, NULL};
    struct solver_vec vout = {SOLVER_DOUBLE, op->n, op->site_reals, out, NULL};
    if (op->hermitian) {
        op->apply(op->ctx, out, in);
    } else {
        op->apply(op->ctx, (double *)N->tmp->data, in);
        op->apply_dag(op->ctx, out, (const double *)N->tmp->data);
    }
    if (N->sigma != 0) N->blas->axpy(N->blas->ctx, N->sigma, &vin, &vout);
}

static void normal_apply_f(void *ctx, float *out, const float *in)
{
    struct normal_op *N = ctx;
    const struct solver_op *op = N->op;
    struct solver_vec vin = {SOLVER_SINGLE, op->n, op->site_reals, (void *)in, NULL};
    struct solver_vec vout = {SOLVER_SINGLE, op->n, op->site_reals, out, NULL};
    if (op->hermitian) {
        op->apply_f(op->ctx, out, in);
    } else {
        op->apply_f(op->ctx, (float *)N->tmp_f->data, in);
        op->apply_dag_f(op->ctx, out, (const float *)N->tmp_f->data);
    }
    if (N->sigma != 0) N->blas->axpy(N->blas->ctx, N->sigma, &vin, &vout);
}

/* q = A^dag A p (w = A p on the way), or q = A p for a Hermitian A, in the
 * sloppy precision: the recursion's operator (struct solver_ms_loop's too) */
static void ms_normal(void *actx, struct solver_vec *q, struct solver_vec *w, const struct solver_vec *p)
{
    struct solve *s = (struct solve *)actx;
    if (s->op->hermitian) {
        sloppy_apply(s, 0, q, p);
        return;
    }
    sloppy_apply(s, 0, w, p);
    sloppy_apply(s, 1, q, w);
}

/* p will be ms_normal's next input, and its values are queued: the
 * operator may begin (struct solver_ms_loop's prepare; the first
 * application, A p, is on p in either form) */
static void ms_prepare(void *actx, const struct solver_vec *p)
{
    struct solve *s = (struct solve *)actx;
    if (s->op->prepare) s->op->prepare(s->op->ctx, p);
}

/* r = b - (A^dag A + sigma) x (Hermitian A: b - (A + sigma) x) in double,
 * returns |r| */
static double shifted_residual(struct solve *s, struct solver_vec *w, double sigma, struct solver_vec *x,
                               struct solver_vec *r)
{
    const struct solver_blas *bl = s->blas;
    if (s->op->hermitian) {
        op_apply(s->op, 0, r, x);
    } else {
        op_apply(s->op, 0, w, x);
        op_apply(s->op, 1, r, w);
    }
    bl->axpy(bl->ctx, sigma, x, r);
    bl->axpy(bl->ctx, -1, &s->b, r);
    return sqrt(bl->norm2(bl->ctx, r));
}

static void report(const struct solver_params *par, int k, int shift, int reliable, double rel)
{
    if (!par->history) return;
    struct solver_step st = {k, shift, reliable, rel};
    par->history(par->history_ctx, &st);
}

/* the refinement's history lines, as lines of shift `shift` counted on
 * from the shared iterations */
struct refine_history {
    const struct solver_params *par;
    int shift, offset;
};
static void refine_report(void *ctx, const struct solver_step *step)
{
    const struct refine_history *h = ctx;
    report(h->par, h->offset + step->iteration, h->shift, step->reliable, step->residual);
}

/* shift i refined by solver_cg from x[i] (result accumulated) */
static void refine(struct solve *s, struct normal_op *N, int i, double ti, double *xi, struct solver_result *res)
{
    const struct solver_op *op = s->op;
    const struct solver_params *par = s->par;
    int single = N->tmp_f != NULL;
    struct solver_op nop = {op->n, op->site_reals, N, normal_apply, normal_apply, single ? normal_apply_f : NULL,
                            single ? normal_apply_f : NULL, NULL, 0, NULL};
    struct refine_history h = {par, i, res->iterations};
    struct solver_params rp = *par;
    rp.tol = ti;
    if (par->history) rp.history = refine_report, rp.history_ctx = &h;
    struct solver_result rr;
    solver_cg(&nop, s->blas, (const double *)s->b.data, xi, &rp, &rr);
    res->status = rr.status;
    res->iterations += rr.iterations;
    res->reliable_updates += rr.reliable_updates;
    res->residual = rr.residual;
}

enum solver_status solver_multishift_cg(const struct solver_op *op, const struct solver_blas *blas, const double *b,
                                        int nshift, const double *sigma, const double *tol, double *const *x,
                                        const struct solver_params *par, struct solver_result *result)
{
    const char *who = "solver_multishift_cg";
    if (nshift < 1 || !sigma || !x || !result || !par)
        lat_die(1, who, "called with %d shifts, or without shifts, solutions, results or parameters", nshift);
    for (int i = 0; i < nshift; i++)
        if (!(sigma[i] >= 0) || !isfinite(sigma[i]) || !x[i] || (tol && !(tol[i] > 0)))
            lat_die(1, who, "shift %d: sigma %g, tolerance %g (sigma >= 0 and tol > 0 expected)", i, sigma[i],
                    tol ? tol[i] : par->tol);
    struct solve S, *s = &S;
    /* solve_begin on shift 0 checks the operator and parameters, views b,
     * and prepares the sloppy operator's work vectors */
    if (solve_begin(s, who, op, blas, b, x[0], par, &result[0], !op->hermitian)) {
        for (int i = 0; i < nshift; i++) {
            struct solver_vec xi = {SOLVER_DOUBLE, op->n, op->site_reals, x[i], NULL};
            blas->zero(blas->ctx, &xi);
            result[i] = result[0];
        }
        return SOLVER_CONVERGED;
    }
    void *c = blas->ctx;
    const enum solver_prec sp = s->sloppy;
    const double floor = sp == SOLVER_HALF ? SLOPPY_FLOOR_HALF : 0;
    int nb = 0; /* the base: the smallest shift */
    for (int i = 1; i < nshift; i++)
        if (sigma[i] < sigma[nb]) nb = i;
    double *zeta = calloc((size_t)nshift * 4, sizeof *zeta);
    int *active = calloc((size_t)nshift, sizeof *active);
    struct solver_vec **pv = calloc((size_t)nshift, sizeof *pv), *xv = calloc((size_t)nshift, sizeof *xv);
    /* the fused calls' operands: coefficients and vectors of the active
     * shifts.  An iteration's vector work: q += sigma p_base with <p_base,
     * q> (axpy_cdot), r -= alpha q with |r|^2 (axpy_norm2), then x_i +=
     * alpha_i p_i and p_i = zeta_i r + beta_i p_i in one call
     * (multi_axpy_caxpby: each p_i read once); only in an iteration with
     * the base's reliable update, which needs x_base first, the two as
     * multi_axpy and multi_caxpby around it */
    double *coef = calloc((size_t)nshift, sizeof *coef);
    solver_complex *ca = calloc((size_t)nshift * 2, sizeof *ca), *cb = ca + nshift;
    struct solver_vec **pa = calloc((size_t)nshift * 2, sizeof *pa), **xa = pa + nshift;
    if (!zeta || !active || !pv || !xv || !coef || !ca || !pa) lat_die(1, who, "out of memory for %d shifts", nshift);
    double *zeta_prev = zeta + nshift, *zeta_next = zeta + 2 * nshift, *stop = zeta + 3 * nshift;
    struct solver_vec *r = solve_vec(s, sp);
    blas->copy(c, r, &s->b);
    for (int i = 0; i < nshift; i++) {
        pv[i] = blas->alloc(c, op->n, op->site_reals, sp);
        if (!pv[i]) lat_die(1, who, "out of memory for the direction of shift %d", i);
        xv[i] = (struct solver_vec){SOLVER_DOUBLE, op->n, op->site_reals, x[i], NULL};
        blas->zero(c, &xv[i]);
        blas->copy(c, pv[i], r);
        zeta[i] = zeta_prev[i] = 1;
        active[i] = 1;
        double ti = tol ? tol[i] : par->tol;
        stop[i] = ti > floor || sp == SOLVER_DOUBLE ? ti : floor;
        memset(&result[i], 0, sizeof result[i]);
        result[i].status = SOLVER_MAX_ITER;
    }
    struct solver_vec *w = solve_vec(s, sp), *q = solve_vec(s, sp);
    double rr = blas->norm2(c, r), alpha_prev = 1, beta_prev = 0;
    int nactive = nshift, k, base_updates = 0;
    const int reliable = sp != SOLVER_DOUBLE; /* the base's reliable updates */
    double maxr = sqrt(rr); /* the largest |r| since the last one (QUDA's rule, as solve_reliable) */
    if (reliable) stop[nb] = tol ? tol[nb] : par->tol; /* the base is kept true: no floor */
    /* in double, a backend may run the loop below itself with its scalars
     * on the device (no host wait an iteration; the same bits); not with
     * a history, which wants every iteration's residuals on the host */
    if (!reliable && blas->multishift_loop && !par->history) {
        struct solver_ms_loop L = {nshift, nb, par->max_iter, sigma, stop, rr, s->bnorm, r, w, q, pv, xv,
                                   ms_normal, s, result, ms_prepare};
        if (blas->multishift_loop(c, &L)) {
            nactive = 0;
            for (int i = 0; i < nshift; i++) active[i] = 0; /* result holds every shift's status and iterations */
        }
    }
    for (k = 1; k <= par->max_iter && nactive > 0; k++) {
        ms_normal(s, q, w, pv[nb]);
        double pq = blas_axpy_cdot(blas, sigma[nb], pv[nb], q).re; /* q += sigma p, <p, q> */
        if (!(pq > 0) || !isfinite(pq)) {
            for (int i = 0; i < nshift; i++)
                if (active[i]) result[i].status = SOLVER_BREAKDOWN, result[i].iterations = k - 1, active[i] = 0;
            break;
        }
        double alpha = ms_div(rr, pq);
        /* the active shifts' vectors gathered, so that each vector update
         * is one fused call over all of them (one launch on a GPU) */
        int na = 0;
        for (int i = 0; i < nshift; i++) {
            if (!active[i]) continue;
            zeta_next[i] = i == nb ? 1
                                   : ms_zeta_next(zeta[i], zeta_prev[i], alpha, alpha_prev, beta_prev,
                                                  ms_sub(sigma[i], sigma[nb]));
            coef[na] = ms_shift_alpha(alpha, zeta_next[i], zeta[i]);
            pa[na] = pv[i];
            xa[na] = &xv[i];
            na++;
        }
        /* r -= alpha q, |r|^2 first: it touches neither x_i nor p_i, so
         * the x_i updates may follow it (the same bits) */
        double rr_new = blas_axpy_norm2(blas, -alpha, q, r);
        /* the base's reliable update is due now (decided from rr_new,
         * before any x_i or p_i is touched)? */
        int update = 0;
        if (reliable && active[nb]) {
            double rn = sqrt(rr_new);
            if (rn > maxr) maxr = rn;
            update = rn < s->delta * maxr;
        }
        if (update) { /* it needs x_base of this iteration: x_i first, unfused */
            blas_multi_axpy(blas, na, coef, (const struct solver_vec *const *)pa, xa); /* x_i += alpha_i p_i */
            /* r = b - (A^dag A + sigma_base) x_base in double, then sloppy */
            double rn = shifted_residual(s, s->tmp, sigma[nb], &xv[nb], s->r); /* the negative of it */
            blas->caxpby(c, (solver_complex){-1, 0}, s->r, (solver_complex){0, 0}, r);
            rr_new = blas->norm2(c, r);
            maxr = sqrt(rr_new);
            base_updates++;
            report(par, k, nb, 1, rn / s->bnorm);
        }
        const double beta = ms_div(rr_new, rr);
        for (int i = 0, j = 0; i < nshift; i++) {
            if (!active[i]) continue;
            ca[j] = (solver_complex){zeta_next[i], 0};
            cb[j] = (solver_complex){ms_shift_beta(beta, zeta_next[i], zeta[i]), 0};
            j++;
        }
        if (update) /* p_i = zeta_next r + beta_i p_i */
            blas_multi_caxpby(blas, na, ca, r, cb, pa);
        else /* x_i += alpha_i p_i and p_i = zeta_next r + beta_i p_i in one pass over each p_i */
            blas_multi_axpy_caxpby(blas, na, coef, r, ca, cb, pa, xa);
        for (int i = 0; i < nshift; i++) {
            if (!active[i]) continue;
            zeta_prev[i] = zeta[i];
            zeta[i] = zeta_next[i];
            double rel = ms_rel_residual(zeta[i], rr_new, s->bnorm);
            report(par, k, i, 0, rel);
            if (rel <= stop[i]) {
                active[i] = 0;
                nactive--;
                result[i].status = SOLVER_CONVERGED;
                result[i].iterations = k;
            }
        }
        alpha_prev = alpha;
        beta_prev = beta;
        rr = rr_new;
    }
    /* the true residuals in double; refinement where one misses */
    struct solver_vec *wd = s->tmp, *qd = s->r; /* double work vectors of solve_begin */
    struct solver_vec *wf = sp != SOLVER_DOUBLE && op->apply_f && op->apply_dag_f ? solve_vec(s, SOLVER_SINGLE) : NULL;
    enum solver_status worst = SOLVER_CONVERGED;
    for (int i = 0; i < nshift; i++) {
        if (active[i]) result[i].iterations = k - 1;
        double ti = tol ? tol[i] : par->tol;
        double rn = shifted_residual(s, wd, sigma[i], &xv[i], qd) / s->bnorm;
        result[i].reliable_updates = 1 + (i == nb ? base_updates : 0);
        result[i].residual = rn;
        report(par, result[i].iterations, i, 1, rn);
        /* a sloppy breakdown (rounding near the floor) is refined as well;
         * the iteration limit is final */
        int refinable = result[i].status == SOLVER_CONVERGED || (sp != SOLVER_DOUBLE && result[i].status == SOLVER_BREAKDOWN);
        if (refinable && !(rn <= ti)) {
            struct normal_op N = {op, blas, sigma[i], wd, wf};
            refine(s, &N, i, ti, x[i], &result[i]);
        }
        if (result[i].status > worst) worst = result[i].status;
    }
    for (int i = 0; i < nshift; i++) blas->free(c, pv[i]);
    solve_free(s);
    free(zeta);
    free(active);
    free(pv);
    free(xv);
    free(coef);
    free(ca);
    free(pa);
    return worst;
}
