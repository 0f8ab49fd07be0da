/* dirac/staggered_gpu_d.cu -- the GPU staggered operator's kernels for
 * double vectors: double link storage, double arithmetic
 * (staggered_gpu_launch.cuh; entry point staggered_gpu_sweep_d of
 * staggered_gpu_impl.h). */
#define LAT_REAL double
#define SG_STORE double
#define SG_DOUBLE 1
#define SG_NS sg_d
#define SG_ENTRY staggered_gpu_sweep_d
#include "dirac/staggered_gpu_launch.cuh"
