/* meson.h -- meson two-point functions of the local bilinears from point
 * or wall propagators (lat-meson; lat-meson(1) and lat(7), MESONS).
 *
 * S1, S2: the 4 nc columns of two propagators from the same source x0
 * (io/propagator.h: column k = spin*nc + colour, full spinor fields), S2 =
 * S1 for degenerate quarks.  For O_G = psibar G psi and its Hilbert-space
 * conjugate O_G^+ = psibar Gbar psi, Gbar = gamma_t G^dag gamma_t,
 *   C_G(t, p) = sum_xvec e^{-i p.(xvec - x0vec)} < O_G(xvec, t0 + t) O_G^+(x0) >
 *             = - sum_xvec e^{-i p.(xvec - x0vec)} tr[ G S1(x,x0) Gbar S2(x0,x) ],
 * with the antiquark from gamma5-hermiticity, S2(x0,x) = gamma5 S2(x,x0)^dag
 * gamma5 (the minus sign is the fermion loop's).  So C_pi(t) = sum |S|^2 > 0.
 * t runs 0..T-1 from the source timeslice t0 (periodic wrap), p = 0 or
 * |p|^2 = 1 in units of (2 pi / L)^2 (the six +-e_i, averaged), the
 * polarisations of vector channels averaged; the real part is reported
 * (the imaginary part is zero up to rounding on average; not printed).
 *
 * Channels (the DeGrand-Rossi gammas of math/spinor.h):
 *   pi    gamma5                       0-+
 *   pi_t  gamma_t gamma5               0-+ (axial, temporal)
 *   rho   gamma_i, i = x,y,z           1--
 *   a0    1                            0++
 *   a1    gamma_i gamma5               1++
 *   b1    gamma_i gamma_j, (ij) = (xy),(yz),(zx)  1+- (the tensor sigma_ij)
 *
 * Effective masses: log m(t) = ln(C(t)/C(t+1)); cosh m(t) solves
 * C(t)/C(t+1) = cosh(m(T/2-t))/cosh(m(T/2-t-1)) (bisection); NaN where no
 * positive solution exists (a ratio on the wrong side of 1, t+1 = T). */
#ifndef LAT_MESON_H
#define LAT_MESON_H

#include "io/propagator.h"

enum { MESON_CHANNELS = 6, MESON_MOMENTA = 2 };

extern const char *const meson_channel_name[MESON_CHANNELS]; /* "pi", "pi_t", ... */
extern const char *const meson_channel_gamma[MESON_CHANNELS]; /* "g5", "gt g5", ... */

/* c[ch][p2][t] for p2 = 0, 1: arrays of T doubles the caller owns (T =
 * s1->lat.L[3]); s1 and s2 of one lattice, nc and source */
void meson_correlators(const struct propagator *s1, const struct propagator *s2, double *c[MESON_CHANNELS][MESON_MOMENTA]);
/* the same from the global timeslices t0 .. t0+nt-1 alone (a rank's slab:
 * the columns of s1 and s2 hold nt V3 sites, the first (0,0,0,t0); s->lat
 * is the whole lattice): each C(t) is the sum over the sites of one
 * timeslice, in site order, so the slab that owns a timeslice computes its
 * C(t) completely and the other C(t) are 0 (never -0): a sum over the
 * ranks (comm_sum) gives the bits of the whole lattice */
void meson_correlators_slab(const struct propagator *s1, const struct propagator *s2, int t0, int nt,
                            double *c[MESON_CHANNELS][MESON_MOMENTA]);
/* effective masses of c[0..T-1] into mlog and mcosh (T entries; the last NaN) */
void meson_effective_mass(const double *c, int T, double *mlog, double *mcosh);

#endif
