/* dirac-slab-emulation.cpp -- the GPU Wilson-clover operator and its solves
 * on t-slabs of an MPI run (kernels/dirac/gpu.h on a slab: spin-projected
 * faces; kernels/solvers/blas_gpu.cuh with a per-timeslice reduction
 * layout) with the kernels run thread by thread on the host, under mpirun
 * -np R (scripts/dirac-slab-emulation builds it, runs R = 1, 2, 4 and
 * compares the results bit for bit across R; tests/emulation.bats).
 *
 * One source, three objects:
 *   -DSLAB_SWEEP=dirac_gpu_sweep_d -DLAT_REAL=double   the double kernels
 *   -DSLAB_SWEEP=dirac_gpu_sweep_s -DLAT_REAL=float    the single and half ones
 *   (none)       the program: the solvers' emulated vector kernels
 *                (with their C entry points solver_blas_gpu_open,
 *                _open_layout, _close: the object, its main weakened, also
 *                links lat-propagator --device gpu)
 *                (blas_gpu.cuh, as scripts/blas-emulation.cpp runs them),
 *                the device copies as memcpy (gpu-util-on-host.h), the host
 *                sides as the CUDA build compiles them (dirac/gpu.c with
 *                its face exchange through base/comm.c, gpu/field.c,
 *                gpu/spinor.c) and the checks.
 *
 * Usage: dirac-slab-emulation LxxLyxLzxLt OUT [quick].  The checks are
 * tests/gpu/dirac_slab_checks.h's (the real GPUs run the same:
 * tests/gpu/test_gpu_dirac_mpi.c): Mhat, Mhat^dag in every storage and link
 * compression against the CPU operator on the slab (double 1e-13), CGNE
 * and BiCGstab (double, single and half sloppy) to a true residual of
 * 2e-10, the even-odd system's ends (dirac_gpu_eo_prepare, _reconstruct:
 * dirac.c's bits; _residual_norm2: the CPU's norms to 1e-13), every
 * result gathered into OUT, whose bytes must not depend on R.
 * Prints one line per case and "dirac-slab-emulation R=N: P passed, F
 * failed" (rank 0); exit 1 if any failed. */
#ifdef SLAB_SWEEP
/* ---- the kernels of one compute precision ------------------------------ */
#include "cuda-on-host.h"
#define DIRAC_NC_MAX 3
#include "math/spinor.h"
#include "dirac/site.h"
extern "C" {
#include "base/log.h"
}
#include "solvers/solvers.h"
#include "solvers/half.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "dirac/gpu_sweep.h"
#include "dirac/gpu_link16.h"
#include <cmath>

namespace slab_kernels {
#include "gpu/accessor.cuh"
#include "dirac/gpu_kernel.cuh"
}

extern "C" void SLAB_SWEEP(const struct dirac_gpu_sweep *w)
{
    slab_kernels::dslash_dispatch(w, [](void (*kernel)(slab_kernels::dslash_args), const slab_kernels::dslash_args &a, int n) {
        cuda_on_host_grid(slab_kernels::dslash_blocks(a, n), 128, [&] { kernel(a); });
    });
}

#else
/* ---- the program ---------------------------------------------------------- */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

#define BLAS_ON_HOST_ENTRY_POINTS /* this object stands for blas_gpu.cu */
#include "blas-gpu-on-host.h"

#define GPU_ON_HOST_REFUSE "dirac-slab-emulation"
#include "gpu-util-on-host.h"

/* the GPU vector kernels' C entry points (solvers/blas_gpu.h), emulated:
 * with the sweeps and the CUDA build's host sides this object links
 * lat-propagator --device gpu too (scripts/dirac-slab-emulation weakens
 * this file's main for that) */

static struct solver_blas *dsc_blas_open(const struct solver_reduce_layout *l) { return blas_gpu_make(l); }
static void dsc_blas_close(struct solver_blas *b) { blas_gpu_destroy(b); }
#include "dirac_slab_checks.h"

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[3], "quick")) {
        dsc_quick = 1;
        argc = 3;
    }
    if (argc != 3) lat_die(2, "dirac-slab-emulation", "usage: dirac-slab-emulation LxxLyxLzxLt OUT [quick]");
    return dsc_main(argc, argv, "dirac-slab-emulation", argv[1]);
}
#endif
