/* hmc-gpu-emulation.cpp -- lat-hmc's GPU solver backend
 * (kernels/hmc/staggered_gpu_solver.h) run on the host without a GPU or
 * nvcc, one whole HMC trajectory of the staggered monomial against the
 * CPU path (scripts/hmc-gpu-emulation builds and runs it; tests/emulation.bats
 * in `make check`, any CUDA=).
 *
 * What runs as on a GPU: the staggered kernels of
 * kernels/dirac/staggered_gpu_kernel.cuh thread by thread
 * (scripts/staggered-emulation.cpp's parts 'd' and 's', linked in), the
 * solvers' vector kernels of kernels/solvers/blas_gpu.cuh (included whole
 * here, launched as scripts/blas-emulation.cpp does: threads one after the
 * other, fibers between the barriers of the reductions), and the host sides
 * dirac/staggered_gpu.c, hmc/staggered_gpu_solver.c, gpu/field.c and
 * gpu/spinor.c compiled as the CUDA build compiles them (device memory is
 * host memory).  The monomial, integrator and gauge action are the
 * library's.  -ffp-contract=off: no fused multiply-add, like the CPU build.
 *
 * Checks: tests/gpu/hmc_checks.h's hc_run on 4^4 (shared with the real
 * GPU's tests/gpu/test_gpu_hmc.c): one trajectory of N_f = 2 RHMC and
 * N_f = 4 exact HMC, GPU path against CPU path, dH within 1e-9, links
 * within 1e-10, mixed MD solves within 1e-6 in dH, the condensate.
 * Built with -DHMC_EMU_NO_MAIN it is the emulated GPU layer of
 * tools/lat-hmc.c instead (gpu_available says yes): scripts/hmc-gpu-emulation
 * runs that lat-hmc --device gpu against bin/lat-hmc --device cpu.
 * Prints the numbers and "hmc-gpu-emulation: N passed, M failed". */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

/* ---- the solvers' GPU vector kernels on the host, with the C entry points
 * of blas_gpu.cu */
#define BLAS_ON_HOST_ENTRY_POINTS
#include "blas-gpu-on-host.h"

extern "C" {
#include "solvers/blas_gpu.h"
#include "lattice/field.h"
#include "base/log.h"
}
#include "unit.h"
extern "C" {
#include "hmc_checks.h"
}


/* the GPU layer's host entry points (memory, device, refused halo and
 * observables): the one copy in scripts/gpu-util-on-host.h */
#define GPU_ON_HOST_REFUSE "hmc-gpu-emulation"
#include "gpu-util-on-host.h"

#ifndef HMC_EMU_NO_MAIN /* without: the objects lat-hmc links (scripts/hmc-gpu-emulation) */
int main(void)
{
    const int L[4] = {4, 4, 4, 4};
    hc_run(L);
    return unit_done("hmc-gpu-emulation");
}
#endif
