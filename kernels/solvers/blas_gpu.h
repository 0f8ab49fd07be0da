/* solvers/blas_gpu.h -- the GPU vector kernels of the solvers (C interface;
 * blas_gpu.cu with CUDA, blas_gpu_nocuda.c without).
 *
 *   solver_blas_gpu_open()   the table of struct solver_blas (solvers.h) on
 *       device vectors in the layout of gpu/spinor.h (blocks of 32 sites,
 *       groups of 4 reals, padding zero; half = int16 in that layout plus
 *       one float norm per site, nblk * 32 of them).  A vector's data (and
 *       norm) is device memory; the b and x a solver takes are the data of
 *       double vectors of this layout (gpu_spinor_upload/_download move
 *       host vectors in and out).  NULL when this lat was built without
 *       CUDA or no GPU is usable (gpu_available says why).  One process:
 *       under mpirun with more than one rank it ends the program with one
 *       line (no sum over ranks yet).
 *   solver_blas_gpu_open_layout(layout)  the same with a reduction layout
 *       (solvers.h; one chunk per global timeslice, e.g. dirac_reduce_layout):
 *       cdot and norm2 sum per chunk and over ranks in global order (the
 *       same bits for any number of ranks, one process included), so it
 *       runs under mpirun.  The elementwise kernels are unchanged.
 *   solver_blas_gpu_device_loop(blas, d)  collective over the ranks of the
 *       t-slab decomposition d: lets the table's multishift_loop (the
 *       multi-shift CG's recursion in double with its scalars on the
 *       devices, blas_gpu_multishift.cuh) run on R > 1 ranks, its sums
 *       swapped device to device (gpu/peer.h; every rank must be able to map
 *       every other, else it stays off and multishift.c's own loop runs).
 *       On one process the loop is on from open (with a layout); without a
 *       layout it is never used.  LAT_GPU_MULTISHIFT=host keeps it off.
 *   solver_blas_gpu_close(blas)  frees the table (vectors are the caller's).
 *
 * Contracts (blas_gpu.cuh has the details): every kernel takes any mix of
 * double, single and half operands and computes in double; copy, scale,
 * axpy, xpay and caxpby give the bits of solver_blas_cpu (the same
 * operations, no fused multiply-add, half.h's steps); cdot and norm2 sum in
 * double over a fixed grid and fixed trees, the blocks added on the host in
 * order: the same bits run after run, within rounding (not bit for bit) of
 * the CPU's.  The fused members (multi_axpy, multi_caxpby, axpy_norm2,
 * axpy_cdot, multi_axpy_caxpby) give the bits of the unfused calls they replace, in fewer
 * launches (blas_gpu_fused.cuh).  Kernels run on the default stream; the
 * reductions return after the device has finished. */
#ifndef LAT_SOLVERS_BLAS_GPU_H
#define LAT_SOLVERS_BLAS_GPU_H

#include "solvers/solvers.h"

#ifdef __cplusplus
extern "C" {
#endif
struct solver_blas *solver_blas_gpu_open(void);
struct solver_blas *solver_blas_gpu_open_layout(const struct solver_reduce_layout *layout);
struct geometry;
void solver_blas_gpu_device_loop(struct solver_blas *blas, const struct geometry *d);
void solver_blas_gpu_close(struct solver_blas *blas);
#ifdef __cplusplus
}
#endif

#endif
