/* heatbath/gpu_sweep.cuh -- the heatbath backend's launches and its entry
 * point gpu_hb_sweep_<sfx>(f, heatbath, beta, seed, k, parity, mu)
 * (heatbath/gpu.h) for one precision; nvcc only (the <<<...>>> launches);
 * the kernel k_link is device code in heatbath/gpu_link.cuh.  Included by heatbath_gpu_{d,s,m}.cu after they set
 *     LAT_REAL  arithmetic type (double, float, double)
 *     HB_STORE  storage type    (double, float, float)
 *     HB_NS     a namespace for this precision's kernels
 *     HB_SFX    the suffix of the extern "C" entry point (d, s, m)
 * Storage: the GPU layer's (gpu/field.h, gpu/accessor.cuh): 12 reals per
 * SU(3) link, the whole 2N^2 for every other N.
 *
 * The physics is not here: one thread updates one link U_mu(x); it loads
 * the six links of each nu != mu into registers (rebuilding the third row
 * of SU(3), widening floats to doubles in mixed precision), accumulates the
 * staple sum with hb_staple_nu, and updates the link with hb_link_heatbath
 * (stream rng_init(seed, 0, x, 4k+mu, RNG_HEATBATH), x the ILDG site) or
 * hb_link_overrelax -- the functions of common/heatbath.h the CPU backend
 * calls -- then stores it back.  A sweep is 8 launches: parity 0, 1, and
 * for each mu = 0..3 (a template parameter for N <= 4, a kernel argument
 * for N >= 5), all sites of that parity; the order of heatbath/backend.h.
 * One instantiation per N = 2 .. GPU_MAX_NC (8): SU(2), SU(3), the tuned
 * SU(4) and the generic N >= 5 (hb_shape below).  Within one launch no thread reads a link
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
#error "define HB_STORE, HB_NS and HB_SFX before including heatbath/gpu_sweep.cuh"
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

template <int NC, int MU, bool HB, bool L1, int BS, int MINB>
static void launch(const sweep_args &a, int p, int mu)
{
    static bool configured;
    if (!configured) { /* no shared memory: all of it as L1 */
        cudaFuncSetAttribute(k_link<links_of<NC>, MU, HB, L1, BS, MINB>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
        configured = true;
    }
    unsigned nb = (unsigned)((a.g.h1 - a.g.h0 + BS - 1) / BS);
    if (nb == 0) return;
    k_link<links_of<NC>, MU, HB, L1, BS, MINB><<<nb, BS>>>(a.g, a.links, p, mu, a.beta_n, a.seed, a.k);
}

/* The launch candidates of k_link (heatbath/gpu.h, HB_CANDIDATES): the load
 * path of the staple links, the block size and the register cap; the
 * arithmetic is the same in all, so are the bits.  Three instantiations:
 *   SU(2), SU(3)  mu a template constant; candidates 0-3: L1 128 threads,
 *                 L2-only 128, L1 256, L1 64
 *   SU(4)         the tuned one (Cardoso-Bicudo's own SU(4) code): mu a
 *                 template constant, staple and subgroup loops unrolled,
 *                 links whole (32 reals); candidates 0-3 as above and 4, 5:
 *                 L1 128 threads capped at 3 and 4 blocks per SM (at most
 *                 168 and 128 registers: U, W and the staple sum of SU(4)
 *                 are 192 reals, so the tuner weighs spills against
 *                 occupancy on the device)
 *   SU(N >= 5)    generic: mu a kernel argument (one kernel for the four
 *                 directions), loops rolled; candidates 0, 1: L1 128, L1 64 */
template <int NC> struct hb_shape {
    enum { ncand = HB_GPU_NCAND(NC), mu_template = NC <= HB_UNROLL_MAX_NC };
};

template <int NC, int MU, bool HB>
static void link_candidate(const sweep_args &a, int p, int mu, int c)
{
    if constexpr (NC >= 5) {
        if (c == 1) launch<NC, MU, HB, true, 64, 1>(a, p, mu);
        else launch<NC, MU, HB, true, 128, 1>(a, p, mu);
    } else {
        if constexpr (NC == 4) {
            if (c == 4) return launch<NC, MU, HB, true, 128, 3>(a, p, mu);
            if (c == 5) return launch<NC, MU, HB, true, 128, 4>(a, p, mu);
        }
        switch (c) {
        case 1: launch<NC, MU, HB, false, 128, 1>(a, p, mu); break;
        case 2: launch<NC, MU, HB, true, 256, 1>(a, p, mu); break;
        case 3: launch<NC, MU, HB, true, 64, 1>(a, p, mu); break;
        default: launch<NC, MU, HB, true, 128, 1>(a, p, mu); break;
        }
    }
}

/* candidate c of the step (parity p, direction m) */
template <int NC, bool HB>
static void step_candidate(const sweep_args &a, int p, int m, int c)
{
    if constexpr (!hb_shape<NC>::mu_template) {
        link_candidate<NC, -1, HB>(a, p, m, c);
    } else {
        switch (m) {
        case 0: link_candidate<NC, 0, HB>(a, p, m, c); break;
        case 1: link_candidate<NC, 1, HB>(a, p, m, c); break;
        case 2: link_candidate<NC, 2, HB>(a, p, m, c); break;
        default: link_candidate<NC, 3, HB>(a, p, m, c); break;
        }
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
        tuned_launch(name, a.f, hb_shape<NC>::ncand, [&](int c) {
            for (int p = 0; p < 2; p++)
                for (int m = 0; m < 4; m++) step_candidate<NC, HB>(a, p, m, c);
        });
    } else {
        snprintf(name, sizeof name, "hb_%s.step<N%d,p%d,mu%d,hb%d>", HB_STR(HB_SFX), NC, parity, mu, (int)HB);
        tuned_launch(name, a.f, hb_shape<NC>::ncand, [&](int c) { step_candidate<NC, HB>(a, parity, mu, c); });
    }
}

/* the sweep of SU(NC) */
template <int NC>
static void sweep_nc(const sweep_args &a, int heatbath, int parity, int mu)
{
    if (heatbath) sweep<NC, true>(a, parity, mu);
    else sweep<NC, false>(a, parity, mu);
}

} // namespace HB_NS

extern "C" void HB_ENTRY(gpu_hb_sweep)(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k,
                                        int parity, int mu)
{
    using namespace HB_NS;
    sweep_args a;
    a.f = f;
    a.g = make_geo(f);
    a.links = (store_t *)f->links;
    a.beta_n = heatbath ? beta / f->nc : 0; /* as the CPU: beta/N in double */
    a.seed = seed;
    a.k = k;
    switch (f->nc) { /* one instantiation per N = 2 .. GPU_MAX_NC */
    case 2: sweep_nc<2>(a, heatbath, parity, mu); break;
    case 3: sweep_nc<3>(a, heatbath, parity, mu); break;
    case 4: sweep_nc<4>(a, heatbath, parity, mu); break;
    case 5: sweep_nc<5>(a, heatbath, parity, mu); break;
    case 6: sweep_nc<6>(a, heatbath, parity, mu); break;
    case 7: sweep_nc<7>(a, heatbath, parity, mu); break;
    case 8: sweep_nc<8>(a, heatbath, parity, mu); break;
    default: /* hb_backend_gpu.create refused it already (max_nc) */
        lat_die(1, "GPU", "internal error: no heatbath kernel for SU(%d)", f->nc);
    }
    gpu_check("heatbath kernel launch");
}
