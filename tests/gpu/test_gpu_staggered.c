/* test_gpu_staggered.c -- `make check-gpu`: the staggered operator on the
 * GPU (dirac/staggered_gpu.h) against the CPU operator (dirac/staggered.h)
 * on a real device: random SU(3) links, m = 0.05 and 0.5, links in 12, 18
 * and 8 reals, on 8^4 and 16^3x8 -- the checks of staggered_checks.h
 * (shared with scripts/staggered-emulation, which runs the same kernels on
 * the host): K = (M^dag M)_ee in double to 1e-13, single to 1e-6 (8 reals:
 * 1e-5), half to 1e-3 against the CPU's double; K Hermitian and positive;
 * the same bits twice; the _ee and _normal solver views; the refusals.
 * Here no bit-for-bit claims: nvcc fuses multiply-adds.
 * Exported: main (prints "test_gpu_staggered: N passed, M failed";
 * -v: one line per operator). */
#include "lattice/field.h"
#include "gpu/gpu.h"
#include "base/log.h"
#include "unit.h"
#include "staggered_checks.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    lat_progname = "test_gpu_staggered";
    if (argc > 1 && strcmp(argv[1], "-v") == 0) lat_verbosity = 1;
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_staggered: no GPU (%s)\n", why);
        printf("test_gpu_staggered: 0 passed, 1 failed\n");
        return 1;
    }
    const int dims[2][4] = {{8, 8, 8, 8}, {16, 16, 16, 8}};
    for (int d = 0; d < 2; d++) {
        struct lattice lat;
        const char *lw;
        if (lattice_init(&lat, dims[d], &lw) != 0) { fprintf(stderr, "lattice: %s\n", lw); return 1; }
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 41 + d);
        char lname[64];
        snprintf(lname, sizeof lname, "%dx%dx%dx%d", dims[d][0], dims[d][1], dims[d][2], dims[d][3]);
        const double masses[2] = {0.05, 0.5};
        const int recons[3] = {12, 18, 8};
        for (int mi = 0; mi < 2; mi++)
            for (int r = 0; r < 3; r++) sg_check_one(&u, masses[mi], recons[r], lname, 0);
        if (d == 0) {
            sg_check_refusals(&u);
            sg_check_solvers(&u, 0.05, 12, lname);
        }
        field_free(&u);
    }
    return unit_done("test_gpu_staggered");
}
