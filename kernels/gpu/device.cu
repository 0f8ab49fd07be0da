/* gpu_device.cu -- finding a usable CUDA device (gpu_available, gpu.h),
 * and the test hook gpu_inject_fault.
 * Under mpirun each rank takes the GPU of its node-local rank (modulo the
 * GPUs it sees), so R ranks on a node with R GPUs use one each. */
extern "C" {
#include "gpu/gpu.h"
}
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

extern "C" int gpu_available(char *why, int whylen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (why) snprintf(why, (size_t)whylen, "%s", cudaGetErrorString(e));
        return 0;
    }
    if (n == 0) {
        if (why) snprintf(why, (size_t)whylen, "no CUDA device found");
        return 0;
    }
    static int chosen;
    if (!chosen) {
        const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        if (!lr) lr = getenv("MPI_LOCALRANKID");
        if (!lr) lr = getenv("SLURM_LOCALID");
        if (lr && cudaSetDevice(atoi(lr) % n) != cudaSuccess) {
            if (why) snprintf(why, (size_t)whylen, "cannot select GPU %d of %d for node-local rank %s", atoi(lr) % n, n, lr);
            return 0;
        }
        chosen = 1;
    }
    return 1;
}

static __global__ void k_fault(int *p) { p[threadIdx.x] = 1; }

extern "C" void gpu_inject_fault(void)
{
    k_fault<<<1, 32>>>((int *)(uintptr_t)0x10); /* an unmapped address */
}
