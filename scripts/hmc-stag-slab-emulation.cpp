/* hmc-stag-slab-emulation.cpp -- the staggered monomial's device path on
 * MPI t-slabs (kernels/hmc/staggered_monomial_gpu.c with the slab GPU
 * solver of kernels/hmc/staggered_gpu_solver.c) without a GPU, under
 * mpirun -np R (scripts/hmc-stag-slab-emulation builds it, runs R = 1, 2, 4
 * and compares the results files across R; tests/emulation.bats).
 *
 * This object: the solvers' GPU vector kernels on the host with their C
 * entry points (blas-gpu-on-host.h: the per-timeslice reductions of
 * blas_gpu_chunks.cuh, comm_sum over the ranks) and the checks of
 * tests/gpu/hmc_stag_mpi_checks.h (with bits = 1: noise bit for bit; phi,
 * S and force within 1e-12 of the CPU monomial on the same slab; S the same
 * on every rank; the results file the same bytes for every R).  Linked
 * with it: scripts/hmc-gauge-slab-emulation.cpp's GPU layer
 * (-DHGM_EMU_NO_MAIN: device memory as host memory, gpu/peer.h as MPI
 * messages, gpu/halo.cu's steps), the monomial's kernels
 * (hmc-stag-emulation.cpp -DHSC_EMU_KERNELS_ONLY), the staggered
 * operator's kernels (staggered-emulation.cpp's parts 'd' and 's'), the
 * gauge HMC's kernels (hmc-gauge-emulation.cpp's launchers) and the host
 * sides as the CUDA build compiles them.
 * The script compiles this object with -DGPU_RED_BS=32 (reduction blocks
 * of 32 threads instead of 256: an eighth of the fibers, the same
 * per-timeslice slots; the time of an emulated reduction is in the fiber
 * switches).
 * With -DHSS_EMU_NO_MAIN: only the vector kernels' layer (the emulated
 * lat-hmc --device gpu links it).
 * Usage: hmc-stag-slab-emulation OUT.  Prints the checks' lines and
 * "hmc-stag-slab-emulation R=<R>: P passed, F failed" (rank 0); exit 1 if
 * any failed. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

#define BLAS_ON_HOST_ENTRY_POINTS /* this object stands for blas_gpu.cu */
#include "blas-gpu-on-host.h"

#ifndef HSS_EMU_NO_MAIN
extern "C" {
#include "base/comm.h"
#include "base/log.h"
#include "gpu/gpu.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
}
#include "unit.h"
#include "slabs.h"
extern "C" {
#include "hmc_stag_mpi_checks.h"
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    lat_progname = "hmc-stag-slab-emulation";
    if (argc != 2) lat_die(2, "hmc-stag-slab-emulation", "usage: hmc-stag-slab-emulation OUT");
    comm_exit(hssm_main("hmc-stag-slab-emulation", argv[1], 1));
}
#endif
