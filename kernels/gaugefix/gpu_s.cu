/* gaugefix_gpu_s.cu -- the CUDA gauge-fixing kernels in precision 's':
 * float storage, float arithmetic (see gaugefix_gpu_impl.cuh). */
#define LAT_REAL float
#define GF_STORE float
#define GF_NS gf_s
#define GF_SFX s
#define GF_THREADS_PER_SITE 1
#include "gaugefix/gpu_sweep.cuh"
