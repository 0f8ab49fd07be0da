/* gaugefix_gpu_m.cu -- the CUDA gauge-fixing kernels in precision 'm':
 * float storage, double arithmetic (every SU(2) subgroup step and every
 * measurement in double; the links wait in float registers between the
 * steps; see gaugefix_gpu_impl.cuh). */
#define LAT_REAL double
#define GF_STORE float
#define GF_NS gf_m
#define GF_SFX m
#define GF_MIXED 1
#define GF_THREADS_PER_SITE 4
#define GF_MINB 4
#define GF_MINB_HEAVY 3
#include "gaugefix_gpu_impl.cuh"
