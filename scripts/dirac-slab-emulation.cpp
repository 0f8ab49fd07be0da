/* dirac-slab-emulation.cpp -- the GPU Wilson-clover operator and its solves
 * on t-slabs of an MPI run (kernels/dirac/gpu.h on a slab: spin-projected
 * faces; kernels/solvers/blas_gpu.cuh with a per-timeslice reduction
 * layout) with the kernels run thread by thread on the host, under mpirun
 * -np R (scripts/dirac-slab-emulation builds it, runs R = 1, 2, 4 and
 * compares the results bit for bit across R; tests/emulation.bats).
 *
 * One source, three objects:
 *   -DSLAB_SWEEP=dirac_gpu_sweep_d -DLAT_REAL=double   the double kernels
 *   -DSLAB_SWEEP=dirac_gpu_sweep_s -DLAT_REAL=float    the single and half ones
 *   (neither)    the program: the solvers' emulated vector kernels
 *                (blas_gpu.cuh, as scripts/blas-emulation.cpp runs them),
 *                the device copies as memcpy (gpu-util-on-host.h), the host
 *                sides as the CUDA build compiles them (dirac/gpu.c with
 *                its face exchange through base/comm.c, gpu/field.c,
 *                gpu/spinor.c) and the checks.
 *
 * Usage: dirac-slab-emulation LxxLyxLzxLt OUT.  On the global lattice
 * (Haar-random SU(3) links, field_set_random: the same links for any R;
 * kappa 0.124, c_sw 1.769, phases -1 in t and e^{0.7 i} in y) every rank
 * builds the CPU operator on its slab and the GPU one from it, and asserts
 * (each a global number, the same verdict on every rank):
 *   Mhat and Mhat^dag (links in 18, 12, 8 reals; double, single, half
 *   vectors) against the CPU's dirac_eo_apply(_dag) in double on the same
 *   stored input, |diff| / |ref| below dirac-emulation's bounds (double
 *   18/12: 1e-13; 8: 1e-12; single 1e-6; half 2e-4);
 *   CGNE and BiCGstab to 1e-10 with the GPU operator and the emulated GPU
 *   vector kernels (double; CGNE with single and half sloppy too):
 *   converged, the true residual |b - Mhat x| / |b| with the CPU operator
 *   <= 2e-10.
 * Rank 0 writes every result gathered (slab order = global order) to OUT
 * with the solves' iteration counts: the files of R = 1, 2, 4 must be the
 * same bytes.  Prints one line per case and "dirac-slab-emulation R=N: P
 * passed, F failed" (rank 0); exit 1 if any failed. */
#ifdef SLAB_SWEEP
/* ---- the kernels of one compute precision ------------------------------ */
#include "cuda-on-host.h"
#define DIRAC_NC_MAX 3
#include "math/spinor.h"
#include "dirac/site.h"
extern "C" {
#include "base/log.h"
}
#include "solvers/solvers.h"
#include "solvers/half.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "dirac/gpu_sweep.h"
#include <cmath>

namespace slab_kernels {
#include "gpu/accessor.cuh"
#include "dirac/gpu_kernel.cuh"
}

extern "C" void SLAB_SWEEP(const struct dirac_gpu_sweep *w)
{
    slab_kernels::dslash_dispatch(w, [](void (*kernel)(slab_kernels::dslash_args), const slab_kernels::dslash_args &a, int n) {
        cuda_on_host_grid((unsigned)(n + 127) / 128, 128, [&] { kernel(a); });
    });
}

#else
/* ---- the program ---------------------------------------------------------- */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include "cuda-on-host.h"

static void *blas_dev_alloc(size_t bytes) { return calloc(bytes ? bytes : 1, 1); }
static void blas_dev_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args);

#include "solvers/blas_gpu.cuh"

template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args)
{
    if (!barriers) {
        cuda_on_host_grid(nb, GPU_RED_BS, [&] { kernel(args...); });
        return;
    }
    blockDim.x = GPU_RED_BS;
    for (unsigned b = 0; b < nb; b++) {
        blockIdx.x = b;
        cuda_on_host_block(GPU_RED_BS, [&] { kernel(args...); });
    }
}

#define GPU_ON_HOST_REFUSE "dirac-slab-emulation"
#include "gpu-util-on-host.h"

extern "C" {
#include "base/comm.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "dirac/dirac.h"
}
#include "dirac/gpu.h"
#include "gpu/field.h"
#include "math/rng.h"
#include "unit.h"

/* the ranks' owned parts, rank after rank (slab order = global order), on
 * rank 0 */
static void gather(const struct geometry *d, const void *own, void *whole, size_t owned_bytes)
{
    if (comm_is_root()) {
        memcpy(whole, own, owned_bytes);
        for (int r = 1; r < (d ? d->size : 1); r++) comm_recv((char *)whole + (size_t)r * owned_bytes, owned_bytes, r, 71);
    } else {
        comm_send(own, owned_bytes, 0, 71);
    }
}

/* the 24 normals of global half site g: the same input on any R */
static void site_normals(uint64_t seed, uint64_t g, double *v)
{
    struct lat_rng r;
    rng_init(&r, seed, 1, g, 0, RNG_TEST);
    for (int k = 0; k < 24; k++) v[k] = rng_normal(&r);
}

static FILE *out_file; /* rank 0 */

/* the ranks' owned parts in global order, appended to OUT on rank 0 */
static void record(const struct geometry *d, const void *own, size_t owned_bytes)
{
    std::vector<char> whole(comm_is_root() ? owned_bytes * (size_t)comm_size() : 1);
    gather(d, own, whole.data(), owned_bytes);
    if (comm_is_root() && fwrite(whole.data(), 1, whole.size(), out_file) != whole.size())
        lat_die(1, "dirac-slab-emulation", "writing the results failed");
}

/* |a - b| / |b| over all ranks */
static double rel(const std::vector<double> &a, const std::vector<double> &b)
{
    double s[2] = {0, 0};
    for (size_t k = 0; k < a.size(); k++) {
        s[0] += (a[k] - b[k]) * (a[k] - b[k]);
        s[1] += b[k] * b[k];
    }
    comm_sum(s, 2);
    return std::sqrt(s[0] / s[1]);
}

static const char *recon_name(int r) { return r == GPU_RECON_FULL ? "18" : r == GPU_RECON_12 ? "12" : "8"; }

static void mhat_cases(const struct geometry *d, struct dirac_op *cpu, const struct field *u, int recon)
{
    char why[256];
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, recon, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create on the slab: %s", why);
    if (!g) return;
    const size_t n = dirac_half_reals(cpu);
    CHECK((size_t)dirac_gpu_nsites(g) * 24 == n, "slab vector of %lld sites, the CPU's has %zu reals",
          (long long)dirac_gpu_nsites(g), n);
    int t0;
    dirac_owned_timeslices(cpu, &t0);
    const int64_t first = (int64_t)t0 * (int64_t)(n / 24) / (d ? d->lt : 1); /* global half index of owned 0 */
    std::vector<double> psi(n), in(n), out(n), ref(n);
    for (size_t s = 0; s < n / 24; s++) site_normals(5, (uint64_t)(first + (int64_t)s), &psi[24 * s]);
    const enum solver_prec precs[3] = {SOLVER_DOUBLE, SOLVER_SINGLE, SOLVER_HALF};
    for (int k = 0; k < 3; k++) {
        const enum solver_prec p = precs[k];
        const double bound = p == SOLVER_DOUBLE ? (recon == GPU_RECON_8 ? 1e-12 : 1e-13) : p == SOLVER_SINGLE ? 1e-6 : 2e-4;
        struct solver_vec *vin = dirac_gpu_vec_new(g, p), *vout = dirac_gpu_vec_new(g, p);
        dirac_gpu_vec_upload(vin, psi.data());
        dirac_gpu_vec_download(in.data(), vin);
        double err[2];
        for (int dag = 0; dag < 2; dag++) {
            dirac_gpu_eo_apply(g, dag, vout, vin);
            dirac_gpu_vec_download(out.data(), vout);
            if (dag) dirac_eo_apply_dag(cpu, ref.data(), in.data());
            else dirac_eo_apply(cpu, ref.data(), in.data());
            err[dag] = rel(out, ref);
            CHECK(err[dag] < bound, "recon %s %s: Mhat%s differs from the CPU's by %.3g (bound %g)", recon_name(recon),
                  solver_prec_name(p), dag ? "^dag" : "", err[dag], bound);
            record(d, out.data(), n * sizeof(double));
        }
        if (comm_is_root())
            printf("R=%d recon %-2s %-6s: Mhat %.2e Mhat^dag %.2e vs the CPU (bound %g)\n", comm_size(), recon_name(recon),
                   solver_prec_name(p), err[0], err[1], bound);
        dirac_gpu_vec_free(vin);
        dirac_gpu_vec_free(vout);
    }
    dirac_gpu_free(g);
}

static void solve_cases(const struct geometry *d, struct dirac_op *cpu, const struct field *u)
{
    char why[256];
    struct dirac_gpu *g = dirac_gpu_create(cpu, u, GPU_RECON_12, why, sizeof why);
    CHECK(g != NULL, "dirac_gpu_create on the slab: %s", why);
    if (!g) return;
    const size_t n = dirac_half_reals(cpu);
    int t0;
    dirac_owned_timeslices(cpu, &t0);
    const int64_t first = (int64_t)t0 * (int64_t)(n / 24) / (d ? d->lt : 1);
    std::vector<double> b(n), x(n), r(n);
    for (size_t s = 0; s < n / 24; s++) site_normals(9, (uint64_t)(first + (int64_t)s), &b[24 * s]);
    struct solver_reduce_layout lay;
    dirac_reduce_layout(cpu, 1, &lay);
    struct solver_blas *blas = blas_gpu_make(&lay);
    struct solver_op A;
    dirac_gpu_solver_op(&A, g);
    struct solver_vec *vb = dirac_gpu_vec_new(g, SOLVER_DOUBLE), *vx = dirac_gpu_vec_new(g, SOLVER_DOUBLE);
    dirac_gpu_vec_upload(vb, b.data());
    struct {
        int bicg;
        enum solver_prec sloppy;
    } cases[4] = {{0, SOLVER_DOUBLE}, {1, SOLVER_DOUBLE}, {0, SOLVER_SINGLE}, {0, SOLVER_HALF}};
    for (auto &c : cases) {
        struct solver_params sp = {};
        sp.tol = 1e-10;
        sp.max_iter = 1000;
        sp.sloppy = c.sloppy;
        struct solver_result res;
        gpu_memset(vx->data, 0, gpu_spinor_storage(dirac_gpu_nsites(g), 24) * sizeof(double));
        enum solver_status st = c.bicg ? solver_bicgstab(&A, blas, (const double *)vb->data, (double *)vx->data, &sp, &res)
                                       : solver_cgne(&A, blas, (const double *)vb->data, (double *)vx->data, &sp, &res);
        dirac_gpu_vec_download(x.data(), vx);
        dirac_eo_apply(cpu, r.data(), x.data());
        const double tr = rel(r, b); /* |Mhat x - b| / |b| */
        CHECK(st == SOLVER_CONVERGED && tr <= 2e-10, "%s sloppy %s: status %d, true residual %.3g",
              c.bicg ? "bicgstab" : "cgne", solver_prec_name(c.sloppy), (int)st, tr);
        record(d, x.data(), n * sizeof(double));
        if (comm_is_root()) {
            printf("R=%d solve %-8s sloppy %-6s: %s, %d iterations, %d reliable updates, true residual %.2e (CPU operator)\n",
                   comm_size(), c.bicg ? "bicgstab" : "cgne", solver_prec_name(c.sloppy), solver_status_name(st),
                   res.iterations, res.reliable_updates, tr);
            fprintf(out_file, "%s %s %d %d\n", c.bicg ? "bicgstab" : "cgne", solver_prec_name(c.sloppy), res.iterations,
                    res.reliable_updates);
        }
    }
    dirac_gpu_vec_free(vb);
    dirac_gpu_vec_free(vx);
    blas_gpu_destroy(blas);
    dirac_gpu_free(g);
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    int L[4];
    if (argc != 3 || sscanf(argv[1], "%dx%dx%dx%d", &L[0], &L[1], &L[2], &L[3]) != 4)
        lat_die(2, "dirac-slab-emulation", "usage: dirac-slab-emulation LxxLyxLzxLt OUT");
    struct lattice glob;
    const char *lwhy;
    if (lattice_init(&glob, L, &lwhy) != 0) lat_die(2, "dirac-slab-emulation", "%s", lwhy);
    if (comm_is_root() && !(out_file = fopen(argv[2], "wb")))
        lat_die(1, "dirac-slab-emulation", "cannot write %s", argv[2]);
    const struct geometry *d = geometry_for(&glob);
    struct field u;
    geometry_field_alloc(&u, d, &glob, 3, 64);
    field_set_random(&u, 11);
    struct dirac_params p;
    dirac_params_default(&p, 0.124, 1.769);
    p.phase[1][0] = std::cos(0.7);
    p.phase[1][1] = std::sin(0.7);
    char why[256];
    struct dirac_op *cpu = dirac_create(&u, &p, why, sizeof why);
    if (!cpu) lat_die(1, "dirac-slab-emulation", "dirac_create: %s", why);
    const int recons[3] = {GPU_RECON_FULL, GPU_RECON_12, GPU_RECON_8};
    for (int recon : recons) mhat_cases(d, cpu, &u, recon);
    solve_cases(d, cpu, &u);
    dirac_free(cpu);
    field_free(&u);
    if (comm_is_root() && fclose(out_file) != 0) lat_die(1, "dirac-slab-emulation", "writing %s failed", argv[2]);
    /* every rank checked the same global numbers: rank 0 speaks */
    char name[64];
    snprintf(name, sizeof name, "dirac-slab-emulation R=%d", comm_size());
    if (!comm_is_root()) {
        const int f = unit_fail;
        comm_barrier();
        return f ? 1 : 0;
    }
    comm_barrier();
    return unit_done(name);
}
#endif
