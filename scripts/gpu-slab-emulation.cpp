/* gpu-slab-emulation.cpp -- the CUDA gauge-fixing backend's host side on MPI
 * slabs (kernels/gaugefix_gpu.c, gpu_halo.cu's logic), run without a GPU.
 * scripts/gpu-slab-emulation builds it and runs the checks.
 *
 * This file gives the CUDA entry points the backends call: device memory is
 * host memory (scripts/gpu-util-on-host.h), the halo packs with k_pack (kernels/gpu/pack.cuh; the kernel
 * files are device code only and compiled here whole,
 * scripts/cuda-on-host.h) and exchanges with real MPI (halo_post),
 * gpu_hb_sweep_d runs k_link (kernels/heatbath/gpu_link.cuh).  The
 * gauge-fixing entry points gpu_gf_{sweep,quality,reunitarize}_{d,s,m},
 * every N, are scripts/gf-kernel-emulation.cpp's (one object per
 * precision).  Linked
 * with the real lat-overrelax, it runs as `lat-overrelax --device gpu` under
 * mpirun, so the slab logic of gaugefix_gpu.c (timeslice ranges, parity
 * flip, global random streams, halo parts, the Coulomb mask) is what runs;
 * likewise the real lat-heatbath with heatbath_gpu.cu's host side.
 * gpu_observables_sums (kernels/gpu/observables.cu) runs the observables
 * kernel's per-thread text (obs_thread, obs_poly_thread of
 * kernels/gpu/observables.cuh, included whole) for every thread of its
 * fixed grid and adds the threads as the kernel's block tree does, so the
 * real lat-measure --device gpu (and the heatbath's measurements) run here.
 * The observables: every N of gpu/gpu.h, float or double storage; the
 * heatbath: SU(3), double.  It checks indices and the order of work, not
 * the CUDA compiler's code or the streams' overlap.
 * Exported: the extern "C" GPU entry points named above (gpu_halo_*,
 * gpu_observables_sums, gpu_hb_sweep_{d,s,m}; with gpu-util-on-host.h's
 * gpu_alloc ... gpu_timer_stop), host versions with the contracts of
 * kernels/gpu/field.h, kernels/heatbath/gpu.h. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"
#include "gaugefix/site.h"
#include "heatbath/link.h"
extern "C" {
#include "lattice/geometry.h"
#include "lattice/field.h"
#include "heatbath/backend.h"
#include "base/log.h"
}
#include "gpu/field.h"
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"
namespace emu {
#include "gpu/accessor.cuh"
#include "gpu/pack.cuh"
#include "heatbath/gpu_link.cuh"
#include "gpu/observables.cuh"
typedef default_links<double, 3>::type links3; /* the accessor of the emulated storage */
}
using namespace emu;

/* ---- memory and device: host memory ---- */
#include "gpu-util-on-host.h"
static void only_double(void) { lat_die(1, "emulation", "the heatbath: double precision only"); }
#define NOT_EMULATED(sfx)                                                                                 \
    extern "C" void gpu_hb_sweep_##sfx(const struct gpu_field *, int, double, uint64_t, uint32_t, int, int) \
    { only_double(); }
NOT_EMULATED(s)
NOT_EMULATED(m)

/* ---- the heatbath: k_link thread by thread (heatbath_gpu_impl.cuh) ---- */
template <int MU, bool HB>
static void run_link(const kgeo &g, double *links, int p, double bn, uint64_t seed, uint32_t k)
{
    cuda_on_host_grid((unsigned)(g.h1 - g.h0 + 127) / 128, 128,
                      [&] { k_link<links3, MU, HB, true, 128, 1>(g, links, p, MU, bn, seed, k); });
}
template <bool HB>
static void run_step(const kgeo &g, double *links, int p, int mu, double bn, uint64_t seed, uint32_t k)
{
    switch (mu) {
    case 0: run_link<0, HB>(g, links, p, bn, seed, k); break;
    case 1: run_link<1, HB>(g, links, p, bn, seed, k); break;
    case 2: run_link<2, HB>(g, links, p, bn, seed, k); break;
    default: run_link<3, HB>(g, links, p, bn, seed, k); break;
    }
}
extern "C" void gpu_hb_sweep_d(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k,
                               int parity, int mu)
{
    if (f->nc != 3) lat_die(1, "emulation", "SU(3) only");
    kgeo g = make_geo(f);
    double bn = heatbath ? beta / f->nc : 0;
    for (int p = parity < 0 ? 0 : parity; p < (parity < 0 ? 2 : parity + 1); p++)
        for (int m = parity < 0 ? 0 : mu; m < (parity < 0 ? 4 : mu + 1); m++) {
            if (heatbath) run_step<true>(g, (double *)f->links, p, m, bn, seed, k);
            else run_step<false>(g, (double *)f->links, p, m, bn, seed, k);
        }
}
/* ---- the observables: observables.cu's grid, thread by thread ---- */
static void tree(double *a, int max) /* red_block_sum/max's tree over GPU_RED_BS values */
{
    for (int w = GPU_RED_BS / 2; w > 0; w >>= 1)
        for (int t = 0; t < w; t++) a[t] = max ? obs_max_nan(a[t], a[t + w]) : a[t] + a[t + w];
}
template <class S, int NC>
static void observables_sums(const struct gpu_field *f, double out[10])
{
    typedef typename default_links<S, NC>::type U;
    kgeo g = make_geo(f);
    const S *l = (const S *)f->links;
    static double a[9][GPU_RED_BS];
    for (int k = 0; k < 10; k++) out[k] = 0;
    for (int b = 0; b < OBS_NB; b++) {
        for (int t = 0; t < GPU_RED_BS; t++) {
            double v[5] = {0, 0, 0, 0, 0}, m[2] = {0, 0}, pv[2] = {0, 0};
            obs_thread<U>(g, l, b * GPU_RED_BS + t, v, m);
            obs_poly_thread<U>(g, l, b * GPU_RED_BS + t, pv);
            for (int k = 0; k < 5; k++) a[k][t] = v[k];
            a[5][t] = m[0];
            a[6][t] = m[1];
            a[7][t] = pv[0];
            a[8][t] = pv[1];
        }
        for (int k = 0; k < 9; k++) tree(a[k], k == 5 || k == 6);
        out[1] += a[0][0];
        out[2] += a[1][0];
        out[3] += a[2][0];
        out[6] += a[3][0];
        out[8] += a[4][0];
        out[7] = obs_max_nan(out[7], a[5][0]);
        out[9] = obs_max_nan(out[9], a[6][0]);
        out[4] += a[7][0];
        out[5] += a[8][0];
    }
    out[0] = out[1] + out[2];
}
/* every N (with_nc, as observables.cu), float or double storage */
extern "C" void gpu_observables_sums(const struct gpu_field *f, double out[10])
{
    with_nc(f->nc, [&](auto n) {
        if (f->prec == 'd') observables_sums<double, decltype(n)::value>(f, out);
        else observables_sums<float, decltype(n)::value>(f, out);
    });
}

/* ---- the halo: gpu_halo.cu's steps with k_pack's text and real MPI ---- */
struct gpu_halo {
    int nparts;
    struct halo_part part[HALO_MAXPARTS];
    double *buf[2 * HALO_MAXPARTS];
    size_t n;
};
extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *f)
{
    struct gpu_halo *x = (struct gpu_halo *)lat_calloc(1, sizeof *x);
    x->n = (size_t)(f->Vh / f->L[3]) * (size_t)f->ncomp;
    for (int i = 0; i < 2 * HALO_MAXPARTS; i++) x->buf[i] = (double *)lat_calloc(x->n, sizeof(double));
    return x;
}
extern "C" void gpu_halo_free(struct gpu_halo *x)
{
    if (!x) return;
    for (int i = 0; i < 2 * HALO_MAXPARTS; i++) free(x->buf[i]);
    free(x);
}
static void pack(const struct gpu_field *f, struct gpu_halo *x, int i, int unpack, int pflip)
{
    const struct halo_part *pt = &x->part[i];
    int v3h = (int)(f->Vh / f->L[3]);
    int slice = unpack ? pt->recv_slice : pt->send_slice;
    int slot = ((pt->parity ^ pflip) & 1) * 4 + pt->mu;
    int64_t n = (int64_t)v3h * f->ncomp;
    cuda_on_host_grid((unsigned)((n + 255) / 256), 256, [&] {
        if (f->prec == 'd')
            k_pack<double>((const double *)f->links, x->buf[2 * i + unpack], f->nblk, f->ncomp, f->vec, slot,
                           slice * v3h, v3h, unpack);
        else
            k_pack<float>((const float *)f->links, (float *)x->buf[2 * i + unpack], f->nblk, f->ncomp, f->vec, slot,
                          slice * v3h, v3h, unpack);
    });
}
extern "C" void gpu_halo_start(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d,
                               const struct halo_part *parts, int nparts, int pflip)
{
    (void)d;
    x->nparts = nparts;
    for (int i = 0; i < nparts; i++) {
        x->part[i] = parts[i];
        pack(f, x, i, 0, pflip);
    }
}
extern "C" void gpu_halo_finish(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d, int pflip)
{
    void *s[HALO_MAXPARTS], *r[HALO_MAXPARTS];
    size_t bytes[HALO_MAXPARTS];
    for (int i = 0; i < x->nparts; i++) {
        s[i] = x->buf[2 * i];
        r[i] = x->buf[2 * i + 1];
        bytes[i] = x->n * (f->prec == 'd' ? sizeof(double) : sizeof(float));
    }
    struct comm_reqs q;
    q.n = 0;
    halo_post(d, x->part, x->nparts, s, r, bytes, &q);
    comm_waitall(&q);
    for (int i = 0; i < x->nparts; i++) pack(f, x, i, 1, pflip);
}
