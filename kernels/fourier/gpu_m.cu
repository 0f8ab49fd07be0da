/* fourier/gpu_m.cu -- the CUDA backend of lat-fourier in precision 'm':
 * float storage, double arithmetic (fourier/gpu.cuh). */
#define LAT_REAL double
#define FA_STORE float
#define FA_NS fa_m
#define FA_SFX m
#ifdef LAT_HAVE_CUFFT /* no cuFFT: no GPU backend (fourier/gpu.c) */
#include "fourier/gpu.cuh"
#endif
