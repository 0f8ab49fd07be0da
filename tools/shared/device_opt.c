/* device_opt.c -- the --device / --precision policy shared by every tool:
 * device_opt_precision, device_opt_choose, device_opt_fits (contracts in
 * device_opt.h). */
#include "shared/device_opt.h"
#include "base/comm.h"
#include "base/log.h"
#include "gpu/gpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char device_opt_precision(const char *word) { return word[0] == 's' ? 's' : word[0] == 'm' ? 'm' : 'd'; }

struct device_choice device_opt_choose(const char *device)
{
    struct device_choice c = {0, 0};
    const char *asked = device ? device : getenv("LAT_DEVICE");
    c.explicit_gpu = asked && strcmp(asked, "gpu") == 0;
    if (backend_choose(device) != BACKEND_GPU) return c;
    if (comm_size() > 1 && !c.explicit_gpu) {
        lat_info("note: under mpirun --device auto uses the CPU backend (--device gpu for one GPU per rank)");
        return c;
    }
    c.gpu = 1;
    return c;
}

int device_opt_fits(struct device_choice *c, const struct device_caps *gpu, int nc)
{
    if (!c->gpu) return 0;
    if (!gpu->built || nc < gpu->min_nc || nc > gpu->max_nc) {
        char why[160];
        if (!gpu->built) snprintf(why, sizeof why, "this lat has no GPU %s backend", gpu->what);
        else snprintf(why, sizeof why, "the GPU %s backend has kernels for SU(%d)..SU(%d), not SU(%d)", gpu->what,
                      gpu->min_nc, gpu->max_nc, nc);
        if (c->explicit_gpu) lat_die(1, NULL, "--device gpu: %s (use --device cpu)", why);
        lat_info("note: %s: using the CPU backend", why);
        c->gpu = 0;
        return 0;
    }
    return 1;
}
