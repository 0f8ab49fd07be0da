/* hb-kernel-emulation.cpp -- a host check of the CUDA heatbath kernel
 * without a GPU or nvcc (scripts/hb-kernel-emulation builds and runs it;
 * tests/emulation.bats in `make check`, any CUDA=).
 *
 * It compiles kernels/heatbath/gpu_link.cuh (k_link) and
 * kernels/gpu/accessor.cuh whole with g++ (scripts/cuda-on-host.h: the CUDA
 * qualifiers defined away, the load intrinsics plain loads) and
 * kernels/gpu/field.c as the CUDA build does (gpu_field_create/upload/
 * download, the device copies memcpy here: scripts/gpu-util-on-host.h), in
 * ONE precision per build:
 *     -DHB_EMU_PREC="'d'"  LAT_REAL double, double storage
 *     -DHB_EMU_PREC="'s'"  LAT_REAL float,  float storage
 *     -DHB_EMU_PREC="'m'"  LAT_REAL double, float storage (mixed)
 * For every N of HB_EMU_NCS below (SU(2) .. SU(8)) it runs, on a Haar-random
 * 4^4 field, 3 sweeps of (one heatbath sweep with counter k, one
 * overrelaxation sweep) as the CUDA backend launches them (parity 0, 1;
 * mu = 0..3; the kernel instantiation heatbath/gpu_sweep.cuh uses: mu a
 * template constant for N <= HB_UNROLL_MAX_NC, an argument above; every
 * thread of a launch in turn: no thread of a launch reads what another
 * writes, so the order inside a launch does not matter), and the same
 * sweeps on the CPU backend (hb_backend_cpu, the library's cpu.c of that
 * precision), from the same start, and compares the downloaded links after
 * every sweep:
 *   every link within 1e-5 relative (||U_emu - U_cpu||_F / ||U_cpu||_F);
 *   and the stored rows bit for bit (memcmp; SU(3): the two rows its
 *     12-real storage keeps -- the download rebuilds the third in double
 *     where the CPU keeps it in the storage precision) in double, single
 *     and mixed, except mixed SU(3): there the kernel rebuilds the third row
 *     in double from the rounded two where the CPU stored it rounded, so
 *     each sweep starts from the CPU's field and must agree to 1e-5 (a
 *     rounding difference grows from sweep to sweep: the update is chaotic).
 * The start, given to both, is the CPU backend's field one heatbath sweep
 * from a Haar-random one, as its precision stores it.  It also
 * checks that the links moved (so equal means something) and stayed in
 * SU(N).  Prints one line per N and "hb-kernel-emulation PREC: N passed,
 * M failed"; exit 1 if any failed.  It checks neighbours, parities, slots,
 * the per-N instantiation, the storage of every N (ncomp rounded to 16
 * bytes for SU(5), SU(7) in float) and the random streams; not the CUDA
 * compiler's code (tests/gpu/test_gpu_heatbath.c does that on a GPU). */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "cuda-on-host.h"
#include "heatbath/link.h"
extern "C" {
#include "lattice/field.h"
#include "lattice/observables.h"
#include "heatbath/backend.h"
#include "base/log.h"
}
#include "gpu/field.h"
#include "unit.h"

#ifndef HB_EMU_PREC
#error "build with -DHB_EMU_PREC=\"'d'\", \"'s'\" or \"'m'\" (scripts/hb-kernel-emulation)"
#endif
#if HB_EMU_PREC == 'd'
typedef double emu_store;
#else
typedef float emu_store;
#endif

namespace emu {
#include "gpu/accessor.cuh"
#include "heatbath/gpu_link.cuh"
}
using namespace emu;

/* the device entry points the host side calls: host memory, no GPU */
#define GPU_ON_HOST_REFUSE "hb-kernel-emulation"
#include "gpu-util-on-host.h"

/* one launch of k_link<SU(NC), MU, HB> (L1 path, 128 threads: every
 * candidate computes the same bits) over the half indices [h0, h1) */
template <int NC, int MU, bool HB>
static void launch(const kgeo &g, emu_store *links, int p, int mu, double beta_n, uint64_t seed, uint32_t k)
{
    typedef typename default_links<emu_store, NC>::type U;
    cuda_on_host_grid((unsigned)(g.h1 - g.h0 + 127) / 128, 128,
                      [&] { k_link<U, MU, HB, true, 128, 1>(g, links, p, mu, beta_n, seed, k); });
}

/* a sweep as gpu_sweep.cuh launches it: 8 steps (parity, mu) */
template <int NC, bool HB>
static void sweep(const kgeo &g, emu_store *links, double beta, uint64_t seed, uint32_t k)
{
    double beta_n = HB ? beta / NC : 0; /* as the CPU and gpu_sweep.cuh */
    for (int p = 0; p < 2; p++)
        for (int mu = 0; mu < 4; mu++) {
            if (NC > HB_UNROLL_MAX_NC) { launch<NC, -1, HB>(g, links, p, mu, beta_n, seed, k); continue; }
            switch (mu) {
            case 0: launch<NC, 0, HB>(g, links, p, mu, beta_n, seed, k); break;
            case 1: launch<NC, 1, HB>(g, links, p, mu, beta_n, seed, k); break;
            case 2: launch<NC, 2, HB>(g, links, p, mu, beta_n, seed, k); break;
            default: launch<NC, 3, HB>(g, links, p, mu, beta_n, seed, k); break;
            }
        }
}

/* whether the stored rows of every link (all N rows; SU(3): the two its
 * 12-real storage keeps) are the same bits */
static bool same_rows(const struct field &a, const struct field &b, int nrows)
{
    int n = a.nc, per = 2 * nrows * n;
    for (int64_t s = 0; s < a.lat.V; s++)
        for (int mu = 0; mu < 4; mu++)
            if (memcmp(field_link(&a, s, mu), field_link(&b, s, mu), (size_t)per * sizeof(double))) return false;
    return true;
}

/* largest ||a - b||_F / ||b||_F over the links */
static double rel_diff(const struct field &a, const struct field &b)
{
    int nr = 2 * a.nc * a.nc;
    double w = 0;
    for (int64_t s = 0; s < a.lat.V; s++)
        for (int mu = 0; mu < 4; mu++) {
            const double *x = field_link(&a, s, mu), *y = field_link(&b, s, mu);
            double d = 0, n = 0;
            for (int c = 0; c < nr; c++) {
                d += (x[c] - y[c]) * (x[c] - y[c]);
                n += y[c] * y[c];
            }
            w = fmax(w, sqrt(d / n));
        }
    return w;
}

template <int NC> static void check(const struct lattice &lat, double beta, uint64_t seed)
{
    const char prec = HB_EMU_PREC;
    const bool exact = !(prec == 'm' && NC == 3);
    struct field u0, start, emu_out, cpu_out;
    field_alloc(&u0, &lat, NC, 64);
    field_set_random(&u0, seed + NC);
    gpu_field f;
    gpu_field_create(&f, &u0, prec, 0);
    typedef typename default_links<emu_store, NC>::type U;
    CHECK(f.ncomp == (int)U::ncomp && f.nc == NC, "SU(%d) %c: gpu_field ncomp %d, the accessor's %d", NC, prec, f.ncomp,
          (int)U::ncomp);
    /* the start both get: the CPU backend's field one heatbath sweep from
     * the hot start (stored as that precision keeps it: SU(3)'s third row
     * is then the one su3_rebuild_row3 gives in the kernels' arithmetic) */
    struct hb_state *cpu = hb_backend_cpu.create(&u0, prec);
    hb_backend_cpu.heatbath(cpu, beta, seed, 1000);
    field_alloc(&start, &lat, NC, 64);
    hb_backend_cpu.download(cpu, &start);
    gpu_field_upload(&f, &start, NULL);
    field_alloc(&emu_out, &lat, NC, 64);
    field_alloc(&cpu_out, &lat, NC, 64);
    kgeo g = make_geo(&f);
    emu_store *links = (emu_store *)f.links;
    char line[512];
    int n = snprintf(line, sizeof line, "SU(%d) %c 4^4 beta %g:", NC, prec, beta);
    int bad = 0;
    for (uint32_t k = 0; k < 3; k++)
        for (int hb = 1; hb >= 0; hb--) {
            if (!exact) { /* the sweep from the CPU's field: rounding differences
                           * would grow from sweep to sweep (the update is chaotic) */
                hb_backend_cpu.download(cpu, &cpu_out);
                gpu_field_upload(&f, &cpu_out, NULL);
            }
            if (hb) {
                sweep<NC, true>(g, links, beta, seed, k);
                hb_backend_cpu.heatbath(cpu, beta, seed, k);
            } else {
                sweep<NC, false>(g, links, 0, 0, 0);
                hb_backend_cpu.overrelax(cpu);
            }
            gpu_field_download(&f, &emu_out, NULL);
            hb_backend_cpu.download(cpu, &cpu_out);
            double d = rel_diff(emu_out, cpu_out);
            bool same = same_rows(emu_out, cpu_out, U::nrows);
            n += snprintf(line + n, sizeof line - (size_t)n, " %s%u %s", hb ? "HB" : "OR", k + 1,
                          same ? "identical" : "");
            if (!same) n += snprintf(line + n, sizeof line - (size_t)n, "%.2g", d);
            if (exact) CHECK(same, "SU(%d) %c: %s sweep %u: emulated kernel and CPU differ (max rel %.3g), expected identical bits",
                             NC, prec, hb ? "heatbath" : "OR", k + 1, d);
            CHECK(d <= 1e-5, "SU(%d) %c: %s sweep %u: emulated kernel and CPU differ by %.3g relative (> 1e-5)", NC, prec,
                  hb ? "heatbath" : "OR", k + 1, d);
            bad |= (exact && !same) || !(d <= 1e-5);
        }
    double moved = rel_diff(emu_out, start);
    double unit = measure_unitarity(&emu_out).max;
    CHECK(moved > 0.1, "SU(%d) %c: the links moved by only %.3g from the start", NC, prec, moved);
    CHECK(unit < (prec == 'd' ? 1e-12 : 1e-5), "SU(%d) %c: unitarity deviation %.3g after the sweeps", NC, prec, unit);
    printf("%s; links moved by up to %.2f, unitarity %.1e%s\n", line, moved, unit, bad ? " FAILED" : "");
    hb_backend_cpu.destroy(cpu);
    gpu_field_free(&f);
    field_free(&u0);
    field_free(&start);
    field_free(&emu_out);
    field_free(&cpu_out);
}

int main()
{
    lat_progname = "hb-kernel-emulation";
    int L[4] = {4, 4, 4, 4};
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why)) lat_die(1, NULL, "lattice: %s", why);
    /* beta near each N's crossover region (beta/N^2 ~ 0.35), so both
     * samplers of su2_heatbath.h (Creutz, Kennedy-Pendleton) run */
    check<2>(lat, 2.3, 101);
    check<3>(lat, 5.7, 102);
    check<4>(lat, 10.8, 103);
    check<5>(lat, 17.0, 104);
    check<6>(lat, 25.0, 105);
    check<7>(lat, 34.0, 106);
    check<8>(lat, 44.0, 107);
    char name[64];
    snprintf(name, sizeof name, "hb-kernel-emulation %c", HB_EMU_PREC);
    return unit_done(name);
}
