/* test_half16.c -- the half format's float steps, the ones the GPU half
 * sweeps run (dirac/gpu_kernel.cuh, dirac/gpu_link16.cuh):
 *   dirac/half16_decode.h: every one of the 65536 int16, in the low and
 *     the high half of a 32-bit word and in each of the 4 places of a
 *     64-bit word (the other places holding other values), decodes to the
 *     bits of (float)(int16_t)u exactly;
 *   the fma decode (half16_biased*, half16_offset, half16_scale): every
 *     int16 times each of 3000 norms from half_norm (block maxima from
 *     1e-44, subnormal steps, to 1e33) gives the bits of (float)q * norm;
 *   solvers/half.h's norm: at most 15 significant bits, not below max /
 *     32767 by more than 2 float roundings (2^-23) nor above it by more
 *     than 2^-14 + 2^-23 relative (normal steps); 0, NaN kept;
 *   solvers/half.h's float steps against the double ones:
 *     half_quantise_f's rounding (the 1.5 x 2^23 trick) = nearbyint
 *     (ties to even) for every multiple of 1/2 in [-35000, 35000], clamped
 *     to +-32767;
 *     a block encoded in float (the kernel's steps: half_norm of the float
 *     max (half_fmax_nan), half_encode_prescale_f, half_encode_scale_f,
 *     half_quantise_own_f, which gives half_quantise_f's q everywhere)
 *     against half_block_encode in double: the same norm, q within 1
 *     (differences only near a rounding tie: |x / norm - (q_d +- 0.5)| <=
 *     TIE = 32767 x 2^-24, what the float factor's rounding, 2^-24
 *     relative, moves a product), q at most half a step + TIE from
 *     x / norm,
 *     for block scales 1e-40 (denormal), 1e-36 (float's 1 / norm would
 *     overflow: the prescale; both subnormal steps), 1e-20 .. 1e30, and
 *     the block's largest |x| giving |q| in 32765..32767 where the step
 *     is normal. */
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

/* the number of significant bits of a positive finite float */
static int sigbits(float f)
{
    uint32_t u = bits(f), m = u >= 0x00800000u ? (u & 0x7FFFFFu) | 0x800000u : u;
    while (m && !(m & 1)) m >>= 1;
    int n = 0;
    while (m) n++, m >>= 1;
    return n;
}

static void norms(void)
{
    uint64_t s = 1;
    long nbits = 0, nlow = 0, nhigh = 0, nfused = 0;
    for (int i = 0; i < 3000; i++) {
        const double mx = i == 0 ? FLT_TRUE_MIN : i == 1 ? FLT_MIN : i == 2 ? 1 : fabs(rnd(&s)) * pow(10, 77 * fabs(rnd(&s)) - 44);
        const float n = half_norm(mx, 1);
        if (n == 0) continue; /* below 4.6e-41: a zero block */
        const double want = (double)(float)mx / SOLVER_HALF_ONE;
        nbits += sigbits(n) > 15;
        if (n >= FLT_MIN) {
            nlow += n < want * (1 - 0x1p-23);
            nhigh += n > want * (1 + 0x1p-14 + 0x1p-23);
        }
        /* the fma decode against (float)q * norm, every q */
        const float off = half16_offset(n);
        for (uint32_t u = 0; u < 65536; u += (i < 300 ? 1 : 61)) {
            const float want_q = (float)(int16_t)(uint16_t)u * n;
            nfused += bits(half16_scale(half16_biased_lo(u), n, off)) != bits(want_q);
            nfused += bits(half16_scale(half16_biased_hi(u << 16), n, off)) != bits(want_q);
        }
    }
    CHECK(nbits == 0, "half_norm: %ld norms with more than 15 significant bits", nbits);
    CHECK(nlow == 0 && nhigh == 0, "half_norm: %ld norms below max/32767, %ld above it by more than 2^-14", nlow, nhigh);
    CHECK(nfused == 0, "the fma decode: %ld values not the bits of (float)q * norm", nfused);
    CHECK(isnan(half_norm(1, 0)) && half_norm(0, 1) == 0 && isinf(half_norm(INFINITY, 1)), "half_norm: NaN, 0 or inf not kept");
    CHECK(half_decode_scale_f(0.25f) == 0.25f && half_decode_scale(0.25f) == 0.25, "the decode factor is not the norm");
    printf("norms: at most 15 significant bits, within [max/32767, (1 + 2^-14) max/32767]; the fma decode gives (float)q * norm\n");
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

/* one block of m reals, the kernel's float steps (dirac/gpu_kernel.cuh's
 * spinor_store); *nclamp counts the q that half_quantise_own_f (no clamp)
 * gives otherwise than half_quantise_f */
static float encode_f(int m, const float *x, int16_t *q, long *nclamp)
{
    float mx = 0;
    for (int k = 0; k < m; k++) mx = half_fmax_nan(mx, fabsf(x[k]));
    const int finite = isfinite(mx);
    const float nf = half_norm(mx, finite);
    if (!(finite && nf > 0)) {
        for (int k = 0; k < m; k++) q[k] = 0;
        return nf;
    }
    const float pre = half_encode_prescale_f(nf), sc = half_encode_scale_f(nf, pre);
    for (int k = 0; k < m; k++) {
        q[k] = half_quantise_own_f(x[k], pre, sc);
        *nclamp += q[k] != half_quantise_f(x[k], pre, sc);
    }
    return nf;
}

static void quantise(void)
{
    const double scales[] = {1e-40, 1e-36, 1e-20, 1e-3, 1, 7.5, 1e10, 1e30};
    uint64_t s = 7;
    for (size_t c = 0; c < sizeof scales / sizeof scales[0]; c++) {
        long ndiff = 0, nfar = 0, nnorm = 0, nreal = 0, nend = 0, nclamp = 0;
        double worst = 0;
        for (int b = 0; b < 4000; b++) {
            float xf[24];
            double xd[24];
            for (int k = 0; k < 24; k++) xd[k] = xf[k] = (float)(rnd(&s) * scales[c]);
            int16_t qf[24], qd[24];
            float nd;
            const float nf = encode_f(24, xf, qf, &nclamp);
            float mxf = 0;
            for (int k = 0; k < 24; k++) mxf = fmaxf(mxf, fabsf(xf[k]));
            half_block_encode(24, xd, qd, &nd);
            nnorm += bits(nf) != bits(nd);
            for (int k = 0; k < 24; k++) {
                nreal++;
                const double exact = xd[k] / (double)nd; /* the target, in double */
                const double e = fabs(qf[k] - exact);
                worst = e > worst ? e : worst;
                if (qf[k] != qd[k]) {
                    ndiff++;
                    nfar += abs(qf[k] - qd[k]) > 1 || fabs(fabs(exact - qd[k]) - 0.5) > TIE;
                }
                if (fabsf(xf[k]) == mxf && nf >= FLT_MIN) nend += abs(qf[k]) < SOLVER_HALF_ONE - 2;
            }
        }
        CHECK(nnorm == 0, "scale %g: %ld float norms differ from the double encoder's", scales[c], nnorm);
        CHECK(nclamp == 0, "scale %g: %ld q of the unclamped quantiser differ from the clamped one's", scales[c], nclamp);
        CHECK(nfar == 0, "scale %g: %ld q differ from the double encoder's by more than 1 or away from a tie", scales[c], nfar);
        CHECK(worst <= 0.5 + TIE, "scale %g: q %.6f steps from x / norm (bound %.6f)", scales[c], worst, 0.5 + TIE);
        CHECK(nend == 0, "scale %g: %ld largest reals of a block not at |q| 32765..32767", scales[c], nend);
        printf("quantise, block scale %-6g: norms equal, %ld of %ld q differ by 1 (at ties), worst %.6f steps\n",
               scales[c], ndiff, nreal, worst);
    }
    /* a zero block and a NaN block: norm 0 / NaN, q = 0 */
    float x[24] = {0};
    int16_t q[24];
    long nclamp = 0;
    CHECK(encode_f(24, x, q, &nclamp) == 0 && q[3] == 0, "a zero block: norm or q not 0");
    x[5] = NAN;
    x[6] = 2;
    const float nn = encode_f(24, x, q, &nclamp);
    CHECK(isnan(nn) && q[6] == 0, "a NaN block: norm %g, q %d (want NaN, 0)", nn, q[6]);
    x[5] = -INFINITY;
    const float ni = encode_f(24, x, q, &nclamp);
    CHECK(isnan(ni) && q[6] == 0, "a block with -inf: norm %g, q %d (want NaN, 0)", ni, q[6]);
    x[5] = 1;
    x[0] = NAN; /* first and last place: half_fmax_nan keeps it */
    CHECK(isnan(encode_f(24, x, q, &nclamp)), "a NaN in place 0: the norm is not NaN");
    x[0] = 1;
    x[23] = NAN;
    CHECK(isnan(encode_f(24, x, q, &nclamp)), "a NaN in place 23: the norm is not NaN");
}

int main(void)
{
    decode_all();
    norms();
    rounding();
    quantise();
    return unit_done("test_half16");
}
