/* dirac/staggered_gpu.c -- the host side of the GPU staggered operator
 * (dirac/staggered_gpu.h): set-up (checks, the double and float device
 * links, the odd scratch fields), the applications as launches of
 * staggered_gpu_sweep_{d,s} (staggered_gpu_impl.h), on a t-slab with the
 * faces packed, exchanged (device to device through gpu/peer.h, else
 * staged through the host and MPI) and the interior and boundary launched
 * (staggered_gpu_run), and the struct solver_op views.  Plain C.  Without CUDA (make CUDA=0) create answers
 * NULL, "this lat was built without CUDA", and nothing else is reachable. */
#include "dirac/staggered_gpu.h"
#include "dirac/staggered_gpu_impl.h"
#include "base/log.h"
#include <stdio.h>

#ifndef LAT_HAVE_CUDA

struct staggered_gpu *staggered_gpu_create(const struct staggered_op *cpu, const struct field *u, int recon, char *why,
                                           size_t len)
{
    (void)cpu, (void)u, (void)recon;
    snprintf(why, len, "this lat was built without CUDA");
    return NULL;
}
static void no_gpu(const char *where) { lat_die(1, where, "internal error: no GPU operator exists without CUDA"); }
void staggered_gpu_set_links(struct staggered_gpu *g, const struct field *u) { (void)g, (void)u, no_gpu("staggered_gpu_set_links"); }
void staggered_gpu_free(struct staggered_gpu *g) { (void)g; }
int64_t staggered_gpu_half_sites(const struct staggered_gpu *g) { (void)g, no_gpu("staggered_gpu_half_sites"); return 0; }
int staggered_gpu_recon(const struct staggered_gpu *g) { (void)g, no_gpu("staggered_gpu_recon"); return 0; }
void staggered_gpu_ee_apply(struct staggered_gpu *g, enum solver_prec prec, struct solver_vec *out,
                            const struct solver_vec *in)
{
    (void)g, (void)prec, (void)out, (void)in, no_gpu("staggered_gpu_ee_apply");
}
void staggered_gpu_solver_op_ee(struct solver_op *s, struct staggered_gpu *g) { (void)s, (void)g, no_gpu("staggered_gpu_solver_op_ee"); }
void staggered_gpu_solver_op_normal(struct solver_op *s, struct staggered_gpu *g)
{
    (void)s, (void)g, no_gpu("staggered_gpu_solver_op_normal");
}

#else

#include "gpu/gpu.h"
#include "dirac/gpu_faces.h"
#include "gpu/spinor.h"
#include "lattice/geometry.h"
#include "base/comm.h"
#include <stdlib.h>
#include <string.h>

static struct staggered_gpu *refuse(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return NULL;
}

static const size_t vec_real_bytes[3] = {sizeof(double), sizeof(float), sizeof(int16_t)};

/* the owned slices of u (a slab) as a field of their own: the device's
 * lattice (t0 even: local parity = global parity, half index = the CPU's
 * owned half index) */
static void owned_slices(struct field *own, const struct field *u)
{
    const struct geometry *d = u->dom;
    const int L[4] = {u->lat.L[0], u->lat.L[1], u->lat.L[2], d->lt};
    struct lattice lat;
    const char *lwhy;
    if (lattice_init(&lat, L, &lwhy) != 0) lat_die(1, "GPU staggered", "the slab's lattice: %s", lwhy);
    field_alloc(own, &lat, u->nc, 64);
    memcpy(own->d, field_link(u, d->v3 * geometry_t_begin(d), 0),
           (size_t)lat.V * LAT_ND * field_link_reals(u->nc) * sizeof(double));
}

struct staggered_gpu *staggered_gpu_create(const struct staggered_op *cpu, const struct field *u, int recon, char *why,
                                           size_t len)
{
    if (staggered_nc(cpu) != 3) return refuse(why, len, "the GPU staggered operator is SU(3) only");
    if (u->kind != FIELD_LINKS || u->prec != 64 || !u->d || u->nc != 3)
        return refuse(why, len, "the GPU staggered operator needs double SU(3) links");
    const struct lattice *lat = staggered_lattice(cpu);
    for (int mu = 0; mu < LAT_ND; mu++)
        if (u->lat.L[mu] != lat->L[mu]) return refuse(why, len, "the links' lattice is not the CPU operator's");
    if (u->dom && u->dom->lt % 2) {
        snprintf(why, len, "the GPU staggered operator on a slab needs an even number of timeslices per rank (%d here)",
                 u->dom->lt);
        return NULL;
    }
    if (recon == 0) recon = GPU_RECON_12;
    if (recon != GPU_RECON_12 && recon != GPU_RECON_FULL && recon != GPU_RECON_8) {
        snprintf(why, len, "link compression %d: the GPU staggered operator stores links in 12, 18 or 8 reals", recon);
        return NULL;
    }
    char gwhy[256];
    if (!gpu_available(gwhy, sizeof gwhy)) {
        snprintf(why, len, "no GPU for the staggered operator: %s", gwhy);
        return NULL;
    }
    struct staggered_gpu *g = calloc(1, sizeof *g);
    if (!g) return refuse(why, len, "out of memory");
    g->mass = staggered_mass(cpu);
    g->recon = recon;
    struct field own = *u;
    if (u->dom) {
        const struct geometry *d = u->dom;
        owned_slices(&own, u);
        g->dom = d;
        g->tg0 = d->t0;
        g->ltg = d->global.L[3];
        g->faces = (struct gpu_faces *)lat_calloc(1, sizeof *g->faces);
        gpu_faces_open(g->faces, d, (size_t)(own.lat.V / 2 / d->lt) * STAGGERED_GPU_SITE_REALS * sizeof(double),
                       "the staggered operator's faces");
        /* LAT_GPU_K_ORDER=sweeps (for timing): K's sweeps one after the other (staggered_gpu_ee_apply) */
        const char *e = getenv("LAT_GPU_K_ORDER");
        g->sweeps_in_order = e && strcmp(e, "sweeps") == 0;
    }
    g->lat = own.lat;
    g->vh = own.lat.V / 2;
    gpu_field_create_recon(&g->links_d, &own, 'd', 0, recon);
    gpu_field_create_recon(&g->links_s, &own, 's', 0, recon);
    if (u->dom) field_free(&own);
    const size_t reals = gpu_spinor_storage(g->vh, STAGGERED_GPU_SITE_REALS);
    for (int p = 0; p < 3; p++) {
        g->tmp[p] = gpu_alloc(reals * vec_real_bytes[p], "the staggered operator's odd scratch field");
        gpu_memset(g->tmp[p], 0, reals * vec_real_bytes[p]);
    }
    const size_t nn = (size_t)gpu_spinor_nblk(g->vh) * GPU_SPINOR_LANES;
    g->tmp_norm = gpu_alloc(nn * sizeof(float), "the staggered operator's odd scratch norms");
    gpu_memset(g->tmp_norm, 0, nn * sizeof(float));
    staggered_gpu_set_links(g, u);
    return g;
}

void staggered_gpu_set_links(struct staggered_gpu *g, const struct field *u)
{
    staggered_gpu_drop_early(g); /* faces made of the links before */
    const int64_t owned = u->dom ? u->dom->v3 * u->dom->lt : u->lat.V;
    if (u->kind != FIELD_LINKS || u->prec != 64 || u->nc != 3 || owned != g->lat.V || u->dom != g->dom)
        lat_die(1, "staggered_gpu_set_links", "links of another shape than the operator's");
    struct field own = *u;
    if (u->dom) owned_slices(&own, u);
    gpu_field_upload(&g->links_d, &own, NULL);
    gpu_field_upload(&g->links_s, &own, NULL);
    if (u->dom) field_free(&own);
}

void staggered_gpu_free(struct staggered_gpu *g)
{
    if (!g) return;
    gpu_field_free(&g->links_d);
    gpu_field_free(&g->links_s);
    for (int p = 0; p < 3; p++) gpu_free(g->tmp[p]);
    gpu_free(g->tmp_norm);
    if (g->faces) gpu_faces_close(g->faces); /* collective */
    free(g->faces);
    free(g);
}

int64_t staggered_gpu_half_sites(const struct staggered_gpu *g) { return g->vh; }
int staggered_gpu_recon(const struct staggered_gpu *g) { return g->recon; }

/* one launch: out[out_off..] = alpha hop(in[in_off..]) + beta loc[loc_off..]
 * on the sites of `parity` (staggered_gpu_impl.h) */
struct vref {
    void *data;
    float *norm;
    int64_t off; /* first site */
};
static struct staggered_gpu_sweep make_sweep(struct staggered_gpu *g, enum solver_prec prec, int parity, int hop,
                                             double alpha, double beta, struct vref out, struct vref in, struct vref loc)
{
    struct staggered_gpu_sweep w = {prec == SOLVER_DOUBLE ? &g->links_d : &g->links_s,
                                    (int)prec, parity, hop, g->vh, alpha, beta,
                                    out.data, out.norm, out.off, in.data, in.norm, in.off, loc.data, loc.norm, loc.off,
                                    0, 0, 0, NULL, NULL, NULL, NULL, NULL}; /* staggered_gpu_run sets the slab members */
    return w;
}
static void sweep(struct staggered_gpu *g, enum solver_prec prec, int parity, int hop, double alpha, double beta,
                  struct vref out, struct vref in, struct vref loc)
{
    struct staggered_gpu_sweep w = make_sweep(g, prec, parity, hop, alpha, beta, out, in, loc);
    staggered_gpu_run(g, &w);
}

/* one sweep: on one process (or without hops) a launch over every site;
 * on a slab pack the two faces, send them, launch the interior (it runs
 * while the faces travel), then the boundary slices -- dirac/gpu.c's
 * sweep, whose comments say why the peer's receive slots alternate and
 * how the host staging overlaps.  With the neighbours' slots mapped the
 * pack stores the faces into them itself, on the peer's stream beside the
 * interior launch (gpu_faces_pack_to) */
enum { FACE_TAG = 160 };

struct sg_call { /* the interior launch, for gpu_faces_exchange */
    void (*run)(const struct staggered_gpu_sweep *);
    struct staggered_gpu_sweep *w;
};
static void sg_interior(void *arg)
{
    struct sg_call *c = (struct sg_call *)arg;
    c->w->sites = DIRAC_SITES_INTERIOR;
    c->run(c->w);
}
static void sg_nothing(void *arg) { (void)arg; }

static void (*sg_runner(const struct staggered_gpu_sweep *w))(const struct staggered_gpu_sweep *)
{
    return w->links->prec == 'd' ? staggered_gpu_sweep_d : staggered_gpu_sweep_s;
}
static size_t sg_face_bytes(const struct staggered_gpu *g, const struct staggered_gpu_sweep *w)
{
    return g->faces->face_bytes / (w->links->prec == 'd' ? 1 : 2); /* 3 V3h complex of the compute precision */
}
static void sg_slab_members(const struct staggered_gpu *g, struct staggered_gpu_sweep *w)
{
    w->tg0 = g->tg0;
    w->ltg = g->ltg;
    w->face_fwd = w->face_bwd = NULL;
    w->face_out_fwd = w->face_out_bwd = NULL;
    w->stream = NULL;
}
/* the pack of sweep w's faces: into the neighbours' slots on the peer's
 * stream where they are mapped, else into this rank's on the default one */
static void sg_pack(struct staggered_gpu *g, const struct staggered_gpu_sweep *w)
{
    struct staggered_gpu_sweep pack = *w;
    pack.stream = gpu_faces_pack_to(g->faces, sg_face_bytes(g, w), 1, &pack.face_out_fwd, &pack.face_out_bwd);
    sg_runner(w)(&pack);
}

/* a pack queued ahead whose sweep will not come: its round completed (on
 * every rank alike), the faces dropped */
void staggered_gpu_drop_early(struct staggered_gpu *g)
{
    if (!g->early.in) return;
    const void *fwd, *bwd;
    gpu_faces_exchange(g->faces, g->early.fb, FACE_TAG, sg_nothing, NULL, &fwd, &bwd);
    g->early.in = NULL;
}

/* whether the pack staggered_gpu_prepare queued ahead is sweep w's */
static int sg_early_is(const struct staggered_gpu *g, const struct staggered_gpu_sweep *w)
{
    return g->early.in && w->hop && w->in == g->early.in && w->in_off == g->early.in_off && w->parity == g->early.parity &&
           w->links == g->early.links && w->vprec == g->early.vprec;
}

/* a slab sweep's end, once for staggered_gpu_run and K boundary first:
 * its faces exchanged while interior(arg) runs, then its boundary */
static void sg_exchange_boundary(struct staggered_gpu *g, struct staggered_gpu_sweep *w, void (*interior)(void *), void *arg)
{
    gpu_faces_exchange(g->faces, sg_face_bytes(g, w), FACE_TAG, interior, arg, &w->face_fwd, &w->face_bwd);
    w->sites = DIRAC_SITES_BOUNDARY;
    sg_runner(w)(w);
}

void staggered_gpu_run(struct staggered_gpu *g, struct staggered_gpu_sweep *w)
{
    void (*run)(const struct staggered_gpu_sweep *) = sg_runner(w);
    sg_slab_members(g, w);
    int packed = 0;
    if (g->early.in) { /* staggered_gpu_prepare packed a sweep's faces ahead */
        packed = sg_early_is(g, w);
        if (packed) g->early.in = NULL;
        else staggered_gpu_drop_early(g); /* not this sweep's: the caller's contract was broken, the answer is still right */
    }
    if (!g->dom || !w->hop) {
        w->sites = DIRAC_SITES_ALL;
        run(w);
        return;
    }
    if (!packed && !g->faces->no_halo) sg_pack(g, w);
    struct sg_call c = {run, w};
    sg_exchange_boundary(g, w, sg_interior, &c);
}

static struct vref ref(const struct solver_vec *v, int64_t off) { return (struct vref){v->data, v->norm, off}; }
static const struct vref none = {NULL, NULL, 0};

static void check_vecs(const char *who, enum solver_prec prec, const struct solver_vec *out, const struct solver_vec *in)
{
    if (out->prec != prec || in->prec != prec || (prec == SOLVER_HALF && (!out->norm || !in->norm)))
        lat_die(1, who, "internal error: vectors of precision %d and %d (norms %s) for an application in %s", (int)out->prec,
                (int)in->prec, prec == SOLVER_HALF && (!out->norm || !in->norm) ? "missing" : "present",
                solver_prec_name(prec));
}

/* both sweeps' interiors, one after the other, while the second sweep's
 * faces travel */
struct sg_two {
    struct sg_call first, second;
};
static void sg_two_interiors(void *arg)
{
    struct sg_two *c = (struct sg_two *)arg;
    sg_interior(&c->first);
    sg_interior(&c->second);
}

/* K on a slab whose first sweep's faces were packed ahead (the solver's
 * prepare): that sweep's boundary first, so that the second sweep's faces
 * (made of it) are packed and sent while both interiors run; then the
 * second boundary.  Every site is computed as staggered_gpu_run computes
 * it, from the same inputs: the same bits.  Why (issue 21): with the
 * sweeps in order the second sweep's faces had one interior of two
 * timeslices to hide behind (a four-slice slab of 32^3x8 on two GPUs: K
 * took 61 us where half of one GPU's is 36.5).  The boundary before the
 * next pack keeps gpu_faces.h's rule for the alternating receive slots
 * (a rank's boundary launch runs before its next pack). */
static void ee_apply_boundary_first(struct staggered_gpu *g, struct staggered_gpu_sweep *w1, struct staggered_gpu_sweep *w2)
{
    void (*run)(const struct staggered_gpu_sweep *) = sg_runner(w1);
    sg_slab_members(g, w1);
    sg_slab_members(g, w2);
    g->early.in = NULL; /* w1's pack, queued ahead: taken */
    sg_exchange_boundary(g, w1, sg_nothing, NULL);
    sg_pack(g, w2);
    struct sg_two c = {{run, w1}, {run, w2}};
    sg_exchange_boundary(g, w2, sg_two_interiors, &c);
}

/* K = m^2 - D_eo D_oe: t_o = 1/2 hop(in), out = m^2 in - 1/2 hop(t_o) (the
 * CPU's staggered_mdagm_ee, staggered.c) */
void staggered_gpu_ee_apply(struct staggered_gpu *g, enum solver_prec prec, struct solver_vec *out,
                            const struct solver_vec *in)
{
    check_vecs("staggered_gpu_ee_apply", prec, out, in);
    if (out->data == in->data) lat_die(1, "staggered_gpu_ee_apply", "internal error: out and in are one vector");
    const struct vref t = {g->tmp[prec], prec == SOLVER_HALF ? g->tmp_norm : NULL, 0};
    struct staggered_gpu_sweep w1 = make_sweep(g, prec, 1, 1, 0.5, 0, t, ref(in, 0), none);
    struct staggered_gpu_sweep w2 = make_sweep(g, prec, 0, 1, -0.5, g->mass * g->mass, ref(out, 0), t, ref(in, 0));
    if (g->dom && !g->sweeps_in_order && sg_early_is(g, &w1)) {
        ee_apply_boundary_first(g, &w1, &w2);
        return;
    }
    staggered_gpu_run(g, &w1);
    staggered_gpu_run(g, &w2);
}

/* K's first sweep's faces of in, packed and sent now (the solver's
 * prepare: issue 21, the multi-shift's other shifts update while they
 * travel); staggered_gpu_run takes them for that sweep, or completes and
 * drops the round when another sweep comes first; in NULL: none comes */
static void staggered_gpu_prepare(struct staggered_gpu *g, const struct solver_vec *in)
{
    staggered_gpu_drop_early(g); /* in NULL, or a second prepare before the sweep */
    if (!in || !g->dom || g->faces->no_halo || g->faces->no_ahead) return;
    const struct vref t = {g->tmp[in->prec], NULL, 0};
    struct staggered_gpu_sweep w = make_sweep(g, in->prec, 1, 1, 0.5, 0, t, ref(in, 0), none);
    sg_slab_members(g, &w);
    sg_pack(g, &w);
    g->early.in = w.in;
    g->early.in_off = w.in_off;
    g->early.parity = w.parity;
    g->early.links = w.links;
    g->early.vprec = w.vprec;
    g->early.fb = sg_face_bytes(g, &w);
}

/* ---- the solver's views --------------------------------------------------- */
static struct solver_vec raw(struct staggered_gpu *g, enum solver_prec prec, int full, const void *p)
{
    const size_t n = (size_t)g->vh * (full ? 2 : 1) * STAGGERED_GPU_SITE_REALS;
    return (struct solver_vec){prec, n, STAGGERED_GPU_SITE_REALS, (void *)p, NULL};
}

static void ee_vec(void *c, int dag, struct solver_vec *o, const struct solver_vec *i)
{
    (void)dag; /* Hermitian */
    staggered_gpu_ee_apply((struct staggered_gpu *)c, i->prec, o, i);
}
static void ee_prepare(void *c, const struct solver_vec *i) { staggered_gpu_prepare((struct staggered_gpu *)c, i); }
static void ee_d(void *c, double *o, const double *i)
{
    struct staggered_gpu *g = c;
    struct solver_vec vo = raw(g, SOLVER_DOUBLE, 0, o), vi = raw(g, SOLVER_DOUBLE, 0, i);
    staggered_gpu_ee_apply(g, SOLVER_DOUBLE, &vo, &vi);
}
static void ee_f(void *c, float *o, const float *i)
{
    struct staggered_gpu *g = c;
    struct solver_vec vo = raw(g, SOLVER_SINGLE, 0, o), vi = raw(g, SOLVER_SINGLE, 0, i);
    staggered_gpu_ee_apply(g, SOLVER_SINGLE, &vo, &vi);
}

void staggered_gpu_solver_op_ee(struct solver_op *s, struct staggered_gpu *g)
{
    *s = (struct solver_op){.n = (size_t)g->vh * STAGGERED_GPU_SITE_REALS, .site_reals = STAGGERED_GPU_SITE_REALS,
                            .ctx = g, .apply = ee_d, .apply_dag = ee_d, .apply_f = ee_f, .apply_dag_f = ee_f,
                            .apply_vec = ee_vec, .prepare = ee_prepare};
}

/* A = M^dag P_e on [even | odd]: (x_e, x_o) -> (m x_e, -1/2 hop_oe x_e);
 * A^dag = P_e M: (y_e, y_o) -> (m y_e + 1/2 hop_eo y_o, 0) -- the CPU's
 * staggered_solver_op_normal */
static void normal_vec(void *c, int dag, struct solver_vec *o, const struct solver_vec *i)
{
    struct staggered_gpu *g = c;
    const enum solver_prec prec = i->prec;
    const int64_t vh = g->vh;
    check_vecs("staggered GPU normal view", prec, o, i);
    if (!dag) {
        sweep(g, prec, 1, 1, -0.5, 0, ref(o, vh), ref(i, 0), none);
        sweep(g, prec, 0, 0, 0, g->mass, ref(o, 0), none, ref(i, 0));
    } else {
        sweep(g, prec, 0, 1, 0.5, g->mass, ref(o, 0), ref(i, vh), ref(i, 0));
        sweep(g, prec, 1, 0, 0, 0, ref(o, vh), none, none);
    }
}
#define NORMAL_RAW(name, T, prec, dag)                                                   \
    static void name(void *c, T *o, const T *i)                                          \
    {                                                                                    \
        struct staggered_gpu *g = c;                                                     \
        struct solver_vec vo = raw(g, prec, 1, o), vi = raw(g, prec, 1, i);              \
        normal_vec(g, dag, &vo, &vi);                                                    \
    }
NORMAL_RAW(normal_d, double, SOLVER_DOUBLE, 0)
NORMAL_RAW(normal_dag_d, double, SOLVER_DOUBLE, 1)
NORMAL_RAW(normal_f, float, SOLVER_SINGLE, 0)
NORMAL_RAW(normal_dag_f, float, SOLVER_SINGLE, 1)

void staggered_gpu_solver_op_normal(struct solver_op *s, struct staggered_gpu *g)
{
    *s = (struct solver_op){.n = (size_t)g->vh * 2 * STAGGERED_GPU_SITE_REALS, .site_reals = STAGGERED_GPU_SITE_REALS,
                            .ctx = g, .apply = normal_d, .apply_dag = normal_dag_d, .apply_f = normal_f,
                            .apply_dag_f = normal_dag_f, .apply_vec = normal_vec};
}

#endif
