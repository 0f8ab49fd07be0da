/* solvers/bicgstab.c -- BiCGstab (van der Vorst) on A x = b.
 * Exported: solver_bicgstab (solvers.h).
 * Per iteration, with the shadow residual r0 (the first residual):
 *   v = A p, alpha = rho / <r0, v>, s = r - alpha v, t = A s,
 *   omega = <t, s> / |t|^2, x += alpha p + omega s, r = s - omega t,
 *   rho_new = <r0, r>, beta = (rho_new / rho)(alpha / omega),
 *   p = r + beta (p - omega v).
 * Breakdown (<r0, v> = 0, or omega = 0 with s non-zero, or a NaN) ends the
 * solve with SOLVER_BREAKDOWN and the best x so far.  rho_new = 0 alone
 * restarts with r0 = r (the Krylov space is renewed, not lost).
 * Mixed precision by reliable updates as cgne.c (QUDA's BiCGstab): the
 * recursion in the sloppy precision, x += xs and r = b - A x in double when
 * |r| has fallen by delta since the last update or below the tolerance;
 * r continues from the true residual with r0 and p kept (one Krylov
 * space, Sleijpen and van der Vorst 1996); only once |r| has fallen by
 * BICGSTAB_SHADOW_RENEW since r0 was set are r0 and p restarted from r.
 * Measured on the Hermitian lattice test operator (condition 1e3, tol
 * 1e-12; double-single, double-half iterations over double): a restart at
 * every update (delta 0.1) 1.9x, 2.3x; never 2.8x, 6.2x (BiCG's
 * biorthogonality decays in the sloppy precision: the convergence stalls
 * after 7-8 decades); renewal every 1e-4: 1.4x, 1.5x; every 1e-6: 1.2x,
 * 1.3x; every 1e-8: 1.3x, 2.5x.
 * Vector work of an iteration (core.c's fused kernels where the blas has
 * them, else the unfused calls, the same bits): <r0, v>; s = r - alpha v;
 * <t, s> with |t|^2 (cdot_norm2); x += alpha p + omega s (caxpby2);
 * r = s - omega t with |r|^2 and <r0, r> (caxpby_norm2_cdot: rho_new,
 * used only where the unfused path computes it -- after the reliable-
 * update decision, recomputed when an update replaced r); p = r + beta
 * (p - omega v) (caxpby2): 6 kernels and 3 reductions, was 11 and 5.
 * A backend with a bicgstab_loop (the GPU's: no host wait an iteration)
 * runs the iterations up to one that needs the host -- a breakdown, a
 * reliable update, a new shadow -- with the same steps (bicgstab_step.h),
 * and this loop goes on from there: the same bits. */
#include "solvers/core.h"
#include "solvers/bicgstab_step.h"
#include <math.h>

#define BICGSTAB_SHADOW_RENEW 1e-6

/* the device loop's callbacks (struct solver_bicg_loop) */
static void bicg_apply(void *ctx, struct solver_vec *out, const struct solver_vec *in)
{
    sloppy_apply((struct solve *)ctx, 0, out, in);
}
static void bicg_report(void *ctx, int k, double rn) { solve_iteration((struct solve *)ctx, k, rn); }

enum solver_status solver_bicgstab(const struct solver_op *op, const struct solver_blas *blas, const double *b,
                                   double *x, const struct solver_params *par, struct solver_result *res)
{
    struct solve S, *s = &S;
    if (solve_begin(s, "solver_bicgstab", op, blas, b, x, par, res, 0)) return res->status;
    void *c = blas->ctx;
    enum solver_prec sp = s->sloppy;
    int mixed = sp != SOLVER_DOUBLE;
    const solver_complex one = {1, 0};
    double rn = solve_true_residual(s, 0);
    if (solve_done(s, rn)) return solve_end(s, SOLVER_CONVERGED, 0);
    struct solver_vec *rs = solve_vec(s, sp), *r0 = solve_vec(s, sp), *ps = solve_vec(s, sp);
    struct solver_vec *vs = solve_vec(s, sp), *ts = solve_vec(s, sp);
    struct solver_vec *xs = solve_vec(s, solve_accumulator_prec(sp));
    blas->copy(c, rs, s->r);
    blas->copy(c, r0, rs);
    blas->copy(c, ps, rs);
    solver_complex rho = blas->cdot(c, r0, rs);
    double maxr = rn, r_renewed = rn; /* |r| when r0 was last set */
    /* a backend's device loop takes the iterations up to one that needs
     * the host (then this loop's tail below takes that one), 0: this loop */
    struct solver_bicg_loop L = {0};
    L.mixed = mixed, L.delta = s->delta, L.k_last = par->max_iter;
    L.r = rs, L.r0 = r0, L.p = ps, L.v = vs, L.t = ts, L.x = xs;
    L.apply = bicg_apply, L.iteration = bicg_report, L.actx = s;
    int device = blas->bicgstab_loop != NULL;
    enum solver_status st = SOLVER_MAX_ITER;
    int k;
    for (k = 1; k <= par->max_iter; k++) {
        solver_complex alpha, omega, rho_new;
        L.k_first = k, L.rho = rho, L.maxr = maxr, L.target = s->target; /* par->accept may lower it */
        device = device && blas->bicgstab_loop(c, &L);
        if (device) {
            k = L.k;
            if (L.stop == SOLVER_BICG_RAN) break;
            if (L.stop == SOLVER_BICG_BREAKDOWN) {
                st = SOLVER_BREAKDOWN;
                break;
            }
            rho = L.rho, alpha = L.alpha, omega = L.omega, rho_new = L.rho_new, rn = L.rn, maxr = L.maxr;
        } else {
            sloppy_apply(s, 0, vs, ps);
            solver_complex r0v = blas->cdot(c, r0, vs);
            if (!bicg_alpha(rho, r0v, &alpha)) {
                st = SOLVER_BREAKDOWN;
                break;
            }
            blas->caxpby(c, (solver_complex){-alpha.re, -alpha.im}, vs, one, rs); /* s */
            sloppy_apply(s, 0, ts, rs);
            double tt;
            const solver_complex ts_dot = blas_cdot_norm2(blas, ts, rs, &tt); /* <t, s>, |t|^2 */
            omega = bicg_omega(ts_dot, tt);
            blas_caxpby2(blas, alpha, ps, one, omega, rs, one, xs); /* x += alpha p + omega s */
            /* r = s - omega t with |r|^2 and rho_new = <r0, r> (used below
             * only if no reliable update replaces this r) */
            rn = sqrt(blas_caxpby_norm2_cdot(blas, (solver_complex){-omega.re, -omega.im}, ts, one, rs, r0, &rho_new));
            solve_iteration(s, k, rn);
        }
        if (!isfinite(rn)) {
            st = SOLVER_BREAKDOWN;
            break;
        }
        enum reliable_step rel = solve_reliable(s, k, mixed, xs, rs, &rn, &maxr);
        if (rel == RELIABLE_CONVERGED) {
            st = SOLVER_CONVERGED;
            break;
        }
        if (rel == RELIABLE_UPDATED && mixed && rn < BICGSTAB_SHADOW_RENEW * r_renewed) {
            /* the shadow r0 kept over many decades loses its
             * biorthogonality to the sloppy residuals: renewed (r0 = p =
             * r, a restart) once |r| has fallen by BICGSTAB_SHADOW_RENEW.
             * Not in double, whose only true residuals are at the target
             * (one an accept test refused: the recursion goes on) */
            blas->copy(c, r0, rs);
            blas->copy(c, ps, rs);
            rho = blas->cdot(c, r0, rs);
            r_renewed = rn;
            continue;
        }
        /* at any other reliable update r0 and p are kept and the
         * recursion goes on from the true r, rho_new computed from it
         * below (Sleijpen and van der Vorst): one Krylov space */
        if (!bicg_usable(omega)) { /* t = 0 or a NaN, with s not yet small enough */
            st = SOLVER_BREAKDOWN;
            break;
        }
        if (rel == RELIABLE_UPDATED) rho_new = blas->cdot(c, r0, rs); /* r is the true residual now */
        if (!bicg_usable(rho_new)) { /* r orthogonal to r0: restart the shadow */
            blas->copy(c, r0, rs);
            blas->copy(c, ps, rs);
            rho = blas->cdot(c, r0, rs);
            continue;
        }
        solver_complex beta = bicg_beta(rho_new, rho, alpha, omega);
        /* p = p - omega v, then p = r + beta p */
        blas_caxpby2(blas, (solver_complex){-omega.re, -omega.im}, vs, one, one, rs, beta, ps);
        rho = rho_new;
    }
    if (k > par->max_iter) k = par->max_iter;
    solve_accumulate(s, xs);
    return solve_end(s, st, k);
}
