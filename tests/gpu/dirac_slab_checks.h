/* dirac_slab_checks.h -- the checks of the GPU Wilson-clover operator and
 * its solves on t-slabs of an MPI run (dirac/gpu.h on a slab,
 * solvers/blas_gpu.h's per-timeslice reductions), written once for the
 * real GPUs (tests/gpu/test_gpu_dirac_mpi.c, C, run by tests/run-gpu under
 * mpirun -np 1 and 2) and the host emulation
 * (scripts/dirac-slab-emulation.cpp, C++ with the kernels run thread by
 * thread, mpirun -np 1, 2, 4): header only, the common subset of C and C++.
 * The includer defines first
 *   struct solver_blas *dsc_blas_open(const struct solver_reduce_layout *l)
 *   void dsc_blas_close(struct solver_blas *b)
 * (the GPU vector kernels with that reduction layout).  Uses unit.h's CHECK.
 *
 *   dsc_main(argc, argv, name, default_lattice)
 *       usage: NAME [LxxLyxLzxLt [OUT]]: on the global lattice (Haar-random
 *       SU(3) links, field_set_random: the same links for any R; kappa
 *       0.124, c_sw 1.769, phases -1 in t and e^{0.7 i} in y) every rank
 *       builds the CPU operator on its slab and the GPU one from it, and
 *       asserts (each a global number, the same verdict on every rank):
 *         Mhat and Mhat^dag (links in 18, 12, 8 reals; double, single, half
 *         vectors) against the CPU's dirac_eo_apply(_dag) in double on the
 *         same stored input, |diff| / |ref| below dirac-emulation's bounds
 *         (double 18/12: 1e-13; 8: 1e-12; single 1e-6; half 2e-4) times
 *         `loose` (1 in the emulation; 10 on a GPU: fused multiply-adds);
 *         CGNE and BiCGstab to 1e-10 with the GPU operator and vector
 *         kernels (double; CGNE with single and half sloppy, BiCGstab
 *         with half sloppy too -- the half sweeps read 16-bit links and
 *         clover):
 *         converged, the true residual |b - Mhat x| / |b| with the CPU
 *         operator <= 2e-10;
 *         the even-odd system's ends (dirac_gpu_eo_prepare, _reconstruct,
 *         _residual_norm2; links in 18 reals, c_sw 1.769 and 0) against dirac_eo_prepare,
 *         dirac_eo_reconstruct and dirac_apply's |b - M x|^2, |b|^2:
 *         the same bits (the emulation; 1e-14 x loose on a GPU), the
 *         norms to 1e-13 x loose (dsc_eo_ends).
 *       dsc_quick set: links in 12 reals only, CGNE double and half sloppy
 *       only.  Rank 0 writes every result gathered (slab order = global order) and
 *       the solves' iteration counts to OUT: the files of every R must be
 *       the same bytes (the caller compares them).  Prints one line per
 *       case and "NAME R=N: P passed, F failed" (rank 0); returns the exit
 *       status (1 if any failed). */
#ifndef LAT_TEST_DIRAC_SLAB_CHECKS_H
#define LAT_TEST_DIRAC_SLAB_CHECKS_H

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
#include "dirac/dirac.h"
#include "solvers/solvers.h"
#include "slab_start.h"
#ifdef __cplusplus
}
#endif
#include "math/rng.h" /* C and C++ (Random123) */
#include "dirac/gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "unit.h"

static FILE *dsc_out; /* rank 0, or NULL: no file */
static double dsc_loose = 1;
static int dsc_quick; /* 1: links in 12 reals only, the double and half-sloppy CGNE only */

/* the ranks' owned parts, rank after rank (slab order = global order),
 * appended to the output on rank 0 */
static void dsc_record(const struct geometry *d, const void *own, size_t owned_bytes)
{
    if (!comm_is_root()) {
        comm_send(own, owned_bytes, 0, 71);
        return;
    }
    const int R = d ? d->size : 1;
    char *whole = (char *)lat_malloc(owned_bytes * (size_t)R);
    memcpy(whole, own, owned_bytes);
    for (int r = 1; r < R; r++) comm_recv(whole + (size_t)r * owned_bytes, owned_bytes, r, 71);
    if (dsc_out && fwrite(whole, 1, owned_bytes * (size_t)R, dsc_out) != owned_bytes * (size_t)R)
        lat_die(1, "dirac slab checks", "writing the results failed");
    free(whole);
}

/* |a - b| / |b| over all ranks */
static double dsc_rel(const double *a, const double *b, size_t n)
{
    double s[2] = {0, 0};
    for (size_t k = 0; k < n; k++) {
        s[0] += (a[k] - b[k]) * (a[k] - b[k]);
        s[1] += b[k] * b[k];
    }
    comm_sum(s, 2);
    return sqrt(s[0] / s[1]);
}

/* the 24 normals of global half site g: the same input on any R */
static void dsc_site_normals(uint64_t seed, uint64_t g, double *v)
{
    struct lat_rng r;
    rng_init(&r, seed, 1, g, 0, RNG_TEST);
    for (int k = 0; k < 24; k++) v[k] = rng_normal(&r);
}

/* a random owned half field: the global half index of owned site 0 is t0 V3/2 */
static double *dsc_random_half(const struct dirac_op *cpu, uint64_t seed)
{
    const size_t n = dirac_half_reals(cpu), ns = n / 24;
    int t0;
    const int lt = dirac_owned_timeslices(cpu, &t0);
    const uint64_t first = (uint64_t)t0 * (uint64_t)(ns / (size_t)lt);
    double *v = (double *)lat_malloc(n * sizeof *v);
    for (size_t s = 0; s < ns; s++) dsc_site_normals(seed, first + s, v + 24 * s);
    return v;
}

static const char *dsc_recon(int r) { return r == GPU_RECON_FULL ? "18" : r == GPU_RECON_12 ? "12" : "8"; }

static void dsc_mhat(const struct geometry *d, struct dirac_op *cpu, const struct field *u, int recon)
{
    char why[256];
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, recon, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create on the slab: %s", why);
    if (!g) return;
    const size_t n = dirac_half_reals(cpu);
    CHECK((size_t)dirac_gpu_nsites(g) * 24 == n, "slab vector of %lld sites, the CPU's has %zu reals",
          (long long)dirac_gpu_nsites(g), n);
    double *psi = dsc_random_half(cpu, 5), *in = (double *)lat_malloc(n * sizeof(double)),
           *out = (double *)lat_malloc(n * sizeof(double)), *ref = (double *)lat_malloc(n * sizeof(double));
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    for (int k = 0; k < 3; k++) {
        const enum solver_prec p = precs[k];
        const double bound =
            dsc_loose * (p == SOLVER_DOUBLE ? (recon == GPU_RECON_8 ? 1e-12 : 1e-13) : p == SOLVER_SINGLE ? 1e-6 : 2e-4);
        struct solver_vec *vin = dirac_gpu_vec_new(g, p), *vout = dirac_gpu_vec_new(g, p);
        dirac_gpu_vec_upload(vin, psi);
        dirac_gpu_vec_download(in, vin);
        double err[2];
        for (int dag = 0; dag < 2; dag++) {
            dirac_gpu_eo_apply(g, dag, vout, vin);
            dirac_gpu_vec_download(out, vout);
            if (dag) dirac_eo_apply_dag(cpu, ref, in);
            else dirac_eo_apply(cpu, ref, in);
            err[dag] = dsc_rel(out, ref, n);
            CHECK(err[dag] < bound, "recon %s %s: Mhat%s differs from the CPU's by %.3g (bound %g)", dsc_recon(recon),
                  solver_prec_name(p), dag ? "^dag" : "", err[dag], bound);
            dsc_record(d, out, n * sizeof(double));
        }
        if (comm_is_root())
            printf("R=%d recon %-2s %-6s: Mhat %.2e Mhat^dag %.2e vs the CPU (bound %g)\n", comm_size(), dsc_recon(recon),
                   solver_prec_name(p), err[0], err[1], bound);
        dirac_gpu_vec_free(vin);
        dirac_gpu_vec_free(vout);
    }
    free(psi);
    free(in);
    free(out);
    free(ref);
    dirac_gpu_free(g);
}

static void dsc_solves(const struct geometry *d, struct dirac_op *cpu, const struct field *u)
{
    char why[256];
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, GPU_RECON_12, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create on the slab: %s", why);
    if (!g) return;
    const size_t n = dirac_half_reals(cpu);
    double *b = dsc_random_half(cpu, 9), *x = (double *)lat_malloc(n * sizeof(double)),
           *r = (double *)lat_malloc(n * sizeof(double));
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 1, &lay);
    struct solver_blas *blas = dsc_blas_open(&lay);
    CHECK(blas != NULL, "no GPU vector kernels");
    struct solver_op A;
    dirac_gpu_solver_op(&A, g);
    struct solver_vec *vb = dirac_gpu_vec_new(g, SOLVER_DOUBLE), *vx = dirac_gpu_vec_new(g, SOLVER_DOUBLE);
    dirac_gpu_vec_upload(vb, b);
    const int bicg[5] = {0, 1, 0, 0, 1};
    const enum solver_prec sloppy[5] = {SOLVER_DOUBLE, SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF, SOLVER_HALF};
    for (int c = 0; blas && c < 5; c++) {
        if (dsc_quick && (bicg[c] || sloppy[c] == SOLVER_SINGLE)) continue;
        struct solver_params sp;
        memset(&sp, 0, sizeof sp);
        sp.tol = 1e-10;
        sp.max_iter = 1000;
        sp.sloppy = sloppy[c];
        struct solver_result res;
        gpu_memset(vx->data, 0, gpu_spinor_storage(dirac_gpu_nsites(g), 24) * sizeof(double));
        enum solver_status st = bicg[c] ? solver_bicgstab(&A, blas, (const double *)vb->data, (double *)vx->data, &sp, &res)
                                        : solver_cgne(&A, blas, (const double *)vb->data, (double *)vx->data, &sp, &res);
        dirac_gpu_vec_download(x, vx);
        dirac_eo_apply(cpu, r, x);
        const double tr = dsc_rel(r, b, n); /* |Mhat x - b| / |b| */
        CHECK(st == SOLVER_CONVERGED && tr <= 2e-10, "%s sloppy %s: status %d, true residual %.3g",
              bicg[c] ? "bicgstab" : "cgne", solver_prec_name(sloppy[c]), (int)st, tr);
        dsc_record(d, x, n * sizeof(double));
        if (comm_is_root()) {
            printf("R=%d solve %-8s sloppy %-6s: %s, %d iterations, %d reliable updates, true residual %.2e (CPU operator)\n",
                   comm_size(), bicg[c] ? "bicgstab" : "cgne", solver_prec_name(sloppy[c]), solver_status_name(st),
                   res.iterations, res.reliable_updates, tr);
            if (dsc_out)
                fprintf(dsc_out, "%s %s %d %d\n", bicg[c] ? "bicgstab" : "cgne", solver_prec_name(sloppy[c]), res.iterations,
                        res.reliable_updates);
        }
    }
    dirac_gpu_vec_free(vb);
    dirac_gpu_vec_free(vx);
    if (blas) dsc_blas_close(blas);
    free(b);
    free(x);
    free(r);
    dirac_gpu_free(g);
}

/* the reals of a and b (n each, over all ranks) whose bits differ */
static double dsc_bits_differ(const double *a, const double *b, size_t n)
{
    double c = 0;
    for (size_t k = 0; k < n; k++) c += memcmp(a + k, b + k, sizeof(double)) != 0;
    comm_sum(&c, 1);
    return c;
}

/* |b - M x|^2 and |b|^2 the CPU's way (tools/shared/prop_solve.c's true
 * residual): dirac_apply on the full fields, the norms by the CPU vector
 * kernels with one slot per global timeslice */
static void dsc_cpu_residual(struct dirac_op *cpu, const double *b, const double *x, double *r2, double *b2)
{
    const size_t n = dirac_full_reals(cpu);
    double *r = (double *)lat_malloc(n * sizeof(double));
    dirac_apply(cpu, r, x);
    for (size_t k = 0; k < n; k++) r[k] = b[k] - r[k];
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 0, &lay);
    struct solver_blas *bl = solver_blas_cpu_open(&lay);
    const struct solver_vec vr = {SOLVER_DOUBLE, n, 24, r, NULL}, vb = {SOLVER_DOUBLE, n, 24, (void *)b, NULL};
    *r2 = bl->norm2(bl->ctx, &vr);
    *b2 = bl->norm2(bl->ctx, &vb);
    solver_blas_cpu_close(bl);
    free(r);
}

/* one half field of the device against the CPU's: bit for bit in the
 * emulation (dsc_loose 1), to 1e-14 x loose on a GPU; then recorded.
 * Returns the reals that differ, *rel the relative difference. */
static double dsc_eo_end_check(const struct geometry *d, const char *label, const char *what, const double *out,
                               const double *ref, size_t nh, double *rel)
{
    const double differ = dsc_bits_differ(out, ref, nh);
    *rel = dsc_rel(out, ref, nh);
    CHECK(dsc_loose == 1 ? differ == 0 : *rel < 1e-14 * dsc_loose, "%s: the device's %s: %.0f of %zu reals differ, by %.3g",
          label, what, differ, nh * (size_t)comm_size(), *rel);
    dsc_record(d, out, nh * sizeof(double));
    return differ;
}

/* the even-odd system's ends on the device (dirac_gpu_eo_prepare,
 * _reconstruct, _residual_norm2) against dirac_eo_prepare,
 * dirac_eo_reconstruct and the CPU's true residual on random full fields:
 * prepare and reconstruct bit for bit in the emulation (dsc_loose 1), to
 * 1e-14 x loose on a GPU; |b - M x|^2 and |b|^2 to 1e-13 x loose.  The
 * device's results go to OUT (R-independent bits). */
static void dsc_eo_ends(const struct geometry *d, struct dirac_op *cpu, const struct field *u, const char *label)
{
    char why[256];
    /* links in 18 reals: the CPU's link bits (12 and 8 rebuild them to rounding) */
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, GPU_RECON_FULL, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create on the slab: %s", why);
    if (!g) return;
    const size_t nh = dirac_half_reals(cpu), nf = dirac_full_reals(cpu);
    double *be = dsc_random_half(cpu, 21), *bo = dsc_random_half(cpu, 22), *xo = dsc_random_half(cpu, 23);
    double *b = (double *)lat_malloc(nf * sizeof(double)), *x = (double *)lat_malloc(nf * sizeof(double));
    double *ref = (double *)lat_malloc(nh * sizeof(double)), *out = (double *)lat_malloc(nh * sizeof(double));
    dirac_half_to_full(cpu, 0, b, be);
    dirac_half_to_full(cpu, 1, b, bo);
    struct solver_vec *v[5];
    for (int k = 0; k < 5; k++) v[k] = dirac_gpu_vec_new(g, SOLVER_DOUBLE);
    struct solver_vec *vbe = v[0], *vbo = v[1], *vbh = v[2], *vxo = v[3], *vxe = v[4];
    dirac_gpu_vec_upload(vbe, be);
    dirac_gpu_vec_upload(vbo, bo);
    dirac_gpu_vec_upload(vxo, xo);
    /* bhat_o = b_o + kappa D_oe A_ee^-1 b_e */
    dirac_eo_prepare(cpu, ref, b);
    dirac_gpu_eo_prepare(g, vbh, vbe, vbo);
    dirac_gpu_vec_download(out, vbh);
    double ep, er;
    const double dp = dsc_eo_end_check(d, label, "prepared source", out, ref, nh, &ep);
    /* x_e = A_ee^-1 (b_e + kappa D_eo x_o); the CPU's even half of x */
    dirac_eo_reconstruct(cpu, x, xo, b);
    dirac_full_to_half(cpu, 0, ref, x);
    dirac_gpu_eo_reconstruct(g, vxe, vxo, vbe);
    dirac_gpu_vec_download(out, vxe);
    const double dr = dsc_eo_end_check(d, label, "reconstruction", out, ref, nh, &er);
    /* the full residual of x (the CPU's x: the device's x_e is its bits or within rounding) */
    double r2, b2, cr2, cb2;
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 1, &lay);
    struct solver_blas *blas = dsc_blas_open(&lay);
    CHECK(blas != NULL, "no GPU vector kernels");
    if (blas) {
        dirac_gpu_vec_upload(vxe, ref);
        dirac_gpu_residual_norm2(g, blas, vxe, vxo, vbe, vbo, &r2, &b2);
        dsc_blas_close(blas);
        dsc_cpu_residual(cpu, b, x, &cr2, &cb2);
        const double er2 = fabs(r2 - cr2) / cr2, eb2 = fabs(b2 - cb2) / cb2;
        CHECK(er2 < 1e-13 * dsc_loose && eb2 < 1e-13 * dsc_loose,
              "%s: |b - M x|^2 %.17g |b|^2 %.17g on the device, %.17g %.17g on the CPU", label, r2, b2, cr2, cb2);
        if (comm_is_root()) {
            printf("R=%d eo ends %s: prepare %.0f, reconstruct %.0f reals differ from the CPU's (%.2e, %.2e); "
                   "|b - M x|^2 %.2e, |b|^2 %.2e vs the CPU\n",
                   comm_size(), label, dp, dr, ep, er, er2, eb2);
            if (dsc_out) fprintf(dsc_out, "eo ends %s %a %a\n", label, r2, b2);
        }
    }
    for (int k = 0; k < 5; k++) dirac_gpu_vec_free(v[k]);
    free(be);
    free(bo);
    free(xo);
    free(b);
    free(x);
    free(ref);
    free(out);
    dirac_gpu_free(g);
}

static int dsc_main(int argc, char **argv, const char *name, const char *lattice)
{
    int L[4];
    struct lattice glob;
    struct field u;
    const struct geometry *d = slab_checks_start(&argc, &argv, name, lattice, L, &glob, &u, &dsc_out);
    struct dirac_params p;
    dirac_params_default(&p, 0.124, 1.769);
    p.phase[1][0] = cos(0.7);
    p.phase[1][1] = sin(0.7);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die_all(1, name, "dirac_create: %s", why);
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    for (int k = 0; k < 3; k++)
        if (!dsc_quick || recons[k] == GPU_RECON_12) dsc_mhat(d, cpu, &u, recons[k]);
    dsc_solves(d, cpu, &u);
    dsc_eo_ends(d, cpu, &u, "clover");
    dirac_free(cpu);
    p.csw = 0; /* without the clover term: the copies in place of A_ee^-1 */
    if (!(cpu = dirac_create(&u, &p, why, sizeof why))) lat_die_all(1, name, "dirac_create: %s", why);
    dsc_eo_ends(d, cpu, &u, "Wilson");
    dirac_free(cpu);
    field_free(&u);
    if (dsc_out && fclose(dsc_out) != 0) lat_die(1, name, "writing %s failed", argv[2]);
    /* every rank checked the same global numbers: rank 0 speaks */
    comm_barrier();
    if (!comm_is_root()) return unit_fail ? 1 : 0;
    char line[96];
    snprintf(line, sizeof line, "%s R=%d", name, comm_size());
    return unit_done(line);
}

#endif
