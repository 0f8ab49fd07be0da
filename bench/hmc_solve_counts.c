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
 *       [--tol-md R] [--precision double|mixed] [--therm T]
 *       [--bytes-lattice LXxLYxLZxLT] [LXxLYxLZxLT]
 *       defaults: 0.0125, 5.6, 10, 1e-8, mixed, 5 quenched trajectories, 8x8x8x8
 * Model constants (microseconds): --k-double 92 --k-single 46
 * --vec-double 2.9 --vec-single 1.5 (one pass over one vector of the
 * 32^3x8 normal view, from bench/blas_gpu's 193 us for 12 shifts)
 * --launch 4 --sync 15; the counts are scaled to 32^3x8 only through these
 * per-call costs (the iteration counts are the lattice's own).
 *
 * Bytes (issue 21 item 2): the counted calls priced with bench/gpu_bytes.h's
 * formulas, the ones bench/staggered_gpu and bench/blas_gpu report with,
 * for the vectors of --bytes-lattice (default the run's lattice; the
 * counts stay this lattice's): an operator half application (A or A^dag of
 * the normal view, links in 12 reals as lat-hmc --device gpu has them) 8
 * links + 11 colour vectors per even site the seed's way (neighbours
 * counted as loaded from memory; "layout" with the vectors' padding), a
 * vector call one pass over every stored real of each operand read and
 * of each vector written (gpu/spinor.h's storage: 8 reals a site; the
 * multi-shift's multi calls by gpu_bytes.h's bytes_ms_passes: the fused
 * x_i and p_i update, multi_axpy_caxpby, reads each p_i once).  Also
 * lat-hmc's cg_iterations (per solve the most iterations of any shift,
 * refinement included), to scale by a GPU run's count. */
#include "base/cli.h"
#include "dirac/staggered.h"
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "hmc/staggered_monomial.h"
#include "rational/rational.h"
#include "solvers/solvers.h"
#include "lattice/field.h"
#include "gpu_bytes.h"
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
    long most_iters; /* lat-hmc's cg_iterations: the most iterations of any shift */
    double vec_bytes_d, vec_bytes_f; /* GPU bytes of the vector calls (--bytes-lattice), by operand precision */
};
static struct counts C;

/* the GPU byte model (gpu_bytes.h) on the vectors of the --bytes-lattice */
#define HMC_GPU_RECON 12 /* staggered_gpu_solver_create's links (recon 0 = 12 reals) */
static double BYTES_SCALE = 1; /* sites of --bytes-lattice over the run's */

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
    const int64_t sites = (int64_t)((double)(v->n / v->site_reals) * BYTES_SCALE + 0.5);
    const double bytes = rw * bytes_vec_stored(sites, (int)v->site_reals, v->prec);
    if (v->prec == SOLVER_DOUBLE) C.vec_passes_d += rw, C.vec_bytes_d += bytes;
    else C.vec_passes_f += rw, C.vec_bytes_f += bytes;
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
/* the fused kernels count as one call each (one launch on a GPU); the
 * multi-shift's multi calls priced by gpu_bytes.h's bytes_ms_passes (the
 * passes of r, of each p_i, of each x_i) */
static void ms_passes(enum bytes_ms_call call, int n, const struct solver_vec *r, const struct solver_vec *const *p,
                      struct solver_vec *const *x)
{
    const struct bytes_ms_pass_counts k = bytes_ms_passes(call);
    C.calls++;
    if (k.shared) pass(r, k.shared);
    for (int i = 0; i < n; i++) {
        if (k.p) pass(p[i], k.p);
        if (k.x) pass(x[i], k.x);
    }
}
static void b_multi_axpy(void *c, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    (void)c;
    ms_passes(BYTES_MULTI_AXPY, n, NULL, x, y); /* x_i += a_i p_i: the x here are the p_i */
    IB->multi_axpy(IB->ctx, n, a, x, y);
}
static void b_multi_caxpby(void *c, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                           struct solver_vec *const *y)
{
    (void)c;
    ms_passes(BYTES_MULTI_CAXPBY, n, x, (const struct solver_vec *const *)y, NULL); /* p_i = a_i r + b_i p_i */
    IB->multi_caxpby(IB->ctx, n, a, x, b, y);
}
static void b_multi_axpy_caxpby(void *c, int n, const double *a, const struct solver_vec *x, const solver_complex *b,
                                const solver_complex *cc, struct solver_vec *const *p, struct solver_vec *const *y)
{
    (void)c;
    ms_passes(BYTES_MULTI_AXPY_CAXPBY, n, x, (const struct solver_vec *const *)p, y);
    IB->multi_axpy_caxpby(IB->ctx, n, a, x, b, cc, p, y);
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

/* the GPU bytes of the counted calls (gpu_bytes.h) per solve type and per
 * trajectory: the operator's half applications (8 links + 11 vectors per
 * even site the seed's way, and with the layout's padding), the vector
 * calls by operand precision; and lat-hmc's cg_iterations */
static void print_bytes(const char *const *what, const struct counts *c, const double *per, const int *LB, int64_t vh)
{
    double half_b[2][2]; /* [double, single][seed, layout]: one half application */
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < 2; l++)
            half_b[p][l] = bytes_stag_site(HMC_GPU_RECON, p ? SOLVER_SINGLE : SOLVER_DOUBLE, STAG_NORMAL_VECTORS, l) / 2 * (double)vh;
    printf("# GPU bytes on %dx%dx%dx%d (bench/gpu_bytes.h; counts of the run's lattice): K-equivalent of the normal view "
           "(A + A^dag) %.0f B double, %.0f B single per even site (%.0f, %.0f with the padding; the _ee K %.0f, %.0f), "
           "%d-real links; one vector pass %.0f B double, %.0f B single\n",
           LB[0], LB[1], LB[2], LB[3], 2 * half_b[0][0] / (double)vh, 2 * half_b[1][0] / (double)vh,
           2 * half_b[0][1] / (double)vh, 2 * half_b[1][1] / (double)vh,
           bytes_stag_site(HMC_GPU_RECON, SOLVER_DOUBLE, STAG_K_VECTORS, 0), bytes_stag_site(HMC_GPU_RECON, SOLVER_SINGLE, STAG_K_VECTORS, 0),
           HMC_GPU_RECON, bytes_vec_stored(2 * vh, 6, SOLVER_DOUBLE), bytes_vec_stored(2 * vh, 6, SOLVER_SINGLE));
    printf("%-22s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "GB (per trajectory)", "cg_iters", "op_double", "op_single",
           "vec_double", "vec_single", "operator", "vectors", "total", "op_layout");
    double t[8] = {0};
    for (int k = 0; k <= 3; k++) {
        double r[8];
        if (k < 3) {
            const double opd = c[k].op_half_d * half_b[0][0], opf = c[k].op_half_f * half_b[1][0];
            const double row[8] = {(double)c[k].most_iters, opd, opf, c[k].vec_bytes_d, c[k].vec_bytes_f, opd + opf,
                                   c[k].vec_bytes_d + c[k].vec_bytes_f,
                                   c[k].op_half_d * half_b[0][1] + c[k].op_half_f * half_b[1][1]};
            for (int j = 0; j < 8; j++) t[j] += r[j] = row[j] * per[k];
        } else memcpy(r, t, sizeof r);
        printf("%-22s %9.0f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", k < 3 ? what[k] : "trajectory", r[0],
               r[1] * 1e-9, r[2] * 1e-9, r[3] * 1e-9, r[4] * 1e-9, r[5] * 1e-9, r[6] * 1e-9, (r[5] + r[6]) * 1e-9,
               r[7] * 1e-9);
    }
}

int main(int argc, char **argv)
{
    double mass = 0.0125, beta = 5.6, tol_md = 1e-8;
    int md_steps = 10, therm = 5, mixed = 1;
    int L[4] = {8, 8, 8, 8}, LB[4] = {0, 0, 0, 0};
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
        if (strcmp(a, "--bytes-lattice") == 0 && v) {
            if (cli_parse_extents(v, LB)) goto usage;
            i++;
            continue;
        }
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
    if (!LB[0]) memcpy(LB, L, sizeof LB);
    struct lattice blat;
    if (lattice_init(&blat, LB, &why0)) { fprintf(stderr, "hmc_solve_counts: --bytes-lattice: %s\n", why0); return 2; }
    BYTES_SCALE = (double)blat.V / (double)lat.V;
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
    wo = (struct solver_op){so.n, so.site_reals, &co, c_apply, c_apply_dag, c_apply_f, c_apply_dag_f, NULL, 0, NULL};
    IB = solver_blas_cpu_open(NULL);
    struct solver_blas wb = {NULL, b_alloc, b_free, b_zero, b_copy, b_scale, b_axpy, b_xpay, b_caxpby, b_cdot, b_norm2,
                             b_multi_axpy, b_multi_caxpby, b_axpy_norm2, b_axpy_cdot,
                             b_multi_axpy_caxpby, NULL, NULL, NULL, NULL, NULL}; /* BiCGstab's fused kernels, the device loop: unused here */
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
    const char *kind_names[3] = {kind[0].what, kind[1].what, kind[2].what};
    const double pers[3] = {kind[0].per, kind[1].per, kind[2].per};
    struct counts total, per_kind[3];
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
        if (k == 0) rational_combine(&hb, hr_, b, xs, phi); /* phi = r(K) eta on the even half (the monomial's refresh) */
        C.shared = h.shared;
        for (int i = 0; i < kind[k].r->order; i++) C.most_iters = res[i].iterations > C.most_iters ? res[i].iterations : C.most_iters;
        per_kind[k] = C;
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
    print_bytes(kind_names, per_kind, pers, LB, blat.V / 2);
    for (int i = 0; i < RATIONAL_MAX_ORDER; i++) free(xs[i]);
    free(b);
    free(phi);
    solver_blas_cpu_close((struct solver_blas *)IB);
    staggered_free(op);
    field_free(&u);
    return 0;
}
