/* heatbath/gpu_sweep.cuh -- the heatbath backend's launches and its entry
 * point gpu_hb_sweep_<sfx>(f, heatbath, beta, seed, k, variant, parity, mu)
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
#include <cuda_runtime.h>

#if !defined(HB_STORE) || !defined(HB_NS) || !defined(HB_SFX)
#error "define HB_STORE, HB_NS and HB_SFX before including heatbath_gpu_impl.cuh"
#endif

#define HB_CAT2(a, b) a##_##b
#define HB_CAT(a, b) HB_CAT2(a, b)
#define HB_ENTRY(name) HB_CAT(name, HB_SFX)

namespace HB_NS {

typedef HB_STORE store_t; /* the storage precision of this file's kernel */
#include "gpu/accessor.cuh"
/* the accessor the kernel gets: gpu_field's storage of SU(NC) */
template <int NC> using links_of = typename default_links<store_t, NC>::type;

#include "heatbath/gpu_link.cuh" /* k_link: device code only */

struct sweep_args {
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

/* parity < 0: the whole sweep (parity 0, 1; mu 0..3); else the one step
 * (parity, mu) over the half indices of a.g */
template <int NC, bool HB, bool L1, int BS>
static void sweep_v(const sweep_args &a, int parity, int mu)
{
    for (int p = parity < 0 ? 0 : parity; p < (parity < 0 ? 2 : parity + 1); p++)
        for (int m = parity < 0 ? 0 : mu; m < (parity < 0 ? 4 : mu + 1); m++) switch (m) {
            case 0: launch<NC, 0, HB, L1, BS>(a, p); break;
            case 1: launch<NC, 1, HB, L1, BS>(a, p); break;
            case 2: launch<NC, 2, HB, L1, BS>(a, p); break;
            default: launch<NC, 3, HB, L1, BS>(a, p); break;
            }
}

template <int NC, bool HB>
static void sweep(const sweep_args &a, int variant, int parity, int mu)
{
    switch (variant) {
    case 1: sweep_v<NC, HB, false, 128>(a, parity, mu); break;
    case 2: sweep_v<NC, HB, true, 256>(a, parity, mu); break;
    default: sweep_v<NC, HB, true, 128>(a, parity, mu); break;
    }
}

} // namespace HB_NS

extern "C" void HB_ENTRY(gpu_hb_sweep)(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k,
                                        int variant, int parity, int mu)
{
    using namespace HB_NS;
    if (f->nc != 2 && f->nc != 3)
        lat_die(1, "GPU", "the CUDA heatbath has kernels for SU(2) and SU(3), not SU(%d): use --device cpu", f->nc);
    sweep_args a;
    a.g = make_geo(f);
    a.links = (store_t *)f->links;
    a.beta_n = heatbath ? beta / f->nc : 0; /* as the CPU: beta/N in double */
    a.seed = seed;
    a.k = k;
    if (f->nc == 3) {
        if (heatbath) sweep<3, true>(a, variant, parity, mu);
        else sweep<3, false>(a, variant, parity, mu);
    } else {
        if (heatbath) sweep<2, true>(a, variant, parity, mu);
        else sweep<2, false>(a, variant, parity, mu);
    }
    gpu_check("heatbath kernel launch");
}
