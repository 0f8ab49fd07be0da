/* heatbath/gpu.cu -- the CUDA heatbath backend `hb_backend_gpu`
 * (heatbath/backend.h; extern "C"): the host side.  Built only with CUDA.
 *
 * Exported: hb_backend_gpu (create, heatbath, overrelax, measure, download,
 * destroy), hb_gpu_candidate_name (heatbath/gpu.h).
 * Contract: precisions 'd' (double), 's' (single) and 'm' (single storage,
 * double arithmetic), SU(N) for N = 2 .. GPU_MAX_NC (gpu/gpu.h;
 * tools/shared/device_opt.c refuses other N before create is called).  The field is the GPU layer's device
 * field (gpu/field.h: gpu_field_create/upload/download/free), and so are
 * the slab step of MPI runs (gpu_slab_step) and the measurements (plaquette
 * all/spatial/temporal and Polyakov loop, gpu_field_observables:
 * deterministic, fixed grid, per-block partial sums added in order on the
 * host).  Sweeps are the kernels of heatbath/gpu_sweep.cuh, in the order
 * and with the random streams of heatbath/backend.h, so a chain agrees with
 * the CPU backend's to rounding.  Measurements of SU(N >= 4) are the
 * host's of the downloaded field until the GPU layer's observables take
 * every N (issue 17, part A).  Errors end the program with one line and
 * exit 1 (gpu/util.cu). */
#include "heatbath/link.h" /* first: the C++ view of the header math */
#include "heatbath/gpu.h"
extern "C" {
#include "lattice/geometry.h"
#include "heatbath/backend.h"
#include "base/log.h"
#include "lattice/observables.h"
}
#include <stdlib.h>

struct hb_state {
    struct gpu_field f;   /* the device field */
    struct gpu_slab slab; /* slab.dom: NULL on one rank */
    char precision;
};

extern "C" const char *hb_gpu_candidate_name(int nc, int c)
{
    static const char *names[HB_CANDIDATES] = {"L1 loads, 128 threads", "L2-only loads, 128 threads",
                                               "L1 loads, 256 threads", "L1 loads, 64 threads",
                                               "L1 loads, 128 threads, >= 3 blocks/SM",
                                               "L1 loads, 128 threads, >= 4 blocks/SM"};
    if (c < 0 || c >= HB_GPU_NCAND(nc)) return NULL;
    if (nc >= 5) return c == 0 ? names[0] : names[3];
    return names[c];
}

static struct hb_state *gpu_create(const struct field *u, char precision)
{
    if (u->nc < hb_backend_gpu.min_nc || u->nc > hb_backend_gpu.max_nc) /* device_opt.c asked first */
        lat_die(1, "GPU", "internal error: the CUDA heatbath has no kernels for SU(%d)", u->nc);
    struct hb_state *s = (struct hb_state *)lat_calloc(1, sizeof *s);
    s->precision = precision;
    gpu_field_create(&s->f, u, precision, 0);
    gpu_field_upload(&s->f, u, NULL);
    gpu_slab_init(&s->slab, &s->f, u->dom);
    return s;
}

struct hb_launch { char precision; int heatbath; double beta; uint64_t seed; uint32_t k; int mu; };

static void launch(const struct gpu_field *f, const struct hb_launch *a, int parity)
{
    switch (a->precision) {
    case 'd': gpu_hb_sweep_d(f, a->heatbath, a->beta, a->seed, a->k, parity, a->mu); break;
    case 's': gpu_hb_sweep_s(f, a->heatbath, a->beta, a->seed, a->k, parity, a->mu); break;
    default: gpu_hb_sweep_m(f, a->heatbath, a->beta, a->seed, a->k, parity, a->mu); break;
    }
}

static void slab_launch(struct gpu_field *f, int local_parity, void *arg)
{
    launch(f, (const struct hb_launch *)arg, local_parity);
}

static void sweep(struct hb_state *s, int heatbath, double beta, uint64_t seed, uint32_t k)
{
    struct hb_launch a = {s->precision, heatbath, beta, seed, k, 0};
    const struct geometry *d = s->slab.dom;
    if (!d) {
        launch(&s->f, &a, -1);
        return;
    }
    /* a slab of an MPI run: each (parity, mu) step's changed links go to the
     * neighbours' halos while the interior is updated (heatbath_backend.h) */
    for (int p = 0; p < 2; p++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            struct halo_part parts[2];
            int n = halo_parts_heatbath(d, p, mu, parts);
            a.mu = mu;
            gpu_slab_step(&s->slab, &s->f, p, parts, n, slab_launch, &a);
        }
}

static void gpu_heatbath(struct hb_state *s, double beta, uint64_t seed, uint32_t k) { sweep(s, 1, beta, seed, k); }

static void gpu_overrelax(struct hb_state *s) { sweep(s, 0, 0, 0, 0); }

static void gpu_measure(struct hb_state *s, struct plaquette *p, double *re, double *im)
{
    const struct geometry *d = s->slab.dom;
    if (d || s->f.nc > 3) { /* a slab: the host's R-independent sums over the ranks;
                             * SU(N >= 4): the GPU layer's observables kernels
                             * are SU(2), SU(3) only (issue 17, part A) */
        struct field u;
        if (d) geometry_field_alloc(&u, d, &d->global, s->f.nc, 64);
        else {
            struct lattice lat;
            const char *why;
            lattice_init(&lat, s->f.L, &why);
            field_alloc(&u, &lat, s->f.nc, 64);
        }
        gpu_field_download(&s->f, &u, NULL);
        if (p) *p = measure_plaquette(&u);
        if (re && im) measure_polyakov(&u, re, im);
        field_free(&u);
        return;
    }
    struct gpu_observables o;
    gpu_field_observables(&s->f, &o);
    if (p) {
        p->all = o.plaq;
        p->spatial = o.plaq_s;
        p->temporal = o.plaq_t;
    }
    if (re && im) {
        *re = o.poly_re;
        *im = o.poly_im;
    }
}

static void gpu_download(struct hb_state *s, struct field *u) { gpu_field_download(&s->f, u, NULL); }

static void gpu_destroy(struct hb_state *s)
{
    if (!s) return;
    gpu_field_free(&s->f);
    gpu_slab_free(&s->slab);
    free(s);
}

extern "C" const struct hb_backend hb_backend_gpu = {
    "gpu", GPU_MIN_NC, GPU_MAX_NC, gpu_create, gpu_heatbath, gpu_overrelax, gpu_measure, gpu_download, gpu_destroy,
};
