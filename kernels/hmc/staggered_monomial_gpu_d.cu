/* hmc/staggered_monomial_gpu_d.cu -- the launchers of the staggered
 * monomial's device kernels (staggered_monomial_impl.h:
 * stag_mono_gpu_{noise,lincomb,face_pack,force}_d), SU(3), double, the HMC's whole
 * links (gauge_accessor<double, 3, LINK_FULL>); the kernels are
 * staggered_monomial_gpu_kernel.cuh, one instantiation each.  Default
 * stream; a CUDA error ends the program (gpu/util.cu). */
#define LAT_REAL double
#define STAGGERED_NC_MAX 3
#define STAG_MONO_NC_MAX 3
#include "math/spinor.h"
#include "hmc/staggered_monomial_site.h"
#include "dirac/staggered_site.h"
#include "gpu/spinor.h"
extern "C" {
#include "hmc/staggered_monomial_impl.h"
#include "gpu/field.h"
#include "base/log.h"
}
#include <cuda_runtime.h>

namespace smg {
#include "gpu/accessor.cuh"
#include "hmc/staggered_monomial_gpu_kernel.cuh"
} // namespace smg
using namespace smg;

typedef gauge_accessor<double, 3, LINK_FULL> smg_links;

static unsigned blocks(int64_t n) { return (unsigned)((n + SMG_BLOCK - 1) / SMG_BLOCK); }

extern "C" void stag_mono_gpu_noise_d(const struct gpu_field *u, double *out, int full, uint64_t seed, uint32_t copy,
                                      uint32_t trajectory)
{
    const kgeo go = smg_vector_geo(make_geo(u));
    const int n = full ? 2 * go.Vh : go.Vh;
    k_smg_noise<<<blocks(n), SMG_BLOCK>>>(go, out, n, seed, copy, trajectory);
    gpu_check("staggered pseudofermion noise kernel launch");
}

extern "C" void stag_mono_gpu_lincomb_d(int64_t vh, double *out, double a0, const double *eta,
                                        const struct stag_mono_poles *poles)
{
    k_smg_lincomb<<<blocks(vh), SMG_BLOCK>>>((int)vh, out, a0, eta, *poles);
    gpu_check("staggered heatbath sum kernel launch");
}

extern "C" void stag_mono_gpu_face_pack_d(const struct gpu_field *u, const struct stag_mono_poles *poles, double *face)
{
    const kgeo go = smg_vector_geo(make_geo(u));
    k_smg_face_pack<<<blocks(go.V3h), SMG_BLOCK>>>(go, *poles, face);
    gpu_check("staggered force face pack kernel launch");
}

extern "C" void stag_mono_gpu_force_d(const struct gpu_field *u, int ltg, double coeff, const struct stag_mono_poles *poles,
                                      const struct gpu_field *out)
{
    const kgeo gl = make_geo(u), go = smg_vector_geo(gl);
    k_smg_force<smg_links><<<blocks(2 * go.Vh), SMG_BLOCK>>>(gl, go, ltg, (const double *)u->links, coeff, *poles,
                                                              (double *)out->links);
    gpu_check("staggered fermion force kernel launch");
}
