/* heatbath/gpu_sweep.cuh -- the heatbath backend's launches and its entry
 * point gpu_hb_sweep_<sfx>(f, heatbath, beta, seed, k, parity, mu)
 * (heatbath/gpu.h) for one precision; nvcc only (the <<<...>>> launches);
 * the kernel k_link is device code in heatbath/gpu_link.cuh.  Included by heatbath_gpu_{d,s,m}.cu after they set
 *     LAT_REAL  arithmetic type (double, float, double)
 *     HB_STORE  storage type    (double, float, float)
 *     HB_NS     a namespace for this precision's kernels
 *     HB_SFX    the suffix of the extern "C" entry point (d, s, m)
 * Storage: the gauge-fixing layout (gaugefix_gpu.h, gpu_links.cuh).
 *
 * The physics is not here: one thread updates one link U_mu(x); it loads
 * the six links of each nu != mu into registers (rebuilding the third row
 * of SU(3), widening floats to doubles in mixed precision), accumulates the
 * staple sum with hb_staple_nu, and updates the link with hb_link_heatbath
 * (stream rng_init(seed, 0, x, 4k+mu, RNG_HEATBATH), x the ILDG site) or
 * hb_link_overrelax -- the functions of common/heatbath.h the CPU backend
 * calls -- then stores it back.  A sweep is 8 launches: parity 0, 1, and
 * for each mu = 0..3 (a template parameter), all sites of that parity; the
 * order of heatbath_backend.h.  Within one launch no thread reads a link
 * another thread writes (the staple of U_mu(x) holds no U_mu of x's
 * parity), so the staple links may be read through the non-coherent L1
 * path (__ldg). */
#include "heatbath/link.h"
#include "heatbath/gpu.h"
extern "C" {
#include "base/log.h"
}
#include "gpu/launch.cuh"
#include <cuda_runtime.h>
#include <stdio.h>

#if !defined(HB_STORE) || !defined(HB_NS) || !defined(HB_SFX)
#error "define HB_STORE, HB_NS and HB_SFX before including heatbath_gpu_impl.cuh"
#endif

#define HB_CAT2(a, b) a##_##b
#define HB_CAT(a, b) HB_CAT2(a, b)
#define HB_ENTRY(name) HB_CAT(name, HB_SFX)
#define HB_STR2(a) #a
#define HB_STR(a) HB_STR2(a)

namespace HB_NS {

typedef HB_STORE store_t; /* the storage precision of this file's kernel */
#include "gpu/accessor.cuh"
/* the accessor the kernel gets: gpu_field's storage of SU(NC) */
template <int NC> using links_of = typename default_links<store_t, NC>::type;

#include "heatbath/gpu_link.cuh" /* k_link: device code only */

struct sweep_args {
    const struct gpu_field *f; /* the field launched on (the tuner's key and its saved copy) */
    kgeo g;
    store_t *links;
    double beta_n;
    uint64_t seed;
    uint32_t k;
};

template <int NC, int MU, bool HB, bool L1, int BS>
static void launch(const sweep_args &a, int p)
{
    static bool configured;
    if (!configured) { /* no shared memory: all of it as L1 */
        cudaFuncSetAttribute(k_link<links_of<NC>, MU, HB, L1, BS>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
        configured = true;
    }
    unsigned nb = (unsigned)((a.g.h1 - a.g.h0 + BS - 1) / BS);
    if (nb == 0) return;
    k_link<links_of<NC>, MU, HB, L1, BS><<<nb, BS>>>(a.g, a.links, p, a.beta_n, a.seed, a.k);
}

/* candidate c of the launch of k_link for (parity p, direction MU): the
 * load path of the staple links and the block size; the arithmetic is the
 * same in all, so are the bits */
template <int NC, int MU, bool HB>
static void link_candidate(const sweep_args &a, int p, int c)
{
    switch (c) {
    case 1: launch<NC, MU, HB, false, 128>(a, p); break;
    case 2: launch<NC, MU, HB, true, 256>(a, p); break;
    case 3: launch<NC, MU, HB, true, 64>(a, p); break;
    default: launch<NC, MU, HB, true, 128>(a, p); break;
    }
}

/* candidate c of the step (parity p, direction m) */
template <int NC, bool HB>
static void step_candidate(const sweep_args &a, int p, int m, int c)
{
    switch (m) {
    case 0: link_candidate<NC, 0, HB>(a, p, c); break;
    case 1: link_candidate<NC, 1, HB>(a, p, c); break;
    case 2: link_candidate<NC, 2, HB>(a, p, c); break;
    default: link_candidate<NC, 3, HB>(a, p, c); break;
    }
}

/* parity < 0: the whole sweep (parity 0, 1; mu 0..3), tuned as one unit:
 * one candidate for its eight launches, timed as they run in a sweep (each
 * launch tuned alone, repeated, chose a shape for the mixed heatbath that
 * ran its sweeps 8 % slower: H100, docs/PERFORMANCE.md);
 * else the one step (parity, mu) over the half indices of a.g (slabs),
 * tuned per step */
template <int NC, bool HB>
static void sweep(const sweep_args &a, int parity, int mu)
{
    char name[64];
    if (parity < 0) {
        snprintf(name, sizeof name, "hb_%s.sweep<N%d,hb%d>", HB_STR(HB_SFX), NC, (int)HB);
        tuned_launch(name, a.f, HB_CANDIDATES, [&](int c) {
            for (int p = 0; p < 2; p++)
                for (int m = 0; m < 4; m++) step_candidate<NC, HB>(a, p, m, c);
        });
    } else {
        snprintf(name, sizeof name, "hb_%s.step<N%d,p%d,mu%d,hb%d>", HB_STR(HB_SFX), NC, parity, mu, (int)HB);
        tuned_launch(name, a.f, HB_CANDIDATES, [&](int c) { step_candidate<NC, HB>(a, parity, mu, c); });
    }
}

} // namespace HB_NS

extern "C" void HB_ENTRY(gpu_hb_sweep)(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k,
                                        int parity, int mu)
{
    using namespace HB_NS;
    if (f->nc != 2 && f->nc != 3)
        lat_die(1, "GPU", "the CUDA heatbath has kernels for SU(2) and SU(3), not SU(%d): use --device cpu", f->nc);
    sweep_args a;
    a.f = f;
    a.g = make_geo(f);
    a.links = (store_t *)f->links;
    a.beta_n = heatbath ? beta / f->nc : 0; /* as the CPU: beta/N in double */
    a.seed = seed;
    a.k = k;
    if (f->nc == 3) {
        if (heatbath) sweep<3, true>(a, parity, mu);
        else sweep<3, false>(a, parity, mu);
    } else {
        if (heatbath) sweep<2, true>(a, parity, mu);
        else sweep<2, false>(a, parity, mu);
    }
    gpu_check("heatbath kernel launch");
}
