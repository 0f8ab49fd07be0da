/* cuda-on-host.h -- just enough of CUDA for g++ to compile our device-code
 * files (the .cuh files under kernels/ other than the launch files) whole, for the host
 * emulations (scripts/hb-kernel-emulation.cpp, scripts/gpu-slab-emulation.cpp,
 * scripts/link8-emulation.cpp):
 * the qualifiers defined away, the 16-byte vector types and the load/store
 * intrinsics as plain memory accesses, and blockIdx/threadIdx/blockDim as
 * variables the emulation sets before "running" each thread.
 * Kernels that need a whole block or warp at once (__syncthreads, warp
 * shuffles: k_sweep4, k_sweep_sh, the reductions) compile but cannot run
 * one thread at a time: those intrinsics abort.  __shared__ arrays are
 * function-local statics.  Include it before any header of the project. */
#ifndef LAT_CUDA_ON_HOST_H
#define LAT_CUDA_ON_HOST_H
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
static inline double2 make_double2(double a, double b) { return {a, b}; }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
struct u3 { unsigned x, y, z; };
static u3 blockIdx, threadIdx, blockDim;
#define __shared__ static
[[noreturn]] static inline void cuda_on_host_unsupported(const char *what)
{
    fprintf(stderr, "cuda-on-host: %s cannot run one thread at a time\n", what);
    abort();
}
static inline void __syncthreads(void) { cuda_on_host_unsupported("__syncthreads"); }
template <class T> static inline T __shfl_sync(unsigned mask, T v, int lane)
{
    (void)mask; (void)v; (void)lane;
    cuda_on_host_unsupported("__shfl_sync");
}
#endif
