/* fft/cpu.c -- the transforms of fft.h with FFTW3, one build per precision
 * variant (float: fftwf_*).  Exports the functions of fft.h. */
#include "fft/fft.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#ifdef LAT_HAVE_FFTW
#include <fftw3.h>
#ifdef LAT_VARIANT_S
#define FFTW(name) fftwf_##name
#else
#define FFTW(name) fftw_##name
#endif
typedef FFTW(plan) fft_plan_t;
typedef FFTW(complex) fft_complex_t;
#endif

struct lat_fft {
    struct lattice glob;
    const struct geometry *dom;
    int dims, ncomp, R, rank, lt, t0;
    int64_t v3, k3b, k3e, count;
#ifdef LAT_HAVE_FFTW
    fft_plan_t p3[2], p1[2]; /* [0] forward, [1] backward */
#endif
    lat_complex *tmp;        /* the transpose's other half (R > 1) */
    const unsigned char *on; /* dims 3: slices to transform (fft_skip), NULL all */
};

/* the spatial momenta [begin, end) whose t-lines rank q transforms */
static int64_t chunk_begin(const struct lat_fft *f, int q) { return (int64_t)q * f->v3 / f->R; }

struct lat_fft *CPU_VARIANT(fft_create)(const struct lattice *global, const struct geometry *dom, int dims, int ncomp)
{
#ifndef LAT_HAVE_FFTW
    (void)global; (void)dom; (void)dims; (void)ncomp;
    lat_die(1, NULL, "this build has no FFT (FFTW3 was not found at build time: install libfftw3-dev and rebuild)");
#else
    struct lat_fft *f = lat_malloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->glob = *global;
    f->dom = dom;
    f->dims = dims;
    f->ncomp = ncomp;
    f->R = dom ? dom->size : 1;
    f->rank = dom ? dom->rank : 0;
    f->lt = dom ? dom->lt : global->L[3];
    f->t0 = dom ? dom->t0 : 0;
    f->v3 = global->V / global->L[3];
    f->k3b = dims == 4 ? chunk_begin(f, f->rank) : 0;
    f->k3e = dims == 4 ? chunk_begin(f, f->rank + 1) : f->v3;
    int64_t maxchunk = (f->v3 + f->R - 1) / f->R;
    f->count = (int64_t)f->lt * f->v3;
    if (dims == 4 && (int64_t)global->L[3] * maxchunk > f->count) f->count = (int64_t)global->L[3] * maxchunk;
    const int *L = global->L;
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    fft_complex_t *a = FFTW(malloc)(sizeof(fft_complex_t) * (size_t)(f->v3 > L[3] ? f->v3 : L[3]));
    for (int s = 0; s < 2; s++) {
        int sign = s ? FFTW_BACKWARD : FFTW_FORWARD;
        f->p3[s] = FFTW(plan_dft_3d)(L[2], L[1], L[0], a, a, sign, flags);
        f->p1[s] = FFTW(plan_dft_1d)(L[3], a, a, sign, flags);
        if (!f->p3[s] || !f->p1[s]) lat_die(1, NULL, "FFTW could not plan a transform of %dx%dx%dx%d", L[0], L[1], L[2], L[3]);
    }
    FFTW(free)(a);
    if (dims == 4 && f->R > 1) f->tmp = lat_malloc(sizeof(lat_complex) * (size_t)ncomp * (size_t)f->count);
    return f;
#endif
}

void CPU_VARIANT(fft_destroy)(struct lat_fft *f)
{
    if (!f) return;
#ifdef LAT_HAVE_FFTW
    for (int s = 0; s < 2; s++) {
        FFTW(destroy_plan)(f->p3[s]);
        FFTW(destroy_plan)(f->p1[s]);
    }
#endif
    free(f->tmp);
    free(f);
}

int64_t CPU_VARIANT(fft_count)(const struct lat_fft *f) { return f->count; }

void CPU_VARIANT(fft_skip)(struct lat_fft *f, const unsigned char *on) { f->on = f->dims == 3 ? on : NULL; }

int64_t CPU_VARIANT(fft_kcount)(const struct lat_fft *f)
{
    return f->dims == 4 ? (int64_t)f->glob.L[3] * (f->k3e - f->k3b) : (int64_t)f->lt * f->v3;
}

void CPU_VARIANT(fft_momentum)(const struct lat_fft *f, int64_t j, int k[4])
{
    int64_t s;
    if (f->dims == 4) {
        int64_t chunk = f->k3e - f->k3b;
        k[3] = (int)(j / chunk);
        s = f->k3b + j % chunk;
    } else {
        k[3] = f->t0 + (int)(j / f->v3);
        s = j % f->v3;
    }
    k[0] = (int)(s % f->glob.L[0]);
    k[1] = (int)(s / f->glob.L[0] % f->glob.L[1]);
    k[2] = (int)(s / ((int64_t)f->glob.L[0] * f->glob.L[1]));
}

#ifdef LAT_HAVE_FFTW
/* every (component, owned timeslice): one 3-D transform */
static void slices(struct lat_fft *f, lat_complex *buf, int s)
{
    const int64_t n = (int64_t)f->ncomp * f->lt;
#pragma omp parallel for schedule(static) if (n > 1 && f->v3 >= 512)
    for (int64_t i = 0; i < n; i++) {
        if (f->on && !f->on[f->t0 + i % f->lt]) continue;
        fft_complex_t *p = (fft_complex_t *)(buf + (i / f->lt) * f->count + (i % f->lt) * f->v3);
        FFTW(execute_dft)(f->p3[s], p, p);
    }
}

/* every (component, spatial momentum of this rank): one transform along t,
 * on a contiguous copy of the line */
static void lines(struct lat_fft *f, lat_complex *buf, int s)
{
    const int Lt = f->glob.L[3];
    const int64_t chunk = f->k3e - f->k3b, n = (int64_t)f->ncomp * chunk;
#pragma omp parallel if (n >= 256)
    {
        fft_complex_t *line = lat_malloc(sizeof(fft_complex_t) * (size_t)Lt);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            lat_complex *p = buf + (i / chunk) * f->count + i % chunk;
            for (int t = 0; t < Lt; t++) memcpy(line[t], p + t * chunk, sizeof(lat_complex));
            FFTW(execute_dft)(f->p1[s], line, line);
            for (int t = 0; t < Lt; t++) memcpy(p + t * chunk, line[t], sizeof(lat_complex));
        }
        free(line);
    }
}

/* [c][t_own][v3] (to_lines) <-> [c][t][chunk] between the R slabs: rank r
 * sends rank q, for every component and owned slice, the numbers of q's
 * chunk; the pieces are (c, t) blocks, so a message is ncomp * lt blocks */
static void transpose(struct lat_fft *f, lat_complex *buf, int to_lines)
{
    const int R = f->R, me = f->rank, lt = f->lt;
    const size_t cs = sizeof(lat_complex);
    lat_complex *tmp = f->tmp;
    /* pack: tmp holds, for each peer q in turn, its message */
    size_t *off = lat_malloc(sizeof(size_t) * (size_t)(R + 1));
    off[0] = 0;
    for (int q = 0; q < R; q++) {
        int64_t cq = to_lines ? chunk_begin(f, q + 1) - chunk_begin(f, q) : f->k3e - f->k3b;
        off[q + 1] = off[q] + (size_t)f->ncomp * (size_t)lt * (size_t)cq;
    }
    for (int q = 0; q < R; q++) {
        int64_t b = chunk_begin(f, q), e = chunk_begin(f, q + 1), mc = f->k3e - f->k3b;
        lat_complex *m = tmp + off[q];
        for (int c = 0; c < f->ncomp; c++)
            for (int t = 0; t < lt; t++) {
                if (to_lines) /* my slice t, q's chunk */
                    memcpy(m, buf + c * f->count + t * f->v3 + b, cs * (size_t)(e - b)), m += e - b;
                else /* q's slice t, my chunk */
                    memcpy(m, buf + c * f->count + (int64_t)(q * lt + t) * mc, cs * (size_t)mc), m += mc;
            }
    }
    /* exchange: what q sends me has the size of what I send q with the
     * roles swapped, so receive into buf directly after the unpack below
     * would overwrite unsent data -- receive into a second area instead */
    lat_complex *rcv = lat_malloc(cs * (size_t)f->ncomp * (size_t)f->count);
    size_t *roff = lat_malloc(sizeof(size_t) * (size_t)(R + 1));
    roff[0] = 0;
    for (int q = 0; q < R; q++) {
        int64_t cq = to_lines ? f->k3e - f->k3b : chunk_begin(f, q + 1) - chunk_begin(f, q);
        roff[q + 1] = roff[q] + (size_t)f->ncomp * (size_t)lt * (size_t)cq;
    }
    memcpy(rcv + roff[me], tmp + off[me], cs * (off[me + 1] - off[me]));
    for (int base = 0; base < R; base += COMM_MAXREQ / 2) {
        struct comm_reqs rq = {0};
        for (int q = base; q < R && q < base + COMM_MAXREQ / 2; q++) {
            if (q == me) continue;
            comm_irecv(rcv + roff[q], cs * (roff[q + 1] - roff[q]), q, 0x5ff, &rq);
            comm_isend(tmp + off[q], cs * (off[q + 1] - off[q]), q, 0x5ff, &rq);
        }
        comm_waitall(&rq);
    }
    /* unpack */
    for (int q = 0; q < R; q++) {
        const lat_complex *m = rcv + roff[q];
        int64_t b = chunk_begin(f, q), e = chunk_begin(f, q + 1), mc = f->k3e - f->k3b;
        for (int c = 0; c < f->ncomp; c++)
            for (int t = 0; t < lt; t++) {
                if (to_lines) /* q's slice t, my chunk */
                    memcpy(buf + c * f->count + (int64_t)(q * lt + t) * mc, m, cs * (size_t)mc), m += mc;
                else /* my slice t, q's chunk */
                    memcpy(buf + c * f->count + t * f->v3 + b, m, cs * (size_t)(e - b)), m += e - b;
            }
    }
    free(rcv);
    free(roff);
    free(off);
}
#endif

void CPU_VARIANT(fft_forward)(struct lat_fft *f, lat_complex *buf)
{
#ifdef LAT_HAVE_FFTW
    slices(f, buf, 0);
    if (f->dims < 4) return;
    if (f->R > 1) transpose(f, buf, 1);
    lines(f, buf, 0);
#else
    (void)f; (void)buf;
#endif
}

void CPU_VARIANT(fft_backward)(struct lat_fft *f, lat_complex *buf)
{
#ifdef LAT_HAVE_FFTW
    if (f->dims == 4) {
        lines(f, buf, 1);
        if (f->R > 1) transpose(f, buf, 0);
    }
    slices(f, buf, 1);
#else
    (void)f; (void)buf;
#endif
}
