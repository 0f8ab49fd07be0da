/* dirac/cpu.h -- private to the Dirac module: the operator's state and the
 * site loop of dirac/cpu.c, which is compiled per precision variant
 * (kernels/cpu/variant.h): _d reads the double copies below, _s (and _m,
 * built but not used) the float ones.
 *
 * dirac_cpu_sweep_<v>(op, w, out, in, loc) computes, for every output site x
 * (w->parity -1: all V sites of full fields; 0 or 1: the sites of that
 * parity, out and loc half fields of that parity, in the half field of the
 * other one):
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
#include "lattice/sites.h"
#include <stdint.h>

struct dirac_op {
    struct lattice lat;
    int nc;
    double kappa, csw;
    double phase[LAT_ND][2];
    int clover;            /* csw != 0: A and A^-1 stored */
    int64_t vh;            /* V/2 */
    int32_t *fwd, *bwd;    /* fwd[4x + mu] = x + mu, bwd[4x + mu] = x - mu (periodic) */
    int32_t *half_site[2]; /* the full site of half index i of parity p */
    double *links_d;       /* 4 V links, boundary phases folded in (dirac.h) */
    float *links_f;
    double *clov_d, *clovinv_d; /* CLOVER_SITE_REALS(nc) per site (site.h), or NULL */
    float *clov_f, *clovinv_f;
    double *tmp_d;         /* a half field: Mhat's even intermediate */
    float *tmp_f;
};

enum dirac_local { DIRAC_LOCAL_NONE = 0, DIRAC_LOCAL_ONE, DIRAC_LOCAL_CLOVER };

struct dirac_sweep {
    int parity;    /* -1: all sites, full fields; 0/1: output parity, half fields */
    int sign;      /* +1: D, -1: D^dag */
    double alpha;  /* coefficient of the hopping term */
    enum dirac_local local;
    int post_inv;  /* finish with A^-1 */
};

/* dirac/clover.c: A and A^-1 of every site (0, or -1 with why) */
int dirac_clover_build(struct dirac_op *op, const struct field *u, char *why, size_t len);

#define DIRAC_CPU_DECLARE(sfx)                                                                             \
    void dirac_cpu_sweep_##sfx(const struct dirac_op *op, const struct dirac_sweep *w, void *out,          \
                               const void *in, const void *loc);                                          \
    void dirac_cpu_clover_##sfx(const struct dirac_op *op, int parity, int inv, void *out, const void *in);
DIRAC_CPU_DECLARE(d)
DIRAC_CPU_DECLARE(s)
DIRAC_CPU_DECLARE(m)

#endif
