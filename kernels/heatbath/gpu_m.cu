/* heatbath_gpu_m.cu -- the CUDA heatbath kernels in precision 'm': float
 * storage, double arithmetic (links widened to double on load, the whole
 * update in double, rounded to float on store; see heatbath_gpu_impl.cuh). */
#define LAT_REAL double
#define HB_STORE float
#define HB_NS hb_m
#define HB_SFX m
#include "heatbath/gpu_sweep.cuh"
