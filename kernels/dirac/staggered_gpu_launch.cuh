/* dirac/staggered_gpu_launch.cuh -- the launch side of the GPU staggered
 * operator in one compute precision (nvcc only: the <<<...>>> launches),
 * included by staggered_gpu_d.cu and staggered_gpu_s.cu after they set
 *     LAT_REAL  the arithmetic (double, float)
 *     SG_STORE  the link storage (double, float)
 *     SG_NS     a namespace for this precision's kernels
 *     SG_ENTRY  the entry point's name (staggered_gpu_sweep_d, _s)
 * It defines SG_ENTRY(w), staggered_gpu_impl.h's launch contract: one
 * launch of k_staggered_hop, or of k_staggered_face for a slab's pack
 * (staggered_gpu_kernel.cuh's sg_launch), SG_BLOCK threads a block, one
 * thread per output (or face) site, on w->stream (the default stream
 * unless a pack's faces go straight to the neighbours), for the
 * field's recon (12, 18, 8) and the vectors' storage (_d: double; _s:
 * float or half).  Instantiations: SU(3) only (STAGGERED_NC_MAX 3), three
 * recons per vector storage and kernel: 6 in _d, 12 in _s. */
#define STAGGERED_NC_MAX 3
#include "math/spinor.h"
#include "dirac/staggered_gpu_impl.h"
#include "dirac/staggered_site.h"
#include "gpu/spinor.h"
#include "solvers/half.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include "gpu/chain.cuh" /* gpu_launch_chained; here, before the kernels' namespace */

#if !defined(SG_STORE) || !defined(SG_NS) || !defined(SG_ENTRY)
#error "define SG_STORE, SG_NS and SG_ENTRY before including dirac/staggered_gpu_launch.cuh"
#endif

namespace SG_NS {
#include "gpu/accessor.cuh"
#include "dirac/staggered_gpu_kernel.cuh"

template <typename VS> static void launch_vs(const struct staggered_gpu_sweep *w)
{
    const cudaStream_t stream = (cudaStream_t)w->stream;
    sg_launch<SG_STORE, VS>(w, [stream](auto kernel, unsigned nb, const kgeo &g, auto *links, const sg_args &a) {
        /* each kernel opens with gpu_chained_begin; chained on one process (gpu/chain.cuh) */
        gpu_launch_chained_when(gpu_chain_operators(), kernel, nb, (unsigned)SG_BLOCK, stream, g, links, a);
    });
}
} // namespace SG_NS

extern "C" void SG_ENTRY(const struct staggered_gpu_sweep *w)
{
    if (w->nsites == 0) return;
#if SG_DOUBLE
    if (w->vprec != SOLVER_DOUBLE) lat_die(1, "staggered GPU", "internal error: double kernels on vectors of precision %d", w->vprec);
    SG_NS::launch_vs<double>(w);
#else
    if (w->vprec == SOLVER_SINGLE) SG_NS::launch_vs<float>(w);
    else if (w->vprec == SOLVER_HALF) SG_NS::launch_vs<int16_t>(w);
    else lat_die(1, "staggered GPU", "internal error: single kernels on double vectors");
#endif
    gpu_check("staggered operator");
}
