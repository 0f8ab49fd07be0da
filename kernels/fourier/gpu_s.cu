/* fourier/gpu_s.cu -- the CUDA backend of lat-fourier in precision 's':
 * float storage, float arithmetic (cuFFT single) (fourier/gpu.cuh). */
#define LAT_REAL float
#define FA_STORE float
#define FA_NS fa_s
#define FA_SFX s
#ifdef LAT_HAVE_CUFFT /* no cuFFT: no GPU backend (fourier/gpu.c) */
#include "fourier/gpu.cuh"
#endif
