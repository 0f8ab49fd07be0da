/* test_half16.c -- the half format's float steps, the ones the GPU half
 * sweeps run (dirac/gpu_kernel.cuh, dirac/gpu_link16.cuh):
 *   dirac/half16_decode.h: every one of the 65536 int16, in the low and
 *     the high half of a 32-bit word and in each of the 4 places of a
 *     64-bit word (the other places holding other values), decodes to the
 *     bits of (float)(int16_t)u exactly;
 *   solvers/half.h's float steps against the double ones:
 *     half_decode_scale_f within 1 float ulp of half_decode_scale (norms
 *     from denormal to 1e30);
 *     half_quantise_f's rounding (the 1.5 x 2^23 trick) = nearbyint
 *     (ties to even) for every multiple of 1/2 in [-35000, 35000], clamped
 *     to +-32767;
 *     a block encoded in float (the kernel's steps: half_norm of the float
 *     max, half_encode_prescale_f, half_encode_scale_f, half_quantise_f)
 *     against half_block_encode in double: the same norm, q within 1
 *     (differences only near a rounding tie: |x 32767 / norm - (q_d +-
 *     0.5)| <= TIE = 32767 x 2^-24, what the float factor's rounding,
 *     2^-24 relative, moves a product), q at most half a step + TIE from
 *     x 32767 / norm,
 *     for block scales 1e-40 (denormal), 1e-36 (float's 32767 / norm
 *     would overflow: the prescale), 1e-20 .. 1e30, and +-norm itself
 *     giving +-32767. */
#include "unit.h"
#include "solvers/half.h"
#include "dirac/half16_decode.h"
#include <float.h>
#include <stdint.h>
#include <string.h>

static uint32_t bits(float f) { return half_float_bits(f); }

/* the float factor 32767 / norm is rounded (2^-24 relative): x times it
 * moves by up to 32767 x 2^-24 steps (+ the double reference's roundings) */
#define TIE (SOLVER_HALF_ONE * 0x1p-24 + 1e-9)

static void decode_all(void)
{
    long bad_lo = 0, bad_hi = 0, bad4[4] = {0, 0, 0, 0};
    for (uint32_t u = 0; u < 65536; u++) {
        const float want = (float)(int16_t)(uint16_t)u;
        const uint32_t other = (u * 40503u + 12345u) & 0xFFFFu; /* a different int16 beside it */
        const uint32_t wlo = u | other << 16, whi = other | u << 16;
        bad_lo += bits(half16_decode_lo(wlo)) != bits(want);
        bad_hi += bits(half16_decode_hi(whi)) != bits(want);
        for (int k = 0; k < 4; k++) {
            uint64_t w = 0;
            for (int j = 0; j < 4; j++)
                w |= (uint64_t)(j == k ? u : (other + 977u * (uint32_t)j) & 0xFFFFu) << (16 * j);
            float v[4];
            half16_decode4(w, v);
            bad4[k] += bits(v[k]) != bits(want);
        }
    }
    CHECK(bad_lo == 0, "half16_decode_lo: %ld of 65536 int16 not the bits of the conversion", bad_lo);
    CHECK(bad_hi == 0, "half16_decode_hi: %ld of 65536 int16 not the bits of the conversion", bad_hi);
    for (int k = 0; k < 4; k++)
        CHECK(bad4[k] == 0, "half16_decode4 place %d: %ld of 65536 int16 not the bits of the conversion", k, bad4[k]);
    /* the ends and zero, spelled out */
    CHECK(half16_decode_lo(0x8000u) == -32768.0f && half16_decode_hi(0x7FFF0000u) == 32767.0f &&
              bits(half16_decode_lo(0)) == 0 && half16_decode_hi(0xFFFF0000u) == -1.0f,
          "half16_decode: -32768, 32767, +0, -1 wrong");
    printf("decode: all 65536 int16 in the low and high half and in the 4 places of a 64-bit word: the conversion's bits\n");
}

/* a deterministic pseudo-random double in [-1, 1) */
static double rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(int64_t)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static void decode_scale(void)
{
    uint64_t s = 1;
    long worst = 0;
    for (int i = 0; i < 200000; i++) {
        const float norm = i == 0 ? FLT_TRUE_MIN : i == 1 ? FLT_MIN : (float)(fabs(rnd(&s)) * pow(10, 70 * fabs(rnd(&s)) - 40));
        const float f = half_decode_scale_f(norm), d = (float)half_decode_scale(norm);
        const long ulps = labs((long)bits(f) - (long)bits(d));
        worst = ulps > worst ? ulps : worst;
    }
    CHECK(worst <= 1, "half_decode_scale_f: %ld float ulps from half_decode_scale (bound 1)", worst);
    CHECK(isnan(half_decode_scale_f(NAN)) && half_decode_scale_f(0) == 0, "half_decode_scale_f: NaN or 0 not kept");
    printf("decode scale: float within %ld ulp of the double quotient (bound 1)\n", worst);
}

static void rounding(void)
{
    long bad = 0;
    for (int k = -70000; k <= 70000; k++) {
        const float x = (float)k / 2;
        double want = nearbyint(x);
        want = want > SOLVER_HALF_ONE ? SOLVER_HALF_ONE : want < -SOLVER_HALF_ONE ? -SOLVER_HALF_ONE : want;
        bad += half_quantise_f(x, 1.0f, 1.0f) != (int16_t)want;
    }
    CHECK(bad == 0, "half_quantise_f: %ld multiples of 1/2 rounded otherwise than nearbyint (+ clamp)", bad);
    printf("rounding: every multiple of 1/2 in [-35000, 35000] as nearbyint, clamped to +-32767\n");
}

/* one block of m reals, the kernel's float steps (dirac/gpu_kernel.cuh's spinor_store) */
static float encode_f(int m, const float *x, int16_t *q)
{
    float mx = 0;
    int finite = 1;
    for (int k = 0; k < m; k++) {
        const float a = fabsf(x[k]);
        if (!isfinite(a)) finite = 0;
        else mx = a > mx ? a : mx;
    }
    const float nf = half_norm(mx, finite);
    const int zero = !(finite && nf > 0);
    const float pre = half_encode_prescale_f(nf), sc = zero ? 0.0f : half_encode_scale_f(nf, pre);
    for (int k = 0; k < m; k++) q[k] = zero ? 0 : half_quantise_f(x[k], pre, sc);
    return nf;
}

static void quantise(void)
{
    const double scales[] = {1e-40, 1e-36, 1e-20, 1e-3, 1, 7.5, 1e10, 1e30};
    uint64_t s = 7;
    for (size_t c = 0; c < sizeof scales / sizeof scales[0]; c++) {
        long ndiff = 0, nfar = 0, nnorm = 0, nreal = 0, nend = 0;
        double worst = 0;
        for (int b = 0; b < 4000; b++) {
            float xf[24];
            double xd[24];
            for (int k = 0; k < 24; k++) xd[k] = xf[k] = (float)(rnd(&s) * scales[c]);
            int16_t qf[24], qd[24];
            float nd;
            const float nf = encode_f(24, xf, qf);
            half_block_encode(24, xd, qd, &nd);
            nnorm += bits(nf) != bits(nd);
            for (int k = 0; k < 24; k++) {
                nreal++;
                const double exact = xd[k] * SOLVER_HALF_ONE / (double)nd; /* the target, in double */
                const double e = fabs(qf[k] - exact);
                worst = e > worst ? e : worst;
                if (qf[k] != qd[k]) {
                    ndiff++;
                    nfar += abs(qf[k] - qd[k]) > 1 || fabs(fabs(exact - qd[k]) - 0.5) > TIE;
                }
                if (fabsf(xf[k]) == nf) nend += qf[k] != (xf[k] > 0 ? SOLVER_HALF_ONE : -SOLVER_HALF_ONE);
            }
        }
        CHECK(nnorm == 0, "scale %g: %ld float norms differ from the double encoder's", scales[c], nnorm);
        CHECK(nfar == 0, "scale %g: %ld q differ from the double encoder's by more than 1 or away from a tie", scales[c], nfar);
        CHECK(worst <= 0.5 + TIE, "scale %g: q %.6f steps from x 32767 / norm (bound %.6f)", scales[c], worst, 0.5 + TIE);
        CHECK(nend == 0, "scale %g: %ld reals of |x| = norm not at +-32767", scales[c], nend);
        printf("quantise, block scale %-6g: norms equal, %ld of %ld q differ by 1 (at ties), worst %.6f steps\n",
               scales[c], ndiff, nreal, worst);
    }
    /* a zero block and a NaN block: norm 0 / NaN, q = 0 */
    float x[24] = {0};
    int16_t q[24];
    CHECK(encode_f(24, x, q) == 0 && q[3] == 0, "a zero block: norm or q not 0");
    x[5] = NAN;
    x[6] = 2;
    const float nn = encode_f(24, x, q);
    CHECK(isnan(nn) && q[6] == 0, "a NaN block: norm %g, q %d (want NaN, 0)", nn, q[6]);
}

int main(void)
{
    decode_all();
    decode_scale();
    rounding();
    quantise();
    return unit_done("test_half16");
}
