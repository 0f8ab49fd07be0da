/* gaugefix_gpu_d.cu -- the CUDA gauge-fixing kernels in precision 'd':
 * double storage, double arithmetic; default sweep kernel k_sweep_sh, four
 * threads per site with g computed once per site (measured on the H100,
 * 2026-11-21: 1.90 G site-updates/s at 32^4, 97 % of the copy bandwidth,
 * against 1.83 for k_sweep4; docs/PERFORMANCE.md; see
 * gaugefix_gpu_impl.cuh). */
#define GF_PREC_D
#include "gaugefix/gpu_prec.h"
#include "gaugefix/gpu_sweep.cuh"
