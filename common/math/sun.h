/* sun.h -- complex numbers and SU(N) matrix algebra, header only.
 *
 * Every function is LAT_HD: static inline in C, __host__ __device__ in CUDA,
 * so the CPU and GPU backends share one copy of the math.  The working
 * precision is lat_real, chosen by the including file with
 *     #define LAT_REAL float      (before the first include; default double)
 * A translation unit therefore computes in one precision; the CPU kernels are
 * compiled once per precision (see kernels/README).
 *
 * Matrices are arrays of n*n lat_complex in row-major order, m[i*n+j] =
 * M_ij, exactly the in-memory order of an ILDG link.  The size n is an
 * argument: callers pass a constant (3 for SU(3)) so that the compiler
 * unrolls the loops and keeps the matrix in registers; the same functions
 * serve SU(2) and SU(N).
 *
 * SU(2) elements are quaternions (Cayley-Klein, paper eq. 15):
 *     Q = [[q0 + i q3,  q2 + i q1], [-q2 + i q1,  q0 - i q3]]. */
#ifndef LAT_SUN_H
#define LAT_SUN_H

#include "base/lat.h"
#include <math.h>

#ifndef LAT_REAL
#define LAT_REAL double
#endif
typedef LAT_REAL lat_real;

typedef struct { lat_real re, im; } lat_complex;
typedef struct { lat_real q[4]; } lat_su2;

/* ---- complex numbers ---------------------------------------------------- */
LAT_HD lat_complex c_make(lat_real re, lat_real im) { lat_complex z; z.re = re; z.im = im; return z; }
LAT_HD lat_complex c_add(lat_complex a, lat_complex b) { return c_make(a.re + b.re, a.im + b.im); }
LAT_HD lat_complex c_sub(lat_complex a, lat_complex b) { return c_make(a.re - b.re, a.im - b.im); }
LAT_HD lat_complex c_mul(lat_complex a, lat_complex b)
{ return c_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
/* conj(a) * b */
LAT_HD lat_complex c_cmul(lat_complex a, lat_complex b)
{ return c_make(a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re); }
LAT_HD lat_complex c_conj(lat_complex a) { return c_make(a.re, -a.im); }
/* a x + b y and a x - b y, each real part one left-to-right sum of four
 * products: the CUDA compiler contracts it to 1 multiply + 3 FMA, where
 * c_add(c_mul(..), c_mul(..)) costs 2 multiplies, 2 FMA and an add (the
 * su2 steps and the third-row rebuild are most of the GPU kernels' FP64
 * work) */
LAT_HD lat_complex c_mul_add2(lat_complex a, lat_complex x, lat_complex b, lat_complex y)
{
    return c_make(a.re * x.re - a.im * x.im + b.re * y.re - b.im * y.im,
                  a.re * x.im + a.im * x.re + b.re * y.im + b.im * y.re);
}
LAT_HD lat_complex c_mul_sub2(lat_complex a, lat_complex x, lat_complex b, lat_complex y)
{
    return c_make(a.re * x.re - a.im * x.im - b.re * y.re + b.im * y.im,
                  a.re * x.im + a.im * x.re - b.re * y.im - b.im * y.re);
}
LAT_HD lat_complex c_scale(lat_real s, lat_complex a) { return c_make(s * a.re, s * a.im); }
LAT_HD lat_real c_norm2(lat_complex a) { return a.re * a.re + a.im * a.im; }

/* ---- N x N matrices ----------------------------------------------------- */
LAT_HD void sun_zero(int n, lat_complex *m)
{ for (int i = 0; i < n * n; i++) m[i] = c_make(0, 0); }

LAT_HD void sun_unit(int n, lat_complex *m)
{ for (int i = 0; i < n * n; i++) m[i] = c_make(i % (n + 1) == 0 ? 1 : 0, 0); }

LAT_HD void sun_copy(int n, lat_complex *r, const lat_complex *a)
{ for (int i = 0; i < n * n; i++) r[i] = a[i]; }

/* r = a b   (r must not alias a or b) */
LAT_HD void sun_mul(int n, lat_complex *r, const lat_complex *a, const lat_complex *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lat_complex s = c_make(0, 0);
            for (int k = 0; k < n; k++) s = c_add(s, c_mul(a[i * n + k], b[k * n + j]));
            r[i * n + j] = s;
        }
}

/* r = a b^dagger */
LAT_HD void sun_mul_nd(int n, lat_complex *r, const lat_complex *a, const lat_complex *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lat_complex s = c_make(0, 0);
            for (int k = 0; k < n; k++) s = c_add(s, c_cmul(b[j * n + k], a[i * n + k]));
            r[i * n + j] = s;
        }
}

/* r = a^dagger b */
LAT_HD void sun_mul_dn(int n, lat_complex *r, const lat_complex *a, const lat_complex *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lat_complex s = c_make(0, 0);
            for (int k = 0; k < n; k++) s = c_add(s, c_cmul(a[k * n + i], b[k * n + j]));
            r[i * n + j] = s;
        }
}

/* r = a^dagger */
LAT_HD void sun_dagger(int n, lat_complex *r, const lat_complex *a)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) r[i * n + j] = c_conj(a[j * n + i]);
}

/* r += a */
LAT_HD void sun_acc(int n, lat_complex *r, const lat_complex *a)
{ for (int i = 0; i < n * n; i++) r[i] = c_add(r[i], a[i]); }

/* r += a^dagger */
LAT_HD void sun_acc_dagger(int n, lat_complex *r, const lat_complex *a)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) r[i * n + j] = c_add(r[i * n + j], c_conj(a[j * n + i]));
}

LAT_HD lat_complex sun_trace(int n, const lat_complex *m)
{
    lat_complex s = c_make(0, 0);
    for (int i = 0; i < n; i++) s = c_add(s, m[i * (n + 1)]);
    return s;
}

LAT_HD lat_real sun_retrace(int n, const lat_complex *m)
{
    lat_real s = 0;
    for (int i = 0; i < n; i++) s += m[i * (n + 1)].re;
    return s;
}

/* Re tr(a b) without forming the product */
LAT_HD lat_real sun_retrace_mul(int n, const lat_complex *a, const lat_complex *b)
{
    lat_real s = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) s += a[i * n + k].re * b[k * n + i].re - a[i * n + k].im * b[k * n + i].im;
    return s;
}

/* Re tr(a b^dagger) = sum_ij Re(a_ij conj(b_ij)) */
LAT_HD lat_real sun_retrace_mul_nd(int n, const lat_complex *a, const lat_complex *b)
{
    lat_real s = 0;
    for (int i = 0; i < n * n; i++) s += a[i].re * b[i].re + a[i].im * b[i].im;
    return s;
}

/* determinant by Gaussian elimination with partial pivoting (n <= LAT_NC_MAX) */
LAT_HD lat_complex sun_det(int n, const lat_complex *m)
{
    if (n == 2) return c_sub(c_mul(m[0], m[3]), c_mul(m[1], m[2]));
    if (n == 3) {
        lat_complex d = c_mul(m[0], c_sub(c_mul(m[4], m[8]), c_mul(m[5], m[7])));
        d = c_sub(d, c_mul(m[1], c_sub(c_mul(m[3], m[8]), c_mul(m[5], m[6]))));
        return c_add(d, c_mul(m[2], c_sub(c_mul(m[3], m[7]), c_mul(m[4], m[6]))));
    }
    lat_complex a[LAT_NC_MAX * LAT_NC_MAX];
    for (int i = 0; i < n * n; i++) a[i] = m[i];
    lat_complex det = c_make(1, 0);
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int r = c + 1; r < n; r++)
            if (c_norm2(a[r * n + c]) > c_norm2(a[p * n + c])) p = r;
        if (p != c) {
            for (int k = 0; k < n; k++) { lat_complex t = a[c * n + k]; a[c * n + k] = a[p * n + k]; a[p * n + k] = t; }
            det = c_scale(-1, det);
        }
        lat_complex piv = a[c * n + c];
        lat_real pn = c_norm2(piv);
        if (pn == 0) return c_make(0, 0);
        det = c_mul(det, piv);
        lat_complex inv = c_scale(1 / pn, c_conj(piv));
        for (int r = c + 1; r < n; r++) {
            lat_complex f = c_mul(a[r * n + c], inv);
            for (int k = c; k < n; k++) a[r * n + k] = c_sub(a[r * n + k], c_mul(f, a[c * n + k]));
        }
    }
    return det;
}

/* SU(3): third row = conj(row0 x row1) -- the 12-real (two-row) storage. */
LAT_HD void su3_rebuild_row3(lat_complex *m)
{
    m[6] = c_conj(c_mul_sub2(m[1], m[5], m[2], m[4]));
    m[7] = c_conj(c_mul_sub2(m[2], m[3], m[0], m[5]));
    m[8] = c_conj(c_mul_sub2(m[0], m[4], m[1], m[3]));
}

/* ---- SU(3) in 8 reals ------------------------------------------------------
 * The 8-parameter storage of an SU(3) link (the idea: M. A. Clark et al.,
 * Comput. Phys. Commun. 181 (2010) 1517, "reconstruct-8"; the formulas
 * below are derived here).  Rows a = (a1 a2 a3) = m[0..2], b = m[3..5],
 * c = m[6..8]; N = |a2|^2 + |a3|^2.
 *   su3_pack8(m, out)   out = Re a2, Im a2, Re a3, Im a3, Re b1, Im b1,
 *                       arg a1, arg c1 (atan2, in [-pi, pi]).
 *                       Degenerate form, for N < SU3_PACK8_NMIN (N = 0: a1
 *                       a pure phase, b1 = c1 = 0, e.g. the unit matrix of
 *                       a cold start): out = Re b2, Im b2, Re b3, Im b3, 0,
 *                       0, arg a1, SU3_PACK8_DEGENERATE (8, outside
 *                       [-pi, pi]); a2, a3, b1, c1 are dropped (|.| <= sqrt N).
 *                       For NMIN <= N < SU3_PACK8_NTRY (nearly degenerate)
 *                       pack unpacks both forms and keeps the one closer to
 *                       m (the regular one on a tie); from NTRY on, regular.
 *   su3_unpack8(in, m)  the SU(3) matrix of 8 reals made by su3_pack8 (any
 *                       precision, e.g. rounded to float on the way).
 *                       Regular form: |a1| = sqrt(max(0, 1 - N)),
 *                       |c1| = sqrt(max(0, N - |b1|^2)) (not 1 - |a1|^2 -
 *                       |b1|^2, which cancels when N is small; where
 *                       rounding made N > 1 or |b1|^2 > N, a2, a3 or b1 are
 *                       scaled to N = 1, |b1|^2 = N so that the rows stay
 *                       orthonormal), and from
 *                       conj(a).b = conj(a).c = 0 with the cofactor relations
 *                       of det = 1, conj(c1) = a2 b3 - a3 b2 and
 *                       conj(b1) = a3 c2 - a2 c3:
 *                         b2 = -(conj(a1) a2 b1 + conj(a3) conj(c1)) / N
 *                         b3 = -(conj(a1) a3 b1 - conj(a2) conj(c1)) / N
 *                         c2 = -(conj(a1) a2 c1 - conj(a3) conj(b1)) / N
 *                         c3 = -(conj(a1) a3 c1 + conj(a2) conj(b1)) / N
 *                       Degenerate form (in[7] > 4): a = (a1 0 0) with
 *                       |a1| = 1, b1 = c1 = 0, (b2 b3) from in[0..3] scaled
 *                       to norm 1 (exact for the unit matrix), and the
 *                       lower block unitary with determinant conj(a1):
 *                         c2 = -conj(a1) conj(b3),  c3 = conj(a1) conj(b2).
 * Accuracy (tests/unit/test_sun.c, test_sun_float.c; eps of lat_real):
 * rounding the 8 reals costs little (they keep their relative precision),
 * but |a1| and |c1| are square roots of differences: the error grows as
 * ~2 eps / min(|a1|, |c1|) (a Haar-random SU(3) matrix: 3e-14 typically,
 * 1.4e-13 the worst of 1e5 in double; float storage: rms 1.2e-7) and
 * reaches ~sqrt(eps) (3e-8 double, 3e-4 float) where a1 or c1 is zero up
 * to rounding.  For small N the regular form amplifies the input's absolute
 * deviation from SU(3) (eps after arithmetic) by up to ~20/sqrt(N), the
 * degenerate form errs by sqrt(N): with the choice above the round trip of
 * nearly degenerate matrices stays within 5e-8 in double (1e-9 for
 * N >= 1e-12), 1e-5 when also c1 ~ 0 (float: 5e-4); N = 0 is exact to
 * rounding (the unit matrix bit for bit).  NMIN = eps (below it the regular form cannot win),
 * NTRY = 1e-9 (double) or 1e-4 (float), above which it wins even with
 * c1 ~ 0.  The
 * unpacked matrix is unitary with det 1 to rounding whatever the 8 reals.
 * su3_pack8_err(p, m): the largest |element| of unpack8(p) - m (pack's test). */
#define SU3_PACK8_DEGENERATE 8
#define SU3_PACK8_NMIN ((lat_real)(sizeof(lat_real) < sizeof(double) ? 1.1920928955078125e-7 : 2.220446049250313e-16))
#define SU3_PACK8_NTRY ((lat_real)(sizeof(lat_real) < sizeof(double) ? 1e-4 : 1e-9))

/* sin and cos of one angle: one range reduction on the GPU (sincos) */
LAT_HD void lat_sincos(lat_real x, lat_real *s, lat_real *c)
{
#ifdef __CUDA_ARCH__
    sincos(x, s, c);
#else
    *s = sin(x);
    *c = cos(x);
#endif
}

LAT_HD void su3_unpack8(const lat_real *in, lat_complex *m)
{
    lat_real ca, sa;
    lat_sincos(in[6], &sa, &ca);
    if (in[7] > 4) { /* degenerate form */
        lat_real nb = c_norm2(c_make(in[0], in[1])) + c_norm2(c_make(in[2], in[3]));
        nb = nb > 0 ? 1 / sqrt(nb) : 0; /* (b2 b3) of a nearly degenerate matrix: |.|^2 = 1 - |b1|^2 */
        lat_complex a1 = c_make(ca, sa), b2 = c_make(nb * in[0], nb * in[1]), b3 = c_make(nb * in[2], nb * in[3]);
        m[0] = a1;
        m[1] = m[2] = m[3] = m[6] = c_make(0, 0);
        m[4] = b2;
        m[5] = b3;
        m[7] = c_conj(c_mul(a1, b3));
        m[7] = c_make(-m[7].re, -m[7].im);
        m[8] = c_conj(c_mul(a1, b2));
        return;
    }
    lat_complex a2 = c_make(in[0], in[1]), a3 = c_make(in[2], in[3]), b1 = c_make(in[4], in[5]);
    lat_real n = c_norm2(a2) + c_norm2(a3);
    if (n > 1) { /* rounding: row a of norm 1, |a1| = 0 */
        lat_real f = 1 / sqrt(n);
        a2 = c_scale(f, a2);
        a3 = c_scale(f, a3);
        n = 1;
    }
    lat_real nb = c_norm2(b1), ra = sqrt(1 - n), rc = n - nb;
    if (rc > 0) rc = sqrt(rc);
    else { /* rounding (c1 ~ 0): column 1 of norm 1, c1 = 0 */
        if (nb > 0) b1 = c_scale(sqrt(n / nb), b1);
        rc = 0;
    }
    lat_real cc, sc;
    lat_sincos(in[7], &sc, &cc);
    lat_complex a1 = c_make(ra * ca, ra * sa), c1 = c_make(rc * cc, rc * sc);
    lat_complex a1b1 = c_cmul(a1, b1), a1c1 = c_cmul(a1, c1); /* conj(a1) b1, conj(a1) c1 */
    lat_complex ca2 = c_conj(a2), ca3 = c_conj(a3), cb1 = c_conj(b1), cc1 = c_conj(c1);
    lat_real s = -1 / n;
    m[0] = a1;
    m[1] = a2;
    m[2] = a3;
    m[3] = b1;
    m[4] = c_scale(s, c_mul_add2(a1b1, a2, ca3, cc1));
    m[5] = c_scale(s, c_mul_sub2(a1b1, a3, ca2, cc1));
    m[6] = c1;
    m[7] = c_scale(s, c_mul_sub2(a1c1, a2, ca3, cb1));
    m[8] = c_scale(s, c_mul_add2(a1c1, a3, ca2, cb1));
}

/* largest |u_k - m_k| of the matrix the 8 reals p unpack to (su3_pack8's
 * choice of form) */
LAT_HD lat_real su3_pack8_err(const lat_real *p, const lat_complex *m)
{
    lat_complex u[9];
    su3_unpack8(p, u);
    lat_real e = 0;
    for (int k = 0; k < 9; k++) {
        lat_real d = c_norm2(c_sub(u[k], m[k]));
        e = d > e ? d : e;
    }
    return sqrt(e);
}

LAT_HD void su3_pack8(const lat_complex *m, lat_real *out)
{
    lat_real n = c_norm2(m[1]) + c_norm2(m[2]);
    out[0] = m[1].re;
    out[1] = m[1].im;
    out[2] = m[2].re;
    out[3] = m[2].im;
    out[4] = m[3].re;
    out[5] = m[3].im;
    out[6] = atan2(m[0].im, m[0].re);
    out[7] = atan2(m[6].im, m[6].re);
    if (n < SU3_PACK8_NTRY) { /* nearly degenerate (rare): the form that unpacks closer */
        lat_real d[8] = {m[4].re, m[4].im, m[5].re, m[5].im, 0, 0, out[6], SU3_PACK8_DEGENERATE};
        if (n < SU3_PACK8_NMIN || su3_pack8_err(d, m) < su3_pack8_err(out, m))
            for (int k = 0; k < 8; k++) out[k] = d[k];
    }
}

/* ||U^dagger U - 1||_F */
LAT_HD lat_real sun_unitarity_dev(int n, const lat_complex *m)
{
    lat_real s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lat_complex d = c_make(i == j ? -1 : 0, 0);
            for (int k = 0; k < n; k++) d = c_add(d, c_cmul(m[k * n + i], m[k * n + j]));
            s += c_norm2(d);
        }
    return sqrt(s);
}

/* Project onto SU(N): Gram-Schmidt on the rows, then divide the last row by
 * det so that det = 1 (for SU(3) the last row is rebuilt as a cross product,
 * which gives det = 1 directly). */
LAT_HD void sun_reunitarize(int n, lat_complex *m)
{
    int rows = (n == 3) ? 2 : n;
    for (int r = 0; r < rows; r++) {
        for (int p = 0; p < r; p++) {
            lat_complex ov = c_make(0, 0); /* <row p | row r> */
            for (int k = 0; k < n; k++) ov = c_add(ov, c_cmul(m[p * n + k], m[r * n + k]));
            for (int k = 0; k < n; k++) m[r * n + k] = c_sub(m[r * n + k], c_mul(ov, m[p * n + k]));
        }
        lat_real nr = 0;
        for (int k = 0; k < n; k++) nr += c_norm2(m[r * n + k]);
        /* sqrt and 1/ in double, written out: C evaluates sqrt(float) so,
         * while C++ and CUDA would pick the float overload -- with it the
         * CPU and GPU single-precision builds compute the same bits */
        nr = (lat_real)(1 / sqrt((double)nr));
        for (int k = 0; k < n; k++) m[r * n + k] = c_scale(nr, m[r * n + k]);
    }
    if (n == 3) { su3_rebuild_row3(m); return; }
    /* U(N) -> SU(N): multiply the last row by conj(det) (|det| = 1 here) */
    lat_complex d = sun_det(n, m);
    lat_real dn = (lat_real)sqrt((double)c_norm2(d)); /* in double in C and C++ alike (above) */
    lat_complex f = c_scale(1 / dn, c_conj(d));
    for (int k = 0; k < n; k++) m[(n - 1) * n + k] = c_mul(f, m[(n - 1) * n + k]);
}

/* m <- P_SU(N)(1 + a m): with m random (Haar, or Gaussian entries) and a
 * small, a matrix near the identity -- the links of a weak ("smooth")
 * random field, well-conditioned gauge transformations */
LAT_HD void sun_near_unit(int n, lat_complex *m, lat_real a)
{
    for (int k = 0; k < n * n; k++) m[k] = c_scale(a, m[k]);
    for (int k = 0; k < n; k++) m[k * (n + 1)].re += 1;
    sun_reunitarize(n, m);
}

/* ---- SU(2) subgroups (Cabibbo-Marinari) --------------------------------- */

/* number of SU(2) subgroups and the (i,j) rows of subgroup s */
LAT_HD int sun_nsubgroups(int n) { return n * (n - 1) / 2; }
LAT_HD void sun_subgroup(int n, int s, int *i, int *j)
{
    int a = 0;
    *i = 0;
    *j = 1;
    for (int p = 0; p < n; p++)
        for (int q = p + 1; q < n; q++, a++)
            if (a == s) { *i = p; *j = q; }
}

/* The SU(2)-proportional part of the (i,j) block of m, as an unnormalised
 * quaternion: twice the projection, i.e. q0 = Re(m_ii + m_jj), ... .  For any
 * g in the subgroup, Re tr(g m) = q-dependent part + const with
 * Re tr(G B) = g0 q0 - g1 q1 - g2 q2 - g3 q3. */
LAT_HD lat_su2 sun_su2_block(int n, const lat_complex *m, int i, int j)
{
    lat_su2 q;
    lat_complex mii = m[i * n + i], mjj = m[j * n + j], mij = m[i * n + j], mji = m[j * n + i];
    q.q[0] = mii.re + mjj.re;
    q.q[1] = mij.im + mji.im;
    q.q[2] = mij.re - mji.re;
    q.q[3] = mii.im - mjj.im;
    return q;
}

LAT_HD lat_real su2_norm2(lat_su2 a) { return a.q[0] * a.q[0] + a.q[1] * a.q[1] + a.q[2] * a.q[2] + a.q[3] * a.q[3]; }
LAT_HD lat_su2 su2_dagger(lat_su2 a) { lat_su2 r = {{a.q[0], -a.q[1], -a.q[2], -a.q[3]}}; return r; }
LAT_HD lat_su2 su2_normalize(lat_su2 a)
{
    lat_real s = 1 / sqrt(su2_norm2(a));
    lat_su2 r = {{a.q[0] * s, a.q[1] * s, a.q[2] * s, a.q[3] * s}};
    return r;
}
/* quaternion product a b (as 2x2 matrices) */
LAT_HD lat_su2 su2_mul(lat_su2 a, lat_su2 b)
{
    lat_su2 r;
    r.q[0] = a.q[0] * b.q[0] - a.q[1] * b.q[1] - a.q[2] * b.q[2] - a.q[3] * b.q[3];
    r.q[1] = a.q[0] * b.q[1] + a.q[1] * b.q[0] - a.q[2] * b.q[3] + a.q[3] * b.q[2];
    r.q[2] = a.q[0] * b.q[2] + a.q[2] * b.q[0] - a.q[3] * b.q[1] + a.q[1] * b.q[3];
    r.q[3] = a.q[0] * b.q[3] + a.q[3] * b.q[0] - a.q[1] * b.q[2] + a.q[2] * b.q[1];
    return r;
}

/* (a, b) <- G (a, b): one column (rows i, j) of the left multiplication */
LAT_HD void su2_left_pair(lat_su2 g, lat_complex *a, lat_complex *b)
{
    lat_complex g00 = c_make(g.q[0], g.q[3]), g01 = c_make(g.q[2], g.q[1]);
    lat_complex g10 = c_make(-g.q[2], g.q[1]), g11 = c_make(g.q[0], -g.q[3]);
    lat_complex x = *a, y = *b;
    *a = c_mul_add2(g00, x, g01, y);
    *b = c_mul_add2(g10, x, g11, y);
}

/* m <- G m, G the subgroup (i,j) embedding of g (rows i and j change;
 * column by column, su2_left_pair) */
LAT_HD void sun_su2_left(int n, lat_complex *m, int i, int j, lat_su2 g)
{
    for (int k = 0; k < n; k++) su2_left_pair(g, &m[i * n + k], &m[j * n + k]);
}

/* m <- m G^dagger (columns i and j change) */
LAT_HD void sun_su2_right_dagger(int n, lat_complex *m, int i, int j, lat_su2 g)
{
    /* G^dagger = [[q0 - i q3, -q2 - i q1], [q2 - i q1, q0 + i q3]] */
    lat_complex h00 = c_make(g.q[0], -g.q[3]), h01 = c_make(-g.q[2], -g.q[1]);
    lat_complex h10 = c_make(g.q[2], -g.q[1]), h11 = c_make(g.q[0], g.q[3]);
    for (int k = 0; k < n; k++) {
        lat_complex a = m[k * n + i], b = m[k * n + j];
        m[k * n + i] = c_mul_add2(a, h00, b, h10);
        m[k * n + j] = c_mul_add2(a, h01, b, h11);
    }
}

#endif
