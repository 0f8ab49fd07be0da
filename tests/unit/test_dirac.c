/* test_dirac.c -- the Wilson(-clover) operators of kernels/dirac against
 * references written here independently (C99 complex, the DeGrand-Rossi
 * gamma matrices typed in from lat(7), the clover leaves as path products):
 *   - the gamma table of math/spinor.h (Clifford algebra, gamma_5, spin
 *     projection + reconstruction = (1 +- gamma_mu), sigma_mu_nu);
 *   - free field: M S = delta and M^dag S^dag = delta for the analytic
 *     momentum-space propagator S (a direct sum over momenta with p shifted
 *     by the boundary phases): periodic, antiperiodic in t, twisted;
 *     4^4 and 4^3 x 8, to 1e-12;
 *   - a hot field with c_sw != 0 and non-trivial phases: M equals a direct
 *     implementation of SPEC §8's formula (all mu,nu in the clover sum);
 *     <chi, M psi> = <M^dag chi, psi> and gamma5 M gamma5 = M^dag to 1e-14;
 *   - the clover term: Hermitian, zero off-chiral blocks, A^-1 A = 1 to
 *     1e-13, A = 1 for c_sw = 0;
 *   - gauge covariance M[U^g](g psi) = g M[U] psi to 1e-13 (SU(3) and SU(2));
 *   - even-odd: Mhat equals the Schur complement built from M applied to
 *     vectors on one parity, Mhat^dag its adjoint, prepare/reconstruct give
 *     back the x of b = M x;
 *   - single precision within 1e-6 relative of double (and not equal to it);
 *   - 1 and 2 OpenMP threads give the same bits (8^3 x 4: threaded loops);
 *     the solver_op adapters apply the operators they name;
 *     dirac_create's refusals. */
#include "dirac/dirac.h"
#include "dirac/site.h"
#include "lattice/gauge_transform.h"
#include "math/rng.h"
#include "unit.h"
#include "vec.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const double PI = 3.14159265358979323846;

/* DeGrand-Rossi, typed in: G[mu][row][col], mu = x, y, z, t */
static const cplx G[4][4][4] = {
    {{0, 0, 0, I}, {0, 0, I, 0}, {0, -I, 0, 0}, {-I, 0, 0, 0}},
    {{0, 0, 0, -1}, {0, 0, 1, 0}, {0, 1, 0, 0}, {-1, 0, 0, 0}},
    {{0, 0, I, 0}, {0, 0, 0, -I}, {-I, 0, 0, 0}, {0, I, 0, 0}},
    {{0, 0, 1, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}},
};
static const double G5[4] = {1, 1, -1, -1};

static void apply_gamma5(double *v, size_t sites, int nc)
{
    for (size_t x = 0; x < sites; x++)
        for (int s = 2; s < 4; s++)
            for (int k = 0; k < 2 * nc; k++) v[(x * 4 + s) * 2 * nc + k] *= -1;
}

/* ---- the gamma table ---------------------------------------------------- */
static void test_gamma(void)
{
    double worst = 0;
    for (int mu = 0; mu <= 4; mu++)
        for (int c = 0; c < 4; c++) {
            lat_complex e[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, o[4];
            e[c] = c_make(1, 0);
            spinor_gamma(1, mu, e, o);
            for (int r = 0; r < 4; r++) {
                cplx want = mu < 4 ? G[mu][r][c] : (r == c ? G5[r] : 0);
                worst = fmax(worst, cabs(o[r].re + I * o[r].im - want));
            }
        }
    CHECK(worst == 0, "spinor_gamma differs from the DeGrand-Rossi table by %g", worst);
    /* Clifford algebra and gamma_5 = gamma_x gamma_y gamma_z gamma_t */
    double cl = 0, g5 = 0;
    for (int mu = 0; mu < 4; mu++)
        for (int nu = 0; nu < 4; nu++)
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++) {
                    cplx s = 0;
                    for (int k = 0; k < 4; k++) s += G[mu][r][k] * G[nu][k][c] + G[nu][r][k] * G[mu][k][c];
                    cl = fmax(cl, cabs(s - (mu == nu && r == c ? 2 : 0)));
                }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            cplx s = 0;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    for (int d = 0; d < 4; d++) s += G[0][r][a] * G[1][a][b] * G[2][b][d] * G[3][d][c];
            g5 = fmax(g5, cabs(s - (r == c ? G5[r] : 0)));
        }
    CHECK(cl == 0 && g5 == 0, "Clifford algebra %g, gamma5 %g", cl, g5);
    /* projection + reconstruction = (1 + s gamma) psi; sigma_mu_nu */
    struct lat_rng rr;
    rng_init(&rr, 3, 0, 0, 0, RNG_TEST);
    double pe = 0, se = 0;
    for (int mu = 0; mu < 4; mu++)
        for (int s = -1; s <= 1; s += 2) {
            lat_complex psi[12], h[6], acc[12];
            for (int k = 0; k < 12; k++) { psi[k] = c_make(rng_normal(&rr), rng_normal(&rr)); acc[k] = c_make(0, 0); }
            spin_project(3, mu, s, psi, h);
            spin_reconstruct_acc(3, mu, s, h, acc);
            for (int r = 0; r < 4; r++)
                for (int a = 0; a < 3; a++) {
                    cplx want = psi[r * 3 + a].re + I * psi[r * 3 + a].im;
                    for (int c = 0; c < 4; c++) want += s * G[mu][r][c] * (psi[c * 3 + a].re + I * psi[c * 3 + a].im);
                    pe = fmax(pe, cabs(acc[r * 3 + a].re + I * acc[r * 3 + a].im - want));
                }
        }
    for (int mu = 0; mu < 4; mu++)
        for (int nu = 0; nu < 4; nu++) {
            lat_complex sg[16];
            sigma_munu(mu, nu, sg);
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++) {
                    cplx w = 0;
                    for (int k = 0; k < 4; k++) w += G[mu][r][k] * G[nu][k][c] - G[nu][r][k] * G[mu][k][c];
                    se = fmax(se, cabs(sg[r * 4 + c].re + I * sg[r * 4 + c].im - 0.5 * I * w));
                }
        }
    CHECK(pe < 1e-15, "spin projection/reconstruction differs from (1 + s gamma) psi by %g", pe);
    CHECK(se == 0, "sigma_munu differs from (i/2)[gamma_mu, gamma_nu] by %g", se);
}

/* ---- free field ---------------------------------------------------------- */
static void unit_field(struct field *u, const struct lattice *lat, int nc)
{
    field_alloc(u, lat, nc, 64);
    field_set_unit(u);
}

/* theta_mu of the phases */
static void free_field_case(int lt, const double theta[4], double kappa, const char *name)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, lt);
    struct field u;
    unit_field(&u, &lat, 3);
    struct dirac_params p;
    dirac_params_default(&p, kappa, 1.7); /* c_sw: F = 0 on the unit field */
    for (int mu = 0; mu < 4; mu++) { p.phase[mu][0] = cos(theta[mu]); p.phase[mu][1] = sin(theta[mu]); }
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create: %s", why);
    if (!op) return;
    const int64_t V = lat.V;
    const size_t nr = dirac_full_reals(op);
    double *S = calloc(nr, sizeof(double)), *SD = calloc(nr, sizeof(double)), *out = malloc(nr * sizeof(double));
    /* S(x)_{r beta} and S^dag(x)_{r beta} (colour diagonal) by the sum over momenta */
    cplx *s = calloc((size_t)V * 16, sizeof(cplx)), *sd = calloc((size_t)V * 16, sizeof(cplx));
    for (int64_t x = 0; x < V; x++) {
        int c[4], nm[4];
        lattice_coords(&lat, x, c);
        for (nm[3] = 0; nm[3] < lat.L[3]; nm[3]++)
            for (nm[2] = 0; nm[2] < 4; nm[2]++)
                for (nm[1] = 0; nm[1] < 4; nm[1]++)
                    for (nm[0] = 0; nm[0] < 4; nm[0]++) {
                        double pp[4], px = 0, a = 1, s2 = 0;
                        for (int mu = 0; mu < 4; mu++) {
                            pp[mu] = (2 * PI * nm[mu] + theta[mu]) / lat.L[mu];
                            px += pp[mu] * c[mu];
                            a -= 2 * kappa * cos(pp[mu]);
                            s2 += sin(pp[mu]) * sin(pp[mu]);
                        }
                        /* M(p) = a + 2 i kappa gamma.sin p, M(p)^-1 = (a - 2 i kappa gamma.sin p) / den;
                         * M^dag(p) = a - 2 i kappa gamma.sin p */
                        const double den = a * a + 4 * kappa * kappa * s2;
                        const cplx ph = cexp(I * px) / (double)V;
                        for (int r = 0; r < 4; r++)
                            for (int beta = 0; beta < 4; beta++) {
                                cplx gs = 0;
                                for (int mu = 0; mu < 4; mu++) gs += G[mu][r][beta] * sin(pp[mu]);
                                const cplx d = r == beta ? a : 0;
                                s[x * 16 + r * 4 + beta] += ph * (d - 2 * I * kappa * gs) / den;
                                sd[x * 16 + r * 4 + beta] += ph * (d + 2 * I * kappa * gs) / den;
                            }
                    }
    }
    double err = 0, errd = 0;
    for (int beta = 0; beta < 4; beta++)
        for (int b = 0; b < 3; b++) {
            memset(S, 0, nr * sizeof(double));
            memset(SD, 0, nr * sizeof(double));
            for (int64_t x = 0; x < V; x++)
                for (int r = 0; r < 4; r++) {
                    S[((x * 4 + r) * 3 + b) * 2] = creal(s[x * 16 + r * 4 + beta]);
                    S[((x * 4 + r) * 3 + b) * 2 + 1] = cimag(s[x * 16 + r * 4 + beta]);
                    SD[((x * 4 + r) * 3 + b) * 2] = creal(sd[x * 16 + r * 4 + beta]);
                    SD[((x * 4 + r) * 3 + b) * 2 + 1] = cimag(sd[x * 16 + r * 4 + beta]);
                }
            const size_t src = ((size_t)beta * 3 + b) * 2; /* site 0 */
            dirac_apply(op, out, S);
            for (size_t k = 0; k < nr; k++) err = fmax(err, fabs(out[k] - (k == src ? 1 : 0)));
            dirac_apply_dag(op, out, SD);
            for (size_t k = 0; k < nr; k++) errd = fmax(errd, fabs(out[k] - (k == src ? 1 : 0)));
        }
    free(s);
    free(sd);
    CHECK(err < 1e-12, "free field %s: M S - delta = %g", name, err);
    CHECK(errd < 1e-12, "free field %s: M^dag S^dag - delta = %g", name, errd);
    printf("free field %s: |M S - delta| %.2e, |M^dag S^dag - delta| %.2e\n", name, err, errd);
    free(S);
    free(SD);
    free(out);
    dirac_free(op);
    field_free(&u);
}

static void test_free_field(void)
{
    const double per[4] = {0, 0, 0, 0}, anti[4] = {0, 0, 0, PI}, twist[4] = {0.7, 0, -0.3, PI};
    free_field_case(4, per, 0.1237, "4^4 periodic");
    free_field_case(4, anti, 0.1237, "4^4 antiperiodic t");
    free_field_case(8, anti, 0.135, "4^3x8 antiperiodic t");
    free_field_case(8, twist, 0.11, "4^3x8 twisted x,z antiperiodic t");
}

/* ---- the reference operator: SPEC §8 literally ---------------------------- */
static cplx link_el(const struct field *u, int64_t x, int mu, int a, int b)
{
    const double *l = field_link(u, x, mu);
    return l[2 * (a * u->nc + b)] + I * l[2 * (a * u->nc + b) + 1];
}

/* the product of links along a path of signed steps (+mu+1 forward, -(mu+1)
 * backward) from x, into m (nc x nc) */
static void path(const struct field *u, int64_t x, const int *steps, int ns, cplx *m)
{
    const int n = u->nc;
    for (int k = 0; k < n * n; k++) m[k] = k % (n + 1) == 0;
    for (int s = 0; s < ns; s++) {
        const int mu = abs(steps[s]) - 1;
        cplx l[64], t[64];
        if (steps[s] > 0) {
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) l[a * n + b] = link_el(u, x, mu, a, b);
            x = lattice_neighbour(&u->lat, x, mu, +1);
        } else {
            x = lattice_neighbour(&u->lat, x, mu, -1);
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) l[a * n + b] = conj(link_el(u, x, mu, b, a));
        }
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                t[a * n + b] = 0;
                for (int k = 0; k < n; k++) t[a * n + b] += m[a * n + k] * l[k * n + b];
            }
        memcpy(m, t, sizeof(cplx) * n * n);
    }
}

/* the 4n x 4n clover matrix A(x) of SPEC §8, sum over all mu != nu */
static void ref_clover(const struct field *u, int64_t x, double csw, double kappa, cplx *A)
{
    const int n = u->nc, d = 4 * n;
    for (int k = 0; k < d * d; k++) A[k] = k % (d + 1) == 0;
    for (int mu = 0; mu < 4; mu++)
        for (int nu = 0; nu < 4; nu++) {
            if (mu == nu) continue;
            const int m1 = mu + 1, n1 = nu + 1;
            const int leaves[4][4] = {{m1, n1, -m1, -n1}, {n1, -m1, -n1, m1}, {-m1, -n1, m1, n1}, {-n1, m1, n1, -m1}};
            cplx Q[64] = {0}, F[64], P[64];
            for (int l = 0; l < 4; l++) {
                path(u, x, leaves[l], 4, P);
                for (int k = 0; k < n * n; k++) Q[k] += P[k];
            }
            for (int a = 0; a < n; a++)
                for (int b = 0; b < n; b++) F[a * n + b] = (Q[a * n + b] - conj(Q[b * n + a])) / 8;
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++) {
                    cplx sg = 0;
                    for (int k = 0; k < 4; k++) sg += G[mu][r][k] * G[nu][k][c] - G[nu][r][k] * G[mu][k][c];
                    sg *= 0.5 * I;
                    for (int a = 0; a < n; a++)
                        for (int b = 0; b < n; b++) A[(r * n + a) * d + c * n + b] += 0.5 * I * csw * kappa * sg * F[a * n + b];
                }
        }
}

static cplx vel(const double *v, int n, int64_t x, int s, int a)
{
    return v[((x * 4 + s) * n + a) * 2] + I * v[((x * 4 + s) * n + a) * 2 + 1];
}

/* out = M in, sign -1: M^dag (A Hermitian; D^dag has the projectors swapped) */
static void ref_apply(const struct field *u, const struct dirac_params *p, int sign, const double *in, double *out)
{
    const int n = u->nc, d = 4 * n;
    cplx A[32 * 32];
    for (int64_t x = 0; x < u->lat.V; x++) {
        int c[4];
        lattice_coords(&u->lat, x, c);
        ref_clover(u, x, p->csw, p->kappa, A);
        cplx o[32];
        for (int i = 0; i < d; i++) {
            o[i] = 0;
            for (int j = 0; j < d; j++) o[i] += A[i * d + j] * vel(in, n, x, j / n, j % n);
        }
        for (int mu = 0; mu < 4; mu++) {
            const cplx ph = p->phase[mu][0] + I * p->phase[mu][1];
            const int64_t xf = lattice_neighbour(&u->lat, x, mu, +1), xb = lattice_neighbour(&u->lat, x, mu, -1);
            const cplx pf = c[mu] == u->lat.L[mu] - 1 ? ph : 1, pb = c[mu] == 0 ? conj(ph) : 1;
            for (int r = 0; r < 4; r++)
                for (int a = 0; a < n; a++) {
                    cplx h = 0;
                    for (int s = 0; s < 4; s++) {
                        const cplx pm = (r == s) - sign * G[mu][r][s], pp = (r == s) + sign * G[mu][r][s];
                        if (pm == 0 && pp == 0) continue;
                        for (int b = 0; b < n; b++) {
                            h += pm * pf * link_el(u, x, mu, a, b) * vel(in, n, xf, s, b);
                            h += pp * pb * conj(link_el(u, xb, mu, b, a)) * vel(in, n, xb, s, b);
                        }
                    }
                    o[r * n + a] -= p->kappa * h;
                }
        }
        for (int i = 0; i < d; i++) {
            out[(x * d + i) * 2] = creal(o[i]);
            out[(x * d + i) * 2 + 1] = cimag(o[i]);
        }
    }
}

static void hot_field(struct field *u, const struct lattice *lat, int nc, uint64_t seed)
{
    field_alloc(u, lat, nc, 64);
    field_set_random(u, seed);
}

static void hot_params(struct dirac_params *p, double kappa, double csw)
{
    dirac_params_default(p, kappa, csw);
    p->phase[0][0] = cos(0.4);
    p->phase[0][1] = sin(0.4);
}

/* M against the reference, adjointness and gamma5-hermiticity on a hot field */
static void test_hot(int nc, double csw)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, nc, 11 + nc);
    struct dirac_params p;
    hot_params(&p, 0.124, csw);
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create: %s", why);
    if (!op) return;
    const size_t nr = dirac_full_reals(op);
    double *psi = malloc(nr * sizeof(double)), *chi = malloc(nr * sizeof(double)), *a = malloc(nr * sizeof(double)),
           *b = malloc(nr * sizeof(double)), *t = malloc(nr * sizeof(double));
    random_vec(psi, nr, 1);
    random_vec(chi, nr, 2);
    dirac_apply(op, a, psi);
    ref_apply(&u, &p, +1, psi, b);
    const double eref = rel_diff(a, b, nr);
    dirac_apply_dag(op, a, psi);
    ref_apply(&u, &p, -1, psi, b);
    const double erefd = rel_diff(a, b, nr);
    CHECK(eref < 1e-13 && erefd < 1e-13, "SU(%d) c_sw %g: M differs from SPEC's formula by %g, M^dag by %g", nc, csw,
          eref, erefd);
    /* <chi, M psi> = <M^dag chi, psi> */
    dirac_apply(op, a, psi);
    dirac_apply_dag(op, b, chi);
    const cplx l = dot(chi, a, nr), r = dot(b, psi, nr);
    const double eadj = cabs(l - r) / (norm(chi, nr) * norm(a, nr));
    /* gamma5 M gamma5 psi = M^dag psi, and <gamma5 chi, M gamma5 psi> = <M^dag chi, psi> */
    memcpy(t, psi, nr * sizeof(double));
    apply_gamma5(t, (size_t)lat.V, nc);
    dirac_apply(op, a, t);
    apply_gamma5(a, (size_t)lat.V, nc);
    dirac_apply_dag(op, b, psi);
    const double eg5 = rel_diff(a, b, nr);
    memcpy(t, chi, nr * sizeof(double));
    apply_gamma5(t, (size_t)lat.V, nc);
    apply_gamma5(a, (size_t)lat.V, nc); /* a = M gamma5 psi again */
    dirac_apply(op, b, chi); /* <gamma5 chi, M gamma5 psi> = <chi, M^dag psi> = <M chi, psi> */
    const double eg5d = cabs(dot(t, a, nr) - dot(b, psi, nr)) / (norm(t, nr) * norm(a, nr));
    CHECK(eadj < 1e-14, "SU(%d): <chi, M psi> - <M^dag chi, psi> = %g relative", nc, eadj);
    CHECK(eg5 < 1e-14 && eg5d < 1e-14, "SU(%d): gamma5 M gamma5 - M^dag = %g, %g relative", nc, eg5, eg5d);
    printf("hot SU(%d) c_sw %g: vs reference %.1e/%.1e, adjoint %.1e, gamma5 %.1e/%.1e\n", nc, csw, eref, erefd,
           eadj, eg5, eg5d);
    free(psi); free(chi); free(a); free(b); free(t);
    dirac_free(op);
    field_free(&u);
}

/* the clover term on a hot field: against the reference matrix, Hermitian,
 * chiral blocks, A^-1 A = 1; c_sw = 0: A = 1 */
static void test_clover(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    hot_field(&u, &lat, 3, 21);
    struct dirac_params p;
    dirac_params_default(&p, 0.13, 1.9);
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create: %s", why);
    if (!op) return;
    const size_t nr = dirac_full_reals(op);
    double *psi = malloc(nr * sizeof(double)), *a = malloc(nr * sizeof(double)), *b = malloc(nr * sizeof(double));
    random_vec(psi, nr, 5);
    dirac_clover_apply(op, a, psi);
    double eher = 0, eoff = 0, eapp = 0, ediff1 = 0;
    cplx A[144];
    for (int64_t x = 0; x < lat.V; x++) {
        ref_clover(&u, x, p.csw, p.kappa, A);
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 12; j++) {
                eher = fmax(eher, cabs(A[i * 12 + j] - conj(A[j * 12 + i])));
                if ((i < 6) != (j < 6)) eoff = fmax(eoff, cabs(A[i * 12 + j]));
                ediff1 = fmax(ediff1, cabs(A[i * 12 + j] - (i == j)));
            }
        for (int i = 0; i < 12; i++) {
            cplx o = 0;
            for (int j = 0; j < 12; j++) o += A[i * 12 + j] * vel(psi, 3, x, j / 3, j % 3);
            eapp = fmax(eapp, cabs(o - vel(a, 3, x, i / 3, i % 3)));
        }
    }
    CHECK(ediff1 > 0.1, "the hot field's clover term is too close to 1 (%g) to test anything", ediff1);
    CHECK(eher < 1e-15, "the clover matrix of SPEC §8 is not Hermitian: %g", eher);
    CHECK(eoff < 1e-15, "the clover matrix has off-chiral blocks of size %g in the DeGrand-Rossi basis", eoff);
    CHECK(eapp < 1e-13, "dirac_clover_apply differs from SPEC's A(x) by %g", eapp);
    /* Hermitian as applied, and A^-1 A = 1 */
    double *chi = malloc(nr * sizeof(double));
    random_vec(chi, nr, 6);
    dirac_clover_apply(op, b, chi);
    const double eh = cabs(dot(chi, a, nr) - dot(b, psi, nr)) / (norm(chi, nr) * norm(a, nr));
    dirac_clover_inv_apply(op, b, a);
    const double einv = rel_diff(b, psi, nr);
    dirac_clover_inv_apply(op, a, psi);
    dirac_clover_apply(op, b, a);
    const double einv2 = rel_diff(b, psi, nr);
    CHECK(eh < 1e-14, "<chi, A psi> - <A chi, psi> = %g", eh);
    CHECK(einv < 1e-13 && einv2 < 1e-13, "A^-1 A - 1 = %g, A A^-1 - 1 = %g", einv, einv2);
    printf("clover (max |A - 1| %.2f): Hermitian %.1e, vs SPEC %.1e, A^-1 A %.1e, A A^-1 %.1e\n", ediff1, eh, eapp,
           einv, einv2);
    dirac_free(op);
    /* c_sw = 0: A = 1 exactly */
    dirac_params_default(&p, 0.13, 0);
    op = dirac_create(&u, &p, why, sizeof why);
    dirac_clover_apply(op, a, psi);
    dirac_clover_inv_apply(op, b, psi);
    CHECK(memcmp(a, psi, nr * sizeof(double)) == 0 && memcmp(b, psi, nr * sizeof(double)) == 0,
          "c_sw = 0: A or A^-1 is not the identity");
    CHECK(dirac_clover_site(op, 0, 0) == NULL, "c_sw = 0 stores a clover term");
    dirac_free(op);
    free(psi); free(a); free(b); free(chi);
    field_free(&u);
}

/* M[U^g](g psi) = g M[U] psi */
static void g_times(int nc, int64_t V, const double *g, const double *in, double *out)
{
    for (int64_t x = 0; x < V; x++)
        for (int s = 0; s < 4; s++)
            for (int a = 0; a < nc; a++) {
                cplx o = 0;
                for (int b = 0; b < nc; b++)
                    o += (g[(x * nc * nc + a * nc + b) * 2] + I * g[(x * nc * nc + a * nc + b) * 2 + 1]) * vel(in, nc, x, s, b);
                out[((x * 4 + s) * nc + a) * 2] = creal(o);
                out[((x * 4 + s) * nc + a) * 2 + 1] = cimag(o);
            }
}

static void test_covariance(int nc)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 8);
    struct field u, ug;
    hot_field(&u, &lat, nc, 31);
    field_copy(&ug, &u);
    double *g = malloc(sizeof(double) * 2 * nc * nc * (size_t)lat.V);
    gauge_transform_random(nc, lat.V, 77, 0, g);
    gauge_transform_apply(&ug, g);
    struct dirac_params p;
    hot_params(&p, 0.125, 1.4);
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why), *opg = dirac_create(&ug, &p, why, sizeof why);
    CHECK(op && opg, "dirac_create: %s", why);
    if (!op || !opg) return;
    const size_t nr = dirac_full_reals(op);
    double *psi = malloc(nr * sizeof(double)), *gp = malloc(nr * sizeof(double)), *a = malloc(nr * sizeof(double)),
           *b = malloc(nr * sizeof(double));
    random_vec(psi, nr, 8);
    g_times(nc, lat.V, g, psi, gp);
    dirac_apply(opg, a, gp);
    dirac_apply(op, b, psi);
    g_times(nc, lat.V, g, b, psi);
    const double e = rel_diff(a, psi, nr);
    CHECK(e < 1e-13, "SU(%d): M[U^g] g psi - g M[U] psi = %g relative", nc, e);
    printf("gauge covariance SU(%d): %.1e\n", nc, e);
    free(psi); free(gp); free(a); free(b); free(g);
    dirac_free(op);
    dirac_free(opg);
    field_free(&u);
    field_free(&ug);
}

/* Mhat (or Mhat^dag, dag = 1) as the Schur complement of M's parity blocks:
 * y = M (0, psi_o) = (-kappa D_eo psi_o, A_oo psi_o), z = (A_ee^-1 y_e, 0),
 * (M z)_o = -kappa D_oe z_e, so Mhat psi_o = y_o - (M z)_o */
static void schur_by_blocks(struct dirac_op *op, int dag, const double *psi_o, double *out_o)
{
    const size_t nr = dirac_full_reals(op), hr = dirac_half_reals(op);
    double *P = calloc(nr, sizeof(double)), *y = malloc(nr * sizeof(double)), *z = malloc(nr * sizeof(double)),
           *h = malloc(hr * sizeof(double));
    dirac_half_to_full(op, 1, P, psi_o);
    (dag ? dirac_apply_dag : dirac_apply)(op, y, P);
    dirac_clover_inv_apply(op, z, y);
    dirac_full_to_half(op, 0, h, z);
    memset(P, 0, nr * sizeof(double));
    dirac_half_to_full(op, 0, P, h);
    (dag ? dirac_apply_dag : dirac_apply)(op, z, P);
    dirac_full_to_half(op, 1, out_o, y);
    dirac_full_to_half(op, 1, h, z);
    for (size_t k = 0; k < hr; k++) out_o[k] -= h[k];
    free(P); free(y); free(z); free(h);
}

static void test_even_odd(double csw)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 8);
    struct field u;
    hot_field(&u, &lat, 3, 41);
    struct dirac_params p;
    hot_params(&p, 0.12, csw);
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create: %s", why);
    if (!op) return;
    const size_t nr = dirac_full_reals(op), hr = dirac_half_reals(op);
    CHECK(hr * 2 == nr, "half field %zu reals, full %zu", hr, nr);
    int order = 1;
    for (int par = 0; par < 2; par++)
        for (int64_t i = 0; i < lat.V / 2; i++) {
            const int64_t s = dirac_half_site(op, par, i);
            order &= s / 2 == i && lattice_parity(&lat, s) == par;
        }
    CHECK(order, "the half field is not the sites of one parity in ILDG order (half index = site / 2)");
    double *psi = malloc(hr * sizeof(double)), *chi = malloc(hr * sizeof(double)), *a = malloc(hr * sizeof(double)),
           *b = malloc(hr * sizeof(double));
    random_vec(psi, hr, 9);
    random_vec(chi, hr, 10);
    dirac_eo_apply(op, a, psi);
    schur_by_blocks(op, 0, psi, b);
    const double es = rel_diff(a, b, hr);
    dirac_eo_apply_dag(op, a, psi);
    schur_by_blocks(op, 1, psi, b);
    const double esd = rel_diff(a, b, hr);
    dirac_eo_apply(op, a, psi);
    dirac_eo_apply_dag(op, b, chi);
    const double eadj = cabs(dot(chi, a, hr) - dot(b, psi, hr)) / (norm(chi, hr) * norm(a, hr));
    CHECK(es < 1e-13 && esd < 1e-13, "c_sw %g: Mhat differs from the Schur complement of M by %g (dagger %g)", csw, es,
          esd);
    CHECK(eadj < 1e-14, "c_sw %g: <chi, Mhat psi> - <Mhat^dag chi, psi> = %g", csw, eadj);
    /* b = M x: Mhat x_o = bhat_o, and the reconstruction gives x back */
    double *x = malloc(nr * sizeof(double)), *bf = malloc(nr * sizeof(double)), *xr = malloc(nr * sizeof(double)),
           *xo = malloc(hr * sizeof(double));
    random_vec(x, nr, 12);
    dirac_apply(op, bf, x);
    dirac_full_to_half(op, 1, xo, x);
    dirac_eo_prepare(op, a, bf);
    dirac_eo_apply(op, b, xo);
    const double eprep = rel_diff(b, a, hr);
    dirac_eo_reconstruct(op, xr, xo, bf);
    const double erec = rel_diff(xr, x, nr);
    CHECK(eprep < 1e-13, "c_sw %g: Mhat x_o - bhat_o = %g for b = M x", csw, eprep);
    CHECK(erec < 1e-13, "c_sw %g: the reconstructed x differs by %g", csw, erec);
    printf("even-odd c_sw %g: Schur %.1e (dagger %.1e), adjoint %.1e, prepare %.1e, reconstruct %.1e\n", csw, es, esd,
           eadj, eprep, erec);
    free(psi); free(chi); free(a); free(b); free(x); free(bf); free(xr); free(xo);
    dirac_free(op);
    field_free(&u);
}

/* single precision against double; 1 and 2 threads; the solver_op adapters */
static double rel_diff_f(const float *a, const double *b, size_t n)
{
    double d = 0;
    for (size_t k = 0; k < n; k++) d += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    return sqrt(d) / norm(b, n);
}

static void test_single_threads_adapter(void)
{
    struct lattice lat;
    make_lattice(&lat, 8, 8, 8, 4); /* 1024 sites per parity: the site loops run threaded */
    struct field u;
    hot_field(&u, &lat, 3, 51);
    struct dirac_params p;
    hot_params(&p, 0.126, 1.2);
    char why[256];
    struct dirac_op *op = dirac_create(&u, &p, why, sizeof why);
    CHECK(op != NULL, "dirac_create: %s", why);
    if (!op) return;
    const size_t nr = dirac_full_reals(op), hr = dirac_half_reals(op);
    double *psi = malloc(nr * sizeof(double)), *a = malloc(nr * sizeof(double)), *b = malloc(nr * sizeof(double));
    float *pf = malloc(nr * sizeof(float)), *af = malloc(nr * sizeof(float));
    random_vec(psi, nr, 13);
    for (size_t k = 0; k < nr; k++) psi[k] = (double)(pf[k] = (float)psi[k]); /* the same input in both */
    double e[4];
    dirac_apply(op, a, psi);
    dirac_apply_f(op, af, pf);
    e[0] = rel_diff_f(af, a, nr);
    dirac_apply_dag(op, a, psi);
    dirac_apply_dag_f(op, af, pf);
    e[1] = rel_diff_f(af, a, nr);
    dirac_eo_apply(op, a, psi);
    dirac_eo_apply_f(op, af, pf);
    e[2] = rel_diff_f(af, a, hr);
    dirac_eo_apply_dag(op, a, psi);
    dirac_eo_apply_dag_f(op, af, pf);
    e[3] = rel_diff_f(af, a, hr);
    for (int k = 0; k < 4; k++)
        CHECK(e[k] < 1e-6 && e[k] > 1e-10, "single precision %s differs from double by %g relative",
              (const char *[]){"M", "M^dag", "Mhat", "Mhat^dag"}[k], e[k]);
    printf("single vs double: M %.1e, M^dag %.1e, Mhat %.1e, Mhat^dag %.1e\n", e[0], e[1], e[2], e[3]);
    /* threads: the same bits */
#ifdef _OPENMP
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    dirac_apply(op, a, psi);
    dirac_eo_apply(op, a + hr, psi);
    dirac_apply_f(op, af, pf);
    omp_set_num_threads(2);
    dirac_apply(op, b, psi);
    dirac_eo_apply(op, b + hr, psi);
    float *bf = malloc(nr * sizeof(float));
    dirac_apply_f(op, bf, pf);
    CHECK(memcmp(a, b, nr * sizeof(double)) == 0, "M or Mhat: 1 and 2 threads give different bits");
    CHECK(memcmp(af, bf, nr * sizeof(float)) == 0, "M in single: 1 and 2 threads give different bits");
    free(bf);
    omp_set_num_threads(saved);
#endif
    /* the solver's view */
    struct solver_op so;
    dirac_solver_op_eo(&so, op);
    CHECK(so.n == hr && so.site_reals == 24 && so.n % so.site_reals == 0 && so.apply_f && so.apply_dag_f,
          "solver_op for Mhat: n %zu site_reals %zu", so.n, so.site_reals);
    so.apply(so.ctx, a, psi);
    dirac_eo_apply(op, b, psi);
    int same = memcmp(a, b, hr * sizeof(double)) == 0;
    so.apply_dag(so.ctx, a, psi);
    dirac_eo_apply_dag(op, b, psi);
    same &= memcmp(a, b, hr * sizeof(double)) == 0;
    dirac_solver_op_full(&so, op);
    CHECK(so.n == nr && so.site_reals == 24, "solver_op for M: n %zu", so.n);
    so.apply(so.ctx, a, psi);
    dirac_apply(op, b, psi);
    same &= memcmp(a, b, nr * sizeof(double)) == 0;
    so.apply_dag_f(so.ctx, af, pf);
    float *cf = malloc(nr * sizeof(float));
    dirac_apply_dag_f(op, cf, pf);
    same &= memcmp(af, cf, nr * sizeof(float)) == 0;
    CHECK(same, "the solver_op adapters do not apply the operator they name");
    free(cf);
    free(psi); free(a); free(b); free(pf); free(af);
    dirac_free(op);
    field_free(&u);
}

static void test_refusals(void)
{
    struct lattice lat;
    make_lattice(&lat, 4, 4, 4, 4);
    struct field u;
    unit_field(&u, &lat, 3);
    struct dirac_params p;
    char why[256];
    dirac_params_default(&p, 0, 0);
    CHECK(dirac_create(&u, &p, why, sizeof why) == NULL && strstr(why, "kappa"), "kappa 0 accepted (%s)", why);
    dirac_params_default(&p, -0.1, 0);
    CHECK(dirac_create(&u, &p, why, sizeof why) == NULL, "kappa < 0 accepted");
    dirac_params_default(&p, NAN, 0);
    CHECK(dirac_create(&u, &p, why, sizeof why) == NULL, "kappa NaN accepted");
    dirac_params_default(&p, 0.1, 0);
    p.phase[2][0] = 2;
    CHECK(dirac_create(&u, &p, why, sizeof why) == NULL && strstr(why, "modulus"), "phase 2 accepted (%s)", why);
    struct field t;
    field_alloc_kind(&t, FIELD_SPINOR, &lat, 3, 64);
    dirac_params_default(&p, 0.1, 0);
    CHECK(dirac_create(&t, &p, why, sizeof why) == NULL, "a spinor field accepted as links");
    field_free(&t);
    field_free(&u);
}

int main(void)
{
    test_gamma();
    test_free_field();
    test_hot(3, 1.769);
    test_hot(3, 0);
    test_hot(2, 1.0);
    test_clover();
    test_covariance(3);
    test_covariance(2);
    test_even_odd(0);
    test_even_odd(1.769);
    test_single_threads_adapter();
    test_refusals();
    return unit_done("test_dirac");
}
