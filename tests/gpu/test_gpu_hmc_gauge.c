/* test_gpu_hmc_gauge.c -- `make check-gpu`: the gauge part of the HMC on
 * the GPU (hmc/gpu.h) against the CPU HMC on a real device, the checks of
 * hmc_gauge_checks.h (shared with scripts/hmc-gauge-emulation, which runs
 * the same kernels on the host) on 8^4 and 4^3x8: momenta to 1e-15 of the
 * largest |P|, kinetic energy and action to 1e-13 relative, force to 1e-13,
 * link update to 1e-14, the force against a numerical derivative of the
 * GPU action; the general integrator (integrator.h) on device fields
 * against host fields: MD over two time scales (links 1e-12, dH 1e-10),
 * its reversal (1e-12), whole trajectories hmc_trajectory_gpu vs
 * hmc_trajectory (dH, the decision, links; a reject restored).  Also:
 * the sums twice give the same bits (deterministic reductions).  No
 * bit-for-bit claims against the CPU here: nvcc fuses multiply-adds.
 * Exported: main (prints "test_gpu_hmc_gauge: N passed, M failed"). */
#include "lattice/field.h"
#include "gpu/gpu.h"
#include "base/log.h"
#include "unit.h"
#include "gpu_fields.h"
#include "hmc_gauge_checks.h"
#include <stdio.h>
#include <string.h>

/* the kinetic energy and the action twice: the same bits */
static void check_deterministic(const struct lattice *lat)
{
    struct field u;
    fields_haar(&u, lat, 3, 11);
    struct gpu_field U, P;
    hmc_gpu_field_create(&U, &u);
    hmc_gpu_field_create(&P, &u);
    hmc_gpu_links_upload(&U, &u);
    hmc_gpu_momenta_draw(&P, 5, 6);
    double t[2], s[2];
    for (int k = 0; k < 2; k++) {
        t[k] = hmc_gpu_kinetic_energy(&P);
        s[k] = hmc_gpu_gauge_action(&U, 5.7);
    }
    CHECK(memcmp(t, t + 1, sizeof *t) == 0 && memcmp(s, s + 1, sizeof *s) == 0,
          "two sums of one field differ: T %.17g %.17g, S %.17g %.17g", t[0], t[1], s[0], s[1]);
    gpu_field_free(&U);
    gpu_field_free(&P);
    field_free(&u);
}

int main(void)
{
    lat_progname = "test_gpu_hmc_gauge";
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_hmc_gauge: no GPU (%s)\n", why);
        printf("test_gpu_hmc_gauge: 0 passed, 1 failed\n");
        return 1;
    }
    int dims[2][4] = {{8, 8, 8, 8}, {4, 4, 4, 8}};
    for (int k = 0; k < 2; k++) {
        struct lattice lat;
        const char *w = NULL;
        if (lattice_init(&lat, dims[k], &w)) lat_die(1, NULL, "lattice: %s", w);
        char name[32];
        snprintf(name, sizeof name, "%dx%dx%dx%d", dims[k][0], dims[k][1], dims[k][2], dims[k][3]);
        hmc_gauge_check_kernels(&lat, name, 0);
        hmc_gauge_check_md(&lat, name, 0);
        if (k == 0) check_deterministic(&lat);
    }
    return unit_done("test_gpu_hmc_gauge");
}
