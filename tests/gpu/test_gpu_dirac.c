/* test_gpu_dirac.c -- `make check-gpu`: the GPU Wilson-clover operator
 * (kernels/dirac/gpu.h) against the CPU operator (dirac.h) on a real GPU,
 * the comparisons scripts/dirac-emulation makes on the host (same bounds,
 * a little wider where the GPU's fused multiply-adds round differently):
 *   on 8^4 and 16^3x8, Haar-random SU(3) links, kappa 0.13, c_sw 1.769 and
 *   0, boundary phases -1 in t and e^{0.7 i} in y, every storage precision
 *   (double, single, half) x link storage (18, 12, 8 reals), and on 8^4
 *   unit links (a cold start: recon 8's degenerate form, whose flag the
 *   half sweeps' 16-bit links store as -32768) with 12 and 8 reals:
 *     Mhat in and Mhat^dag in vs dirac_eo_apply(_dag) in double on the same
 *       (rounded or quantised) input, |diff| / |ref| below: double 1e-13
 *       (8 reals: 1e-12), single 1e-6, half 2e-4 (spinors, links and
 *       clover in 16 bits: 4.5e-5 the worst in the host emulation);
 *     gamma5 Mhat gamma5 in = Mhat^dag in to 1e-13 / 1e-6 / 2e-4;
 *     the padding sites of the output (and its half norms) zero (16^3x8:
 *       V/2 = 16384, a multiple of 32 -- 8^4 too; the padding is checked
 *       on a 6x4x2x6 box as well, V/2 = 144);
 *     the same bits on a second application (deterministic);
 *   dirac_gpu_solver_op's apply / apply_f on raw device pointers = the
 *   solver_vec path, bit for bit.
 * Prints one line per case and "test_gpu_dirac: N passed, M failed". */
#include "dirac/dirac.h"
#include "dirac/gpu.h"
#include "gpu/gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "gpu_fields.h"
#include "base/log.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rel(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t k = 0; k < n; k++) {
        d += (a[k] - b[k]) * (a[k] - b[k]);
        m += b[k] * b[k];
    }
    return sqrt(d / m);
}

static void gamma5(double *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (k % 24 >= 12) v[k] = -v[k];
}

static size_t esize(enum solver_prec p) { return p == SOLVER_DOUBLE ? 8 : p == SOLVER_SINGLE ? 4 : 2; }

/* the raw storage of v (and its norms) on the host */
static unsigned char *raw(const struct solver_vec *v, int64_t ns, float **norm)
{
    const size_t bytes = gpu_spinor_storage(ns, 24) * esize(v->prec);
    unsigned char *d = lat_malloc(bytes);
    gpu_sync("test");
    gpu_download(d, v->data, bytes);
    *norm = NULL;
    if (v->norm) {
        const size_t nn = (size_t)gpu_spinor_nblk(ns) * GPU_SPINOR_LANES;
        *norm = lat_malloc(nn * sizeof(float));
        gpu_download(*norm, v->norm, nn * sizeof(float));
    }
    return d;
}

static int padding_zero(const struct solver_vec *v, int64_t ns)
{
    float *nm;
    unsigned char *d = raw(v, ns, &nm);
    int ok = 1;
    for (int64_t s = ns; s < gpu_spinor_nblk(ns) * GPU_SPINOR_LANES; s++) {
        for (int c = 0; c < 24; c++)
            for (size_t b = 0; b < esize(v->prec); b++)
                if (d[gpu_spinor_index(24, c, s) * esize(v->prec) + b]) ok = 0;
        if (nm && nm[s] != 0) ok = 0;
    }
    free(d);
    free(nm);
    return ok;
}

/* Mhat on the GPU against the CPU; half_bits 32: half spinors over the
 * float links and clover (dirac_gpu_set_half_links).  Returns Mhat's
 * relative difference. */
static double run(int lx, int ly, int lz, int lt, double csw, int recon, enum solver_prec prec, int cold, int half_bits)
{
    struct lattice lat;
    int L[4] = {lx, ly, lz, lt};
    const char *lwhy;
    if (lattice_init(&lat, L, &lwhy)) lat_die(1, "test_gpu_dirac", "%s", lwhy);
    struct field u;
    fields_haar(&u, &lat, 3, 2026);
    if (cold) field_set_unit(&u);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, csw);
    p.phase[1][0] = cos(0.7);
    p.phase[1][1] = sin(0.7);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die(1, "test_gpu_dirac", "dirac_create: %s", why);
    struct dirac_gpu *g = dirac_gpu_create(cpu, &u, recon, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create: %s", why);
    if (!g) { dirac_free(cpu); field_free(&u); return 0; }
    if (prec == SOLVER_HALF) dirac_gpu_set_half_links(g, half_bits);
    const int64_t ns = dirac_gpu_nsites(g);
    const size_t n = (size_t)ns * 24;
    double *psi = lat_malloc(n * sizeof *psi), *in = lat_malloc(n * sizeof *in), *out = lat_malloc(n * sizeof *out),
           *outd = lat_malloc(n * sizeof *outd), *ref = lat_malloc(n * sizeof *ref), *g5 = lat_malloc(n * sizeof *g5);
    struct lat_rng r;
    rng_init(&r, 11, 0, 0, 0, RNG_TEST);
    for (size_t k = 0; k < n; k++) psi[k] = rng_normal(&r);
    struct solver_vec *vin = dirac_gpu_vec_new(g, prec), *vout = dirac_gpu_vec_new(g, prec);
    dirac_gpu_vec_upload(vin, psi);
    dirac_gpu_vec_download(in, vin);
    const double bound = prec == SOLVER_DOUBLE ? (recon == GPU_RECON_8 ? 1e-12 : 1e-13) : prec == SOLVER_SINGLE ? 1e-6 : 2e-4;
    double err[2];
    for (int dag = 0; dag < 2; dag++) {
        dirac_gpu_eo_apply(g, dag, vout, vin);
        dirac_gpu_vec_download(dag ? outd : out, vout);
        if (dag) dirac_eo_apply_dag(cpu, ref, in);
        else dirac_eo_apply(cpu, ref, in);
        err[dag] = rel(dag ? outd : out, ref, n);
        CHECK(err[dag] < bound, "%dx%dx%dx%d %s recon %d c_sw %g: Mhat%s vs CPU %.3g (bound %g)", lx, ly, lz, lt,
              solver_prec_name(prec), recon, csw, dag ? "^dag" : "", err[dag], bound);
    }
    /* deterministic: the same bits again */
    float *n1, *n2;
    unsigned char *r1 = raw(vout, ns, &n1);
    dirac_gpu_eo_apply(g, 1, vout, vin);
    unsigned char *r2 = raw(vout, ns, &n2);
    const size_t bytes = gpu_spinor_storage(ns, 24) * esize(prec);
    CHECK(memcmp(r1, r2, bytes) == 0 && (!n1 || memcmp(n1, n2, (size_t)gpu_spinor_nblk(ns) * 32 * sizeof(float)) == 0),
          "%s recon %d: two applications differ", solver_prec_name(prec), recon);
    free(r1); free(r2); free(n1); free(n2);
    const int pad = padding_zero(vout, ns);
    CHECK(pad, "%s recon %d: padding not zero", solver_prec_name(prec), recon);
    /* gamma5-hermiticity */
    memcpy(g5, in, n * sizeof *g5);
    gamma5(g5, n);
    dirac_gpu_vec_upload(vin, g5);
    dirac_gpu_eo_apply(g, 0, vout, vin);
    dirac_gpu_vec_download(g5, vout);
    gamma5(g5, n);
    const double eg5 = rel(g5, outd, n);
    CHECK(eg5 < bound, "%s recon %d c_sw %g: gamma5 Mhat gamma5 vs Mhat^dag %.3g", solver_prec_name(prec), recon, csw, eg5);
    /* the solver's view on raw device pointers: the same bits */
    if (prec != SOLVER_HALF) {
        struct solver_op s;
        dirac_gpu_solver_op(&s, g);
        CHECK(s.n == n && s.site_reals == 24 && s.apply_vec, "solver_op: n %zu site_reals %zu", s.n, s.site_reals);
        dirac_gpu_vec_upload(vin, in);
        dirac_gpu_eo_apply(g, 0, vout, vin);
        unsigned char *a = raw(vout, ns, &n1);
        if (prec == SOLVER_DOUBLE) s.apply(s.ctx, (double *)vout->data, (const double *)vin->data);
        else s.apply_f(s.ctx, (float *)vout->data, (const float *)vin->data);
        unsigned char *b = raw(vout, ns, &n2);
        CHECK(memcmp(a, b, bytes) == 0, "%s: solver_op apply differs from dirac_gpu_eo_apply", solver_prec_name(prec));
        free(a); free(b);
    }
    printf("%s%dx%dx%dx%d c_sw %-5g recon %2d %-6s%s: Mhat %.2e Mhat^dag %.2e gamma5 %.2e (bound %g), padding %s\n",
           cold ? "unit links " : "", lx, ly, lz, lt, csw, recon, solver_prec_name(prec),
           prec != SOLVER_HALF ? "" : half_bits == 16 ? " (16-bit links)" : " (32-bit links)", err[0], err[1], eg5, bound,
           pad ? "zero" : "NOT ZERO");
    dirac_gpu_vec_free(vin);
    dirac_gpu_vec_free(vout);
    free(psi); free(in); free(out); free(outd); free(ref); free(g5);
    dirac_gpu_free(g);
    dirac_free(cpu);
    field_free(&u);
    return err[0];
}

int main(void)
{
    char why[200];
    if (!gpu_available(why, (int)sizeof why)) {
        CHECK(0, "no GPU: %s", why);
        return unit_done("test_gpu_dirac");
    }
    const int lats[3][4] = {{8, 8, 8, 8}, {16, 16, 16, 8}, {6, 4, 2, 6}};
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 3; k++)
                for (int q = 0; q < 3; q++) {
                    if (l == 2 && c == 1) continue; /* the small box: clover only */
                    const double e = run(lats[l][0], lats[l][1], lats[l][2], lats[l][3], c ? 0.0 : 1.769, recons[k],
                                         precs[q], 0, 16);
                    if (precs[q] != SOLVER_HALF || l == 2) continue;
                    /* over the float links only the spinors' quantisation is left */
                    const double e32 = run(lats[l][0], lats[l][1], lats[l][2], lats[l][3], c ? 0.0 : 1.769, recons[k],
                                           SOLVER_HALF, 0, 32);
                    CHECK(e32 < e, "recon %d c_sw %g: half over 32-bit links %.3g from the CPU, over 16-bit %.3g",
                          recons[k], c ? 0.0 : 1.769, e32, e);
                }
    for (int k = 1; k < 3; k++)
        for (int q = 0; q < 3; q++) run(8, 8, 8, 8, 1.769, recons[k], precs[q], 1, 16);
    return unit_done("test_gpu_dirac");
}
