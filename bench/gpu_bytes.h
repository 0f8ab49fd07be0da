/* gpu_bytes.h (bench) -- the bytes the GPU staggered operator and the
 * solvers' GPU vector kernels are counted as moving: the one place of
 * these formulas for bench/staggered_gpu.c, bench/blas_gpu.c and
 * bench/hmc_solve_counts.c (which applies them to counted calls on the
 * CPU).  Header only, no CUDA needed (gpu/spinor.h's layout is plain C).
 *
 *   bytes_real(prec)              bytes of one stored real: 8, 4, 2 (half)
 *   bytes_link_real(prec)         bytes of one link real the operator reads
 *       in that vector precision: 8 for double, 4 (float links) for single
 *       and half
 *   bytes_stag_vector(prec, padded)   one staggered colour vector (6 reals;
 *       8 with the layout's padding, padded = 1) plus half's 4-byte norm:
 *       48, 24, 16 (64, 32, 20 padded)
 *   bytes_stag_site(recon, prec, vectors, padded)   per even site, the seed
 *       paper's way (every thread loads what its hops use, no reuse): 16
 *       links of recon reals (two hop sweeps of 8) and `vectors` colour
 *       vectors.  K = (M^dag M)_ee as staggered_gpu_ee_apply runs it:
 *       STAG_K_VECTORS = 19 (per sweep 8 neighbours and the output, the
 *       second's m^2 x input); double/12: 2448 B.  The normal view's A then
 *       A^dag (staggered_gpu_solver_op_normal, what solver_multishift_cg
 *       applies): STAG_NORMAL_VECTORS = 22 -- A: the odd hop sweep (8
 *       neighbours + output) and the even sweep m x_e (input, output); A^dag:
 *       the even hop sweep with m y_e (8 + 1 + output) and the odd half's
 *       zeros (output): 11 vectors and 8 links per half application.
 *   bytes_vec_stored(nsites, site_reals, prec)   one pass over one solver
 *       vector (read or write): every stored real, padding included
 *       (gpu/spinor.h: nblk * 32 * ncomp), plus half's norms (4 bytes for
 *       each of the nblk * 32 sites).  A vector kernel moves one such pass
 *       per operand read and one per vector written. */
#ifndef LAT_BENCH_GPU_BYTES_H
#define LAT_BENCH_GPU_BYTES_H

#include "gpu/spinor.h"
#include "solvers/solvers.h"

#define STAG_K_VECTORS 19
#define STAG_NORMAL_VECTORS 22

static inline double bytes_real(enum solver_prec p) { return p == SOLVER_DOUBLE ? 8 : p == SOLVER_SINGLE ? 4 : 2; }
static inline double bytes_link_real(enum solver_prec p) { return p == SOLVER_DOUBLE ? 8 : 4; }
static inline double bytes_stag_vector(enum solver_prec p, int padded)
{
    return (padded ? 8 : 6) * bytes_real(p) + (p == SOLVER_HALF ? 4 : 0);
}
static inline double bytes_stag_site(int recon, enum solver_prec p, int vectors, int padded)
{
    return 16.0 * recon * bytes_link_real(p) + vectors * bytes_stag_vector(p, padded);
}
static inline double bytes_vec_stored(int64_t nsites, int site_reals, enum solver_prec p)
{
    return (double)gpu_spinor_storage(nsites, site_reals) * bytes_real(p) +
           (p == SOLVER_HALF ? 4.0 * (double)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES : 0);
}

#endif
