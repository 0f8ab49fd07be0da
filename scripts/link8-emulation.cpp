/* link8-emulation.cpp -- a host check of the GPU link storage without a GPU
 * (scripts/link8-emulation builds and runs it; tests/emulation.bats in
 * `make check`).
 *
 * kernels/gpu/field.c (the upload and download of gpu_field, compiled with
 * LAT_HAVE_CUDA; the device copies as memcpy, scripts/gpu-util-on-host.h)
 * and the device code of kernels/gpu/accessor.cuh and kernels/gpu/pack.cuh (compiled whole by
 * g++ with scripts/cuda-on-host.h) run on an SU(3) field of Haar-random,
 * unit, diagonal and nearly degenerate links, for storage 'd' and 's' and
 * link compression 12 and 8:
 *   - the uploaded bytes equal a layout built here from gpu_index alone
 *     (12: the first two rows as they were before LINK_8 existed; 8: the
 *     reals of su3_pack8, rounded to the storage type);
 *   - gauge_accessor<S, 3, RECON>::load (and load_stored, rebuild) gives,
 *     bit for bit, su3_unpack8 of those reals (8: load_stored the whole
 *     matrix, nrows = 3) or the two rows with su3_rebuild_row3 (12);
 *   - gauge_accessor::store of U X (X a fixed SU(3) matrix) and the
 *     download give, bit for bit, su3_unpack8(su3_pack8(U X)) (8) or the
 *     rounded rows with the third rebuilt (12);
 *   - k_pack moves one slot out to a halo buffer and back unchanged;
 *   - the recon and ncomp of created fields (SU(3) whole, recon 18: 18
 *     reals in double, 20 in float, the double round trip exact), and the
 *     refusal of a compression the field's N does not have (exit 2, one
 *     line).
 * Prints "link8-emulation: N passed, M failed"; exit 1 if any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "cuda-on-host.h"
#include "math/rng.h"
#include "math/sun.h"
extern "C" {
#include "lattice/field.h"
#include "base/log.h"
}
#include "gpu/field.h"
#include "unit.h"
namespace emu {
#include "gpu/accessor.cuh"
#include "gpu/pack.cuh"
}
using namespace emu;

/* the device entry points the host side calls: host memory, no GPU */
#define GPU_ON_HOST_REFUSE "link8-emulation"
#include "gpu-util-on-host.h"

static int parity(const struct lattice *lat, int64_t s)
{
    int x[LAT_ND];
    lattice_coords(lat, s, x);
    return (x[0] + x[1] + x[2] + x[3]) & 1;
}

/* the 8 reals of m as storage S keeps them, back in double */
template <typename S> static void packed(const lat_complex *m, double *w)
{
    su3_pack8(m, w);
    for (int c = 0; c < 8; c++) w[c] = (double)(S)w[c];
}

/* m as LINK_12 storage S returns it: two rows rounded, the third rebuilt */
template <typename S> static void two_rows(const lat_complex *u, lat_complex *m)
{
    for (int k = 0; k < 6; k++) m[k] = c_make((double)(S)u[k].re, (double)(S)u[k].im);
    su3_rebuild_row3(m);
}

/* what storage S with compression RECON makes of u (load, download) */
template <typename S, int RECON> static void expect(const lat_complex *u, lat_complex *m)
{
    if (RECON == LINK_8) {
        double w[8];
        packed<S>(u, w);
        su3_unpack8(w, m);
    } else two_rows<S>(u, m);
}

static int same(const lat_complex *a, const lat_complex *b, int n) { return memcmp(a, b, sizeof(lat_complex) * n) == 0; }

template <typename S, int RECON> static void check(const struct field &u, char prec, const lat_complex *x)
{
    typedef gauge_accessor<S, 3, RECON> U;
    const struct lattice *lat = &u.lat;
    struct gpu_field f;
    gpu_field_create_recon(&f, &u, prec, 0, RECON == LINK_8 ? GPU_RECON_8 : GPU_RECON_12);
    CHECK(f.recon == (RECON == LINK_8 ? 8 : 12) && f.ncomp == (int)U::ncomp && f.vec == (int)U::vec &&
              (int)U::nrows == (RECON == LINK_12 ? 2 : 3),
          "%c/%d: recon %d, ncomp %d, vec %d, nrows %d", prec, RECON, f.recon, f.ncomp, f.vec, (int)U::nrows);
    gpu_field_upload(&f, &u, NULL);
    /* the uploaded bytes against a layout built from gpu_index alone */
    size_t nl = (size_t)8 * f.nblk * f.ncomp * GPU_LANES;
    std::vector<S> ref(nl, (S)0);
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < 4; mu++) {
            const lat_complex *l = (const lat_complex *)field_link(&u, s, mu);
            double w[12];
            if (RECON == LINK_8) su3_pack8(l, w);
            else memcpy(w, l, sizeof w);
            for (int c = 0; c < f.ncomp; c++) ref[gpu_index(f.nblk, f.ncomp, f.vec, parity(lat, s) * 4 + mu, c, s >> 1)] = (S)w[c];
        }
    CHECK(memcmp(ref.data(), f.links, nl * sizeof(S)) == 0, "%c/%d: the uploaded layout", prec, RECON);
    /* load, load_stored + rebuild: bit for bit what the storage says */
    kgeo g = make_geo(&f);
    S *links = (S *)f.links;
    int nbad = 0, nstored = 0;
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < 4; mu++) {
            lat_complex m[9], e[9], m2[9];
            const lat_complex *l = (const lat_complex *)field_link(&u, s, mu);
            S *b = U::at(links, g, parity(lat, s), mu, (int)(s >> 1));
            U::template load<lat_complex>(b, m);
            expect<S, RECON>(l, e);
            nbad += !same(m, e, 9);
            sun_zero(3, m2);
            U::template load_stored<lat_complex, true>(b, m2);
            nstored += !same(m2, e, U::nrows * 3);
            U::rebuild(m2);
            nstored += !same(m2, e, 9);
        }
    CHECK(nbad == 0, "%c/%d: %d links load differently from the storage's reference", prec, RECON, nbad);
    CHECK(nstored == 0, "%c/%d: load_stored / rebuild differ %d times", prec, RECON, nstored);
    /* store U X through the accessor, download: bit for bit */
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < 4; mu++) {
            lat_complex m[9], y[9];
            U::template load<lat_complex>(U::at(links, g, parity(lat, s), mu, (int)(s >> 1)), m);
            sun_mul(3, y, m, x);
            U::store(U::at(links, g, parity(lat, s), mu, (int)(s >> 1)), y);
        }
    /* k_pack: slot 5 (parity 1, mu 1) to a halo buffer and back into a
     * cleared slot, thread by thread */
    int vh = (int)f.Vh, slot = 5;
    std::vector<S> buf((size_t)vh * f.ncomp), keep(links, links + nl);
    const unsigned nb = (unsigned)((vh * f.ncomp + 255) / 256);
    cuda_on_host_grid(nb, 256, [&] { k_pack<S>(links, buf.data(), f.nblk, f.ncomp, f.vec, slot, 0, vh, 0); });
    size_t slot_reals = (size_t)f.nblk * f.ncomp * GPU_LANES;
    memset(links + slot * slot_reals, 0, slot_reals * sizeof(S));
    cuda_on_host_grid(nb, 256, [&] { k_pack<S>(links, buf.data(), f.nblk, f.ncomp, f.vec, slot, 0, vh, 1); });
    CHECK(memcmp(keep.data(), links, nl * sizeof(S)) == 0, "%c/%d: k_pack out and back", prec, RECON);
    struct field d;
    field_alloc(&d, lat, 3, 64);
    gpu_field_download(&f, &d, NULL);
    nbad = 0;
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < 4; mu++) {
            lat_complex m[9], y[9], e[9];
            const lat_complex *l = (const lat_complex *)field_link(&u, s, mu);
            expect<S, RECON>(l, m);
            sun_mul(3, y, m, x);
            expect<S, RECON>(y, e);
            nbad += !same((const lat_complex *)field_link(&d, s, mu), e, 9);
        }
    CHECK(nbad == 0, "%c/%d: %d links stored and downloaded differ from the reference", prec, RECON, nbad);
    /* the round trip's size, for the record */
    double worst = 0;
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < 4; mu++) {
            lat_complex y[9];
            sun_mul(3, y, (const lat_complex *)field_link(&u, s, mu), x);
            const lat_complex *m = (const lat_complex *)field_link(&d, s, mu);
            for (int k = 0; k < 9; k++) worst = fmax(worst, sqrt(c_norm2(c_sub(m[k], y[k]))));
        }
    printf("storage %c, recon %2d: layout, load, store, download, k_pack as the reference; |U X - stored| <= %.1e\n",
           prec, RECON == LINK_8 ? 8 : 12, worst);
    field_free(&d);
    gpu_field_free(&f);
}

static void bad_recon(void *arg)
{
    const int *w = (const int *)arg;
    int L[4] = {4, 2, 2, 2};
    struct lattice lat;
    const char *why;
    lattice_init(&lat, L, &why);
    struct field u;
    field_alloc(&u, &lat, w[0], 64);
    struct gpu_field f;
    gpu_field_create_recon(&f, &u, 'd', 0, w[1]);
    exit(0);
}

int main(void)
{
    lat_progname = "link8-emulation";
    int L[4] = {4, 2, 2, 6}; /* Vh = 48: one full block of 32 and a partial one */
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why)) lat_die(1, NULL, "%s", why);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 11);
    /* special links: unit, diagonal, diag(phase, U(2)), nearly degenerate */
    struct lat_rng r;
    rng_init(&r, 5, 0, 0, 0, RNG_TEST);
    for (int64_t s = 0; s < lat.V; s += 3) {
        lat_complex *m = (lat_complex *)field_link(&u, s, (int)(s % 4));
        double al = 6.283185307179586 * rng_uniform(&r), be = 6.283185307179586 * rng_uniform(&r);
        sun_unit(3, m);
        if (s % 2) {
            m[0] = c_make(cos(al), sin(al));
            m[4] = c_make(cos(be), sin(be));
            m[8] = c_conj(c_mul(m[0], m[4]));
        }
        if (s % 9 == 0) { /* rotated by ~1e-5 in two subgroups: N ~ 1e-10 */
            for (int k = 1; k <= 2; k++) {
                lat_su2 q = {{1, 1e-5 * rng_normal(&r), 1e-5 * rng_normal(&r), 1e-5 * rng_normal(&r)}};
                sun_su2_left(3, m, 0, k, su2_normalize(q));
            }
        }
    }
    lat_complex x[9];
    sun_random_haar(3, (double *)x, &r);
    check<double, LINK_8>(u, 'd', x);
    check<float, LINK_8>(u, 's', x);
    check<double, LINK_12>(u, 'd', x);
    check<float, LINK_12>(u, 's', x);
    check<float, LINK_12>(u, 'm', x);
    /* the defaults and the refusals */
    struct gpu_field f;
    gpu_field_create(&f, &u, 'd', 0);
    CHECK(f.recon == GPU_RECON_12 && f.ncomp == 12, "SU(3) default: recon %d, ncomp %d", f.recon, f.ncomp);
    gpu_field_free(&f);
    struct field u2;
    field_alloc(&u2, &lat, 2, 64);
    gpu_field_create(&f, &u2, 's', 0);
    CHECK(f.recon == GPU_RECON_FULL && f.ncomp == 8, "SU(2) default: recon %d, ncomp %d", f.recon, f.ncomp);
    gpu_field_free(&f);
    field_free(&u2);
    /* SU(3) stored whole (recon 18, the Dirac operator's choice): 18 reals
     * in double, 20 in float (whole 16-byte groups); double round trip exact */
    for (int pr = 0; pr < 2; pr++) {
        gpu_field_create_recon(&f, &u, pr ? 's' : 'd', 0, GPU_RECON_FULL);
        CHECK(f.recon == GPU_RECON_FULL && f.ncomp == (pr ? 20 : 18), "SU(3) recon 18 in %c: recon %d, ncomp %d",
              pr ? 's' : 'd', f.recon, f.ncomp);
        if (!pr) {
            struct field w;
            field_alloc(&w, &lat, 3, 64);
            gpu_field_upload(&f, &u, NULL);
            gpu_field_download(&f, &w, NULL);
            CHECK(memcmp(w.d, u.d, (size_t)lat.V * 4 * 18 * sizeof(double)) == 0,
                  "SU(3) recon 18: the download differs from the upload");
            field_free(&w);
        }
        gpu_field_free(&f);
    }
    int cases[3][2] = {{2, 8}, {3, 16}, {3, 7}};
    for (int i = 0; i < 3; i++) {
        char err[512];
        int lines;
        int st = unit_run_child(bad_recon, cases[i], 20, err, sizeof err, &lines);
        CHECK(st == 2 && lines == 1 && strstr(err, "link compression"), "SU(%d) with recon %d: exit %d, %d lines: %s",
              cases[i][0], cases[i][1], st, lines, err);
    }
    field_free(&u);
    return unit_done("link8-emulation");
}
