/* dirac/gpu_s.cu -- the GPU Dirac kernels in float arithmetic over float
 * links and clover: single (float spinors) and half (int16 spinors + a
 * float norm per site) storage, dirac_gpu_sweep_s of dirac/gpu_sweep.h.
 * Eighteen instantiations of k_dslash: (float, float), (half, float) and
 * (half, 16-bit) storage x recon 18, 12, 8 x the sign of D. */
#define LAT_REAL float
#define DIRAC_GPU_NS dirac_gpu_s
#define DIRAC_GPU_SWEEP dirac_gpu_sweep_s
#include "dirac/gpu_launch.cuh"
