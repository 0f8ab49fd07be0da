/* test_gpu_hmc.c -- `make check-gpu`: lat-hmc's GPU solver backend
 * (hmc/staggered_gpu_solver.h: the staggered monomial's solves on the GPU
 * operator with the GPU vector kernels) in whole HMC trajectories against
 * the CPU path on a real device, on 4^4 and 8^3x4: tests/gpu/hmc_checks.h's
 * hc_run (shared with scripts/hmc-gpu-emulation, which runs the same with
 * the kernels emulated on the host) -- N_f = 2 RHMC and N_f = 4 exact HMC
 * with every solve to 1e-12: dH within 1e-9 and the links within 1e-10 of
 * the CPU's at the end of the molecular dynamics; mixed MD solves within 1e-6 in dH; the
 * condensate's CG within 1e-9.  Also: no GPU answer NULL with a reason is
 * not reachable here (the device is there), so the refusal of an SU(2)
 * field is checked instead.
 * Exported: main (prints "test_gpu_hmc: N passed, M failed"). */
#include "hmc/staggered_gpu_solver.h"
#include "lattice/field.h"
#include "gpu/gpu.h"
#include "base/log.h"
#include "unit.h"
#include "hmc_checks.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    lat_progname = "test_gpu_hmc";
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_hmc: no GPU (%s)\n", why);
        printf("test_gpu_hmc: 0 passed, 1 failed\n");
        return 1;
    }
    const int dims[2][4] = {{4, 4, 4, 4}, {8, 8, 8, 4}};
    for (int d = 0; d < 2; d++) {
        printf("lattice %dx%dx%dx%d\n", dims[d][0], dims[d][1], dims[d][2], dims[d][3]);
        hc_run(dims[d]);
    }
    /* SU(2) links: refused with a reason */
    struct lattice lat;
    const char *lw;
    lattice_init(&lat, dims[0], &lw);
    struct field u2;
    field_alloc(&u2, &lat, 2, 64);
    field_set_unit(&u2);
    struct staggered_gpu_solver *s = staggered_gpu_solver_create(&u2, 0.1, why, sizeof why);
    CHECK(s == NULL && strstr(why, "SU(3)") != NULL, "an SU(2) field: %s", s ? "accepted" : why);
    staggered_gpu_solver_free(s);
    field_free(&u2);
    return unit_done("test_gpu_hmc");
}
