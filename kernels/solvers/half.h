/* solvers/half.h -- the half-precision format of one site block, the only
 * place its formula is written (half.c and blas_cpu.c use it; HALF_HD, so
 * GPU kernels that store half vectors call the same functions:
 * dirac/staggered_gpu_kernel.cuh):
 *   half_block_encode(m, x, q, norm)  m reals x (double) -> q[m], *norm
 *   half_block_decode(m, q, norm, x)  back to double
 *   half_norm, half_encode_scale, half_quantise, half_decode_scale: the
 *   same steps one real at a time, for C and CUDA (blas_gpu.cuh)
 *   half_decode_scale_f, half_encode_prescale_f, half_encode_scale_f,
 *   half_quantise_f: the steps in float, for kernels that compute in float
 *   (dirac/gpu_kernel.cuh's half sweeps), with half_float_bits and
 *   half_bits_float (the bit casts, host and device)
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
#include <string.h>

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

/* The same steps in float arithmetic.  Why a second set: on the GPU a
 * double operation, a float <-> double conversion and a float <-> int
 * conversion each cost many float operations (sm_90: 16 conversions a
 * clock per SM against 128 float FMAs), and a half sweep of the Wilson
 * operator quantises 24 reals a site.  They may differ from the double
 * steps in the last bit of the factor and so, at a rounding tie, by one
 * in q (tests/unit/test_half16.c bounds both); the format is the same. */
static inline HALF_HD uint32_t half_float_bits(float f)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__float_as_int(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}
static inline HALF_HD float half_bits_float(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __int_as_float((int)u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}
/* the factor q -> x in float: one multiply, no division (1/32767 rounded
 * to float: within an ulp or so of half_decode_scale's correctly rounded
 * quotient) */
static inline HALF_HD float half_decode_scale_f(float norm) { return norm * (float)(1.0 / SOLVER_HALF_ONE); }
/* q = round(x * 32767 / norm) in float: scale = 32767 / norm overflows
 * float for norm < 32767 / FLT_MAX (~1e-34), so such a block is first
 * multiplied by 2^64 (exact: a power of two), pre; then q = the nearest
 * integer to (x pre) scale, exactly as if float had more exponent */
static inline HALF_HD float half_encode_prescale_f(float norm) { return norm < 0x1p-64f ? 0x1p64f : 1.0f; }
static inline HALF_HD float half_encode_scale_f(float norm, float pre) { return (float)SOLVER_HALF_ONE / (norm * pre); }
/* 1.5 x 2^23: y = v + it lies in [2^23, 2^24) for |v| < 2^22, where the
 * float step is 1, so y is v rounded to the nearest integer (ties to
 * even), and y's bits are 0x4B400000 + that integer: no float -> int
 * conversion.  fmaf rounds once, so q is the nearest integer to the exact
 * (x pre) scale, on the host and the GPU alike (no contraction choice). */
#define HALF_ROUND_MAGIC_F 12582912.0f
#define HALF_ROUND_MAGIC_BITS 0x4B400000u
static inline HALF_HD int16_t half_quantise_f(float x, float pre, float scale)
{
    const float y = fmaf(x * pre, scale, HALF_ROUND_MAGIC_F);
    int32_t n = (int32_t)(half_float_bits(y) - HALF_ROUND_MAGIC_BITS);
    n = n > SOLVER_HALF_ONE ? SOLVER_HALF_ONE : n;
    n = n < -SOLVER_HALF_ONE ? -SOLVER_HALF_ONE : n;
    return (int16_t)n;
}

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
