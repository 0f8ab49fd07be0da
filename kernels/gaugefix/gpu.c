/* gaugefix/gpu.c -- the CUDA gauge-fixing backend `gf_backend_gpu`
 * (gaugefix/backend.h): the host side.  Plain C; built only with CUDA
 * (LAT_HAVE_CUDA), the kernels are in gpu_{d,s,m}.cu.
 *
 * Exported: gf_backend_gpu (create, sweep, measure, reunitarize, download,
 * destroy of backend.h) and gf_gpu_field (the state's device field).
 * The device field, its upload and download and the slab step are the GPU
 * layer's (gpu/field.h); this file dispatches every operation on the
 * precision ('d' double, 's' single, 'm' single storage with double
 * arithmetic), keeps the Coulomb timeslice mask on the device up to date,
 * and normalises the deterministic per-timeslice sums of the kernels exactly
 * as gauge_quality_measure does on the host (F = mean over timeslices of
 * F_t).  Errors (no device, out of memory, CUDA failures) end the program
 * with one line and exit 1 (gpu/util.cu). */
#ifdef LAT_HAVE_CUDA
#include "gaugefix/backend.h"
#include "gaugefix/gpu.h"
#include "gpu/gpu.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

struct gf_state {
    struct gpu_field f;
    unsigned char *active_host; /* the mask now on the device (Lt bytes) */
    int active_valid;
    /* a slab of an MPI run (geometry.h; slab.dom NULL: one rank): the device
     * holds the local lattice (lt+2 slices, lt even) */
    struct gpu_slab slab;
    unsigned char *active_local;
};

/* reals per SU(3) link of the fields created from now on (0: the default, 12) */
static int link_reals;
static void gpu_set_link_reals(int reals) { link_reals = reals == 8 ? GPU_RECON_8 : 0; }

static struct gf_state *gpu_create(const struct field *u, const double *transform, char precision)
{
    if (precision != 'd' && precision != 's' && precision != 'm')
        lat_die(2, NULL, "--precision: '%c' is not one of double|single|mixed", precision);
    if (link_reals == GPU_RECON_8 && u->nc != 3) lat_die(1, NULL, "8-real links are for SU(3), not SU(%d)", u->nc);
    if (link_reals == GPU_RECON_8 && precision == 'd')
        lat_die(2, NULL, "8-real links are for single and mixed precision (--precision single|mixed)");
    struct gf_state *s = lat_calloc(1, sizeof *s);
    gpu_field_create_recon(&s->f, u, precision, transform != NULL, link_reals);
    gpu_field_upload(&s->f, u, transform);
    s->active_host = lat_calloc((size_t)s->f.L[3], 1);
    gpu_slab_init(&s->slab, &s->f, u->dom);
    if (u->dom) s->active_local = lat_calloc((size_t)s->f.L[3], 1);
    gpu_sync("upload");
    return s;
}

static void sweep_launch(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy,
                         uint32_t sweep_index, int act, int parity)
{
    struct gpu_field *f = &s->f;
    switch (f->prec) {
    case 'd': gpu_gf_sweep_d(f, p, seed, copy, sweep_index, act, parity); break;
    case 's': gpu_gf_sweep_s(f, p, seed, copy, sweep_index, act, parity); break;
    default: gpu_gf_sweep_m(f, p, seed, copy, sweep_index, act, parity); break;
    }
}

struct gf_launch { struct gf_state *s; const struct gf_params *p; uint64_t seed; uint32_t copy, sweep; int act; };

static void gf_launch(struct gpu_field *f, int local_parity, void *arg)
{
    const struct gf_launch *a = arg;
    (void)f;
    sweep_launch(a->s, a->p, a->seed, a->copy, a->sweep, a->act, local_parity);
}

static void gpu_sweep(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy, uint32_t sweep_index,
                      const unsigned char *active_t)
{
    struct gpu_field *f = &s->f;
    const struct geometry *d = s->slab.dom;
    if (active_t && d) { /* the global mask, seen from the slab */
        for (int t = 0; t < f->L[3]; t++)
            s->active_local[t] = t >= 1 && t <= d->lt ? active_t[geometry_t_global(d, t)] : 0;
        active_t = s->active_local;
    }
    if (active_t && (!s->active_valid || memcmp(active_t, s->active_host, (size_t)f->L[3]) != 0)) {
        memcpy(s->active_host, active_t, (size_t)f->L[3]);
        gpu_upload(f->active, active_t, (size_t)f->L[3]);
        s->active_valid = 1;
    }
    int act = active_t != NULL;
    if (!d) {
        sweep_launch(s, p, seed, copy, sweep_index, act, -1);
        return;
    }
    /* a slab: per (global) parity the boundary slices 1 and lt, their links
     * on their way to the neighbours while the interior 2..lt-1 updates */
    struct gf_launch a = {s, p, seed, copy, sweep_index, act};
    for (int par = 0; par < 2; par++) {
        struct halo_part parts[2];
        int n = halo_parts_gaugefix(d, gf_ndirs(p->gauge), par, parts);
        gpu_slab_step(&s->slab, f, par, parts, n, gf_launch, &a);
    }
}

static void gpu_measure(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q)
{
    struct gpu_field *f = &s->f;
    int nt = f->L[3], n = f->nc;
    double *out = lat_calloc((size_t)2 * nt, sizeof(double));
    switch (f->prec) {
    case 'd': gpu_gf_quality_d(f, g, out); break;
    case 's': gpu_gf_quality_s(f, g, out); break;
    default: gpu_gf_quality_m(f, g, out); break;
    }
    const struct geometry *d = s->slab.dom;
    if (d) { /* owned slices into their global slots; the others' zeros add exactly */
        int Lt = d->global.L[3];
        double *all = lat_calloc((size_t)2 * Lt, sizeof(double));
        for (int t = 1; t <= d->lt; t++) {
            all[2 * geometry_t_global(d, t)] = out[2 * t];
            all[2 * geometry_t_global(d, t) + 1] = out[2 * t + 1];
        }
        comm_sum(all, (size_t)2 * Lt);
        gauge_quality_from_sums(q, g, n, d->global.V, Lt, all);
        free(all);
    } else {
        gauge_quality_from_sums(q, g, n, f->V, nt, out);
    }
    free(out);
}

static void gpu_reunitarize(struct gf_state *s)
{
    switch (s->f.prec) {
    case 'd': gpu_gf_reunitarize_d(&s->f); break;
    case 's': gpu_gf_reunitarize_s(&s->f); break;
    default: gpu_gf_reunitarize_m(&s->f); break;
    }
}

static void gpu_download_all(struct gf_state *s, struct field *u, double *transform)
{
    gpu_field_download(&s->f, u, transform);
}

static void gpu_destroy(struct gf_state *s)
{
    if (!s) return;
    gpu_field_free(&s->f);
    free(s->active_host);
    gpu_slab_free(&s->slab);
    free(s->active_local);
    free(s);
}

/* Reprojection every 10 sweeps in every precision: the GPU keeps two rows
 * and rebuilds the third from their cross product, which multiplies the
 * rows' norm errors: where g(x) is far from 1 (annealing, microcanonical
 * steps, the first OR sweeps) the deviation grows ~1.2x per sweep
 * (measured with the kernels emulated on the host), from 1e-7 in single to
 * NaN within ~100 sweeps; every 10 sweeps bounds it to ~6x rounding in
 * every precision for ~5 % of the sweep time (a reprojection moves half a
 * sweep's bytes).  Kernels: SU(GPU_MIN_NC)..SU(GPU_MAX_NC) (gpu/gpu.h;
 * gpu_sweep.cuh); whole-matrix links for N != 3 drift only by rounding, the
 * same default keeps one rule for every N. */
const struct gf_backend gf_backend_gpu = {
    "gpu", GPU_MIN_NC, GPU_MAX_NC, {10, 10, 10},
    gpu_create, gpu_sweep, gpu_measure, gpu_reunitarize, gpu_download_all, gpu_destroy, gpu_inject_fault,
    gpu_set_link_reals,
};

const struct gpu_field *gf_gpu_field(struct gf_state *s) { return &s->f; }

#else
typedef int gaugefix_gpu_disabled; /* built without CUDA: nothing here */
#endif
