/* dirac/gpu.h -- the even-odd Wilson-clover operator Mhat (dirac.h) on one
 * GPU, with the even-odd system's source preparation, solution
 * reconstruction and full true residual in double: a C interface without CUDA types, usable in every build (without
 * CUDA, dirac_gpu_create returns NULL with the reason).
 *
 *   dirac_gpu_create(cpu, u, recon, why, len)
 *       the device copy of the CPU operator cpu (made by dirac_create on the
 *       same links u: kappa, c_sw, the boundary phases and the clover term
 *       are taken from it, A and A^-1 as dirac_clover_site gives them, so the
 *       same numbers).  SU(3), one process or a t-slab of an MPI run (u and
 *       cpu on the same slab, an even number of timeslices per rank, else
 *       NULL; the device holds the owned slices), recon GPU_RECON_FULL (18), GPU_RECON_12 or GPU_RECON_8 (gpu/field.h):
 *       the links are stored WITHOUT the boundary phases (12 and 8 reals
 *       rebuild SU(3) matrices), in double, in float and in 16 bits; the kernel
 *       multiplies e^{i theta_mu} into a forward hop that crosses the
 *       boundary of mu and the conjugate into a backward one (through U^dag),
 *       exactly dirac.h's definition.  NULL with a one-line reason in
 *       why[len] on refusal; device errors end the program (gpu/util.cu).
 *   dirac_gpu_free(g)
 *   dirac_gpu_nsites(g)        V/2: the sites of an odd half field
 *   dirac_gpu_eo_apply(g, dag, out, in)
 *       out = Mhat in (dag 0) or Mhat^dag in (dag 1) on odd half fields in
 *       gpu/spinor.h's layout (nsites V/2, site_reals 24, site order the
 *       half index of dirac.h), vectors of any precision of solvers.h:
 *       SOLVER_DOUBLE (links, clover and arithmetic double), SOLVER_SINGLE
 *       (float links, float clover, float arithmetic), SOLVER_HALF (int16
 *       spinors + a float norm per site as solvers.h defines it, links and
 *       clover in 16 bits as dirac/gpu_link16.h says -- int16 link reals
 *       of norm 1 (recon 8's phases: pi), the clover as int16 + a float
 *       factor q -> real per site --, converted once by dirac_gpu_create; float
 *       arithmetic).  out and in have the same
 *       precision and must not alias.  Two kernels (dirac.c's two sweeps):
 *       t_e = A_ee^-1 D_eo in into the operator's even scratch vector of that
 *       precision, then out = A_oo in - kappa^2 D_oe t_e.  Asynchronous on
 *       the default stream; one application at a time per operator.
 *       On a slab each sweep is collective (every rank, in the same
 *       order): a kernel packs the two spin-projected faces of the input
 *       (2 spins x 3 colours per site of the first and the last slice; the
 *       backward one already multiplied by U_t^dag, as QUDA does, so no
 *       halo links are kept), they go to the host, the interior slices'
 *       kernel is launched and runs while the host exchanges the faces with
 *       the previous and next rank (base/comm.c), the received faces go
 *       back to the device and the boundary slices' kernel reads them.  The
 *       arithmetic of every site is that of one process (the same
 *       math/spinor.h steps in the same order): R ranks give one process's
 *       bits.  Vectors hold the owned sites (dirac.h's slab order).
 *       LAT_GPU_NO_HALO=1 when the operator is made: no exchange (wrong
 *       results; bench/dirac_gpu's timing without it).
 *   dirac_gpu_set_half_links(g, bits)
 *       what the SOLVER_HALF applications read links and clover in: 16
 *       (the default, above) or 32 (half spinors over the float links and
 *       clover of SOLVER_SINGLE).  Why both: the 16-bit links make the
 *       sloppy operator a fixed perturbation of Mhat of relative size
 *       ~3e-5; BiCGstab on Mhat converges through its reliable updates,
 *       but CG on the normal equations (condition number Mhat's squared,
 *       ~1e8 near kappa_c) does not -- the 24^3x48 solves of
 *       docs/PERFORMANCE.md, session 15 --, so lat-propagator's CGNE takes 32.
 *   dirac_gpu_eo_prepare(g, bhat_o, b_e, b_o)
 *       bhat_o = b_o + kappa D_oe A_ee^-1 b_e (dirac_eo_prepare) from the
 *       source's two halves (b_e: the even half field, dirac.h's order)
 *   dirac_gpu_eo_reconstruct(g, x_e, x_o, b_e)
 *       x_e = A_ee^-1 (b_e + kappa D_eo x_o) (dirac_eo_reconstruct's even
 *       half; the odd half is x_o)
 *   dirac_gpu_residual_norm2(g, blas, x_e, x_o, b_e, b_o, &r2, &b2)
 *       r2 = |b - M x|^2 and b2 = |b|^2 over both parities, M the full
 *       operator (dirac_apply's site arithmetic per parity: A_pp x_p -
 *       kappa D x_{1-p}); the sums by blas, the caller's GPU vector kernels
 *       (solvers/blas_gpu.h, opened with dirac_reduce_layout(op, 1, ...):
 *       one slot per global timeslice, so the same bits for any number of
 *       ranks), as |even part|^2 + |odd part|^2.
 *   These three: double device vectors of the half fields (as
 *   dirac_gpu_vec_new gives), double links and clover, and the CPU's
 *   steps in the CPU's order (the clover term alone: dirac_cpu_clover;
 *   a hop with the local term: the sweeps of Mhat), so prepare and
 *   reconstruct give dirac.c's bits with links in 18 reals where the
 *   device rounds as the host (the emulation; 12 and 8 reals rebuild the
 *   links, and a GPU's fused multiply-adds differ, in the last bits);
 *   the residual agrees with the CPU's to rounding (another summation
 *   order).  The clover-only step runs on each rank's sites alone; the
 *   hops are collective on a slab, as Mhat's sweeps (the operator's even
 *   scratch vector is used: one call at a time per operator).
 *   dirac_gpu_solver_op(s, g)  the solver's view: n = 24 V/2, site_reals 24,
 *       apply/apply_dag on double device storage, apply_f/apply_dag_f on
 *       float device storage (gpu_spinor_storage(V/2, 24) reals), apply_vec
 *       for every precision.  Device pointers: the solver must run with GPU
 *       vector kernels, never the CPU's.
 *   dirac_gpu_vec_new / _free / _upload / _download
 *       a zeroed device vector of the odd half field in a precision (data:
 *       gpu_spinor_storage(V/2, 24) reals; half: + V/2 rounded up to 32
 *       norms); upload a host half field (24 V/2 doubles, dirac.h's order),
 *       rounded (single) or quantised (half, solver_half_quantise) on the
 *       host; download back to doubles.  For tests and the benchmark.
 *   dirac_gpu_block_new(g, prec, ncols)        a zeroed block of ncols columns
 *   dirac_gpu_block_column(g, block, c, &col)   column c of it as a vector
 *   dirac_gpu_col_sites(g)                      the sites a column takes
 *   dirac_gpu_eo_apply_block(g, dag, out, in, ncols)
 *       Mhat (Mhat^dag) on each of ncols columns, one launch per sweep for
 *       them all (one process only).  A block is ncols vectors of the odd
 *       half field, each as dirac_gpu_vec_new lays it out, one after the
 *       other: as a solver_vec, n = ncols x col_sites x 24 with col_sites =
 *       V/2 rounded up to 32 (the sites between two columns are padding,
 *       zero, never written), so the vector kernels treat a block as one
 *       long vector, and col is a view into the block's memory (free the
 *       block, not it).  Each column gets the bits of dirac_gpu_eo_apply on
 *       it (the same arithmetic per site); why a block: the ncols blocks
 *       of threads that read the same links and clover run side by side
 *       (dirac/gpu_sweep.h's nrhs), so only the first reads them from
 *       memory.  The scratch block is kept at the largest ncols seen.
 *       The first k columns of a block are a block of k (n = k col_sites 24).
 *   dirac_gpu_block_solver_op(s, g, ncols)
 *       the solver's view of Mhat on ncols columns as one vector (the
 *       callbacks of dirac_gpu_solver_op on blocks of ncols, n = ncols x 24
 *       V/2): a Krylov solver over it solves the ncols systems in one
 *       recursion.  0, or -1 (nothing set) on a t-slab or where V/2 is not
 *       a multiple of 32 (the columns would not be back to back: the
 *       vector kernels' one long vector would not be the block).  One block
 *       operator per g at a time (the last call's ncols).
 *   dirac_gpu_counts(g, prec, &flop, &bytes, &bytes_paper)
 *       per odd site and application of Mhat (clover as g has it): flop (dirac.h's count: 3696
 *       with clover, 2 x 1320 + 48 without), the bytes the two kernels move
 *       (every read and write of storage: 2 x 8 x (24 spinor + ncomp link
 *       reals) + 24 local + 2 x 24 written + 2 x 72 clover, at the storage
 *       sizes; half: 2-byte spinor, link and clover reals + a 4-byte norm
 *       per spinor and a 4-byte factor per clover site) and by the seed paper's rule (quda-multi-gpu §V.A:
 *       2 x 8 x (24 + link reals) + 2 x 72 + 24 reals, 2976 bytes in single
 *       with 12-real links). */
#ifndef LAT_DIRAC_GPU_H
#define LAT_DIRAC_GPU_H

#include "dirac/dirac.h"
#include "solvers/solvers.h"
#include <stddef.h>
#include <stdint.h>

struct dirac_gpu;

#ifdef __cplusplus
extern "C" {
#endif

struct dirac_gpu *dirac_gpu_create(const struct dirac_op *cpu, const struct field *u, int recon, char *why, size_t len);
void dirac_gpu_free(struct dirac_gpu *g);
int64_t dirac_gpu_nsites(const struct dirac_gpu *g);
void dirac_gpu_eo_apply(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in);
void dirac_gpu_solver_op(struct solver_op *s, struct dirac_gpu *g);
void dirac_gpu_set_half_links(struct dirac_gpu *g, int bits);
void dirac_gpu_eo_prepare(struct dirac_gpu *g, struct solver_vec *bhat_o, const struct solver_vec *b_e,
                          const struct solver_vec *b_o);
void dirac_gpu_eo_reconstruct(struct dirac_gpu *g, struct solver_vec *x_e, const struct solver_vec *x_o,
                              const struct solver_vec *b_e);
void dirac_gpu_residual_norm2(struct dirac_gpu *g, struct solver_blas *blas, const struct solver_vec *x_e,
                              const struct solver_vec *x_o, const struct solver_vec *b_e, const struct solver_vec *b_o,
                              double *r2, double *b2);

struct solver_vec *dirac_gpu_vec_new(const struct dirac_gpu *g, enum solver_prec prec);
void dirac_gpu_vec_free(struct solver_vec *v);
void dirac_gpu_vec_upload(struct solver_vec *v, const double *host);
void dirac_gpu_vec_download(double *host, const struct solver_vec *v);

void dirac_gpu_counts(const struct dirac_gpu *g, enum solver_prec prec, double *flop, double *bytes,
                      double *bytes_paper);

int64_t dirac_gpu_col_sites(const struct dirac_gpu *g);
struct solver_vec *dirac_gpu_block_new(const struct dirac_gpu *g, enum solver_prec prec, int ncols);
void dirac_gpu_block_column(const struct dirac_gpu *g, const struct solver_vec *block, int c, struct solver_vec *col);
void dirac_gpu_eo_apply_block(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in, int ncols);
int dirac_gpu_block_solver_op(struct solver_op *s, struct dirac_gpu *g, int ncols);

#ifdef __cplusplus
}
#endif
#endif
