/* dirac/staggered.c -- the public side of the staggered operator
 * (dirac/staggered.h): set-up (checks, neighbour tables, half-field site
 * lists, the links with eta_mu and the boundary sign folded in, double and
 * float copies), the applications as sequences of site loops of
 * dirac/staggered_cpu.c, and the struct solver_op views. */
#include "dirac/staggered.h"
#include "dirac/staggered_cpu.h"
#include "dirac/staggered_site.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct staggered_op *refuse(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return NULL;
}

struct staggered_op *staggered_create(const struct field *u, double mass, char *why, size_t len)
{
    if (u->kind != FIELD_LINKS || u->prec != 64 || !u->d)
        return refuse(why, len, "the staggered operator needs a double-precision gauge-link field");
    if (u->dom) return refuse(why, len, "the staggered operator runs on one process only (no MPI slabs yet)");
    if (u->nc < 2 || u->nc > LAT_NC_MAX) return refuse(why, len, "the staggered operator needs SU(N), 2 <= N <= 8");
    for (int mu = 0; mu < LAT_ND; mu++)
        if (u->lat.L[mu] < 2 || u->lat.L[mu] % 2)
            return refuse(why, len, "the staggered operator needs even lattice extents (eta phases, even-odd)");
    if (!(mass >= 0) || !isfinite(mass)) {
        snprintf(why, len, "the staggered mass must be a finite number >= 0, not %g", mass);
        return NULL;
    }
    struct staggered_op *op = (struct staggered_op *)calloc(1, sizeof *op);
    if (!op) return refuse(why, len, "out of memory");
    op->lat = u->lat;
    op->nc = u->nc;
    op->mass = mass;
    const int64_t V = u->lat.V;
    op->vh = V / 2;
    op->fwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->bwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->phase = (signed char *)lat_malloc((size_t)V * LAT_ND);
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            op->fwd[4 * x + mu] = (int32_t)lattice_neighbour(&op->lat, x, mu, +1);
            op->bwd[4 * x + mu] = (int32_t)lattice_neighbour(&op->lat, x, mu, -1);
            op->phase[4 * x + mu] = (signed char)staggered_phase(&op->lat, x, mu);
        }
    /* Lx even: sites 2i and 2i+1 share y, z, t and differ in parity */
    for (int par = 0; par < 2; par++) {
        op->half_site[par] = (int32_t *)lat_malloc((size_t)op->vh * sizeof(int32_t));
        for (int64_t i = 0; i < op->vh; i++)
            op->half_site[par][i] = (int32_t)(2 * i + (lattice_parity(&op->lat, 2 * i) != par));
    }
    const size_t nl = (size_t)V * LAT_ND * field_link_reals(op->nc);
    op->links_d = (double *)lat_malloc(nl * sizeof(double));
    op->links_f = (float *)lat_malloc(nl * sizeof(float));
    const size_t hr = staggered_half_reals(op);
    op->tmp_d = (double *)lat_malloc(hr * sizeof(double));
    op->tmp_f = (float *)lat_malloc(hr * sizeof(float));
    staggered_set_links(op, u);
    return op;
}

void staggered_set_links(struct staggered_op *op, const struct field *u)
{
    if (u->kind != FIELD_LINKS || u->prec != 64 || u->nc != op->nc || u->lat.V != op->lat.V || u->dom)
        lat_die(1, "staggered_set_links", "links of another shape than the operator's");
    const size_t lr = field_link_reals(op->nc), nl = (size_t)op->lat.V * LAT_ND * lr;
    const int64_t nlinks = op->lat.V * LAT_ND;
#pragma omp parallel for schedule(static) if (nlinks >= 4096)
    for (int64_t l = 0; l < nlinks; l++) {
        const double s = op->phase[l];
        for (size_t k = 0; k < lr; k++) op->links_d[(size_t)l * lr + k] = s * u->d[(size_t)l * lr + k];
    }
    for (size_t k = 0; k < nl; k++) op->links_f[k] = (float)op->links_d[k];
}

void staggered_free(struct staggered_op *op)
{
    if (!op) return;
    free(op->fwd);
    free(op->bwd);
    free(op->phase);
    free(op->half_site[0]);
    free(op->half_site[1]);
    free(op->links_d);
    free(op->links_f);
    free(op->tmp_d);
    free(op->tmp_f);
    free(op);
}

double staggered_mass(const struct staggered_op *op) { return op->mass; }
int staggered_nc(const struct staggered_op *op) { return op->nc; }
const struct lattice *staggered_lattice(const struct staggered_op *op) { return &op->lat; }
size_t staggered_full_reals(const struct staggered_op *op) { return (size_t)op->lat.V * 2 * op->nc; }
size_t staggered_half_reals(const struct staggered_op *op) { return (size_t)op->vh * 2 * op->nc; }
int64_t staggered_half_site(const struct staggered_op *op, int parity, int64_t i) { return op->half_site[parity & 1][i]; }
const double *staggered_link(const struct staggered_op *op, int64_t x, int mu)
{
    return op->links_d + ((size_t)x * LAT_ND + mu) * field_link_reals(op->nc);
}

void staggered_full_to_half(const struct staggered_op *op, int parity, double *half, const double *full)
{
    const size_t sr = 2 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(half + (size_t)i * sr, full + (size_t)op->half_site[parity & 1][i] * sr, sr * sizeof(double));
}

void staggered_half_to_full(const struct staggered_op *op, int parity, double *full, const double *half)
{
    const size_t sr = 2 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(full + (size_t)op->half_site[parity & 1][i] * sr, half + (size_t)i * sr, sr * sizeof(double));
}

/* ---- applications ---------------------------------------------------------
 * M = m + D and M^dag = m - D: one full sweep; D_{p,1-p}: one half sweep;
 * (M^dag M)_ee: tmp_o = D_oe in, then out_e = m^2 in - D_eo tmp_o. */
void staggered_apply(struct staggered_op *op, double *out, const double *in)
{
    const struct staggered_sweep w = {-1, 0.5, op->mass};
    staggered_cpu_sweep_d(op, &w, out, in, in);
}
void staggered_apply_dag(struct staggered_op *op, double *out, const double *in)
{
    const struct staggered_sweep w = {-1, -0.5, op->mass};
    staggered_cpu_sweep_d(op, &w, out, in, in);
}
void staggered_hop(struct staggered_op *op, int parity, double *out, const double *in)
{
    const struct staggered_sweep w = {parity & 1, 0.5, 0};
    staggered_cpu_sweep_d(op, &w, out, in, NULL);
}
void staggered_hop_f(struct staggered_op *op, int parity, float *out, const float *in)
{
    const struct staggered_sweep w = {parity & 1, 0.5, 0};
    staggered_cpu_sweep_s(op, &w, out, in, NULL);
}

#define MDAGM_EE(name, T, sfx, tmp)                                             \
    void name(struct staggered_op *op, T *out, const T *in)                     \
    {                                                                           \
        const struct staggered_sweep w1 = {1, 0.5, 0};                          \
        const struct staggered_sweep w2 = {0, -0.5, op->mass * op->mass};       \
        staggered_cpu_sweep_##sfx(op, &w1, op->tmp, in, NULL);                  \
        staggered_cpu_sweep_##sfx(op, &w2, out, op->tmp, in);                   \
    }
MDAGM_EE(staggered_mdagm_ee, double, d, tmp_d)
MDAGM_EE(staggered_mdagm_ee_f, float, s, tmp_f)

/* ---- the solver's views --------------------------------------------------- */
static void s_ee(void *c, double *o, const double *i) { staggered_mdagm_ee((struct staggered_op *)c, o, i); }
static void s_ee_f(void *c, float *o, const float *i) { staggered_mdagm_ee_f((struct staggered_op *)c, o, i); }

void staggered_solver_op_ee(struct solver_op *s, struct staggered_op *op)
{
    *s = (struct solver_op){.n = staggered_half_reals(op), .site_reals = 2 * (size_t)op->nc, .ctx = op,
                            .apply = s_ee, .apply_dag = s_ee, .apply_f = s_ee_f, .apply_dag_f = s_ee_f};
}

/* A = M^dag P_e on [even | odd]: (x_e, x_o) -> (m x_e, -D_oe x_e);
 * A^dag = P_e M: (y_e, y_o) -> (m y_e + D_eo y_o, 0) (D_eo = -(D_oe)^dag) */
#define NORMAL_APPLY(name, T, sfx)                                                     \
    static void name(void *c, T *o, const T *in)                                       \
    {                                                                                  \
        struct staggered_op *op = (struct staggered_op *)c;                            \
        const size_t hr = staggered_half_reals(op);                                    \
        const struct staggered_sweep w = {1, -0.5, 0};                                 \
        staggered_cpu_sweep_##sfx(op, &w, o + hr, in, NULL);                           \
        for (size_t k = 0; k < hr; k++) o[k] = (T)(op->mass * in[k]);                  \
    }                                                                                  \
    static void name##_dag(void *c, T *o, const T *in)                                 \
    {                                                                                  \
        struct staggered_op *op = (struct staggered_op *)c;                            \
        const size_t hr = staggered_half_reals(op);                                    \
        const struct staggered_sweep w = {0, 0.5, op->mass};                           \
        staggered_cpu_sweep_##sfx(op, &w, o, in + hr, in);                             \
        memset(o + hr, 0, hr * sizeof(T));                                             \
    }
NORMAL_APPLY(s_normal, double, d)
NORMAL_APPLY(s_normal_f, float, s)

void staggered_solver_op_normal(struct solver_op *s, struct staggered_op *op)
{
    *s = (struct solver_op){.n = staggered_full_reals(op), .site_reals = 2 * (size_t)op->nc, .ctx = op,
                            .apply = s_normal, .apply_dag = s_normal_dag, .apply_f = s_normal_f,
                            .apply_dag_f = s_normal_f_dag};
}
