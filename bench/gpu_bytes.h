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
 *       per operand read and one per vector written.
 *   bytes_ms_passes(call)   the passes of one multi-shift vector call
 *       (solver_multishift_cg's x_i and p_i updates, n shifts): of the one
 *       shared operand r per call, of each p_i, of each x_i --
 *         multi_axpy        x_i += a_i p_i           r 0, p 1, x 2
 *         multi_caxpby      p_i = b_i r + c_i p_i    r 1, p 2, x 0
 *         multi_axpy_caxpby both, p_i read once      r 1, p 2, x 2
 *       (the fused form saves one p_i read per shift); the one table
 *       bench/hmc_solve_counts prices these calls with
 *   bytes_ms_iteration(nsites, site_reals, sloppy, nshift, form)   one
 *       multi-shift CG iteration's vector work, r, q, p_i in `sloppy`, x_i
 *       in double: q += sigma p_base with <p_base, q>, r -= alpha q with
 *       |r|^2, then the x_i and p_i updates; form BYTES_MS_UNFUSED the
 *       unfused calls (axpy + cdot, axpy + norm2: 5 and 4 passes; per shift
 *       axpy and caxpby, r read by each caxpby), BYTES_MS_FUSED the fused
 *       ones (axpy_cdot, axpy_norm2: 3 passes each, the sum taken from what
 *       was just stored; multi_axpy, multi_caxpby), BYTES_MS_FUSED_XP the
 *       same with multi_axpy_caxpby (what the solver runs in an iteration
 *       without the base's reliable update). */
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

enum bytes_ms_call { BYTES_MULTI_AXPY, BYTES_MULTI_CAXPBY, BYTES_MULTI_AXPY_CAXPBY };
struct bytes_ms_pass_counts {
    int shared, p, x; /* passes of r (per call), of each p_i, of each x_i */
};
static inline struct bytes_ms_pass_counts bytes_ms_passes(enum bytes_ms_call call)
{
    struct bytes_ms_pass_counts c = {0, 1, 2}; /* multi_axpy: p_i read, x_i read and written */
    if (call == BYTES_MULTI_CAXPBY) c = (struct bytes_ms_pass_counts){1, 2, 0};
    if (call == BYTES_MULTI_AXPY_CAXPBY) c = (struct bytes_ms_pass_counts){1, 2, 2};
    return c;
}

enum { BYTES_MS_UNFUSED, BYTES_MS_FUSED, BYTES_MS_FUSED_XP };
static inline double bytes_ms_iteration(int64_t nsites, int site_reals, enum solver_prec sloppy, int nshift, int form)
{
    const double vs = bytes_vec_stored(nsites, site_reals, sloppy), vd = bytes_vec_stored(nsites, site_reals, SOLVER_DOUBLE);
    const int unfused = form == BYTES_MS_UNFUSED; /* a call per shift: r read by each caxpby */
    double b = (unfused ? 5 + 4 : 3 + 3) * vs;    /* q += sigma p, <p, q>; r -= alpha q, |r|^2 */
    const enum bytes_ms_call calls[2] = {BYTES_MULTI_AXPY, BYTES_MULTI_CAXPBY}, xp = BYTES_MULTI_AXPY_CAXPBY;
    for (int k = 0; k < (form == BYTES_MS_FUSED_XP ? 1 : 2); k++) {
        const struct bytes_ms_pass_counts c = bytes_ms_passes(form == BYTES_MS_FUSED_XP ? xp : calls[k]);
        b += c.shared * vs * (unfused ? nshift : 1) + nshift * (c.p * vs + c.x * vd);
    }
    return b;
}

#endif
