/* gaugefix_gpu_d.cu -- the CUDA gauge-fixing kernels in precision 'd':
 * double storage, double arithmetic; default sweep kernel k_sweep_sh, four
 * threads per site with g computed once per site (measured on the H100,
 * 2026-11-21: 1.90 G site-updates/s at 32^4, 97 % of the copy bandwidth,
 * against 1.83 for k_sweep4; docs/PERFORMANCE.md; see
 * gaugefix_gpu_impl.cuh). */
#define LAT_REAL double
#define GF_STORE double
#define GF_NS gf_d
#define GF_SFX d
#define GF_THREADS_PER_SITE 4
#define GF_MINB 4
#define GF_MINB_HEAVY 3
#define GF_SHARED_G 1
#include "gaugefix/gpu_sweep.cuh"
