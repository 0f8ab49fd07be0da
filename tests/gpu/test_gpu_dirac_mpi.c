/* test_gpu_dirac_mpi.c -- `make check-gpu`: the GPU Wilson-clover operator
 * and its solves on t-slabs, one GPU per rank (dirac/gpu.h on a slab: the
 * spin-projected faces exchanged while the interior runs;
 * solver_blas_gpu_open_layout: one reduction slot per global timeslice).
 * The checks are tests/gpu/dirac_slab_checks.h's, the ones
 * scripts/dirac-slab-emulation runs on the host: Mhat and Mhat^dag in every
 * storage precision and link compression against the CPU operator on the
 * same slab (bounds x 10 for the GPU's fused multiply-adds), CGNE and
 * BiCGstab (double, single and half sloppy) to a true residual of 2e-10,
 * the even-odd ends lat-propagator runs on the device (prepare and
 * reconstruct to 1e-13 of dirac.c's, |b - M x|^2 and |b|^2 to 1e-12 of
 * the CPU's).
 * Usage: test_gpu_dirac_mpi [LxxLyxLzxLt [OUT]] (default 8x8x8x16).  Alone
 * (tests/run-gpu's loop) it runs on one process; tests/run-gpu also runs it
 * under mpirun -np 1 and -np 2 when two GPUs are visible and compares the
 * two OUT files byte for byte (the same bits for any rank count). */
#include "solvers/blas_gpu.h"

static struct solver_blas *dsc_blas_open(const struct solver_reduce_layout *l) { return solver_blas_gpu_open_layout(l); }
static void dsc_blas_close(struct solver_blas *b) { solver_blas_gpu_close(b); }
#include "dirac_slab_checks.h"

int main(int argc, char **argv)
{
    dsc_loose = 10;
    return dsc_main(argc, argv, "test_gpu_dirac_mpi", "8x8x8x16");
}
