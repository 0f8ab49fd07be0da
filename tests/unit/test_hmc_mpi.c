/* test_hmc_mpi -- the pieces of lat-hmc over MPI ranks (t-slabs,
 * lattice/geometry.h).  Runs alone (one process: the slab code paths reduce
 * to the whole lattice) or under mpirun -np R (tests/hmc-mpi.bats: R = 2, 4).
 *
 * On a Haar-random SU(3) field of 4^3 x 8 (field_set_random: the same links
 * for any R), every rank works on its slab and rank 0 gathers the owned
 * parts and compares them byte for byte with the same computation on the
 * whole lattice on rank 0 alone (what one process does, no collectives):
 *   - the staggered operator: M, M^dag, the hops D_eo and D_oe, (M^dag M)_ee
 *     in double and single, the normal view A and A^dag on [even | odd];
 *   - momenta (hmc_momenta_draw), kinetic energy, the gauge force and
 *     action, one link update followed by the gauge force again (the halo
 *     slices refreshed by hmc_link_update).
 * What goes through the solvers' reductions (multi-shift CG with the
 * staggered reduction layout, the staggered monomial's refresh, action and
 * force in exact and rational mode, the condensate, the spectral range)
 * cannot run on rank 0 alone under mpirun (the reductions are collective):
 * each prints a "value" line (hex floats, FNV-1a hashes of gathered
 * fields) that the bats test compares with the one-process run, and every
 * rank checks that all ranks hold the same number. */
#include "dirac/staggered.h"
#include "hmc/gauge.h"
#include "hmc/momenta.h"
#include "hmc/staggered_monomial.h"
#include "rational/rational.h"
#include "slabs.h"
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#define NC 3
#define SR (2 * NC)         /* reals of a staggered site */
#define LR (4 * 2 * NC * NC) /* reals of a site's links, momenta, forces */

/* a number every rank computed collectively: the same bits on all ranks,
 * printed for the comparison across R */
static void value(const char *what, double v)
{
    double mx = v, mn = -v;
    comm_max(&mx, 1);
    comm_max(&mn, 1);
    CHECK(mx == v && -mn == v, "%s: %.17g on this rank, max %.17g, min %.17g over the ranks", what, v, mx, -mn);
    if (comm_is_root()) printf("value %s %a\n", what, v);
}
static void value_hash(const struct geometry *d, const char *what, const void *own, size_t owned_bytes)
{
    const uint64_t hash = slabs_compare(d, what, own, NULL, owned_bytes);
    if (comm_is_root()) printf("value %s %016" PRIx64 "\n", what, hash);
}

static void site_vector(uint64_t g, int stream, double *v) { slabs_site_normals(78, stream, g, SR, v); }

static void test_operator(const struct geometry *d, const struct field *u, const struct field *w)
{
    const struct lattice *glob = geometry_global(d, &u->lat);
    char why[256];
    struct staggered_op *op = staggered_create(u, 0.3, why, sizeof why), *ref = NULL;
    CHECK(op != NULL, "staggered_create on the slab: %s", op ? "" : why);
    if (comm_is_root()) ref = staggered_create(w, 0.3, why, sizeof why);
    if (!op || (comm_is_root() && !ref)) return;
    const int64_t vo = staggered_owned_sites(op), V = glob->V, t0 = d ? d->t0 : 0, v3 = V / glob->L[3];
    CHECK(vo == v3 * (d ? d->lt : glob->L[3]) && staggered_full_reals(op) == (size_t)vo * SR &&
              staggered_half_reals(op) == (size_t)vo * SR / 2 && staggered_global_volume(op) == V,
          "owned sizes: %" PRId64 " sites, %zu and %zu reals", vo, staggered_full_reals(op), staggered_half_reals(op));
    const size_t nf = (size_t)vo * SR, nh = nf / 2, Nf = (size_t)V * SR, Nh = Nf / 2;
    double *in = malloc(nf * sizeof(double)), *out = malloc(nf * sizeof(double));
    float *inf = malloc(nf * sizeof(float)), *outf = malloc(nf * sizeof(float));
    for (int64_t s = 0; s < vo; s++) site_vector((uint64_t)(t0 * v3 + s), 0, in + (size_t)s * SR);
    for (size_t k = 0; k < nf; k++) inf[k] = (float)in[k];
    double *IN = NULL, *OUT = NULL;
    float *INF = NULL, *OUTF = NULL;
    if (ref) {
        IN = malloc(Nf * sizeof(double));
        OUT = malloc(Nf * sizeof(double));
        INF = malloc(Nf * sizeof(float));
        OUTF = malloc(Nf * sizeof(float));
        for (int64_t s = 0; s < V; s++) site_vector((uint64_t)s, 0, IN + (size_t)s * SR);
        for (size_t k = 0; k < Nf; k++) INF[k] = (float)IN[k];
    }
    /* a half field is the first half of the random full field (owned part:
     * its slab's share, t-ordered as the whole lattice's) */
#define APPLY(call, refcall, T, o, O, n, name) \
    call;                                     \
    if (ref) refcall;                         \
    slabs_compare(d, name, o, O, (n) * sizeof(T));
    APPLY(staggered_apply(op, out, in), staggered_apply(ref, OUT, IN), double, out, OUT, nf, "M")
    APPLY(staggered_apply_dag(op, out, in), staggered_apply_dag(ref, OUT, IN), double, out, OUT, nf, "Mdag")
    double *hin = malloc(nh * sizeof(double)), *HIN = ref ? malloc(Nh * sizeof(double)) : NULL;
    staggered_full_to_half(op, 1, hin, in);
    if (ref) staggered_full_to_half(ref, 1, HIN, IN);
    APPLY(staggered_hop(op, 0, out, hin), staggered_hop(ref, 0, OUT, HIN), double, out, OUT, nh, "D_eo")
    staggered_full_to_half(op, 0, hin, in);
    if (ref) staggered_full_to_half(ref, 0, HIN, IN);
    APPLY(staggered_hop(op, 1, out, hin), staggered_hop(ref, 1, OUT, HIN), double, out, OUT, nh, "D_oe")
    APPLY(staggered_mdagm_ee(op, out, hin), staggered_mdagm_ee(ref, OUT, HIN), double, out, OUT, nh, "MdagM_ee")
    /* single precision: the even half rounded */
    for (size_t k = 0; k < nh; k++) inf[k] = (float)hin[k];
    for (size_t k = 0; ref && k < Nh; k++) INF[k] = (float)HIN[k];
    APPLY(staggered_mdagm_ee_f(op, outf, inf), staggered_mdagm_ee_f(ref, OUTF, INF), float, outf, OUTF, nh,
          "MdagM_ee single")
    APPLY(staggered_hop_f(op, 1, outf, inf), staggered_hop_f(ref, 1, OUTF, INF), float, outf, OUTF, nh, "D_oe single")
#undef APPLY
    /* the normal view on [even | odd]: compared half by half (the gathered
     * even halves, then the odd ones) */
    struct solver_op A, AR;
    staggered_solver_op_normal(&A, op);
    if (ref) staggered_solver_op_normal(&AR, ref);
    double *nin = malloc(nf * sizeof(double)), *NIN = ref ? malloc(Nf * sizeof(double)) : NULL;
    for (int half = 0; half < 2; half++) {
        staggered_full_to_half(op, half, nin + half * nh, in);
        if (ref) staggered_full_to_half(ref, half, NIN + half * Nh, IN);
    }
    for (int dag = 0; dag < 2; dag++) {
        (dag ? A.apply_dag : A.apply)(op, out, nin);
        if (ref) (dag ? AR.apply_dag : AR.apply)(ref, OUT, NIN);
        for (int half = 0; half < 2; half++)
            slabs_compare(d, dag ? "normal view A^dag" : "normal view A", out + half * nh,
                          ref ? OUT + half * Nh : NULL, nh * sizeof(double));
    }
    free(nin);
    free(NIN);

    /* multi-shift CG on the normal view with the per-timeslice layout: the
     * same iterations and bits on any R (compared across R by the bats test) */
    struct solver_reduce_layout lay;
    staggered_reduce_layout(op, 1, &lay);
    struct solver_blas *blas = solver_blas_cpu_open(&lay);
    double *b = calloc(nf, sizeof(double)), *x[3];
    staggered_full_to_half(op, 0, b, in);
    const double sigma[3] = {0, 0.05, 0.7};
    for (int i = 0; i < 3; i++) x[i] = malloc(nf * sizeof(double));
    struct solver_params par = {.tol = 1e-10, .max_iter = 1000, .sloppy = SOLVER_DOUBLE};
    struct solver_result res[3];
    for (int mixed = 0; mixed < 2; mixed++) {
        par.sloppy = mixed ? SOLVER_SINGLE : SOLVER_DOUBLE;
        enum solver_status st = solver_multishift_cg(&A, blas, b, 3, sigma, NULL, x, &par, res);
        CHECK(st == SOLVER_CONVERGED, "multi-shift CG (%s): status %d", mixed ? "mixed" : "double", (int)st);
        for (int i = 0; i < 3; i++) {
            char name[64];
            snprintf(name, sizeof name, "multishift_%s_%d_iterations", mixed ? "mixed" : "double", i);
            value(name, res[i].iterations);
            snprintf(name, sizeof name, "multishift_%s_%d_x", mixed ? "mixed" : "double", i);
            value_hash(d, name, x[i], nh * sizeof(double)); /* the even half; the odd one stays 0 */
        }
    }
    solver_blas_cpu_close(blas);
    for (int i = 0; i < 3; i++) free(x[i]);
    free(b);
    free(in);
    free(out);
    free(inf);
    free(outf);
    free(hin);
    free(IN);
    free(OUT);
    free(INF);
    free(OUTF);
    free(HIN);
    staggered_free(op);
    staggered_free(ref);
}

/* momenta, kinetic energy, gauge force and action, link update */
static void test_gauge(const struct geometry *d, struct field *u, struct field *w)
{
    const int64_t ob = hmc_owned_begin(u), oe = hmc_owned_end(u);
    const int64_t V = geometry_global(d, &u->lat)->V;
    const size_t own = (size_t)(oe - ob) * LR, all = (size_t)V * LR;
    double *p = hmc_momenta_alloc(u), *f = hmc_momenta_alloc(u), *P = NULL, *F = NULL;
    hmc_momenta_draw(p, u, 5, 7);
    if (w->d) {
        P = hmc_momenta_alloc(w);
        F = hmc_momenta_alloc(w);
        hmc_momenta_draw(P, w, 5, 7);
    }
    slabs_compare(d, "momenta", p + (size_t)ob * LR, P, own * sizeof(double));
    const double T = hmc_kinetic_energy(p, u), S = hmc_gauge_action(u, 5.7);
    if (w->d) {
        CHECK(T == hmc_kinetic_energy(P, w), "kinetic energy %.17g, one process's %.17g", T, hmc_kinetic_energy(P, w));
        CHECK(S == hmc_gauge_action(w, 5.7), "gauge action %.17g, one process's %.17g", S, hmc_gauge_action(w, 5.7));
    }
    value("kinetic_energy", T);
    value("gauge_action", S);
    hmc_gauge_force(u, 5.7, 0.5, f);
    if (w->d) hmc_gauge_force(w, 5.7, 0.5, F);
    slabs_compare(d, "gauge force", f + (size_t)ob * LR, F, own * sizeof(double));
    /* a link update (halo slices refreshed inside), then the force again:
     * the staples of the slab's edge slices read the neighbours' new links */
    hmc_link_update(u, p, 0.1);
    if (w->d) hmc_link_update(w, P, 0.1);
    slabs_compare(d, "links after the update", field_link(u, ob, 0), w->d, own * sizeof(double));
    memset(f, 0, (size_t)u->lat.V * LR * sizeof(double));
    hmc_gauge_force(u, 5.7, 1, f);
    if (w->d) {
        memset(F, 0, all * sizeof(double));
        hmc_gauge_force(w, 5.7, 1, F);
    }
    slabs_compare(d, "gauge force after the update", f + (size_t)ob * LR, F, own * sizeof(double));
    value("gauge_action_after_update", hmc_gauge_action(u, 5.7));
    free(p);
    free(f);
    free(P);
    free(F);
}

/* the staggered monomial (exact and rational), the condensate and the
 * spectral range: collective, compared across R through the value lines */
static void test_fermions(const struct geometry *d, struct field *u)
{
    const int64_t ob = hmc_owned_begin(u), oe = hmc_owned_end(u);
    const size_t own = (size_t)(oe - ob) * LR;
    char why[256];
    double lo, hi;
    staggered_spectral_range(u, 0.3, &lo, &hi);
    value("spectral_hi", hi);
    CHECK(lo == 0.09 && hi > lo && hi <= 0.09 + 16, "spectral range [%g, %g]", lo, hi);
    double err;
    long iters;
    const double cond = staggered_condensate(u, 0.3, 3, 9, 2, &err, &iters);
    value("condensate", cond);
    value("condensate_error", err);
    value("condensate_iterations", (double)iters);
    struct rational hb, md, met;
    CHECK(rational_remez_tol(&hb, 1, 4, 1e-6, lo, hi, why, sizeof why) == 0 &&
              rational_remez_tol(&met, -1, 2, 1e-6, lo, hi, why, sizeof why) == 0 &&
              rational_remez_tol(&md, -1, 2, 1e-4, lo, hi, why, sizeof why) == 0,
          "rationals: %s", why);
    for (int rational = 0; rational < 2; rational++) {
        struct staggered_monomial_params sp = {.mass = 0.3, .nf = rational ? 2 : 4, .npf = 1, .tol_md = 1e-9,
                                               .tol_metropolis = 1e-11, .mixed = rational, .max_iter = 2000};
        if (rational) {
            sp.heatbath = &hb;
            sp.md = &md;
            sp.metropolis = &met;
        }
        struct hmc_monomial m;
        const int bad = staggered_monomial_create(&m, &sp, u, why, sizeof why);
        CHECK(bad == 0, "staggered monomial on the slab: %s", bad ? why : "");
        if (bad) continue;
        m.refresh(m.ctx, u, 3, 4);
        char name[64];
        snprintf(name, sizeof name, "%s_action", m.name);
        value(name, m.action(m.ctx, u));
        double *f = hmc_momenta_alloc(u);
        m.force(m.ctx, u, 0.25, f);
        snprintf(name, sizeof name, "%s_force", m.name);
        value_hash(d, name, f + (size_t)ob * LR, own * sizeof(double));
        snprintf(name, sizeof name, "%s_iterations", m.name);
        value(name, (double)m.iterations(m.ctx));
        free(f);
        staggered_monomial_free(&m);
    }
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    struct slabs s;
    slabs_open(&s, NC, 13);
    test_operator(s.d, &s.u, &s.w);
    test_gauge(s.d, &s.u, &s.w);
    test_fermions(s.d, &s.u);
    slabs_close(&s);
    int rc = comm_is_root() ? unit_done("test_hmc_mpi") : unit_fail != 0;
    fflush(stdout);
    comm_exit(rc);
}
