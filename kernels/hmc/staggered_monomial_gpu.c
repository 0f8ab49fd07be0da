/* hmc/staggered_monomial_gpu.c -- the staggered monomial's device path
 * (hmc/monomial.h's refresh_gpu, action_gpu, force_gpu; the formulas of
 * hmc/staggered_monomial.h, the state of staggered_monomial_impl.h): the
 * links refreshed device to device into the GPU operator
 * (staggered_gpu_set_links_device), the noise drawn on the device from the
 * streams of staggered_gaussian, the solves by solver_multishift_cg on the
 * GPU operator's normal view with the GPU vector kernels
 * (staggered_gpu_solver_multishift_device: the host path's tolerances,
 * precisions and iteration caps), the heatbath sum, the hops, the dot
 * products (the GPU blas' deterministic cdot) and the force kernel on the
 * device: nothing but the action's value leaves the GPU.
 *
 * On MPI t-slabs (the HMC's slab field, hmc/gpu.h; one GPU per rank): the
 * operator and the solves run on the slab (staggered_gpu_solver.h), the
 * vectors are the owned half fields, the noise is keyed by the global site
 * (the CPU's streams), the heatbath sum and the hops work on the owned
 * sites, the dot products go through the solver's per-timeslice layout
 * (the same bits for every R), and the force runs on the owned links.
 * Faces: only the force needs one of its own.  The t-term of a link on the
 * last owned slice reads X_i (y odd) or Y_i (y even) at y + t, the first
 * slice of the next rank; so before the force kernel every rank packs the
 * X_i (even sites) and Y_i (odd sites) of its first slice for all poles
 * (k_smg_face_pack) and sends them to the previous rank through
 * dirac/gpu_faces.h (device to device over gpu/peer.h, or through the host
 * with LAT_GPU_HALO=host; the backward slot of that exchange carries
 * nothing used).  The backward neighbours are not needed: each link's
 * force reads y and y + mu only.  The hops (Y_i = D_oe X_i, the exact
 * mode's D_eo chi_o) exchange their own faces inside the operator.
 *
 * Replicas (lat-hmc --split pseudofermions, staggered_monomial_impl.h):
 * each field's force goes into the replica's zeroed part (an HMC force
 * field), and the parts of a round are added to the momenta in field
 * order, read straight from the other replicas' GPUs when they map each
 * other's part (gpu/peer.h; a fence before and after the reads), else
 * gathered through the host first (hmc_gpu_replicas_gather).
 *
 * Device state (made at the first call, freed by stag_mono_gpu_free): per
 * pseudofermion phi_k, a normal-view vector [phi_e | 0] (the odd half
 * stays zero, so it is the multi-shift right-hand side as it is); one noise
 * vector (rational: the even half, odd zero; exact: chi on all sites); per
 * pole X_i (the solution) and Y_i (odd half: D_oe X_i).  The host path's
 * phi (c->phi) is not touched: the two paths keep their own pseudofermions.
 * Plain C; without CUDA the three callbacks end the program with one line
 * (staggered_monomial_create sets them only with a GPU solver, which a
 * build without CUDA cannot make). */
#include "hmc/staggered_monomial_impl.h"
#include "base/clock.h"
#include "hmc/staggered_gpu_solver.h"
#include "base/log.h"
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA

static void no_gpu(const char *where) { lat_die(1, where, "internal error: the staggered device path needs CUDA"); }
void stag_mono_refresh_gpu(void *ctx, const struct gpu_field *u, uint64_t seed, uint32_t trajectory)
{
    (void)ctx, (void)u, (void)seed, (void)trajectory, no_gpu("stag_mono_refresh_gpu");
}
double stag_mono_action_gpu(void *ctx, const struct gpu_field *u)
{
    (void)ctx, (void)u, no_gpu("stag_mono_action_gpu");
    return 0;
}
void stag_mono_force_gpu(void *ctx, const struct gpu_field *u, double coeff, struct gpu_field *out)
{
    (void)ctx, (void)u, (void)coeff, (void)out, no_gpu("stag_mono_force_gpu");
}
void stag_mono_gpu_free(struct stag_mono *c) { (void)c; }
const double *stag_mono_gpu_phi(const struct stag_mono *c, int k)
{
    (void)c, (void)k;
    return NULL;
}

#else

#include "dirac/staggered_gpu.h"
#include "dirac/gpu_faces.h"
#include "gpu/field.h"
#include "gpu/peer.h"
#include "gpu/spinor.h"
#include "hmc/gpu.h"

static const char WHO[] = "staggered monomial (device)";
#define SITE_REALS 6

struct stag_mono_dev {
    int64_t vh;      /* V/2 */
    size_t bytes;    /* one normal-view vector (V sites) */
    double **phi;    /* npf vectors [phi_e | 0] */
    double *noise;   /* eta_e (rational) or chi (exact) */
    double *x[RATIONAL_MAX_ORDER], *y[RATIONAL_MAX_ORDER];
    int npoles;      /* X_i, Y_i allocated */
    struct gpu_faces *faces; /* a slab: the force's forward face (md poles x [X | Y] x V3h sites) */
    struct gpu_field *fparts; /* the force parts of a round, one per replica (staggered_monomial_impl.h):
                               * this replica's, the others' as mapped here (share) or local copies */
    struct gpu_replica_share *share; /* more than one replica: every replica's own part mapped here (gpu/peer.h) */
    double *fstaging;         /* without share: the parts' host copies (hmc_gpu_replicas_gather) */
    int64_t v3h;     /* sites per parity and timeslice */
};

enum { FORCE_FACE_TAG = 170 }; /* the staged path's MPI tags 170, 171 */

static double *vector(const struct stag_mono_dev *d, const char *what)
{
    double *v = (double *)gpu_alloc(d->bytes, what);
    gpu_memset(v, 0, d->bytes);
    return v;
}

/* the device fields (first call) and the GPU operator's links from u */
static struct stag_mono_dev *prepare(struct stag_mono *c, const struct gpu_field *u)
{
    struct staggered_gpu *g = staggered_gpu_solver_operator(c->p.gpu);
    if (!c->dev) {
        struct stag_mono_dev *d = (struct stag_mono_dev *)lat_calloc(1, sizeof *d);
        d->vh = staggered_gpu_half_sites(g);
        d->bytes = gpu_spinor_storage(2 * d->vh, SITE_REALS) * sizeof(double);
        d->phi = (double **)lat_calloc((size_t)c->p.npf, sizeof(double *));
        for (int k = 0; k < c->p.npf; k++) d->phi[k] = vector(d, "the staggered pseudofermions");
        d->noise = vector(d, "the staggered pseudofermion noise");
        int most = c->md.order > c->met.order ? c->md.order : c->met.order;
        if (!c->exact && c->hb.order > most) most = c->hb.order;
        for (; d->npoles < most; d->npoles++) {
            d->x[d->npoles] = vector(d, "the staggered multi-shift solutions");
            d->y[d->npoles] = vector(d, "the staggered force's hopped solutions");
        }
        if (c->dom) { /* collective: every rank makes its monomial's first device call together */
            d->v3h = c->dom->v3 / 2;
            d->faces = (struct gpu_faces *)lat_calloc(1, sizeof *d->faces);
            gpu_faces_open(d->faces, c->dom, (size_t)(c->md.order > 0 ? c->md.order : 1) * 2 * (size_t)d->v3h * SITE_REALS * sizeof(double),
                           "the staggered force's faces");
        }
        c->dev = d;
    }
    staggered_gpu_set_links_device(g, u);
    /* the host path re-uploads its own links before its next solve */
    c->gpu_links_stale = 1;
    return c->dev;
}

/* X_i = (K + b_i)^-1 b for the poles of r, on the device */
static void solve(struct stag_mono *c, const struct rational *r, double tol, int sloppy, const double *b,
                  const char *what)
{
    if (r->order == 0) return;
    struct solver_params par = {.tol = tol, .max_iter = c->p.max_iter, .sloppy = sloppy ? SOLVER_SINGLE : SOLVER_DOUBLE};
    struct solver_result res[RATIONAL_MAX_ORDER];
    const double t0 = lat_clock();
    staggered_gpu_solver_multishift_device(c->p.gpu, b, r->order, r->b, c->dev->x, &par, res);
    stag_mono_account(c, r, res, tol, what, t0);
}

/* Re a^dag b of two normal-view vectors (the GPU blas' fixed-grid sum) */
static double dot(struct stag_mono *c, const double *a, const double *b)
{
    const size_t n = (size_t)(2 * c->dev->vh) * SITE_REALS;
    const struct solver_vec va = {SOLVER_DOUBLE, n, SITE_REALS, (void *)a, NULL};
    const struct solver_vec vb = {SOLVER_DOUBLE, n, SITE_REALS, (void *)b, NULL};
    struct solver_blas *blas = staggered_gpu_solver_blas(c->p.gpu);
    return blas->cdot(blas->ctx, &va, &vb).re;
}

static void no_interior(void *arg) { (void)arg; } /* the force launches after the exchange */

static struct stag_mono_poles poles_of(const struct stag_mono_dev *d, const struct rational *r)
{
    struct stag_mono_poles p;
    p.order = r->order;
    p.face = NULL;
    for (int i = 0; i < r->order; i++) {
        p.a[i] = r->a[i];
        p.x[i] = d->x[i];
        p.y[i] = d->y[i];
    }
    return p;
}

void stag_mono_refresh_gpu(void *ctx, const struct gpu_field *u, uint64_t seed, uint32_t trajectory)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    struct stag_mono_dev *d = prepare(c, u);
    struct staggered_gpu *g = staggered_gpu_solver_operator(c->p.gpu);
    const double m = staggered_gpu_solver_mass(c->p.gpu);
    for (int k = 0; k < c->p.npf; k++) {
        if (!stag_mono_mine(k)) continue;
        if (c->exact) {
            /* phi = m chi_e - D_eo chi_o, chi on all sites ([even | odd]) */
            stag_mono_gpu_noise_d(u, d->noise, 1, seed, (uint32_t)k, trajectory);
            staggered_gpu_hop_d(g, 0, -1.0, d->phi[k], 0, d->noise, d->vh, m, d->noise, 0);
        } else {
            /* phi = r_hb(K) eta = a0 eta + sum_i a_i (K + b_i)^-1 eta */
            stag_mono_gpu_noise_d(u, d->noise, 0, seed, (uint32_t)k, trajectory);
            solve(c, &c->hb, c->p.tol_metropolis, 0, d->noise, "pseudofermion heatbath");
            const struct stag_mono_poles p = poles_of(d, &c->hb);
            stag_mono_gpu_lincomb_d(d->vh, d->phi[k], c->hb.a0, d->noise, &p);
        }
    }
}

double stag_mono_action_gpu(void *ctx, const struct gpu_field *u)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    struct stag_mono_dev *d = prepare(c, u);
    double *parts = (double *)lat_calloc((size_t)c->p.npf, sizeof(double));
    for (int k = 0; k < c->p.npf; k++) {
        if (!stag_mono_mine(k)) continue;
        solve(c, &c->met, c->p.tol_metropolis, 0, d->phi[k], "action");
        double s = c->met.a0 * dot(c, d->phi[k], d->phi[k]);
        for (int j = 0; j < c->met.order; j++) s += c->met.a[j] * dot(c, d->phi[k], d->x[j]);
        parts[k] = s;
    }
    return stag_mono_action_total(parts, c->p.npf);
}

void stag_mono_force_gpu(void *ctx, const struct gpu_field *u, double coeff, struct gpu_field *out)
{
    struct stag_mono *c = (struct stag_mono *)ctx;
    if (out->links == u->links || out->recon != GPU_RECON_FULL || out->prec != 'd' || out->Vh != u->Vh)
        lat_die(1, WHO, "the force needs its own device field of the links' lattice in 18 doubles a matrix");
    struct stag_mono_dev *d = prepare(c, u);
    struct staggered_gpu *g = staggered_gpu_solver_operator(c->p.gpu);
    const struct rational *r = &c->md;
    const int R = comm_replicas(), me = comm_replica();
    if (!d->fparts) {
        /* the parts: device to device when the replicas can map each
         * other's (a kernel then reads the others' own parts), else
         * gathered through the host into local copies */
        d->fparts = (struct gpu_field *)lat_calloc((size_t)R, sizeof *d->fparts);
        hmc_gpu_field_like(&d->fparts[me], out);
        if (R > 1) d->share = gpu_replica_share_open(d->fparts[me].links);
        for (int q = 0; q < R; q++) /* the others' parts: mapped, or local copies */
            if (q == me) continue;
            else if (d->share) d->fparts[q] = d->fparts[me], d->fparts[q].links = gpu_replica_buffer(d->share, q);
            else hmc_gpu_field_like(&d->fparts[q], out);
    }
    /* a round: fields k0 .. k0 + R - 1, field k0 + q's force in part q */
    for (int k0 = 0; k0 < c->p.npf; k0 += R) {
        const int k = k0 + me;
        hmc_gpu_zero(&d->fparts[me]);
        if (k < c->p.npf) {
            solve(c, r, c->p.tol_md, c->p.mixed, d->phi[k], "molecular-dynamics");
            for (int i = 0; i < r->order; i++) staggered_gpu_hop_d(g, 1, 1.0, d->y[i], d->vh, d->x[i], 0, 0, NULL, 0);
            struct stag_mono_poles p = poles_of(d, r);
            if (d->faces) {
                /* the next rank's first slice (X_i even, Y_i odd): the t-term of the last owned slice */
                const size_t fb = (size_t)r->order * 2 * (size_t)d->v3h * SITE_REALS * sizeof(double);
                const void *fwd, *bwd;
                stag_mono_gpu_face_pack_d(u, &p, (double *)d->faces->dev);
                gpu_faces_exchange(d->faces, fb, FORCE_FACE_TAG, no_interior, NULL, &fwd, &bwd);
                p.face = (const double *)fwd;
            }
            stag_mono_gpu_force_d(u, c->ltg, coeff, &p, &d->fparts[me]);
        }
        if (d->share) gpu_replica_fence(); /* every part of the round is made */
        else if (R > 1) hmc_gpu_replicas_gather(d->fparts, &d->fstaging);
        for (int q = 0; q < R && k0 + q < c->p.npf; q++) hmc_gpu_momenta_add(out, 1.0, &d->fparts[q]);
        if (d->share) gpu_replica_fence(); /* read by all before any zeroes its part again */
    }
}

const double *stag_mono_gpu_phi(const struct stag_mono *c, int k)
{
    return c->dev && k >= 0 && k < c->p.npf ? c->dev->phi[k] : NULL;
}

void stag_mono_gpu_free(struct stag_mono *c)
{
    struct stag_mono_dev *d = c->dev;
    if (!d) return;
    for (int k = 0; k < c->p.npf; k++) gpu_free(d->phi[k]);
    free(d->phi);
    gpu_free(d->noise);
    for (int i = 0; i < d->npoles; i++) {
        gpu_free(d->x[i]);
        gpu_free(d->y[i]);
    }
    if (d->faces) gpu_faces_close(d->faces); /* collective */
    free(d->faces);
    gpu_replica_share_close(d->share); /* collective */
    for (int q = 0; d->fparts && q < comm_replicas(); q++)
        if (q == comm_replica() || !d->share) hmc_gpu_field_free(&d->fparts[q]); /* the others' mapped parts are theirs */
    free(d->fparts);
    free(d->fstaging);
    free(d);
    c->dev = NULL;
}

#endif
