/* heatbath_gpu_s.cu -- the CUDA heatbath kernels in precision 's': float
 * storage, float arithmetic (the SU(2) sampler of su2_heatbath.h draws in
 * double either way; see heatbath_gpu_impl.cuh). */
#define LAT_REAL float
#define HB_STORE float
#define HB_NS hb_s
#define HB_SFX s
#include "heatbath/gpu_sweep.cuh"
