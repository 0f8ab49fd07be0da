/* sun-emulation.cpp -- the GPU backend for SU(N), N = 2..8, checked on the
 * host against the CPU backend, without a GPU (scripts/sun-emulation builds
 * and runs it; tests/emulation.bats in `make check`, any build).
 *
 * What runs is gf_backend_gpu itself (kernels/gaugefix/gpu.c and
 * kernels/gpu/field.c compiled with LAT_HAVE_CUDA; the device copies are
 * memcpy: scripts/gpu-util-on-host.h, linked through
 * scripts/gpu-slab-emulation.cpp) with the sweep, quality and
 * reprojection kernels of every precision emulated
 * (scripts/gf-kernel-emulation.cpp: the kernel the CUDA dispatch picks for
 * the N -- k_sweep_sh, four threads per site, for N >= 4 -- run with its
 * barriers), and gpu_field_observables over the observables kernel's text.
 * For N = 2, 3, 4, 5, 6, 8 on a Haar-random 4^4 field:
 *   - on a smooth field at a random point of its gauge orbit, three sweeps
 *     (single precision: one, see run()) of overrelaxation (omega 1.7),
 *     stochastic relaxation (p 0.5) and annealing (T 0.5) in Landau,
 *     Coulomb and MAG gauge (Coulomb and MAG with the transform tracked),
 *     and relaxation and the microcanonical update in Landau gauge, then
 *     one reprojection: in double the links (and transform) downloaded are
 *     bit for bit the CPU backend's (SU(3): within 1e-13, its 12-real links
 *     rebuild the third row); in single and mixed precision within 1e-5 of
 *     them (max |GPU - CPU| over max |CPU|; mixed is bit-identical for
 *     N != 3 too, and printed so);
 *   - F and theta of the GPU backend's measure against the CPU's (1e-12
 *     relative in double);
 *   - plaquette, link trace, Polyakov loop and unitarity of
 *     gpu_field_observables against lattice/observables.c (1e-13), double
 *     and float storage;
 *   - the stored reals per link (2N^2 in whole 16-byte groups: SU(5) and
 *     SU(7) in float 52 and 100);
 *   - the one refusal (tools/shared/device_opt.c): --device gpu for an N
 *     past GPU_MAX_NC exits 1 with one line naming SU(2)..SU(8).
 * Prints one line per N and "sun-emulation: N passed, M failed". */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include "math/sun.h" /* the header math as C++ (Random123's templates), */
#include "math/rng.h" /* then the C declarations with C linkage */
#include "math/su2_heatbath.h"
extern "C" {
#include "gaugefix/site.h"
#include "lattice/field.h"
#include "lattice/observables.h"
#include "lattice/gauge_transform.h"
#include "gpu/gpu.h"
#include "gaugefix/backend.h"
#include "shared/device_opt.h"
#include "base/log.h"
}
#include "gpu/field.h"
#include "unit.h"

/* max |a - b| / max |b| over all reals (a, b double host fields) */
static double rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return m > 0 ? d / m : d;
}

struct run_case {
    const char *name;
    enum gauge_kind gauge;
    enum gf_update update;
    int track;
};

static const struct run_case cases[] = {
    {"landau OR", GAUGE_LANDAU, GF_OVERRELAX, 0},    {"coulomb OR", GAUGE_COULOMB, GF_OVERRELAX, 1},
    {"mag OR", GAUGE_MAG, GF_OVERRELAX, 1},          {"landau SR", GAUGE_LANDAU, GF_STOCHASTIC, 0},
    {"coulomb SR", GAUGE_COULOMB, GF_STOCHASTIC, 1}, {"mag SR", GAUGE_MAG, GF_STOCHASTIC, 1},
    {"landau SA", GAUGE_LANDAU, GF_ANNEAL, 0},       {"coulomb SA", GAUGE_COULOMB, GF_ANNEAL, 1},
    {"mag SA", GAUGE_MAG, GF_ANNEAL, 1},             {"landau relax", GAUGE_LANDAU, GF_RELAX, 1},
    {"landau micro", GAUGE_LANDAU, GF_MICRO, 0},
};

/* three sweeps (single precision: one) and a reprojection on backend be;
 * the result in out (and the transform in t, when tracked).  Single
 * precision is not the same arithmetic on the two sides: C evaluates
 * 1 / sqrt(x) of a float x in double (sqrt returns double), C++ and CUDA in
 * float (the float overloads), so the runs part by rounding, and the
 * stochastic updates turn that into O(1) differences within a few sweeps
 * (a flipped accept/reject of the annealing heatbath; microcanonical
 * reflections amplify it): one sweep compares the kernels' arithmetic. */
static void run(const struct gf_backend *be, const struct field *u, const struct run_case *c, char prec,
                struct field *out, double *t, struct gauge_quality *q)
{
    struct gf_params p = {c->gauge, c->update, 1.7, 0.5, 0.5};
    size_t nt = (size_t)u->lat.V * 2 * u->nc * u->nc;
    if (t) { /* the identity */
        memset(t, 0, nt * sizeof(double));
        for (int64_t x = 0; x < u->lat.V; x++)
            for (int a = 0; a < u->nc; a++) t[(size_t)x * 2 * u->nc * u->nc + 2 * a * (u->nc + 1)] = 1;
    }
    struct gf_state *s = be->create(u, t, prec);
    for (uint32_t k = 0; k < (prec == 's' ? 1u : 3u); k++) be->sweep(s, &p, 11, 2, k, NULL);
    be->measure(s, c->gauge, q);
    be->reunitarize(s);
    be->download(s, out, t);
    be->destroy(s);
}

/* a smooth field P_SU(N)(1 + 0.3 R) (R Haar-random) moved along its gauge
 * orbit by g(x) = P_SU(N)(1 + 0.5 R(x)): a gauge-fixing problem whose
 * subgroup steps are well conditioned (on a Haar-random orbit point a
 * subgroup's k can be small, g = k/|k| then magnifies rounding, and the
 * single-precision runs, whose arithmetic differs, see run(), part by
 * 1e-3 within one microcanonical sweep of SU(8)) */
static void weak_field_on_orbit(struct field *u, const struct lattice *lat, int nc)
{
    field_alloc(u, lat, nc, 64);
    field_set_random(u, 100 + (uint64_t)nc);
    for (int64_t x = 0; x < lat->V; x++)
        for (int mu = 0; mu < 4; mu++) sun_near_unit(nc, (lat_complex *)field_link(u, x, mu), 0.3);
    /* g(x) = P_SU(N)(1 + 0.5 R(x)) */
    size_t nn = field_link_reals(nc);
    double *g = (double *)malloc((size_t)lat->V * nn * sizeof(double));
    gauge_transform_random(nc, lat->V, 7, 0, g);
    for (int64_t x = 0; x < lat->V; x++) sun_near_unit(nc, (lat_complex *)(g + (size_t)x * nn), 0.5);
    gauge_transform_apply(u, g);
    free(g);
}

static void check_nc(int nc)
{
    struct lattice lat;
    int L[4] = {4, 4, 4, 4};
    const char *why;
    lattice_init(&lat, L, &why);
    struct field u, uc, ug;
    weak_field_on_orbit(&u, &lat, nc);
    field_alloc(&uc, &lat, nc, 64);
    field_alloc(&ug, &lat, nc, 64);
    size_t nt = (size_t)lat.V * 2 * nc * nc;
    double *tc = (double *)calloc(nt, sizeof(double)), *tg = (double *)calloc(nt, sizeof(double));
    int bad_d = 0, bad_m = 0;
    double worst_s = 0, worst_m = 0, worst_q = 0, worst_3 = 0;
    for (const char *pr = "dsm"; *pr; pr++)
        for (const struct run_case &c : cases) {
            struct gauge_quality qc, qg;
            run(&gf_backend_cpu, &u, &c, *pr, &uc, c.track ? tc : NULL, &qc);
            run(&gf_backend_gpu, &u, &c, *pr, &ug, c.track ? tg : NULL, &qg);
            if (*pr == 'd' && nc == 3) { /* 12 reals per link: the third row rebuilt, not stored */
                double r = rel_diff(ug.d, uc.d, field_reals(&u));
                if (c.track) r = fmax(r, rel_diff(tg, tc, nt));
                worst_3 = fmax(worst_3, r);
                CHECK(r <= 1e-13, "SU(3) %s double: GPU and CPU differ by %.3g (relative)", c.name, r);
            } else if (*pr == 'd') {
                int same = memcmp(uc.d, ug.d, field_reals(&u) * sizeof(double)) == 0 &&
                           (!c.track || memcmp(tc, tg, nt * sizeof(double)) == 0);
                CHECK(same, "SU(%d) %s double: the GPU's links%s differ from the CPU's (max rel %.3g)", nc, c.name,
                      c.track ? " or transform" : "", rel_diff(ug.d, uc.d, field_reals(&u)));
                bad_d += !same;
            }
            if (*pr == 'd') {
                double dq = fmax(fabs(qg.F - qc.F) / fabs(qc.F), fabs(qg.theta - qc.theta) / fmax(qc.theta, 1e-300));
                worst_q = fmax(worst_q, dq);
                CHECK(dq <= 1e-12, "SU(%d) %s double: F %.17g theta %.17g, CPU %.17g %.17g", nc, c.name, qg.F, qg.theta,
                      qc.F, qc.theta);
            } else {
                double r = rel_diff(ug.d, uc.d, field_reals(&u));
                if (c.track) r = fmax(r, rel_diff(tg, tc, nt));
                if (getenv("SUN_EMU_VERBOSE")) printf("  SU(%d) %s %c: %.3g\n", nc, c.name, *pr, r);
                CHECK(r <= 1e-5, "SU(%d) %s %s: GPU and CPU differ by %.3g (relative)", nc, c.name,
                      *pr == 's' ? "single" : "mixed", r);
                if (*pr == 's') worst_s = fmax(worst_s, r);
                else {
                    worst_m = fmax(worst_m, r);
                    bad_m += r != 0;
                }
            }
            gauge_quality_free(&qc);
            gauge_quality_free(&qg);
        }
    /* the observables kernel, double and float storage, against the CPU */
    double worst_o = 0;
    for (char pr : {'d', 's'}) {
        struct field ref;
        field_copy_as(&ref, &u, pr == 'd' ? 64 : 32);
        struct field stored; /* the links as stored, downloaded in double */
        field_alloc(&stored, &lat, nc, 64);
        struct gpu_field f;
        gpu_field_create(&f, &ref, pr, 0);
        CHECK(f.ncomp == (nc == 3 ? 12 : (2 * nc * nc + f.vec - 1) / f.vec * f.vec) && f.ncomp % f.vec == 0,
              "SU(%d) '%c': %d stored reals per link", nc, pr, f.ncomp);
        gpu_field_upload(&f, &ref, NULL);
        struct gpu_observables o;
        gpu_field_observables(&f, &o);
        gpu_field_download(&f, &stored, NULL); /* the reference (SU(3): the third row rebuilt in double) */
        gpu_field_free(&f);
        struct plaquette pq = measure_plaquette(&stored);
        double lt = measure_link_trace(&stored), pre, pim;
        measure_polyakov(&stored, &pre, &pim);
        struct unitarity un = measure_unitarity(&stored);
        double d[] = {o.plaq - pq.all, o.plaq_s - pq.spatial, o.plaq_t - pq.temporal, o.link_trace - lt,
                      o.poly_re - pre, o.poly_im - pim, o.unit_mean - un.mean, o.unit_max - un.max,
                      o.det_mean - un.det_mean, o.det_max - un.det_max};
        for (double x : d) worst_o = fmax(worst_o, fabs(x));
        field_free(&ref);
        field_free(&stored);
    }
    CHECK(worst_o <= 1e-13, "SU(%d) observables: GPU and CPU differ by %.3g", nc, worst_o);
    char dword[64];
    if (nc == 3) snprintf(dword, sizeof dword, "within %.1e (12-real links)", worst_3);
    else snprintf(dword, sizeof dword, "bit-identical %s", bad_d ? "NO" : "yes");
    printf("SU(%d): %zu cases: double %s, F/theta within %.1e; single within %.1e, mixed %s (%.1e) "
           "(relative); observables within %.1e\n",
           nc, sizeof cases / sizeof cases[0], dword, worst_q, worst_s, bad_m ? "within" : "bit-identical", worst_m,
           worst_o);
    free(tc);
    free(tg);
    field_free(&u);
    field_free(&uc);
    field_free(&ug);
}

static void refuse(void *arg)
{
    struct device_choice dc = {1, 1};
    struct device_caps caps = {"gauge-fixing", 1, GPU_MIN_NC, GPU_MAX_NC};
    device_opt_fits(&dc, &caps, *(int *)arg);
    exit(0);
}

int main(int argc, char **argv)
{
    lat_progname = "sun-emulation";
    int ns[] = {2, 3, 4, 5, 6, 8}, only = argc > 1 ? atoi(argv[1]) : 0;
    for (int nc : ns)
        if (!only || nc == only) check_nc(nc);
    /* one N past the limit: the one refusal, exit 1, one line naming the limit */
    char err[512], want[64];
    int lines, nc = GPU_MAX_NC + 1;
    int st = unit_run_child(refuse, &nc, 10, err, sizeof err, &lines);
    snprintf(want, sizeof want, "SU(%d)..SU(%d), not SU(%d)", GPU_MIN_NC, GPU_MAX_NC, nc);
    CHECK(st == 1 && lines == 1 && strstr(err, want), "--device gpu with SU(%d): exit %d, %d lines: %s", nc, st, lines, err);
    printf("--device gpu with SU(%d): exit %d, %d line: %s", nc, st, lines, err);
    nc = GPU_MAX_NC;
    st = unit_run_child(refuse, &nc, 10, err, sizeof err, &lines);
    CHECK(st == 0 && lines == 0, "--device gpu with SU(%d): exit %d: %s", nc, st, err);
    return unit_done("sun-emulation");
}
