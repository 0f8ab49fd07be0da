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
 *   - the fused kernels (multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot,
 *     multi_axpy_caxpby: its p's and x_i both; blas_fused_checks.h) in
 *     every pair of precisions give the bits of the
 *     unfused GPU calls they replace (vectors, padding, half norms and the
 *     reductions' values) and the CPU's vector bits; on 77 x 24 (5
 *     vectors), 45 x 6 (35: two multi launches) and 100003 x 24 (3);
 *     the same on tables with a reduction layout (one chunk per global
 *     timeslice in the solvers: here chunks of 7 .. 10001 sites, 1 .. 10
 *     pieces, parts 1 and 2): the fused layout path = the unfused layout
 *     path bit for bit, sums within 1e-12 of the CPU's on that layout;
 *   - BiCGstab's fused kernels (cdot_norm2, caxpby_norm2_cdot, caxpby2;
 *     blas_bicg_checks.h) in every precision set BiCGstab uses, with and
 *     without those layouts: the unfused GPU calls' bits, the CPU's vector
 *     bits, sums within 1e-12 of the CPU's;
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
#include "blas_bicg_checks.h"
#include <string.h>

#define ITER_MARGIN 3

/* bf_fused on a GPU table and a CPU table with one reduction layout
 * (chunks of chunk_sites sites, chunks first .. of total per part) */
static void layout_fused(size_t ns, size_t sr, size_t chunk_sites, size_t first, size_t total, size_t parts, int nvec)
{
    struct solver_reduce_layout l = {chunk_sites * sr, first, total, parts};
    struct solver_blas *g = solver_blas_gpu_open_layout(&l), *c = solver_blas_cpu_open(&l);
    CHECK(g && c, "solver_blas_gpu_open_layout / solver_blas_cpu_open with a layout returned NULL");
    if (g && c) {
        char tag[160];
        snprintf(tag, sizeof tag, "layout of %zu-site chunks, first %zu of %zu, %zu parts: ", chunk_sites, first, total, parts);
        bf_tag = tag;
        bf_fused(g, c, ns, sr, nvec);
        bb_bicg(g, c, ns, sr, NULL);
        bb_bicg_solves(g, ns, sr, 1);
        bf_tag = "";
    }
    if (g) solver_blas_gpu_close(g);
    if (c) solver_blas_cpu_close(c);
}

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
    bb_bicg(gpu, cpu, 77, 24, NULL);      /* BiCGstab's fused kernels, every precision set it uses */
    bb_bicg(gpu, cpu, 45, 6, NULL);
    bb_bicg(gpu, cpu, 100003, 24, NULL);
    bb_bicg_solves(gpu, 77, 24, 0); /* whole BiCGstab solves: fused = unfused bits */
    bb_bicg_solves(gpu, 4099, 24, 0);
    /* the fused axpy reductions with a reduction layout (the GPU's and the
     * CPU's tables on one layout): chunk grids of 1 to 10 pieces, a rank's
     * run of chunks among the global slots, parts = 2, padding sites */
    layout_fused(77, 24, 7, 3, 20, 1, 3);
    layout_fused(90, 6, 9, 2, 8, 2, 3);
    layout_fused(16384, 6, 2048, 0, 8, 1, 3);
    layout_fused(100010, 24, 10001, 1, 6, 2, 3);
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
