/* gaugefix_gpu_d.cu -- the CUDA gauge-fixing kernels in precision 'd':
 * double storage, double arithmetic; default sweep kernel k_sweep4, four
 * threads per site exchanging Step 1 by warp shuffles (see
 * gaugefix_gpu_impl.cuh). */
#define LAT_REAL double
#define GF_STORE double
#define GF_NS gf_d
#define GF_SFX d
#define GF_THREADS_PER_SITE 4
#define GF_MINB 4
#define GF_MINB_HEAVY 3
#define GF_SHARED_G 0
#include "gaugefix_gpu_impl.cuh"
