/* staggered-emulation.cpp -- a host check of the GPU staggered operator
 * (kernels/dirac/staggered_gpu.h) without a GPU or nvcc
 * (scripts/staggered-emulation builds and runs it; tests/emulation.bats in
 * `make check`, any CUDA=).
 *
 * Built three times from this one file (SG_EMU_PART):
 *   'd', 's'  kernels/dirac/staggered_gpu_kernel.cuh compiled whole by g++
 *       (scripts/cuda-on-host.h) with LAT_REAL double / float, and the
 *       entry point staggered_gpu_sweep_d / _s of staggered_gpu_impl.h
 *       running k_staggered_hop (or a slab's pack, k_staggered_face)
 *       thread after thread, block after block (sg_launch: the grid
 *       staggered_gpu_launch.cuh launches; no thread of a launch reads what
 *       another writes); scripts/staggered-slab-emulation links these two
 *       parts too;
 *   'm'  the checks, with kernels/dirac/staggered_gpu.c, gpu/field.c and
 *       gpu/spinor.c compiled as the CUDA build compiles them (the device
 *       copies memcpy here: scripts/gpu-util-on-host.h), so the operator's
 *       host side runs as on a GPU.
 * -ffp-contract=off: no fused multiply-add, like the CPU build.
 *
 * Checks (tests/gpu/staggered_checks.h, shared with the real-GPU test
 * tests/gpu/test_gpu_staggered.c; here with bits = 1: the double and
 * single results with 18-real links are the CPU's bits), random SU(3)
 * links (field_set_random), m = 0.05 and 0.5, links in 12, 18 and 8 reals,
 * on 4^3x4, 6x4x4x8 and 6x6x6x4 (V/2 = 432: not a multiple of the 32-site
 * blocks): K against the CPU's (M^dag M)_ee in double (1e-13), single
 * (1e-6; 8 reals 1e-5) and half (1e-3), K Hermitian and positive, the
 * same bits twice, the views _ee and _normal, and the refusals; on 4^3x4
 * the views in solver_cg and solver_multishift_cg (sloppy double, single,
 * half; the vector kernels the CPU's on staged copies, staging_blas.h).
 * Prints "staggered-emulation: N passed, M failed"; exit 1 if any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if SG_EMU_PART == 'd' || SG_EMU_PART == 's'
#include "cuda-on-host.h"
/* ---- the kernels of one precision, run on the host ---- */
#define STAGGERED_NC_MAX 3
#include "math/spinor.h"
extern "C" {
#include "dirac/staggered_gpu_impl.h"
#include "base/log.h"
}
#include "dirac/staggered_site.h"
#include "gpu/spinor.h"
#include "solvers/half.h"
namespace emu {
#include "gpu/accessor.cuh"
#include "dirac/staggered_gpu_kernel.cuh"

template <typename S, typename VS> static void run(const struct staggered_gpu_sweep *w)
{
    sg_launch<S, VS>(w, [](auto kernel, unsigned nb, const kgeo &g, auto *links, const sg_args &a) {
        cuda_on_host_grid(nb, SG_BLOCK, [&] { kernel(g, links, a); });
    });
}
} // namespace emu

#if SG_EMU_PART == 'd'
extern "C" void staggered_gpu_sweep_d(const struct staggered_gpu_sweep *w)
{
    if (w->vprec != SOLVER_DOUBLE || w->links->prec != 'd') lat_die(1, "staggered-emulation", "sweep_d: wrong storage");
    emu::run<double, double>(w);
}
#else
extern "C" void staggered_gpu_sweep_s(const struct staggered_gpu_sweep *w)
{
    if (w->links->prec != 's') lat_die(1, "staggered-emulation", "sweep_s: wrong link storage");
    if (w->vprec == SOLVER_SINGLE) emu::run<float, float>(w);
    else if (w->vprec == SOLVER_HALF) emu::run<float, int16_t>(w);
    else lat_die(1, "staggered-emulation", "sweep_s on double vectors");
}
#endif

#else
/* ---- the checks ---- */
extern "C" {
#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "lattice/field.h"
#include "base/log.h"
}
#include "unit.h"
#include "staggered_checks.h"

/* the device entry points the host side calls: host memory, no GPU */
#define GPU_ON_HOST_REFUSE "staggered-emulation"
#include "gpu-util-on-host.h"

int main(void)
{
    const int dims[3][4] = {{4, 4, 4, 4}, {6, 4, 4, 8}, {6, 6, 6, 4}};
    for (int d = 0; d < 3; d++) {
        struct lattice lat;
        const char *lw;
        lattice_init(&lat, dims[d], &lw);
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 5 + d);
        char lname[64];
        snprintf(lname, sizeof lname, "%dx%dx%dx%d", dims[d][0], dims[d][1], dims[d][2], dims[d][3]);
        const double masses[2] = {0.05, 0.5};
        const int recons[3] = {12, 18, 8};
        for (int mi = 0; mi < 2; mi++)
            for (int r = 0; r < 3; r++) sg_check_one(&u, masses[mi], recons[r], lname, 1);
        if (d == 0) {
            sg_check_refusals(&u);
            sg_check_solvers(&u, 0.05, 12, lname);
            sg_check_solvers(&u, 0.5, 8, lname);
        }
        field_free(&u);
    }
    return unit_done("staggered-emulation");
}
#endif
