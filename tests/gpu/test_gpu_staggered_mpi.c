/* test_gpu_staggered_mpi.c -- `make check-gpu`: the GPU staggered operator
 * and its multi-shift solves on t-slabs, one GPU per rank
 * (dirac/staggered_gpu.h on a slab: chi of the first slice and U_t^dag chi
 * of the last exchanged while the interior runs; solver_blas_gpu_open_layout
 * with staggered_reduce_layout: one reduction slot per global timeslice).
 * The checks are tests/gpu/staggered_slab_checks.h's, the ones
 * scripts/staggered-slab-emulation runs on the host (there also bit for bit
 * against the CPU): K = (M^dag M)_ee in every storage precision and link
 * compression against the CPU slab operator, the normal view, multi-shift
 * CG (sloppy double and half) to a CPU residual of 2e-10.  Prints one line
 * per case with its number, a "FAIL file:line: ..." line per failed check
 * (unit.h) and "test_gpu_staggered_mpi R=<R>: N passed, M failed".  Usage: test_gpu_staggered_mpi [LxxLyxLzxLt [OUT]]
 * (default 8x8x8x16).  Alone (tests/run-gpu's loop) it runs on one process;
 * tests/run-gpu also runs it under mpirun -np 1 and -np 2 (and -np 2 with
 * LAT_GPU_HALO=host) when two GPUs are visible and compares the OUT files
 * byte for byte (the same bits for any rank count). */
#include "solvers/blas_gpu.h"

static struct solver_blas *ssc_blas_open(const struct solver_reduce_layout *l) { return solver_blas_gpu_open_layout(l); }
static void ssc_blas_close(struct solver_blas *b) { solver_blas_gpu_close(b); }
#include "staggered_slab_checks.h"

int main(int argc, char **argv) { return ssc_main(argc, argv, "test_gpu_staggered_mpi", "8x8x8x16"); }
