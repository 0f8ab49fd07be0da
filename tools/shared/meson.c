/* meson.c -- the contractions and effective masses of meson.h.  Per site
 * the spin tensor M[a][b][a'][b'] = sum_{colours} S1_(a c),(b d) conj(S2_(a' c),(b' d))
 * is formed once (16^2 complex), and every channel contracts it with its
 * spin matrices: tr[G S1 Gbar g5 S2^dag g5] = sum B_{a'a} A_{bb'} M[a][b][a'][b']
 * with A = Gbar g5, B = g5 G. */
#include "shared/meson.h"
#include "base/log.h"
#include "math/spinor.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double complex cplx;

const char *const meson_channel_name[MESON_CHANNELS] = {"pi", "pi_t", "rho", "a0", "a1", "b1"};
const char *const meson_channel_gamma[MESON_CHANNELS] = {"g5", "gt g5", "gi", "1", "gi g5", "gi gj"};

/* gamma_mu (mu = 0..3, 4 = gamma5) as a dense matrix, from math/spinor.h's table */
static void gamma_dense(int mu, cplx g[4][4])
{
    static const cplx ip[4] = {1, I, -1, -I};
    memset(g, 0, 16 * sizeof(cplx));
    for (int r = 0; r < 4; r++) g[r][gamma_col(mu, r)] = ip[gamma_ipow(mu, r) & 3];
}

static void mat_mul(cplx a[4][4], cplx b[4][4], cplx out[4][4])
{
    cplx t[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            t[i][j] = 0;
            for (int k = 0; k < 4; k++) t[i][j] += a[i][k] * b[k][j];
        }
    memcpy(out, t, sizeof t);
}

/* the components of a channel: up to three products of up to two gammas
 * (-1: none), e.g. rho {0},{1},{2}; a1 {0,4},{1,4},{2,4} */
struct channel { int n; int g[3][2]; };
static const struct channel channels[MESON_CHANNELS] = {
    {1, {{4, -1}}},                  /* pi */
    {1, {{3, 4}}},                   /* pi_t */
    {3, {{0, -1}, {1, -1}, {2, -1}}}, /* rho */
    {1, {{-1, -1}}},                 /* a0 */
    {3, {{0, 4}, {1, 4}, {2, 4}}},    /* a1 */
    {3, {{0, 1}, {1, 2}, {2, 0}}},    /* b1 */
};

/* A = Gbar g5 and B = g5 G of one component */
static void component_matrices(const int *gs, cplx A[4][4], cplx B[4][4])
{
    cplx G[4][4], t[4][4], g5[4][4], gt[4][4], Gbar[4][4];
    memset(G, 0, sizeof G);
    for (int i = 0; i < 4; i++) G[i][i] = 1;
    for (int k = 0; k < 2; k++)
        if (gs[k] >= 0) {
            gamma_dense(gs[k], t);
            mat_mul(G, t, G);
        }
    gamma_dense(4, g5);
    gamma_dense(3, gt);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) t[i][j] = conj(G[j][i]);
    mat_mul(gt, t, Gbar);
    mat_mul(Gbar, gt, Gbar);
    mat_mul(Gbar, g5, A);
    mat_mul(g5, G, B);
}

void meson_correlators(const struct propagator *s1, const struct propagator *s2, double *c[MESON_CHANNELS][MESON_MOMENTA])
{
    meson_correlators_slab(s1, s2, 0, s1->lat.L[3], c);
}

void meson_correlators_slab(const struct propagator *s1, const struct propagator *s2, int t0, int nt,
                            double *c[MESON_CHANNELS][MESON_MOMENTA])
{
    const struct lattice *lat = &s1->lat;
    const int64_t first = (int64_t)t0 * (lat->V / lat->L[3]), count = (int64_t)nt * (lat->V / lat->L[3]);
    const int nc = s1->nc, T = lat->L[3];
    const size_t per = 2 * PROP_NS * (size_t)nc;
    static cplx A[MESON_CHANNELS][3][4][4], B[MESON_CHANNELS][3][4][4];
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int k = 0; k < channels[ch].n; k++) component_matrices(channels[ch].g[k], A[ch][k], B[ch][k]);
    cplx *acc = calloc((size_t)MESON_CHANNELS * MESON_MOMENTA * (size_t)T, sizeof(cplx));
    if (!acc) lat_die(1, NULL, "out of memory for the correlators");
    const double tw = 2 * 3.14159265358979323846;
    for (int64_t xl = 0; xl < count; xl++) { /* xl: index in the columns, x: global site */
        const int64_t x = first + xl;
        int xc[LAT_ND];
        lattice_coords(lat, x, xc);
        /* M[a][b][a'][b'] */
        cplx M[4][4][4][4];
        memset(M, 0, sizeof M);
        for (int b = 0; b < 4; b++)
            for (int d = 0; d < nc; d++) {
                const double *c1 = s1->col[b * nc + d] + (size_t)xl * per;
                for (int bp = 0; bp < 4; bp++) {
                    const double *c2 = s2->col[bp * nc + d] + (size_t)xl * per;
                    for (int a = 0; a < 4; a++)
                        for (int ap = 0; ap < 4; ap++) {
                            cplx s = 0;
                            for (int cc = 0; cc < nc; cc++) {
                                const double *u = c1 + 2 * (a * nc + cc), *v = c2 + 2 * (ap * nc + cc);
                                s += (u[0] + I * u[1]) * (v[0] - I * v[1]);
                            }
                            M[a][b][ap][bp] += s;
                        }
                }
            }
        /* the phases e^{-i p.(x - x0)}: p = 0, and the six +-e_i averaged = (1/3) sum_i cos */
        double cosav = 0;
        for (int i = 0; i < 3; i++) cosav += cos(tw * (xc[i] - s1->src.x[i]) / lat->L[i]) / 3;
        const int t = ((xc[3] - s1->src.x[3]) % T + T) % T;
        for (int ch = 0; ch < MESON_CHANNELS; ch++) {
            cplx v = 0;
            for (int k = 0; k < channels[ch].n; k++)
                for (int a = 0; a < 4; a++)
                    for (int ap = 0; ap < 4; ap++) {
                        if (B[ch][k][ap][a] == 0) continue;
                        for (int b = 0; b < 4; b++)
                            for (int bp = 0; bp < 4; bp++)
                                if (A[ch][k][b][bp] != 0) v += B[ch][k][ap][a] * A[ch][k][b][bp] * M[a][b][ap][bp];
                    }
            v = -v / channels[ch].n;
            acc[((size_t)ch * MESON_MOMENTA + 0) * (size_t)T + (size_t)t] += v;
            acc[((size_t)ch * MESON_MOMENTA + 1) * (size_t)T + (size_t)t] += v * cosav;
        }
    }
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int p = 0; p < MESON_MOMENTA; p++)
            for (int t = 0; t < T; t++) /* + 0.0: no -0, so a sum over ranks changes nothing */
                c[ch][p][t] = creal(acc[((size_t)ch * MESON_MOMENTA + (size_t)p) * (size_t)T + (size_t)t]) + 0.0;
    free(acc);
}

/* cosh(m a) / cosh(m (a - 1)), through log cosh y = |y| + log1p(e^{-2|y|}) - log 2 (no overflow) */
static double log_cosh(double y) { y = fabs(y); return y + log1p(exp(-2 * y)) - log(2.0); }
static double cosh_ratio(double m, double a) { return exp(log_cosh(m * a) - log_cosh(m * (a - 1))); }

void meson_effective_mass(const double *c, int T, double *mlog, double *mcosh)
{
    for (int t = 0; t < T; t++) {
        mlog[t] = mcosh[t] = NAN;
        if (t + 1 >= T) continue;
        const double r = c[t] / c[t + 1];
        if (!(r > 0) || !isfinite(r)) continue;
        mlog[t] = log(r);
        /* a = T/2 - t: the ratio rises from 1 with m for a > 1/2, falls for a < 1/2 */
        const double a = 0.5 * T - t;
        if (a == 0.5 || (a > 0.5) != (r > 1) || r == 1) continue;
        double lo = 0, hi = 1;
        while (hi < 50 && (cosh_ratio(hi, a) - r) * (a > 0.5 ? 1 : -1) < 0) hi *= 2;
        if (hi >= 50) continue;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi), f = (cosh_ratio(mid, a) - r) * (a > 0.5 ? 1 : -1);
            if (f < 0) lo = mid;
            else hi = mid;
        }
        mcosh[t] = 0.5 * (lo + hi);
    }
}
