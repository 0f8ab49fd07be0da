/* dirac/gpu_launch.cuh -- the launches of the GPU Dirac kernels in one
 * compute precision (nvcc only): included by dirac/gpu_d.cu (LAT_REAL
 * double: double spinors, links, clover) and dirac/gpu_s.cu (LAT_REAL
 * float: float spinors over float links and clover, half spinors over
 * 16-bit links and clover) after they set
 *     LAT_REAL       the compute precision
 *     DIRAC_GPU_NS   a namespace for this precision's kernels
 *     DIRAC_GPU_SWEEP the extern "C" entry point (dirac/gpu_sweep.h)
 * The device code is dirac/gpu_kernel.cuh (k_dslash, dslash_dispatch);
 * here it is launched on the default stream, 128 threads a block, one
 * thread per output site, chained on one process (gpu/chain.cuh: each
 * kernel opens with gpu_chained_begin), and the launch error checked (one
 * line, exit 1). */
#define DIRAC_NC_MAX 3 /* SU(3) only: site.h's local arrays */
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
#include <cuda_runtime.h>
#include <math.h>
#include "gpu/chain.cuh" /* gpu_launch_chained; here, before the kernels' namespace */

namespace DIRAC_GPU_NS {
#include "gpu/accessor.cuh"
#include "dirac/gpu_kernel.cuh"
}

extern "C" void DIRAC_GPU_SWEEP(const struct dirac_gpu_sweep *w)
{
    DIRAC_GPU_NS::dslash_dispatch(w, [](void (*kernel)(DIRAC_GPU_NS::dslash_args), const DIRAC_GPU_NS::dslash_args &a,
                                        int n) {
        gpu_launch_chained_when(gpu_chain_operators(), kernel, DIRAC_GPU_NS::dslash_blocks(a, n), 128u, (cudaStream_t)0, a);
    });
    gpu_check("the Dirac kernel");
}
