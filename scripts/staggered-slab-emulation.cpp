/* staggered-slab-emulation.cpp -- the GPU staggered operator and its
 * solves on t-slabs of an MPI run (kernels/dirac/staggered_gpu.h on a
 * slab: the faces packed, exchanged and read by the boundary launch;
 * kernels/solvers/blas_gpu.cuh with staggered_reduce_layout's
 * per-timeslice reductions) with the kernels run thread by thread on the
 * host, under mpirun -np R (scripts/staggered-slab-emulation builds it,
 * runs R = 1, 2, 4 and compares the results bit for bit across R;
 * tests/emulation.bats).
 *
 * This object is the program: the solvers' emulated vector kernels
 * (blas-gpu-on-host.h, with their C entry points), the device copies as
 * memcpy and gpu/peer.h as MPI messages (gpu-util-on-host.h), and the
 * checks.  Linked with it: the staggered kernels of one compute precision
 * each (scripts/staggered-emulation.cpp's parts 'd' and 's'), and the host
 * sides as the CUDA build compiles them (dirac/staggered_gpu.c with its
 * face exchange through base/comm.c, gpu/field.c, gpu/spinor.c).
 *
 * Usage: staggered-slab-emulation LxxLyxLzxLt OUT.  The checks are
 * tests/gpu/staggered_slab_checks.h's (the real GPUs run the same:
 * tests/gpu/test_gpu_staggered_mpi.c), here with ssc_bits = 1: K against
 * the CPU slab operator in every storage and link compression (double
 * with 18 reals: the CPU's bits), the normal view, multi-shift CG (sloppy
 * double and half) to a CPU residual of 2e-10, every result
 * gathered into OUT, whose bytes must not depend on R.  Prints one line per
 * case and "staggered-slab-emulation R=N: P passed, F failed" (rank 0);
 * exit 1 if any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

#define BLAS_ON_HOST_ENTRY_POINTS /* this object stands for blas_gpu.cu */
#include "blas-gpu-on-host.h"

#define GPU_ON_HOST_REFUSE "staggered-slab-emulation"
#include "gpu-util-on-host.h"

static struct solver_blas *ssc_blas_open(const struct solver_reduce_layout *l) { return blas_gpu_make(l); }
static void ssc_blas_close(struct solver_blas *b) { blas_gpu_destroy(b); }
#include "staggered_slab_checks.h"

int main(int argc, char **argv)
{
    if (argc != 3) lat_die(2, "staggered-slab-emulation", "usage: staggered-slab-emulation LxxLyxLzxLt OUT");
    ssc_bits = 1;
    return ssc_main(argc, argv, "staggered-slab-emulation", argv[1]);
}
