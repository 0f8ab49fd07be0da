/* hb-kernel-emulation.cpp -- a host check of the CUDA heatbath kernel's
 * index logic without a GPU (scripts/hb-kernel-emulation builds and runs it).
 *
 * It compiles kernels/heatbath/gpu_link.cuh (k_link) and
 * kernels/gpu/accessor.cuh whole with g++, the CUDA qualifiers and load intrinsics defined away, runs the
 * 8 launches of a sweep thread by thread (no thread of a launch reads what
 * another writes, so the order inside a launch does not matter), and
 * compares the field in the device layout with the CPU backend after each of
 * 5 heatbath sweeps and then 5 OR sweeps from the CPU's field (double,
 * SU(3), a 4x6x4x8 lattice).  Prints the max |difference| per sweep; exits 1
 * if one exceeds 1e-10.  It checks neighbours, parities, slots and random
 * streams, not the CUDA compiler's code. */
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include "cuda-on-host.h"
#include "heatbath/link.h"
extern "C" {
#include "lattice/field.h"
#include "heatbath/backend.h"
#include "lattice/observables.h"
}
#include "gaugefix/gpu.h"
namespace emu {
#include "gpu/accessor.cuh"
#include "heatbath/gpu_link.cuh"
typedef default_links<double, 3>::type links3;
}
using namespace emu;
template <int MU, bool HB> static void launch(kgeo g, double *links, int p, double bn, uint64_t seed, uint32_t k)
{
    int nb = (g.Vh + 127) / 128;
    for (int b = 0; b < nb; b++)
        for (int t = 0; t < 128; t++) {
            blockIdx.x = b; threadIdx.x = t;
            k_link<links3, MU, HB, true, 128>(g, links, p, bn, seed, k);
        }
}
/* the device layout buf <-> a host field: copy in, or the largest difference */
static void to_device(double *buf, const gpu_field &f, const struct field &u)
{
    for (int64_t s = 0; s < u.lat.V; s++) {
        int p = lattice_parity(&u.lat, s);
        for (int mu = 0; mu < 4; mu++)
            for (int c = 0; c < 12; c++) buf[gpu_index(f.nblk, 12, 2, p * 4 + mu, c, s >> 1)] = field_link(&u, s, mu)[c];
    }
}
static double max_diff(const double *buf, const gpu_field &f, const struct field &u)
{
    double w = 0;
    for (int64_t s = 0; s < u.lat.V; s++) {
        int p = lattice_parity(&u.lat, s);
        for (int mu = 0; mu < 4; mu++)
            for (int c = 0; c < 12; c++) w = fmax(w, fabs(buf[gpu_index(f.nblk, 12, 2, p * 4 + mu, c, s >> 1)] - field_link(&u, s, mu)[c]));
    }
    return w;
}

int main()
{
    int bad = 0;
    int L[4] = {4, 6, 4, 8};
    struct lattice lat; const char *why;
    lattice_init(&lat, L, &why);
    struct field u; field_alloc(&u, &lat, 3, 64); field_set_random(&u, 5);
    gpu_field f; memset(&f, 0, sizeof f);
    for (int m = 0; m < 4; m++) f.L[m] = L[m];
    f.nc = 3; f.ncomp = 12; f.vec = 2; f.V = lat.V; f.Vh = lat.V / 2; f.nblk = (f.Vh + 31) / 32; f.prec = 'd';
    size_t n = (size_t)8 * f.nblk * 12 * 32;
    double *buf = (double *)calloc(n, sizeof(double));
    to_device(buf, f, u);
    kgeo g = make_geo(&f);
    struct hb_state *sc = hb_backend_cpu.create(&u, 'd');
    struct field c; field_alloc(&c, &lat, 3, 64);
    for (uint32_t k = 0; k < 5; k++) {
        hb_backend_cpu.heatbath(sc, 5.7, 77, k);
        for (int p = 0; p < 2; p++) {
            launch<0, true>(g, buf, p, 5.7 / 3, 77, k); launch<1, true>(g, buf, p, 5.7 / 3, 77, k);
            launch<2, true>(g, buf, p, 5.7 / 3, 77, k); launch<3, true>(g, buf, p, 5.7 / 3, 77, k);
        }
        hb_backend_cpu.download(sc, &c);
        double w = max_diff(buf, f, c);
        printf("heatbath sweep %u: max |diff| emulated kernel vs CPU backend %.3g\n", k + 1, w);
        bad |= w > 1e-10;
    }
    hb_backend_cpu.download(sc, &c);
    to_device(buf, f, c);
    for (int o = 0; o < 5; o++) {
    hb_backend_cpu.overrelax(sc);
    for (int p = 0; p < 2; p++) {
        launch<0, false>(g, buf, p, 0, 0, 0); launch<1, false>(g, buf, p, 0, 0, 0);
        launch<2, false>(g, buf, p, 0, 0, 0); launch<3, false>(g, buf, p, 0, 0, 0);
    }
        hb_backend_cpu.download(sc, &c);
        double w = max_diff(buf, f, c);
        printf("OR sweep %d: max |diff| %.3g\n", o + 1, w);
        bad |= w > 1e-10;
    }
    hb_backend_cpu.download(sc, &c);
    double worst = max_diff(buf, f, c);
    double moved = 0;
    for (int64_t s = 0; s < lat.V; s++) for (int k = 0; k < 12; k++) moved = fmax(moved, fabs(field_link(&c, s, 1)[k] - field_link(&u, s, 1)[k]));
    printf("after the OR sweeps: max |diff| %.3g (links moved by up to %.3g from the start)\n", worst, moved);
    return worst > 1e-10 || bad ? 1 : 0;
}
