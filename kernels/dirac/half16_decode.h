/* dirac/half16_decode.h -- int16 -> float without a conversion
 * instruction, for C and CUDA (the half sweeps' loads in
 * dirac/gpu_kernel.cuh and dirac/gpu_link16.cuh; the host emulation
 * compiles the same lines):
 *   half16_decode_lo(w), half16_decode_hi(w)   the int16 in bits 0..15,
 *       16..31 of the 32-bit word w, as a float
 *   half16_decode4(w, v)   the 4 int16 of a 64-bit word (an 8-byte load of
 *       4 consecutive int16, little-endian: lowest address in bits 0..15)
 *       into v[0..3]
 *   half16_biased_lo(w), half16_biased_hi(w), half16_biased4(w, m)   the
 *       same up to the subtraction: m = 2^23 + 32768 + q, exact
 *   half16_offset(step)   -(2^23 + 32768) step, the second operand of
 *   half16_scale(m, step, off)   fmaf(m, step, off) = q * step
 * Contract: the decodes are BIT-IDENTICAL to (float)(int16_t)u, and
 * half16_scale(half16_biased_*(w), step, half16_offset(step)) to
 * (float)(int16_t)u * step for every step of at most 15 significant bits
 * (solvers/half.h's norms) with 2^23.01 step finite (tests/unit/
 * test_half16.c checks all 65536 values in both places, and the scaled
 * decode over steps from subnormal to 3e28).  Why the second: a scaled
 * decode (the step of the block, or of the 16-bit links) is then one
 * logic op and one fma, not a logic op, an add and a multiply: the exact
 * product m step less the exact (2^23 + 32768) step = 257 * 2^15 * step
 * (9 + 15 bits) is q step before the fma's one rounding.
 * Why: on sm_90 an int -> float conversion (I2F) issues at 16 a clock per
 * SM, a logic op at 64 and a float add at 128, and a half Mhat decodes some
 * 700 int16 a site.  How: for u the 16 bits, u ^ 0x8000 = q + 32768 is in
 * [0, 65535]; the float of bits 0x4B000000 | (u ^ 0x8000) is 2^23 +
 * q + 32768 (exponent 2^23: the float step is 1 there, the low 23 bits
 * the integer), and subtracting 2^23 + 32768 is exact (both integers below
 * 2^24), which leaves q; q = 0 gives +0 as the conversion does.  The high
 * half: q + 2^23 + 32768 is in [2^23, 2^23 + 65535], so the same bits are
 * the arithmetic shift w >> 16 (q, sign-extended) plus 0x4B008000: a
 * shift and an add, which sm_90 can issue as one shift-add, where the
 * shift, mask and XOR took two (the half Mhat ran 3 % faster with it on an
 * H100, docs/PERFORMANCE.md session 23; the shift of a negative int32 is
 * arithmetic in every compiler lat supports: gcc, clang, nvcc).  Cost:
 * one or two integer ops and one float add (or fma) per int16. */
#ifndef LAT_DIRAC_HALF16_DECODE_H
#define LAT_DIRAC_HALF16_DECODE_H

#include "solvers/half.h" /* HALF_HD, half_bits_float */
#include <stdint.h>

#define HALF16_EXP_BITS 0x4B000000u /* the float 2^23 */
#define HALF16_BIAS_F 8421376.0f    /* 2^23 + 32768 */

static inline HALF_HD float half16_biased_lo(uint32_t w)
{
    return half_bits_float(HALF16_EXP_BITS | ((w & 0xFFFFu) ^ 0x8000u));
}
static inline HALF_HD float half16_biased_hi(uint32_t w)
{
    return half_bits_float((uint32_t)((int32_t)w >> 16) + (HALF16_EXP_BITS | 0x8000u));
}
static inline HALF_HD void half16_biased4(uint64_t w, float m[4])
{
    const uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
    m[0] = half16_biased_lo(lo);
    m[1] = half16_biased_hi(lo);
    m[2] = half16_biased_lo(hi);
    m[3] = half16_biased_hi(hi);
}
static inline HALF_HD float half16_offset(float step) { return -HALF16_BIAS_F * step; }
static inline HALF_HD float half16_scale(float m, float step, float off) { return fmaf(m, step, off); }
static inline HALF_HD float half16_decode_lo(uint32_t w) { return half16_biased_lo(w) - HALF16_BIAS_F; }
static inline HALF_HD float half16_decode_hi(uint32_t w) { return half16_biased_hi(w) - HALF16_BIAS_F; }
static inline HALF_HD void half16_decode4(uint64_t w, float v[4])
{
    half16_biased4(w, v);
    for (int k = 0; k < 4; k++) v[k] -= HALF16_BIAS_F;
}

#endif
