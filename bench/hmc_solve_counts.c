/* hmc_solve_counts.c (bench) -- where the iterations of lat-hmc's N_f = 2
 * staggered RHMC trajectory go, counted on the CPU (issue 21): the solves
 * of one trajectory (1 pseudofermion heatbath, 2 actions, 2 n + 1 MD
 * force solves of n Omelyan 2MN steps) run on one thermalised
 * configuration through solver_multishift_cg exactly as the monomial calls
 * it (hmc/staggered_monomial.c: normal view, the lat-hmc rationals,
 * tolerances 1e-12 / --tol-md, heatbath and action in double, MD in the
 * precision asked), with the operator and the vector kernels wrapped by
 * counters.  Printed per solve type: the shared recursion's iterations,
 * the refinement CG iterations summed over the shifts, the shifts refined,
 * the double residuals (reliable updates), the operator applications in
 * double and single (K-equivalents: A then A^dag of the normal view is one
 * K = (M^dag M)_ee), the vector-kernel calls and how many of them reduce
 * (a host wait on a GPU); then per trajectory, and a GPU cost model from
 * the constants given (defaults: issue 21's H200 numbers).  The links are
 * fixed for the whole trajectory (the counts of a real one differ by the
 * drift of the links only).
 *
 *   build/bench/hmc_solve_counts [--mass M] [--beta B] [--md-steps N]
 *       [--tol-md R] [--precision double|mixed] [--therm T] [LXxLYxLZxLT]
 *       defaults: 0.0125, 5.6, 10, 1e-8, mixed, 5 quenched trajectories, 8x8x8x8
 * Model constants (microseconds): --k-double 92 --k-single 46
 * --vec-double 2.9 --vec-single 1.5 (one pass over one vector of the
 * 32^3x8 normal view, from bench/blas_gpu's 193 us for 12 shifts)
 * --launch 4 --sync 15; the counts are scaled to 32^3x8 only through these
 * per-call costs (the iteration counts are the lattice's own). */
#include "base/cli.h"
#include "dirac/staggered.h"
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/staggered_monomial.h"
#include "rational/rational.h"
#include "solvers/solvers.h"
#include "lattice/field.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counters ------------------------------------------------------------ */
struct counts {
    long op_half_d, op_half_f;   /* A or A^dag applications (half a K each) */
    long calls, reductions;      /* vector-kernel calls, those returning a sum */
    long vec_passes_d, vec_passes_f; /* vectors read or written, by precision */
    long shared, refine_iters, true_residuals;
    long allocs; /* work vectors allocated (a cudaMalloc and a cudaFree each with the GPU kernels) */
};
static struct counts C;

struct counted_op {
    const struct solver_op *in;
};
static void c_apply(void *c, double *o, const double *i) { C.op_half_d++; ((struct counted_op *)c)->in->apply(((struct counted_op *)c)->in->ctx, o, i); }
static void c_apply_dag(void *c, double *o, const double *i) { C.op_half_d++; ((struct counted_op *)c)->in->apply_dag(((struct counted_op *)c)->in->ctx, o, i); }
static void c_apply_f(void *c, float *o, const float *i) { C.op_half_f++; ((struct counted_op *)c)->in->apply_f(((struct counted_op *)c)->in->ctx, o, i); }
static void c_apply_dag_f(void *c, float *o, const float *i) { C.op_half_f++; ((struct counted_op *)c)->in->apply_dag_f(((struct counted_op *)c)->in->ctx, o, i); }

static const struct solver_blas *IB; /* the CPU kernels being counted */
static void pass(const struct solver_vec *v, int rw)
{
    if (v->prec == SOLVER_DOUBLE) C.vec_passes_d += rw;
    else C.vec_passes_f += rw;
}
static struct solver_vec *b_alloc(void *c, size_t n, size_t sr, enum solver_prec p) { (void)c; C.allocs++; return IB->alloc(IB->ctx, n, sr, p); }
static void b_free(void *c, struct solver_vec *v) { (void)c; IB->free(IB->ctx, v); }
static void b_zero(void *c, struct solver_vec *y) { (void)c; C.calls++; pass(y, 1); IB->zero(IB->ctx, y); }
static void b_copy(void *c, struct solver_vec *y, const struct solver_vec *x) { (void)c; C.calls++; pass(y, 1); pass(x, 1); IB->copy(IB->ctx, y, x); }
static void b_scale(void *c, double a, struct solver_vec *y) { (void)c; C.calls++; pass(y, 2); IB->scale(IB->ctx, a, y); }
static void b_axpy(void *c, double a, const struct solver_vec *x, struct solver_vec *y) { (void)c; C.calls++; pass(x, 1); pass(y, 2); IB->axpy(IB->ctx, a, x, y); }
static void b_xpay(void *c, const struct solver_vec *x, double a, struct solver_vec *y) { (void)c; C.calls++; pass(x, 1); pass(y, 2); IB->xpay(IB->ctx, x, a, y); }
static void b_caxpby(void *c, solver_complex a, const struct solver_vec *x, solver_complex b, struct solver_vec *y)
{ (void)c; C.calls++; pass(x, 1); pass(y, 2); IB->caxpby(IB->ctx, a, x, b, y); }
static solver_complex b_cdot(void *c, const struct solver_vec *x, const struct solver_vec *y)
{ (void)c; C.calls++; C.reductions++; pass(x, 1); pass(y, 1); return IB->cdot(IB->ctx, x, y); }
static double b_norm2(void *c, const struct solver_vec *x) { (void)c; C.calls++; C.reductions++; pass(x, 1); return IB->norm2(IB->ctx, x); }
/* the fused kernels count as one call each (one launch on a GPU) */
static void b_multi_axpy(void *c, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    (void)c; C.calls++;
    for (int i = 0; i < n; i++) pass(x[i], 1), pass(y[i], 2);
    IB->multi_axpy(IB->ctx, n, a, x, y);
}
static void b_multi_caxpby(void *c, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                           struct solver_vec *const *y)
{
    (void)c; C.calls++; pass(x, 1);
    for (int i = 0; i < n; i++) pass(y[i], 2);
    IB->multi_caxpby(IB->ctx, n, a, x, b, y);
}
static double b_axpy_norm2(void *c, double a, const struct solver_vec *x, struct solver_vec *y)
{ (void)c; C.calls++; C.reductions++; pass(x, 1); pass(y, 2); return IB->axpy_norm2(IB->ctx, a, x, y); }
static solver_complex b_axpy_cdot(void *c, double a, const struct solver_vec *x, struct solver_vec *y)
{ (void)c; C.calls++; C.reductions++; pass(x, 1); pass(y, 2); return IB->axpy_cdot(IB->ctx, a, x, y); }

/* the history: the shared recursion's lines until the first line whose
 * iteration number falls (the per-shift true residuals after it); a base
 * shift refined at the very end would count as shared (it is not: it runs
 * to its tolerance with reliable updates) */
struct hist {
    int shared, last, over;
};
static void on_step(void *ctx, const struct solver_step *st)
{
    struct hist *h = ctx;
    if (st->reliable) C.true_residuals++;
    if (h->over) return;
    if (st->iteration < h->last) { h->over = 1; return; }
    h->last = st->iteration;
    if (!st->reliable && st->iteration > h->shared) h->shared = st->iteration;
}

struct model {
    double kd, kf, vd, vf, launch, sync;
};
static void print_counts(const char *what, const struct counts *c, double per, const struct model *m)
{
    const double kd = c->op_half_d / 2.0 * per, kf = c->op_half_f / 2.0 * per;
    const double us = kd * m->kd + kf * m->kf + per * (c->vec_passes_d * m->vd + c->vec_passes_f * m->vf) +
                      per * (c->calls + c->op_half_d + c->op_half_f) * m->launch + per * c->reductions * m->sync;
    printf("%-22s %7.0f %8.0f %6.0f %8.0f %8.0f %8.0f %8.0f %9.3f\n", what, per * c->shared, per * c->refine_iters,
           per * c->true_residuals, kd, kf, per * c->calls, per * c->reductions, us * 1e-6);
}

int main(int argc, char **argv)
{
    double mass = 0.0125, beta = 5.6, tol_md = 1e-8;
    int md_steps = 10, therm = 5, mixed = 1;
    int L[4] = {8, 8, 8, 8};
    struct model m = {92, 46, 2.9, 1.5, 4, 15};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name, fmt, dst) if (strcmp(a, name) == 0 && v) { if (sscanf(v, fmt, dst) != 1) goto usage; i++; continue; }
        OPT("--mass", "%lf", &mass) OPT("--beta", "%lf", &beta) OPT("--tol-md", "%lf", &tol_md)
        OPT("--md-steps", "%d", &md_steps) OPT("--therm", "%d", &therm) OPT("--k-double", "%lf", &m.kd)
        OPT("--k-single", "%lf", &m.kf) OPT("--vec-double", "%lf", &m.vd) OPT("--vec-single", "%lf", &m.vf)
        OPT("--launch", "%lf", &m.launch) OPT("--sync", "%lf", &m.sync)
#undef OPT
        if (strcmp(a, "--precision") == 0 && v) {
            if (strcmp(v, "mixed") != 0 && strcmp(v, "double") != 0) goto usage;
            mixed = strcmp(v, "mixed") == 0, i++;
            continue;
        }
        if (a[0] != '-' && !cli_parse_extents(a, L)) continue;
    usage:
        fprintf(stderr, "hmc_solve_counts: bad argument '%s' (see the file's header)\n", a);
        return 2;
    }
    struct lattice lat;
    const char *why0 = NULL;
    if (lattice_init(&lat, L, &why0)) { fprintf(stderr, "hmc_solve_counts: %s\n", why0); return 2; }
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 1);
    struct hmc_gauge_ctx g;
    struct hmc_monomial gm = hmc_gauge_monomial(&g, beta, 0);
    struct hmc_params hp = {{1.0, 10, 1}, 1};
    struct hmc_result hr;
    for (int t = 0; t < therm; t++) hmc_trajectory(&hp, &gm, 1, &u, (uint32_t)(100 + t), &hr, NULL);
    char why[256];
    double lo, hi;
    staggered_spectral_range(&u, mass, &lo, &hi);
    struct rational hb, md, met;
    if (rational_remez_tol(&hb, 2, 8, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&met, -2, 4, 1e-12, lo, hi, why, sizeof why) ||
        rational_remez_tol(&md, -2, 4, 1e-6, lo, hi, why, sizeof why)) {
        fprintf(stderr, "hmc_solve_counts: rationals: %s\n", why);
        return 1;
    }
    struct staggered_op *op = staggered_create(&u, mass, why, sizeof why);
    if (!op) { fprintf(stderr, "hmc_solve_counts: %s\n", why); return 1; }
    struct solver_op so, wo;
    staggered_solver_op_normal(&so, op);
    struct counted_op co = {&so};
    wo = (struct solver_op){so.n, so.site_reals, &co, c_apply, c_apply_dag, c_apply_f, c_apply_dag_f, NULL};
    IB = solver_blas_cpu_open(NULL);
    struct solver_blas wb = {NULL, b_alloc, b_free, b_zero, b_copy, b_scale, b_axpy, b_xpay, b_caxpby, b_cdot, b_norm2,
                             b_multi_axpy, b_multi_caxpby, b_axpy_norm2, b_axpy_cdot};
    const size_t n = so.n, hr_ = staggered_half_reals(op);
    double *b = calloc(n, sizeof *b), *phi = calloc(n, sizeof *phi), *xs[RATIONAL_MAX_ORDER];
    for (int i = 0; i < RATIONAL_MAX_ORDER; i++) xs[i] = calloc(n, sizeof(double));
    staggered_gaussian(op, 0, 1, 0, 1, b);
    printf("# %dx%dx%dx%d beta %g (%d quenched HMC trajectories from hot) mass %g, K in [%.4g, %.4g]; rationals: "
           "heatbath %d, action %d, MD %d poles; MD tol %g, %s\n",
           L[0], L[1], L[2], L[3], beta, therm, mass, lo, hi, hb.order, met.order, md.order, tol_md,
           mixed ? "mixed (single sloppy)" : "double");
    printf("# model (us): K double %g single %g, vector pass double %g single %g, launch %g, host wait %g\n", m.kd, m.kf,
           m.vd, m.vf, m.launch, m.sync);
    printf("%-22s %7s %8s %6s %8s %8s %8s %8s %9s\n", "solve (per trajectory)", "shared", "refine", "double", "K_double", "K_single", "calls", "waits", "model_s");
    struct { const char *what; const struct rational *r; double tol; int sloppy; double per; } kind[3] = {
        {"heatbath x1", &hb, 1e-12, 0, 1}, {"action x2", &met, 1e-12, 0, 2}, {"MD force", &md, tol_md, mixed, 2.0 * md_steps + 1}};
    struct counts total;
    memset(&total, 0, sizeof total);
    double ktot_d = 0, ktot_f = 0, tot_us = 0, allocs = 0;
    for (int k = 0; k < 3; k++) {
        memset(&C, 0, sizeof C);
        struct hist h = {0, 0, 0};
        struct solver_params par = {.tol = kind[k].tol, .max_iter = 100000,
                                    .sloppy = kind[k].sloppy ? SOLVER_SINGLE : SOLVER_DOUBLE, .history = on_step,
                                    .history_ctx = &h};
        struct solver_result res[RATIONAL_MAX_ORDER];
        /* the right-hand side: the heatbath's phi for the action and MD */
        const double *rhs = k == 0 ? b : phi;
        enum solver_status st = solver_multishift_cg(&wo, &wb, rhs, kind[k].r->order, kind[k].r->b, NULL, xs, &par, res);
        if (st != SOLVER_CONVERGED) { fprintf(stderr, "hmc_solve_counts: %s: %s\n", kind[k].what, solver_status_name(st)); return 1; }
        for (int i = 0; i < kind[k].r->order; i++)
            if (!(res[i].residual <= kind[k].tol)) {
                fprintf(stderr, "hmc_solve_counts: %s shift %d: true residual %g > %g\n", kind[k].what, i, res[i].residual, kind[k].tol);
                return 1;
            }
        if (k == 0) /* phi = r(K) eta on the even half (the monomial's refresh) */
            for (size_t j = 0; j < hr_; j++) {
                double s = hb.a0 * b[j];
                for (int i = 0; i < hb.order; i++) s += hb.a[i] * xs[i][j];
                phi[j] = s;
            }
        C.shared = h.shared;
        /* every iteration, shared or refining, is one K; the rest of the K are true residuals */
        C.refine_iters = (C.op_half_d + C.op_half_f) / 2 - C.shared - C.true_residuals;
        print_counts(kind[k].what, &C, kind[k].per, &m);
        allocs += C.allocs * kind[k].per;
        ktot_d += C.op_half_d / 2.0 * kind[k].per;
        ktot_f += C.op_half_f / 2.0 * kind[k].per;
        const double per = kind[k].per;
        tot_us += (C.op_half_d / 2.0 * m.kd + C.op_half_f / 2.0 * m.kf + C.vec_passes_d * m.vd + C.vec_passes_f * m.vf +
                   (C.calls + C.op_half_d + C.op_half_f) * m.launch + C.reductions * m.sync) * per;
    }
    printf("trajectory: K_double %.0f K_single %.0f K-equivalents (single = 1/2) %.0f; work vectors allocated %.0f; "
           "model %.3f s on 32^3x8 (a prediction from the constants, not a measurement; allocations not in it)\n",
           ktot_d, ktot_f, ktot_d + 0.5 * ktot_f, allocs, tot_us * 1e-6);
    for (int i = 0; i < RATIONAL_MAX_ORDER; i++) free(xs[i]);
    free(b);
    free(phi);
    solver_blas_cpu_close((struct solver_blas *)IB);
    staggered_free(op);
    field_free(&u);
    return 0;
}
