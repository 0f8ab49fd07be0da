/* blas_checks.h -- the checks of the GPU vector kernels of the solvers
 * (kernels/solvers/blas_gpu.h), written once for the real GPU
 * (tests/gpu/test_gpu_blas.c, C) and the host emulation
 * (scripts/blas-emulation.cpp, C++ with the kernels run thread by thread):
 * header only, in the common subset of C and C++.  Device memory is reached
 * only through gpu_spinor_upload, gpu_upload and gpu_download (in the
 * emulation they are memcpy).  Uses unit.h's CHECK.
 *
 *   bc_kernels(gpu, cpu, nsites, site_reals)
 *       random x, y (sites of very different sizes, so the half norms
 *       differ) in every pair of precisions (double, single, half): copy,
 *       scale (x is y), axpy, xpay and caxpby on the GPU give the CPU
 *       kernels' stored bits (half: q and norms), padding reals and sites
 *       zero (x has a zero site: half norm 0); cdot and norm2 within 1e-13
 *       (relative to |x||y|); double -> half -> double within the half
 *       format's bound (2^-15 of the site's largest |x|, solvers.h) per
 *       site; a NaN in a site gives that site a NaN norm, the CPU's bits.
 *   bc_solves(gpu, cpu, nsites, site_reals, it_margin)
 *       a site-local operator (a random complex block per site, written on
 *       the device layout: apply, apply_dag, apply_f, apply_dag_f and
 *       apply_vec, as a GPU operator has them; the same blocks and
 *       arithmetic on the CPU's site-after-site layout without apply_vec)
 *       and solver_cg (Hermitian positive blocks), solver_bicgstab,
 *       solver_cgne, solver_multishift_cg (4 shifts) at tol 1e-10 in double,
 *       single and half sloppy precision, once with the GPU kernels and
 *       once with solver_blas_cpu: both converged, the GPU solution's true
 *       residual (recomputed on the host) <= tol, the solutions within 1e-8
 *       of each other, iteration counts within it_margin (the reductions
 *       add in another order, so alpha and beta differ in the last bits and
 *       the recursions drift apart by rounding).  Returns the largest
 *       iteration difference seen.
 *   bc_determinism(gpu, nsites, site_reals)
 *       two identical mixed-half CG solves and two norm2/cdot on the GPU:
 *       the same bits. */
#ifndef LAT_TEST_BLAS_CHECKS_H
#define LAT_TEST_BLAS_CHECKS_H

#include "solvers/half.h" /* half_decode_scale: the stored step */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bc_verbose;

/* ---- random numbers (splitmix64; a test's own stream) ------------------- */
static uint64_t bc_state = 0x9e3779b97f4a7c15ULL;
static double bc_uniform(void)
{
    uint64_t z = (bc_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}
static double bc_gauss(void) { return sqrt(-2 * log(bc_uniform())) * cos(6.283185307179586 * bc_uniform()); }
/* n = nsites * sr reals, site s scaled by 10^u, u uniform in [-2, 1] */
static void bc_random(double *v, size_t nsites, size_t sr)
{
    for (size_t s = 0; s < nsites; s++) {
        double f = pow(10, 3 * bc_uniform() - 2);
        for (size_t c = 0; c < sr; c++) v[s * sr + c] = f * bc_gauss();
    }
}

static size_t bc_elem(enum solver_prec p) { return p == SOLVER_DOUBLE ? 8 : p == SOLVER_SINGLE ? 4 : 2; }
static const char *bc_pname(enum solver_prec p) { return p == SOLVER_DOUBLE ? "d" : p == SOLVER_SINGLE ? "s" : "h"; }

/* a vector of precision p holding host reals h: a double vector filled
 * (GPU: uploaded in the layout), then converted by the table's copy */
static struct solver_vec *bc_vec(const struct solver_blas *b, int gpu, const double *h, size_t nsites, size_t sr,
                                 enum solver_prec p)
{
    struct solver_vec *d = b->alloc(b->ctx, nsites * sr, sr, SOLVER_DOUBLE);
    if (gpu) gpu_spinor_upload((double *)d->data, h, (int64_t)nsites, (int)sr);
    else memcpy(d->data, h, nsites * sr * sizeof(double));
    if (p == SOLVER_DOUBLE) return d;
    struct solver_vec *v = b->alloc(b->ctx, nsites * sr, sr, p);
    b->copy(b->ctx, v, d);
    b->free(b->ctx, d);
    return v;
}

/* a GPU vector against a CPU one: 1 when every stored real (and half norm)
 * has the CPU's bits and all padding is zero; *maxdiff = max |g - c| over
 * max |c| of the values */
static int bc_same(const struct solver_vec *g, const struct solver_vec *c, double *maxdiff, int *pad_ok)
{
    size_t ns = c->n / c->site_reals, sr = c->site_reals;
    int nc = gpu_spinor_ncomp((int)sr);
    size_t stored = gpu_spinor_storage((int64_t)ns, (int)sr), es = bc_elem(c->prec);
    size_t npad = (size_t)gpu_spinor_nblk((int64_t)ns) * GPU_SPINOR_LANES;
    unsigned char *raw = (unsigned char *)calloc(stored ? stored : 1, es);
    float *gn = (float *)calloc(npad + 1, sizeof(float));
    unsigned char *seen = (unsigned char *)calloc(stored + 1, 1);
    gpu_download(raw, g->data, stored * es);
    if (c->prec == SOLVER_HALF) gpu_download(gn, g->norm, npad * sizeof(float));
    int same = 1;
    double d = 0, m = 0;
    for (size_t s = 0; s < ns; s++) {
        double sc = c->prec == SOLVER_HALF ? half_decode_scale(c->norm[s]) : 1;
        double sg = c->prec == SOLVER_HALF ? half_decode_scale(gn[s]) : 1;
        if (c->prec == SOLVER_HALF && memcmp(&gn[s], &c->norm[s], sizeof(float))) same = 0;
        for (size_t k = 0; k < sr; k++) {
            size_t i = gpu_spinor_index(nc, (int)k, (int64_t)s);
            seen[i] = 1;
            const unsigned char *cp = (const unsigned char *)c->data + (s * sr + k) * es;
            if (memcmp(raw + i * es, cp, es)) same = 0;
            double vg, vc;
            if (c->prec == SOLVER_DOUBLE) memcpy(&vg, raw + i * es, 8), memcpy(&vc, cp, 8);
            else if (c->prec == SOLVER_SINGLE) {
                float a, b;
                memcpy(&a, raw + i * es, 4), memcpy(&b, cp, 4);
                vg = a, vc = b;
            } else {
                int16_t a, b;
                memcpy(&a, raw + i * es, 2), memcpy(&b, cp, 2);
                vg = a * sg, vc = b * sc;
            }
            d = fmax(d, fabs(vg - vc));
            m = fmax(m, fabs(vc));
        }
    }
    *pad_ok = 1;
    for (size_t i = 0; i < stored; i++) {
        if (seen[i]) continue;
        double v = c->prec == SOLVER_DOUBLE ? ((double *)raw)[i] : c->prec == SOLVER_SINGLE ? ((float *)raw)[i] : ((int16_t *)raw)[i];
        if (v != 0) *pad_ok = 0;
    }
    if (c->prec == SOLVER_HALF)
        for (size_t s = ns; s < npad; s++)
            if (gn[s] != 0) *pad_ok = 0;
    *maxdiff = m > 0 ? d / m : d;
    free(raw);
    free(gn);
    free(seen);
    return same;
}

enum { BC_COPY, BC_SCALE, BC_AXPY, BC_XPAY, BC_CAXPBY, BC_NKERNELS };
static const char *bc_kname[BC_NKERNELS] = {"copy", "scale", "axpy", "xpay", "caxpby"};
static void bc_run(const struct solver_blas *b, int k, const struct solver_vec *x, struct solver_vec *y)
{
    solver_complex ca = {0.3, -0.8}, cb = {1.1, 0.4};
    switch (k) {
    case BC_COPY: b->copy(b->ctx, y, x); break;
    case BC_SCALE: b->scale(b->ctx, -2.5, y); break;
    case BC_AXPY: b->axpy(b->ctx, 0.7, x, y); break;
    case BC_XPAY: b->xpay(b->ctx, x, -1.3, y); break;
    default: b->caxpby(b->ctx, ca, x, cb, y); break;
    }
}

static void bc_kernels(const struct solver_blas *gpu, const struct solver_blas *cpu, size_t ns, size_t sr)
{
    size_t n = ns * sr;
    double *xh = (double *)malloc(n * sizeof(double)), *yh = (double *)malloc(n * sizeof(double));
    bc_random(xh, ns, sr);
    bc_random(yh, ns, sr);
    for (size_t k = 0; k < sr; k++) xh[3 * sr + k] = 0; /* a zero site: half norm 0 */
    int nbits = 0, npad = 0, nall = 0;
    for (int px = 0; px < 3; px++)
        for (int py = 0; py < 3; py++) {
            enum solver_prec ex = (enum solver_prec)px, ey = (enum solver_prec)py;
            struct solver_vec *xg = bc_vec(gpu, 1, xh, ns, sr, ex), *xc = bc_vec(cpu, 0, xh, ns, sr, ex);
            for (int k = 0; k < BC_NKERNELS; k++) {
                struct solver_vec *yg = bc_vec(gpu, 1, yh, ns, sr, ey), *yc = bc_vec(cpu, 0, yh, ns, sr, ey);
                bc_run(gpu, k, xg, yg);
                bc_run(cpu, k, xc, yc);
                double d;
                int pad, same = bc_same(yg, yc, &d, &pad);
                CHECK(same && pad, "%zu sites x %zu: %s x %s -> %s: the CPU's bits %s (max rel diff %.3g), padding zero %s",
                      ns, sr, bc_kname[k], bc_pname(ex), bc_pname(ey), same ? "yes" : "no", d, pad ? "yes" : "no");
                nbits += same, npad += pad, nall++;
                gpu->free(gpu->ctx, yg);
                cpu->free(cpu->ctx, yc);
            }
            /* reductions */
            struct solver_vec *yg = bc_vec(gpu, 1, yh, ns, sr, ey), *yc = bc_vec(cpu, 0, yh, ns, sr, ey);
            solver_complex dg = gpu->cdot(gpu->ctx, xg, yg), dc = cpu->cdot(cpu->ctx, xc, yc);
            double nxg = gpu->norm2(gpu->ctx, xg), nxc = cpu->norm2(cpu->ctx, xc), nyc = cpu->norm2(cpu->ctx, yc);
            double scale = sqrt(nxc * nyc);
            double e = fmax(fabs(dg.re - dc.re), fabs(dg.im - dc.im)) / scale, en = fabs(nxg - nxc) / nxc;
            CHECK(e <= 1e-13, "%zu x %zu: cdot %s.%s (%.17g, %.17g) vs CPU (%.17g, %.17g): %.3g of |x||y|", ns, sr,
                  bc_pname(ex), bc_pname(ey), dg.re, dg.im, dc.re, dc.im, e);
            if (py == 0) CHECK(en <= 1e-13, "%zu x %zu: norm2 %s %.17g vs CPU %.17g: %.3g", ns, sr, bc_pname(ex), nxg, nxc, en);
            if (bc_verbose)
                printf("  %zu x %zu %s.%s: cdot rel %.2e, norm2 rel %.2e\n", ns, sr, bc_pname(ex), bc_pname(ey), e, en);
            gpu->free(gpu->ctx, yg);
            cpu->free(cpu->ctx, yc);
            gpu->free(gpu->ctx, xg);
            cpu->free(cpu->ctx, xc);
        }
    /* double -> half -> double on the GPU, per site within 2^-15 of its max */
    struct solver_vec *h = bc_vec(gpu, 1, xh, ns, sr, SOLVER_HALF), *d = gpu->alloc(gpu->ctx, n, sr, SOLVER_DOUBLE);
    gpu->copy(gpu->ctx, d, h);
    double *back = (double *)malloc(n * sizeof(double)), worst = 0;
    gpu_spinor_download(back, (const double *)d->data, (int64_t)ns, (int)sr);
    for (size_t s = 0; s < ns; s++) {
        double mx = 0, e = 0;
        for (size_t k = 0; k < sr; k++) mx = fmax(mx, fabs(xh[s * sr + k]));
        for (size_t k = 0; k < sr; k++) e = fmax(e, fabs(back[s * sr + k] - xh[s * sr + k]));
        worst = fmax(worst, mx > 0 ? e / mx : e); /* the zero site: exactly 0 */
    }
    CHECK(worst <= pow(2, -15), "%zu x %zu: half round trip %.3g of the site's max (bound 2^-15 = %.3g)", ns, sr, worst,
          pow(2, -15));
    /* a NaN in a site: its half norm is NaN (the CPU's bits), the others unharmed */
    xh[5 * sr + 1] = NAN;
    struct solver_vec *hg = bc_vec(gpu, 1, xh, ns, sr, SOLVER_HALF), *hc = bc_vec(cpu, 0, xh, ns, sr, SOLVER_HALF);
    float n5;
    gpu_download(&n5, hg->norm + 5, sizeof n5);
    double dn;
    int padn, samen = bc_same(hg, hc, &dn, &padn);
    CHECK(samen && padn && isnan(n5), "%zu x %zu: a NaN to half: the CPU's bits %d, padding zero %d, norm %g", ns, sr,
          samen, padn, (double)n5);
    gpu->free(gpu->ctx, hg);
    cpu->free(cpu->ctx, hc);
    printf("%zu sites x %zu reals: %d of %d elementwise results the CPU's bits, padding zero in %d; half round trip %.2e "
           "of the site max\n", ns, sr, nbits, nall, npad, worst);
    gpu->free(gpu->ctx, h);
    gpu->free(gpu->ctx, d);
    free(back);
    free(xh);
    free(yh);
}

#include "blas_blockop.h"

#endif
