/* sun-heatbath-ref.c -- an independent reference Markov chain for the SU(N)
 * validation of lat-heatbath (scripts/validate-heatbath --sun).
 *
 * Exports: a program, built by the script with `cc -O2 -lm`:
 *   sun-heatbath-ref N L BETA THERM MEAS NOR SEED
 * prints, as lat-heatbath --log does, a header line, then one line per sweep
 * (sweep 0 the cold start, then THERM + MEAS sweeps): the sweep number and the
 * average plaquette P = <(1/N) Re tr U_P>, tab-separated.  Exit status 0, or
 * 2 for bad arguments.
 *
 * Contract: it shares no code with lat (no header of the tree is included)
 * and makes different choices wherever the algorithm allows them, so that
 * agreement of the two chains' averages tests lat's physics, not its
 * arithmetic: links are visited in lexicographic site order (not by
 * checkerboard), one direction after the other; the random numbers come from
 * xoshiro256** (not Philox); links are re-unitarised by Gram-Schmidt once per
 * sweep.  What it must share is the distribution: the Wilson action
 * S = beta sum_P (1 - Re tr U_P / N), sampled by the Cabibbo-Marinari
 * heatbath (Kennedy-Pendleton SU(2) sampler, exact for any coupling) in all
 * N(N-1)/2 SU(2) subgroups, followed by NOR overrelaxation sweeps
 * (microcanonical reflections in the same subgroups).
 *
 * The subgroup update, written out once: with A the staple sum of the link U
 * (so that the action seen by U is -(beta/N) Re tr(U A)), W = U A and w the
 * (i,j) 2x2 block of W, let q = k v (v in SU(2), k >= 0) be the part of w of
 * quaternion form; then Re tr(g W) = 2 k (g v)_0 + const for g in the (i,j)
 * SU(2), so y = g v is drawn with density sqrt(1 - y0^2) exp(alpha y0),
 * alpha = 2 beta k / N, and g = y v^dagger (heatbath), or g = (v^dagger)^2,
 * which keeps (g v)_0 (overrelaxation).  U and W are then left-multiplied by
 * g.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 8
#define TWO_PI 6.283185307179586476925287
typedef double complex cplx;

static int N, L, VOL;
static cplx *links; /* [site][mu][N][N] */

static cplx *link_at(int site, int mu) { return links + ((size_t)site * 4 + mu) * N * N; }

/* xoshiro256** seeded by splitmix64 */
static uint64_t rng_s[4];
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t rng_next(void)
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0]; rng_s[3] ^= rng_s[1]; rng_s[1] ^= rng_s[2]; rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t; rng_s[3] = rotl(rng_s[3], 45);
    return r;
}
/* uniform in (0, 1] */
static double uniform(void) { return ((rng_next() >> 11) + 1.0) * 0x1.0p-53; }
static void rng_seed(uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        rng_s[i] = z ^ (z >> 31);
    }
}

static int neighbour(int site, int mu, int step)
{
    int c[4], s = site;
    for (int d = 0; d < 4; d++) { c[d] = s % L; s /= L; }
    c[mu] = (c[mu] + step + L) % L;
    return c[0] + L * (c[1] + L * (c[2] + L * c[3]));
}

/* c = a b, a^dagger b, a b^dagger as selected */
static void mul(cplx *c, const cplx *a, int adag, const cplx *b, int bdag)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            cplx s = 0;
            for (int k = 0; k < N; k++) {
                cplx x = adag ? conj(a[k * N + i]) : a[i * N + k];
                cplx y = bdag ? conj(b[j * N + k]) : b[k * N + j];
                s += x * y;
            }
            c[i * N + j] = s;
        }
}

static void staple_sum(int site, int mu, cplx *a)
{
    cplx t[NMAX * NMAX], t2[NMAX * NMAX];
    for (int i = 0; i < N * N; i++) a[i] = 0;
    int xp = neighbour(site, mu, 1);
    for (int nu = 0; nu < 4; nu++) {
        if (nu == mu) continue;
        /* forward: U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag */
        mul(t, link_at(xp, nu), 0, link_at(neighbour(site, nu, 1), mu), 1);
        mul(t2, t, 0, link_at(site, nu), 1);
        for (int i = 0; i < N * N; i++) a[i] += t2[i];
        /* backward: U_nu(x+mu-nu)^dag U_mu(x-nu)^dag U_nu(x-nu) */
        int xm = neighbour(site, nu, -1);
        mul(t, link_at(neighbour(xp, nu, -1), nu), 1, link_at(xm, mu), 1);
        mul(t2, t, 0, link_at(xm, nu), 0);
        for (int i = 0; i < N * N; i++) a[i] += t2[i];
    }
}

/* y ~ sqrt(1 - y0^2) exp(alpha y0) dy0, the direction of (y1,y2,y3) uniform */
static void kp_sample(double alpha, double y[4])
{
    double x;
    for (;;) {
        double r1 = uniform(), r2 = uniform(), r3 = uniform(), r4 = uniform();
        double c = cos(TWO_PI * r2);
        x = -(log(r1) + c * c * log(r3)) / alpha;
        if (x <= 2 && r4 * r4 <= 1 - x / 2) break;
    }
    y[0] = 1 - x;
    double r = sqrt(fmax(0, 1 - y[0] * y[0]));
    double ct = 2 * uniform() - 1, phi = TWO_PI * uniform(), st = sqrt(fmax(0, 1 - ct * ct));
    y[1] = r * st * cos(phi); y[2] = r * st * sin(phi); y[3] = r * ct;
}

/* quaternion product p q, with the matrix form a0 + i a.sigma */
static void qmul(const double p[4], const double q[4], double r[4])
{
    r[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
    r[1] = p[0] * q[1] + p[1] * q[0] - (p[2] * q[3] - p[3] * q[2]);
    r[2] = p[0] * q[2] + p[2] * q[0] - (p[3] * q[1] - p[1] * q[3]);
    r[3] = p[0] * q[3] + p[3] * q[0] - (p[1] * q[2] - p[2] * q[1]);
}

/* rows i, j of m <- g (as the 2x2 matrix a0 + i a.sigma) times them */
static void left_apply(cplx *m, int i, int j, const double g[4])
{
    cplx g00 = g[0] + I * g[3], g01 = g[2] + I * g[1], g10 = -g[2] + I * g[1], g11 = g[0] - I * g[3];
    for (int c = 0; c < N; c++) {
        cplx a = m[i * N + c], b = m[j * N + c];
        m[i * N + c] = g00 * a + g01 * b;
        m[j * N + c] = g10 * a + g11 * b;
    }
}

static void update_link(int site, int mu, double beta, int heatbath)
{
    cplx a[NMAX * NMAX], w[NMAX * NMAX];
    cplx *u = link_at(site, mu);
    staple_sum(site, mu, a);
    mul(w, u, 0, a, 0);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            cplx w00 = w[i * N + i], w01 = w[i * N + j], w10 = w[j * N + i], w11 = w[j * N + j];
            double q[4] = {creal(w00 + w11) / 2, cimag(w01 + w10) / 2, creal(w01 - w10) / 2,
                           cimag(w00 - w11) / 2};
            double k = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (k < 1e-300) continue;
            double vdag[4] = {q[0] / k, -q[1] / k, -q[2] / k, -q[3] / k}, g[4];
            if (heatbath) {
                double y[4];
                kp_sample(2 * beta * k / N, y);
                qmul(y, vdag, g);
            } else {
                qmul(vdag, vdag, g);
            }
            left_apply(u, i, j, g);
            left_apply(w, i, j, g);
        }
}

/* Gram-Schmidt on the rows, then the last row's phase fixed so det = 1 */
static void reunitarise(cplx *u)
{
    for (int r = 0; r < N; r++) {
        for (int p = 0; p < r; p++) {
            cplx d = 0;
            for (int c = 0; c < N; c++) d += conj(u[p * N + c]) * u[r * N + c];
            for (int c = 0; c < N; c++) u[r * N + c] -= d * u[p * N + c];
        }
        double n = 0;
        for (int c = 0; c < N; c++) n += creal(u[r * N + c] * conj(u[r * N + c]));
        n = sqrt(n);
        for (int c = 0; c < N; c++) u[r * N + c] /= n;
    }
    /* determinant by Gaussian elimination on a copy */
    cplx m[NMAX * NMAX], det = 1;
    for (int i = 0; i < N * N; i++) m[i] = u[i];
    for (int c = 0; c < N; c++) {
        int piv = c;
        for (int r = c + 1; r < N; r++)
            if (cabs(m[r * N + c]) > cabs(m[piv * N + c])) piv = r;
        if (piv != c) {
            for (int k = 0; k < N; k++) { cplx t = m[c * N + k]; m[c * N + k] = m[piv * N + k]; m[piv * N + k] = t; }
            det = -det;
        }
        det *= m[c * N + c];
        for (int r = c + 1; r < N; r++) {
            cplx f = m[r * N + c] / m[c * N + c];
            for (int k = c; k < N; k++) m[r * N + k] -= f * m[c * N + k];
        }
    }
    cplx phase = conj(det) / cabs(det);
    for (int c = 0; c < N; c++) u[(N - 1) * N + c] *= phase;
}

static double plaquette(void)
{
    cplx t[NMAX * NMAX], t2[NMAX * NMAX];
    double sum = 0;
    for (int x = 0; x < VOL; x++)
        for (int mu = 0; mu < 4; mu++)
            for (int nu = mu + 1; nu < 4; nu++) {
                mul(t, link_at(x, mu), 0, link_at(neighbour(x, mu, 1), nu), 0);
                mul(t2, link_at(x, nu), 0, link_at(neighbour(x, nu, 1), mu), 0);
                /* Re tr(t t2^dagger) */
                for (int i = 0; i < N * N; i++) sum += creal(t[i] * conj(t2[i]));
            }
    return sum / (6.0 * VOL * N);
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: sun-heatbath-ref N L BETA THERM MEAS NOR SEED\n");
        return 2;
    }
    N = atoi(argv[1]); L = atoi(argv[2]);
    double beta = atof(argv[3]);
    int therm = atoi(argv[4]), meas = atoi(argv[5]), nor = atoi(argv[6]);
    rng_seed(strtoull(argv[7], NULL, 10));
    if (N < 2 || N > NMAX || L < 2 || !(beta > 0) || therm < 0 || meas < 1 || nor < 0) {
        fprintf(stderr, "sun-heatbath-ref: bad arguments\n");
        return 2;
    }
    VOL = L * L * L * L;
    links = calloc((size_t)VOL * 4 * N * N, sizeof(cplx));
    if (!links) { fprintf(stderr, "sun-heatbath-ref: out of memory\n"); return 1; }
    for (int x = 0; x < VOL; x++)
        for (int mu = 0; mu < 4; mu++)
            for (int i = 0; i < N; i++) link_at(x, mu)[i * N + i] = 1;
    printf("sweep\tplaquette\n0\t%.12f\n", plaquette());
    for (int sweep = 1; sweep <= therm + meas; sweep++) {
        for (int pass = 0; pass <= nor; pass++)
            for (int mu = 0; mu < 4; mu++)
                for (int x = 0; x < VOL; x++) update_link(x, mu, beta, pass == 0);
        for (int x = 0; x < VOL; x++)
            for (int mu = 0; mu < 4; mu++) reunitarise(link_at(x, mu));
        printf("%d\t%.12f\n", sweep, plaquette());
        fflush(stdout);
    }
    free(links);
    return 0;
}
