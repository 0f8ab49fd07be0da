/* dirac/dirac.c -- the public side of the Dirac module (dirac/dirac.h): the
 * operator's set-up (checks, neighbour tables, the half-field site lists,
 * the links with the boundary phases folded in, double and float copies),
 * the applications of M, M^dag, Mhat, Mhat^dag, the even-odd source
 * preparation and solution reconstruction as sequences of site loops of
 * dirac/cpu.c, and the struct solver_op adapters.
 *
 * On a slab (u->dom set, lattice/geometry.h) the public vectors hold the
 * owned sites only; each application copies its input into a local field
 * with the two halo slices (op->pad_*, op->tmp_*), refreshes them
 * (halo_refresh_raw: the spinor's boundary slices to the neighbour ranks,
 * double or float as stored) and lets the site loops write the owned
 * sites.  Every site sees the arithmetic of one process: same bits for any
 * rank count.  Each application is collective (all ranks call it). */
#include "dirac/dirac.h"
#include "dirac/cpu.h"
#include "dirac/site.h"
#include "base/log.h"
#include "lattice/geometry.h"
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
    if (u->nc < 2 || u->nc > LAT_NC_MAX) return refuse(why, len, "the Dirac operator needs SU(N), 2 <= N <= 8");
    const struct lattice *glob = geometry_global(u->dom, &u->lat);
    for (int mu = 0; mu < LAT_ND; mu++)
        if (glob->L[mu] < 2 || glob->L[mu] % 2)
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
    op->dom = u->dom;
    op->off = u->dom ? u->dom->v3 : 0;
    op->vo = u->dom ? u->dom->v3 * u->dom->lt : u->lat.V;
    op->nc = u->nc;
    op->kappa = p->kappa;
    op->csw = p->csw;
    memcpy(op->phase, p->phase, sizeof op->phase);
    op->clover = p->csw != 0;
    const int64_t V = u->lat.V;
    const int n = u->nc;
    op->vh = op->vo / 2;
    op->fwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    op->bwd = (int32_t *)lat_malloc((size_t)V * LAT_ND * sizeof(int32_t));
    /* the boundary phase goes into U_mu(x) where the forward hop crosses
     * the global lattice's boundary (halo slices included: a backward hop
     * from the first owned slice reads U_t of the slice below).  On a slab
     * the local table's t wrap is wrong only for halo sites, whose t
     * neighbours no owned site uses. */
    unsigned char *cross = (unsigned char *)lat_malloc((size_t)V * LAT_ND);
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            int cf, cb, c[LAT_ND];
            op->fwd[4 * x + mu] = (int32_t)dirac_neighbour(&op->lat, x, mu, +1, &cf);
            op->bwd[4 * x + mu] = (int32_t)dirac_neighbour(&op->lat, x, mu, -1, &cb);
            if (u->dom) {
                lattice_coords(glob, geometry_any_global_site(u->dom, x), c);
                cf = c[mu] == glob->L[mu] - 1;
            }
            cross[4 * x + mu] = (unsigned char)cf;
        }
    /* Lx even (and a slice of V3 sites, even): local sites 2i and 2i+1
     * share y, z, t and differ in parity; the half index of the owned site
     * x is (x - off)/2 */
    for (int par = 0; par < 2; par++) {
        op->half_site[par] = (int32_t *)lat_malloc((size_t)op->vh * sizeof(int32_t));
        for (int64_t i = 0; i < op->vh; i++) {
            const int64_t s0 = op->off + 2 * i;
            op->half_site[par][i] = (int32_t)(s0 + (geometry_parity(u->dom, &op->lat, s0) != par));
        }
    }
    const size_t lr = field_link_reals(n), nl = (size_t)V * LAT_ND * lr;
    op->links_d = (double *)lat_malloc(nl * sizeof(double));
    op->links_f = (float *)lat_malloc(nl * sizeof(float));
    memcpy(op->links_d, u->d, nl * sizeof(double));
    /* the halo slices as the neighbours hold them now (collective) */
    halo_refresh_raw(u->dom, op->links_d, sizeof(double), LAT_ND * lr);
    const size_t hr = (size_t)(V / 2) * 8 * n;
    op->tmp_d = (double *)lat_calloc(hr, sizeof(double));
    op->tmp_f = (float *)lat_calloc(hr, sizeof(float));
    if (u->dom) {
        op->pad_d = (double *)lat_calloc((size_t)V * 8 * n, sizeof(double));
        op->pad_f = (float *)lat_calloc((size_t)V * 8 * n, sizeof(float));
    }
    /* the clover term from the links as given, before the phases go in */
    if (op->clover && dirac_clover_build(op, why, len) != 0) {
        free(cross);
        dirac_free(op);
        return NULL;
    }
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
    free(op->pad_d);
    free(op->pad_f);
    free(op);
}

size_t dirac_full_reals(const struct dirac_op *op) { return (size_t)op->vo * 8 * op->nc; }
size_t dirac_half_reals(const struct dirac_op *op) { return (size_t)op->vh * 8 * op->nc; }
size_t dirac_site_reals(const struct dirac_op *op) { return 8 * (size_t)op->nc; }
int64_t dirac_half_site(const struct dirac_op *op, int parity, int64_t i) { return op->half_site[parity & 1][i] - op->off; }

void dirac_reduce_layout(const struct dirac_op *op, int half, struct solver_reduce_layout *l)
{
    const struct lattice *glob = geometry_global(op->dom, &op->lat);
    const size_t v3 = (size_t)(glob->V / glob->L[3]);
    l->chunk_reals = (half ? v3 / 2 : v3) * 8 * (size_t)op->nc;
    l->first_chunk = op->dom ? (size_t)op->dom->t0 : 0;
    l->total_chunks = (size_t)glob->L[3];
    l->parts = 1;
}

int dirac_owned_timeslices(const struct dirac_op *op, int *t0)
{
    *t0 = op->dom ? op->dom->t0 : 0;
    return op->dom ? op->dom->lt : op->lat.L[3];
}

/* The input of a sweep with current halo slices: on one rank in itself; on
 * a slab in copied into pad's owned slices (site_reals reals a site, V3
 * sites a slice; a half field passes half the reals) and the halo slices
 * fetched from the neighbour ranks. */
static const void *with_halo(const struct dirac_op *op, void *pad, const void *in, size_t esize, size_t site_reals)
{
    if (!op->dom) return in;
    const size_t slice = (size_t)op->dom->v3 * site_reals * esize;
    memcpy((char *)pad + slice, in, slice * (size_t)op->dom->lt);
    halo_refresh_raw(op->dom, pad, esize, site_reals);
    return pad;
}
/* the owned part of a local half field (tmp) */
static void *owned_half(const struct dirac_op *op, void *tmp, size_t esize)
{ return (char *)tmp + (size_t)(op->off / 2) * 8 * (size_t)op->nc * esize; }

void dirac_full_to_half(const struct dirac_op *op, int parity, double *half, const double *full)
{
    const size_t sr = 8 * (size_t)op->nc;
#pragma omp parallel for schedule(static) /* a copy: any thread count gives the same bytes */
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(half + (size_t)i * sr, full + (size_t)dirac_half_site(op, parity, i) * sr, sr * sizeof(double));
}

void dirac_half_to_full(const struct dirac_op *op, int parity, double *full, const double *half)
{
    const size_t sr = 8 * (size_t)op->nc;
#pragma omp parallel for schedule(static) /* a copy: any thread count gives the same bytes */
    for (int64_t i = 0; i < op->vh; i++)
        memcpy(full + (size_t)dirac_half_site(op, parity, i) * sr, half + (size_t)i * sr, sr * sizeof(double));
}

/* ---- full lattice ---------------------------------------------------------- */
static struct dirac_sweep full_sweep(const struct dirac_op *op, int sign)
{
    struct dirac_sweep w = {.parity = -1, .sign = sign, .alpha = -op->kappa, .local = DIRAC_LOCAL_CLOVER};
    return w;
}

#define FULL_APPLY(name, sign, T, sfx, pad)                                          \
    void name(struct dirac_op *op, T *out, const T *in)                               \
    {                                                                                \
        const struct dirac_sweep w = full_sweep(op, sign);                           \
        const void *h = with_halo(op, op->pad, in, sizeof(T), 8 * (size_t)op->nc);   \
        dirac_cpu_sweep_##sfx(op, &w, out, h, in);                                   \
    }
FULL_APPLY(dirac_apply, +1, double, d, pad_d)
FULL_APPLY(dirac_apply_dag, -1, double, d, pad_d)
FULL_APPLY(dirac_apply_f, +1, float, s, pad_f)
FULL_APPLY(dirac_apply_dag_f, -1, float, s, pad_f)

void dirac_clover_apply(const struct dirac_op *op, double *out, const double *in)
{ dirac_cpu_clover_d(op, -1, 0, out, in); }
void dirac_clover_inv_apply(const struct dirac_op *op, double *out, const double *in)
{ dirac_cpu_clover_d(op, -1, 1, out, in); }
const double *dirac_clover_site(const struct dirac_op *op, int64_t site, int inv)
{
    if (!op->clover) return NULL;
    return (inv ? op->clovinv_d : op->clov_d) + (size_t)site * CLOVER_SITE_REALS(op->nc); /* owned index */
}

/* ---- even-odd ---------------------------------------------------------------
 * Mhat in two site loops: tmp_e = A_ee^-1 D_eo in_o, then
 * out_o = A_oo in_o - kappa^2 D_oe tmp_e (sign -1: D^dag in both). */
static void eo_sweeps(const struct dirac_op *op, int sign, struct dirac_sweep *w1, struct dirac_sweep *w2)
{
    *w1 = (struct dirac_sweep){.parity = 0, .sign = sign, .alpha = 1, .local = DIRAC_LOCAL_NONE, .post_inv = 1};
    *w2 = (struct dirac_sweep){.parity = 1, .sign = sign, .alpha = -op->kappa * op->kappa, .local = DIRAC_LOCAL_CLOVER};
}

#define EO_APPLY(name, sign, T, sfx, tmp, pad)                                              \
    void name(struct dirac_op *op, T *out, const T *in)                                     \
    {                                                                                      \
        struct dirac_sweep w1, w2;                                                         \
        const size_t hsr = 4 * (size_t)op->nc; /* a half field's reals per full site */   \
        eo_sweeps(op, sign, &w1, &w2);                                                     \
        const void *h = with_halo(op, op->pad, in, sizeof(T), hsr);                        \
        dirac_cpu_sweep_##sfx(op, &w1, owned_half(op, op->tmp, sizeof(T)), h, NULL);       \
        if (op->dom) halo_refresh_raw(op->dom, op->tmp, sizeof(T), hsr);                   \
        dirac_cpu_sweep_##sfx(op, &w2, out, op->tmp, in);                                  \
    }
EO_APPLY(dirac_eo_apply, +1, double, d, tmp_d, pad_d)
EO_APPLY(dirac_eo_apply_dag, -1, double, d, tmp_d, pad_d)
EO_APPLY(dirac_eo_apply_f, +1, float, s, tmp_f, pad_f)
EO_APPLY(dirac_eo_apply_dag_f, -1, float, s, tmp_f, pad_f)

void dirac_eo_prepare(struct dirac_op *op, double *bhat_odd, const double *b_full)
{
    const size_t hr = dirac_half_reals(op);
    double *be = (double *)lat_malloc(hr * sizeof(double)), *bo = (double *)lat_malloc(hr * sizeof(double));
    dirac_full_to_half(op, 0, be, b_full);
    dirac_full_to_half(op, 1, bo, b_full);
    dirac_cpu_clover_d(op, 0, 1, owned_half(op, op->tmp_d, sizeof(double)), be); /* A_ee^-1 b_e */
    if (op->dom) halo_refresh_raw(op->dom, op->tmp_d, sizeof(double), 4 * (size_t)op->nc);
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
    const void *h = with_halo(op, op->pad_d, x_odd, sizeof(double), 4 * (size_t)op->nc);
    double *xe = owned_half(op, op->tmp_d, sizeof(double));
    dirac_cpu_sweep_d(op, &w, xe, h, be);
    dirac_half_to_full(op, 0, x_full, xe);
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
