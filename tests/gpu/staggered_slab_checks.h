/* staggered_slab_checks.h -- the checks of the GPU staggered operator and
 * its multi-shift solves on t-slabs of an MPI run (dirac/staggered_gpu.h
 * on a slab: faces of 3 complex per site; solvers/blas_gpu.h's
 * per-timeslice reductions through staggered_reduce_layout), written once
 * for the real GPUs (tests/gpu/test_gpu_staggered_mpi.c, C, run by
 * tests/run-gpu under mpirun -np 1 and 2) and the host emulation
 * (scripts/staggered-slab-emulation.cpp, C++, the kernels thread by thread,
 * mpirun -np 1, 2, 4): header only, the common subset of C and C++.  The
 * includer defines first
 *   struct solver_blas *ssc_blas_open(const struct solver_reduce_layout *l)
 *   void ssc_blas_close(struct solver_blas *b)
 * (the GPU vector kernels with that reduction layout).  Uses unit.h's
 * CHECK and staggered_vecs.h's device vectors.
 *
 *   ssc_main(argc, argv, name, default_lattice)
 *       usage: NAME [LxxLyxLzxLt [OUT]]: on the global lattice (Haar-random
 *       SU(3) links, field_set_random: the same links for any R; mass
 *       1: some 35 iterations a solve, the host emulation's reductions
 *       being slow) every rank builds the CPU staggered operator on its slab and
 *       the GPU one from it, and asserts (each a global number, the same
 *       verdict on every rank):
 *         K = (M^dag M)_ee (links in 12, 18, 8 reals; double, single, half
 *         vectors) against the CPU's staggered_mdagm_ee in double on the
 *         same stored input, |diff| / |ref| below staggered-emulation's
 *         bounds (double 1e-13; single 1e-6, 8 reals 1e-5; half 1e-3);
 *         ssc_bits set (the emulation: no fused multiply-adds): double
 *         with 18 reals the CPU's bits exactly;
 *         the same bits when the solver's prepare packed K's first faces
 *         ahead for that input, or for another vector (dropped);
 *         the same again with the operator made from other links and
 *         given these through staggered_gpu_set_links_device from a
 *         device field of the slab with its halo slices (the HMC's);
 *         the normal view's A and A^dag (double, 18 reals) against
 *         staggered_solver_op_normal's, 1e-13 (bits: exactly);
 *         solver_multishift_cg on the _normal view (the multi-shift CG of
 *         the RHMC; sigma 0, 0.01, 0.1; sloppy double and half) to tol 1e-10 with the GPU operator and vector kernels:
 *         converged, |b - (K + sigma) x| / |b| with the CPU's K < 2e-10,
 *         the odd halves exactly zero; in double the table's device loop
 *         (solvers/blas_gpu_multishift.cuh, on for every R) gives the bits
 *         and iterations of multishift.c's own loop (a second table opened
 *         with LAT_GPU_MULTISHIFT=host) with fewer device-to-host copies;
 *         R even: a slab of 3 timeslices a rank (Lt = 3R) refused with a
 *         reason naming the even number of timeslices.
 *       Rank 0 writes every result gathered (slab order = global order)
 *       and the solves' iteration counts to OUT: the files of every R must
 *       be the same bytes (the caller compares them).  Prints one line per
 *       case and "NAME R=N: P passed, F failed" (rank 0); returns the exit
 *       status (1 if any failed). */
#ifndef LAT_TEST_STAGGERED_SLAB_CHECKS_H
#define LAT_TEST_STAGGERED_SLAB_CHECKS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __cplusplus
extern "C" {
#endif
#include "base/comm.h"
#include "base/log.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "gpu/field.h"
#include "solvers/solvers.h"
#include "solvers/blas_gpu.h" /* solver_blas_gpu_device_loop */
#ifdef __cplusplus
}
#endif
#include "math/rng.h"
#include "staggered_vecs.h"
#include "unit.h"
#include "slab_start.h"

static FILE *ssc_out; /* rank 0, or NULL: no file */
static int ssc_bits;  /* 1: the emulation, exact comparisons too */
static const char *ssc_pname[3] = {"double", "single", "half"};

/* the ranks' owned parts, rank after rank, appended to the output on rank 0 */
static void ssc_record(const struct geometry *d, const void *own, size_t owned_bytes)
{
    if (!comm_is_root()) {
        comm_send(own, owned_bytes, 0, 72);
        return;
    }
    const int R = d ? d->size : 1;
    char *whole = (char *)lat_malloc(owned_bytes * (size_t)R);
    memcpy(whole, own, owned_bytes);
    for (int r = 1; r < R; r++) comm_recv(whole + (size_t)r * owned_bytes, owned_bytes, r, 72);
    if (ssc_out && fwrite(whole, 1, owned_bytes * (size_t)R, ssc_out) != owned_bytes * (size_t)R)
        lat_die(1, "staggered slab checks", "writing the results failed");
    free(whole);
}

/* |a - b| / |b| over all ranks; *ndiff (if not NULL): reals not the same bits */
static double ssc_rel(const double *a, const double *b, size_t n, double *ndiff)
{
    double s[3] = {0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        s[0] += (a[k] - b[k]) * (a[k] - b[k]);
        s[1] += b[k] * b[k];
        s[2] += memcmp(&a[k], &b[k], sizeof(double)) != 0;
    }
    comm_sum(s, 3);
    if (ndiff) *ndiff = s[2];
    return sqrt(s[0] / s[1]);
}

/* a random owned even half field: 6 normals per global half site (global
 * half index of owned half site 0: t0 V3/2), the same input for any R */
static void ssc_random_half(const struct geometry *d, struct staggered_op *cpu, uint64_t seed, double *v)
{
    const size_t n = staggered_half_reals(cpu), ns = n / 6;
    const uint64_t first = d ? (uint64_t)d->t0 * (uint64_t)(d->v3 / 2) : 0;
    for (size_t s = 0; s < ns; s++) {
        struct lat_rng r;
        rng_init(&r, seed, 2, first + s, 0, RNG_TEST);
        for (int k = 0; k < 6; k++) v[6 * s + k] = rng_normal(&r);
    }
}

static const char *ssc_recon(int r) { return r == GPU_RECON_FULL ? "18" : r == GPU_RECON_12 ? "12" : "8"; }

/* other NULL: the operator made from u (its links uploaded from the host);
 * else made from the other links, then given u's through
 * staggered_gpu_set_links_device from a device field of u's whole slab, halo
 * slices included (hmc/gpu.c's layout: L[3] = lt + 2, first global site
 * (t0 - 1) V3), so every check below is of the device link refresh */
static void ssc_operator(const struct geometry *d, struct staggered_op *cpu, const struct field *u, int recon,
                         const struct field *other)
{
    char why[256];
    struct staggered_gpu *g = staggered_gpu_create(cpu, other ? other : u, recon, why, sizeof why);
    CHECK(g != NULL, "staggered_gpu_create on the slab: %s", why);
    if (!g) return;
    const char *via = other ? " (device links)" : "";
    if (other) {
        struct gpu_field dev;
        gpu_field_create_recon(&dev, u, 'd', 0, GPU_RECON_FULL);
        gpu_field_upload(&dev, u, NULL);
        if (d) dev.site0 = (int64_t)(d->t0 - 1) * d->v3;
        staggered_gpu_set_links_device(g, &dev);
        gpu_sync("the device link refresh");
        gpu_field_free(&dev);
    }
    const int64_t vh = staggered_gpu_half_sites(g);
    const size_t n = staggered_half_reals(cpu);
    CHECK((size_t)vh * 6 == n, "slab vector of %lld sites, the CPU's half field has %zu reals", (long long)vh, n);
    double *psi = (double *)lat_malloc(n * sizeof(double)), *in = (double *)lat_malloc(n * sizeof(double)),
           *out = (double *)lat_calloc(n, sizeof(double)), *ref = (double *)lat_malloc(n * sizeof(double));
    ssc_random_half(d, cpu, 5, psi);
    for (int p = 0; p < 3; p++) {
        const double bound = p == SOLVER_DOUBLE ? 1e-13 : p == SOLVER_SINGLE ? (recon == GPU_RECON_8 ? 1e-5 : 1e-6) : 1e-3;
        struct solver_vec vi = sv_upload((enum solver_prec)p, vh, psi), vo = sv_upload((enum solver_prec)p, vh, out);
        sv_download(&vi, vh, in); /* the stored input, rounded to the precision */
        staggered_gpu_ee_apply(g, (enum solver_prec)p, &vo, &vi);
        sv_download(&vo, vh, out);
        staggered_mdagm_ee(cpu, ref, in);
        double nd;
        const double err = ssc_rel(out, ref, n, &nd);
        CHECK(err < bound, "recon %s %s%s: K differs from the CPU's by %.3g (bound %g)", ssc_recon(recon), ssc_pname[p], via,
              err, bound);
        if (ssc_bits && p == SOLVER_DOUBLE && recon == GPU_RECON_FULL)
            CHECK(nd == 0, "recon 18 double%s: %.0f reals not the CPU's bits", via, nd);
        ssc_record(d, out, n * sizeof(double));
        if (comm_is_root())
            printf("R=%d recon %-2s %-6s%s: K %.2e vs the CPU (bound %g)%s\n", comm_size(), ssc_recon(recon), ssc_pname[p],
                   via, err, bound, ssc_bits && p == SOLVER_DOUBLE && recon == GPU_RECON_FULL ? (nd == 0 ? ", the same bits" : ", NOT the same bits") : "");
        /* the solver's prepare (K's first faces packed and sent ahead): the
         * apply on that vector takes them, one on another vector drops them
         * -- the same bits as without either way */
        struct solver_op so;
        staggered_gpu_solver_op_ee(&so, g);
        double *out2 = (double *)lat_calloc(n, sizeof(double));
        int taken = 1, dropped = 1;
        for (int other = 0; other < 2; other++) {
            struct solver_vec vo2 = sv_upload((enum solver_prec)p, vh, out2);
            so.prepare(so.ctx, other ? &vo : &vi);
            staggered_gpu_ee_apply(g, (enum solver_prec)p, &vo2, &vi);
            sv_download(&vo2, vh, out2);
            *(other ? &dropped : &taken) = memcmp(out, out2, n * sizeof(double)) == 0;
            sv_free(&vo2);
        }
        CHECK(taken && dropped, "recon %s %s%s: K after the faces packed ahead (%s) not the bits of K alone", ssc_recon(recon),
              ssc_pname[p], via, taken ? "for another vector" : "for this one");
        free(out2);
        sv_free(&vi);
        sv_free(&vo);
    }
    if (recon == GPU_RECON_FULL) { /* the normal view, [even | odd] */
        double *x2 = (double *)lat_malloc(2 * n * sizeof(double)), *o2 = (double *)lat_calloc(2 * n, sizeof(double)),
               *r2 = (double *)lat_malloc(2 * n * sizeof(double));
        memcpy(x2, psi, n * sizeof(double));
        ssc_random_half(d, cpu, 6, x2 + n);
        struct solver_op sg, sc;
        staggered_gpu_solver_op_normal(&sg, g);
        staggered_solver_op_normal(&sc, cpu);
        for (int dag = 0; dag < 2; dag++) {
            struct solver_vec vi = sv_upload(SOLVER_DOUBLE, 2 * vh, x2), vo = sv_upload(SOLVER_DOUBLE, 2 * vh, o2);
            (dag ? sg.apply_dag : sg.apply)(sg.ctx, (double *)vo.data, (const double *)vi.data);
            sv_download(&vo, 2 * vh, o2);
            (dag ? sc.apply_dag : sc.apply)(sc.ctx, r2, x2);
            double nd;
            const double err = ssc_rel(o2, r2, 2 * n, &nd);
            CHECK(err < 1e-13 && (!ssc_bits || nd == 0), "normal view A%s: %.3g from the CPU's, %.0f reals not its bits",
                  dag ? "^dag" : "", err, nd);
            ssc_record(d, o2, n * sizeof(double)); /* the halves apart: slab order = global order */
            ssc_record(d, o2 + n, n * sizeof(double));
            if (comm_is_root()) printf("R=%d normal view A%-4s: %.2e vs the CPU\n", comm_size(), dag ? "^dag" : "", err);
            sv_free(&vi);
            sv_free(&vo);
        }
        free(x2), free(o2), free(r2);
    }
    free(psi), free(in), free(out), free(ref);
    staggered_gpu_free(g);
}

/* |b - (K + sigma) x| / |b| with the CPU's K, over all ranks */
static double ssc_residual(struct staggered_op *cpu, double sigma, const double *b, const double *x, size_t n)
{
    double *r = (double *)lat_malloc(n * sizeof(double));
    staggered_mdagm_ee(cpu, r, x);
    for (size_t k = 0; k < n; k++) r[k] += sigma * x[k];
    const double res = ssc_rel(r, b, n, NULL);
    free(r);
    return res;
}

static void ssc_solves(const struct geometry *d, struct staggered_op *cpu, const struct field *u)
{
    char why[256];
    struct staggered_gpu *g = staggered_gpu_create(cpu, u, GPU_RECON_12, why, sizeof why);
    CHECK(g != NULL, "staggered_gpu_create on the slab: %s", why);
    if (!g) return;
    const int64_t vh = staggered_gpu_half_sites(g);
    const size_t n = (size_t)vh * 6;
    double *b = (double *)lat_calloc(2 * n, sizeof(double)), *x = (double *)lat_calloc(2 * n, sizeof(double));
    double *xkeep = (double *)lat_calloc(6 * n, sizeof(double)); /* the three x_i of a solve */
    ssc_random_half(d, cpu, 9, b);
    struct solver_reduce_layout ln;
    staggered_reduce_layout(cpu, 1, &ln);
    struct solver_blas *bn = ssc_blas_open(&ln);
    CHECK(bn != NULL, "no GPU vector kernels");
    /* the double solve again with multishift.c's own loop (the host's
     * scalars): the device loop (blas_gpu_multishift.cuh, on here and on
     * every R) must give its bits and iterations */
    if (bn) solver_blas_gpu_device_loop(bn, d);
    setenv("LAT_GPU_MULTISHIFT", "host", 1);
    struct solver_blas *bh = ssc_blas_open(&ln);
    unsetenv("LAT_GPU_MULTISHIFT");
    CHECK(bh != NULL, "no GPU vector kernels");
    struct solver_op sn;
    staggered_gpu_solver_op_normal(&sn, g);
    const double sigma[3] = {0, 0.01, 0.1};
    const enum solver_prec sloppy[2] = {SOLVER_DOUBLE, SOLVER_HALF};
    for (int c = 0; bn && c < 2; c++) {
        const int p = (int)sloppy[c];
        struct solver_params par = {1e-10, 5000, (enum solver_prec)p, 0, NULL, NULL, NULL, NULL};
        struct solver_result mres[3];
        struct solver_vec vb = sv_upload(SOLVER_DOUBLE, 2 * vh, b), xs[3];
        double *xp[3];
        memset(x, 0, 2 * n * sizeof(double));
        for (int i = 0; i < 3; i++) xs[i] = sv_upload(SOLVER_DOUBLE, 2 * vh, x), xp[i] = (double *)xs[i].data;
        struct gpu_transfer_count tdev, thost;
        gpu_transfer_take(&tdev);
        const enum solver_status st = solver_multishift_cg(&sn, bn, (const double *)vb.data, 3, sigma, NULL, xp, &par, mres);
        gpu_transfer_take(&tdev); /* the device-to-host copies of the solve */
        double worst = 0, odd = 0;
        for (int i = 0; i < 3; i++) {
            sv_download(&xs[i], 2 * vh, x);
            memcpy(xkeep + i * 2 * n, x, 2 * n * sizeof(double));
            const double ri = ssc_residual(cpu, sigma[i], b, x, n);
            if (ri > worst) worst = ri;
            for (size_t k = n; k < 2 * n; k++) odd += fabs(x[k]);
            ssc_record(d, x, n * sizeof(double));
            sv_free(&xs[i]);
        }
        comm_sum(&odd, 1);
        if (p == SOLVER_DOUBLE && bh) { /* the host loop's bits (xkeep: the device loop's x_i) */
            struct solver_result hres[3];
            struct solver_vec hs[3];
            double *hp[3], *xh = (double *)lat_calloc(2 * n, sizeof(double));
            memset(xh, 0, 2 * n * sizeof(double));
            for (int i = 0; i < 3; i++) hs[i] = sv_upload(SOLVER_DOUBLE, 2 * vh, xh), hp[i] = (double *)hs[i].data;
            gpu_transfer_take(&thost);
            const enum solver_status sh = solver_multishift_cg(&sn, bh, (const double *)vb.data, 3, sigma, NULL, hp, &par, hres);
            gpu_transfer_take(&thost);
            double differ = 0;
            int same_it = sh == st;
            for (int i = 0; i < 3; i++) {
                sv_download(&hs[i], 2 * vh, xh);
                sv_free(&hs[i]);
                same_it &= hres[i].iterations == mres[i].iterations && hres[i].status == mres[i].status;
                for (size_t k2 = 0; k2 < 2 * n; k2++) differ += memcmp(&xh[k2], &xkeep[i * 2 * n + k2], sizeof(double)) != 0;
            }
            comm_sum(&differ, 1);
            CHECK(same_it && differ == 0, "multi-shift CG double: the device loop and multishift.c's loop differ "
                  "(%g reals, iterations %s)", differ, same_it ? "same" : "differ");
            /* the host loop fetches two sums an iteration; the device loop
             * (when it ran: LAT_GPU_HALO=host turns it off on R > 1) none
             * through gpu_download on a GPU, one flag copy an iteration in
             * the emulation */
            const int dev_loop = comm_size() == 1 || !getenv("LAT_GPU_HALO") || strcmp(getenv("LAT_GPU_HALO"), "host") != 0;
            const unsigned long long it = (unsigned long long)mres[0].iterations;
            CHECK(dev_loop ? tdev.down_calls + it / 2 < thost.down_calls : tdev.down_calls == thost.down_calls,
                  "multi-shift CG double: %llu device-to-host copies with the device loop %s, %llu without",
                  tdev.down_calls, dev_loop ? "on" : "off (no peers)", thost.down_calls);
            if (comm_is_root())
                printf("R=%d multi-shift CG double, device loop %s = host loop: %s (iterations %d/%d/%d; "
                       "device-to-host copies %llu and %llu)\n", comm_size(), dev_loop ? "on" : "off",
                       same_it && differ == 0 ? "bits and iterations" : "NO", hres[0].iterations, hres[1].iterations,
                       hres[2].iterations, tdev.down_calls, thost.down_calls);
            free(xh);
        }
        CHECK(st == SOLVER_CONVERGED && worst < 2e-10 && odd == 0,
              "multi-shift CG sloppy %s: %s, worst CPU residual %.3g, odd half %g", ssc_pname[p], solver_status_name(st),
              worst, odd);
        if (comm_is_root()) {
            printf("R=%d multi-shift CG sloppy %-6s: %s, %d/%d/%d iterations, worst CPU residual %.2e\n", comm_size(),
                   ssc_pname[p], solver_status_name(st), mres[0].iterations, mres[1].iterations, mres[2].iterations, worst);
            if (ssc_out)
                fprintf(ssc_out, "multishift %s %d %d %d %d\n", ssc_pname[p], mres[0].iterations, mres[1].iterations,
                        mres[2].iterations, mres[0].reliable_updates);
        }
        sv_free(&vb);
    }
    if (bn) ssc_blas_close(bn);
    if (bh) ssc_blas_close(bh);
    free(b), free(x), free(xkeep);
    staggered_gpu_free(g);
}

static int ssc_main(int argc, char **argv, const char *name, const char *lattice)
{
    int L[4];
    struct lattice glob;
    struct field u;
    const struct geometry *d = slab_checks_start(&argc, &argv, name, lattice, L, &glob, &u, &ssc_out);
    const char *lwhy;
    char why[256];
    struct staggered_op *cpu = staggered_create(&u, 1.0, why, sizeof why);
    if (!cpu) lat_die_all(1, name, "staggered_create: %s", why);
    const int recons[3] = {GPU_RECON_12, GPU_RECON_FULL, GPU_RECON_8};
    for (int k = 0; k < 3; k++) ssc_operator(d, cpu, &u, recons[k], NULL);
    struct field other; /* the links the device refresh replaces */
    geometry_field_alloc(&other, d, &glob, 3, 64);
    field_set_random(&other, 13);
    for (int k = 0; k < 3; k++) ssc_operator(d, cpu, &u, recons[k], &other);
    field_free(&other);
    ssc_solves(d, cpu, &u);
    staggered_free(cpu);
    field_free(&u);
    if (d && d->size % 2 == 0) { /* Lt = 3R: 3 timeslices a rank, refused (last:
                                   * geometry_for keeps one domain, this one now) */
        int L3[4] = {L[0], L[1], L[2], 3 * d->size};
        struct lattice g3;
        if (lattice_init(&g3, L3, &lwhy) != 0) lat_die(1, name, "%s", lwhy);
        const struct geometry *d3 = geometry_for(&g3);
        struct field u3;
        geometry_field_alloc(&u3, d3, &g3, 3, 64);
        field_set_random(&u3, 12);
        struct staggered_op *c3 = staggered_create(&u3, 1.0, why, sizeof why);
        struct staggered_gpu *g3p = c3 ? staggered_gpu_create(c3, &u3, 0, why, sizeof why) : NULL;
        CHECK(c3 && !g3p && strstr(why, "even number of timeslices"), "3 timeslices a rank: %s",
              g3p ? "accepted" : why);
        if (comm_is_root()) printf("R=%d 3 timeslices a rank: refused (%s)\n", comm_size(), why);
        staggered_gpu_free(g3p);
        staggered_free(c3);
        field_free(&u3);
    }
    if (ssc_out && fclose(ssc_out) != 0) lat_die(1, name, "writing %s failed", argv[2]);
    comm_barrier();
    if (!comm_is_root()) return unit_fail ? 1 : 0;
    char line[96];
    snprintf(line, sizeof line, "%s R=%d", name, comm_size());
    return unit_done(line);
}

#endif
