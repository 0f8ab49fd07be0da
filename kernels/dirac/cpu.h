/* dirac/cpu.h -- private to the Dirac module: the operator's state and the
 * site loop of dirac/cpu.c, which is compiled per precision variant
 * (kernels/cpu/variant.h): _d reads the double copies below, _s (and _m,
 * built but not used) the float ones.
 *
 * dirac_cpu_sweep_<v>(op, w, out, in, loc) computes, for every owned output
 * site x (w->parity -1: all owned sites, full fields; 0 or 1: the owned
 * sites of that global parity, out and loc half fields of that parity, in
 * the half field of the other one).  out and loc hold the owned sites only
 * (index (x - off) >> shift); in is a local field, halo slices included and
 * current (index x >> shift: on one rank the same thing):
 *     v = w->alpha * D_s in (x)  [+ loc(x) | + A(x) loc(x)]   (w->local)
 *     out(x) = w->post_inv ? A(x)^-1 v : v
 * with D_s the hopping term of sign w->sign (site.h: +1 D, -1 D^dag).  A is
 * 1 when the operator has no clover term.  out never aliases in or loc.
 * dirac_cpu_clover_<v>(op, parity, inv, out, in): out = A in or A^-1 in on
 * the sites of a parity (half fields) or all (-1, full fields).
 * dirac_clover_build: clover.c's contract. */
#ifndef LAT_DIRAC_CPU_H
#define LAT_DIRAC_CPU_H

#include "dirac/dirac.h"
#include "lattice/geometry.h"
#include "lattice/sites.h"
#include <stdint.h>

struct dirac_op {
    struct lattice lat;    /* this rank's lattice: the whole one, or the slab with its two halo slices */
    const struct geometry *dom; /* NULL: one rank */
    int64_t off, vo;       /* owned sites: local sites off .. off+vo-1 (off 0 or one slice, vo = V or lt V3) */
    int nc;
    double kappa, csw;
    double phase[LAT_ND][2];
    int clover;            /* csw != 0: A and A^-1 stored */
    int64_t vh;            /* vo/2: owned sites of one parity */
    int32_t *fwd, *bwd;    /* fwd[4x + mu] = x + mu, bwd[4x + mu] = x - mu (periodic; local sites) */
    int32_t *half_site[2]; /* the local site of owned half index i of global parity p */
    double *links_d;       /* 4 V links (halo slices included), boundary phases folded in (dirac.h) */
    float *links_f;
    double *clov_d, *clovinv_d; /* CLOVER_SITE_REALS(nc) per owned site x - off (site.h), or NULL */
    float *clov_f, *clovinv_f;
    double *tmp_d;         /* a local half field (V/2 sites, halos included): Mhat's even intermediate */
    float *tmp_f;
    double *pad_d;         /* on a slab: a local full field, the input of a sweep with its halo slices */
    float *pad_f;
};

enum dirac_local { DIRAC_LOCAL_NONE = 0, DIRAC_LOCAL_ONE, DIRAC_LOCAL_CLOVER };

struct dirac_sweep {
    int parity;    /* -1: all sites, full fields; 0/1: output parity, half fields */
    int sign;      /* +1: D, -1: D^dag */
    double alpha;  /* coefficient of the hopping term */
    enum dirac_local local;
    int post_inv;  /* finish with A^-1 */
};

/* dirac/clover.c: A and A^-1 of every owned site from op->links_d (halo
 * slices current, no boundary phases folded in yet): 0, or -1 with why */
int dirac_clover_build(struct dirac_op *op, char *why, size_t len);

#define DIRAC_CPU_DECLARE(sfx)                                                                             \
    void dirac_cpu_sweep_##sfx(const struct dirac_op *op, const struct dirac_sweep *w, void *out,          \
                               const void *in, const void *loc);                                          \
    void dirac_cpu_clover_##sfx(const struct dirac_op *op, int parity, int inv, void *out, const void *in);
DIRAC_CPU_DECLARE(d)
DIRAC_CPU_DECLARE(s)
DIRAC_CPU_DECLARE(m)

#endif
