/* cuda-on-host.h -- just enough of CUDA for the host emulations of our
 * kernels (scripts/hb-kernel-emulation.cpp, scripts/gpu-slab-emulation.cpp):
 * the qualifiers defined away, the 16-byte vector types and the load/store
 * intrinsics as plain memory accesses, and blockIdx/threadIdx/blockDim as
 * variables the emulation sets before "running" each thread.  Include it
 * before any header of the project. */
#ifndef LAT_CUDA_ON_HOST_H
#define LAT_CUDA_ON_HOST_H
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
#endif
