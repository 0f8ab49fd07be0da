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
 *   bicg_beta(rho_new, rho, alpha, omega)  (rho_new / rho)(alpha / omega)
 *   solve_reliable_due(rn, maxr, target, delta, mixed)
 *       the reliable update's test on the recursion's |r| (maxr: the largest
 *       |r| since the last update, rn included): converged (rn <= target)
 *       or, mixed, fallen by delta (rn < delta maxr) */
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

LAT_HD solver_complex bicg_beta(solver_complex rho_new, solver_complex rho, solver_complex alpha, solver_complex omega)
{
    return bicg_cmul(bicg_cdiv(rho_new, rho), bicg_cdiv(alpha, omega));
}

LAT_HD int solve_reliable_due(double rn, double maxr, double target, double delta, int mixed)
{
    return rn <= target || (mixed && rn < RN_MUL(delta, maxr));
}

#endif
