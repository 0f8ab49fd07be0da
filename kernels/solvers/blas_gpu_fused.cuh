/* solvers/blas_gpu_fused.cuh -- the fused GPU vector kernels of the solvers
 * (the optional members multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot,
 * multi_axpy_caxpby of struct solver_blas) and their host code; included
 * by blas_gpu.cuh (after its elementwise kernels and reductions, before
 * its table), so nvcc and the host emulation compile this very text.
 * Exported (to blas_gpu.cuh): bl_multi_axpy, bl_multi_caxpby,
 * bl_axpy_norm2, bl_axpy_cdot, bl_multi_axpy_caxpby.
 *
 * Why: a multi-shift CG iteration made 2 + 2 nshift + 4 launches and two
 * host waits; with these it makes 3 launches (plus the operator's) and two
 * waits, and reads each p_i once (4 launches, p_i read twice, in an
 * iteration with the base shift's reliable update).  Each gives the bits
 * of the unfused sequence it replaces (solvers.h's contract):
 *   - multi_axpy, multi_caxpby: ONE launch over n vectors (a block range per
 *     vector: block b works on vector b / blocks_per_vector), each item
 *     computed by blas_gpu.cuh's bl_flat_item / bl_site_item with that
 *     vector's operator -- the very code of axpy and caxpby.  The vector
 *     pointers and scalars travel as a kernel argument (struct
 *     bl_multi_args, up to BL_MULTI_MAX vectors a launch; more are launched
 *     in groups).  Vectors of different precisions or shapes in one call
 *     are done one by one with the unfused kernels (the same bits).
 *   - axpy_norm2 (y += a x; |y|^2), axpy_cdot (y += a x; conj(x) y): the
 *     reduction's grid (min(ceil(work / GPU_RED_BS), BL_RED_NB) blocks,
 *     work = groups or padded sites of y), each thread updating the items
 *     it sums -- items t, t + stride, ... as the reduction visits them --
 *     with the axpy's item code, then reading back what it stored (y's
 *     precision: the rounded single, the quantised half with its new norm)
 *     and adding it as the unfused reduction does (bl_accumulate, the same
 *     stride order, reduce.cuh's block tree, bl_finish's block order).
 *     Each item is written and read by one thread only.  With a
 *     reduction layout the same on the chunk grid of blas_gpu_chunks.cuh
 *     (k_bl_axpy_red_chunk: each thread updates the sites k_bl_red_chunk
 *     would have it sum, block 0 also the padding sites no chunk holds;
 *     the host's sums bl_chunk_finish, shared with the unfused path): the
 *     bits of axpy followed by the layout's reduction, so R ranks of a
 *     t-slab layout still give one process's bits.
 *   - multi_axpy_caxpby (y_j += a_j p_j, then p_j = b_j r + c_j p_j): ONE
 *     launch over n vectors as the multi kernels, each item doing the
 *     axpy's item then the caxpby's on the stored p (flat: p loaded once
 *     into registers; per site, half p: the two bl_site_item calls in
 *     order); for r and the p's of one precision with double y's (the
 *     multi-shift's x_i), else the unfused pair.
 * Fused kernels exist for the precision pairs the solvers use (compile
 * time: every pair is a kernel instantiation): multi_axpy into double y's,
 * multi_caxpby and the reductions with x and y of one precision,
 * multi_axpy_caxpby with r and p of one precision and double y's (3
 * kernels); any other pair (or a multi call mixing precisions) runs as the
 * unfused calls. */
#ifndef LAT_SOLVERS_BLAS_GPU_FUSED_CUH
#define LAT_SOLVERS_BLAS_GPU_FUSED_CUH

#ifndef BL_MULTI_MAX
#define BL_MULTI_MAX 32 /* vectors a multi launch takes: 2 KiB of kernel arguments with complex scalars */
#endif

/* ---- multi: n elementwise updates y_j = op_j(x_j, y_j) in one launch ---- */
template <class X, class Y, class OP> struct bl_multi_args {
    const X *x[BL_MULTI_MAX];
    const float *xnorm[BL_MULTI_MAX];
    Y *y[BL_MULTI_MAX];
    float *ynorm[BL_MULTI_MAX];
    OP op[BL_MULTI_MAX];
};

template <class X, class Y, class OP>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_multi_flat(const bl_multi_args<X, Y, OP> m, size_t ngroups, unsigned nb_per)
{
    const unsigned j = blockIdx.x / nb_per;
    size_t i = (size_t)(blockIdx.x % nb_per) * GPU_RED_BS + threadIdx.x;
    if (i >= ngroups) return;
    bl_flat_item(m.x[j], m.y[j], i, m.op[j]);
}

template <class X, class Y, class OP>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_multi_site(const bl_multi_args<X, Y, OP> m, int64_t nsites_pad, int ncomp, unsigned nb_per)
{
    const unsigned j = blockIdx.x / nb_per;
    int64_t s = (int64_t)(blockIdx.x % nb_per) * GPU_RED_BS + threadIdx.x;
    if (s >= nsites_pad) return;
    bl_site_item(m.x[j], m.xnorm[j], m.y[j], m.ynorm[j], s, ncomp, m.op[j]);
}

/* The precision pairs that have fused kernels -- the solvers' (compile
 * time: each pair is a kernel instantiation): multi_axpy into double y's
 * (x_i += alpha_i p_i), multi_caxpby and the axpy reductions on one
 * precision (p_i = z r + b p_i; r -= alpha q; q += sigma p).  Any other
 * pair runs as the unfused calls: the same bits. */
template <class X, class Y, class OP> struct bl_fused_pair {
    static constexpr bool value =
        std::is_same<OP, bl_op_real>::value ? std::is_same<Y, double>::value : std::is_same<X, Y>::value;
};
static int bl_fused_prec(int axpy_into, enum solver_prec px, enum solver_prec py)
{
    return axpy_into ? py == SOLVER_DOUBLE : px == py;
}

/* 1 when the n pairs (x[j], y[j]) share one precision pair that has a
 * fused kernel (multi_axpy: axpy 1) and y[0]'s shape (one launch can take
 * them), 0 otherwise */
static int bl_multi_uniform(int axpy, int n, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    if (n > 0 && !bl_fused_prec(axpy, x[0]->prec, y[0]->prec)) return 0;
    for (int j = 0; j < n; j++) {
        solver_vec_same_shape(x[j], y[j], "solver_blas_gpu multi");
        if (x[j]->prec != x[0]->prec || y[j]->prec != y[0]->prec || y[j]->n != y[0]->n ||
            y[j]->site_reals != y[0]->site_reals)
            return 0;
    }
    return 1;
}

/* y[j] = op[j](x[j], y[j]) for j < n, uniform (bl_multi_uniform), in
 * launches of BL_MULTI_MAX vectors */
template <class OP>
static void bl_multi(int n, const struct solver_vec *const *x, struct solver_vec *const *y, const OP *op)
{
    if (n <= 0 || y[0]->n == 0) return;
    const int ncomp = gpu_spinor_ncomp((int)y[0]->site_reals);
    bl_with_store(x[0]->prec, [&](auto xt) {
        bl_with_store(y[0]->prec, [&](auto yt) {
            using X = BL_T(xt);
            using Y = BL_T(yt);
            if constexpr (!bl_fused_pair<X, Y, OP>::value) {
                return; /* not reached: bl_multi_uniform said no */
            } else {
                for (int j0 = 0; j0 < n; j0 += BL_MULTI_MAX) {
                    const int m = n - j0 < BL_MULTI_MAX ? n - j0 : BL_MULTI_MAX;
                    bl_multi_args<X, Y, OP> a = {};
                    for (int j = 0; j < m; j++) {
                        a.x[j] = (const X *)x[j0 + j]->data;
                        a.xnorm[j] = x[j0 + j]->norm;
                        a.y[j] = (Y *)y[j0 + j]->data;
                        a.ynorm[j] = y[j0 + j]->norm;
                        a.op[j] = op[j0 + j];
                    }
                    if constexpr (!bl_is_half<X>::value && !bl_is_half<Y>::value) {
                        size_t ngroups = bl_stored(y[0]) / GPU_SPINOR_GROUP;
                        unsigned nb = bl_blocks(ngroups);
                        blas_launch(k_bl_multi_flat<X, Y, OP>, nb * (unsigned)m, false, a, ngroups, nb);
                    } else {
                        int64_t ns = bl_sites_pad(y[0]);
                        unsigned nb = bl_blocks((uint64_t)ns);
                        blas_launch(k_bl_multi_site<X, Y, OP>, nb * (unsigned)m, false, a, ns, ncomp, nb);
                    }
                }
            }
        });
    });
}

static void bl_multi_axpy(void *ctx, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    (void)ctx;
    if (n <= 0) return;
    if (!bl_multi_uniform(1, n, x, y)) {
        for (int j = 0; j < n; j++) bl_elementwise(x[j], y[j], bl_real_op(a[j], 1), "solver_blas_gpu multi_axpy");
        return;
    }
    bl_op_real op[BL_MULTI_MAX];
    for (int j0 = 0; j0 < n; j0 += BL_MULTI_MAX) {
        const int m = n - j0 < BL_MULTI_MAX ? n - j0 : BL_MULTI_MAX;
        for (int j = 0; j < m; j++) op[j] = bl_real_op(a[j0 + j], 1); /* axpy's operator */
        bl_multi(m, x + j0, y + j0, op);
    }
}

static void bl_multi_caxpby(void *ctx, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                            struct solver_vec *const *y)
{
    (void)ctx;
    if (n <= 0) return;
    const struct solver_vec *xs[BL_MULTI_MAX];
    bl_op_complex op[BL_MULTI_MAX];
    for (int j0 = 0; j0 < n; j0 += BL_MULTI_MAX) {
        const int m = n - j0 < BL_MULTI_MAX ? n - j0 : BL_MULTI_MAX;
        for (int j = 0; j < m; j++) {
            xs[j] = x;
            op[j] = bl_op_complex{a[j0 + j].re, a[j0 + j].im, b[j0 + j].re, b[j0 + j].im}; /* caxpby's */
        }
        if (bl_multi_uniform(0, m, xs, y + j0)) bl_multi(m, xs, y + j0, op);
        else
            for (int j = 0; j < m; j++) bl_elementwise(x, y[j0 + j], op[j], "solver_blas_gpu multi_caxpby");
    }
}

/* ---- multi_axpy_caxpby: y_j += a_j p_j, then p_j = b_j r + c_j p_j ------
 * (the multi-shift CG's x_i and p_i updates) in one launch over the n
 * vectors, each p_j read once from memory where multi_axpy then
 * multi_caxpby read it twice.  Block b works on vector b / nb_per, as the
 * multi kernels above.  Bits: per item, the unfused pair's item code in
 * its order -- axpy's (bl_op_real, y as stored) on the stored p, then
 * caxpby's (bl_op_complex) on the same stored p, p rounded to its storage
 * as caxpby rounds it. */
template <class R, class P, class Y> struct bl_axpy_caxpby_args {
    const R *r;
    const float *rnorm;
    P *p[BL_MULTI_MAX];
    float *pnorm[BL_MULTI_MAX];
    Y *y[BL_MULTI_MAX];
    bl_op_real axpy[BL_MULTI_MAX];     /* y += a p: bl_real_op(a, 1) */
    bl_op_complex caxpby[BL_MULTI_MAX]; /* p = b r + c p */
};

/* group i of y += a p, then p = b r + c p (flat storage): p loaded once */
template <class R, class P, class Y>
static __device__ __forceinline__ void bl_axpy_caxpby_group(const R *r, P *p, Y *y, size_t i, const bl_op_real &axpy,
                                                            const bl_op_complex &caxpby)
{
    const bl_g pv = bl_load(p, 4 * i, 1.0); /* p as stored */
    bl_store(y, 4 * i, axpy(pv, bl_load(y, 4 * i, 1.0)));
    bl_store(p, 4 * i, caxpby(bl_load(r, 4 * i, 1.0), pv));
}

/* flat (neither r nor p half, y not half): group i, p loaded once into
 * registers, the operand of both updates -- bl_flat_item's loads and
 * stores twice, with the reload of p, which the first store leaves as it
 * was, taken from the registers */
template <class R, class P, class Y>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_axpy_caxpby_flat(const bl_axpy_caxpby_args<R, P, Y> m, size_t ngroups, unsigned nb_per)
{
    const unsigned j = blockIdx.x / nb_per;
    const size_t i = (size_t)(blockIdx.x % nb_per) * GPU_RED_BS + threadIdx.x;
    if (i >= ngroups) return;
    bl_axpy_caxpby_group(m.r, m.p[j], m.y[j], i, m.axpy[j], m.caxpby[j]);
}

/* per site (r and p half, y double): the two unfused site items in order
 * on site s by one thread, the axpy's reading p (its old norm), then the
 * caxpby's rewriting p with its new norm (its second read of the site's p
 * groups comes from this thread's L1, not from memory) */
template <class R, class P, class Y>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_axpy_caxpby_site(const bl_axpy_caxpby_args<R, P, Y> m, int64_t nsites_pad, int ncomp, unsigned nb_per)
{
    const unsigned j = blockIdx.x / nb_per;
    const int64_t s = (int64_t)(blockIdx.x % nb_per) * GPU_RED_BS + threadIdx.x;
    if (s >= nsites_pad) return;
    bl_site_item(m.p[j], m.pnorm[j], m.y[j], (float *)NULL, s, ncomp, m.axpy[j]);
    bl_site_item(m.r, m.rnorm, m.p[j], m.pnorm[j], s, ncomp, m.caxpby[j]);
}

/* the precision sets that have the kernel: the multi-shift CG's -- r and
 * the p's of one precision (the sloppy one), the y's (x_i) double */
static int bl_axpy_caxpby_uniform(int n, const struct solver_vec *r, struct solver_vec *const *p, struct solver_vec *const *y)
{
    for (int j = 0; j < n; j++) {
        solver_vec_same_shape(r, p[j], "solver_blas_gpu multi_axpy_caxpby");
        solver_vec_same_shape(r, y[j], "solver_blas_gpu multi_axpy_caxpby");
        if (p[j]->prec != r->prec || y[j]->prec != SOLVER_DOUBLE) return 0;
    }
    return 1;
}

static void bl_multi_axpy_caxpby(void *ctx, int n, const double *a, const struct solver_vec *r, const solver_complex *b,
                                 const solver_complex *c, struct solver_vec *const *p, struct solver_vec *const *y)
{
    if (n <= 0) return;
    if (!bl_axpy_caxpby_uniform(n, r, p, y)) { /* no kernel for the set: the unfused pair */
        bl_multi_axpy(ctx, n, a, (const struct solver_vec *const *)p, y);
        bl_multi_caxpby(ctx, n, b, r, c, p);
        return;
    }
    if (r->n == 0) return;
    const int ncomp = gpu_spinor_ncomp((int)r->site_reals);
    bl_with_store(r->prec, [&](auto rt) {
        using R = BL_T(rt);
        for (int j0 = 0; j0 < n; j0 += BL_MULTI_MAX) {
            const int m = n - j0 < BL_MULTI_MAX ? n - j0 : BL_MULTI_MAX;
            bl_axpy_caxpby_args<R, R, double> args = {};
            args.r = (const R *)r->data;
            args.rnorm = r->norm;
            for (int j = 0; j < m; j++) {
                args.p[j] = (R *)p[j0 + j]->data;
                args.pnorm[j] = p[j0 + j]->norm;
                args.y[j] = (double *)y[j0 + j]->data;
                args.axpy[j] = bl_real_op(a[j0 + j], 1); /* axpy's operator */
                args.caxpby[j] = bl_op_complex{b[j0 + j].re, b[j0 + j].im, c[j0 + j].re, c[j0 + j].im}; /* caxpby's */
            }
            if constexpr (!bl_is_half<R>::value) {
                size_t ngroups = bl_stored(r) / GPU_SPINOR_GROUP;
                unsigned nb = bl_blocks(ngroups);
                blas_launch(k_bl_axpy_caxpby_flat<R, R, double>, nb * (unsigned)m, false, args, ngroups, nb);
            } else {
                int64_t ns = bl_sites_pad(r);
                unsigned nb = bl_blocks((uint64_t)ns);
                blas_launch(k_bl_axpy_caxpby_site<R, R, double>, nb * (unsigned)m, false, args, ns, ncomp, nb);
            }
        }
    });
}

/* ---- y += a x with the reduction of the new y: K = 1 |y|^2, K = 2 conj(x) y */

/* site s's contribution after the update, the stored values read back as
 * the unfused reduction reads them: |y|^2 of the new y (its new norm;
 * norm2(y)'s bl_site_accumulate<Y, Y, 1>) or conj(x) y (cdot(x, y)'s
 * bl_site_accumulate<X, Y, 2>) */
template <class X, class Y, int K>
static __device__ __forceinline__ void bl_axpy_accumulate(double *acc, const X *x, const float *xnorm, const Y *y,
                                                          const float *ynorm, int64_t s, int ncomp)
{
    if constexpr (K == 1) bl_site_accumulate<Y, Y, 1>(acc, y, ynorm, y, ynorm, s, ncomp);
    else bl_site_accumulate<X, Y, 2>(acc, x, xnorm, y, ynorm, s, ncomp);
}

/* y += a x on site s (padding reals included) with the unfused axpy's item
 * code for the storage (any elementwise OP: blas_gpu_bicg.cuh's caxpby
 * too): neither operand half, the flat kernel's
 * bl_flat_item on each of the site's groups (group = stored index / 4: the
 * groups of sites 0 .. nsites_pad-1 are all the flat kernel's groups, each
 * once); else k_bl_site's bl_site_item */
template <class X, class Y, class OP>
static __device__ __forceinline__ void bl_axpy_site(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t s, int ncomp,
                                                    const OP &op)
{
    if constexpr (!bl_is_half<X>::value && !bl_is_half<Y>::value) {
        (void)xnorm, (void)ynorm;
        for (int c = 0; c < ncomp; c += GPU_SPINOR_GROUP)
            bl_flat_item(x, y, gpu_spinor_index(ncomp, c, s) / GPU_SPINOR_GROUP, op);
    } else {
        bl_site_item(x, xnorm, y, ynorm, s, ncomp, op);
    }
}
template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_axpy_red_flat(const X *x, Y *y, size_t ngroups, size_t stride, bl_op_real op, double *partial)
{
    __shared__ double sh[K][GPU_RED_BS];
    double acc[K];
    for (int k = 0; k < K; k++) acc[k] = 0;
    for (size_t i = (size_t)blockIdx.x * GPU_RED_BS + threadIdx.x; i < ngroups; i += stride) {
        bl_flat_item(x, y, i, op);
        bl_g yv = bl_load(y, 4 * i, 1.0), xv = yv; /* as stored */
        if (K == 2) xv = bl_load(x, 4 * i, 1.0);
        bl_accumulate<K>(acc, xv, yv);
    }
    red_block_sum<K>(sh, acc, partial + (size_t)blockIdx.x * K);
}

template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_axpy_red_site(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t nsites_pad,
                                                                 int ncomp, int64_t stride, bl_op_real op, double *partial)
{
    __shared__ double sh[K][GPU_RED_BS];
    double acc[K];
    for (int k = 0; k < K; k++) acc[k] = 0;
    for (int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x; s < nsites_pad; s += stride) {
        bl_site_item(x, xnorm, y, ynorm, s, ncomp, op);
        bl_axpy_accumulate<X, Y, K>(acc, x, xnorm, y, ynorm, s, ncomp);
    }
    red_block_sum<K>(sh, acc, partial + (size_t)blockIdx.x * K);
}

/* With a reduction layout: the chunk grid of blas_gpu_chunks.cuh's
 * k_bl_red_chunk (block b: piece b % nsub of chunk b / nsub; thread t the
 * sites first + i, i = piece BS + t, stepping nsub BS), each thread first
 * doing y += a x on exactly the site it then sums, with the unfused axpy's
 * item code for the storage (bl_axpy_site), then reading back what it
 * stored and adding it as k_bl_red_chunk does (bl_axpy_accumulate: the
 * same bl_site_accumulate, the same site order, reduce.cuh's tree).  The
 * chunks cover sites 0 .. nsites-1 once each (n is a multiple of
 * chunk_reals); the padding sites nsites .. nsites_pad-1, which the unfused
 * axpy also computes and no chunk holds, are done (not summed) by block 0:
 * every stored real and half norm of y is written exactly once, as the
 * unfused axpy writes it. */
template <class X, class Y, int K> struct bl_axpy_sum_site {
    const X *x;
    const float *xnorm;
    Y *y;
    float *ynorm;
    int ncomp;
    bl_op_real op;
    __device__ __forceinline__ void operator()(double *acc, int64_t s) const
    {
        bl_axpy_site(x, xnorm, y, ynorm, s, ncomp, op);
        bl_axpy_accumulate<X, Y, K>(acc, x, xnorm, y, ynorm, s, ncomp);
    }
};

template <class X, class Y, int K>
static __device__ __forceinline__ void bl_axpy_red_chunk(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t chunk_sites,
                                                         int nsub, int ncomp, int64_t nsites, int64_t nsites_pad,
                                                         const bl_op_real &op, double *partial)
{
    if (blockIdx.x == 0) /* the padding sites: updated as the unfused axpy does, never summed */
        for (int64_t s = nsites + threadIdx.x; s < nsites_pad; s += GPU_RED_BS) bl_axpy_site(x, xnorm, y, ynorm, s, ncomp, op);
    /* blas_gpu_chunks.cuh's walk: the sites and order of k_bl_red_chunk */
    bl_chunk_walk<K>(chunk_sites, nsub, partial, bl_axpy_sum_site<X, Y, K>{x, xnorm, y, ynorm, ncomp, op});
}
template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_axpy_red_chunk(const X *x, const float *xnorm, Y *y, float *ynorm, int64_t chunk_sites, int nsub, int ncomp,
                        int64_t nsites, int64_t nsites_pad, bl_op_real op, double *partial)
{
    bl_axpy_red_chunk<X, Y, K>(x, xnorm, y, ynorm, chunk_sites, nsub, ncomp, nsites, nsites_pad, op, partial);
}

/* with a layout: y += a x and out[k] += the reduction, one launch of
 * k_bl_axpy_red_chunk on the chunk grid bl_reduce_chunks would take (its
 * bl_chunk_prepare), the host's sums its bl_chunk_finish; x and y of one
 * precision */
template <int K>
static void bl_axpy_reduce_chunks(struct bl_blas *c, const bl_op_real &op, const struct solver_vec *x, struct solver_vec *y,
                                  double *out)
{
    const bl_chunk_grid g = bl_chunk_prepare<K>(c, y);
    bl_with_store(y->prec, [&](auto yt) {
        using Y = BL_T(yt);
        blas_launch(k_bl_axpy_red_chunk<Y, Y, K>, (unsigned)g.nb, true, (const Y *)x->data, (const float *)x->norm,
                    (Y *)y->data, y->norm, g.chunk_sites, g.nsub, g.ncomp, bl_nsites(y), bl_sites_pad(y), op,
                    c->chunk_dev);
    });
    bl_chunk_finish<K>(c, g, out);
}

/* y += a x; out[0..K-1] = the reduction of the new y (K = 1) or of x with
 * it (K = 2), on the grid bl_reduce would take for it (with a layout:
 * bl_axpy_reduce_chunks) */
template <int K> static void bl_axpy_reduce(struct bl_blas *c, double a, const struct solver_vec *x, struct solver_vec *y, double *out)
{
    solver_vec_same_shape(x, y, K == 1 ? "solver_blas_gpu axpy_norm2" : "solver_blas_gpu axpy_cdot");
    if (x == y) lat_die(1, "solver_blas_gpu", "axpy with a reduction: x and y are one vector");
    const bl_op_real op = bl_real_op(a, 1);
    if (x->prec != y->prec) { /* no fused kernel for the pair: the unfused calls */
        bl_elementwise(x, y, op, K == 1 ? "solver_blas_gpu axpy_norm2" : "solver_blas_gpu axpy_cdot");
        if (K == 1) bl_reduce<1>(c, y, y, out);
        else bl_reduce<2>(c, x, y, out);
        return;
    }
    for (int k = 0; k < K; k++) out[k] = 0;
    if (y->n == 0) return;
    if (c->layout.chunk_reals) {
        bl_axpy_reduce_chunks<K>(c, op, x, y, out);
        return;
    }
    const int ncomp = gpu_spinor_ncomp((int)y->site_reals);
    unsigned nb = 0;
    bl_with_store(x->prec, [&](auto xt) {
        bl_with_store(y->prec, [&](auto yt) {
            using X = BL_T(xt);
            using Y = BL_T(yt);
            const X *xd = (const X *)x->data;
            Y *yd = (Y *)y->data;
            if constexpr (!std::is_same<X, Y>::value) {
                return; /* not reached: one precision here */
            } else if constexpr (!bl_is_half<X>::value) {
                size_t ngroups = bl_stored(y) / GPU_SPINOR_GROUP;
                nb = bl_blocks(ngroups) < BL_RED_NB ? bl_blocks(ngroups) : BL_RED_NB;
                blas_launch(k_bl_axpy_red_flat<X, Y, K>, nb, true, xd, yd, ngroups, (size_t)nb * GPU_RED_BS, op,
                            c->partial_dev);
            } else {
                int64_t ns = bl_sites_pad(y);
                nb = bl_blocks((uint64_t)ns) < BL_RED_NB ? bl_blocks((uint64_t)ns) : BL_RED_NB;
                blas_launch(k_bl_axpy_red_site<X, Y, K>, nb, true, xd, (const float *)x->norm, yd, y->norm, ns, ncomp,
                            (int64_t)nb * GPU_RED_BS, op, c->partial_dev);
            }
        });
    });
    bl_finish<K>(c, nb, out);
}

static double bl_axpy_norm2(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    double s;
    bl_axpy_reduce<1>((struct bl_blas *)ctx, a, x, y, &s);
    return s;
}

static solver_complex bl_axpy_cdot(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    double s[2];
    bl_axpy_reduce<2>((struct bl_blas *)ctx, a, x, y, s);
    solver_complex r = {s[0], s[1]};
    return r;
}

#endif
