/* solvers/bicgstab_step.h -- BiCGstab's scalar steps and the reliable-update
 * test, written once for bicgstab.c's host loop, core.c's solve_reliable
 * and the GPU's device loop (blas_gpu_bicg_loop.cuh).  Every operation is
 * one IEEE double operation in the order written, never contracted into a
 * fused multiply-add (solvers/scalar_rn.h), so the loops give the same bits.
 *
 *   bicg_cdiv(a, b), bicg_cmul(a, b)  complex a / b (by |b|^2) and a b
 *   bicg_usable(a)        a finite, non-zero complex: one BiCGstab may divide by
 *   bicg_omega(ts, tt)    omega = <t, s> / |t|^2, or 0 when |t|^2 is 0 or
 *                         not finite (the caller's breakdown test then sees it)
 *   bicg_alpha(rho, r0v, &alpha)  alpha = rho / <r0, v>; 0 (a breakdown,
 *                         alpha untouched) when either is not usable
 *   bicg_beta(rho_new, rho, alpha, omega)  (rho_new / rho)(alpha / omega)
 *   solve_reliable_due(rn, &maxr, target, delta, mixed)
 *       the reliable update's test on the recursion's |r|: maxr (the
 *       largest |r| since the last update) first takes rn in, then
 *       converged (rn <= target) or, mixed, fallen by delta (rn < delta maxr)
 *   bicg_goes_on(rn, &maxr, target, delta, mixed, omega, rho_new)
 *       after r = s - omega t: 1 when bicgstab.c's tail goes straight on to
 *       beta (|r| finite, no reliable update due, omega and <r0, r>
 *       usable), 0 when it must update, break down or renew the shadow */
#ifndef LAT_SOLVERS_BICGSTAB_STEP_H
#define LAT_SOLVERS_BICGSTAB_STEP_H

#include "base/lat.h"
#include "solvers/scalar_rn.h"
#include "solvers/solvers.h"

LAT_HD solver_complex bicg_cdiv(solver_complex a, solver_complex b)
{
    const double d = RN_ADD(RN_MUL(b.re, b.re), RN_MUL(b.im, b.im));
    solver_complex q;
    q.re = RN_DIV(RN_ADD(RN_MUL(a.re, b.re), RN_MUL(a.im, b.im)), d);
    q.im = RN_DIV(RN_SUB(RN_MUL(a.im, b.re), RN_MUL(a.re, b.im)), d);
    return q;
}

LAT_HD solver_complex bicg_cmul(solver_complex a, solver_complex b)
{
    solver_complex p;
    p.re = RN_SUB(RN_MUL(a.re, b.re), RN_MUL(a.im, b.im));
    p.im = RN_ADD(RN_MUL(a.re, b.im), RN_MUL(a.im, b.re));
    return p;
}

LAT_HD int bicg_usable(solver_complex a) { return isfinite(a.re) && isfinite(a.im) && (a.re != 0 || a.im != 0); }

LAT_HD solver_complex bicg_omega(solver_complex ts, double tt)
{
    solver_complex zero = {0, 0}, t = {tt, 0};
    return tt > 0 && isfinite(tt) ? bicg_cdiv(ts, t) : zero;
}

LAT_HD int bicg_alpha(solver_complex rho, solver_complex r0v, solver_complex *alpha)
{
    if (!bicg_usable(r0v) || !bicg_usable(rho)) return 0;
    *alpha = bicg_cdiv(rho, r0v);
    return 1;
}

LAT_HD solver_complex bicg_beta(solver_complex rho_new, solver_complex rho, solver_complex alpha, solver_complex omega)
{
    return bicg_cmul(bicg_cdiv(rho_new, rho), bicg_cdiv(alpha, omega));
}

LAT_HD int solve_reliable_due(double rn, double *maxr, double target, double delta, int mixed)
{
    if (rn > *maxr) *maxr = rn; /* the largest residual since the last update (QUDA) */
    return rn <= target || (mixed && rn < RN_MUL(delta, *maxr));
}

LAT_HD int bicg_goes_on(double rn, double *maxr, double target, double delta, int mixed, solver_complex omega,
                        solver_complex rho_new)
{
    return isfinite(rn) && !solve_reliable_due(rn, maxr, target, delta, mixed) && bicg_usable(omega) && bicg_usable(rho_new);
}

#endif
