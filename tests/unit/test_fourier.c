/* test_fourier.c -- the pieces of lat-fourier: the su(N) packing of
 * math/algebra.h (unpack(pack) is the traceless Hermitian part, alg_dot is
 * tr(PQ)), the exponential (closed forms for diagonal and SU(2)-block
 * generators, SU(3) through Cayley-Hamilton against the general Taylor
 * path of a 4 x 4 embedding, unitarity and det = 1 at large norms), and
 * the transforms of fft/fft.h against a direct DFT (dims 3 and 4, uneven
 * extents, two components) with backward(forward(a)) = N a. */
#define LAT_VARIANT_D
#include "math/algebra.h"
#include "fft/fft.h"
#include "math/rng.h"
#include "unit.h"
#include <stdlib.h>

static double urand(struct lat_rng *r) { return rng_uniform(r) - 0.5; }

static double max_diff(int n, const lat_complex *a, const lat_complex *b)
{
    double m = 0;
    for (int i = 0; i < n * n; i++) {
        double d = hypot(a[i].re - b[i].re, a[i].im - b[i].im);
        if (d > m) m = d;
    }
    return m;
}

static void test_packing(struct lat_rng *r)
{
    for (int n = 2; n <= 5; n++) {
        lat_complex s[25], h[25], q[25];
        lat_real p[24], pq[24];
        for (int i = 0; i < n * n; i++) s[i] = c_make(urand(r), urand(r));
        alg_pack_antiherm_part(n, s, p);
        alg_unpack(n, p, h);
        /* direct: (S - S^dag)/(2i), minus its trace / n */
        double tr = 0;
        for (int a = 0; a < n; a++) tr += s[a * (n + 1)].im;
        double m = 0;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                double wr = s[a * n + b].re - s[b * n + a].re, wi = s[a * n + b].im + s[b * n + a].im;
                double er = wi / 2 - (a == b ? tr / n : 0), ei = -wr / 2;
                m = fmax(m, hypot(h[a * n + b].re - er, h[a * n + b].im - ei));
            }
        CHECK(m < 1e-15, "SU(%d): unpack(pack(S)) is off the traceless Hermitian part by %g", n, m);
        for (int i = 0; i < n * n; i++) s[i] = c_make(urand(r), urand(r));
        alg_pack_antiherm_part(n, s, pq);
        alg_unpack(n, pq, q);
        lat_complex hq[25];
        sun_mul(n, hq, h, q);
        CHECK_CLOSE(alg_dot(n, p, pq), sun_trace(n, hq).re, 1e-14);
        CHECK(fabs(sun_trace(n, hq).im) < 1e-15, "tr(PQ) of Hermitian P, Q is real");
    }
}

static void test_exp(struct lat_rng *r)
{
    /* diagonal: exp(i a H) = diag(exp(i a h_k)) */
    for (int n = 2; n <= 4; n++) {
        lat_complex h[16], e[16], want[16];
        double d[4], sum = 0;
        for (int k = 0; k + 1 < n; k++) sum += d[k] = 3 * urand(r);
        d[n - 1] = -sum;
        sun_zero(n, h);
        sun_zero(n, want);
        for (int k = 0; k < n; k++) {
            h[k * (n + 1)] = c_make(d[k], 0);
            want[k * (n + 1)] = c_make(cos(0.7 * d[k]), sin(0.7 * d[k]));
        }
        sun_exp_i(n, 0.7, h, e);
        CHECK(max_diff(n, e, want) < 1e-14, "SU(%d) diagonal exp off by %g", n, max_diff(n, e, want));
    }
    /* an SU(2) block: H = [[0, z], [z*, 0]] on rows 0, 1: exp(i a H) = cos(a|z|) + i sin(a|z|) H/|z| */
    for (int n = 2; n <= 4; n++) {
        lat_complex h[16], e[16], want[16];
        lat_complex z = c_make(0.9, -1.3);
        double az = 1.1 * sqrt(c_norm2(z));
        sun_zero(n, h);
        h[1] = z;
        h[n] = c_conj(z);
        sun_unit(n, want);
        want[0] = want[n + 1] = c_make(cos(az), 0);
        want[1] = c_scale(sin(az) / sqrt(c_norm2(z)), c_make(-z.im, z.re));
        want[n] = c_scale(sin(az) / sqrt(c_norm2(z)), c_make(z.im, z.re));
        sun_exp_i(n, 1.1, h, e);
        CHECK(max_diff(n, e, want) < 1e-14, "SU(%d) block exp off by %g", n, max_diff(n, e, want));
    }
    /* SU(3) (Cayley-Hamilton series) against the general Taylor path on the
     * 4 x 4 matrix H + 0, at small, unit and large norms */
    double worst = 0, unit_dev = 0, det_dev = 0;
    for (int k = 0; k < 300; k++) {
        double scale = k % 3 == 0 ? 1e-6 : k % 3 == 1 ? 1 : 12;
        lat_complex s[9], h3[9], e3[9], h4[16], e4[16], top[9];
        lat_real p[8];
        for (int i = 0; i < 9; i++) s[i] = c_make(scale * urand(r), scale * urand(r));
        alg_pack_antiherm_part(3, s, p);
        alg_unpack(3, p, h3);
        sun_zero(4, h4);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) h4[i * 4 + j] = h3[i * 3 + j];
        sun_exp_i(3, -0.8, h3, e3);
        sun_exp_i(4, -0.8, h4, e4);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) top[i * 3 + j] = e4[i * 4 + j];
        worst = fmax(worst, max_diff(3, e3, top) / fmax(1, scale));
        unit_dev = fmax(unit_dev, sun_unitarity_dev(3, e3));
        lat_complex dt = sun_det(3, e3);
        det_dev = fmax(det_dev, hypot(dt.re - 1, dt.im));
    }
    CHECK(worst < 1e-13, "SU(3) exp: Cayley-Hamilton and Taylor differ by %g", worst);
    CHECK(unit_dev < 1e-13, "SU(3) exp: ||E^dag E - 1|| up to %g", unit_dev);
    CHECK(det_dev < 1e-13, "SU(3) exp: |det E - 1| up to %g", det_dev);
}

/* the direct DFT of component c at momentum k (sign -1) */
static lat_complex dft(const struct lattice *lat, int dims, const lat_complex *a, const int k[4], int t_of_slice)
{
    double re = 0, im = 0;
    for (int64_t x = 0; x < lat->V; x++) {
        int c[4];
        lattice_coords(lat, x, c);
        if (dims == 3 && c[3] != t_of_slice) continue;
        double ph = 0;
        for (int mu = 0; mu < dims; mu++) ph += 2 * M_PI * (double)k[mu] * c[mu] / lat->L[mu];
        re += a[x].re * cos(ph) + a[x].im * sin(ph);
        im += a[x].im * cos(ph) - a[x].re * sin(ph);
    }
    return c_make(re, im);
}

static void test_fft(struct lat_rng *r)
{
    struct lattice lat;
    const int L[4] = {4, 2, 6, 4};
    const char *why;
    CHECK(lattice_init(&lat, L, &why) == 0, "lattice 4x2x6x4");
    for (int dims = 3; dims <= 4; dims++) {
        struct lat_fft *f = fft_create_d(&lat, NULL, dims, 2);
        int64_t cnt = fft_count_d(f), kc = fft_kcount_d(f);
        CHECK(kc == lat.V && cnt >= lat.V, "one rank: every momentum here (%lld of %lld)", (long long)kc, (long long)lat.V);
        lat_complex *a = malloc(sizeof(lat_complex) * (size_t)(2 * cnt)), *b = malloc(sizeof(lat_complex) * (size_t)(2 * cnt));
        for (int64_t i = 0; i < 2 * cnt; i++) a[i] = b[i] = c_make(urand(r), urand(r));
        fft_forward_d(f, b);
        double m = 0;
        for (int c = 0; c < 2; c++)
            for (int64_t j = 0; j < kc; j++) {
                int k[4];
                fft_momentum_d(f, j, k);
                lat_complex w = dft(&lat, dims, a + c * cnt, k, k[3]);
                m = fmax(m, hypot(w.re - b[c * cnt + j].re, w.im - b[c * cnt + j].im));
            }
        CHECK(m < 1e-12, "dims %d: forward differs from the direct DFT by %g", dims, m);
        fft_backward_d(f, b);
        double N = dims == 4 ? (double)lat.V : (double)(lat.V / L[3]), e = 0;
        for (int c = 0; c < 2; c++)
            for (int64_t x = 0; x < lat.V; x++)
                e = fmax(e, hypot(b[c * cnt + x].re / N - a[c * cnt + x].re, b[c * cnt + x].im / N - a[c * cnt + x].im));
        CHECK(e < 1e-14, "dims %d: backward(forward(a)) / N differs from a by %g", dims, e);
        free(a);
        free(b);
        fft_destroy_d(f);
    }
}

int main(void)
{
    struct lat_rng r;
    rng_init(&r, 42, 0, 0, 0, RNG_TEST);
    test_packing(&r);
    test_exp(&r);
    test_fft(&r);
    return unit_done("test_fourier");
}
