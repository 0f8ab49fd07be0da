/* dirac/dirac.c -- the public side of the Dirac module (dirac/dirac.h): the
 * operator's set-up (checks, neighbour tables, the half-field site lists,
 * the links with the boundary phases folded in, double and float copies),
 * the applications of M, M^dag, Mhat, Mhat^dag, the even-odd source
 * preparation and solution reconstruction as sequences of site loops of
 * dirac/cpu.c, and the struct solver_op adapters. */
#include "dirac/dirac.h"
#include "dirac/cpu.h"
#include "dirac/site.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dirac_params_default(struct dirac_params *p, double kappa, double csw)
{
    memset(p, 0, sizeof *p);
    p->kappa = kappa;
    p->csw = csw;
    for (int mu = 0; mu < LAT_ND; mu++) p->phase[mu][0] = mu == 3 ? -1 : 1;
}

static struct dirac_op *refuse(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return NULL;
}

struct dirac_op *dirac_create(const struct field *u, const struct dirac_params *p, char *why, size_t len)
{
    if (u->kind != FIELD_LINKS || u->prec != 64 || !u->d)
        return refuse(why, len, "the Dirac operator needs a double-precision gauge-link field");
    if (u->dom) return refuse(why, len, "the Dirac operator runs on one process only (no MPI slabs yet)");
    if (u->nc < 2 || u->nc > LAT_NC_MAX) return refuse(why, len, "the Dirac operator needs SU(N), 2 <= N <= 8");
    for (int mu = 0; mu < LAT_ND; mu++)
        if (u->lat.L[mu] < 2 || u->lat.L[mu] % 2)
            return refuse(why, len, "the Dirac operator needs even lattice extents (even-odd half fields)");
    if (!(p->kappa > 0) || !isfinite(p->kappa)) {
        snprintf(why, len, "kappa must be a finite number > 0, not %g", p->kappa);
        return NULL;
    }
    if (!isfinite(p->csw)) return refuse(why, len, "c_sw must be finite");
    for (int mu = 0; mu < LAT_ND; mu++) {
        const double m = hypot(p->phase[mu][0], p->phase[mu][1]);
        if (!(fabs(m - 1) < 1e-12)) {
            snprintf(why, len, "the boundary phase of direction %d has modulus %g, not 1", mu, m);
            return NULL;
        }
    }
    struct dirac_op *op = (struct dirac_op *)calloc(1, sizeof *op);
    if (!op) return refuse(why, len, "out of memory");
    op->lat = u->lat;
    op->nc = u->nc;
    op->kappa = p->kappa;
    op->csw = p->csw;
    memcpy(op->phase, p->phase, sizeof op->phase);
    op->clover = p->csw != 0;
    const int64_t V = u->lat.V;
    const int n = u->nc;
    op->vh = V / 2;
    op->fwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->bwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    /* the boundary phase goes into U_mu(x) where the forward hop crosses */
    unsigned char *cross = (unsigned char *)lat_malloc((size_t)V * LAT_ND);
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            int cf, cb;
            op->fwd[4 * x + mu] = (int32_t)dirac_neighbour(&op->lat, x, mu, +1, &cf);
            op->bwd[4 * x + mu] = (int32_t)dirac_neighbour(&op->lat, x, mu, -1, &cb);
            cross[4 * x + mu] = (unsigned char)cf;
        }
    /* Lx even: sites 2i and 2i+1 share y, z, t and differ in parity */
    for (int par = 0; par < 2; par++) {
        op->half_site[par] = (int32_t *)lat_malloc((size_t)op->vh * sizeof(int32_t));
        for (int64_t i = 0; i < op->vh; i++)
            op->half_site[par][i] = (int32_t)(2 * i + (lattice_parity(&op->lat, 2 * i) != par));
    }
    const size_t lr = field_link_reals(n), nl = (size_t)V * LAT_ND * lr;
    op->links_d = (double *)lat_malloc(nl * sizeof(double));
    op->links_f = (float *)lat_malloc(nl * sizeof(float));
    memcpy(op->links_d, u->d, nl * sizeof(double));
    for (int64_t x = 0; x < V; x++) {
        for (int mu = 0; mu < LAT_ND; mu++) {
            if (!cross[4 * x + mu]) continue;
            const double pr = p->phase[mu][0], pi = p->phase[mu][1];
            double *l = op->links_d + ((size_t)x * LAT_ND + mu) * lr;
            for (size_t k = 0; k < lr; k += 2) {
                const double re = l[k], im = l[k + 1];
                l[k] = pr * re - pi * im;
                l[k + 1] = pr * im + pi * re;
            }
        }
    }
    free(cross);
    for (size_t k = 0; k < nl; k++) op->links_f[k] = (float)op->links_d[k];
    const size_t hr = (size_t)op->vh * 8 * n;
    op->tmp_d = (double *)lat_malloc(hr * sizeof(double));
    op->tmp_f = (float *)lat_malloc(hr * sizeof(float));
    if (op->clover && dirac_clover_build(op, u, why, len) != 0) {
        dirac_free(op);
        return NULL;
    }
    return op;
}

void dirac_free(struct dirac_op *op)
{
    if (!op) return;
    free(op->fwd);
    free(op->bwd);
    free(op->half_site[0]);
    free(op->half_site[1]);
    free(op->links_d);
    free(op->links_f);
    free(op->clov_d);
    free(op->clovinv_d);
    free(op->clov_f);
    free(op->clovinv_f);
    free(op->tmp_d);
    free(op->tmp_f);
    free(op);
}

size_t dirac_full_reals(const struct dirac_op *op) { return (size_t)op->lat.V * 8 * op->nc; }
size_t dirac_half_reals(const struct dirac_op *op) { return (size_t)op->vh * 8 * op->nc; }
int64_t dirac_half_site(const struct dirac_op *op, int parity, int64_t i) { return op->half_site[parity & 1][i]; }

void dirac_full_to_half(const struct dirac_op *op, int parity, double *half, const double *full)
{
    const size_t sr = 8 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(half + (size_t)i * sr, full + (size_t)op->half_site[parity & 1][i] * sr, sr * sizeof(double));
}

void dirac_half_to_full(const struct dirac_op *op, int parity, double *full, const double *half)
{
    const size_t sr = 8 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(full + (size_t)op->half_site[parity & 1][i] * sr, half + (size_t)i * sr, sr * sizeof(double));
}

/* ---- full lattice ---------------------------------------------------------- */
static struct dirac_sweep full_sweep(const struct dirac_op *op, int sign)
{
    struct dirac_sweep w = {.parity = -1, .sign = sign, .alpha = -op->kappa, .local = DIRAC_LOCAL_CLOVER};
    return w;
}

void dirac_apply(struct dirac_op *op, double *out, const double *in)
{
    const struct dirac_sweep w = full_sweep(op, +1);
    dirac_cpu_sweep_d(op, &w, out, in, in);
}
void dirac_apply_dag(struct dirac_op *op, double *out, const double *in)
{
    const struct dirac_sweep w = full_sweep(op, -1);
    dirac_cpu_sweep_d(op, &w, out, in, in);
}
void dirac_apply_f(struct dirac_op *op, float *out, const float *in)
{
    const struct dirac_sweep w = full_sweep(op, +1);
    dirac_cpu_sweep_s(op, &w, out, in, in);
}
void dirac_apply_dag_f(struct dirac_op *op, float *out, const float *in)
{
    const struct dirac_sweep w = full_sweep(op, -1);
    dirac_cpu_sweep_s(op, &w, out, in, in);
}

void dirac_clover_apply(const struct dirac_op *op, double *out, const double *in)
{ dirac_cpu_clover_d(op, -1, 0, out, in); }
void dirac_clover_inv_apply(const struct dirac_op *op, double *out, const double *in)
{ dirac_cpu_clover_d(op, -1, 1, out, in); }
const double *dirac_clover_site(const struct dirac_op *op, int64_t site, int inv)
{
    if (!op->clover) return NULL;
    return (inv ? op->clovinv_d : op->clov_d) + (size_t)site * CLOVER_SITE_REALS(op->nc);
}

/* ---- even-odd ---------------------------------------------------------------
 * Mhat in two site loops: tmp_e = A_ee^-1 D_eo in_o, then
 * out_o = A_oo in_o - kappa^2 D_oe tmp_e (sign -1: D^dag in both). */
static void eo_sweeps(const struct dirac_op *op, int sign, struct dirac_sweep *w1, struct dirac_sweep *w2)
{
    *w1 = (struct dirac_sweep){.parity = 0, .sign = sign, .alpha = 1, .local = DIRAC_LOCAL_NONE, .post_inv = 1};
    *w2 = (struct dirac_sweep){.parity = 1, .sign = sign, .alpha = -op->kappa * op->kappa, .local = DIRAC_LOCAL_CLOVER};
}

#define EO_APPLY(name, sign, T, sfx, tmp)                              \
    void name(struct dirac_op *op, T *out, const T *in)                 \
    {                                                                  \
        struct dirac_sweep w1, w2;                                     \
        eo_sweeps(op, sign, &w1, &w2);                                 \
        dirac_cpu_sweep_##sfx(op, &w1, op->tmp, in, NULL);             \
        dirac_cpu_sweep_##sfx(op, &w2, out, op->tmp, in);              \
    }
EO_APPLY(dirac_eo_apply, +1, double, d, tmp_d)
EO_APPLY(dirac_eo_apply_dag, -1, double, d, tmp_d)
EO_APPLY(dirac_eo_apply_f, +1, float, s, tmp_f)
EO_APPLY(dirac_eo_apply_dag_f, -1, float, s, tmp_f)

void dirac_eo_prepare(struct dirac_op *op, double *bhat_odd, const double *b_full)
{
    const size_t hr = dirac_half_reals(op);
    double *be = (double *)lat_malloc(hr * sizeof(double)), *bo = (double *)lat_malloc(hr * sizeof(double));
    dirac_full_to_half(op, 0, be, b_full);
    dirac_full_to_half(op, 1, bo, b_full);
    dirac_cpu_clover_d(op, 0, 1, op->tmp_d, be); /* A_ee^-1 b_e */
    const struct dirac_sweep w = {.parity = 1, .sign = +1, .alpha = op->kappa, .local = DIRAC_LOCAL_ONE};
    dirac_cpu_sweep_d(op, &w, bhat_odd, op->tmp_d, bo);
    free(be);
    free(bo);
}

void dirac_eo_reconstruct(struct dirac_op *op, double *x_full, const double *x_odd, const double *b_full)
{
    const size_t hr = dirac_half_reals(op);
    double *be = (double *)lat_malloc(hr * sizeof(double));
    dirac_full_to_half(op, 0, be, b_full);
    const struct dirac_sweep w = {.parity = 0, .sign = +1, .alpha = op->kappa, .local = DIRAC_LOCAL_ONE, .post_inv = 1};
    dirac_cpu_sweep_d(op, &w, op->tmp_d, x_odd, be);
    dirac_half_to_full(op, 0, x_full, op->tmp_d);
    dirac_half_to_full(op, 1, x_full, x_odd);
    free(be);
}

/* ---- the solver's view --------------------------------------------------- */
static void s_eo(void *c, double *o, const double *i) { dirac_eo_apply((struct dirac_op *)c, o, i); }
static void s_eo_dag(void *c, double *o, const double *i) { dirac_eo_apply_dag((struct dirac_op *)c, o, i); }
static void s_eo_f(void *c, float *o, const float *i) { dirac_eo_apply_f((struct dirac_op *)c, o, i); }
static void s_eo_dag_f(void *c, float *o, const float *i) { dirac_eo_apply_dag_f((struct dirac_op *)c, o, i); }
static void s_full(void *c, double *o, const double *i) { dirac_apply((struct dirac_op *)c, o, i); }
static void s_full_dag(void *c, double *o, const double *i) { dirac_apply_dag((struct dirac_op *)c, o, i); }
static void s_full_f(void *c, float *o, const float *i) { dirac_apply_f((struct dirac_op *)c, o, i); }
static void s_full_dag_f(void *c, float *o, const float *i) { dirac_apply_dag_f((struct dirac_op *)c, o, i); }

void dirac_solver_op_eo(struct solver_op *s, struct dirac_op *op)
{
    *s = (struct solver_op){.n = dirac_half_reals(op), .site_reals = 8 * (size_t)op->nc, .ctx = op,
                            .apply = s_eo, .apply_dag = s_eo_dag, .apply_f = s_eo_f, .apply_dag_f = s_eo_dag_f};
}

void dirac_solver_op_full(struct solver_op *s, struct dirac_op *op)
{
    *s = (struct solver_op){.n = dirac_full_reals(op), .site_reals = 8 * (size_t)op->nc, .ctx = op,
                            .apply = s_full, .apply_dag = s_full_dag, .apply_f = s_full_f, .apply_dag_f = s_full_dag_f};
}
