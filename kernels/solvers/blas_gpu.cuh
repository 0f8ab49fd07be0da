/* solvers/blas_gpu.cuh -- the GPU vector kernels of the solvers (struct
 * solver_blas on vectors in the device layout of gpu/spinor.h) and the host
 * code that launches them, included whole by blas_gpu.cu (nvcc) and by the
 * host emulation (scripts/blas-emulation.cpp, g++ with
 * scripts/cuda-on-host.h), so the emulation runs this very text.
 *
 * The includer defines first (blas_gpu.cu: CUDA; the emulation: host memory
 * and threads run one by one):
 *   void *blas_dev_alloc(size_t bytes)       device memory, NULL when out of it
 *   void blas_dev_copy(void *d, const void *s, size_t bytes)  device to device
 *   blas_launch(kernel, nb, barriers, args...)  kernel<<<nb, GPU_RED_BS>>>(args);
 *       barriers: the kernel has __syncthreads (the reductions)
 *   blas_launch_chained(kernel, nb, barriers, args...)  the same for a
 *       kernel that opens with gpu_chained_begin() (gpu/chain.cuh): the
 *       device loops' (blas_gpu.cu: gpu_launch_chained)
 * and the GPU layer's gpu_free, gpu_memset, gpu_download (gpu/field.h).
 * Exported (host): blas_gpu_make(layout) the table (NULL: out of host
 * memory; layout NULL: one process, the fixed grid below),
 * blas_gpu_device_loop(table, d) (blas_gpu.h's _device_loop),
 * blas_gpu_destroy(table); the table's multishift_loop and bicgstab_loop
 * are blas_gpu_multishift.cuh's and blas_gpu_bicg_loop.cuh's; its fused kernels are
 * blas_gpu_fused.cuh's and blas_gpu_bicg.cuh's (both included here, before the table),
 * all eight with or without a layout (with one, axpy_norm2 / axpy_cdot run on the layout's
 * chunk grid: the bits of axpy followed by the chunked reduction).
 *
 * Kernels.  A vector of n logical reals in site blocks of site_reals is
 * nsites = n / site_reals sites in gpu_spinor_storage(nsites, site_reals)
 * stored reals (double, float or int16 + one float norm per site: half).
 * Padding (reals site_reals..ncomp-1 of a site, sites past nsites) is zero
 * and stays zero (+-0: a * 0 + b * 0): every kernel computes it too.
 *   - neither operand half: FLAT kernels, one thread per group of 4 stored
 *     reals (the same index in every storage), no site known;
 *   - an operand half: PER-SITE kernels, one thread per (padded) site over
 *     its groups; a half y is computed twice, once for its block norm (max
 *     |y| of the site, half.h) and once to quantise -- no per-site array.
 * The arithmetic is the CPU's (blas_cpu.c) operation for operation in
 * double, with no fused multiply-add (bl_mul, bl_add: __dmul_rn, __dadd_rn
 * on the device): the elementwise kernels (copy, scale, axpy, xpay, caxpby)
 * give the CPU kernels' bits in every storage, half included (its steps
 * are half.h's).
 * Reductions (cdot, norm2): in double; a fixed grid of min(ceil(work /
 * GPU_RED_BS), BL_RED_NB) blocks (work: groups or padded sites; never the
 * device's size), each thread adds its groups/sites in a fixed stride
 * order, each block adds its threads in reduce.cuh's fixed tree, and the
 * host adds the block partials in block order: the same bits run after run
 * (not the CPU's bits: its blocks and tree differ).  With a reduction
 * layout (solvers.h's struct solver_reduce_layout: one chunk per global
 * timeslice of a t-slab) instead: k_bl_red_chunk, a fixed number of blocks
 * per chunk set by the chunk's size, each chunk's block partials added on
 * the host in order, the chunk sums in their global slots summed over
 * ranks and added in global order -- R ranks give one process's bits.  A
 * table is used by one solve at a time (one partials buffer). */
#ifndef LAT_SOLVERS_BLAS_GPU_CUH
#define LAT_SOLVERS_BLAS_GPU_CUH

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <type_traits>
extern "C" {
#include "solvers/solvers.h"
#include "base/comm.h"
#include "base/log.h"
}
#include <string.h>
#include "solvers/half.h"
#include "solvers/scalar_rn.h"
#include "gpu/spinor.h"
#include "gpu/field.h"
extern "C" {
#include "lattice/geometry.h" /* the ranks of the device loop's peers */
}
#include "lattice/observables_site.h" /* obs_max_nan, which reduce.cuh's red_max uses */
#include "gpu/reduce.cuh"

/* the includer may define (defaults: plain host memory, gpu_download):
 *   BL_HOST_ALLOC(bytes), BL_HOST_FREE(p)  the host buffer of the partials
 *       (blas_gpu.cu: page-locked, so the copy below is one DMA)
 *   BL_FETCH_PARTIALS(host, dev, bytes)  device to host, returning when the
 *       bytes are there (blas_gpu.cu: one cudaMemcpyAsync, one stream sync) */
#ifndef BL_HOST_ALLOC
#define BL_HOST_ALLOC(bytes) malloc(bytes)
#define BL_HOST_FREE(p) free(p)
#endif
#ifndef BL_FETCH_PARTIALS
#define BL_FETCH_PARTIALS(host, dev, bytes) gpu_download(host, dev, bytes)
#endif

#ifndef BL_RED_NB
#define BL_RED_NB 1024 /* the most blocks of a reduction (the emulation lowers it: more stride steps) */
#endif

/* ---- arithmetic: IEEE operations, never contracted into an FMA ---------- */
static __host__ __device__ __forceinline__ double bl_mul(double a, double b) { return RN_MUL(a, b); }
static __host__ __device__ __forceinline__ double bl_add(double a, double b) { return RN_ADD(a, b); }
static __host__ __device__ __forceinline__ double bl_sub(double a, double b) { return RN_SUB(a, b); }

#include "solvers/blas_gpu_store.cuh" /* a group of 4 stored reals: load, store, decode, encode */

#include "gpu/chain.cuh" /* gpu_chained_begin: the first statement of a kernel blas_launch_chained launches */

/* ---- the elementwise operations: out = f(x, y) per real ---------------- */
/* real a x + b y in blas_cpu.c's four forms (which one: bl_real_op) */
enum { BL_AX = 0, BL_Y_AX = 1, BL_X_BY = 2, BL_AX_BY = 3 };
struct bl_op_real {
    double a, b;
    int form;
    __host__ __device__ bool reads_y() const { return form != BL_AX; }
    __device__ __forceinline__ bl_g operator()(const bl_g &x, const bl_g &y) const
    {
        bl_g o;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            double ax = bl_mul(a, x.v[k]);
            o.v[k] = form == BL_AX     ? ax
                     : form == BL_Y_AX ? bl_add(y.v[k], ax)
                     : form == BL_X_BY ? bl_add(x.v[k], bl_mul(b, y.v[k]))
                                       : bl_add(ax, bl_mul(b, y.v[k]));
        }
        return o;
    }
};
/* y = a x + b y, complex a, b (a group holds two complex numbers) */
struct bl_op_complex {
    double ar, ai, br, bi;
    __host__ __device__ bool reads_y() const { return true; }
    __device__ __forceinline__ bl_g operator()(const bl_g &x, const bl_g &y) const
    {
        bl_g o;
#pragma unroll
        for (int k = 0; k < 4; k += 2) {
            double xr = x.v[k], xi = x.v[k + 1], yr = y.v[k], yi = y.v[k + 1];
            o.v[k] = bl_sub(bl_add(bl_sub(bl_mul(ar, xr), bl_mul(ai, xi)), bl_mul(br, yr)), bl_mul(bi, yi));
            o.v[k + 1] = bl_add(bl_add(bl_add(bl_mul(ar, xi), bl_mul(ai, xr)), bl_mul(br, yi)), bl_mul(bi, yr));
        }
        return o;
    }
};

/* flat: group i of every operand (neither is half) */
template <class X, class Y, class OP> static __device__ __forceinline__ void bl_flat_item(const X *x, Y *y, size_t i, const OP &op)
{
    bl_g xv = bl_load(x, 4 * i, 1.0), yv = {{0, 0, 0, 0}};
    if (op.reads_y()) yv = bl_load(y, 4 * i, 1.0);
    bl_store(y, 4 * i, op(xv, yv));
}
template <class X, class Y, class OP>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_flat(const X *x, Y *y, size_t ngroups, OP op)
{
    size_t i = (size_t)blockIdx.x * GPU_RED_BS + threadIdx.x;
    if (i >= ngroups) return;
    bl_flat_item(x, y, i, op);
}

/* per site: site s (padding sites too) of x and y, one of them half.  x
 * may be y (scale): each group is read before it is written, the norms
 * read first and written last. */
template <class X, class Y, class OP>
static __device__ __forceinline__ void bl_site_item(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t s, int ncomp,
                                                    const OP &op)
{
    const double xs = bl_site_scale<X>(xnorm, s), ys = op.reads_y() ? bl_site_scale<Y>(ynorm, s) : 0;
    if constexpr (!bl_is_half<Y>::value) {
        for (int c = 0; c < ncomp; c += 4) {
            size_t e = gpu_spinor_index(ncomp, c, s);
            bl_g xv = bl_load(x, e, xs), yv = {{0, 0, 0, 0}};
            if (op.reads_y()) yv = bl_load(y, e, ys);
            bl_store(y, e, op(xv, yv));
        }
    } else {
        double mx = 0; /* half.h's block norm of the new values */
        int finite = 1;
        for (int c = 0; c < ncomp; c += 4) {
            size_t e = gpu_spinor_index(ncomp, c, s);
            bl_g xv = bl_load(x, e, xs), yv = {{0, 0, 0, 0}};
            if (op.reads_y()) yv = bl_load(y, e, ys);
            const bl_g o = op(xv, yv);
            bl_half_max(o, &mx, &finite);
        }
        const bl_half_site h = bl_half_norm(mx, finite);
        for (int c = 0; c < ncomp; c += 4) {
            size_t e = gpu_spinor_index(ncomp, c, s);
            bl_g o = {{0, 0, 0, 0}};
            if (!h.zero) {
                bl_g xv = bl_load(x, e, xs), yv = {{0, 0, 0, 0}};
                if (op.reads_y()) yv = bl_load(y, e, ys);
                o = op(xv, yv);
            }
            bl_store_half(y, e, o, h.qs);
        }
        ynorm[s] = h.nf;
    }
}
template <class X, class Y, class OP>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_site(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t nsites_pad, int ncomp, OP op)
{
    int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x;
    if (s >= nsites_pad) return;
    bl_site_item(x, xnorm, y, ynorm, s, ncomp, op);
}

/* ---- reductions: K = 1 sum |x|^2, K = 2 sum conj(x) y (re, im) --------- */
template <int K> static __device__ __forceinline__ void bl_accumulate(double *acc, const bl_g &x, const bl_g &y)
{
    if constexpr (K == 1) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc[0] = bl_add(acc[0], bl_mul(x.v[k], x.v[k]));
    } else {
#pragma unroll
        for (int k = 0; k < 4; k += 2) {
            acc[0] = bl_add(acc[0], bl_add(bl_mul(x.v[k], y.v[k]), bl_mul(x.v[k + 1], y.v[k + 1])));
            acc[1] = bl_add(acc[1], bl_sub(bl_mul(x.v[k], y.v[k + 1]), bl_mul(x.v[k + 1], y.v[k])));
        }
    }
}

/* flat: thread t adds groups t, t + stride, ... (stride = the grid's threads) */
template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_red_flat(const X *x, const Y *y, size_t ngroups, size_t stride, double *partial)
{
    __shared__ double sh[K][GPU_RED_BS];
    double acc[K];
    for (int k = 0; k < K; k++) acc[k] = 0;
    for (size_t i = (size_t)blockIdx.x * GPU_RED_BS + threadIdx.x; i < ngroups; i += stride) {
        bl_g xv = bl_load(x, 4 * i, 1.0), yv = xv;
        if (K == 2) yv = bl_load(y, 4 * i, 1.0);
        bl_accumulate<K>(acc, xv, yv);
    }
    red_block_sum<K>(sh, acc, partial + (size_t)blockIdx.x * K);
}

/* one site's groups added into acc: |x|^2 (K = 1; y unused) or conj(x) y
 * (K = 2), the stored values read as the reductions read them (the one
 * copy of this loop: the grid, chunk and fused reductions call it) */
template <class X, class Y, int K>
static __device__ __forceinline__ void bl_site_accumulate(double *acc, const X *x, const float *xnorm, const Y *y,
                                                          const float *ynorm, int64_t s, int ncomp)
{
    const double xs = bl_site_scale<X>(xnorm, s), ys = K == 2 ? bl_site_scale<Y>(ynorm, s) : 0;
    for (int c = 0; c < ncomp; c += 4) {
        size_t e = gpu_spinor_index(ncomp, c, s);
        bl_g xv = bl_load(x, e, xs), yv = xv;
        if (K == 2) yv = bl_load(y, e, ys);
        bl_accumulate<K>(acc, xv, yv);
    }
}

/* per site: thread t adds sites t, t + stride, ..., each over its groups */
template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_red_site(const X *x, const float *xnorm, const Y *y, const float *ynorm,
                                                            int64_t nsites_pad, int ncomp, int64_t stride, double *partial)
{
    __shared__ double sh[K][GPU_RED_BS];
    double acc[K];
    for (int k = 0; k < K; k++) acc[k] = 0;
    for (int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x; s < nsites_pad; s += stride)
        bl_site_accumulate<X, Y, K>(acc, x, xnorm, y, ynorm, s, ncomp);
    red_block_sum<K>(sh, acc, partial + (size_t)blockIdx.x * K);
}

/* ---- host: the table of struct solver_blas ------------------------------ */
struct bl_blas {
    struct solver_blas blas; /* first: the table handed out */
    double *partial_dev;     /* BL_RED_NB x 3 block partials (blas_gpu_bicg.cuh's three sums) */
    double *partial;         /* their host copy (BL_HOST_ALLOC: pinned with CUDA) */
    /* a reduction layout (chunk_reals 0: none, the grid above) and its
     * per-chunk partials on the device and the host, the global slots */
    struct solver_reduce_layout layout;
    double *chunk_dev, *chunk_host, *slots;
    size_t chunk_cap, slots_cap;
    struct bl_ms *ms; /* the multi-shift loop on the device (blas_gpu_multishift.cuh) */
};

static size_t bl_elem(enum solver_prec p)
{
    return p == SOLVER_DOUBLE ? sizeof(double) : p == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
}
static int64_t bl_nsites(const struct solver_vec *v) { return (int64_t)(v->n / v->site_reals); }
static size_t bl_stored(const struct solver_vec *v) { return gpu_spinor_storage(bl_nsites(v), (int)v->site_reals); }
static int64_t bl_sites_pad(const struct solver_vec *v) { return gpu_spinor_nblk(bl_nsites(v)) * GPU_SPINOR_LANES; }

/* f(T()) with T the storage type of precision p (int16_t: half); BL_T(t)
 * names it inside f (decayed: inside a function template, g++ may see the
 * outer lambda's parameter from a nested lambda as const or a reference) */
#define BL_T(t) typename std::decay<decltype(t)>::type
template <class F> static void bl_with_store(enum solver_prec p, const F &f)
{
    if (p == SOLVER_DOUBLE) f(double());
    else if (p == SOLVER_SINGLE) f(float());
    else f(int16_t());
}

static unsigned bl_blocks(uint64_t work) { return (unsigned)((work + GPU_RED_BS - 1) / GPU_RED_BS); }

/* y = op(x, y) elementwise, any precisions */
template <class OP> static void bl_elementwise(const struct solver_vec *x, struct solver_vec *y, OP op, const char *where)
{
    solver_vec_same_shape(x, y, where);
    if (y->n == 0) return;
    const int ncomp = gpu_spinor_ncomp((int)y->site_reals);
    bl_with_store(x->prec, [&](auto xt) {
        bl_with_store(y->prec, [&](auto yt) {
            using X = BL_T(xt);
            using Y = BL_T(yt);
            const X *xd = (const X *)x->data;
            Y *yd = (Y *)y->data;
            if constexpr (!bl_is_half<X>::value && !bl_is_half<Y>::value) {
                size_t ngroups = bl_stored(y) / GPU_SPINOR_GROUP;
                blas_launch(k_bl_flat<X, Y, OP>, bl_blocks(ngroups), false, xd, yd, ngroups, op);
            } else {
                int64_t ns = bl_sites_pad(y);
                blas_launch(k_bl_site<X, Y, OP>, bl_blocks((uint64_t)ns), false, xd, (const float *)x->norm, yd, y->norm,
                            ns, ncomp, op);
            }
        });
    });
}

/* the four forms of blas_cpu.c's real_axpby, chosen as it chooses them */
static __host__ __device__ bl_op_real bl_real_op(double a, double b)
{
    int form = b == 0 ? BL_AX : b == 1 ? BL_Y_AX : a == 1 ? BL_X_BY : BL_AX_BY;
    return bl_op_real{a, b, form};
}

/* out[k] += the nb block partials of a reduction, added in block order on
 * the host (one copy into the partials' host buffer, one wait) */
template <int K> static void bl_finish(struct bl_blas *c, unsigned nb, double *out)
{
    BL_FETCH_PARTIALS(c->partial, c->partial_dev, (size_t)nb * K * sizeof(double));
    for (unsigned b = 0; b < nb; b++) /* the blocks in order */
        for (int k = 0; k < K; k++) out[k] += c->partial[(size_t)b * K + k];
}

/* out[0..K-1] = the reduction of x (K = 1) or x with y (K = 2) */
#include "solvers/blas_gpu_chunks.cuh" /* bl_reduce_chunks: the reductions with a layout */
template <int K> static void bl_reduce(struct bl_blas *c, const struct solver_vec *x, const struct solver_vec *y, double *out)
{
    for (int k = 0; k < K; k++) out[k] = 0;
    if (x->n == 0) return;
    if (c->layout.chunk_reals) {
        bl_reduce_chunks<K>(c, x, y, out);
        return;
    }
    const int ncomp = gpu_spinor_ncomp((int)x->site_reals);
    unsigned nb = 0;
    bl_with_store(x->prec, [&](auto xt) {
        bl_with_store(y->prec, [&](auto yt) {
            using X = BL_T(xt);
            using Y = typename std::conditional<K == 1, X, BL_T(yt)>::type;
            if constexpr (K == 1 && !std::is_same<X, BL_T(yt)>::value) {
                return; /* norm2: y is x, one instantiation per precision */
            } else {
                const X *xd = (const X *)x->data;
                const Y *yd = (const Y *)y->data;
                if constexpr (!bl_is_half<X>::value && !bl_is_half<Y>::value) {
                    size_t ngroups = bl_stored(x) / GPU_SPINOR_GROUP;
                    nb = bl_blocks(ngroups) < BL_RED_NB ? bl_blocks(ngroups) : BL_RED_NB;
                    blas_launch(k_bl_red_flat<X, Y, K>, nb, true, xd, yd, ngroups, (size_t)nb * GPU_RED_BS, c->partial_dev);
                } else {
                    int64_t ns = bl_sites_pad(x);
                    nb = bl_blocks((uint64_t)ns) < BL_RED_NB ? bl_blocks((uint64_t)ns) : BL_RED_NB;
                    blas_launch(k_bl_red_site<X, Y, K>, nb, true, xd, (const float *)x->norm, yd, (const float *)y->norm, ns,
                                ncomp, (int64_t)nb * GPU_RED_BS, c->partial_dev);
                }
            }
        });
    });
    bl_finish<K>(c, nb, out);
}

#include "solvers/blas_gpu_fused.cuh" /* the fused kernels (multi_axpy, ..., axpy_cdot) */
#include "solvers/blas_gpu_bicg.cuh"  /* BiCGstab's (cdot_norm2, caxpby_norm2_cdot, caxpby2) */
#include "solvers/blas_gpu_multishift.cuh" /* the multi-shift CG's loop with its scalars on the device */
#include "solvers/blas_gpu_bicg_loop.cuh"   /* BiCGstab's iterations with their scalars on the device */

static struct solver_vec *bl_alloc(void *ctx, size_t n, size_t site_reals, enum solver_prec prec)
{
    (void)ctx;
    if (site_reals == 0 || site_reals > SOLVER_SITE_REALS_MAX || n % site_reals || site_reals % 2 ||
        (prec != SOLVER_DOUBLE && prec != SOLVER_SINGLE && prec != SOLVER_HALF))
        lat_die(1, "solver_blas_gpu", "vector of %zu reals in site blocks of %zu, precision %d (an even block of 2..%d reals dividing n expected)",
                n, site_reals, (int)prec, SOLVER_SITE_REALS_MAX);
    struct solver_vec *v = (struct solver_vec *)calloc(1, sizeof *v);
    if (!v) return NULL;
    v->prec = prec;
    v->n = n;
    v->site_reals = site_reals;
    const size_t bytes = bl_stored(v) * bl_elem(prec), nbytes = (size_t)bl_sites_pad(v) * sizeof(float);
    v->data = blas_dev_alloc(bytes);
    if (prec == SOLVER_HALF) v->norm = (float *)blas_dev_alloc(nbytes);
    if (!v->data || (prec == SOLVER_HALF && !v->norm)) {
        gpu_free(v->data);
        gpu_free(v->norm);
        free(v);
        return NULL;
    }
    gpu_memset(v->data, 0, bytes);
    if (v->norm) gpu_memset(v->norm, 0, nbytes);
    return v;
}

static void bl_free(void *ctx, struct solver_vec *v)
{
    (void)ctx;
    if (!v) return;
    gpu_free(v->data);
    gpu_free(v->norm);
    free(v);
}

static void bl_zero(void *ctx, struct solver_vec *y)
{
    (void)ctx;
    gpu_memset(y->data, 0, bl_stored(y) * bl_elem(y->prec));
    if (y->prec == SOLVER_HALF) gpu_memset(y->norm, 0, (size_t)bl_sites_pad(y) * sizeof(float));
}

static void bl_copy(void *ctx, struct solver_vec *y, const struct solver_vec *x)
{
    (void)ctx;
    solver_vec_same_shape(x, y, "solver_blas_gpu copy");
    if (x == y) return;
    if (x->prec == y->prec) { /* the stored bits, as blas_cpu.c's memcpy */
        blas_dev_copy(y->data, x->data, bl_stored(y) * bl_elem(y->prec));
        if (y->prec == SOLVER_HALF) blas_dev_copy(y->norm, x->norm, (size_t)bl_sites_pad(y) * sizeof(float));
        return;
    }
    bl_elementwise(x, y, bl_real_op(1, 0), "solver_blas_gpu copy"); /* y = 1 * x, exact */
}

static void bl_scale(void *ctx, double a, struct solver_vec *y)
{
    (void)ctx;
    bl_elementwise(y, y, bl_real_op(0, a), "solver_blas_gpu scale");
}
static void bl_axpy(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    (void)ctx;
    bl_elementwise(x, y, bl_real_op(a, 1), "solver_blas_gpu axpy");
}
static void bl_xpay(void *ctx, const struct solver_vec *x, double a, struct solver_vec *y)
{
    (void)ctx;
    bl_elementwise(x, y, bl_real_op(1, a), "solver_blas_gpu xpay");
}
static void bl_caxpby(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b, struct solver_vec *y)
{
    (void)ctx;
    bl_elementwise(x, y, bl_op_complex{a.re, a.im, b.re, b.im}, "solver_blas_gpu caxpby");
}
static solver_complex bl_cdot(void *ctx, const struct solver_vec *x, const struct solver_vec *y)
{
    solver_vec_same_shape(x, y, "solver_blas_gpu cdot");
    double s[2];
    bl_reduce<2>((struct bl_blas *)ctx, x, y, s);
    solver_complex r = {s[0], s[1]};
    return r;
}
static double bl_norm2(void *ctx, const struct solver_vec *x)
{
    double s;
    bl_reduce<1>((struct bl_blas *)ctx, x, x, &s);
    return s;
}

static struct solver_blas *blas_gpu_make(const struct solver_reduce_layout *layout)
{
    struct bl_blas *c = (struct bl_blas *)calloc(1, sizeof *c);
    if (!c) return NULL;
    if (layout) {
        if (layout->chunk_reals == 0 || layout->total_chunks == 0 || layout->first_chunk >= layout->total_chunks)
            lat_die(1, "solver_blas_gpu_open", "reduction layout: chunks of %zu reals, first %zu of %zu",
                    layout->chunk_reals, layout->first_chunk, layout->total_chunks);
        c->layout = *layout;
    }
    c->partial_dev = (double *)blas_dev_alloc(BL_RED_NB * 3 * sizeof(double));
    c->partial = (double *)BL_HOST_ALLOC(BL_RED_NB * 3 * sizeof(double));
    if (!c->partial) lat_die(1, "solver_blas_gpu_open", "out of host memory for %d reduction partials", BL_RED_NB * 3);
    if (!c->partial_dev) lat_die(1, "solver_blas_gpu_open", "out of device memory for %d reduction partials", BL_RED_NB * 3);
    struct solver_blas t = {};
    t.ctx = c;
    t.alloc = bl_alloc;
    t.free = bl_free;
    t.zero = bl_zero;
    t.copy = bl_copy;
    t.scale = bl_scale;
    t.axpy = bl_axpy;
    t.xpay = bl_xpay;
    t.caxpby = bl_caxpby;
    t.cdot = bl_cdot;
    t.norm2 = bl_norm2;
    t.multi_axpy = bl_multi_axpy;
    t.multi_caxpby = bl_multi_caxpby;
    t.axpy_norm2 = bl_axpy_norm2; /* with a layout too: their sums on the layout's chunk grid */
    t.axpy_cdot = bl_axpy_cdot;
    t.multi_axpy_caxpby = bl_multi_axpy_caxpby; /* elementwise: the same with a layout */
    t.cdot_norm2 = bl_cdot_norm2;               /* with a layout too: its chunk grid */
    t.caxpby_norm2_cdot = bl_caxpby_norm2_cdot;
    t.caxpby2 = bl_caxpby2;
    t.multishift_loop = bl_multishift_loop;
    t.bicgstab_loop = bl_bicgstab_loop;
    c->blas = t;
    bl_ms_open(c);
    return &c->blas;
}

static void blas_gpu_destroy(struct solver_blas *blas)
{
    if (!blas) return;
    struct bl_blas *c = (struct bl_blas *)blas;
    gpu_free(c->partial_dev);
    BL_HOST_FREE(c->partial);
    bl_ms_release(c);
    gpu_free(c->chunk_dev);
    free(c->chunk_host);
    free(c->slots);
    free(c);
}

#endif
