/* solvers/half.h -- the half-precision format of one site block, the only
 * place its formula is written (half.c and blas_cpu.c use it; HALF_HD, so
 * GPU kernels that store half vectors call the same functions:
 * dirac/staggered_gpu_kernel.cuh):
 *   half_block_encode(m, x, q, norm)  m reals x (double) -> q[m], *norm
 *   half_block_decode(m, q, norm, x)  back to double
 *   half_norm, half_encode_scale, half_quantise, half_decode_scale: the
 *   same steps one real at a time, for C and CUDA (blas_gpu.cuh)
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

/* the per-real steps of the format, for C and CUDA (the GPU kernels of
 * blas_gpu.cuh encode and decode with these, one real at a time) */
#ifdef __CUDACC__
#define HALF_HD __host__ __device__
#else
#define HALF_HD
#endif
/* the norm of a block whose largest |x| is maxabs (finite: no NaN or
 * infinity among its reals) */
static inline HALF_HD float half_norm(double maxabs, int finite) { return finite ? (float)maxabs : NAN; }
/* the factor x -> q of a block of norm > 0 */
static inline HALF_HD double half_encode_scale(float norm) { return SOLVER_HALF_ONE / (double)norm; }
static inline HALF_HD int16_t half_quantise(double x, double scale)
{
    double v = nearbyint(x * scale);
    if (v > SOLVER_HALF_ONE) v = SOLVER_HALF_ONE;
    if (v < -SOLVER_HALF_ONE) v = -SOLVER_HALF_ONE;
    return (int16_t)v;
}
/* the factor q -> x */
static inline HALF_HD double half_decode_scale(float norm) { return (double)norm / SOLVER_HALF_ONE; }

static inline HALF_HD void half_block_encode(size_t m, const double *x, int16_t *q, float *norm)
{
    double mx = 0;
    int finite = 1;
    for (size_t k = 0; k < m; k++) {
        double a = fabs(x[k]);
        if (!isfinite(a)) finite = 0;
        else if (a > mx) mx = a;
    }
    float nf = half_norm(mx, finite);
    *norm = nf;
    if (!finite || nf == 0) {
        for (size_t k = 0; k < m; k++) q[k] = 0;
        return;
    }
    double s = half_encode_scale(nf);
    for (size_t k = 0; k < m; k++) q[k] = half_quantise(x[k], s);
}

static inline HALF_HD void half_block_decode(size_t m, const int16_t *q, float norm, double *x)
{
    double s = half_decode_scale(norm);
    for (size_t k = 0; k < m; k++) x[k] = q[k] * s;
}

#endif
