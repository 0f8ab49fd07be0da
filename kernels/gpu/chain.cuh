/* gpu/chain.cuh -- chained launches: CUDA's programmatic dependent launch
 * (compute capability 9.0 and up) for kernels short enough that the wait
 * for the kernel before them to drain costs some of their time.
 *   gpu_chained_begin()   device: the first statement of a chained kernel.
 *       It waits until the kernel before it in the stream has ended and its
 *       stores are seen (griddepcontrol.wait), then lets the kernel after it
 *       be launched (griddepcontrol.launch_dependents).  Nothing is loaded
 *       or stored before it, so a chained kernel sees what it would see
 *       unchained: the same bits.  Launched plainly (or compiled for the
 *       host emulation) it does nothing.
 *   gpu_launch_chained(kernel, blocks, threads, stream, args...)  host,
 *       nvcc only: kernel<<<blocks, threads, 0, stream>>>(args) with
 *       programmatic stream serialization on a GPU of compute capability 9
 *       or more, so its blocks take the SMs the kernel before it leaves as
 *       that one ends (they wait there, in gpu_chained_begin); elsewhere,
 *       or with LAT_GPU_CHAINED=0 (for an A/B), a plain launch.  The launch
 *       error is checked (one line, exit 1).
 *   gpu_launch_chained_when(chain, kernel, ...)  the same, plain unless
 *       chain: the Dirac and staggered operators pass gpu_chain_operators(),
 *       true unless LAT_GPU_CHAINED=loops (the operators launched plainly,
 *       the solvers' loops chained: session 25's default on several GPUs,
 *       kept for an A/B)
 * Why, and what it gained: docs/PERFORMANCE.md (sessions 25 and 26). */
#ifndef LAT_GPU_CHAIN_CUH
#define LAT_GPU_CHAIN_CUH

static __device__ __forceinline__ void gpu_chained_begin()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "base/log.h"
#include "base/comm.h"
}
/* LAT_GPU_CHAINED read once: 0 no chained launch; 2 (the default; "all"
 * says the same) the solvers' loops and the operators; 1 ("loops") the
 * solvers' loops everywhere, the operators on one process only.  0 as well
 * below compute capability 9. */
static inline int gpu_chained_mode(void)
{
    static int mode = -1;
    if (mode < 0) {
        const char *e = getenv("LAT_GPU_CHAINED");
        int dev = 0, major = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
            major = 0;
        mode = major < 9 || (e && !strcmp(e, "0")) ? 0 : e && !strcmp(e, "loops") ? 1 : 2;
    }
    return mode;
}
/* the operators' kernels: chained, on one process or several (two H200,
 * lat-hmc 32^3x8 double on two GPUs: 4.44-4.52 s a trajectory against
 * 4.64-4.98 with the operators plain, the same bytes; session 26) */
static inline bool gpu_chain_operators(void) { return gpu_chained_mode() == 2 || comm_size() == 1; }
template <class... P, class... A>
static void gpu_launch_chained_when(bool chain, void (*kernel)(P...), unsigned blocks, unsigned threads, cudaStream_t stream,
                                    A... args)
{
    cudaError_t e;
    if (chain && gpu_chained_mode() != 0) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.gridDim = dim3(blocks);
        cfg.blockDim = dim3(threads);
        cfg.stream = stream;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        e = cudaLaunchKernelEx(&cfg, kernel, args...);
    } else {
        kernel<<<blocks, threads, 0, stream>>>(args...);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess) lat_die(1, "GPU", "chained kernel launch: %s", cudaGetErrorString(e));
}
template <class... P, class... A>
static void gpu_launch_chained(void (*kernel)(P...), unsigned blocks, unsigned threads, cudaStream_t stream, A... args)
{
    gpu_launch_chained_when(true, kernel, blocks, threads, stream, args...);
}
#endif

#endif
