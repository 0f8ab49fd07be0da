/* gaugefix_gpu_s.cu -- the CUDA gauge-fixing kernels in precision 's':
 * float storage, float arithmetic (see gaugefix_gpu_impl.cuh). */
#define GF_PREC_S
#include "gaugefix/gpu_prec.h"
#include "gaugefix/gpu_sweep.cuh"
