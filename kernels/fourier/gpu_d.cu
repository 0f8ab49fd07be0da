/* fourier/gpu_d.cu -- the CUDA backend of lat-fourier in precision 'd':
 * double storage, double arithmetic (fourier/gpu.cuh). */
#define LAT_REAL double
#define FA_STORE double
#define FA_NS fa_d
#define FA_SFX d
#ifdef LAT_HAVE_CUFFT /* no cuFFT: no GPU backend (fourier/gpu.c) */
#include "fourier/gpu.cuh"
#endif
