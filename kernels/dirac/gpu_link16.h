/* dirac/gpu_link16.h -- the 16-bit storage of the GPU Wilson-clover
 * operator's half sweeps (dirac/gpu.h, SOLVER_HALF), for C and CUDA: the
 * host (dirac/gpu.c) encodes once at dirac_gpu_create, the kernels
 * (dirac/gpu_link16.cuh) decode.  The per-real steps are solvers/half.h's
 * (half_quantise, half_encode_scale, half_decode_scale: q = round(x /
 * norm * 32767), clamped to +-32767); only the norm is fixed here instead
 * of taken per block:
 *   links: the reals gpu_field stores for the link compression `recon`
 *     (gpu/field.h: 18, 12 or 8; the float layout's ncomp: 20, 12, 8) at
 *     half16_index (below), each an int16
 *     with norm 1 (an SU(3) entry has |Re|, |Im| <= 1: step 1/32767, an
 *     error <= 1.5e-5 per real), except su3_pack8's two phases (reals 6
 *     and 7 of recon 8, in [-pi, pi]): norm LINK16_PHASE_NORM, float(pi),
 *     which rounds above pi, so no phase is clamped; su3_pack8's degenerate
 *     flag (real 7 = SU3_PACK8_DEGENERATE, outside [-pi, pi]) is stored as
 *     LINK16_DEGENERATE = -32768, a value no quantised real takes.
 *   clover: the 72 packed reals of a site (dirac/gpu.c's upload_clover)
 *     as one block of solvers/half.h's format (half_block_encode: int16,
 *     the norm the site's largest |real|) at half16_index (one slot); the
 *     kernels get, per site, the float half_decode_scale(norm) (q -> real),
 *     made on the host.
 * Layout (half16_index): blocks of 32 sites, slot after slot, as
 * gpu_index's (gpu/field.h); within a block a site's ncomp reals in groups
 * of 8 (the 32 sites' group side by side: one 16-byte load a lane, a warp
 * reads 512 contiguous bytes) and, where ncomp is 4 mod 8 (12 and 20
 * reals), a last group of 4 (an 8-byte load).  Why not gpu_index's groups
 * of 4, the float layout: an 8-byte load a lane moves half the bytes of a
 * float load for the same instruction, and the half sweep, not its bytes,
 * was then the limit (32^4 on an H100: 0.234 ms against single's 0.347,
 * 1.48x for 1.9x fewer bytes).
 * Exports:
 *   LINK16_PHASE_NORM, LINK16_DEGENERATE
 *   link16_norm(recon, c)         the norm of stored real c
 *   link16_encode(recon, c, x)    x -> int16 (host)
 *   link16_decode_scale(recon, c) q -> x factor (a constant per c: the
 *                                 kernels fold it into lat_real)
 *   link16_decode(recon, c, q)    int16 -> x, the degenerate flag included
 *   half16_index(nblk, ncomp, slot, c, h)  where real c of site h of slot
 *                                 `slot` (of nblk blocks a slot) lives */
#ifndef LAT_DIRAC_GPU_LINK16_H
#define LAT_DIRAC_GPU_LINK16_H

#include "solvers/half.h"
#include "math/sun.h"
#include "dirac/half16_decode.h" /* the kernels' int16 -> float (gpu_link16.cuh, gpu_kernel.cuh) */
#include "gpu/spinor.h"          /* GPU_SPINOR_LANES: the 32 sites of a block */
#include <stddef.h>
#include <stdint.h>

#define LINK16_PHASE_NORM ((float)3.14159265358979323846) /* 3.14159274 > pi */
#define LINK16_DEGENERATE (-32768)

static inline HALF_HD float link16_norm(int recon, int c) { return recon == 8 && c >= 6 ? LINK16_PHASE_NORM : 1.0f; }
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

static inline HALF_HD size_t half16_index(int64_t nblk, int ncomp, int slot, int c, int64_t h)
{
    const int lanes = GPU_SPINOR_LANES, g8 = ncomp / 8 * 8, lane = (int)(h % lanes);
    const size_t blk = ((size_t)slot * (size_t)nblk + (size_t)(h / lanes)) * (size_t)ncomp * lanes;
    return c < g8 ? blk + (size_t)(c / 8 * 8) * lanes + (size_t)lane * 8 + (size_t)(c % 8)
                  : blk + (size_t)g8 * lanes + (size_t)lane * 4 + (size_t)(c - g8);
}

#endif
