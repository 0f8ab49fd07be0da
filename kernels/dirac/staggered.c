/* dirac/staggered.c -- the public side of the staggered operator
 * (dirac/staggered.h): set-up (checks, neighbour tables, half-field site
 * lists, the links with eta_mu and the boundary sign folded in, double and
 * float copies), the applications as sequences of site loops of
 * dirac/staggered_cpu.c, the struct solver_op views and their reduction
 * layout.
 *
 * On a slab (u->dom set) the public vectors hold the owned sites only; each
 * application copies its input into a local field with the two halo slices
 * (op->pad_*; the intermediate of (M^dag M)_ee, op->tmp_*, is one too),
 * refreshes them (halo_refresh_raw, double or float as stored) and lets the
 * site loop write the owned sites: every site does the arithmetic of one
 * process, the same bits for any rank count.  Each application (and
 * staggered_create, staggered_set_links) is collective. */
#include "dirac/staggered.h"
#include "dirac/staggered_cpu.h"
#include "dirac/staggered_site.h"
#include "base/log.h"
#include "lattice/geometry.h"
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
    if (u->nc < 2 || u->nc > LAT_NC_MAX) return refuse(why, len, "the staggered operator needs SU(N), 2 <= N <= 8");
    const struct lattice *glob = geometry_global(u->dom, &u->lat);
    for (int mu = 0; mu < LAT_ND; mu++)
        if (glob->L[mu] < 2 || glob->L[mu] % 2)
            return refuse(why, len, "the staggered operator needs even lattice extents (eta phases, even-odd)");
    if (!(mass >= 0) || !isfinite(mass)) {
        snprintf(why, len, "the staggered mass must be a finite number >= 0, not %g", mass);
        return NULL;
    }
    struct staggered_op *op = (struct staggered_op *)calloc(1, sizeof *op);
    if (!op) return refuse(why, len, "out of memory");
    op->lat = u->lat;
    op->dom = u->dom;
    op->nc = u->nc;
    op->mass = mass;
    op->off = u->dom ? u->dom->v3 : 0;
    op->vo = u->dom ? u->dom->v3 * u->dom->lt : u->lat.V;
    op->vh = op->vo / 2;
    const int64_t V = u->lat.V;
    op->fwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->bwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->phase = (signed char *)lat_malloc((size_t)V * LAT_ND);
    /* the local lattice's t wrap is wrong only for the halo slices, whose t
     * neighbours no owned site reads; eta and the boundary sign are those of
     * the global site (halo slices included) */
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            op->fwd[4 * x + mu] = (int32_t)lattice_neighbour(&op->lat, x, mu, +1);
            op->bwd[4 * x + mu] = (int32_t)lattice_neighbour(&op->lat, x, mu, -1);
            op->phase[4 * x + mu] = (signed char)staggered_phase(glob, geometry_any_global_site(u->dom, x), mu);
        }
    /* Lx even (a slice of V3 sites, even): local sites 2i and 2i+1 share y,
     * z, t and differ in (global) parity */
    for (int par = 0; par < 2; par++) {
        op->half_site[par] = (int32_t *)lat_malloc((size_t)op->vh * sizeof(int32_t));
        for (int64_t i = 0; i < op->vh; i++) {
            const int64_t s0 = op->off + 2 * i;
            op->half_site[par][i] = (int32_t)(s0 + (geometry_parity(u->dom, &op->lat, s0) != par));
        }
    }
    const size_t nl = (size_t)V * LAT_ND * field_link_reals(op->nc);
    op->links_d = (double *)lat_malloc(nl * sizeof(double));
    op->links_f = (float *)lat_malloc(nl * sizeof(float));
    const size_t lhr = (size_t)(V / 2) * 2 * op->nc; /* a local half field */
    op->tmp_d = (double *)lat_calloc(lhr, sizeof(double));
    op->tmp_f = (float *)lat_calloc(lhr, sizeof(float));
    if (u->dom) {
        op->pad_d = (double *)lat_calloc(2 * lhr, sizeof(double));
        op->pad_f = (float *)lat_calloc(2 * lhr, sizeof(float));
    }
    staggered_set_links(op, u);
    return op;
}

void staggered_set_links(struct staggered_op *op, const struct field *u)
{
    if (u->kind != FIELD_LINKS || u->prec != 64 || u->nc != op->nc || u->lat.V != op->lat.V || u->dom != op->dom)
        lat_die(1, "staggered_set_links", "links of another shape than the operator's");
    const size_t lr = field_link_reals(op->nc), nl = (size_t)op->lat.V * LAT_ND * lr;
    const int64_t nlinks = op->lat.V * LAT_ND;
    memcpy(op->links_d, u->d, nl * sizeof(double));
    /* the halo slices as the neighbours hold them now (collective) */
    halo_refresh_raw(op->dom, op->links_d, sizeof(double), LAT_ND * lr);
#pragma omp parallel for schedule(static) if (nlinks >= 4096)
    for (int64_t l = 0; l < nlinks; l++) {
        const double s = op->phase[l];
        for (size_t k = 0; k < lr; k++) op->links_d[(size_t)l * lr + k] *= s;
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
    free(op->pad_d);
    free(op->pad_f);
    free(op);
}

double staggered_mass(const struct staggered_op *op) { return op->mass; }
int staggered_nc(const struct staggered_op *op) { return op->nc; }
const struct lattice *staggered_lattice(const struct staggered_op *op) { return &op->lat; }
size_t staggered_full_reals(const struct staggered_op *op) { return (size_t)op->vo * 2 * op->nc; }
size_t staggered_half_reals(const struct staggered_op *op) { return (size_t)op->vh * 2 * op->nc; }
size_t staggered_local_half_reals(const struct staggered_op *op) { return (size_t)(op->lat.V / 2) * 2 * op->nc; }
int64_t staggered_owned_sites(const struct staggered_op *op) { return op->vo; }
int64_t staggered_owned_offset(const struct staggered_op *op) { return op->off; }
int64_t staggered_half_site(const struct staggered_op *op, int parity, int64_t i)
{ return op->half_site[parity & 1][i] - op->off; }
int64_t staggered_global_site(const struct staggered_op *op, int64_t owned)
{ return geometry_global_site(op->dom, owned + op->off); }
int64_t staggered_global_volume(const struct staggered_op *op) { return geometry_global(op->dom, &op->lat)->V; }
const double *staggered_link(const struct staggered_op *op, int64_t x, int mu)
{
    return op->links_d + ((size_t)x * LAT_ND + mu) * field_link_reals(op->nc);
}

void staggered_reduce_layout(const struct staggered_op *op, int normal, struct solver_reduce_layout *l)
{
    const struct lattice *glob = geometry_global(op->dom, &op->lat);
    l->chunk_reals = (size_t)(glob->V / glob->L[3] / 2) * 2 * (size_t)op->nc;
    l->first_chunk = op->dom ? (size_t)op->dom->t0 : 0;
    l->total_chunks = (size_t)glob->L[3];
    l->parts = normal ? 2 : 1;
}

void staggered_full_to_half(const struct staggered_op *op, int parity, double *half, const double *full)
{
    const size_t sr = 2 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(half + (size_t)i * sr, full + (size_t)staggered_half_site(op, parity, i) * sr, sr * sizeof(double));
}

void staggered_half_to_full(const struct staggered_op *op, int parity, double *full, const double *half)
{
    const size_t sr = 2 * (size_t)op->nc;
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(full + (size_t)staggered_half_site(op, parity, i) * sr, half + (size_t)i * sr, sr * sizeof(double));
}

/* The input of a sweep with current halo slices: on one process in itself;
 * on a slab in copied into pad's owned slices (site_reals reals per full
 * site: 2n for a full field, n for a half field) and the halo slices
 * fetched from the neighbour ranks (collective). */
static const void *with_halo(const struct staggered_op *op, void *pad, const void *in, size_t esize, size_t site_reals)
{
    if (!op->dom) return in;
    const size_t slice = (size_t)op->dom->v3 * site_reals * esize;
    memcpy((char *)pad + slice, in, slice * (size_t)op->dom->lt);
    halo_refresh_raw(op->dom, pad, esize, site_reals);
    return pad;
}
/* the owned part of a local half field */
static void *owned_half(const struct staggered_op *op, void *local, size_t esize)
{ return (char *)local + (size_t)(op->off / 2) * 2 * (size_t)op->nc * esize; }

void staggered_half_with_halo(const struct staggered_op *op, double *local, const double *half)
{
    if (!op->dom) {
        memcpy(local, half, staggered_half_reals(op) * sizeof(double));
        return;
    }
    memcpy(owned_half(op, local, sizeof(double)), half, staggered_half_reals(op) * sizeof(double));
    halo_refresh_raw(op->dom, local, sizeof(double), (size_t)op->nc);
}

/* ---- applications ---------------------------------------------------------
 * M = m + D and M^dag = m - D: one full sweep; D_{p,1-p}: one half sweep;
 * (M^dag M)_ee: tmp_o = D_oe in, then out_e = m^2 in - D_eo tmp_o. */
void staggered_apply(struct staggered_op *op, double *out, const double *in)
{
    const struct staggered_sweep w = {-1, 0.5, op->mass};
    staggered_cpu_sweep_d(op, &w, out, with_halo(op, op->pad_d, in, sizeof(double), 2 * (size_t)op->nc), in);
}
void staggered_apply_dag(struct staggered_op *op, double *out, const double *in)
{
    const struct staggered_sweep w = {-1, -0.5, op->mass};
    staggered_cpu_sweep_d(op, &w, out, with_halo(op, op->pad_d, in, sizeof(double), 2 * (size_t)op->nc), in);
}
void staggered_hop(struct staggered_op *op, int parity, double *out, const double *in)
{
    const struct staggered_sweep w = {parity & 1, 0.5, 0};
    staggered_cpu_sweep_d(op, &w, out, with_halo(op, op->pad_d, in, sizeof(double), (size_t)op->nc), NULL);
}
void staggered_hop_f(struct staggered_op *op, int parity, float *out, const float *in)
{
    const struct staggered_sweep w = {parity & 1, 0.5, 0};
    staggered_cpu_sweep_s(op, &w, out, with_halo(op, op->pad_f, in, sizeof(float), (size_t)op->nc), NULL);
}

/* tmp (a local half field) receives D_oe in on its owned sites, then its
 * halo slices, and the second sweep reads it */
#define MDAGM_EE(name, T, sfx, tmp, pad)                                                          \
    void name(struct staggered_op *op, T *out, const T *in)                                       \
    {                                                                                             \
        const struct staggered_sweep w1 = {1, 0.5, 0};                                           \
        const struct staggered_sweep w2 = {0, -0.5, op->mass * op->mass};                         \
        const void *h = with_halo(op, op->pad, in, sizeof(T), (size_t)op->nc);                    \
        staggered_cpu_sweep_##sfx(op, &w1, owned_half(op, op->tmp, sizeof(T)), h, NULL);          \
        halo_refresh_raw(op->dom, op->tmp, sizeof(T), (size_t)op->nc);                            \
        staggered_cpu_sweep_##sfx(op, &w2, out, op->tmp, in);                                     \
    }
MDAGM_EE(staggered_mdagm_ee, double, d, tmp_d, pad_d)
MDAGM_EE(staggered_mdagm_ee_f, float, s, tmp_f, pad_f)

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
#define NORMAL_APPLY(name, T, sfx, pad)                                                     \
    static void name(void *c, T *o, const T *in)                                       \
    {                                                                                  \
        struct staggered_op *op = (struct staggered_op *)c;                            \
        const size_t hr = staggered_half_reals(op);                                    \
        const struct staggered_sweep w = {1, -0.5, 0};                                 \
        staggered_cpu_sweep_##sfx(op, &w, o + hr, with_halo(op, op->pad, in, sizeof(T), (size_t)op->nc), NULL); \
        for (size_t k = 0; k < hr; k++) o[k] = (T)(op->mass * in[k]);                  \
    }                                                                                  \
    static void name##_dag(void *c, T *o, const T *in)                                 \
    {                                                                                  \
        struct staggered_op *op = (struct staggered_op *)c;                            \
        const size_t hr = staggered_half_reals(op);                                    \
        const struct staggered_sweep w = {0, 0.5, op->mass};                           \
        staggered_cpu_sweep_##sfx(op, &w, o, with_halo(op, op->pad, in + hr, sizeof(T), (size_t)op->nc), in); \
        memset(o + hr, 0, hr * sizeof(T));                                             \
    }
NORMAL_APPLY(s_normal, double, d, pad_d)
NORMAL_APPLY(s_normal_f, float, s, pad_f)

void staggered_solver_op_normal(struct solver_op *s, struct staggered_op *op)
{
    *s = (struct solver_op){.n = staggered_full_reals(op), .site_reals = 2 * (size_t)op->nc, .ctx = op,
                            .apply = s_normal, .apply_dag = s_normal_dag, .apply_f = s_normal_f,
                            .apply_dag_f = s_normal_f_dag};
}
