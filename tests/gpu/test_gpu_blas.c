/* test_gpu_blas.c -- `make check-gpu`: the GPU vector kernels of the
 * solvers (kernels/solvers/blas_gpu.h) on the real GPU against
 * solver_blas_cpu, with tests/gpu/blas_checks.h's checks (the same the host
 * emulation scripts/blas-emulation runs):
 *   - every elementwise kernel (copy, scale, axpy, xpay, caxpby) in every
 *     pair of precisions (double, single, half) gives the CPU kernels'
 *     stored bits, padding stays zero; cdot and norm2 within 1e-13; the half
 *     round trip within 2^-15 -- on 77 x 24, 45 x 6 (the staggered ncomp 8)
 *     and 100003 x 24 (more reductions threads than BL_RED_NB blocks hold:
 *     the grid-stride loop);
 *   - CG, BiCGstab, CGNE and multi-shift CG at tol 1e-10 in double, single
 *     and half sloppy precision with the GPU kernels (a site-local operator
 *     on the device layout, applied on the host between a download and an
 *     upload) against the same solves on the CPU: converged, solutions
 *     within 1e-8, iterations within 3;
 *   - the fused kernels (multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot;
 *     blas_fused_checks.h) in every pair of precisions give the bits of the
 *     unfused GPU calls they replace (vectors, padding, half norms and the
 *     reductions' values) and the CPU's vector bits; on 77 x 24 (5
 *     vectors), 45 x 6 (35: two multi launches) and 100003 x 24 (3);
 *   - determinism: two identical mixed-half CG solves (and their norm2,
 *     cdot) give the same bits;
 *   - solver_blas_gpu_open returns a table; alloc of an impossible size
 *     returns NULL (out of device memory is an answer, not an exit).
 * Prints "test_gpu_blas: N passed, M failed" (-v: every reduction's error). */
#include "solvers/solvers.h"
#include "solvers/blas_gpu.h"
#include "gpu/gpu.h"
#include "gpu/spinor.h"
#include "gpu/field.h"
#include "base/log.h"
#include "unit.h"
#include "blas_checks.h"
#include "blas_fused_checks.h"
#include <string.h>

#define ITER_MARGIN 3

int main(int argc, char **argv)
{
    lat_progname = "test_gpu_blas";
    bc_verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_blas: no GPU (%s)\n", why);
        printf("test_gpu_blas: 0 passed, 1 failed\n");
        return 1;
    }
    struct solver_blas *gpu = solver_blas_gpu_open(), *cpu = solver_blas_cpu_open(NULL);
    CHECK(gpu != NULL, "solver_blas_gpu_open returned NULL with a GPU present");
    if (!gpu || !cpu) {
        printf("test_gpu_blas: %d passed, %d failed\n", unit_pass, unit_fail);
        return 1;
    }
    /* out of device memory: NULL, not an exit (24 x 2^40 doubles = 192 TiB) */
    struct solver_vec *huge = gpu->alloc(gpu->ctx, (size_t)24 << 40, 24, SOLVER_DOUBLE);
    CHECK(huge == NULL, "a 192 TiB vector was allocated");
    if (huge) gpu->free(gpu->ctx, huge);
    bc_kernels(gpu, cpu, 77, 24);
    bc_kernels(gpu, cpu, 45, 6);
    bc_kernels(gpu, cpu, 100003, 24);
    bf_fused(gpu, cpu, 77, 24, 5);
    bf_fused(gpu, cpu, 45, 6, 35);     /* more than BL_MULTI_MAX (32): two launches */
    bf_fused(gpu, cpu, 100003, 24, 3); /* more reduction threads than the grid: the stride loop */
    int w1 = bc_solves(gpu, cpu, 77, 24, ITER_MARGIN);
    int w2 = bc_solves(gpu, cpu, 45, 6, ITER_MARGIN);
    bc_determinism(gpu, 45, 6);
    bc_determinism(gpu, 4099, 24);
    printf("largest iteration difference GPU - CPU: %d (77 x 24), %d (45 x 6)\n", w1, w2);
    solver_blas_gpu_close(gpu);
    solver_blas_cpu_close(cpu);
    printf("test_gpu_blas: %d passed, %d failed\n", unit_pass, unit_fail);
    return unit_fail ? 1 : 0;
}
