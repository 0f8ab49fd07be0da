/* test_gpu_heatbath.c -- `make check-gpu`: the CUDA heatbath backend
 * (hb_backend_gpu) against the CPU backend (hb_backend_cpu) and physics:
 *   - CPU and GPU chains in double precision from the same hot start
 *     (SU(3) 8^4, SU(2) 8^4 and a 6x6x8x4 SU(3) box; SU(N >= 4) below): the largest link
 *     difference after each of 5 heatbath sweeps is printed; sweep 1 must
 *     agree to 1e-12, sweeps 2..5 to 1e-9 (or 100x the CPU's own response
 *     to a 1e-15 perturbation, where that is larger).  The backends round differently
 *     (FMA contraction), so the chains part once a rounding difference flips
 *     one accept/reject decision of the SU(2) sampler (su2_heatbath.h): that
 *     link then draws other numbers from its stream, becomes an O(1)
 *     different link, and the difference spreads; on lattices this small and
 *     sweeps this few that is very unlikely in double precision.
 *   - overrelaxation: 5 OR sweeps agree to 1e-12 (nothing random; or 100x
 *     the CPU's own sensitivity: reflections amplify rounding, up to ~14x
 *     per sweep on a field 5 sweeps from a hot start).
 *   - single and mixed precision: after one heatbath sweep at most 1% of the
 *     links differ by more than 1e-3 (float rounding flips decisions).
 *   - measurements: the GPU's plaquette (all, spatial, temporal) and
 *     Polyakov loop equal the CPU's of the same field to 1e-12.
 *   - reproducibility: the same seed twice gives identical bytes on the GPU
 *     (every precision), and so does every launch candidate of k_link.
 *   - physics: strong coupling (beta = 1: SU(3) P ~ beta/18 + beta^2/216,
 *     SU(2) P ~ beta/4 - beta^3/96) and SU(3) beta = 6 on 8^4 (0.5937 at
 *     16^4, docs/VALIDATION.md), averaged over short GPU runs; links stay
 *     unitary in single precision.
 *   - SU(N >= 4): the same chains (SU(4) 6^4 in every precision, SU(5),
 *     SU(6), SU(8) on 4^3x8) and the same bytes from every launch candidate
 *     (the tuned SU(4)'s six, the generic kernel's two).
 * LAT_TEST_SEED sets the seed of the hot starts (printed). */
#include "lattice/field.h"
#include "gpu/gpu.h"
#include "gpu_fields.h"
#include "gpu/tune.h"
#include "heatbath/backend.h"
#include "heatbath/gpu.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "unit.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct hb_backend *cpu = &hb_backend_cpu, *gpu = &hb_backend_gpu;
static uint64_t seed0;

static void lattice_of(struct lattice *lat, int lx, int ly, int lz, int lt)
{
    int L[4] = {lx, ly, lz, lt};
    const char *why;
    if (lattice_init(lat, L, &why)) { fprintf(stderr, "lattice: %s\n", why); exit(1); }
}

static void download(const struct hb_backend *b, struct hb_state *s, const struct lattice *lat, int nc, struct field *u)
{
    field_alloc(u, lat, nc, 64);
    b->download(s, u);
}

/* links differing (||A-B||_F / ||B||_F) by more than tol */
static int64_t count_diff(const struct field *a, const struct field *b, double tol)
{
    int64_t n = 0;
    for (int64_t x = 0; x < a->lat.V; x++)
        for (int mu = 0; mu < 4; mu++) n += !(link_rel_diff(a, b, x, mu) <= tol);
    return n;
}

/* u with every real scaled by 1 + 1e-15 (-3..3): the CPU's own sensitivity
 * to rounding is measured by running it from this input too */
static void perturbed(struct field *dst, const struct field *u)
{
    field_copy(dst, u);
    for (size_t k = 0; k < field_reals(dst); k++) dst->d[k] *= 1 + 1e-15 * ((int)(k % 7) - 3);
}

/* CPU vs GPU chains: 5 heatbath sweeps (then 5 OR sweeps) in precision prec.
 * Double: the GPU must agree with the CPU to 1e-12 after sweep 1 and 1e-9
 * after sweeps 2..5, or, where the CPU itself amplifies rounding more (a
 * hot start is far from equilibrium; overrelaxation reflects through
 * w/|w|), to 100x the CPU's response to a 1e-15 perturbation of its input
 * (the criterion of test_gpu_gaugefix). */
static void chains(int nc, const struct lattice *lat, double beta, char prec)
{
    struct field u;
    field_alloc(&u, lat, nc, 64);
    field_set_random(&u, seed0 + (uint64_t)nc);
    struct hb_state *sc = cpu->create(&u, prec), *sg = gpu->create(&u, prec);
    struct field up;
    perturbed(&up, &u);
    struct hb_state *sp = cpu->create(&up, prec);
    char line[512];
    int n = snprintf(line, sizeof line, "SU(%d) %dx%dx%dx%d beta %g %c: heatbath, max link difference per sweep:", nc,
                     lat->L[0], lat->L[1], lat->L[2], lat->L[3], beta, prec);
    uint64_t seed = seed0 + 100;
    for (int k = 0; k < 5; k++) {
        cpu->heatbath(sc, beta, seed, (uint32_t)k);
        gpu->heatbath(sg, beta, seed, (uint32_t)k);
        cpu->heatbath(sp, beta, seed, (uint32_t)k);
        struct field a, b, c;
        download(cpu, sc, lat, nc, &a);
        download(gpu, sg, lat, nc, &b);
        download(cpu, sp, lat, nc, &c);
        double d = rel_diff(&b, &a), sens = rel_diff(&c, &a);
        field_free(&c);
        int64_t far = count_diff(&b, &a, 1e-3);
        n += snprintf(line + n, sizeof line - (size_t)n, " %.2g (CPU's own %.2g)", d, sens);
        if (prec == 'd') {
            double tol = fmax(k == 0 ? 1e-12 : 1e-9, 100 * sens);
            CHECK(d <= tol, "SU(%d) %c sweep %d: GPU and CPU links differ by %g (tolerance %g; %lld links by > 1e-3: "
                  "an accept/reject decision flipped by rounding?)", nc, prec, k + 1, d, tol, (long long)far);
        } else if (k == 0) {
            CHECK(far <= (int64_t)(0.01 * 4 * (double)lat->V), "SU(%d) %c sweep 1: %lld of %lld links differ by > 1e-3", nc,
                  prec, (long long)far, (long long)(4 * lat->V));
        }
        field_free(&a);
        field_free(&b);
    }
    printf("%s\n", line);
    if (prec == 'd') {
        /* overrelaxation from the CPU's field on both */
        struct field a;
        download(cpu, sc, lat, nc, &a);
        struct field ap;
        perturbed(&ap, &a);
        struct hb_state *oc = cpu->create(&a, 'd'), *og = gpu->create(&a, 'd'), *op = cpu->create(&ap, 'd');
        for (int k = 0; k < 5; k++) {
            cpu->overrelax(oc);
            gpu->overrelax(og);
            cpu->overrelax(op);
        }
        struct field b, c, e;
        download(cpu, oc, lat, nc, &b);
        download(gpu, og, lat, nc, &c);
        download(cpu, op, lat, nc, &e);
        double worst = rel_diff(&c, &b), osens = rel_diff(&e, &b);
        printf("SU(%d) %c: 5 overrelaxation sweeps, max link difference %.2g (CPU's own sensitivity %.2g)\n", nc, prec,
               worst, osens);
        CHECK(worst <= fmax(1e-12, 100 * osens), "SU(%d) OR: GPU and CPU differ by %g after 5 sweeps (CPU's own sensitivity %g)",
              nc, worst, osens);
        cpu->destroy(op);
        field_free(&ap);
        field_free(&e);
        /* measurements: the GPU's of its field = the host's of the same field */
        struct plaquette pg, pc;
        double gr, gi, cr, ci;
        gpu->measure(og, &pg, &gr, &gi);
        pc = measure_plaquette(&c);
        measure_polyakov(&c, &cr, &ci);
        double dm = fmax(fmax(fabs(pg.all - pc.all), fabs(pg.spatial - pc.spatial)),
                         fmax(fabs(pg.temporal - pc.temporal), fmax(fabs(gr - cr), fabs(gi - ci))));
        CHECK(dm <= 1e-12, "SU(%d) measure: GPU %.15f %.15f %.15f %.15f %.15f vs host %.15f %.15f %.15f %.15f %.15f", nc,
              pg.all, pg.spatial, pg.temporal, gr, gi, pc.all, pc.spatial, pc.temporal, cr, ci);
        struct plaquette p2;
        double r2, i2;
        cpu->measure(oc, &p2, &r2, &i2);
        printf("SU(%d): plaquette GPU %.15f CPU %.15f, Polyakov GPU %.3e%+.3ei CPU %.3e%+.3ei (measure difference %.2g)\n",
               nc, pg.all, p2.all, gr, gi, r2, i2, dm);
        cpu->destroy(oc);
        gpu->destroy(og);
        field_free(&a);
        field_free(&b);
        field_free(&c);
    }
    cpu->destroy(sc);
    cpu->destroy(sp);
    gpu->destroy(sg);
    field_free(&u);
    field_free(&up);
}

/* the same chain twice, and in every launch candidate: identical bytes
 * (the tuner's choice must not change a result) */
static void reproducible(int nc, char prec)
{
    struct lattice lat;
    lattice_of(&lat, 8, 8, 8, 8);
    struct field u, out[HB_CANDIDATES + 1];
    field_alloc(&u, &lat, nc, 64);
    field_set_random(&u, seed0 + 7);
    for (int r = 0; r <= HB_CANDIDATES; r++) {
        gpu_tune_force(r == HB_CANDIDATES ? 0 : r);
        struct hb_state *s = gpu->create(&u, prec);
        for (int k = 0; k < 3; k++) {
            gpu->heatbath(s, 5.5, seed0 + 9, (uint32_t)k);
            gpu->overrelax(s);
        }
        download(gpu, s, &lat, nc, &out[r]);
        gpu->destroy(s);
    }
    gpu_tune_force(-1);
    size_t bytes = field_reals(&u) * sizeof(double);
    CHECK(memcmp(out[0].d, out[HB_CANDIDATES].d, bytes) == 0, "SU(%d) %c: the same seed twice gave different bytes", nc, prec);
    for (int r = 1; r < HB_GPU_NCAND(nc); r++)
        CHECK(memcmp(out[0].d, out[r].d, bytes) == 0, "SU(%d) %c: launch candidate %d (%s) gave other bytes than candidate 0 (max link difference %.2g)",
              nc, prec, r, hb_gpu_candidate_name(nc, r), rel_diff(&out[r], &out[0]));
    for (int r = 0; r <= HB_CANDIDATES; r++) field_free(&out[r]);
    field_free(&u);
}

/* mean plaquette of `meas` GPU sweeps (1 heatbath + 4 OR) after `therm` */
static double gpu_plaquette(int nc, int l, double beta, char prec, int therm, int meas, double *unit_max)
{
    struct lattice lat;
    lattice_of(&lat, l, l, l, l);
    struct field u;
    field_alloc(&u, &lat, nc, 64);
    field_set_random(&u, seed0 + 11);
    struct hb_state *s = gpu->create(&u, prec);
    double sum = 0;
    for (int k = 0; k < therm + meas; k++) {
        gpu->heatbath(s, beta, seed0 + 13, (uint32_t)k);
        for (int o = 0; o < 4; o++) gpu->overrelax(s);
        if (k >= therm) {
            struct plaquette p;
            gpu->measure(s, &p, NULL, NULL);
            sum += p.all;
        }
    }
    gpu->download(s, &u);
    if (unit_max) *unit_max = measure_unitarity(&u).max;
    gpu->destroy(s);
    field_free(&u);
    return sum / meas;
}

static void physics(void)
{
    double um;
    double p3 = gpu_plaquette(3, 8, 1.0, 'd', 20, 20, NULL);
    double e3 = 1.0 / 18 + 1.0 / 216;
    CHECK(fabs(p3 - e3) < 0.01, "SU(3) beta 1: plaquette %.5f, strong coupling %.5f", p3, e3);
    double p2 = gpu_plaquette(2, 8, 1.0, 'd', 20, 20, NULL);
    double e2 = 0.25 - 1.0 / 96;
    CHECK(fabs(p2 - e2) < 0.02, "SU(2) beta 1: plaquette %.5f, strong coupling %.5f", p2, e2);
    double p6 = gpu_plaquette(3, 8, 6.0, 's', 30, 30, &um);
    CHECK(fabs(p6 - 0.5937) < 0.005, "SU(3) beta 6 8^4 single: plaquette %.5f, expected about 0.5937", p6);
    CHECK(um < 1e-5, "SU(3) single: unitarity deviation %.3g after 60 sweeps", um);
    double p6m = gpu_plaquette(3, 8, 6.0, 'm', 30, 30, NULL);
    CHECK(fabs(p6m - 0.5937) < 0.005, "SU(3) beta 6 8^4 mixed: plaquette %.5f, expected about 0.5937", p6m);
    printf("physics: SU(3) beta 1 P = %.5f (strong coupling %.5f), SU(2) beta 1 P = %.5f (%.5f), SU(3) beta 6 8^4 P = %.5f "
           "single, %.5f mixed (0.5937 at 16^4), unitarity %.2g single\n", p3, e3, p2, e2, p6, p6m, um);
}

int main(int argc, char **argv)
{
    lat_progname = "test_gpu_heatbath";
    if (argc > 1 && strcmp(argv[1], "-v") == 0) lat_verbosity = 1;
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        printf("test_gpu_heatbath: no GPU (%s)\n", why);
        printf("test_gpu_heatbath: 0 passed, 1 failed\n");
        return 1;
    }
    const char *e = getenv("LAT_TEST_SEED");
    seed0 = e ? strtoull(e, NULL, 10) : (uint64_t)time(NULL);
    printf("test_gpu_heatbath: seed %llu (LAT_TEST_SEED repeats it)\n", (unsigned long long)seed0);
    struct lattice l8, box;
    lattice_of(&l8, 8, 8, 8, 8);
    lattice_of(&box, 6, 6, 8, 4);
    chains(3, &l8, 5.7, 'd');
    chains(2, &l8, 2.3, 'd');
    chains(3, &box, 6.0, 'd');
    chains(3, &l8, 5.7, 's');
    chains(3, &l8, 5.7, 'm');
    chains(2, &l8, 2.3, 's');
    /* SU(N >= 4): the tuned SU(4) and the generic kernel (N = 5, 6, 8) */
    struct lattice l6, l4;
    lattice_of(&l6, 6, 6, 6, 6);
    lattice_of(&l4, 4, 4, 4, 8);
    chains(4, &l6, 10.8, 'd');
    chains(4, &l6, 10.8, 's');
    chains(4, &l6, 10.8, 'm');
    chains(5, &l4, 17.0, 'd');
    chains(6, &l4, 25.0, 'd');
    chains(6, &l4, 25.0, 's');
    chains(8, &l4, 44.0, 'd');
    chains(8, &l4, 44.0, 'm');
    int ncs[] = {2, 3, 4, 5, 8};
    for (int i = 0; i < 5; i++) {
        reproducible(ncs[i], 'd');
        reproducible(ncs[i], 's');
        reproducible(ncs[i], 'm');
    }
    physics();
    return unit_done("test_gpu_heatbath");
}
