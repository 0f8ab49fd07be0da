/* heatbath_gpu_d.cu -- the CUDA heatbath kernels in precision 'd': double
 * storage, double arithmetic (see heatbath_gpu_impl.cuh). */
#define LAT_REAL double
#define HB_STORE double
#define HB_NS hb_d
#define HB_SFX d
#include "heatbath/gpu_sweep.cuh"
