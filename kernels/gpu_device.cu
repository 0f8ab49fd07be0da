/* gpu_device.cu -- finding a usable CUDA device (gpu_available, gpu.h). */
extern "C" {
#include "gpu.h"
}
#include <cuda_runtime.h>
#include <stdio.h>

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
    return 1;
}
