/* hmc-gauge-emulation.cpp -- a host check of the GPU HMC's gauge part
 * (kernels/hmc/gpu.h) without a GPU or nvcc (scripts/hmc-gauge-emulation
 * builds and runs it; tests/emulation.bats in `make check`, any CUDA=).
 *
 * It compiles kernels/hmc/gpu_kernel.cuh with gpu/accessor.cuh,
 * gpu/reduce.cuh whole with g++
 * (scripts/cuda-on-host.h), and links kernels/hmc/gpu.c and
 * kernels/gpu/field.c as the CUDA build compiles them (the device copies
 * memcpy here); the launchers of gpu_d.cu are replaced by the ones below,
 * which run every thread of the same grids in turn: the site kernels one
 * thread at a time (each writes only its own site), the reductions one
 * block at a time with cuda_on_host_block (the block's threads as fibers
 * meeting at every __syncthreads).  The checks (tests/gpu/hmc_gauge_checks.h,
 * shared with the real-GPU test tests/gpu/test_gpu_hmc_gauge.c): every
 * kernel against the CPU functions on Haar-random 4^3x8 and 6x4x4x8 links
 * (momenta bit for bit here), then the general integrator (integrator.h)
 * on device fields against host fields: MD over two time scales, its
 * reversal, whole trajectories with the same dH, decision and links (a
 * rejected one restoring the start bit for bit); and the refusals (SU(2),
 * 12-real links, 0 MD steps, one field as input and output, a monomial
 * without device callbacks: exit 1 with one line).
 * With -DHMC_GAUGE_EMU_NO_MAIN: the emulated launchers and GPU layer only,
 * for an emulated lat-hmc (scripts/hmc-gauge-emulation links one); adding
 * -DHMC_GAUGE_EMU_KERNELS_ONLY: the launchers only (scripts/hmc-gpu-emulation's
 * lat-hmc, whose GPU layer is hmc-gpu-emulation.cpp's).
 * Prints "hmc-gauge-emulation: N passed, M failed"; exit 1 if any failed.  Not checked here: the CUDA compiler's
 * code (test_gpu_hmc_gauge.c does that on a GPU). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"
#include "lattice/observables_site.h"
#include "heatbath/link.h"
#include "hmc/site.h"
extern "C" {
#include "lattice/field.h"
#include "base/log.h"
}
#include "hmc/gpu.h"
#include "gpu/field.h"
#include "unit.h"
#include "gpu_fields.h"
#include "hmc_gauge_checks.h"

namespace emu {
#include "gpu/reduce.cuh"
#include "gpu/accessor.cuh"
#include "hmc/gpu_kernel.cuh"
}
using namespace emu;
typedef gauge_accessor<double, 3, LINK_FULL> hmc_links;

/* the GPU layer's host entry points (memory, device, refused halo and
 * observables): the one copy in scripts/gpu-util-on-host.h */
#ifndef HMC_GAUGE_EMU_KERNELS_ONLY /* else another emulation layer brings them (hmc-gpu-emulation) */
#define GPU_ON_HOST_REFUSE "hmc-gauge-emulation"
#include "gpu-util-on-host.h"
#endif

/* a site kernel: the grid of gpu_d.cu (the field's launch range h0..h1),
 * every thread in turn */
template <class K> static void run_sites(const struct gpu_field *f, const K &kernel)
{
    int64_t n = (f->h1 > 0 ? f->h1 : f->Vh) - f->h0;
    unsigned nb = (unsigned)((2 * n + HMC_BS - 1) / HMC_BS);
    blockDim.x = HMC_BS;
    for (unsigned b = 0; b < nb; b++)
        for (unsigned t = 0; t < HMC_BS; t++) {
            blockIdx.x = b;
            threadIdx.x = t;
            kernel();
        }
}

/* a reduction kernel: nb blocks of GPU_RED_BS fibers */
template <class K> static void run_blocks(unsigned nb, const K &kernel)
{
    blockDim.x = GPU_RED_BS;
    for (unsigned b = 0; b < nb; b++) {
        blockIdx.x = b;
        cuda_on_host_block(GPU_RED_BS, kernel);
    }
}

extern "C" void hmc_gpu_draw_d(const struct gpu_field *p, uint64_t seed, uint32_t trajectory)
{
    kgeo g = make_geo(p);
    run_sites(p, [&] { k_hmc_draw<hmc_links>(g, (double *)p->links, seed, trajectory); });
}

extern "C" void hmc_gpu_kinetic_d(const struct gpu_field *p, int t0, int nt, int nsub, double *partials)
{
    kgeo g = make_geo(p);
    run_blocks((unsigned)(nt * nsub), [&] { k_hmc_kinetic<hmc_links>(g, t0, nsub, (const double *)p->links, partials); });
}

extern "C" void hmc_gpu_update_d(const struct gpu_field *u, const struct gpu_field *p, double eps)
{
    kgeo g = make_geo(u);
    run_sites(u, [&] { k_hmc_update<hmc_links>(g, (double *)u->links, (const double *)p->links, eps); });
}

extern "C" void hmc_gpu_force_d(const struct gpu_field *u, double c, const struct gpu_field *f)
{
    kgeo g = make_geo(u);
    run_sites(u, [&] { k_hmc_force<hmc_links>(g, (const double *)u->links, c, (double *)f->links); });
}

extern "C" void hmc_gpu_add_d(const struct gpu_field *p, double eps, const struct gpu_field *f)
{
    kgeo g = make_geo(p);
    run_sites(p, [&] { k_hmc_add<hmc_links>(g, (double *)p->links, eps, (const double *)f->links); });
}

extern "C" void hmc_gpu_plaquette_d(const struct gpu_field *u, int t0, int nt, int nsub, double *partials)
{
    kgeo g = make_geo(u);
    run_blocks((unsigned)(nt * nsub), [&] { k_hmc_plaquette<hmc_links>(g, t0, nsub, (const double *)u->links, partials); });
}

/* a device copy is a memcpy here; nothing is queued to wait for */
extern "C" void hmc_gpu_copy_d(const struct gpu_field *dst, const struct gpu_field *src, size_t bytes)
{
    memcpy(dst->links, src->links, bytes);
}

extern "C" void hmc_gpu_sync_d(void) {}

#ifndef HMC_GAUGE_EMU_NO_MAIN
/* ---- the refusals: one line, exit 1 (zero links: the children of fork
 * must not start OpenMP threads) ---- */
static struct lattice refusal_lat;
static void refuse_su2(void *)
{
    struct field u;
    field_alloc(&u, &refusal_lat, 2, 64);
    struct gpu_field f;
    hmc_gpu_field_create(&f, &u);
    exit(0);
}
static void refuse_recon12(void *)
{
    struct field u;
    field_alloc(&u, &refusal_lat, 3, 64);
    struct gpu_field f;
    gpu_field_create(&f, &u, 'd', 0); /* 12 reals: not the GPU HMC's storage */
    hmc_gpu_kinetic_energy(&f);
    exit(0);
}
static void refuse_steps(void *)
{
    struct field u;
    field_alloc(&u, &refusal_lat, 3, 64);
    struct gpu_field U, P;
    hmc_gpu_field_create(&U, &u);
    hmc_gpu_field_create(&P, &u);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, 5.7, 0);
    struct hmc_integrator it = {0.5, 0, 1};
    hmc_integrate_gpu(&it, &m, 1, &U, &P, NULL);
    exit(0);
}
static void refuse_host_only(void *)
{
    struct field u;
    field_alloc(&u, &refusal_lat, 3, 64);
    struct gpu_field U;
    hmc_gpu_field_create(&U, &u);
    struct hmc_gauge_ctx g;
    struct hmc_monomial m = hmc_gauge_monomial(&g, 5.7, 0);
    m.name = "host-only";
    m.action_gpu = NULL; /* a monomial with the host callbacks only */
    m.force_gpu = NULL;
    struct hmc_params par = {{0.5, 2, 1}, 1};
    struct hmc_result res;
    hmc_trajectory_gpu(&par, &m, 1, &U, 0, &res, NULL);
    exit(0);
}
static void refuse_same(void *)
{
    struct field u;
    field_alloc(&u, &refusal_lat, 3, 64);
    struct gpu_field P;
    hmc_gpu_field_create(&P, &u);
    hmc_gpu_momenta_add(&P, 0.1, &P);
    exit(0);
}

static void check_refusal(void (*child)(void *), const char *what, const char *expect)
{
    char err[512];
    int lines;
    int st = unit_run_child(child, NULL, 20, err, sizeof err, &lines);
    printf("refusal %s: exit %d, %d line(s): %s", what, st, lines, err);
    CHECK(st == 1 && lines == 1 && strstr(err, expect), "refusal %s: exit %d, %d lines: %s", what, st, lines, err);
}

int main(void)
{
    lat_progname = "hmc-gauge-emulation";
    int sizes[2][4] = {{4, 4, 4, 8}, {6, 4, 4, 8}};
    for (int k = 0; k < 2; k++) {
        struct lattice lat;
        const char *why = NULL;
        if (lattice_init(&lat, sizes[k], &why)) lat_die(1, NULL, "lattice: %s", why);
        char name[32];
        snprintf(name, sizeof name, "%dx%dx%dx%d", sizes[k][0], sizes[k][1], sizes[k][2], sizes[k][3]);
        hmc_gauge_check_kernels(&lat, name, 1);
        hmc_gauge_check_md(&lat, name, 1);
    }
    int L[4] = {4, 4, 4, 4};
    const char *why = NULL;
    if (lattice_init(&refusal_lat, L, &why)) lat_die(1, NULL, "lattice: %s", why);
    check_refusal(refuse_su2, "SU(2)", "SU(3) only");
    check_refusal(refuse_recon12, "12-real links", "18 reals");
    check_refusal(refuse_steps, "0 MD steps", "at least 1");
    check_refusal(refuse_same, "P += eps P", "the same device field twice");
    check_refusal(refuse_host_only, "a monomial without device callbacks", "no device callbacks");
    return unit_done("hmc-gauge-emulation");
}
#endif
