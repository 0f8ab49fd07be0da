/* dirac/staggered_gpu_s.cu -- the GPU staggered operator's kernels for
 * single and half vectors: float link storage, float arithmetic
 * (staggered_gpu_launch.cuh; entry point staggered_gpu_sweep_s of
 * staggered_gpu_impl.h). */
#define LAT_REAL float
#define SG_STORE float
#define SG_DOUBLE 0
#define SG_NS sg_s
#define SG_ENTRY staggered_gpu_sweep_s
#include "dirac/staggered_gpu_launch.cuh"
