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
 *   half_bits_float (the bit casts, host and device); half_quantise_own_f
 *   (no clamp: a block with its own norm) and half_fmax_nan (a max that
 *   keeps NaN) for the same kernels' stores
 *   half_step_round(f)  f rounded up to 15 significant bits (the norm's
 *   last step, exported for the tests)
 * A block is int16 q_k and one float, its "norm" (the name of the arrays
 * that hold it): the block's step, x_k = q_k * norm.  norm = max |x_k| /
 * 32767 rounded up to 15 significant bits (half_norm: below 3.9e-34 the
 * subnormal step is coarser); q_k = round(x_k / norm), clamped to +-32767
 * (the float roundings of max/32767 may leave the step a few 2^-24 below
 * it).  The largest |q_k| of a block is 32765..32767 (normal steps).
 * Why 15 bits: a kernel decodes q through the float of bits 0x4B000000 |
 * (q ^ 0x8000), m = 2^23 + 2^15 + q (dirac/half16_decode.h), and then
 * x = fmaf(m, norm, -(2^23 + 2^15) norm) in one instruction, bit for bit
 * (float)q * norm, when (2^23 + 2^15) norm = 257 * 2^15 * norm is exact in
 * float: 9 + 15 significant bits.  (The step's rounding costs at most
 * 2^-14 of a step's resolution.)  A zero block has norm 0 and q = 0.  A
 * block with a NaN or infinity keeps it in its norm (and q = 0 there), so
 * decoding gives NaN: a solver sees the breakdown instead of a silent
 * zero. */
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
/* the bit casts, host and device */
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
/* count leading zeros, host and device */
static inline HALF_HD int half_clz32(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __clz((int)u);
#else
    return __builtin_clz(u);
#endif
}
/* f > 0 rounded up to at most 15 significant bits (normal: the low 9 of
 * the 23 stored bits cleared; subnormal: all but 15 bits below the leading
 * one); 0, infinity and NaN stay what they are */
static inline HALF_HD float half_step_round(float f)
{
    const uint32_t u = half_float_bits(f);
    uint32_t drop = 0x1FFu;
    if (u < 0x00800000u) { /* 0 or subnormal (f >= 0) */
        const int lead = u ? 31 - half_clz32(u) : 0;
        drop = lead > 14 ? (1u << (lead - 14)) - 1 : 0;
    }
    return half_bits_float((u + drop) & ~drop);
}
/* the norm (step) of a block whose largest |x| is maxabs (finite: no NaN
 * or infinity among its reals): float arithmetic, so that the host and
 * the kernels give the same bits.  A subnormal product (maxabs < 32767
 * FLT_MIN = 3.9e-34) is rounded up to the next subnormal where it fell
 * below maxabs / 32767 (exact test: an fma), so that no q is clamped; such
 * a block keeps fewer bits (its step is coarse: 2 bits at 1e-40). */
static inline HALF_HD float half_norm(double maxabs, int finite)
{
    if (!finite) return NAN;
    const float mx = (float)maxabs;
    float p = mx * (float)(1.0 / SOLVER_HALF_ONE);
    if (p < 0x1p-126f && fmaf(p, (float)SOLVER_HALF_ONE, -mx) < 0) p = half_bits_float(half_float_bits(p) + 1);
    return half_step_round(p);
}
/* the factor x -> q of a block of norm > 0 */
static inline HALF_HD double half_encode_scale(float norm) { return 1.0 / (double)norm; }
static inline HALF_HD int16_t half_quantise(double x, double scale)
{
    double v = nearbyint(x * scale);
    if (v > SOLVER_HALF_ONE) v = SOLVER_HALF_ONE;
    if (v < -SOLVER_HALF_ONE) v = -SOLVER_HALF_ONE;
    return (int16_t)v;
}
/* the factor q -> x: the norm itself */
static inline HALF_HD double half_decode_scale(float norm) { return (double)norm; }

/* The same steps in float arithmetic.  Why a second set: on the GPU a
 * double operation, a float <-> double conversion and a float <-> int
 * conversion each cost many float operations (sm_90: 16 conversions a
 * clock per SM against 128 float FMAs), and a half sweep of the Wilson
 * operator quantises 24 reals a site.  The float factor 1/norm may differ
 * from the double one in its last bit and so, at a rounding tie, q by one
 * (tests/unit/test_half16.c bounds it); the format is the same. */
/* the factor q -> x in float: the norm */
static inline HALF_HD float half_decode_scale_f(float norm) { return norm; }
/* q = round(x / norm) in float: 1 / norm overflows float for norm <
 * 1 / FLT_MAX (~3e-39), so such a block is first multiplied by 2^64
 * (exact: a power of two), pre; then q = the nearest integer to (x pre)
 * scale, exactly as if float had more exponent */
static inline HALF_HD float half_encode_prescale_f(float norm) { return norm < 0x1p-64f ? 0x1p64f : 1.0f; }
static inline HALF_HD float half_encode_scale_f(float norm, float pre) { return 1.0f / (norm * pre); }
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

/* half_quantise_f without the clamp, for a block quantised with its own
 * norm (half_norm of its largest |x|, half_encode_scale_f): the norm is at
 * least max / 32767 (1 - 2^-23) and the factor 2^-24 above 1 / norm, so
 * |x pre scale| <= 32767 (1 + 2^-22) rounds to at most 32767
 * (tests/unit/test_half16.c: the same q as half_quantise_f) */
static inline HALF_HD int16_t half_quantise_own_f(float x, float pre, float scale)
{
    return (int16_t)(int32_t)(half_float_bits(fmaf(x * pre, scale, HALF_ROUND_MAGIC_F)) - HALF_ROUND_MAGIC_BITS);
}
/* max(a, b) where a NaN in either gives NaN (fmaxf drops it): the block's
 * largest |x| and whether all are finite in one pass */
static inline HALF_HD float half_fmax_nan(float a, float b)
{
#ifdef __CUDA_ARCH__
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a != a || b != b ? NAN : fmaxf(a, b);
#endif
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
