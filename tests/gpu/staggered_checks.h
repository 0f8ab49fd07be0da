/* staggered_checks.h -- the checks of the GPU staggered operator
 * (dirac/staggered_gpu.h) against the CPU operator (dirac/staggered.h),
 * shared by the host emulation (scripts/staggered-emulation.cpp: the
 * kernels run on the host, bits = 1) and the real-GPU test
 * (tests/gpu/test_gpu_staggered.c, bits = 0: the CUDA compiler fuses
 * multiply-adds, so only tolerances hold there).  Needs unit.h's CHECK and
 * staggered_vecs.h.
 *
 *   sg_check_one(u, m, recon, lname, bits)  one operator (links u, mass m,
 *       recon 12/18/8) against the CPU's, on random vectors:
 *     - double: K x vs staggered_mdagm_ee to 1e-13 relative (rounding of
 *       the rebuilt rows only); bits and 18 reals: the same bits (the same
 *       products in the same order; the eta sign flips the vector instead of
 *       the link, an exact operation);
 *     - single: vs the CPU's double K x to 1e-6 (float links and vectors,
 *       ~6e-8 a rounding; 8 reals unpack in float through sqrt and
 *       trigonometry: 1e-5); bits and 18 reals: staggered_mdagm_ee_f's bits;
 *     - half: vs the CPU's double K of the decoded input to 1e-3: the odd
 *       intermediate and the output are stored in 16 bits, each site to
 *       2^-16 of its largest real (~1.5e-5 measured); a wrong sign or
 *       neighbour gives O(1);
 *     - K Hermitian (<y,Kx> = <Ky,x> to 1e-13) and positive (<x,Kx> >=
 *       m^2 |x|^2, real), double;
 *     - twice the same input: the same bits (no races, deterministic);
 *     - every output's padding (reals 6, 7, sites past V/2, norms) zero;
 *     - the _ee view's apply, apply_f, apply_vec: ee_apply's bits; the
 *       normal view's A and A^dag vs staggered_solver_op_normal (double
 *       1e-13, single 1e-6), A^dag's odd half zero.
 *   sg_check_refusals(u3)   recon 7, another lattice, SU(2): NULL and a
 *       reason that says which.
 *   sg_check_solvers(u, m, recon, lname)   the views in the solvers, with
 *       device vectors (staging_blas.h: the CPU's vector kernels on staged
 *       copies), sloppy double, single and half: solver_cg on the _ee view
 *       solves K x = b, and solver_multishift_cg on the _normal view solves
 *       (K + sigma_i) x_i = b_e for sigma = 0, 0.01, 0.1 from b = [b_e | 0]
 *       with x_i's odd half exactly zero; each to tol 1e-10, checked with
 *       the CPU's K (|b - (K + sigma) x| / |b| < 2e-10): so the _normal
 *       view (not _ee, whose A^dag A would be K^2) is the one multi-shift
 *       CG takes, apply_vec included. */
#ifndef LAT_TESTS_STAGGERED_CHECKS_H
#define LAT_TESTS_STAGGERED_CHECKS_H

#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "lattice/field.h"
#include "staggered_vecs.h"
#include "staging_blas.h"
#include <stdio.h>
#include <string.h>

/* k values of type T (C and C++) */
#define SG_ALLOC(T, k) ((T *)malloc((size_t)(k) * sizeof(T)))

static const char *sg_pname[3] = {"double", "single", "half"};

/* out = K in on the device in precision p (host doubles in and out) */
static inline void sg_gpu_K(struct staggered_gpu *g, enum solver_prec p, const double *in, double *out)
{
    const int64_t vh = staggered_gpu_half_sites(g);
    double *zero = (double *)calloc((size_t)vh * 6, sizeof(double));
    struct solver_vec vi = sv_upload(p, vh, in), vo = sv_upload(p, vh, zero);
    staggered_gpu_ee_apply(g, p, &vo, &vi);
    CHECK(sv_padding_zero(&vo, vh), "K in %s: a padding real, site or norm of the output is not zero", sg_pname[p]);
    sv_download(&vo, vh, out);
    sv_free(&vi);
    sv_free(&vo);
    free(zero);
}

/* A or A^dag of a view on [even | odd] host vectors through the device */
static inline void sg_view_apply(const struct solver_op *s, int dag, enum solver_prec p, const double *in, double *out)
{
    const int64_t ns = (int64_t)(s->n / 6);
    double *zero = (double *)calloc(s->n, sizeof(double));
    struct solver_vec vi = sv_upload(p, ns, in), vo = sv_upload(p, ns, zero);
    if (p == SOLVER_DOUBLE) (dag ? s->apply_dag : s->apply)(s->ctx, (double *)vo.data, (const double *)vi.data);
    else if (p == SOLVER_SINGLE) (dag ? s->apply_dag_f : s->apply_f)(s->ctx, (float *)vo.data, (const float *)vi.data);
    else s->apply_vec(s->ctx, dag, &vo, &vi);
    CHECK(sv_padding_zero(&vo, ns), "a view's A%s in %s: a padding real, site or norm is not zero", dag ? "^dag" : "",
          sg_pname[p]);
    sv_download(&vo, ns, out);
    sv_free(&vi);
    sv_free(&vo);
    free(zero);
}

static inline void sg_check_one(const struct field *u, double m, int recon, const char *lname, int bits)
{
    char why[256];
    struct staggered_op *cpu = staggered_create(u, m, why, sizeof why);
    struct staggered_gpu *g = cpu ? staggered_gpu_create(cpu, u, recon, why, sizeof why) : NULL;
    CHECK(g != NULL, "%s m %g recon %d: %s", lname, m, recon, why);
    if (!g) { staggered_free(cpu); return; }
    const int64_t vh = staggered_gpu_half_sites(g);
    const size_t n = (size_t)vh * 6;
    double *x = SG_ALLOC(double, n), *y = SG_ALLOC(double, n), *kx = SG_ALLOC(double, n);
    double *ky = SG_ALLOC(double, n), *ref = SG_ALLOC(double, n), *ref2 = SG_ALLOC(double, n);
    double *xs = SG_ALLOC(double, n), *a = SG_ALLOC(double, n), *b = SG_ALLOC(double, n);
    float *xf = SG_ALLOC(float, n), *kf = SG_ALLOC(float, n);
    sv_random(x, n, 11 + recon);
    sv_random(y, n, 23 + recon);
    staggered_mdagm_ee(cpu, ref, x);
    /* double, twice */
    sg_gpu_K(g, SOLVER_DOUBLE, x, kx);
    sg_gpu_K(g, SOLVER_DOUBLE, x, a);
    CHECK(memcmp(kx, a, n * sizeof(double)) == 0, "%s m %g recon %d: two applications differ", lname, m, recon);
    const double ed = sv_reldiff(kx, ref, n);
    CHECK(ed < 1e-13, "%s m %g recon %d double: K differs from the CPU's by %.3g", lname, m, recon, ed);
    if (bits && recon == 18)
        CHECK(memcmp(kx, ref, n * sizeof(double)) == 0, "%s m %g recon 18 double: not the CPU's bits", lname, m);
    /* Hermitian and positive */
    sg_gpu_K(g, SOLVER_DOUBLE, y, ky);
    double im1, im2, imx;
    const double yKx = sv_dot(y, kx, n, &im1), Kyx = sv_dot(ky, x, n, &im2);
    const double herm = hypot(yKx - Kyx, im1 - im2) / hypot(yKx, im1);
    CHECK(herm < 1e-13, "%s m %g recon %d: <y,Kx> - <Ky,x> relative %.3g", lname, m, recon, herm);
    const double xKx = sv_dot(x, kx, n, &imx), xx = sv_dot(x, x, n, NULL);
    CHECK(xKx >= m * m * xx * (1 - 1e-12) && fabs(imx) < 1e-12 * xKx,
          "%s m %g recon %d: <x,Kx> = %.17g%+.3gi, m^2|x|^2 = %.17g", lname, m, recon, xKx, imx, m * m * xx);
    /* single */
    for (size_t k = 0; k < n; k++) xf[k] = (float)x[k];
    sg_gpu_K(g, SOLVER_SINGLE, x, kx);
    const double es = sv_reldiff(kx, ref, n), tol_s = recon == 8 ? 1e-5 : 1e-6;
    CHECK(es < tol_s, "%s m %g recon %d single: K differs from the CPU's double by %.3g", lname, m, recon, es);
    if (bits && recon == 18) {
        staggered_mdagm_ee_f(cpu, kf, xf);
        int same = 1;
        for (size_t k = 0; k < n; k++) same &= (float)kx[k] == kf[k];
        CHECK(same, "%s m %g recon 18 single: not the CPU's single bits", lname, m);
    }
    /* half: against K of the input as half stores it */
    struct solver_vec hv = sv_upload(SOLVER_HALF, vh, x);
    sv_download(&hv, vh, xs);
    sv_free(&hv);
    staggered_mdagm_ee(cpu, ref2, xs);
    sg_gpu_K(g, SOLVER_HALF, x, ky);
    const double eh = sv_reldiff(ky, ref2, n);
    CHECK(eh < 1e-3, "%s m %g recon %d half: K differs from the CPU's double by %.3g", lname, m, recon, eh);
    printf("%s m %.2f recon %2d: K vs CPU double %.2e%s, single %.2e, half %.2e; hermiticity %.1e, <x,Kx>/|x|^2 %.4f\n",
           lname, m, recon, ed, bits && recon == 18 ? " (bits)" : "", es, eh, herm, xKx / xx);
    /* the _ee view: apply, apply_f, apply_vec give ee_apply's bits */
    struct solver_op s;
    staggered_gpu_solver_op_ee(&s, g);
    CHECK(s.n == n && s.site_reals == 6 && s.apply == s.apply_dag && s.apply_f == s.apply_dag_f && s.apply_vec,
          "the _ee view's shape");
    for (int p = 0; p < 3; p++) {
        sg_gpu_K(g, (enum solver_prec)p, x, a);
        sg_view_apply(&s, 0, (enum solver_prec)p, x, b);
        CHECK(memcmp(a, b, n * sizeof(double)) == 0, "the _ee view in %s: not ee_apply's result", sg_pname[p]);
    }
    /* the normal view against the CPU's on [even | odd] vectors */
    struct solver_op sn, cn;
    staggered_gpu_solver_op_normal(&sn, g);
    staggered_solver_op_normal(&cn, cpu);
    CHECK(sn.n == cn.n && sn.site_reals == cn.site_reals && sn.apply_vec, "the normal view's shape: n %zu vs %zu", sn.n, cn.n);
    double *z = SG_ALLOC(double, 2 * n), *zc = SG_ALLOC(double, 2 * n), *zg = SG_ALLOC(double, 2 * n);
    sv_random(z, 2 * n, 37 + recon);
    for (int dag = 0; dag < 2; dag++)
        for (int p = 0; p < 3; p++) {
            (dag ? cn.apply_dag : cn.apply)(cn.ctx, zc, z);
            if (p == SOLVER_HALF) { /* the CPU's of the input as half stores it */
                struct solver_vec v = sv_upload(SOLVER_HALF, 2 * vh, z);
                double *zh = SG_ALLOC(double, 2 * n);
                sv_download(&v, 2 * vh, zh);
                sv_free(&v);
                (dag ? cn.apply_dag : cn.apply)(cn.ctx, zc, zh);
                free(zh);
            }
            sg_view_apply(&sn, dag, (enum solver_prec)p, z, zg);
            const double e = sv_reldiff(zg, zc, 2 * n);
            double odd = 0;
            for (size_t k = n; k < 2 * n; k++) odd += fabs(zg[k]);
            CHECK(e < (p == 0 ? 1e-13 : p == 1 ? 1e-6 : 1e-3) && (!dag || odd == 0),
                  "normal view %s %s: %.3g from the CPU's (odd half %g)", dag ? "A^dag" : "A", sg_pname[p], e, odd);
            if (dag == 1 && p == 0) printf("  normal view: A^dag vs CPU %.2e\n", e);
        }
    free(z), free(zc), free(zg);
    free(x), free(y), free(kx), free(ky), free(ref), free(ref2), free(xs), free(a), free(b), free(xf), free(kf);
    staggered_gpu_free(g);
    staggered_free(cpu);
}

/* |b - (K + sigma) x| / |b| with the CPU's K */
static inline double sg_cpu_residual(struct staggered_op *cpu, double sigma, const double *b, const double *x, size_t n)
{
    double *kx = SG_ALLOC(double, n), r = 0, nb = 0;
    staggered_mdagm_ee(cpu, kx, x);
    for (size_t k = 0; k < n; k++) {
        const double d = b[k] - kx[k] - sigma * x[k];
        r += d * d, nb += b[k] * b[k];
    }
    free(kx);
    return sqrt(r / nb);
}

static inline void sg_check_solvers(const struct field *u, double m, int recon, const char *lname)
{
    char why[256];
    struct staggered_op *cpu = staggered_create(u, m, why, sizeof why);
    struct staggered_gpu *g = cpu ? staggered_gpu_create(cpu, u, recon, why, sizeof why) : NULL;
    CHECK(g != NULL, "solvers: %s", why);
    if (!g) { staggered_free(cpu); return; }
    struct solver_blas *blas = staging_blas_open();
    const int64_t vh = staggered_gpu_half_sites(g);
    const size_t n = (size_t)vh * 6;
    double *b = SG_ALLOC(double, 2 * n), *x = SG_ALLOC(double, 2 * n);
    sv_random(b, n, 99);
    memset(b + n, 0, n * sizeof(double));
    memset(x, 0, 2 * n * sizeof(double));
    struct solver_vec bd = sv_upload(SOLVER_DOUBLE, vh, b), bn = sv_upload(SOLVER_DOUBLE, 2 * vh, b);
    struct solver_op se, sn;
    staggered_gpu_solver_op_ee(&se, g);
    staggered_gpu_solver_op_normal(&sn, g);
    const double sigma[3] = {0, 0.01, 0.1};
    for (int p = 0; p < 3; p++) {
        struct solver_params par = {1e-10, 5000, (enum solver_prec)p, 0, NULL, NULL, NULL, NULL};
        struct solver_result res, mres[3];
        struct solver_vec xd = sv_upload(SOLVER_DOUBLE, vh, x);
        enum solver_status st = solver_cg(&se, blas, (const double *)bd.data, (double *)xd.data, &par, &res);
        sv_download(&xd, vh, x);
        sv_free(&xd);
        const double rc = sg_cpu_residual(cpu, 0, b, x, n);
        CHECK(st == SOLVER_CONVERGED && rc < 2e-10, "%s CG _ee view, sloppy %s: %s, CPU residual %.3g", lname,
              sg_pname[p], solver_status_name(st), rc);
        struct solver_vec xs[3];
        double *xp[3];
        memset(x, 0, 2 * n * sizeof(double));
        for (int i = 0; i < 3; i++) xs[i] = sv_upload(SOLVER_DOUBLE, 2 * vh, x), xp[i] = (double *)xs[i].data;
        st = solver_multishift_cg(&sn, blas, (const double *)bn.data, 3, sigma, NULL, xp, &par, mres);
        double worst = 0, odd = 0;
        for (int i = 0; i < 3; i++) {
            sv_download(&xs[i], 2 * vh, x);
            const double ri = sg_cpu_residual(cpu, sigma[i], b, x, n);
            if (ri > worst) worst = ri;
            for (size_t k = n; k < 2 * n; k++) odd += fabs(x[k]);
            sv_free(&xs[i]);
        }
        CHECK(st == SOLVER_CONVERGED && worst < 2e-10 && odd == 0,
              "%s multi-shift CG _normal view, sloppy %s: %s, worst CPU residual %.3g, odd half %g", lname, sg_pname[p],
              solver_status_name(st), worst, odd);
        printf("  solvers %s m %.2f recon %d sloppy %s: CG %d iterations (CPU residual %.1e); multi-shift %d/%d/%d "
               "(worst %.1e)\n", lname, m, recon, sg_pname[p], res.iterations, rc, mres[0].iterations, mres[1].iterations,
               mres[2].iterations, worst);
        memset(x, 0, 2 * n * sizeof(double));
    }
    sv_free(&bd);
    sv_free(&bn);
    free(b), free(x);
    staging_blas_close(blas);
    staggered_gpu_free(g);
    staggered_free(cpu);
}

static inline void sg_check_refusals(const struct field *u3)
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

#endif
