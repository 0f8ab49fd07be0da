/* test_dirac_mpi -- the Wilson-clover operator and its solves over MPI ranks
 * (kernels/dirac on t-slabs, lattice/geometry.h).  Runs alone (one process:
 * the slab code paths reduce to the whole lattice) or under mpirun -np R
 * (tests/mpi.bats: R = 2, 4).
 *
 * On a Haar-random SU(3) field of 4^3 x 8 (field_set_random: the same links
 * for any R) and a random spinor drawn per global site, every rank applies
 * M, M^dag, Mhat, Mhat^dag (double and single), the clover term and its
 * inverse, the even-odd preparation and reconstruction; rank 0 gathers the
 * slabs and compares them byte for byte with the same applications of an
 * operator built on the whole lattice on rank 0 alone (what one process
 * computes).  Then CG (normal equations) and BiCGstab on Mhat, double and
 * mixed, with the per-timeslice reduction layout (dirac_reduce_layout):
 * rank 0 checks the gathered solution's true residual with its whole-lattice
 * operator, and prints the iterations and an FNV-1a hash of each result --
 * the bats test compares these lines across R (identical bits).  Wilson (c_sw
 * 0) and clover (c_sw 1.769), antiperiodic in t. */
#include "dirac/dirac.h"
#include "slabs.h"
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#define NC 3
#define SR (8 * NC) /* reals of a full spinor site */

/* SR normals of the global site g (stream 0: full fields, 1: half fields,
 * g the global half index) */
static void site_spinor(uint64_t g, int stream, double *v) { slabs_site_normals(77, stream, g, SR, v); }

/* one application compared: the slab result gathered against the whole
 * lattice's, byte for byte; the hash printed for the bats test */
static void compare(const struct geometry *d, const char *what, double csw, const void *own, const void *ref,
                    size_t owned_bytes)
{
    char label[96];
    snprintf(label, sizeof label, "c_sw %g %s", csw, what);
    const uint64_t hash = slabs_compare(d, label, own, ref, owned_bytes);
    if (comm_is_root()) printf("csw %g %s %016" PRIx64 "\n", csw, what, hash);
}

static double rel_residual(struct dirac_op *ref, const double *b, const double *x, size_t n)
{
    double *r = malloc(n * sizeof(double)), nr = 0, nb = 0;
    dirac_eo_apply(ref, r, x);
    for (size_t i = 0; i < n; i++) {
        nr += (b[i] - r[i]) * (b[i] - r[i]);
        nb += b[i] * b[i];
    }
    free(r);
    return sqrt(nr / nb);
}

static void run(const struct geometry *d, const struct field *u, const struct field *w, double csw)
{
    const struct lattice *glob = geometry_global(d, &u->lat);
    struct dirac_params p;
    dirac_params_default(&p, 0.124, csw);
    char why[200];
    struct dirac_op *op = dirac_create(u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create on the slab: %s", op ? "" : why);
    struct dirac_op *ref = NULL;
    if (comm_is_root()) {
        ref = dirac_create(w, &p, why, sizeof why); /* one process's operator: no collectives */
        CHECK(ref != NULL, "dirac_create on the whole lattice: %s", ref ? "" : why);
    }
    if (!op || (comm_is_root() && !ref)) return;
    int t0;
    const int lt = dirac_owned_timeslices(op, &t0);
    const int64_t v3 = glob->V / glob->L[3], vo = v3 * lt, V = glob->V;
    CHECK(dirac_full_reals(op) == (size_t)vo * SR && dirac_half_reals(op) == (size_t)vo * SR / 2,
          "owned vector sizes: %zu, %zu reals for %" PRId64 " sites", dirac_full_reals(op), dirac_half_reals(op), vo);
    const size_t nf = (size_t)vo * SR, nh = nf / 2, Nf = (size_t)V * SR, Nh = Nf / 2;
    /* in: a full field, hin: a half field (its own random numbers, by
     * global half index); capitals: the whole lattice's, on rank 0 */
    double *in = malloc(nf * sizeof(double)), *out = malloc(nf * sizeof(double)), *hin = malloc(nh * sizeof(double));
    float *inf = malloc(nf * sizeof(float)), *outf = malloc(nf * sizeof(float)), *hinf = malloc(nh * sizeof(float));
    for (int64_t s = 0; s < vo; s++) site_spinor((uint64_t)(t0 * v3 + s), 0, in + (size_t)s * SR);
    for (int64_t s = 0; s < vo / 2; s++) site_spinor((uint64_t)(t0 * v3 / 2 + s), 1, hin + (size_t)s * SR);
    for (size_t k = 0; k < nf; k++) inf[k] = (float)in[k];
    for (size_t k = 0; k < nh; k++) hinf[k] = (float)hin[k];
    double *IN = NULL, *OUT = NULL, *HIN = NULL;
    float *INF = NULL, *OUTF = NULL, *HINF = NULL;
    if (ref) {
        IN = malloc(Nf * sizeof(double));
        OUT = malloc(Nf * sizeof(double));
        HIN = malloc(Nh * sizeof(double));
        INF = malloc(Nf * sizeof(float));
        OUTF = malloc(Nf * sizeof(float));
        HINF = malloc(Nh * sizeof(float));
        for (int64_t s = 0; s < V; s++) site_spinor((uint64_t)s, 0, IN + (size_t)s * SR);
        for (int64_t s = 0; s < V / 2; s++) site_spinor((uint64_t)s, 1, HIN + (size_t)s * SR);
        for (size_t k = 0; k < Nf; k++) INF[k] = (float)IN[k];
        for (size_t k = 0; k < Nh; k++) HINF[k] = (float)HIN[k];
    }
    /* full fields */
#define FULL(fn, T, i, o, I, O, name, half) \
    fn(op, o, i);                           \
    if (ref) fn(ref, O, I);                 \
    compare(d, name, csw, o, O, (half ? nh : nf) * sizeof(T));
    FULL(dirac_apply, double, in, out, IN, OUT, "M", 0)
    FULL(dirac_apply_dag, double, in, out, IN, OUT, "Mdag", 0)
    FULL(dirac_apply_f, float, inf, outf, INF, OUTF, "M_single", 0)
    FULL(dirac_apply_dag_f, float, inf, outf, INF, OUTF, "Mdag_single", 0)
    FULL(dirac_clover_apply, double, in, out, IN, OUT, "A", 0)
    FULL(dirac_clover_inv_apply, double, in, out, IN, OUT, "Ainv", 0)
    /* half fields of the odd sites */
    FULL(dirac_eo_apply, double, hin, out, HIN, OUT, "Mhat", 1)
    FULL(dirac_eo_apply_dag, double, hin, out, HIN, OUT, "Mhatdag", 1)
    FULL(dirac_eo_apply_f, float, hinf, outf, HINF, OUTF, "Mhat_single", 1)
    FULL(dirac_eo_apply_dag_f, float, hinf, outf, HINF, OUTF, "Mhatdag_single", 1)
#undef FULL
    dirac_eo_prepare(op, out, in);
    if (ref) dirac_eo_prepare(ref, OUT, IN);
    compare(d, "prepare", csw, out, OUT, nh * sizeof(double));
    dirac_eo_reconstruct(op, out, hin, in);
    if (ref) dirac_eo_reconstruct(ref, OUT, HIN, IN);
    compare(d, "reconstruct", csw, out, OUT, nf * sizeof(double));

    /* solves on Mhat: b = the odd half of the random field (owned part) */
    struct solver_op A;
    dirac_solver_op_eo(&A, op);
    struct solver_reduce_layout lay;
    dirac_reduce_layout(op, 1, &lay);
    struct solver_blas *blas = solver_blas_cpu_open(&lay);
    double *b = malloc(nh * sizeof(double)), *x = malloc(nh * sizeof(double));
    dirac_full_to_half(op, 1, b, in);
    double *B = NULL, *X = ref ? malloc(Nh * sizeof(double)) : NULL;
    if (ref) {
        B = malloc(Nh * sizeof(double));
        dirac_full_to_half(ref, 1, B, IN);
    }
    for (int k = 0; k < 4; k++) {
        const int bicg = k & 1;
        struct solver_params sp = {.tol = 1e-10, .max_iter = 500, .sloppy = k >= 2 ? SOLVER_SINGLE : SOLVER_DOUBLE};
        struct solver_result res;
        memset(x, 0, nh * sizeof(double));
        enum solver_status st = bicg ? solver_bicgstab(&A, blas, b, x, &sp, &res) : solver_cgne(&A, blas, b, x, &sp, &res);
        slabs_gather(d, x, X, nh * sizeof(double));
        if (comm_is_root()) {
            double tr = rel_residual(ref, B, X, Nh);
            CHECK(st == SOLVER_CONVERGED && tr <= 2e-10, "c_sw %g %s %s: status %d, true residual %.3g (one process's operator)",
                  csw, bicg ? "bicgstab" : "cgne", k >= 2 ? "mixed" : "double", (int)st, tr);
            printf("csw %g solve %s %s iterations %d reliable %d x %016" PRIx64 "\n", csw, bicg ? "bicgstab" : "cgne",
                   k >= 2 ? "mixed" : "double", res.iterations, res.reliable_updates, slabs_fnv(X, Nh * sizeof(double)));
        }
    }
    solver_blas_cpu_close(blas);
    free(b);
    free(x);
    free(B);
    free(X);
    free(in);
    free(hin);
    free(hinf);
    free(HIN);
    free(HINF);
    free(out);
    free(inf);
    free(outf);
    free(IN);
    free(OUT);
    free(INF);
    free(OUTF);
    dirac_free(op);
    dirac_free(ref);
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    struct slabs s;
    slabs_open(&s, NC, 11);
    run(s.d, &s.u, &s.w, 0);
    run(s.d, &s.u, &s.w, 1.769);
    slabs_close(&s);
    int rc = comm_is_root() ? unit_done("test_dirac_mpi") : unit_fail != 0;
    fflush(stdout);
    comm_exit(rc);
}
