/* backend.c -- choosing the CPU or the GPU backend (--device, LAT_DEVICE). */
#include "gpu/gpu.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

enum backend backend_choose(const char *device)
{
    /* the fallback note is for those who asked for auto; the default is quiet
     * (it would otherwise follow every run on a GPU-less machine) */
    int asked = device != NULL;
    if (!device) device = getenv("LAT_DEVICE");
    if (device && *device) asked = 1;
    if (!device || !*device) device = "auto";
    if (strcmp(device, "cpu") == 0) return BACKEND_CPU;
    char why[256] = "";
    int ok = gpu_available(why, sizeof why);
    if (strcmp(device, "gpu") == 0) {
        /* under mpirun every rank gets here with the same options: they agree,
         * so that a rank without a GPU stops all of them with one message */
        double bad = !ok;
        comm_max(&bad, 1);
        if (bad && !ok) lat_die_all(1, NULL, "--device gpu: no usable GPU: %s", why);
        if (bad) lat_die_all(1, NULL, "--device gpu: no usable GPU on another rank (rank 0 has one)");
        return BACKEND_GPU;
    }
    if (strcmp(device, "auto") != 0) lat_die(2, NULL, "--device: '%s' is not one of cpu|gpu|auto", device);
    if (ok) return BACKEND_GPU;
    if (asked && !strstr(why, "without CUDA")) lat_info("note: no GPU (%s): using the CPU backend", why);
    else lat_debug("no GPU (%s): using the CPU backend", why);
    return BACKEND_CPU;
}
