/* solvers/multishift_step.h -- the multi-shift CG's scalar recurrences
 * (Jegerlehner, hep-lat/9612014), written once for multishift.c's host loop
 * and the GPU's device loop (blas_gpu_multishift.cuh).  Every operation is
 * one IEEE double operation in the order written, never contracted into a
 * fused multiply-add (solvers/scalar_rn.h), so the two loops give the same
 * bits.
 *
 *   ms_zeta_next(z, zp, alpha, alpha_prev, beta_prev, s)
 *       zeta_{k+1} of a shift s = sigma_i - sigma_base above the base:
 *       z zp alpha_prev / (alpha beta_prev (zp - z) + zp alpha_prev (1 + s alpha))
 *       (z = zeta_k, zp = zeta_{k-1}; the base itself keeps zeta = 1)
 *   ms_shift_alpha(alpha, zn, z)   the shift's alpha: alpha zn / z
 *   ms_shift_beta(beta, zn, z)     the shift's beta: beta (zn / z)^2
 *   ms_rel_residual(z, rr, bnorm)  its recursion's |r| / |b|: |z| sqrt(rr) / bnorm
 *   ms_div(a, b), ms_sub(a, b)     a / b, a - b (alpha = rr / pq, beta = rr_new / rr)
 */
#ifndef LAT_SOLVERS_MULTISHIFT_STEP_H
#define LAT_SOLVERS_MULTISHIFT_STEP_H

#include "base/lat.h"
#include "solvers/scalar_rn.h"

LAT_HD double ms_div(double a, double b) { return RN_DIV(a, b); }
LAT_HD double ms_sub(double a, double b) { return RN_SUB(a, b); }

LAT_HD double ms_zeta_next(double z, double zp, double alpha, double alpha_prev, double beta_prev, double s)
{
    const double den = RN_ADD(RN_MUL(RN_MUL(alpha, beta_prev), RN_SUB(zp, z)),
                              RN_MUL(RN_MUL(zp, alpha_prev), RN_ADD(1.0, RN_MUL(s, alpha))));
    return RN_DIV(RN_MUL(RN_MUL(z, zp), alpha_prev), den);
}

LAT_HD double ms_shift_alpha(double alpha, double zn, double z) { return RN_DIV(RN_MUL(alpha, zn), z); }

LAT_HD double ms_shift_beta(double beta, double zn, double z)
{
    const double ratio = RN_DIV(zn, z);
    return RN_MUL(RN_MUL(beta, ratio), ratio);
}

LAT_HD double ms_rel_residual(double z, double rr, double bnorm) { return RN_DIV(RN_MUL(fabs(z), RN_SQRT(rr)), bnorm); }

#endif
