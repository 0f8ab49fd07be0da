/* hmc-stag-emulation.cpp -- the staggered monomial's device path
 * (kernels/hmc/staggered_monomial_gpu.c: refresh_gpu, action_gpu,
 * force_gpu) run on the host without a GPU or nvcc, against the host
 * callbacks (scripts/hmc-stag-emulation builds and runs it;
 * tests/emulation.bats in `make check`, any CUDA=).
 *
 * What runs as on a GPU, thread by thread: the monomial's kernels
 * (kernels/hmc/staggered_monomial_gpu_kernel.cuh: noise, heatbath sum,
 * fermion force) and the operator's link refresh
 * (kernels/dirac/staggered_gpu_links.cuh), compiled whole here with
 * scripts/cuda-on-host.h, launched with the grids of their .cu files; the
 * staggered operator's kernels (scripts/staggered-emulation.cpp's parts
 * 'd' and 's', linked in); the solvers' vector kernels of
 * kernels/solvers/blas_gpu.cuh (included whole, launched as
 * hmc-gpu-emulation.cpp does: the reductions' blocks as fibers).  The host
 * sides (gpu/field.c, gpu/spinor.c, dirac/staggered_gpu.c,
 * dirac/staggered_gpu_fields.c, hmc/staggered_gpu_solver.c,
 * hmc/staggered_monomial_gpu.c) compiled as the CUDA build compiles them
 * (device memory is host memory).  -ffp-contract=off: no fused
 * multiply-add, like the CPU build.
 *
 * Checks: tests/gpu/hmc_stag_checks.h's hsc_run (shared with the real
 * GPU's tests/gpu/test_gpu_hmc_stag.c) with bits = 1 on 4^3x8 and 6^3x4
 * (V/2 not a multiple of the 32-site blocks): the device link refresh and
 * the noise bit for bit, phi, S and the force of both modes within 1e-12
 * relative of the host callbacks', mixed MD forces within 1e-6; on 4^3x8
 * the force against a numerical derivative of action_gpu.
 * Prints "hmc-stag-emulation: N passed, M failed".
 * Built with -DHSC_EMU_KERNELS_ONLY it is only the emulated launchers
 * (staggered_gpu_links_from_d, stag_mono_gpu_{noise,lincomb,face_pack,force}_d): the
 * object other emulations link when they link the staggered monomial
 * (scripts/hmc-gpu-emulation; in a CUDA build tree the library's launchers
 * would need the CUDA runtime). */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

#ifndef HSC_EMU_KERNELS_ONLY
/* ---- the solvers' GPU vector kernels on the host, with the C entry points
 * of blas_gpu.cu */
#define BLAS_ON_HOST_ENTRY_POINTS
#include "blas-gpu-on-host.h"

#endif

/* ---- the monomial's and the link refresh's kernels ---- */
#define STAGGERED_NC_MAX 3
#define STAG_MONO_NC_MAX 3
#include "math/spinor.h"
#include "hmc/staggered_monomial_site.h"
#include "dirac/staggered_site.h"
#include "gpu/spinor.h"
extern "C" {
#include "hmc/staggered_monomial_impl.h"
#include "dirac/staggered_gpu_impl.h"
#include "gpu/field.h"
#include "base/log.h"
}
namespace emu {
#include "gpu/accessor.cuh"
#include "dirac/staggered_gpu_links.cuh"
#include "hmc/staggered_monomial_gpu_kernel.cuh"
} // namespace emu
using namespace emu;
typedef gauge_accessor<double, 3, LINK_FULL> hmc_links;

static unsigned blocks(int64_t n, unsigned bs) { return (unsigned)((n + bs - 1) / bs); }

/* the launchers of staggered_gpu_links.cu and staggered_monomial_gpu_d.cu,
 * every thread of the same grids in turn (no thread reads what another
 * writes) */
template <typename S> static void links_copy(const struct gpu_field *dst, const struct gpu_field *src, int shift)
{
    const kgeo gs = make_geo(src), gd = make_geo(dst);
    S *d = (S *)dst->links;
    const double *s = (const double *)src->links;
    sgl_with_recon<S>(dst->recon, [&](auto acc) {
        cuda_on_host_grid(blocks(2 * dst->Vh, SGL_BLOCK), SGL_BLOCK,
                          [&] { k_sg_links_copy<hmc_links, decltype(acc)>(gs, gd, shift, s, d); });
    });
}
extern "C" void staggered_gpu_links_from_d(const struct gpu_field *dst, const struct gpu_field *src, int shift)
{
    if (dst->prec == 'd') links_copy<double>(dst, src, shift);
    else links_copy<float>(dst, src, shift);
}

extern "C" void stag_mono_gpu_noise_d(const struct gpu_field *u, double *out, int full, uint64_t seed, uint32_t copy,
                                      uint32_t trajectory)
{
    const kgeo go = smg_vector_geo(make_geo(u));
    const int n = full ? 2 * go.Vh : go.Vh;
    cuda_on_host_grid(blocks(n, SMG_BLOCK), SMG_BLOCK, [&] { k_smg_noise(go, out, n, seed, copy, trajectory); });
}

extern "C" void stag_mono_gpu_lincomb_d(int64_t vh, double *out, double a0, const double *eta,
                                        const struct stag_mono_poles *poles)
{
    cuda_on_host_grid(blocks(vh, SMG_BLOCK), SMG_BLOCK, [&] { k_smg_lincomb((int)vh, out, a0, eta, *poles); });
}

extern "C" void stag_mono_gpu_face_pack_d(const struct gpu_field *u, const struct stag_mono_poles *poles, double *face)
{
    const kgeo go = smg_vector_geo(make_geo(u));
    cuda_on_host_grid(blocks(go.V3h, SMG_BLOCK), SMG_BLOCK, [&] { k_smg_face_pack(go, *poles, face); });
}

extern "C" void stag_mono_gpu_force_d(const struct gpu_field *u, int ltg, double coeff, const struct stag_mono_poles *poles,
                                      const struct gpu_field *out)
{
    const kgeo gl = make_geo(u), go = smg_vector_geo(gl);
    cuda_on_host_grid(blocks(2 * go.Vh, SMG_BLOCK), SMG_BLOCK, [&] {
        k_smg_force<hmc_links>(gl, go, ltg, (const double *)u->links, coeff, *poles, (double *)out->links);
    });
}

#ifndef HSC_EMU_KERNELS_ONLY
extern "C" {
#include "solvers/blas_gpu.h"
#include "lattice/field.h"
}
#include "unit.h"
extern "C" {
#include "hmc_stag_checks.h"
}


/* the GPU layer's host entry points (memory, device, refused halo and
 * observables): the one copy in scripts/gpu-util-on-host.h */
#define GPU_ON_HOST_REFUSE "hmc-stag-emulation"
#include "gpu-util-on-host.h"

int main(void)
{
    lat_progname = "hmc-stag-emulation";
    /* 6^3x4: V/2 = 432 sites, not whole 32-site blocks (the odd half of
     * a normal-view vector starts inside a block); the numerical
     * derivative (two more solves a mode) on 4^3x8 only, for time */
    const int dims[2][4] = {{4, 4, 4, 8}, {6, 6, 6, 4}};
    for (int d = 0; d < 2; d++) hsc_run(dims[d], 1, d == 0);
    return unit_done("hmc-stag-emulation");
}
#endif
