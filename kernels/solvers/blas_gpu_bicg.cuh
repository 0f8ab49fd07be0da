/* solvers/blas_gpu_bicg.cuh -- BiCGstab's fused GPU vector kernels (the
 * optional members cdot_norm2, caxpby_norm2_cdot and caxpby2 of struct
 * solver_blas) and their host code; included by blas_gpu.cuh after
 * blas_gpu_fused.cuh (whose bl_axpy_site it uses) and before its table, so
 * nvcc and the host emulation compile this very text.
 * Exported (to blas_gpu.cuh): bl_cdot_norm2, bl_caxpby_norm2_cdot,
 * bl_caxpby2.
 *
 * Why: a BiCGstab iteration made 6 caxpby, 3 cdot and 2 norm2 (11 vector
 * launches, 5 host waits; measured on an H100 at 32^3x64 Wilson-clover
 * even-odd: the vector kernels 1.37 of 2.29 ms an iteration); with these it
 * makes 6 launches and 3 waits, and 19 instead of 26 vector passes (reads
 * and writes).
 * Each gives the bits of the unfused sequence it replaces (solvers.h):
 *   - cdot_norm2 (<x, y>, |x|^2) and caxpby_norm2_cdot (y = a x + b y,
 *     |y|^2, <z, y>): three sums in one launch on the grid the unfused
 *     reduction takes for the vector (min(ceil(work / GPU_RED_BS),
 *     BL_RED_NB) blocks; with a layout blas_gpu_chunks.cuh's chunk grid),
 *     each sum with its own accumulator, added per item exactly as the
 *     unfused cdot and norm2 add it (bl_accumulate<2> and <1>, the same
 *     stride order), each of the three in reduce.cuh's tree (red_block_sum
 *     <3> runs the K = 1 and K = 2 trees side by side), the host adding
 *     the block partials (bl_finish) or chunks and slots (bl_chunk_finish)
 *     per sum in the unfused order.  caxpby_norm2_cdot first updates each
 *     item it then sums with caxpby's item code (bl_axpy_site: the flat
 *     bl_flat_item per group, bl_site_item for half), reading back what it
 *     stored; with a layout block 0 also updates the padding sites no chunk
 *     holds (as blas_gpu_fused.cuh's axpy reductions do).
 *   - caxpby2 (y = a1 x1 + b1 y, then y = a2 x2 + b2 y): one launch, per
 *     item the two caxpby items in order; flat: the first result rounded to
 *     y's storage in registers (bl_as_stored: what a store and a reload
 *     give), per site (an operand half): the two bl_site_item calls, the
 *     second reading back the first's store (half: its new norm).
 * Kernels exist for BiCGstab's precision sets only (compile time): the
 * reductions on x, y (and z) of one precision (the sloppy r, r0, t);
 * caxpby2 with x1, x2 of one precision and y of theirs or, for half x's,
 * single (x += alpha p + omega s: x accumulates in single for half sloppy;
 * p = r + beta (p - omega v)): d->d, s->s, h->s, h->h.  Any other set runs
 * as the unfused calls (the same bits). */
#ifndef LAT_SOLVERS_BLAS_GPU_BICG_CUH
#define LAT_SOLVERS_BLAS_GPU_BICG_CUH

/* the values a flat group of y (double or single) reads back as once
 * stored: bl_store's conversion, bl_load's widening */
template <class Y> static __device__ __forceinline__ bl_g bl_as_stored(const Y *y, const bl_g &g)
{
    return bl_dec(bl_enc(y, g, 1.0), 1.0);
}

/* ---- caxpby2: y = op1(x1, y), then y = op2(x2, y) ----------------------- */
template <class X, class Y>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_caxpby2_flat(const X *x1, const X *x2, Y *y, size_t ngroups, bl_op_complex op1, bl_op_complex op2)
{
    const size_t i = (size_t)blockIdx.x * GPU_RED_BS + threadIdx.x;
    if (i >= ngroups) return;
    const bl_g y1 = bl_as_stored(y, op1(bl_load(x1, 4 * i, 1.0), bl_load(y, 4 * i, 1.0)));
    bl_store(y, 4 * i, op2(bl_load(x2, 4 * i, 1.0), y1));
}
template <class X, class Y>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_caxpby2_site(const X *x1, const float *x1norm, const X *x2, const float *x2norm, Y *y, float *ynorm,
                      int64_t nsites_pad, int ncomp, bl_op_complex op1, bl_op_complex op2)
{
    const int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x;
    if (s >= nsites_pad) return;
    bl_site_item(x1, x1norm, y, ynorm, s, ncomp, op1);
    bl_site_item(x2, x2norm, y, ynorm, s, ncomp, op2);
}

static void bl_caxpby2(void *ctx, solver_complex a1, const struct solver_vec *x1, solver_complex b1, solver_complex a2,
                       const struct solver_vec *x2, solver_complex b2, struct solver_vec *y)
{
    (void)ctx;
    solver_caxpby2_check(x1, x2, y, "solver_blas_gpu caxpby2");
    const bl_op_complex op1 = {a1.re, a1.im, b1.re, b1.im}, op2 = {a2.re, a2.im, b2.re, b2.im}; /* caxpby's */
    const enum solver_prec px = x1->prec, py = y->prec;
    if (x2->prec != px || !(py == px || (px == SOLVER_HALF && py == SOLVER_SINGLE))) { /* no kernel: unfused */
        bl_elementwise(x1, y, op1, "solver_blas_gpu caxpby2");
        bl_elementwise(x2, y, op2, "solver_blas_gpu caxpby2");
        return;
    }
    if (y->n == 0) return;
    const size_t ngroups = bl_stored(y) / GPU_SPINOR_GROUP;
    const int64_t ns = bl_sites_pad(y);
    const int ncomp = gpu_spinor_ncomp((int)y->site_reals);
    if (px == SOLVER_DOUBLE)
        blas_launch(k_bl_caxpby2_flat<double, double>, bl_blocks(ngroups), false, (const double *)x1->data,
                    (const double *)x2->data, (double *)y->data, ngroups, op1, op2);
    else if (px == SOLVER_SINGLE)
        blas_launch(k_bl_caxpby2_flat<float, float>, bl_blocks(ngroups), false, (const float *)x1->data,
                    (const float *)x2->data, (float *)y->data, ngroups, op1, op2);
    else if (py == SOLVER_SINGLE)
        blas_launch(k_bl_caxpby2_site<int16_t, float>, bl_blocks((uint64_t)ns), false, (const int16_t *)x1->data,
                    (const float *)x1->norm, (const int16_t *)x2->data, (const float *)x2->norm, (float *)y->data,
                    y->norm, ns, ncomp, op1, op2);
    else
        blas_launch(k_bl_caxpby2_site<int16_t, int16_t>, bl_blocks((uint64_t)ns), false, (const int16_t *)x1->data,
                    (const float *)x1->norm, (const int16_t *)x2->data, (const float *)x2->norm, (int16_t *)y->data,
                    y->norm, ns, ncomp, op1, op2);
}

/* ---- three sums: acc[0], acc[1] = sum conj(u) v; acc[2] = |u|^2 (UPD
 * false: cdot_norm2, u = x, v = y) or |v|^2 (UPD true: caxpby_norm2_cdot,
 * u = z, v = y after y = op(w, y)) ------------------------------------------ */
template <bool UPD> static __device__ __forceinline__ void bl_sum3(double *acc, const bl_g &u, const bl_g &v)
{
    bl_accumulate<2>(acc, u, v); /* cdot's */
    if (UPD) bl_accumulate<1>(acc + 2, v, v); /* norm2's */
    else bl_accumulate<1>(acc + 2, u, u);
}

/* site s: (UPD) y = op(w, y) with the unfused caxpby's item code for the
 * storage, then its groups as bl_site_accumulate reads them */
template <class X, bool UPD>
static __device__ __forceinline__ void bl_sum3_site(double *acc, const X *u, const float *unorm, X *v, float *vnorm, const X *w,
                                                    const float *wnorm, int64_t s, int ncomp, const bl_op_complex &op)
{
    if constexpr (UPD) bl_axpy_site(w, wnorm, v, vnorm, s, ncomp, op);
    const double us = bl_site_scale<X>(unorm, s), vs = bl_site_scale<X>(vnorm, s);
    for (int c = 0; c < ncomp; c += 4) {
        const size_t e = gpu_spinor_index(ncomp, c, s);
        bl_sum3<UPD>(acc, bl_load(u, e, us), bl_load(v, e, vs));
    }
}

template <class X, bool UPD>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_sum3_flat(const X *u, X *v, const X *w, size_t ngroups, size_t stride, bl_op_complex op, double *partial)
{
    __shared__ double sh[3][GPU_RED_BS];
    double acc[3] = {0, 0, 0};
    for (size_t i = (size_t)blockIdx.x * GPU_RED_BS + threadIdx.x; i < ngroups; i += stride) {
        if constexpr (UPD) bl_flat_item(w, v, i, op);
        bl_sum3<UPD>(acc, bl_load(u, 4 * i, 1.0), bl_load(v, 4 * i, 1.0)); /* v as stored */
    }
    red_block_sum<3>(sh, acc, partial + (size_t)blockIdx.x * 3);
}

template <class X, bool UPD>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_sum3_site(const X *u, const float *unorm, X *v, float *vnorm, const X *w, const float *wnorm, int64_t nsites_pad,
                   int ncomp, int64_t stride, bl_op_complex op, double *partial)
{
    __shared__ double sh[3][GPU_RED_BS];
    double acc[3] = {0, 0, 0};
    for (int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x; s < nsites_pad; s += stride)
        bl_sum3_site<X, UPD>(acc, u, unorm, v, vnorm, w, wnorm, s, ncomp, op);
    red_block_sum<3>(sh, acc, partial + (size_t)blockIdx.x * 3);
}

/* with a layout: k_bl_red_chunk's walk (bl_chunk_walk), block 0 also
 * updating (UPD) the padding sites past nsites that no chunk holds */
template <class X, bool UPD> struct bl_sum3_visit {
    const X *u;
    const float *unorm;
    X *v;
    float *vnorm;
    const X *w;
    const float *wnorm;
    int ncomp;
    bl_op_complex op;
    __device__ __forceinline__ void operator()(double *acc, int64_t s) const
    {
        bl_sum3_site<X, UPD>(acc, u, unorm, v, vnorm, w, wnorm, s, ncomp, op);
    }
};
template <class X, bool UPD>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_sum3_chunk(const X *u, const float *unorm, X *v, float *vnorm, const X *w, const float *wnorm, int64_t chunk_sites,
                    int nsub, int ncomp, int64_t nsites, int64_t nsites_pad, bl_op_complex op, double *partial)
{
    if constexpr (UPD) {
        if (blockIdx.x == 0) /* the padding sites: updated as the unfused caxpby does, never summed */
            for (int64_t s = nsites + threadIdx.x; s < nsites_pad; s += GPU_RED_BS) bl_axpy_site(w, wnorm, v, vnorm, s, ncomp, op);
    }
    bl_chunk_walk<3>(chunk_sites, nsub, partial, bl_sum3_visit<X, UPD>{u, unorm, v, vnorm, w, wnorm, ncomp, op});
}

/* out[0..2]: the three sums of u, v (one precision; UPD: v = op(w, v)
 * first, w of that precision too) on the grid the unfused reduction of u
 * takes, or the layout's chunk grid */
template <bool UPD>
static void bl_sum3_reduce(struct bl_blas *c, const struct solver_vec *u, struct solver_vec *v, const struct solver_vec *w,
                           const bl_op_complex &op, double *out)
{
    out[0] = out[1] = out[2] = 0;
    if (v->n == 0) return;
    const int ncomp = gpu_spinor_ncomp((int)v->site_reals);
    const bool chunks = c->layout.chunk_reals != 0;
    bl_chunk_grid g = {};
    if (chunks) g = bl_chunk_prepare<3>(c, u);
    unsigned nb = 0;
    bl_with_store(u->prec, [&](auto t) {
        using X = BL_T(t);
        const X *ud = (const X *)u->data, *wd = w ? (const X *)w->data : NULL;
        X *vd = (X *)v->data;
        const float *wn = w ? (const float *)w->norm : NULL;
        if (chunks) {
            blas_launch(k_bl_sum3_chunk<X, UPD>, (unsigned)g.nb, true, ud, (const float *)u->norm, vd, v->norm, wd, wn,
                        g.chunk_sites, g.nsub, g.ncomp, bl_nsites(v), bl_sites_pad(v), op, c->chunk_dev);
        } else if constexpr (!bl_is_half<X>::value) {
            const size_t ngroups = bl_stored(u) / GPU_SPINOR_GROUP;
            nb = bl_blocks(ngroups) < BL_RED_NB ? bl_blocks(ngroups) : BL_RED_NB;
            blas_launch(k_bl_sum3_flat<X, UPD>, nb, true, ud, vd, wd, ngroups, (size_t)nb * GPU_RED_BS, op, c->partial_dev);
        } else {
            const int64_t ns = bl_sites_pad(u);
            nb = bl_blocks((uint64_t)ns) < BL_RED_NB ? bl_blocks((uint64_t)ns) : BL_RED_NB;
            blas_launch(k_bl_sum3_site<X, UPD>, nb, true, ud, (const float *)u->norm, vd, v->norm, wd, wn, ns, ncomp,
                        (int64_t)nb * GPU_RED_BS, op, c->partial_dev);
        }
    });
    if (chunks) bl_chunk_finish<3>(c, g, out);
    else bl_finish<3>(c, nb, out);
}

static solver_complex bl_cdot_norm2(void *ctx, const struct solver_vec *x, const struct solver_vec *y, double *xx)
{
    struct bl_blas *c = (struct bl_blas *)ctx;
    solver_vec_same_shape(x, y, "solver_blas_gpu cdot_norm2");
    double s[3];
    if (x->prec != y->prec) { /* no kernel for the pair: the unfused calls */
        bl_reduce<1>(c, x, x, &s[2]);
        bl_reduce<2>(c, x, y, s);
    } else {
        bl_sum3_reduce<false>(c, x, (struct solver_vec *)y, NULL, bl_op_complex{0, 0, 0, 0}, s); /* y only read */
    }
    *xx = s[2];
    solver_complex r = {s[0], s[1]};
    return r;
}

static double bl_caxpby_norm2_cdot(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b,
                                   struct solver_vec *y, const struct solver_vec *z, solver_complex *zy)
{
    struct bl_blas *c = (struct bl_blas *)ctx;
    solver_vec_same_shape(x, y, "solver_blas_gpu caxpby_norm2_cdot");
    solver_vec_same_shape(z, y, "solver_blas_gpu caxpby_norm2_cdot");
    if (y == x || y == z) lat_die(1, "solver_blas_gpu caxpby_norm2_cdot", "y is also x or z");
    const bl_op_complex op = {a.re, a.im, b.re, b.im}; /* caxpby's */
    double s[3];
    if (x->prec != y->prec || z->prec != y->prec) { /* no kernel for the set: the unfused calls */
        bl_elementwise(x, y, op, "solver_blas_gpu caxpby_norm2_cdot");
        bl_reduce<1>(c, y, y, &s[2]);
        bl_reduce<2>(c, z, y, s);
    } else {
        bl_sum3_reduce<true>(c, z, y, x, op, s);
    }
    zy->re = s[0], zy->im = s[1];
    return s[2];
}

#endif
