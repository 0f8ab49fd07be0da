/* solvers/multishift_step.h -- the multi-shift CG's scalar recurrences
 * (Jegerlehner, hep-lat/9612014), written once for multishift.c's host loop
 * and the GPU's device loop (blas_gpu_multishift.cuh).  Every operation is
 * one IEEE double operation in the order written, never contracted into a
 * fused multiply-add (the device side uses the _rn intrinsics), so the two
 * loops give the same bits.
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
#include <math.h>

#ifdef __CUDA_ARCH__
#define MS_MUL(a, b) __dmul_rn(a, b)
#define MS_ADD(a, b) __dadd_rn(a, b)
#define MS_SUB(a, b) __dsub_rn(a, b)
#define MS_DIV(a, b) __ddiv_rn(a, b)
#define MS_SQRT(a) __dsqrt_rn(a)
#else
#define MS_MUL(a, b) ((a) * (b))
#define MS_ADD(a, b) ((a) + (b))
#define MS_SUB(a, b) ((a) - (b))
#define MS_DIV(a, b) ((a) / (b))
#define MS_SQRT(a) sqrt(a)
#endif

LAT_HD double ms_div(double a, double b) { return MS_DIV(a, b); }
LAT_HD double ms_sub(double a, double b) { return MS_SUB(a, b); }

LAT_HD double ms_zeta_next(double z, double zp, double alpha, double alpha_prev, double beta_prev, double s)
{
    const double den = MS_ADD(MS_MUL(MS_MUL(alpha, beta_prev), MS_SUB(zp, z)),
                              MS_MUL(MS_MUL(zp, alpha_prev), MS_ADD(1.0, MS_MUL(s, alpha))));
    return MS_DIV(MS_MUL(MS_MUL(z, zp), alpha_prev), den);
}

LAT_HD double ms_shift_alpha(double alpha, double zn, double z) { return MS_DIV(MS_MUL(alpha, zn), z); }

LAT_HD double ms_shift_beta(double beta, double zn, double z)
{
    const double ratio = MS_DIV(zn, z);
    return MS_MUL(MS_MUL(beta, ratio), ratio);
}

LAT_HD double ms_rel_residual(double z, double rr, double bnorm) { return MS_DIV(MS_MUL(fabs(z), MS_SQRT(rr)), bnorm); }

#endif
