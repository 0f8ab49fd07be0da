/* dirac/staggered_cpu.h -- private to the Dirac module: the staggered
 * operator's state and the site loop of dirac/staggered_cpu.c, compiled per
 * precision variant (kernels/cpu/variant.h): _d reads the double links, _s
 * (and _m, built but unused) the float ones.
 *
 * staggered_cpu_sweep_<v>(op, w, out, in, loc) computes for every owned
 * output site x (w->parity -1: all owned sites, full fields; 0 or 1: the
 * owned sites of that parity, out and loc half fields of that parity, in the
 * half field of the other one)
 *     out(x) = w->alpha * sum_mu [U'_mu(x) in(x+mu) - U'_mu(x-mu)^dag in(x-mu)]
 *              + w->beta * loc(x)              (loc NULL: no second term)
 * (staggered_site.h; alpha = 1/2 gives D).  out never aliases in or loc.
 * out and loc hold the owned sites (index (x - off) >> shift); in is a
 * local field, halo slices included (index x >> shift; on one process the
 * two are the same vector). */
#ifndef LAT_DIRAC_STAGGERED_CPU_H
#define LAT_DIRAC_STAGGERED_CPU_H

#include "dirac/staggered.h"
#include "lattice/sites.h"
#include <stdint.h>

struct staggered_op {
    struct lattice lat;    /* the local lattice: the whole one, or the slab with its two halo slices */
    const struct geometry *dom; /* NULL: one process */
    int nc;
    double mass;
    int64_t off, vo;       /* owned sites: local sites off .. off+vo-1 (off 0 or one slice, vo = V or lt V3) */
    int64_t vh;            /* vo/2: owned sites of one parity */
    int32_t *fwd, *bwd;    /* fwd[4x + mu] = x + mu, bwd[4x + mu] = x - mu (local lattice, periodic) */
    int32_t *half_site[2]; /* the local site of owned half index i of parity p */
    signed char *phase;    /* phase[4x + mu]: eta_mu(x) times the boundary sign */
    double *links_d;       /* 4 V folded links U'_mu(x) */
    float *links_f;
    double *tmp_d;         /* a local half field (halo slices included): the odd intermediate of (M^dag M)_ee */
    float *tmp_f;
    double *pad_d;         /* on a slab: a local full field, the input of a sweep with its halo slices */
    float *pad_f;
};

struct staggered_sweep {
    int parity;   /* -1: all sites, full fields; 0/1: output parity, half fields */
    double alpha; /* coefficient of the hop sum */
    double beta;  /* coefficient of loc */
};

#define STAGGERED_CPU_DECLARE(sfx)                                                                          \
    void staggered_cpu_sweep_##sfx(const struct staggered_op *op, const struct staggered_sweep *w, void *out, \
                                   const void *in, const void *loc);
STAGGERED_CPU_DECLARE(d)
STAGGERED_CPU_DECLARE(s)
STAGGERED_CPU_DECLARE(m)

#endif
