/* blas-emulation.cpp -- the GPU vector kernels of the solvers
 * (kernels/solvers/blas_gpu.cuh, included whole: the kernels AND the host
 * code that launches them and reduces) run on the host without a GPU or
 * nvcc, checked against solver_blas_cpu (scripts/blas-emulation builds and
 * runs it; tests/emulation.bats in `make check`, any CUDA=).
 *
 * Device memory is host memory (blas_dev_alloc = calloc, the gpu_* copies
 * memcpy: scripts/gpu-util-on-host.h; gpu/spinor.c compiled as a CUDA
 * build compiles it); a launch runs
 * its blocks in order, each block's GPU_RED_BS threads one after the other,
 * or, for the reductions (__syncthreads in reduce.cuh's tree), as fibers
 * between the barriers (scripts/cuda-on-host.h).  Built with BL_RED_NB=2
 * (scripts/blas-emulation): a reduction has at most 2 blocks, so each
 * thread takes several grid-stride steps, as on a large vector on the GPU.  The checks are
 * tests/gpu/blas_checks.h's, the same the real GPU runs
 * (tests/gpu/test_gpu_blas.c):
 *   - kernels on 77 sites x 24 reals (Wilson) and 45 sites x 6 reals
 *     (staggered: ncomp 8, two padding reals per site), neither a multiple
 *     of 32 sites: every elementwise kernel in every pair of precisions
 *     gives the CPU's bits and keeps the padding zero, cdot and norm2 within
 *     1e-13, the half round trip within 2^-15;
 *   - whole solves (CG, BiCGstab, CGNE, multi-shift CG; double, single and
 *     half sloppy; tol 1e-10) with the emulated kernels and a site-local
 *     operator on the device layout against the same solves with
 *     solver_blas_cpu: converged, solutions within 1e-8, iterations within
 *     BLAS_EMU_MARGIN;
 *   - the fused kernels (multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot,
 *     multi_axpy_caxpby; tests/gpu/blas_fused_checks.h) in every pair of
 *     precisions: the bits of the unfused GPU sequence (vectors and
 *     reductions), the CPU's bits for the vectors; 5 vectors on 77 x 24,
 *     BL_MULTI_MAX + 3 on 45 x 6; multi_axpy_caxpby one launch per
 *     BL_MULTI_MAX vectors in each precision it has a kernel for (r and p
 *     double, single, half; y double);
 *   - the same fused checks on tables with a reduction layout (the GPU's
 *     and the CPU's on one layout; chunk sizes of 5 .. 2600 sites, one to
 *     six pieces a chunk, a rank's run of chunks among the global slots,
 *     parts = 2): the fused layout path against the unfused layout path,
 *     bit for bit, and one launch per fused call; a = NaN, which makes
 *     the unfused axpy write NaN into the padding sites no chunk holds,
 *     gives the unfused y's bits too (the fused kernel's tail);
 *   - BiCGstab's fused kernels (cdot_norm2, caxpby_norm2_cdot, caxpby2;
 *     tests/gpu/blas_bicg_checks.h) in every precision set BiCGstab uses
 *     (and two without a kernel), without and with each layout above: the
 *     unfused GPU bits (vectors, padding, half norms, each sum), the CPU's
 *     vector bits, one launch per call; whole BiCGstab solves (d, s, h) on
 *     the GPU table with and without them, x, results and history bit for
 *     bit (without a layout and on the 90-site layout of 2 parts);
 *   - determinism (trivial here: it is the real GPU's check).
 * Prints one line per case and "blas-emulation: N passed, M failed". */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

static unsigned long long emu_launches;
#define BLAS_ON_HOST_COUNT emu_launches /* every launch counted */
#include "blas-gpu-on-host.h"

/* ---- the device entry points spinor.c and the checks call: host memory */
#include "gpu-util-on-host.h"

#include "unit.h"
#include "blas_checks.h"
#include "blas_fused_checks.h"
#include "blas_bicg_checks.h"

#ifndef BLAS_EMU_MARGIN
#define BLAS_EMU_MARGIN 3
#endif

/* the fused kernels on tables with a reduction layout (the GPU's and the
 * CPU's on the same one: chunks of chunk_sites sites, this "rank" holding
 * chunks first .. of total per part, parts parts): bf_fused's checks (GPU
 * fused = GPU unfused bits, vectors with padding and half norms, and sums;
 * vectors the CPU's bits, sums within 1e-12 of the CPU layout's), and one
 * launch per fused axpy reduction of one precision (two when x and y
 * differ: the unfused calls) */
static void emu_layout(size_t ns, size_t sr, size_t chunk_sites, size_t first, size_t total, size_t parts, int nvec)
{
    struct solver_reduce_layout l = {chunk_sites * sr, first, total, parts};
    struct solver_blas *gpu = blas_gpu_make(&l), *cpu = solver_blas_cpu_open(&l);
    if (!gpu || !cpu) lat_die(1, "blas-emulation", "out of memory");
    char tag[160];
    snprintf(tag, sizeof tag, "layout of %zu-site chunks (%d pieces), first %zu of %zu, %zu parts: ", chunk_sites,
             bl_chunk_pieces((int64_t)chunk_sites), first, total, parts);
    bf_tag = tag;
    bf_fused(gpu, cpu, ns, sr, nvec);
    bb_bicg(gpu, cpu, ns, sr, &emu_launches);
    if (ns < 1000 && (parts == 2 || sr == 24)) bb_bicg_solves(gpu, ns, sr, 1); /* whole solves on one layout (emulated chunk reductions are slow) */
    bf_tag = "";
    double *h = (double *)calloc(ns * sr, sizeof(double));
    bc_random(h, ns, sr);
    int launches_ok = 1;
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
            struct solver_vec *x = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p), *y = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)q);
            unsigned long long l0 = emu_launches;
            gpu->axpy_norm2(gpu->ctx, 0.5, x, y);
            unsigned long long l1 = emu_launches;
            gpu->axpy_cdot(gpu->ctx, -0.25, x, y);
            unsigned long long want = p == q ? 1 : 2;
            launches_ok &= l1 - l0 == want && emu_launches - l1 == want;
            gpu->free(gpu->ctx, x);
            gpu->free(gpu->ctx, y);
        }
    CHECK(launches_ok, "%sa fused axpy reduction is not one launch (two for mixed precisions)", tag);
    /* a = NaN (a breakdown's alpha): the unfused axpy turns the padding
     * sites past the chunks into NaN (NaN * 0); the fused one must write
     * them too (its tail), bit for bit */
    int nan_same = 1, pad_nan = 0;
    for (int p = 0; p < 3; p++) {
        struct solver_vec *x = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p), *yf = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p);
        struct solver_vec *yu = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p);
        gpu->axpy_norm2(gpu->ctx, NAN, x, yf);
        gpu->axpy(gpu->ctx, NAN, x, yu);
        nan_same &= bf_bits_equal(1, yf, yu);
        if (p == SOLVER_DOUBLE) {
            const size_t stored = gpu_spinor_storage((int64_t)ns, (int)sr);
            pad_nan = isnan(((const double *)yu->data)[stored - 1]); /* the last padding site's last real */
        }
        gpu->free(gpu->ctx, x);
        gpu->free(gpu->ctx, yf);
        gpu->free(gpu->ctx, yu);
    }
    const int has_pad = ns % GPU_SPINOR_LANES != 0;
    CHECK(nan_same && pad_nan == has_pad, "%sa = NaN: fused y = unfused y bits %d, padding NaN %d", tag, nan_same, pad_nan);
    printf("%s%zu sites x %zu reals: a = NaN (unfused padding sites NaN: %s), fused y = unfused y bits: %s\n", tag, ns, sr,
           pad_nan ? "yes" : "no", nan_same ? "yes" : "NO");
    printf("%s%zu sites x %zu reals: axpy_norm2 and axpy_cdot one launch each (one precision), %s\n", tag, ns, sr,
           launches_ok ? "yes" : "NO");
    free(h);
    blas_gpu_destroy(gpu);
    solver_blas_cpu_close(cpu);
}

/* multi_axpy_caxpby in the precision sets the multi-shift CG uses (r and
 * the p's double, single or half, the x_i double): ONE launch for up to
 * BL_MULTI_MAX shifts (two for BL_MULTI_MAX + 3), where the unfused pair
 * makes two */
static void emu_axpy_caxpby_launches(const struct solver_blas *gpu, size_t ns, size_t sr)
{
    enum { NV = BL_MULTI_MAX + 3 };
    double *h = (double *)calloc(ns * sr, sizeof(double)), a[NV];
    solver_complex b[NV], c[NV];
    bc_random(h, ns, sr);
    for (int j = 0; j < NV; j++) a[j] = 0.5 / (1 + j), b[j] = (solver_complex){0.25, 0}, c[j] = (solver_complex){0.75 - 0.01 * j, 0};
    for (int p = 0; p < 3; p++) {
        struct solver_vec *r = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p), *pv[NV], *yv[NV];
        for (int j = 0; j < NV; j++) pv[j] = bc_vec(gpu, 1, h, ns, sr, (enum solver_prec)p), yv[j] = bc_vec(gpu, 1, h, ns, sr, SOLVER_DOUBLE);
        unsigned long long l0 = emu_launches;
        gpu->multi_axpy_caxpby(gpu->ctx, 12, a, r, b, c, pv, yv);
        unsigned long long l1 = emu_launches;
        gpu->multi_axpy_caxpby(gpu->ctx, NV, a, r, b, c, pv, yv);
        unsigned long long l2 = emu_launches;
        CHECK(l1 - l0 == 1 && l2 - l1 == 2, "%zu x %zu multi_axpy_caxpby %s: %llu launches for 12 vectors, %llu for %d (1 and 2 expected)",
              ns, sr, bc_pname((enum solver_prec)p), l1 - l0, l2 - l1, (int)NV);
        printf("%zu sites x %zu reals: multi_axpy_caxpby %s p, double x_i: %llu launch for 12 shifts, %llu for %d\n", ns, sr,
               bc_pname((enum solver_prec)p), l1 - l0, l2 - l1, (int)NV);
        gpu->free(gpu->ctx, r);
        for (int j = 0; j < NV; j++) gpu->free(gpu->ctx, pv[j]), gpu->free(gpu->ctx, yv[j]);
    }
    free(h);
}

int main(int argc, char **argv)
{
    bc_verbose = argc > 1 && !strcmp(argv[1], "-v");
    struct solver_blas *gpu = blas_gpu_make(NULL), *cpu = solver_blas_cpu_open(NULL);
    if (!gpu || !cpu) lat_die(1, "blas-emulation", "out of memory");
    bc_kernels(gpu, cpu, 77, 24);
    bc_kernels(gpu, cpu, 45, 6);
    bf_fused(gpu, cpu, 77, 24, 5);
    bf_fused(gpu, cpu, 45, 6, BL_MULTI_MAX + 3); /* two launches of a multi kernel */
    bb_bicg(gpu, cpu, 77, 24, &emu_launches);
    bb_bicg(gpu, cpu, 45, 6, &emu_launches);
    bb_bicg_solves(gpu, 77, 24, 0);
    bb_bicg_solves(gpu, 45, 6, 0);
    emu_axpy_caxpby_launches(gpu, 77, 24);
    emu_axpy_caxpby_launches(gpu, 45, 6);
    int w1 = bc_solves(gpu, cpu, 77, 24, BLAS_EMU_MARGIN);
    int w2 = bc_solves(gpu, cpu, 45, 6, BLAS_EMU_MARGIN);
    bc_determinism(gpu, 45, 6);
    /* with reduction layouts: several chunk sizes (one chunk, one piece
     * per chunk, 3 and 6 pieces with stride steps), a rank's run of chunks
     * inside the global slots, parts = 2 (staggered_reduce_layout's
     * even/odd halves); every vector with padding sites past the chunks */
    emu_layout(77, 24, 77, 0, 1, 1, 5);
    emu_layout(77, 24, 7, 3, 20, 1, 5);
    emu_layout(45, 6, 5, 0, 9, 1, 5);
    emu_layout(90, 6, 9, 2, 8, 2, 5);
    emu_layout(2200, 6, 1100, 1, 4, 2, 3);
    emu_layout(2600, 6, 2600, 0, 1, 1, 3);
    printf("largest iteration difference GPU - CPU: %d (Wilson-sized), %d (staggered-sized); %llu kernel launches\n", w1, w2,
           emu_launches);
    blas_gpu_destroy(gpu);
    solver_blas_cpu_close(cpu);
    printf("blas-emulation: %d passed, %d failed\n", unit_pass, unit_fail);
    return unit_fail ? 1 : 0;
}
