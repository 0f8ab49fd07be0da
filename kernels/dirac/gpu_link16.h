/* dirac/gpu_link16.h -- the 16-bit storage of the GPU Wilson-clover
 * operator's half sweeps (dirac/gpu.h, SOLVER_HALF), for C and CUDA: the
 * host (dirac/gpu.c) encodes once at dirac_gpu_create, the kernels
 * (dirac/gpu_link16.cuh) decode.  The per-real steps are solvers/half.h's
 * (half_norm, half_quantise, half_encode_scale, half_decode_scale: q =
 * round(x / step), clamped to +-32767); only the step is fixed here
 * instead of taken per block:
 *   links: the reals gpu_field stores for the link compression `recon`
 *     (gpu/field.h: 18, 12 or 8) in the float layout's places
 *     (gpu_index with vec 4 and the float ncomp: 20, 12, 8), each an int16
 *     with the step of a block of largest |x| 1 (an SU(3) entry has |Re|,
 *     |Im| <= 1: step 1/32767 rounded up to 15 bits, an error <= 1.5e-5 per
 *     real), except su3_pack8's two phases (reals 6 and 7 of recon 8, in
 *     [-pi, pi]): the step of largest |x| LINK16_PHASE_MAX, float(pi),
 *     which rounds above pi, so no phase is clamped; su3_pack8's degenerate
 *     flag (real 7 = SU3_PACK8_DEGENERATE, outside [-pi, pi]) is stored as
 *     LINK16_DEGENERATE = -32768, a value no quantised real takes.
 *   clover: the 72 packed reals of a site (dirac/gpu.c's upload_clover)
 *     as one block of solvers/half.h's format (half_block_encode: int16,
 *     the norm the site's largest |real|); the kernels get, per site, the
 *     float half_decode_scale(norm) (q -> real), made on the host.
 * Exports:
 *   LINK16_PHASE_MAX, LINK16_DEGENERATE
 *   link16_norm(recon, c)         the norm (step, solvers/half.h) of stored
 *                                 real c
 *   link16_encode(recon, c, x)    x -> int16 (host)
 *   link16_decode_scale(recon, c) q -> x factor (a constant per c: the
 *                                 kernels fold it into lat_real)
 *   link16_decode(recon, c, q)    int16 -> x, the degenerate flag included */
#ifndef LAT_DIRAC_GPU_LINK16_H
#define LAT_DIRAC_GPU_LINK16_H

#include "solvers/half.h"
#include "math/sun.h"
#include "dirac/half16_decode.h" /* the kernels' int16 -> float (gpu_link16.cuh, gpu_kernel.cuh) */
#include <stdint.h>

#define LINK16_PHASE_MAX ((float)3.14159265358979323846) /* 3.14159274 > pi */
#define LINK16_DEGENERATE (-32768)

static inline HALF_HD float link16_norm(int recon, int c)
{
    return half_norm(recon == 8 && c >= 6 ? LINK16_PHASE_MAX : 1.0f, 1);
}
static inline HALF_HD double link16_decode_scale(int recon, int c) { return half_decode_scale(link16_norm(recon, c)); }
static inline HALF_HD int16_t link16_encode(int recon, int c, double x)
{
    if (recon == 8 && c == 7 && x > 4) return (int16_t)LINK16_DEGENERATE; /* su3_pack8's flag */
    return half_quantise(x, half_encode_scale(link16_norm(recon, c)));
}
static inline HALF_HD double link16_decode(int recon, int c, int16_t q)
{
    if (recon == 8 && c == 7 && q == LINK16_DEGENERATE) return SU3_PACK8_DEGENERATE;
    return q * link16_decode_scale(recon, c);
}

#endif
