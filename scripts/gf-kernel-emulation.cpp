/* gf-kernel-emulation.cpp -- the CUDA gauge-fixing kernels of one precision
 * run on the host: the entry points gpu_gf_sweep_<sfx>,
 * gpu_gf_quality_<sfx> and gpu_gf_reunitarize_<sfx> of
 * kernels/gaugefix/gpu.h, for every N of gpu/gpu.h (with_nc), without a GPU.
 * Compiled once per precision with -DGF_PREC_D, _S or _M: the settings
 * kernels/gaugefix/gpu_{d,s,m}.cu use (gaugefix/gpu_prec.h: arithmetic,
 * storage, the precision's sweep kernel); the device-code files are included whole
 * (scripts/cuda-on-host.h).
 *
 * A sweep launch runs the kernel the CUDA dispatch runs for that N and
 * precision (gf_sweep_threads<NC>, kernels/gaugefix/gpu_site.cuh): k_sweep
 * thread by thread, or k_sweep_sh block by block with its threads as fibers
 * between the barriers (cuda_on_host_block), over the launch's half-index
 * range [h0, h1); the launch shape is the first candidate's of the SU(N)
 * (every candidate computes the same bits).  k_reunitarize runs thread by
 * thread over its grid; the quality sums are gf_site_functional/_theta
 * per timeslice in site order on the host (what is checked is the sweep;
 * the real k_quality adds in its tree order).  8-real SU(3) links are not
 * emulated (scripts/link8-emulation checks their storage).
 * Used by scripts/gpu-emulation-build (the emulated tools) and
 * scripts/sun-emulation (the SU(N) check of tests/emulation.bats). */
#include "gaugefix/gpu_prec.h" /* -DGF_PREC_D, _S or _M: the settings of gpu_{d,s,m}.cu */
#ifndef GF_LAZY_ROW3
#define GF_LAZY_ROW3 false
#endif
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"
#include "gaugefix/site.h"
extern "C" {
#include "base/log.h"
}
#include "gaugefix/gpu.h"
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"

#define EMU_CAT2(a, b) a##_##b
#define EMU_CAT(a, b) EMU_CAT2(a, b)
#define EMU_ENTRY(name) EMU_CAT(name, GF_SFX)

namespace GF_NS {
typedef GF_STORE store_t;
#include "gpu/accessor.cuh"
#include "gaugefix/gpu_site.cuh"
#include "gaugefix/gpu_sweep1.cuh"
#include "gaugefix/gpu_sweep4.cuh"
#include "gaugefix/gpu_reduce.cuh"
template <int NC> using links_of = typename default_links<store_t, NC>::type;

struct launch_args {
    const struct gpu_field *f;
    const struct gf_params *p;
    uint64_t seed;
    uint32_t copy, sweep;
    int active;
};

/* one parity of SU(NC): the kernel and first launch shape of gpu_sweep.cuh */
template <int NC, int G, int UPD, bool TRACK>
static void run_parity(const launch_args &a, int par)
{
    typedef links_of<NC> U;
    kgeo g = make_geo(a.f);
    store_t *links = (store_t *)a.f->links, *gt = (store_t *)a.f->transform;
    const unsigned char *act = a.active ? a.f->active : NULL;
    const struct gf_params *p = a.p;
    if constexpr (gf_sweep_threads<NC>::value == 1) {
        constexpr int BS = 128;
        cuda_on_host_grid((unsigned)(g.h1 - g.h0 + BS - 1) / BS, BS, [&] {
            k_sweep<U, G, UPD, TRACK, BS, 1>(g, links, gt, act, par, p->omega, p->p, p->temperature, a.seed, a.copy,
                                             a.sweep);
        });
    } else {
        constexpr int SB = 32;
        int nb = (g.h1 - g.h0 + SB - 1) / SB;
        blockDim.x = 4 * SB;
        for (int b = 0; b < nb; b++) {
            blockIdx.x = (unsigned)b;
            cuda_on_host_block(4 * SB, [&] {
                if constexpr (NC >= 5) /* as gpu_sweep.cuh launches it: one kernel, the rest at run time */
                    k_sweep_sh<U, GF_RT, GF_RT, GF_RT, SB, 1, false>(g, links, gt, act, par, p->omega, p->p,
                                                                     p->temperature, a.seed, a.copy, a.sweep, G, UPD,
                                                                     TRACK);
                else
                    k_sweep_sh<U, G, UPD, TRACK, SB, 1, GF_LAZY_ROW3>(g, links, gt, act, par, p->omega, p->p,
                                                                      p->temperature, a.seed, a.copy, a.sweep, 0, 0, 0);
            });
        }
    }
}

/* GF_EMU_SUBSET (scripts/sun-emulation): only the kernels its cases run
 * are instantiated -- Landau untracked (relaxation tracked), Coulomb and MAG
 * tracked; N = 2, 3, 4, 5, 6, 8 -- which compiles in a third of the time */
template <int NC, int G, int UPD, bool TRACK> constexpr bool emulated()
{
#ifdef GF_EMU_SUBSET
    if (NC == 7) return false;
    if (G == GAUGE_LANDAU) return TRACK == (UPD == GF_RELAX);
    return TRACK && UPD != GF_RELAX && UPD != GF_MICRO;
#else
    return true;
#endif
}
template <int NC, int G, int UPD, bool TRACK>
static void run_or_refuse(const launch_args &a, int par)
{
    if constexpr (emulated<NC, G, UPD, TRACK>()) run_parity<NC, G, UPD, TRACK>(a, par);
    else lat_die(1, "emulation", "this kernel is not in the GF_EMU_SUBSET build");
}
template <int NC, int G, bool TRACK>
static void by_update(const launch_args &a, int par)
{
    switch (a.p->update) {
    case GF_RELAX: run_or_refuse<NC, G, GF_RELAX, TRACK>(a, par); break;
    case GF_OVERRELAX: run_or_refuse<NC, G, GF_OVERRELAX, TRACK>(a, par); break;
    case GF_MICRO: run_or_refuse<NC, G, GF_MICRO, TRACK>(a, par); break;
    case GF_STOCHASTIC: run_or_refuse<NC, G, GF_STOCHASTIC, TRACK>(a, par); break;
    default: run_or_refuse<NC, G, GF_ANNEAL, TRACK>(a, par); break;
    }
}
template <int NC, bool TRACK>
static void by_gauge(const launch_args &a, int par)
{
    switch (a.p->gauge) {
    case GAUGE_LANDAU: by_update<NC, GAUGE_LANDAU, TRACK>(a, par); break;
    case GAUGE_COULOMB: by_update<NC, GAUGE_COULOMB, TRACK>(a, par); break;
    default: by_update<NC, GAUGE_MAG, TRACK>(a, par); break;
    }
}
} // namespace GF_NS
using namespace GF_NS;

static void no_link8(const struct gpu_field *f)
{
    if (f->recon == GPU_RECON_8) lat_die(1, "emulation", "8-real links are not emulated here (scripts/link8-emulation)");
}

extern "C" void EMU_ENTRY(gpu_gf_sweep)(const struct gpu_field *f, const struct gf_params *p, uint64_t seed,
                                         uint32_t copy, uint32_t sweep, int active, int parity)
{
    no_link8(f);
    launch_args a = {f, p, seed, copy, sweep, active};
    for (int par = parity < 0 ? 0 : parity; par < (parity < 0 ? 2 : parity + 1); par++)
        with_nc(f->nc, [&](auto n) {
            if (f->transform) by_gauge<decltype(n)::value, true>(a, par);
            else by_gauge<decltype(n)::value, false>(a, par);
        });
}

/* per timeslice, site order within a slice, on the host */
extern "C" void EMU_ENTRY(gpu_gf_quality)(const struct gpu_field *f, enum gauge_kind gauge, double *out)
{
    no_link8(f);
    with_nc(f->nc, [&](auto n) {
        constexpr int NC = decltype(n)::value;
        typedef links_of<NC> U;
        kgeo g = make_geo(f);
        int v3 = (int)(f->V / f->L[3]);
        for (int t = 0; t < f->L[3]; t++) {
            double fs = 0, ts = 0;
            for (int s = t * v3; s < (t + 1) * v3; s++) {
                int x[4], r = s;
                for (int mu = 0; mu < 4; mu++) {
                    x[mu] = r % f->L[mu];
                    r /= f->L[mu];
                }
                int p = (x[0] + x[1] + x[2] + x[3]) & 1, hb[4];
                lat_complex up[4 * NC * NC], dn[4 * NC * NC];
                load_site<U, 4>((const store_t *)f->links, g, p, s / 2, s, x, up, dn, hb);
                fs += (double)gf_site_functional(NC, gauge, up);
                ts += (double)gf_site_theta(NC, gauge, up, dn);
            }
            out[2 * t] = fs;
            out[2 * t + 1] = ts;
        }
    });
}

/* k_reunitarize over its grid, thread by thread */
extern "C" void EMU_ENTRY(gpu_gf_reunitarize)(const struct gpu_field *f)
{
    no_link8(f);
    with_nc(f->nc, [&](auto n) {
        typedef links_of<decltype(n)::value> U;
        kgeo g = make_geo(f);
        unsigned nbx = (unsigned)((f->Vh + RED_BS - 1) / RED_BS), nby = f->transform ? 10 : 8;
        for (unsigned by = 0; by < nby; by++) {
            blockIdx.y = by;
            cuda_on_host_grid(nbx, RED_BS, [&] { k_reunitarize<U>(g, (store_t *)f->links, (store_t *)f->transform); });
        }
    });
}
