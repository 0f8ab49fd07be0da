/* staggered-emulation.cpp -- a host check of the GPU staggered operator
 * (kernels/dirac/staggered_gpu.h) without a GPU or nvcc
 * (scripts/staggered-emulation builds and runs it; tests/emulation.bats in
 * `make check`, any CUDA=).
 *
 * Built three times from this one file (SG_EMU_PART):
 *   'd', 's'  kernels/dirac/staggered_gpu_kernel.cuh compiled whole by g++
 *       (scripts/cuda-on-host.h) with LAT_REAL double / float, and the
 *       entry point staggered_gpu_sweep_d / _s of staggered_gpu_impl.h
 *       running k_staggered_hop thread after thread, block after block
 *       (SG_BLOCK threads, the grid staggered_gpu_launch.cuh launches; no
 *       thread of a launch reads what another writes);
 *   'm'  the checks, with kernels/dirac/staggered_gpu.c, gpu/field.c and
 *       gpu/spinor.c compiled as the CUDA build compiles them (the device
 *       copies memcpy here), so the operator's host side runs as on a GPU.
 * -ffp-contract=off: no fused multiply-add, like the CPU build.
 *
 * Checks, random SU(3) links (field_set_random), m = 0.05 and 0.5, on
 * 4^3x4, 6x4x4x8 and 6x6x6x4 (V/2 = 432: not a multiple of the 32-site
 * blocks), links in 12, 18 and 8 reals:
 *   - double: K x against the CPU's staggered_mdagm_ee to 1e-13 relative
 *     (12 and 8 rebuild rows in double: rounding only); 18 reals: the
 *     same bits (the same products in the same order: the eta sign flips
 *     the vector instead of the link, an exact operation);
 *   - single: against the CPU's double K x to 1e-6 (float links and
 *     vectors, ~6e-8 per rounding; 8 reals unpack in float with sqrt and
 *     trigonometry: 1e-5), and with 18 reals the CPU's staggered_mdagm_ee_f
 *     bit for bit;
 *   - half: against the CPU's double K of the decoded input to 1e-3: the
 *     odd intermediate and the output are stored in 16 bits, each site
 *     to 2^-16 of its largest real (~1.5e-5), the sum of 16 hops and the
 *     float links add little; 1e-3 leaves a wide margin while any wrong
 *     sign or neighbour gives O(1);
 *   - K Hermitian (<y, K x> = <K y, x> to 1e-13) and positive
 *     (<x, K x> >= m^2 |x|^2, real) on random vectors, double;
 *   - the views: _ee's apply, apply_f and apply_vec are ee_apply's bits;
 *     _normal's A and A^dag against the CPU's staggered_solver_op_normal
 *     (double 1e-13, single 1e-6) and its zero odd output of A^dag;
 *   - refusals: not SU(3), a bad recon, another lattice (one line each).
 * Prints "staggered-emulation: N passed, M failed"; exit 1 if any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if SG_EMU_PART == 'd' || SG_EMU_PART == 's'
#include "cuda-on-host.h"
/* ---- the kernels of one precision, run on the host ---- */
#define STAGGERED_NC_MAX 3
#include "math/spinor.h"
extern "C" {
#include "dirac/staggered_gpu_impl.h"
#include "base/log.h"
}
#include "dirac/staggered_site.h"
#include "gpu/spinor.h"
#include "solvers/half.h"
namespace emu {
#include "gpu/accessor.cuh"
#include "dirac/staggered_gpu_kernel.cuh"

template <typename S, typename VS> static void run(const struct staggered_gpu_sweep *w)
{
    const kgeo g = make_geo(w->links);
    const sg_args a = sg_args_of(w);
    const unsigned nb = (unsigned)((w->nsites + SG_BLOCK - 1) / SG_BLOCK);
    S *links = (S *)w->links->links;
    sg_with_recon<S>(w->links->recon, [&](auto acc) {
        blockDim.x = SG_BLOCK;
        for (unsigned b = 0; b < nb; b++)
            for (unsigned t = 0; t < SG_BLOCK; t++) {
                blockIdx.x = b;
                threadIdx.x = t;
                k_staggered_hop<decltype(acc), VS>(g, links, a);
            }
    });
}
} // namespace emu

#if SG_EMU_PART == 'd'
extern "C" void staggered_gpu_sweep_d(const struct staggered_gpu_sweep *w)
{
    if (w->vprec != SOLVER_DOUBLE || w->links->prec != 'd') lat_die(1, "staggered-emulation", "sweep_d: wrong storage");
    emu::run<double, double>(w);
}
#else
extern "C" void staggered_gpu_sweep_s(const struct staggered_gpu_sweep *w)
{
    if (w->links->prec != 's') lat_die(1, "staggered-emulation", "sweep_s: wrong link storage");
    if (w->vprec == SOLVER_SINGLE) emu::run<float, float>(w);
    else if (w->vprec == SOLVER_HALF) emu::run<float, int16_t>(w);
    else lat_die(1, "staggered-emulation", "sweep_s on double vectors");
}
#endif

#else
/* ---- the checks ---- */
extern "C" {
#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "lattice/field.h"
#include "base/log.h"
}
#include "staggered_vecs.h"
#include "unit.h"

/* the device entry points the host side calls: host memory, no GPU */
extern "C" void *gpu_alloc(size_t bytes, const char *what) { (void)what; return lat_calloc(bytes ? bytes : 1, 1); }
extern "C" void gpu_free(void *p) { free(p); }
extern "C" void gpu_upload(void *d, const void *s, size_t n) { memcpy(d, s, n); }
extern "C" void gpu_download(void *d, const void *s, size_t n) { memcpy(d, s, n); }
extern "C" void gpu_memset(void *d, int v, size_t n) { memset(d, v, n); }
extern "C" void gpu_sync(const char *w) { (void)w; }
extern "C" void gpu_check(const char *w) { (void)w; }
extern "C" int gpu_available(char *why, int len) { (void)why, (void)len; return 1; }
extern "C" void gpu_inject_fault(void) {}
static void not_here(void) { lat_die(1, "staggered-emulation", "no halo exchange or observables here"); }
extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *f) { (void)f; not_here(); return NULL; }
extern "C" void gpu_halo_free(struct gpu_halo *x) { (void)x; }
extern "C" void gpu_halo_start(struct gpu_halo *, const struct gpu_field *, const struct geometry *,
                               const struct halo_part *, int, int) { not_here(); }
extern "C" void gpu_halo_finish(struct gpu_halo *, const struct gpu_field *, const struct geometry *, int) { not_here(); }
extern "C" void gpu_observables_sums(const struct gpu_field *, double *) { not_here(); }

static const char *pname[3] = {"double", "single", "half"};

/* out = K in on the emulated device, in precision p, host doubles */
static void gpu_K(struct staggered_gpu *g, enum solver_prec p, const double *in, double *out)
{
    const int64_t vh = staggered_gpu_half_sites(g);
    std::vector<double> zero((size_t)vh * 6, 0.0);
    struct solver_vec vi = sv_upload(p, vh, in), vo = sv_upload(p, vh, zero.data());
    staggered_gpu_ee_apply(g, p, &vo, &vi);
    sv_download(&vo, vh, out);
    sv_free(&vi);
    sv_free(&vo);
}

/* the input as precision p stores it (half: decoded) */
static void as_stored(enum solver_prec p, int64_t nsites, const double *in, double *out)
{
    struct solver_vec v = sv_upload(p, nsites, in);
    sv_download(&v, nsites, out);
    sv_free(&v);
}

static void check_one(const struct field *u, double m, int recon, const char *lname)
{
    char why[256];
    struct staggered_op *cpu = staggered_create(u, m, why, sizeof why);
    struct staggered_gpu *g = cpu ? staggered_gpu_create(cpu, u, recon, why, sizeof why) : NULL;
    CHECK(g != NULL, "%s m %g recon %d: %s", lname, m, recon, why);
    if (!g) { staggered_free(cpu); return; }
    const int64_t vh = staggered_gpu_half_sites(g);
    const size_t n = (size_t)vh * 6;
    std::vector<double> x(n), y(n), kx(n), ky(n), ref(n), ref2(n), xs(n);
    sv_random(x.data(), n, 11 + recon);
    sv_random(y.data(), n, 23 + recon);
    staggered_mdagm_ee(cpu, ref.data(), x.data());
    /* double */
    gpu_K(g, SOLVER_DOUBLE, x.data(), kx.data());
    const double ed = sv_reldiff(kx.data(), ref.data(), n);
    CHECK(ed < 1e-13, "%s m %g recon %d double: K differs from the CPU's by %.3g", lname, m, recon, ed);
    if (recon == 18) CHECK(memcmp(kx.data(), ref.data(), n * sizeof(double)) == 0, "%s m %g recon 18 double: not the CPU's bits", lname, m);
    /* Hermitian and positive */
    gpu_K(g, SOLVER_DOUBLE, y.data(), ky.data());
    double im1, im2, imx;
    const double yKx = sv_dot(y.data(), kx.data(), n, &im1), Kyx = sv_dot(ky.data(), x.data(), n, &im2);
    const double herm = hypot(yKx - Kyx, im1 - im2) / hypot(yKx, im1);
    CHECK(herm < 1e-13, "%s m %g recon %d: <y,Kx> - <Ky,x> relative %.3g", lname, m, recon, herm);
    const double xKx = sv_dot(x.data(), kx.data(), n, &imx), xx = sv_dot(x.data(), x.data(), n, NULL);
    CHECK(xKx >= m * m * xx * (1 - 1e-12) && fabs(imx) < 1e-12 * xKx, "%s m %g recon %d: <x,Kx> = %.17g%+.3gi, m^2|x|^2 = %.17g",
          lname, m, recon, xKx, imx, m * m * xx);
    /* single */
    std::vector<float> xf(n), kf(n);
    for (size_t k = 0; k < n; k++) xf[k] = (float)x[k];
    gpu_K(g, SOLVER_SINGLE, x.data(), kx.data());
    const double es = sv_reldiff(kx.data(), ref.data(), n), tol_s = recon == 8 ? 1e-5 : 1e-6;
    CHECK(es < tol_s, "%s m %g recon %d single: K differs from the CPU's double by %.3g", lname, m, recon, es);
    if (recon == 18) {
        staggered_mdagm_ee_f(cpu, kf.data(), xf.data());
        int same = 1;
        for (size_t k = 0; k < n; k++) same &= (float)kx[k] == kf[k];
        CHECK(same, "%s m %g recon 18 single: not the CPU's single bits", lname, m);
    }
    /* half */
    as_stored(SOLVER_HALF, vh, x.data(), xs.data());
    staggered_mdagm_ee(cpu, ref2.data(), xs.data());
    gpu_K(g, SOLVER_HALF, x.data(), ky.data());
    const double eh = sv_reldiff(ky.data(), ref2.data(), n);
    CHECK(eh < 1e-3, "%s m %g recon %d half: K differs from the CPU's double by %.3g", lname, m, recon, eh);
    printf("%s m %.2f recon %2d: K vs CPU double %.2e%s, single %.2e, half %.2e; hermiticity %.1e, <x,Kx>/|x|^2 %.4f\n",
           lname, m, recon, ed, recon == 18 ? " (bits)" : "", es, eh, herm, xKx / xx);
    /* the _ee view: apply, apply_f, apply_vec give ee_apply's bits */
    struct solver_op s;
    staggered_gpu_solver_op_ee(&s, g);
    CHECK(s.n == n && s.site_reals == 6 && s.apply == s.apply_dag && s.apply_f == s.apply_dag_f && s.apply_vec,
          "the _ee view's shape");
    for (int p = 0; p < 3; p++) {
        enum solver_prec pr = (enum solver_prec)p;
        std::vector<double> a(n), b(n), zero(n, 0.0);
        gpu_K(g, pr, x.data(), a.data());
        struct solver_vec vi = sv_upload(pr, vh, x.data()), vo = sv_upload(pr, vh, zero.data());
        if (p == 0) s.apply(s.ctx, (double *)vo.data, (const double *)vi.data);
        else if (p == 1) s.apply_f(s.ctx, (float *)vo.data, (const float *)vi.data);
        else s.apply_vec(s.ctx, 0, &vo, &vi);
        sv_download(&vo, vh, b.data());
        CHECK(memcmp(a.data(), b.data(), n * sizeof(double)) == 0, "the _ee view in %s: not ee_apply's result", pname[p]);
        sv_free(&vi);
        sv_free(&vo);
    }
    /* the normal view against the CPU's on [even | odd] vectors */
    struct solver_op sn, cn;
    staggered_gpu_solver_op_normal(&sn, g);
    staggered_solver_op_normal(&cn, cpu);
    CHECK(sn.n == cn.n && sn.site_reals == cn.site_reals && sn.apply_vec, "the normal view's shape: n %zu vs %zu", sn.n, cn.n);
    std::vector<double> z(2 * n), zc(2 * n), zg(2 * n), zero2(2 * n, 0.0);
    sv_random(z.data(), 2 * n, 37 + recon);
    for (int dag = 0; dag < 2; dag++)
        for (int p = 0; p < 2; p++) {
            enum solver_prec pr = (enum solver_prec)p;
            (dag ? cn.apply_dag : cn.apply)(cn.ctx, zc.data(), z.data());
            struct solver_vec vi = sv_upload(pr, 2 * vh, z.data()), vo = sv_upload(pr, 2 * vh, zero2.data());
            if (p == 0) (dag ? sn.apply_dag : sn.apply)(sn.ctx, (double *)vo.data, (const double *)vi.data);
            else (dag ? sn.apply_dag_f : sn.apply_f)(sn.ctx, (float *)vo.data, (const float *)vi.data);
            sv_download(&vo, 2 * vh, zg.data());
            const double e = sv_reldiff(zg.data(), zc.data(), 2 * n);
            double odd = 0;
            for (size_t k = n; k < 2 * n; k++) odd += fabs(zg[k]);
            CHECK(e < (p ? 1e-6 : 1e-13) && (!dag || odd == 0), "normal view %s %s: %.3g from the CPU's (odd half %g)",
                  dag ? "A^dag" : "A", pname[p], e, odd);
            if (dag == 1 && p == 0) printf("  normal view: A^dag vs CPU %.2e\n", e);
            sv_free(&vi);
            sv_free(&vo);
        }
    staggered_gpu_free(g);
    staggered_free(cpu);
}

static void refusals(const struct field *u3)
{
    char why[256];
    struct staggered_op *cpu = staggered_create(u3, 0.1, why, sizeof why);
    CHECK(!staggered_gpu_create(cpu, u3, 7, why, sizeof why) && strstr(why, "12, 18 or 8"), "recon 7: %s", why);
    struct lattice lat2;
    const int L2[4] = {4, 4, 4, 6};
    const char *lw;
    lattice_init(&lat2, L2, &lw);
    struct field w;
    field_alloc(&w, &lat2, 3, 64);
    field_set_random(&w, 3);
    CHECK(!staggered_gpu_create(cpu, &w, 12, why, sizeof why) && strstr(why, "lattice"), "another lattice: %s", why);
    field_free(&w);
    field_alloc(&w, &u3->lat, 2, 64);
    field_set_random(&w, 3);
    struct staggered_op *cpu2 = staggered_create(&w, 0.1, why, sizeof why);
    CHECK(cpu2 && !staggered_gpu_create(cpu2, &w, 0, why, sizeof why) && strstr(why, "SU(3)"), "SU(2): %s", why);
    staggered_free(cpu2);
    field_free(&w);
    staggered_free(cpu);
}

int main(void)
{
    const int dims[3][4] = {{4, 4, 4, 4}, {6, 4, 4, 8}, {6, 6, 6, 4}};
    for (int d = 0; d < 3; d++) {
        struct lattice lat;
        const char *lw;
        lattice_init(&lat, dims[d], &lw);
        struct field u;
        field_alloc(&u, &lat, 3, 64);
        field_set_random(&u, 5 + d);
        char lname[64];
        snprintf(lname, sizeof lname, "%dx%dx%dx%d", dims[d][0], dims[d][1], dims[d][2], dims[d][3]);
        const double masses[2] = {0.05, 0.5};
        const int recons[3] = {12, 18, 8};
        for (int mi = 0; mi < 2; mi++)
            for (int r = 0; r < 3; r++) check_one(&u, masses[mi], recons[r], lname);
        if (d == 0) refusals(&u);
        field_free(&u);
    }
    return unit_done("staggered-emulation");
}
#endif
