/* dirac/gpu.c -- the host side of the GPU Wilson-clover operator
 * (dirac/gpu.h; plain C, so the host emulation compiles it as it is): the
 * device copies of the links (gpu_field, double and float, recon 18/12/8,
 * no boundary phases) and of the clover term, the two sweeps of Mhat per
 * application (launched by dirac/gpu_d.cu or gpu_s.cu, dirac/gpu_sweep.h),
 * the even-odd system's ends in double (prepare, reconstruct, residual),
 * the solver adapter, device vectors for tests and the benchmark, and the
 * flop/byte counts, and on a t-slab the face buffers and their exchange
 * between the sweeps' pack, interior and boundary launches: device to
 * device into the neighbours' GPUs when every rank can map its neighbours'
 * memory (gpu/peer.h: ranks of one node), else staged through the host
 * (pageable memory) and MPI; LAT_GPU_HALO=host chooses the host.
 * Without CUDA (LAT_HAVE_CUDA unset) dirac_gpu_create
 * answers NULL, "this lat was built without CUDA", and nothing else may be
 * called.
 *
 * Clover storage (A and A^-1, each per parity, double and float): the 72
 * packed reals of dirac_clover_site (site.h's order) of the site of half
 * index h in gpu/spinor.h's blocked layout with ncomp 72 -- real c of site
 * h at ((h/32)*72 + (c/4)*4)*32 + (h%32)*4 + c%4: a warp reads 32 x 4
 * contiguous reals per group, 18 groups per site; padding sites zero.
 * A kernel reads one of the four: A^-1 of the even sites (first sweep),
 * A of the odd sites (second).
 *
 * The half sweeps (SOLVER_HALF) read 16-bit copies made here once
 * (dirac/gpu_link16.h: the format): links16, the stored reals of the
 * double links (recon 18/12/8, su3_pack8 computed in double) as int16 in
 * the float links' places (gpu_index with vec 4), and per clover the 72
 * reals as int16 in the same blocked layout (half_block_encode of
 * solvers/half.h) with one float per site, half_decode_scale of the
 * site's norm (the kernels multiply by it). */
#include "dirac/gpu.h"
#include "dirac/cpu.h"
#include "dirac/gpu_link16.h"
#include "dirac/site.h"
#include "base/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LAT_HAVE_CUDA
#include "dirac/gpu_sweep.h"
#include "gpu/field.h"
#include "gpu/gpu.h"
#include "dirac/gpu_faces.h"
#include "gpu/spinor.h"
#include "lattice/geometry.h"
#include "base/comm.h"

#include "dirac/gpu_impl.h"

/* struct dirac_gpu: dirac/gpu_impl.h */

enum { FACE_TAG = 150 };

static struct dirac_gpu *refuse(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return NULL;
}

static size_t norms(int64_t nsites) { return (size_t)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES; }

/* the packed clover (inv 0: A, 1: A^-1) of the sites of parity par in the
 * blocked layout, in double, in float and in 16 bits with the factor
 * q -> real per site */
static void upload_clover(struct dirac_gpu *g, const struct dirac_op *cpu, int inv, int par)
{
    const size_t total = gpu_spinor_storage(g->nsites, CLOVER_REALS);
    double *d = (double *)lat_calloc(total, sizeof *d);
    float *f = (float *)lat_calloc(total, sizeof *f);
    int16_t *q = (int16_t *)lat_calloc(total, sizeof *q);
    float *qn = (float *)lat_calloc(norms(g->nsites), sizeof *qn);
    /* sites are independent: the threads share them (with this loop and
     * upload_links16's serial, the set-up took 54 s at 48^3x96) */
#pragma omp parallel for schedule(static)
    for (int64_t h = 0; h < g->nsites; h++) {
        const double *a = dirac_clover_site(cpu, dirac_half_site(cpu, par, h), inv);
        int16_t qs[CLOVER_REALS];
        float norm;
        half_block_encode(CLOVER_REALS, a, qs, &norm);
        qn[h] = (float)half_decode_scale(norm); /* the kernel multiplies: no division there */
        for (int c = 0; c < CLOVER_REALS; c++) {
            const size_t i = gpu_spinor_index(CLOVER_REALS, c, h);
            d[i] = a[c];
            f[i] = (float)a[c];
            q[i] = qs[c];
        }
    }
    g->clov_d[inv][par] = gpu_alloc(total * sizeof *d, "the clover term (double)");
    g->clov_s[inv][par] = gpu_alloc(total * sizeof *f, "the clover term (float)");
    g->clov_h[inv][par] = gpu_alloc(total * sizeof *q, "the clover term (16 bits)");
    g->clov_hs[inv][par] = (float *)gpu_alloc(norms(g->nsites) * sizeof *qn, "the clover term's steps");
    gpu_upload(g->clov_d[inv][par], d, total * sizeof *d);
    gpu_upload(g->clov_s[inv][par], f, total * sizeof *f);
    gpu_upload(g->clov_h[inv][par], q, total * sizeof *q);
    gpu_upload(g->clov_hs[inv][par], qn, norms(g->nsites) * sizeof *qn);
    free(d);
    free(f);
    free(q);
    free(qn);
}

/* the 16-bit links of the half sweeps: the stored reals of the double
 * copy (so recon 8's su3_pack8 reals as computed in double), each encoded
 * by link16_encode into the float copy's place (real c of slot s at half
 * index h: gpu_index with links_s's ncomp and vec); padding stays zero */
static void upload_links16(struct dirac_gpu *g)
{
    const struct gpu_field *fd = &g->links_d, *fs = &g->links_s;
    const size_t nd = (size_t)8 * fd->nblk * fd->ncomp * GPU_LANES, ns = (size_t)8 * fs->nblk * fs->ncomp * GPU_LANES;
    double *d = (double *)lat_malloc(nd * sizeof *d);
    int16_t *q = (int16_t *)lat_calloc(ns, sizeof *q);
    gpu_download(d, fd->links, nd * sizeof *d);
    const int nr = fd->ncomp < fs->ncomp ? fd->ncomp : fs->ncomp; /* 18 of float's 20: the rest padding */
    for (int slot = 0; slot < 8; slot++)
#pragma omp parallel for schedule(static)
        for (int64_t h = 0; h < fd->nblk * GPU_LANES; h++)
            for (int c = 0; c < nr; c++)
                q[gpu_index(fs->nblk, fs->ncomp, fs->vec, slot, c, h)] =
                    link16_encode(fs->recon, c, d[gpu_index(fd->nblk, fd->ncomp, fd->vec, slot, c, h)]);
    g->links16 = (int16_t *)gpu_alloc(ns * sizeof *q, "the links (16 bits)");
    gpu_upload(g->links16, q, ns * sizeof *q);
    free(d);
    free(q);
}

struct dirac_gpu *dirac_gpu_create(const struct dirac_op *cpu, const struct field *u, int recon, char *why, size_t len)
{
    if (u->kind != FIELD_LINKS || u->prec != 64 || !u->d)
        return refuse(why, len, "the GPU Dirac operator needs a double-precision gauge-link field");
    if (u->nc != 3 || cpu->nc != 3) return refuse(why, len, "the GPU Dirac operator is SU(3) only");
    if ((u->dom != NULL) != (cpu->dom != NULL) || (u->dom && u->dom != cpu->dom))
        return refuse(why, len, "the GPU Dirac operator: the links and the CPU operator are on different slabs");
    if (u->dom && u->dom->lt % 2) {
        snprintf(why, len, "the GPU Dirac operator on a slab needs an even number of timeslices per rank (%d here)",
                 u->dom->lt);
        return NULL;
    }
    if (cpu->lat.V != u->lat.V)
        return refuse(why, len, "the GPU Dirac operator: the CPU operator was made on another lattice");
    if (recon != GPU_RECON_FULL && recon != GPU_RECON_12 && recon != GPU_RECON_8) {
        snprintf(why, len, "link compression %d: the GPU Dirac operator stores links in 18, 12 or 8 reals", recon);
        return NULL;
    }
    char reason[200];
    if (!gpu_available(reason, (int)sizeof reason)) {
        snprintf(why, len, "no GPU: %s", reason);
        return NULL;
    }
    struct dirac_gpu *g = (struct dirac_gpu *)lat_calloc(1, sizeof *g);
    g->half_link_bits = 16;
    g->clover = cpu->clover;
    g->kappa = cpu->kappa;
    memcpy(g->phase, cpu->phase, sizeof g->phase);
    /* on a slab the device holds the owned slices only (t0 even: local
     * parity = global parity, half index = the CPU's owned half index) */
    struct field own = *u;
    if (u->dom) {
        const struct geometry *d = u->dom;
        int L[4] = {u->lat.L[0], u->lat.L[1], u->lat.L[2], d->lt};
        struct lattice lat;
        const char *lwhy;
        if (lattice_init(&lat, L, &lwhy) != 0) lat_die(1, "GPU Dirac", "the slab's lattice: %s", lwhy);
        field_alloc(&own, &lat, u->nc, 64);
        memcpy(own.d, field_link(u, d->v3 * geometry_t_begin(d), 0),
               (size_t)lat.V * LAT_ND * field_link_reals(u->nc) * sizeof(double));
        g->dom = d;
        g->tg0 = d->t0;
        g->ltg = d->global.L[3];
        gpu_faces_open(&g->faces, d, (size_t)(lat.V / 2 / d->lt) * 12 * sizeof(double), "the Dirac operator's faces");
    }
    g->nsites = own.lat.V / 2;
    gpu_field_create_recon(&g->links_d, &own, 'd', 0, recon);
    gpu_field_upload(&g->links_d, &own, NULL);
    gpu_field_create_recon(&g->links_s, &own, 's', 0, recon);
    gpu_field_upload(&g->links_s, &own, NULL);
    upload_links16(g);
    if (u->dom) field_free(&own);
    if (g->clover)
        for (int inv = 0; inv < 2; inv++)
            for (int par = 0; par < 2; par++) upload_clover(g, cpu, inv, par);
    gpu_sync("the Dirac operator's upload");
    return g;
}

void dirac_gpu_free(struct dirac_gpu *g)
{
    if (!g) return;
    gpu_field_free(&g->links_d);
    gpu_field_free(&g->links_s);
    gpu_free(g->links16);
    for (int inv = 0; inv < 2; inv++)
        for (int par = 0; par < 2; par++) {
            gpu_free(g->clov_d[inv][par]);
            gpu_free(g->clov_s[inv][par]);
            gpu_free(g->clov_h[inv][par]);
            gpu_free(g->clov_hs[inv][par]);
        }
    for (int p = 0; p < 3; p++) dirac_gpu_vec_free(g->tmp[p]), dirac_gpu_vec_free(g->tmp_block[p]);
    gpu_faces_close(&g->faces); /* collective */
    free(g);
}

int64_t dirac_gpu_nsites(const struct dirac_gpu *g) { return g->nsites; }

size_t dirac_gpu_elem_size(enum solver_prec p)
{
    return p == SOLVER_DOUBLE ? sizeof(double) : p == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
}
struct solver_vec *dirac_gpu_vec_new(const struct dirac_gpu *g, enum solver_prec prec)
{
    struct solver_vec *v = (struct solver_vec *)lat_calloc(1, sizeof *v);
    const size_t bytes = gpu_spinor_storage(g->nsites, SITE_REALS) * dirac_gpu_elem_size(prec);
    v->prec = prec;
    v->n = (size_t)g->nsites * SITE_REALS;
    v->site_reals = SITE_REALS;
    v->data = gpu_alloc(bytes, "a spinor vector");
    gpu_memset(v->data, 0, bytes);
    if (prec == SOLVER_HALF) {
        v->norm = (float *)gpu_alloc(norms(g->nsites) * sizeof(float), "the norms of a half spinor vector");
        gpu_memset(v->norm, 0, norms(g->nsites) * sizeof(float));
    }
    return v;
}

void dirac_gpu_vec_free(struct solver_vec *v)
{
    if (!v) return;
    gpu_free(v->data);
    gpu_free(v->norm);
    free(v);
}

void dirac_gpu_check_vec(const struct solver_vec *v, const char *where)
{
    if (v->site_reals != SITE_REALS || v->n % SITE_REALS || (v->prec == SOLVER_HALF && !v->norm))
        lat_die(1, "GPU Dirac", "internal error: %s: not a device vector of Wilson spinors", where);
}

void dirac_gpu_vec_upload(struct solver_vec *v, const double *host)
{
    dirac_gpu_check_vec(v, "upload");
    const int64_t ns = (int64_t)(v->n / SITE_REALS);
    const size_t total = gpu_spinor_storage(ns, SITE_REALS);
    if (v->prec == SOLVER_DOUBLE) {
        gpu_spinor_upload((double *)v->data, host, ns, SITE_REALS);
        return;
    }
    float *x = (float *)lat_malloc(v->n * sizeof *x);
    for (size_t k = 0; k < v->n; k++) x[k] = (float)host[k];
    if (v->prec == SOLVER_SINGLE) {
        float *t = (float *)lat_calloc(total, sizeof *t);
        for (int64_t s = 0; s < ns; s++)
            for (int c = 0; c < SITE_REALS; c++) t[gpu_spinor_index(SITE_REALS, c, s)] = x[(size_t)s * SITE_REALS + c];
        gpu_upload(v->data, t, total * sizeof *t);
        free(t);
    } else {
        int16_t *q = (int16_t *)lat_malloc(v->n * sizeof *q), *t = (int16_t *)lat_calloc(total, sizeof *t);
        float *nm = (float *)lat_calloc(norms(ns), sizeof *nm);
        solver_half_quantise(v->n, SITE_REALS, x, q, nm);
        for (int64_t s = 0; s < ns; s++)
            for (int c = 0; c < SITE_REALS; c++) t[gpu_spinor_index(SITE_REALS, c, s)] = q[(size_t)s * SITE_REALS + c];
        gpu_upload(v->data, t, total * sizeof *t);
        gpu_upload(v->norm, nm, norms(ns) * sizeof *nm);
        free(q);
        free(t);
        free(nm);
    }
    free(x);
}

void dirac_gpu_vec_download(double *host, const struct solver_vec *v)
{
    dirac_gpu_check_vec(v, "download");
    const int64_t ns = (int64_t)(v->n / SITE_REALS);
    const size_t total = gpu_spinor_storage(ns, SITE_REALS);
    gpu_sync("before a download");
    if (v->prec == SOLVER_DOUBLE) {
        gpu_spinor_download(host, (const double *)v->data, ns, SITE_REALS);
        return;
    }
    float *x = (float *)lat_malloc(v->n * sizeof *x);
    if (v->prec == SOLVER_SINGLE) {
        float *t = (float *)lat_malloc(total * sizeof *t);
        gpu_download(t, v->data, total * sizeof *t);
        for (int64_t s = 0; s < ns; s++)
            for (int c = 0; c < SITE_REALS; c++) x[(size_t)s * SITE_REALS + c] = t[gpu_spinor_index(SITE_REALS, c, s)];
        free(t);
    } else {
        int16_t *q = (int16_t *)lat_malloc(v->n * sizeof *q), *t = (int16_t *)lat_malloc(total * sizeof *t);
        float *nm = (float *)lat_malloc(norms(ns) * sizeof *nm);
        gpu_download(t, v->data, total * sizeof *t);
        gpu_download(nm, v->norm, norms(ns) * sizeof *nm);
        for (int64_t s = 0; s < ns; s++)
            for (int c = 0; c < SITE_REALS; c++) q[(size_t)s * SITE_REALS + c] = t[gpu_spinor_index(SITE_REALS, c, s)];
        solver_half_dequantise(v->n, SITE_REALS, q, nm, x);
        free(q);
        free(t);
        free(nm);
    }
    for (size_t k = 0; k < v->n; k++) host[k] = x[k];
    free(x);
}

/* ---- one sweep: on one process a launch over every site; on a slab pack
 * the two faces, send them, launch the interior (it runs while the faces
 * travel), then the boundary slices.  Device to device (peer): the copies
 * follow the pack on the peer's stream, and the boundary launch waits on
 * the device for the neighbours' (gpu_peer_wait_device).  Staged: the
 * faces are downloaded (waiting for the small pack kernel only), the
 * interior launched, the host exchanges them with MPI, uploads the
 * received ones (queued behind the interior).  The launches are
 * asynchronous on the default stream. */
struct sweep_call { /* the interior launch, for gpu_faces_exchange */
    void (*run)(const struct dirac_gpu_sweep *);
    struct dirac_gpu_sweep *w;
};
static void sweep_interior(void *arg)
{
    struct sweep_call *c = (struct sweep_call *)arg;
    c->w->sites = DIRAC_SITES_INTERIOR;
    c->run(c->w);
}

static void sweep(struct dirac_gpu *g, struct dirac_gpu_sweep *w, int dbl)
{
    void (*run)(const struct dirac_gpu_sweep *) = dbl ? dirac_gpu_sweep_d : dirac_gpu_sweep_s;
    w->tg0 = g->tg0;
    w->ltg = g->ltg;
    w->face_fwd = w->face_bwd = NULL;
    w->face_out_fwd = w->face_out_bwd = NULL;
    if (!g->dom) {
        w->sites = DIRAC_SITES_ALL;
        run(w);
        return;
    }
    const size_t fb = g->faces.face_bytes / (dbl ? 1 : 2); /* 12 V3h reals of the compute precision */
    struct dirac_gpu_sweep pack = *w;
    /* not the direct pack: on slabs of 32 and 24 slices the interior hides
     * the copies, and a pack beside it only slows it (32^3x64 on two H100,
     * BiCGstab double-half, session 21: 1031 us an iteration direct, 1013
     * by the copy engine, 998 without faces) */
    (void)gpu_faces_pack_to(&g->faces, fb, 0, &pack.face_out_fwd, &pack.face_out_bwd); /* this rank's slots, no stream */
    if (!g->faces.no_halo) run(&pack);
    struct sweep_call c = {run, w};
    gpu_faces_exchange(&g->faces, fb, FACE_TAG, sweep_interior, &c, &w->face_fwd, &w->face_bwd);
    w->sites = DIRAC_SITES_BOUNDARY;
    run(w);
}

/* ---- Mhat: dirac.c's two sweeps ---------------------------------------------
 * t_e = A_ee^-1 D_eo in, then out_o = A_oo in - kappa^2 D_oe t_e (sign -1:
 * D^dag in both) */
void dirac_gpu_eo_apply_cols(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in, int ncols)
{
    dirac_gpu_check_vec(out, "Mhat's output");
    dirac_gpu_check_vec(in, "Mhat's input");
    const size_t n = ncols > 1 ? (size_t)ncols * dirac_gpu_col_sites(g) * SITE_REALS : (size_t)g->nsites * SITE_REALS;
    if (out->prec != in->prec || in->n != n || out->n != in->n || out->data == in->data)
        lat_die(1, "GPU Dirac", "internal error: Mhat on vectors of another size, mixed precisions or in place");
    if (ncols > 1 && g->dom) lat_die(1, "GPU Dirac", "internal error: Mhat on a block of columns on a t-slab");
    const enum solver_prec p = in->prec;
    struct solver_vec *t;
    if (ncols > 1) {
        if (g->tmp_cols[p] < ncols) {
            dirac_gpu_vec_free(g->tmp_block[p]);
            g->tmp_block[p] = dirac_gpu_block_new(g, p, ncols);
            g->tmp_cols[p] = ncols;
        }
        t = g->tmp_block[p];
    } else {
        if (!g->tmp[p]) g->tmp[p] = dirac_gpu_vec_new(g, p);
        t = g->tmp[p];
    }
    const int dbl = p == SOLVER_DOUBLE, half = p == SOLVER_HALF && g->half_link_bits == 16; /* 16-bit links */
    void *(*clov)[2] = dbl ? g->clov_d : half ? g->clov_h : g->clov_s;
    struct dirac_gpu_sweep w = {.links = dbl ? &g->links_d : &g->links_s, .spinor_prec = (int)p,
                                .sign = dag ? -1 : +1, .links16 = half ? g->links16 : NULL, .nrhs = ncols > 1 ? ncols : 1,
                                .col_sites = dirac_gpu_col_sites(g)};
    memcpy(w.phase, g->phase, sizeof w.phase);
    /* even: t_e = A_ee^-1 (D in)_e */
    w.clover = g->clover ? clov[1][0] : NULL;
    w.clover_step = g->clover && half ? g->clov_hs[1][0] : NULL;
    w.in = in->data;
    w.in_norm = in->norm;
    w.out = t->data;
    w.out_norm = t->norm;
    w.parity = 0;
    w.post_inv = 1;
    w.alpha = 1;
    sweep(g, &w, dbl);
    /* odd: out = A_oo in - kappa^2 (D t)_o */
    w.clover = g->clover ? clov[0][1] : NULL;
    w.clover_step = g->clover && half ? g->clov_hs[0][1] : NULL;
    w.in = t->data;
    w.in_norm = t->norm;
    w.loc = in->data;
    w.loc_norm = in->norm;
    w.out = out->data;
    w.out_norm = out->norm;
    w.parity = 1;
    w.post_inv = 0;
    w.alpha = -g->kappa * g->kappa;
    sweep(g, &w, dbl);
}

void dirac_gpu_eo_apply(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in)
{
    dirac_gpu_eo_apply_cols(g, dag, out, in, 1);
}

/* ---- the even-odd system's ends in double (dirac.c's arithmetic) ------------
 * Each step is one of dirac.c's site loops as a sweep of the same
 * arithmetic: the clover term alone (clover_only: dirac_cpu_clover), or a
 * hop with the local term added (clover NULL: DIRAC_LOCAL_ONE; A:
 * DIRAC_LOCAL_CLOVER).  A step the CPU does in registers between a hop and
 * A^-1 (the reconstruction's post_inv) goes through a double vector here:
 * storing a double is exact, so the bits are the same. */
static void check_double(const struct dirac_gpu *g, const struct solver_vec *v, const char *what)
{
    dirac_gpu_check_vec(v, what);
    if (v->prec != SOLVER_DOUBLE || v->n != (size_t)g->nsites * SITE_REALS)
        lat_die(1, "GPU Dirac", "internal error: %s is not a double half field of %lld sites", what, (long long)g->nsites);
}

static struct dirac_gpu_sweep double_sweep(const struct dirac_gpu *g)
{
    struct dirac_gpu_sweep w = {.links = &g->links_d, .spinor_prec = SOLVER_DOUBLE, .sign = +1};
    memcpy(w.phase, g->phase, sizeof w.phase);
    return w;
}

/* out = A_pp^-1 in (inv 1) or A_pp in (inv 0) on the sites of parity p; a
 * copy without clover.  Site-local: no faces on a slab. */
static void clover_step(struct dirac_gpu *g, int inv, int par, struct solver_vec *out, const struct solver_vec *in)
{
    struct dirac_gpu_sweep w = double_sweep(g);
    w.clover = g->clover ? g->clov_d[inv][par] : NULL;
    w.loc = in->data;
    w.out = out->data;
    w.parity = par;
    w.clover_only = 1;
    w.tg0 = g->tg0;
    w.ltg = g->ltg;
    w.sites = DIRAC_SITES_ALL;
    dirac_gpu_sweep_d(&w);
}

/* out_p = loc_p + alpha D_{p,1-p} in (C 0) or A_pp loc_p + alpha D in (C 1):
 * a sweep of parity p (collective on a slab) */
static void hop_step(struct dirac_gpu *g, int par, int with_clover, double alpha, struct solver_vec *out,
                     const struct solver_vec *in, const struct solver_vec *loc)
{
    struct dirac_gpu_sweep w = double_sweep(g);
    w.clover = with_clover && g->clover ? g->clov_d[0][par] : NULL;
    w.in = in->data;
    w.loc = loc->data;
    w.out = out->data;
    w.parity = par;
    w.alpha = alpha;
    sweep(g, &w, 1);
}

static struct solver_vec *even_scratch(struct dirac_gpu *g)
{
    if (!g->tmp[SOLVER_DOUBLE]) g->tmp[SOLVER_DOUBLE] = dirac_gpu_vec_new(g, SOLVER_DOUBLE);
    return g->tmp[SOLVER_DOUBLE];
}

/* dirac_eo_prepare: t_e = A_ee^-1 b_e, bhat_o = b_o + kappa D_oe t_e */
void dirac_gpu_eo_prepare(struct dirac_gpu *g, struct solver_vec *bhat_o, const struct solver_vec *b_e,
                          const struct solver_vec *b_o)
{
    check_double(g, bhat_o, "the prepared source");
    check_double(g, b_e, "the source's even half");
    check_double(g, b_o, "the source's odd half");
    const struct solver_vec *te = b_e;
    if (g->clover) {
        struct solver_vec *t = even_scratch(g);
        clover_step(g, 1, 0, t, b_e);
        te = t;
    }
    hop_step(g, 1, 0, g->kappa, bhat_o, te, b_o);
}

/* dirac_eo_reconstruct: x_e = A_ee^-1 (b_e + kappa D_eo x_o) */
void dirac_gpu_eo_reconstruct(struct dirac_gpu *g, struct solver_vec *x_e, const struct solver_vec *x_o,
                              const struct solver_vec *b_e)
{
    check_double(g, x_e, "the solution's even half");
    check_double(g, x_o, "the solution's odd half");
    check_double(g, b_e, "the source's even half");
    if (!g->clover) {
        hop_step(g, 0, 0, g->kappa, x_e, x_o, b_e);
        return;
    }
    struct solver_vec *t = even_scratch(g);
    hop_step(g, 0, 0, g->kappa, t, x_o, b_e);
    clover_step(g, 1, 0, x_e, t);
}

/* |b - M x|^2 and |b|^2: per parity (M x)_p = A_pp x_p - kappa D x_{1-p}
 * (dirac_apply's site arithmetic) into the scratch vector, then
 * |(M x)_p - b_p|^2 and |b_p|^2 by the caller's vector kernels; the even
 * part plus the odd part */
void dirac_gpu_residual_norm2(struct dirac_gpu *g, struct solver_blas *blas, const struct solver_vec *x_e,
                              const struct solver_vec *x_o, const struct solver_vec *b_e, const struct solver_vec *b_o,
                              double *r2, double *b2)
{
    const struct solver_vec *x[2] = {x_e, x_o}, *b[2] = {b_e, b_o};
    for (int p = 0; p < 2; p++) {
        check_double(g, x[p], "the solution");
        check_double(g, b[p], "the source");
    }
    struct solver_vec *t = even_scratch(g);
    double r[2], n[2];
    for (int p = 0; p < 2; p++) {
        hop_step(g, p, 1, -g->kappa, t, x[1 - p], x[p]);
        if (blas->axpy_norm2) {
            r[p] = blas->axpy_norm2(blas->ctx, -1, b[p], t);
        } else {
            blas->axpy(blas->ctx, -1, b[p], t);
            r[p] = blas->norm2(blas->ctx, t);
        }
        n[p] = blas->norm2(blas->ctx, b[p]);
    }
    *r2 = r[0] + r[1];
    *b2 = n[0] + n[1];
}

void dirac_gpu_set_half_links(struct dirac_gpu *g, int bits)
{
    if (bits != 16 && bits != 32) lat_die(1, "GPU Dirac", "internal error: half sweeps over %d-bit links", bits);
    g->half_link_bits = bits;
}

void dirac_gpu_counts(const struct dirac_gpu *g, enum solver_prec prec, double *flop, double *bytes, double *bytes_paper)
{
    const double link = g->links_d.recon == GPU_RECON_FULL ? 18 : g->links_d.recon; /* logical reals */
    /* stored reals of a link: FULL in float is 20 (whole 16-byte groups) */
    const double link_stored = prec == SOLVER_DOUBLE ? g->links_d.ncomp : g->links_s.ncomp;
    const double ss = prec == SOLVER_DOUBLE ? 8 : prec == SOLVER_SINGLE ? 4 : 2; /* a real of storage */
    const int half16 = prec == SOLVER_HALF && g->half_link_bits == 16;
    const double ls = prec == SOLVER_HALF && !half16 ? 4 : ss; /* a link or clover real */
    const double nb = prec == SOLVER_HALF ? 4 : 0; /* a half spinor's norm */
    const double spinor = SITE_REALS * ss + nb;
    const double clover = g->clover ? CLOVER_REALS * ls + (half16 ? 4 : 0) : 0; /* 16 bits: a factor per site */
    /* per sweep: 8 neighbours and 8 links, the clover, the output; the odd
     * sweep also reads the local spinor (links and clover in the spinor's
     * storage size, except half over 32-bit links) */
    *flop = g->clover ? 3696 : 2 * 1320 + 48;
    *bytes = 2 * (8 * (spinor + link_stored * ls) + clover + spinor) + spinor;
    /* the seed's rule (quda-multi-gpu §V.A), reals at the spinor's size */
    const double cl = g->clover ? CLOVER_REALS : 0;
    *bytes_paper = (2 * 8 * (SITE_REALS + link) + 2 * cl + SITE_REALS) * (prec == SOLVER_DOUBLE ? 8 : 4);
}

#endif
