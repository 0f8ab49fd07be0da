/* dirac-emulation.cpp -- a host check of the GPU Wilson-clover operator
 * (kernels/dirac/gpu.h) without a GPU or nvcc (scripts/dirac-emulation
 * builds and runs it; tests/emulation.bats, any build).
 *
 * It compiles kernels/dirac/gpu_kernel.cuh (k_dslash, dslash_dispatch) and
 * kernels/gpu/accessor.cuh whole with g++ (scripts/cuda-on-host.h), and the
 * plain-C host sides as the CUDA build does (kernels/dirac/gpu.c,
 * kernels/gpu/field.c and spinor.c with LAT_HAVE_CUDA; the device copies
 * memcpy here: scripts/gpu-util-on-host.h), in ONE compute precision per build:
 *     -DLAT_REAL=double  the double kernels (dirac_gpu_sweep_d)
 *     -DLAT_REAL=float   the single and half kernels (dirac_gpu_sweep_s)
 * A "launch" runs every thread of the grid in turn (no thread of a sweep
 * reads what another writes).  For the lattices 4^3x8 (V/2 = 256) and
 * 6x4x2x6 (V/2 = 144: the last block of 32 sites half padding), random
 * SU(3) links, kappa 0.13, c_sw 1.769 and 0, boundary phases -1 in t and
 * e^{0.7 i} in y, links stored in 18, 12 and 8 reals, it asserts:
 *   Mhat in and Mhat^dag in against the CPU's dirac_eo_apply(_dag) in
 *   double on the same (rounded or quantised) input, |diff| / |ref|:
 *     double, 18 and 12 reals: < 1e-13 (the kernel repeats the CPU's
 *       arithmetic; 12 rebuilds the third row, a rounding apart);
 *     double, 8 reals: < 1e-12 (su3_unpack8 divides by |a1| and takes
 *       square roots: digits may go on other links; 2.4e-16 achieved on
 *       these random ones, printed per case);
 *     single: < 1e-6 (float arithmetic: ~1e-7 achieved, i.e. about one
 *       float epsilon times the sqrt of the ~200 terms a site sums);
 *     half: < 2e-4.  A half sweep reads everything in 16 bits
 *       (dirac/gpu_link16.h): the input, even intermediate and output are
 *       quantised, each component to 2^-16 of its site's largest (~3e-5 of
 *       a typical one), the clover likewise per site, and every stored
 *       link real to 2^-16 absolute (|entry| <= 1: ~1.5e-5 relative, the
 *       phases of recon 8 pi times that, amplified by su3_unpack8's square
 *       roots).  Spinors only (float links and clover) gave 2e-5; with the
 *       16-bit links and clover 2.2e-5 (no clover) to 4.5e-5 (clover,
 *       recon 8) on these random links: the bound, ~6 x 2^-15, keeps a
 *       factor 4 over the worst;
 *   gamma_5-hermiticity of the emulated operator: gamma5 Mhat gamma5 in =
 *     Mhat^dag in to 1e-14 (double), 1e-6 (single), 2e-4 (half) -- exact in
 *     fact: the same operations with flipped signs;
 *   padding: the output's sites h >= V/2 of the last block, and their half
 *     norms, still zero after the applications;
 *   half: a NaN in one input site reaches the output as NaN norms (the
 *     sites that see it), never a silent zero;
 *   unit links (a cold start: su3_pack8's degenerate form, whose flag the
 *     16-bit links store as -32768), recon 8 and 12, every precision: the
 *     same bounds;
 *   the 16-bit link format (dirac/gpu_link16.h) on its own: every stored
 *     real of the random links (18 and 12: the entries; 8: su3_pack8's
 *     reals) decodes to within half a step (the step about 1/32767, the
 *     phases' pi x that) of the double it encodes, phases of +-pi are not
 *     clamped (|q| 32765..32767),
 *     the degenerate flag comes back exactly;
 *   the refusals of dirac_gpu_create (SU(2), recon 10).
 * Prints one line per case and "dirac-emulation PREC: N passed, M failed"
 * (PREC double or float); exit 1 if any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include "cuda-on-host.h"
#define DIRAC_NC_MAX 3
#include "math/spinor.h"
#include "math/rng.h"
#include "dirac/site.h"
extern "C" {
#include "base/log.h"
#include "lattice/field.h"
#include "solvers/solvers.h"
#include "solvers/half.h"
#include "dirac/dirac.h"
}
#include "dirac/gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "dirac/gpu_sweep.h"
#include "dirac/gpu_link16.h"
#include "unit.h"

namespace emu {
#include "gpu/accessor.cuh"
#include "dirac/gpu_kernel.cuh"
}

/* the device entry points the host side calls: host memory, no GPU */
#define GPU_ON_HOST_REFUSE "dirac-emulation"
#include "gpu-util-on-host.h"

/* a launch: every thread of the grid in turn, 128 a block */
static void emulate(const struct dirac_gpu_sweep *w)
{
    emu::dslash_dispatch(w, [](void (*kernel)(emu::dslash_args), const emu::dslash_args &a, int n) {
        cuda_on_host_grid(emu::dslash_blocks(a, n), 128, [&] { kernel(a); });
    });
}
#define IS_DOUBLE (sizeof(lat_real) == sizeof(double))
extern "C" void dirac_gpu_sweep_d(const struct dirac_gpu_sweep *w)
{
    if (!IS_DOUBLE) lat_die(1, "dirac-emulation", "the double kernels are not in the float build");
    emulate(w);
}
extern "C" void dirac_gpu_sweep_s(const struct dirac_gpu_sweep *w)
{
    if (IS_DOUBLE) lat_die(1, "dirac-emulation", "the float kernels are not in the double build");
    emulate(w);
}

static double rel(const std::vector<double> &a, const std::vector<double> &b)
{
    double d = 0, n = 0;
    for (size_t k = 0; k < a.size(); k++) {
        d += (a[k] - b[k]) * (a[k] - b[k]);
        n += b[k] * b[k];
    }
    return std::sqrt(d / n);
}

/* gamma_5 = diag(1, 1, -1, -1) on every site (spins 2, 3: reals 12..23) */
static std::vector<double> gamma5(std::vector<double> v)
{
    for (size_t k = 0; k < v.size(); k++)
        if (k % 24 >= 12) v[k] = -v[k];
    return v;
}

/* whether the padding sites of v (h >= nsites in the last block) hold zeros */
static bool padding_zero(const struct solver_vec *v, int64_t nsites)
{
    const size_t es = v->prec == SOLVER_DOUBLE ? 8 : v->prec == SOLVER_SINGLE ? 4 : 2;
    const unsigned char *d = (const unsigned char *)v->data;
    for (int64_t s = nsites; s < gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES; s++) {
        for (int c = 0; c < 24; c++)
            for (size_t b = 0; b < es; b++)
                if (d[gpu_spinor_index(24, c, s) * es + b]) return false;
        if (v->norm && v->norm[s] != 0) return false;
    }
    return true;
}

struct tol { double mhat, g5; };

/* Mhat and Mhat^dag of the emulated kernels against the CPU's on the
 * stored input; half_bits 32: half spinors over the float links and clover
 * (dirac_gpu_set_half_links).  Returns Mhat's relative difference. */
static double run_case(const int L[4], double csw, int recon, enum solver_prec prec, struct tol t, bool cold = false,
                       int half_bits = 16)
{
    struct lattice lat;
    const char *lwhy;
    if (lattice_init(&lat, L, &lwhy) != 0) lat_die(1, "dirac-emulation", "%s", lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    if (cold) field_set_unit(&u);
    else field_set_random(&u, 20261125);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, csw);
    p.phase[1][0] = std::cos(0.7);
    p.phase[1][1] = std::sin(0.7);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die(1, "dirac-emulation", "dirac_create: %s", why);
    struct dirac_gpu *g = dirac_gpu_create(cpu, &u, recon, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create: %s", why);
    if (!g) return 0;
    if (prec == SOLVER_HALF) dirac_gpu_set_half_links(g, half_bits);
    const int64_t ns = dirac_gpu_nsites(g);
    const size_t n = (size_t)ns * 24;
    CHECK(n == dirac_half_reals(cpu), "half field of %zu reals, the CPU's has %zu", n, dirac_half_reals(cpu));
    std::vector<double> psi(n), in(n), out(n), ref(n), outd(n), g5(n);
    struct lat_rng r;
    rng_init(&r, 11, 0, 0, 0, RNG_TEST);
    for (auto &x : psi) x = rng_normal(&r);
    struct solver_vec *vin = dirac_gpu_vec_new(g, prec), *vout = dirac_gpu_vec_new(g, prec);
    dirac_gpu_vec_upload(vin, psi.data());
    dirac_gpu_vec_download(in.data(), vin); /* the input as stored: rounded or quantised */
    double err[2];
    for (int dag = 0; dag < 2; dag++) {
        dirac_gpu_eo_apply(g, dag, vout, vin);
        dirac_gpu_vec_download(dag ? outd.data() : out.data(), vout);
        if (dag) dirac_eo_apply_dag(cpu, ref.data(), in.data());
        else dirac_eo_apply(cpu, ref.data(), in.data());
        err[dag] = rel(dag ? outd : out, ref);
        CHECK(err[dag] < t.mhat, "%s recon %d c_sw %g: Mhat%s differs from the CPU's by %.3g (bound %g)",
              solver_prec_name(prec), recon, csw, dag ? "^dag" : "", err[dag], t.mhat);
    }
    const bool pad = padding_zero(vout, ns);
    CHECK(pad, "%s recon %d: padding sites of the output not zero", solver_prec_name(prec), recon);
    /* gamma5 Mhat gamma5 in = Mhat^dag in, both emulated */
    dirac_gpu_vec_upload(vin, gamma5(in).data());
    dirac_gpu_eo_apply(g, 0, vout, vin);
    dirac_gpu_vec_download(g5.data(), vout);
    const double eg5 = rel(gamma5(g5), outd);
    CHECK(eg5 < t.g5, "%s recon %d c_sw %g: gamma5 Mhat gamma5 != Mhat^dag by %.3g (bound %g)", solver_prec_name(prec),
          recon, csw, eg5, t.g5);
    printf("%s%dx%dx%dx%d c_sw %-5g recon %2d %-6s%s: Mhat %.2e Mhat^dag %.2e (bound %g); gamma5-hermiticity %.2e (bound %g); "
           "padding %s\n",
           cold ? "unit links " : "", L[0], L[1], L[2], L[3], csw, recon, solver_prec_name(prec),
           prec == SOLVER_HALF ? (half_bits == 16 ? " (16-bit links)" : " (32-bit links)") : "", err[0], err[1], t.mhat, eg5,
           t.g5, pad ? "zero" : "NOT ZERO");
    dirac_gpu_vec_free(vin);
    dirac_gpu_vec_free(vout);
    dirac_gpu_free(g);
    dirac_free(cpu);
    field_free(&u);
    return err[0];
}

/* a block of columns (dirac_gpu_eo_apply_block): every column's output
 * has the bytes of dirac_gpu_eo_apply on that column alone (data and half
 * norms), Mhat and Mhat^dag, and the padding sites between the columns
 * stay zero.  The columns differ (their own random fields), so a kernel
 * that read another column's sites or the wrong norms would show. */
static void block_case(const int L[4], double csw, int recon, enum solver_prec prec, int ncols)
{
    struct lattice lat;
    const char *lwhy;
    if (lattice_init(&lat, L, &lwhy) != 0) lat_die(1, "dirac-emulation", "%s", lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 20261128);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, csw);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    struct dirac_gpu *g = cpu ? dirac_gpu_create(cpu, &u, recon, why, sizeof why) : NULL;
    CHECK(g != NULL, "block: dirac_gpu_create: %s", why);
    if (!g) return;
    const int64_t ns = dirac_gpu_nsites(g), cs = dirac_gpu_col_sites(g);
    const size_t es = prec == SOLVER_DOUBLE ? 8 : prec == SOLVER_SINGLE ? 4 : 2;
    const size_t colbytes = gpu_spinor_storage(ns, 24) * es;
    struct solver_vec *bin = dirac_gpu_block_new(g, prec, ncols), *bout = dirac_gpu_block_new(g, prec, ncols);
    struct solver_vec *one = dirac_gpu_vec_new(g, prec);
    std::vector<double> psi((size_t)ns * 24);
    struct lat_rng r;
    rng_init(&r, 13, 0, 0, 0, RNG_TEST);
    for (int c = 0; c < ncols; c++) {
        struct solver_vec col;
        dirac_gpu_block_column(g, bin, c, &col);
        for (auto &x : psi) x = (1 + c) * rng_normal(&r);
        dirac_gpu_vec_upload(&col, psi.data());
    }
    int same = 0, pad = 1;
    for (int dag = 0; dag < 2; dag++) {
        dirac_gpu_eo_apply_block(g, dag, bout, bin, ncols);
        for (int c = 0; c < ncols; c++) {
            struct solver_vec ci, co;
            dirac_gpu_block_column(g, bin, c, &ci);
            dirac_gpu_block_column(g, bout, c, &co);
            dirac_gpu_eo_apply(g, dag, one, &ci);
            same += memcmp(one->data, co.data, colbytes) == 0 &&
                    (!one->norm || memcmp(one->norm, co.norm, (size_t)cs * sizeof(float)) == 0);
            pad &= padding_zero(&co, ns);
        }
    }
    CHECK(same == 2 * ncols, "%s recon %d: %d of %d block columns (Mhat, Mhat^dag) have the bytes of one application",
          solver_prec_name(prec), recon, same, 2 * ncols);
    CHECK(pad, "%s recon %d: a block's padding sites not zero", solver_prec_name(prec), recon);
    printf("block of %d columns %dx%dx%dx%d (%lld sites, columns %lld apart) c_sw %g recon %2d %-6s: %d of %d columns "
           "bit for bit, padding %s\n",
           ncols, L[0], L[1], L[2], L[3], (long long)ns, (long long)cs, csw, recon, solver_prec_name(prec), same, 2 * ncols,
           pad ? "zero" : "NOT ZERO");
    dirac_gpu_vec_free(one);
    dirac_gpu_vec_free(bin);
    dirac_gpu_vec_free(bout);
    dirac_gpu_free(g);
    dirac_free(cpu);
    field_free(&u);
}

/* half storage keeps a NaN visible: an input site with a NaN gives its
 * neighbours' output norms NaN (solvers.h's format), not a silent zero */
static void half_nan(void)
{
    struct lattice lat;
    const char *lwhy;
    const int L[4] = {4, 4, 4, 4};
    lattice_init(&lat, L, &lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 3);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.769);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    struct dirac_gpu *g = dirac_gpu_create(cpu, &u, GPU_RECON_12, why, sizeof why);
    const size_t n = (size_t)dirac_gpu_nsites(g) * 24;
    std::vector<double> x(n, 0.5), y(n);
    x[5 * 24 + 3] = NAN;
    struct solver_vec *vin = dirac_gpu_vec_new(g, SOLVER_HALF), *vout = dirac_gpu_vec_new(g, SOLVER_HALF);
    dirac_gpu_vec_upload(vin, x.data());
    dirac_gpu_eo_apply(g, 0, vout, vin);
    int nan_sites = 0, finite_sites = 0;
    for (int64_t s = 0; s < dirac_gpu_nsites(g); s++) {
        if (std::isnan(vout->norm[s])) nan_sites++;
        else finite_sites++;
    }
    CHECK(nan_sites > 0 && finite_sites > 0, "half with a NaN input site: %d NaN norms, %d finite", nan_sites, finite_sites);
    printf("half NaN: %d of %lld output sites NaN (norm), the rest finite\n", nan_sites, (long long)dirac_gpu_nsites(g));
    dirac_gpu_vec_free(vin);
    dirac_gpu_vec_free(vout);
    dirac_gpu_free(g);
    dirac_free(cpu);
    field_free(&u);
}

/* the 16-bit link format on its own: each stored real of random SU(3)
 * links within half a step of what it encodes; +-pi and the degenerate
 * flag of su3_pack8 */
static void link16_format(void)
{
    struct lattice lat;
    const char *lwhy;
    const int L[4] = {4, 4, 4, 4};
    lattice_init(&lat, L, &lwhy);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 7);
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    for (int k = 0; k < 3; k++) {
        const int recon = recons[k], nr = recon == GPU_RECON_FULL ? 18 : recon;
        double worst = 0; /* in steps */
        for (int64_t s = 0; s < lat.V; s++)
            for (int mu = 0; mu < 4; mu++) {
                const double *m = field_link(&u, s, mu);
                lat_real w[18];
                lat_complex mc[9];
                for (int c = 0; c < 9; c++) mc[c] = c_make(m[2 * c], m[2 * c + 1]);
                if (recon == GPU_RECON_8) su3_pack8(mc, w);
                else
                    for (int c = 0; c < 18; c++) w[c] = m[c];
                for (int c = 0; c < nr; c++) {
                    const double step = link16_decode_scale(recon, c);
                    const double e = std::fabs(link16_decode(recon, c, link16_encode(recon, c, w[c])) - w[c]) / step;
                    worst = e > worst ? e : worst;
                }
            }
        CHECK(worst <= 0.5 + 1e-9, "16-bit links, recon %d: a stored real off by %.4g steps (bound 0.5)", recon, worst);
        printf("16-bit links recon %2d: worst stored real %.4f steps off (bound 0.5)\n", recon, worst);
    }
    const double pi = 3.14159265358979323846;
    const int16_t qp = link16_encode(8, 6, pi), qm = link16_encode(8, 7, -pi);
    /* the step is pi/32767 rounded up to 15 bits: +-pi at |q| 32765..32767, unclamped */
    CHECK(qp >= 32765 && qp <= 32767 && qm == -qp && std::fabs(link16_decode(8, 6, qp) - pi) <= 0.5 * link16_decode_scale(8, 6),
          "16-bit links: the phase pi encodes as %d, -pi as %d", qp, qm);
    lat_complex one[9], back[9];
    lat_real w[8], wq[8];
    for (int c = 0; c < 9; c++) one[c] = c_make(c % 4 == 0, 0);
    su3_pack8(one, w);
    for (int c = 0; c < 8; c++) wq[c] = link16_decode(8, c, link16_encode(8, c, w[c]));
    su3_unpack8(wq, back);
    double e = 0;
    for (int c = 0; c < 9; c++) e = std::fmax(e, std::fmax(std::fabs((double)(back[c].re - one[c].re)), std::fabs((double)(back[c].im - one[c].im))));
    CHECK(w[7] == SU3_PACK8_DEGENERATE && wq[7] == SU3_PACK8_DEGENERATE && e == 0,
          "16-bit links: the unit matrix's degenerate form came back as flag %g, off by %g", (double)wq[7], e);
    printf("16-bit links: +-pi stored as +-%d within half a step, the unit matrix (degenerate form) exact\n", qp);
    field_free(&u);
}

/* dirac_gpu_create's refusals: one line each */
static void refusals(void)
{
    struct lattice lat;
    const char *lwhy;
    const int L[4] = {4, 4, 4, 4};
    lattice_init(&lat, L, &lwhy);
    struct field u2, u3;
    field_alloc(&u2, &lat, 2, 64);
    field_set_random(&u2, 1);
    field_alloc(&u3, &lat, 3, 64);
    field_set_random(&u3, 2);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.0);
    char why[256] = "";
    struct dirac_op *c2 = dirac_create(&u2, &p, why, sizeof why), *c3 = dirac_create(&u3, &p, why, sizeof why);
    why[0] = 0;
    CHECK(dirac_gpu_create(c2, &u2, GPU_RECON_12, why, sizeof why) == NULL && strstr(why, "SU(3) only"),
          "SU(2) not refused: '%s'", why);
    why[0] = 0;
    CHECK(dirac_gpu_create(c3, &u3, 10, why, sizeof why) == NULL && strstr(why, "18, 12 or 8"),
          "recon 10 not refused: '%s'", why);
    printf("refusals: SU(2), recon 10\n");
    dirac_free(c2);
    dirac_free(c3);
    field_free(&u2);
    field_free(&u3);
}

int main(void)
{
    const int lats[2][4] = {{4, 4, 4, 8}, {6, 4, 2, 6}};
    const double csws[2] = {1.769, 0};
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    for (int l = 0; l < 2; l++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 3; k++) {
                if (IS_DOUBLE) {
                    run_case(lats[l], csws[c], recons[k], SOLVER_DOUBLE,
                             (struct tol){recons[k] == GPU_RECON_8 ? 1e-12 : 1e-13, 1e-14});
                } else {
                    run_case(lats[l], csws[c], recons[k], SOLVER_SINGLE, (struct tol){1e-6, 1e-6});
                    const double e16 = run_case(lats[l], csws[c], recons[k], SOLVER_HALF, (struct tol){2e-4, 2e-4});
                    /* over the float links only the spinors' quantisation
                     * is left: nearer the CPU than over 16-bit links */
                    const double e32 =
                        run_case(lats[l], csws[c], recons[k], SOLVER_HALF, (struct tol){2e-4, 2e-4}, false, 32);
                    CHECK(e32 < e16, "recon %d c_sw %g: half over 32-bit links %.3g from the CPU, over 16-bit %.3g",
                          recons[k], csws[c], e32, e16);
                }
            }
    for (int k = 1; k < 3; k++) {
        if (IS_DOUBLE) {
            run_case(lats[0], csws[0], recons[k], SOLVER_DOUBLE, (struct tol){recons[k] == GPU_RECON_8 ? 1e-12 : 1e-13, 1e-14}, true);
        } else {
            run_case(lats[0], csws[0], recons[k], SOLVER_SINGLE, (struct tol){1e-6, 1e-6}, true);
            run_case(lats[0], csws[0], recons[k], SOLVER_HALF, (struct tol){2e-4, 2e-4}, true);
        }
    }
    for (int l = 0; l < 2; l++) {
        if (IS_DOUBLE) block_case(lats[l], 1.769, GPU_RECON_12, SOLVER_DOUBLE, 3);
        else {
            block_case(lats[l], 1.769, GPU_RECON_12, SOLVER_SINGLE, 3);
            block_case(lats[l], l ? 0 : 1.769, GPU_RECON_8, SOLVER_HALF, 3);
        }
    }
    if (!IS_DOUBLE) half_nan();
    else link16_format(); /* su3_pack8 in double, as dirac/gpu.c packs */
    refusals();
    return unit_done(IS_DOUBLE ? "dirac-emulation double" : "dirac-emulation float");
}
