/* gaugefix_gpu_m.cu -- the CUDA gauge-fixing kernels in precision 'm':
 * float storage, double arithmetic (every measurement and the whole site
 * update in double, rounded to float once at the store, as the CPU's 'm';
 * default sweep kernel k_sweep_sh, four threads per site with g computed
 * once per site, the third rows rebuilt where a subgroup needs them, >= 5
 * blocks per SM (measured on the H100, 2026-11-21: 3.40 G site-updates/s
 * at 32^4 and 3.57 at 48^4, 92-94 % of single; docs/PERFORMANCE.md); the
 * one-thread kernel of variant 1 keeps the links in float registers between
 * double subgroup steps: GF_MIXED; see gaugefix_gpu_impl.cuh). */
#define GF_PREC_M
#include "gaugefix/gpu_prec.h"
#include "gaugefix/gpu_sweep.cuh"
