/* gaugefix_gpu_m.cu -- the CUDA gauge-fixing kernels in precision 'm':
 * float storage, double arithmetic (see gaugefix_gpu_impl.cuh). */
#define LAT_REAL double
#define GF_STORE float
#define GF_NS gf_m
#define GF_SFX m
#include "gaugefix_gpu_impl.cuh"
