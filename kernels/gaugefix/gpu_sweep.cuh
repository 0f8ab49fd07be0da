/* gaugefix/gpu_sweep.cuh -- the gauge-fixing backend's launches and entry
 * points for one precision (nvcc only: it holds the <<<...>>> launches; the
 * kernels themselves are in the device-code files gpu_site.cuh,
 * gpu_sweep1.cuh, gpu_sweep4.cuh, gpu_reduce.cuh, which the host emulation
 * includes as they are).  Exports, with the suffix GF_SFX:
 *   gpu_gf_sweep_<sfx>(f, par, seed, copy, sweep, active, parity)
 *   gpu_gf_quality_<sfx>(f, gauge, out[2 Lt])   per timeslice F, theta sums
 *   gpu_gf_reunitarize_<sfx>(f)                 links (and transform) onto SU(N)
 * Included by gaugefix/gpu_{d,s,m}.cu once per precision, after they set
 *     LAT_REAL  arithmetic type (double, float, double)
 *     GF_STORE  storage type    (double, float, float)
 *     GF_NS     a namespace for this precision's kernels (gf_d, gf_s, gf_m)
 *     GF_SFX    the suffix of the extern "C" entry points (d, s, m)
 *     GF_MIXED  (m only) links in float registers between the double steps
 *               (the one-thread-per-site kernel)
 *     GF_THREADS_PER_SITE  the default sweep kernel of SU(2), SU(3): 1 (k_sweep, one thread
 *               per site), 2 or 4 (k_sweep4: 2 or 1 directions per thread)
 *     GF_MINB, GF_MINB_HEAVY  (2 or 4 threads per site) minimum blocks of
 *               128 threads per SM of the default kernels (sweep_default)
 *     GF_SHARED_G  (4 threads per site) 1: the default kernel is k_sweep_sh
 *               (g once per site, through shared memory), 0: k_sweep4
 *     GF_LAZY_ROW3  (k_sweep_sh) true: the third rows of SU(3) rebuilt only
 *               for the subgroups that use them (fewer live registers)
 * Every N of GPU_MIN_NC..GPU_MAX_NC (gpu/gpu.h) is one instantiation of the
 * same templates (with_nc, gpu/launch.cuh); N >= 4 runs k_sweep_sh in every
 * precision (gf_sweep_threads, gpu_site.cuh), SU(4) with launch shapes of
 * its own (sweep_candidate_large), links as whole N x N matrices.
 * The storage layout is described in gpu/field.h.
 *
 * The physics is not here: each kernel loads the links of a site into
 * registers (rebuilding the third row of SU(3)), calls gf_site_update,
 * gf_site_functional or gf_site_theta of common/gaugefix.h -- the very
 * functions the CPU backend calls; the several-threads-per-site kernels call
 * the parts gf_site_update is built from (gf_landau_k_link, gf_mag_h_up/_dn,
 * gf_step1_k/_h, gf_step2_link, gf_step2_column) in its order -- and stores
 * the links back.  The gauge,
 * the update and N are template parameters, so each kernel is compiled with
 * the branches of gaugefix.h folded away and the matrices in registers.
 * k_sweep: one thread updates one site; k_sweep4: four threads, one per
 * direction (see there).  A sweep is a launch for the even sites, then one
 * for the odd sites.  Random numbers: site x of sweep k draws from
 * rng_init(seed, copy, x, k, purpose), the stream the CPU backend uses. */
#include "gaugefix/gpu.h"
extern "C" {
#include "base/log.h"
}
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"
#include <cuda_runtime.h>
#include <stdio.h>
#include <type_traits>
#include <stdlib.h>
#include <string.h>

#if !defined(GF_STORE) || !defined(GF_NS) || !defined(GF_SFX) || !defined(GF_THREADS_PER_SITE)
#error "define GF_STORE, GF_NS, GF_SFX and GF_THREADS_PER_SITE before including gaugefix_gpu_impl.cuh"
#endif
#ifndef GF_SHARED_G
#define GF_SHARED_G 0
#endif
#ifndef GF_LAZY_ROW3
#define GF_LAZY_ROW3 false
#endif
#if GF_THREADS_PER_SITE != 1 && (!defined(GF_MINB) || !defined(GF_MINB_HEAVY))
#error "define GF_MINB and GF_MINB_HEAVY (launch bounds of the default kernels) with GF_THREADS_PER_SITE 2 or 4"
#endif

#define GF_CAT2(a, b) a##_##b
#define GF_CAT(a, b) GF_CAT2(a, b)
#define GF_ENTRY(name) GF_CAT(name, GF_SFX)
#define GF_STR2(a) #a
#define GF_STR(a) GF_STR2(a)

namespace GF_NS {

typedef GF_STORE store_t; /* the storage precision of this file's kernels */

/* the geometry and the link accessor of the device layout */
#include "gpu/accessor.cuh"
/* the accessor the kernels get: gpu_field's storage of SU(NC) */
/* the accessor the kernels get: gpu_field's storage of SU(NC) with R reals
 * per link (R = 0: the default of gpu_field_create, 12 for SU(3)) */
template <int NC, int R = 0>
using links_of = typename std::conditional<R == 0, typename default_links<store_t, NC>::type, gauge_accessor<store_t, NC, R>>::type;

/* the kernels (device code only; the host emulation includes these files) */
#include "gaugefix/gpu_site.cuh"
#include "gaugefix/gpu_sweep1.cuh"
#include "gaugefix/gpu_sweep4.cuh"
#include "gaugefix/gpu_reduce.cuh"

struct sweep_args {
    const struct gpu_field *f; /* the field launched on (the tuner's key and its saved copy) */
    kgeo g;
    store_t *links, *gt;
    const unsigned char *active;
    double omega, prob, temp;
    uint64_t seed;
    uint32_t copy, sweep;
    int parity; /* < 0: both */
};

template <int NC, int G, int UPD, bool TRACK, int BS, int MINB, int R>
static void launch(const sweep_args &a, int p)
{
    static bool configured;
    if (!configured) { /* no shared memory: all of it as L1 (spills, if any) */
        cudaFuncSetAttribute(k_sweep<links_of<NC, R>, G, UPD, TRACK, BS, MINB>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
        configured = true;
    }
    int nb = (a.g.h1 - a.g.h0 + BS - 1) / BS;
    if (nb <= 0) return;
    k_sweep<links_of<NC, R>, G, UPD, TRACK, BS, MINB><<<nb, BS>>>(a.g, a.links, a.gt, a.active, p, a.omega, a.prob, a.temp,
                                                       a.seed, a.copy, a.sweep);
}

template <int NC, int G, int UPD, int TRACK, int SB, int MINB, bool LAZY, int R>
static void launch_sh(const sweep_args &a, int p, int rt_gauge = 0, int rt_update = 0, int rt_track = 0)
{
    static bool configured;
    if (!configured) { /* shared memory for MINB blocks and more; the rest L1 */
        cudaFuncSetAttribute(k_sweep_sh<links_of<NC, R>, G, UPD, TRACK, SB, MINB, LAZY>, cudaFuncAttributePreferredSharedMemoryCarveout, 25);
        configured = true;
    }
    unsigned nb = (unsigned)((a.g.h1 - a.g.h0 + SB - 1) / SB);
    if (nb == 0) return;
    k_sweep_sh<links_of<NC, R>, G, UPD, TRACK, SB, MINB, LAZY><<<nb, 4 * SB>>>(a.g, a.links, a.gt, a.active, p, a.omega, a.prob, a.temp,
                                                               a.seed, a.copy, a.sweep, rt_gauge, rt_update, rt_track);
}

/* The kernel of each precision is fixed (its arithmetic, hence its bits):
 * one thread per site (k_sweep) in single precision, bound by memory at
 * 95-98 % of the copy bandwidth; four threads per site with g once per site
 * in shared memory (k_sweep_sh) in double and mixed, mixed rebuilding the
 * third rows of SU(3) only where a subgroup needs them (GF_LAZY_ROW3).  The
 * runs of docs/PERFORMANCE.md chose these.  What the tuner (gpu/launch.cuh)
 * chooses is the launch shape: block size and minimum blocks per SM.
 * Minimum blocks per SM of the first candidate: GF_MINB, or GF_MINB_HEAVY
 * for kernels with more live values (annealing, MAG, a tracked transform).
 * Coulomb always carries the run's g (gf_open), but its threads of mu = t
 * hold no links: tracked Coulomb relaxation gets one block more than the
 * heavy kernels (ptxas, mixed: 372 B of spills at 5 blocks/SM, none at 4) */
#if GF_THREADS_PER_SITE != 1
template <int G, int UPD, bool TRACK> struct default_minb {
    static constexpr bool heavy = UPD == GF_ANNEAL || G == GAUGE_MAG || TRACK;
    static constexpr int value =
        !heavy ? GF_MINB : (G == GAUGE_COULOMB && UPD != GF_ANNEAL) ? GF_MINB_HEAVY + 1 : GF_MINB_HEAVY;
};
#endif

/* the candidates of a kernel: SU(3) and SU(4) overrelaxation of Landau
 * and Coulomb gauge and of MAG, and annealing, have four (the launches the
 * benchmark and the users run most); the rest one */
template <int NC, int G, int UPD, bool TRACK> struct gf_tuned {
    static constexpr bool many = (NC == 3 || NC == 4) && (UPD == GF_OVERRELAX || UPD == GF_ANNEAL);
    static constexpr int ncand = many ? GF_CANDIDATES : 1;
};

/* SU(N >= 4): k_sweep_sh in every precision (gf_sweep_threads, gpu_site.cuh
 * says why).
 * SU(4) is an instantiation of its own, tuned as the Cardoso-Bicudo SU(4)
 * kernels are: the shapes for its register footprint -- two 4 x 4 links per
 * thread, 64 reals (128 registers in double and mixed arithmetic, 64 in
 * single) -- first the most blocks per SM that should hold them without
 * spills (3 of 128 threads in double/mixed, 4 in single), then one block
 * more, 64 sites per block, and 2 blocks; the tuning cache keeps the
 * fastest per device and volume (rates: docs/PERFORMANCE.md, to be
 * measured on the H100).
 * SU(N >= 5): one shape, 32 sites per block and no minimum of blocks: the
 * links (2 N^2 complex numbers per thread) live in local memory whatever
 * the shape, the subgroup loop is not unrolled (gpu_sweep4.cuh), and the
 * speed of these N is secondary to having them.  So the gauge, the update
 * and the tracking are run-time arguments there (GF_RT): one kernel per N
 * and precision instead of 30, which cut the CUDA build's time (the
 * branches cost little next to the local-memory traffic). */
#define GF_SU4_MINB (sizeof(lat_real) == sizeof(float) ? 4 : 3)
template <int NC, int G, int UPD, bool TRACK, int R>
static void sweep_candidate_large(const sweep_args &a, int p, int c)
{
    if constexpr (NC == 4) {
        constexpr int m = GF_SU4_MINB;
        if constexpr (gf_tuned<NC, G, UPD, TRACK>::ncand == 1) {
            (void)c; /* the default shape only (see sweep_candidate) */
            launch_sh<4, G, UPD, TRACK, 32, m, false, R>(a, p);
        } else {
            switch (c) { /* k_sweep_sh: sites per block (4 threads each), blocks per SM */
            case 1: launch_sh<4, G, UPD, TRACK, 32, m + 1, false, R>(a, p); break;
            case 2: launch_sh<4, G, UPD, TRACK, 64, 1, false, R>(a, p); break;
            case 3: launch_sh<4, G, UPD, TRACK, 32, 2, false, R>(a, p); break;
            default: launch_sh<4, G, UPD, TRACK, 32, m, false, R>(a, p); break;
            }
        }
    } else { /* one kernel per N: gauge, update and tracking at run time (GF_RT) */
        (void)c;
        launch_sh<NC, GF_RT, GF_RT, GF_RT, 32, 1, false, R>(a, p, G, UPD, TRACK);
    }
}

/* candidate c of the sweep kernel for one parity, R reals per link */
template <int NC, int G, int UPD, bool TRACK, int R>
static void sweep_candidate(const sweep_args &a, int p, int c)
{
    if constexpr (gf_sweep_threads<NC>::value == 4 && NC >= 4) {
        sweep_candidate_large<NC, G, UPD, TRACK, R>(a, p, c);
        return;
    } else if constexpr (gf_tuned<NC, G, UPD, TRACK>::ncand == 1) {
        /* one candidate: only the default shape is compiled.  The other three
         * would never run, yet nvcc would build them: for SU(2) and the
         * untuned SU(3) kernels that was three quarters of the file's
         * compile time */
        (void)c;
#if GF_THREADS_PER_SITE == 1
        launch<NC, G, UPD, TRACK, 128, 2, R>(a, p);
#else
        launch_sh<NC, G, UPD, TRACK, 32, default_minb<G, UPD, TRACK>::value, GF_LAZY_ROW3, R>(a, p);
#endif
    } else {
#if GF_THREADS_PER_SITE == 1
    switch (c) { /* k_sweep: threads per block, blocks per SM */
    case 1: launch<NC, G, UPD, TRACK, 256, 1, R>(a, p); break;
    case 2: launch<NC, G, UPD, TRACK, 128, 3, R>(a, p); break;
    case 3: launch<NC, G, UPD, TRACK, 64, 4, R>(a, p); break;
    default: launch<NC, G, UPD, TRACK, 128, 2, R>(a, p); break;
    }
#else
    constexpr int m = default_minb<G, UPD, TRACK>::value;
    switch (c) { /* k_sweep_sh: sites per block (4 threads each), blocks per SM */
    case 1: launch_sh<NC, G, UPD, TRACK, 32, m + 1, GF_LAZY_ROW3, R>(a, p); break;
    case 2: launch_sh<NC, G, UPD, TRACK, 64, 2, GF_LAZY_ROW3, R>(a, p); break;
    case 3: launch_sh<NC, G, UPD, TRACK, 32, (m > 2 ? m - 1 : 1), GF_LAZY_ROW3, R>(a, p); break;
    default: launch_sh<NC, G, UPD, TRACK, 32, m, GF_LAZY_ROW3, R>(a, p); break;
    }
#endif
    }
}

template <int NC, int G, int UPD, bool TRACK, int R = 0>
static void sweep_t(const sweep_args &a)
{
    typedef gf_tuned<NC, G, UPD, TRACK> T;
    char name[96];
    snprintf(name, sizeof name, "gf_%s.sweep<N%d,g%d,u%d,t%d,r%d>", GF_STR(GF_SFX), NC, G, UPD, (int)TRACK, R);
    for (int p = a.parity < 0 ? 0 : a.parity; p < (a.parity < 0 ? 2 : a.parity + 1); p++) {
        if (T::ncand == 1) sweep_candidate<NC, G, UPD, TRACK, R>(a, p, 0);
        else tuned_launch(name, a.f, T::ncand, [&](int c) { sweep_candidate<NC, G, UPD, TRACK, R>(a, p, c); });
    }
}

template <int NC, int G, bool TRACK>
static void sweep_u(const sweep_args &a, int upd)
{
    switch (upd) {
    case GF_RELAX: sweep_t<NC, G, GF_RELAX, TRACK>(a); break;
    case GF_OVERRELAX: sweep_t<NC, G, GF_OVERRELAX, TRACK>(a); break;
    case GF_MICRO: sweep_t<NC, G, GF_MICRO, TRACK>(a); break;
    case GF_STOCHASTIC: sweep_t<NC, G, GF_STOCHASTIC, TRACK>(a); break;
    case GF_ANNEAL: sweep_t<NC, G, GF_ANNEAL, TRACK>(a); break;
    default: lat_die(1, "GPU", "unknown update type %d", upd);
    }
}

template <int NC, bool TRACK>
static void sweep_g(const sweep_args &a, int gauge, int upd)
{
    switch (gauge) {
    case GAUGE_LANDAU: sweep_u<NC, GAUGE_LANDAU, TRACK>(a, upd); break;
    case GAUGE_COULOMB: sweep_u<NC, GAUGE_COULOMB, TRACK>(a, upd); break;
    case GAUGE_MAG: sweep_u<NC, GAUGE_MAG, TRACK>(a, upd); break;
    default: lat_die(1, "GPU", "unknown gauge %d", gauge);
    }
}


/* SU(3) with 8 reals per link (gpu_field_create_recon): the relaxation and
 * overrelaxation sweeps of the three gauges, the kernels a long fixing
 * spends its time in; the other updates refuse such a field */
template <bool TRACK>
static void sweep_g8(const sweep_args &a, int gauge, int upd)
{
    if (upd != GF_RELAX && upd != GF_OVERRELAX)
        lat_die(1, "GPU", "8-real links (--links 8) have kernels for relaxation and overrelaxation only: use --links 12");
    if constexpr (std::is_same<store_t, float>::value) { /* float storage: single and mixed */
#define G8(G_)                                                                      \
    if (upd == GF_RELAX) sweep_t<3, G_, GF_RELAX, TRACK, LINK_8>(a);                \
    else sweep_t<3, G_, GF_OVERRELAX, TRACK, LINK_8>(a);
        switch (gauge) {
        case GAUGE_LANDAU: G8(GAUGE_LANDAU) break;
        case GAUGE_COULOMB: G8(GAUGE_COULOMB) break;
        case GAUGE_MAG: G8(GAUGE_MAG) break;
        default: lat_die(1, "GPU", "unknown gauge %d", gauge);
        }
#undef G8
    } else {
        lat_die(1, "GPU", "8-real links (--links 8) are for single and mixed precision");
    }
}

/* a device scratch buffer for partial sums, kept between calls */
static double *scratch;
static size_t scratch_n;
static double *partials_buffer(size_t n)
{
    if (n > scratch_n) {
        gpu_free(scratch);
        scratch = (double *)gpu_alloc(n * sizeof(double), "reduction buffer");
        scratch_n = n;
    }
    return scratch;
}

} // namespace GF_NS

/* ---- entry points ------------------------------------------------------- */

extern "C" void GF_ENTRY(gpu_gf_sweep)(const struct gpu_field *f, const struct gf_params *p, uint64_t seed,
                                        uint32_t copy, uint32_t sweep, int active, int parity)
{
    using namespace GF_NS;
    sweep_args a;
    a.f = f;
    a.g = make_geo(f);
    a.links = (store_t *)f->links;
    a.gt = (store_t *)f->transform;
    a.active = active ? f->active : NULL;
    a.omega = p->omega;
    a.prob = p->p;
    a.temp = p->temperature;
    a.seed = seed;
    a.copy = copy;
    a.sweep = sweep;
    a.parity = parity;
    bool track = a.gt != NULL;
    if (f->nc == 3 && f->recon == GPU_RECON_8) {
        if (track) sweep_g8<true>(a, p->gauge, p->update);
        else sweep_g8<false>(a, p->gauge, p->update);
    } else {
        with_nc(f->nc, [&](auto n) {
            if (track) sweep_g<decltype(n)::value, true>(a, p->gauge, p->update);
            else sweep_g<decltype(n)::value, false>(a, p->gauge, p->update);
        });
    }
    gpu_check("sweep kernel launch");
}

extern "C" void GF_ENTRY(gpu_gf_quality)(const struct gpu_field *f, enum gauge_kind gauge, double *out)
{
    using namespace GF_NS;
    kgeo g = make_geo(f);
    int lt = f->L[3];
    size_t n = (size_t)lt * RED_NB * 2;
    double *d = partials_buffer(n);
    dim3 grid(RED_NB, lt);
    const store_t *l = (const store_t *)f->links;
#define QL(U_)                                                                              \
    switch (gauge) {                                                                        \
    case GAUGE_LANDAU: k_quality<U_, GAUGE_LANDAU><<<grid, RED_BS>>>(g, l, d); break;     \
    case GAUGE_COULOMB: k_quality<U_, GAUGE_COULOMB><<<grid, RED_BS>>>(g, l, d); break;   \
    default: k_quality<U_, GAUGE_MAG><<<grid, RED_BS>>>(g, l, d); break;                  \
    }
    typedef links_of<3, LINK_8> links8;
    if (f->nc == 3 && f->recon == GPU_RECON_8) { QL(links8) }
    else with_nc(f->nc, [&](auto n) { QL(links_of<decltype(n)::value>) });
#undef QL
    gpu_check("measurement kernel launch");
    double *hp = (double *)malloc(n * sizeof(double));
    if (!hp) lat_die(1, "GPU", "out of host memory");
    gpu_download(hp, d, n * sizeof(double));
    for (int t = 0; t < lt; t++) {
        double a = 0, b = 0;
        for (int k = 0; k < RED_NB; k++) {
            a += hp[((size_t)t * RED_NB + k) * 2];
            b += hp[((size_t)t * RED_NB + k) * 2 + 1];
        }
        out[2 * t] = a;
        out[2 * t + 1] = b;
    }
    free(hp);
}

extern "C" void GF_ENTRY(gpu_gf_reunitarize)(const struct gpu_field *f)
{
    using namespace GF_NS;
    kgeo g = make_geo(f);
    dim3 grid((unsigned)((f->Vh + RED_BS - 1) / RED_BS), f->transform ? 10 : 8);
    if (f->nc == 3 && f->recon == GPU_RECON_8)
        k_reunitarize<links_of<3, LINK_8>><<<grid, RED_BS>>>(g, (store_t *)f->links, (store_t *)f->transform);
    else
        with_nc(f->nc, [&](auto n) {
            k_reunitarize<links_of<decltype(n)::value>><<<grid, RED_BS>>>(g, (store_t *)f->links, (store_t *)f->transform);
        });
    gpu_check("reunitarization kernel launch");
}
