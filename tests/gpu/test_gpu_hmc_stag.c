/* test_gpu_hmc_stag.c -- `make check-gpu`: the staggered monomial's device
 * path (hmc/staggered_monomial_gpu.c: refresh_gpu, action_gpu, force_gpu
 * on device fields, the operator's links refreshed device to device) on a
 * real GPU against the host callbacks with CPU solves, on 4^3x8, 6^3x4
 * (V/2 = 432: not whole 32-site blocks) and 8^3x4: tests/gpu/hmc_stag_checks.h's hsc_run (shared with
 * scripts/hmc-stag-emulation, which runs the same with the kernels
 * emulated on the host and demands the noise and links bit for bit) with
 * bits = 0: the link refresh within 1e-14 (double) / 1e-6 (float), the
 * noise within 1e-14 (the device's log and cos may round otherwise; the
 * line says whether the bits agree), phi, S and the force of N_f = 2 RHMC
 * and N_f = 4 exact HMC within 1e-12 relative, mixed MD forces within
 * 1e-6, the force against the numerical derivative of action_gpu within
 * 1e-6 on every lattice.
 * Exported: main (prints "test_gpu_hmc_stag: N passed, M failed"). */
#include "gpu/gpu.h"
#include "base/log.h"
#include "unit.h"
#include "hmc_stag_checks.h"
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    lat_progname = "test_gpu_hmc_stag";
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_hmc_stag: no GPU (%s)\n", why);
        printf("test_gpu_hmc_stag: 0 passed, 1 failed\n");
        return 1;
    }
    const int dims[3][4] = {{4, 4, 4, 8}, {6, 6, 6, 4}, {8, 8, 8, 4}};
    for (int d = 0; d < 3; d++) hsc_run(dims[d], 0, 1);
    return unit_done("test_gpu_hmc_stag");
}
