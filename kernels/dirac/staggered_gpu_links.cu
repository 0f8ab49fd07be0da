/* dirac/staggered_gpu_links.cu -- the launcher staggered_gpu_links_from_d
 * of staggered_gpu_impl.h: the GPU staggered operator's links (double or
 * float storage, 12, 18 or 8 reals) from an HMC device field (18 doubles),
 * device to device; the kernel is staggered_gpu_links.cuh.  SU(3) only. */
#define LAT_REAL double
#include "math/sun.h"
#include "dirac/staggered_gpu_impl.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>

namespace sgl {
#include "gpu/accessor.cuh"
#include "dirac/staggered_gpu_links.cuh"
} // namespace sgl
using namespace sgl;

typedef gauge_accessor<double, 3, LINK_FULL> sgl_src;

template <typename S> static void launch(const struct gpu_field *dst, const struct gpu_field *src, int shift)
{
    const kgeo gs = make_geo(src), gd = make_geo(dst);
    const unsigned nb = (unsigned)((2 * dst->Vh + SGL_BLOCK - 1) / SGL_BLOCK);
    S *d = (S *)dst->links;
    const double *s = (const double *)src->links;
    sgl_with_recon<S>(dst->recon,
                      [&](auto acc) { k_sg_links_copy<sgl_src, decltype(acc)><<<nb, SGL_BLOCK>>>(gs, gd, shift, s, d); });
}

extern "C" void staggered_gpu_links_from_d(const struct gpu_field *dst, const struct gpu_field *src, int shift)
{
    if (dst->prec == 'd') launch<double>(dst, src, shift);
    else launch<float>(dst, src, shift);
    gpu_check("staggered operator link refresh");
}
