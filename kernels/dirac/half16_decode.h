/* dirac/half16_decode.h -- int16 -> float without a conversion
 * instruction, for C and CUDA (the half sweeps' loads in
 * dirac/gpu_kernel.cuh and dirac/gpu_link16.cuh; the host emulation
 * compiles the same lines):
 *   half16_decode_lo(w), half16_decode_hi(w)   the int16 in bits 0..15,
 *       16..31 of the 32-bit word w, as a float
 *   half16_decode4(w, v)   the 4 int16 of a 64-bit word (an 8-byte load of
 *       4 consecutive int16, little-endian: lowest address in bits 0..15)
 *       into v[0..3]
 * Contract: the result is BIT-IDENTICAL to (float)(int16_t)u
 * (tests/unit/test_half16.c checks all 65536 values in both places).
 * Why: on sm_90 an int -> float conversion (I2F) issues at 16 a clock per
 * SM, a logic op at 64 and a float add at 128, and a half Mhat decodes some
 * 700 int16 a site.  How: for u the 16 bits, u ^ 0x8000 = q + 32768 is in
 * [0, 65535]; the float of bits 0x4B000000 | (u ^ 0x8000) is 2^23 +
 * q + 32768 (exponent 2^23: the float step is 1 there, the low 23 bits
 * the integer), and subtracting 2^23 + 32768 is exact (both integers below
 * 2^24), which leaves q; q = 0 gives +0 as the conversion does.  Cost: one
 * or two logic/shift ops and one float add per int16. */
#ifndef LAT_DIRAC_HALF16_DECODE_H
#define LAT_DIRAC_HALF16_DECODE_H

#include "solvers/half.h" /* HALF_HD, half_bits_float */
#include <stdint.h>

#define HALF16_EXP_BITS 0x4B000000u /* the float 2^23 */
#define HALF16_BIAS_F 8421376.0f    /* 2^23 + 32768 */

static inline HALF_HD float half16_decode_lo(uint32_t w)
{
    return half_bits_float(HALF16_EXP_BITS | ((w & 0xFFFFu) ^ 0x8000u)) - HALF16_BIAS_F;
}
static inline HALF_HD float half16_decode_hi(uint32_t w)
{
    return half_bits_float(HALF16_EXP_BITS | ((w >> 16) ^ 0x8000u)) - HALF16_BIAS_F;
}
static inline HALF_HD void half16_decode4(uint64_t w, float v[4])
{
    const uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
    v[0] = half16_decode_lo(lo);
    v[1] = half16_decode_hi(lo);
    v[2] = half16_decode_lo(hi);
    v[3] = half16_decode_hi(hi);
}

#endif
