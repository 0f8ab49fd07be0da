/* solvers/half.h -- the half-precision format of one site block, the only
 * place its formula is written (half.c and blas_cpu.c use it; LAT_HD, so
 * GPU kernels that store half vectors call the same functions:
 * dirac/staggered_gpu_kernel.cuh):
 *   half_block_encode(m, x, q, norm)  m reals x (double) -> q[m], *norm
 *   half_block_decode(m, q, norm, x)  back to double
 * norm = max |x_k| rounded to float; q_k = round(x_k / norm * 32767),
 * clamped to +-32767 (the float norm may round below the maximum).  A zero
 * block has norm 0 and q = 0.  A block with a NaN or infinity keeps it in
 * its norm (and q = 0 there), so decoding gives NaN: a solver sees the
 * breakdown instead of a silent zero. */
#ifndef LAT_SOLVERS_HALF_H
#define LAT_SOLVERS_HALF_H

#include "base/lat.h"
#include "solvers/solvers.h"
#include <math.h>
#include <stddef.h>
#include <stdint.h>

LAT_HD void half_block_encode(size_t m, const double *x, int16_t *q, float *norm)
{
    double mx = 0;
    int finite = 1;
    for (size_t k = 0; k < m; k++) {
        double a = fabs(x[k]);
        if (!isfinite(a)) finite = 0;
        else if (a > mx) mx = a;
    }
    if (!finite) {
        *norm = NAN;
        for (size_t k = 0; k < m; k++) q[k] = 0;
        return;
    }
    float nf = (float)mx;
    *norm = nf;
    if (nf == 0) {
        for (size_t k = 0; k < m; k++) q[k] = 0;
        return;
    }
    double s = SOLVER_HALF_ONE / (double)nf;
    for (size_t k = 0; k < m; k++) {
        double v = nearbyint(x[k] * s);
        if (v > SOLVER_HALF_ONE) v = SOLVER_HALF_ONE;
        if (v < -SOLVER_HALF_ONE) v = -SOLVER_HALF_ONE;
        q[k] = (int16_t)v;
    }
}

LAT_HD void half_block_decode(size_t m, const int16_t *q, float norm, double *x)
{
    double s = (double)norm / SOLVER_HALF_ONE;
    for (size_t k = 0; k < m; k++) x[k] = q[k] * s;
}

#endif
