/* gpu_prec.h -- the settings of one precision of the CUDA gauge-fixing
 * kernels, the one place that says them: define GF_PREC_D, GF_PREC_S or
 * GF_PREC_M, then include this before the kernel files (the CUDA build:
 * gpu_d.cu, gpu_s.cu, gpu_m.cu before gpu_sweep.cuh; the host emulation:
 * scripts/gf-kernel-emulation.cpp, built once per precision).
 * Defines LAT_REAL (arithmetic), GF_STORE (storage), GF_NS, GF_SFX (the
 * namespace and entry-point suffix), GF_THREADS_PER_SITE, GF_MINB,
 * GF_MINB_HEAVY, GF_SHARED_G and, for 'm', GF_MIXED and GF_LAZY_ROW3
 * (gpu_sweep.cuh says what each means; the gpu_*.cu heads, why these
 * values: the H100 measurements).
 *   'd'  double storage, double arithmetic, k_sweep_sh (4 threads a site)
 *   's'  float storage, float arithmetic, k_sweep (1 thread a site)
 *   'm'  float storage, double arithmetic, k_sweep_sh, third rows lazily */
#ifndef LAT_GAUGEFIX_GPU_PREC_H
#define LAT_GAUGEFIX_GPU_PREC_H
#if defined(GF_PREC_D)
#define LAT_REAL double
#define GF_STORE double
#define GF_NS gf_d
#define GF_SFX d
#define GF_THREADS_PER_SITE 4
#define GF_MINB 4
#define GF_MINB_HEAVY 3
#define GF_SHARED_G 1
#elif defined(GF_PREC_S)
#define LAT_REAL float
#define GF_STORE float
#define GF_NS gf_s
#define GF_SFX s
#define GF_THREADS_PER_SITE 1
#elif defined(GF_PREC_M)
#define LAT_REAL double
#define GF_STORE float
#define GF_NS gf_m
#define GF_SFX m
#define GF_MIXED 1
#define GF_THREADS_PER_SITE 4
#define GF_MINB 5
#define GF_MINB_HEAVY 3
#define GF_SHARED_G 1
#define GF_LAZY_ROW3 true
#else
#error "define GF_PREC_D, GF_PREC_S or GF_PREC_M before including gaugefix/gpu_prec.h"
#endif
#endif
