/* dirac/gpu_d.cu -- the GPU Dirac kernels in double precision (double
 * spinors, links and clover; double arithmetic): dirac_gpu_sweep_d of
 * dirac/gpu_sweep.h.  Six instantiations of k_dslash (recon 18, 12, 8 x the sign of D). */
#define LAT_REAL double
#define DIRAC_GPU_NS dirac_gpu_d
#define DIRAC_GPU_SWEEP dirac_gpu_sweep_d
#include "dirac/gpu_launch.cuh"
