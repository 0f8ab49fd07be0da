/* solvers/blas_gpu_chunks.cuh -- the GPU vector kernels' reductions with a
 * reduction layout (solvers.h's struct solver_reduce_layout: one chunk per
 * global timeslice of a t-slab), included by solvers/blas_gpu.cuh where it
 * needs them (after struct bl_blas, bl_accumulate and bl_with_store, which
 * it uses; not a header of its own).
 *   k_bl_red_chunk<X, Y, K>  the kernel: bl_chunk_pieces(chunk_sites)
 *       blocks per chunk, each a fixed stride of the chunk's sites;
 *   bl_chunk_prepare<K>(c, x)  the chunk grid of x (struct
 *       bl_chunk_grid: chunks, pieces, blocks, slots), buffers grown;
 *   bl_chunk_finish<K>(c, grid, out)  the host's sums after the launch:
 *       per chunk its blocks in order, the chunk sums in their global slots
 *       (blas_cpu.c's slot rule), comm_sum over ranks, the slots added in
 *       global order;
 *   bl_reduce_chunks<K>(c, x, y, out)  prepare, k_bl_red_chunk, finish.
 *   The fused axpy reductions with a layout (blas_gpu_fused.cuh's
 *   k_bl_axpy_red_chunk) use the same grid, prepare and finish.
 *   A chunk's sum depends on its contents and size alone, so R ranks give
 *   one process's bits.  The chunks cover sites 0 .. nsites-1 exactly
 *   (n is a multiple of chunk_reals); padding sites past nsites are never
 *   summed (they are zero). */
#ifndef LAT_SOLVERS_BLAS_GPU_CHUNKS_CUH
#define LAT_SOLVERS_BLAS_GPU_CHUNKS_CUH

/* per chunk (a layout: one chunk per global timeslice): block b adds the
 * sites of piece b % nsub of chunk b / nsub -- thread t the sites t, t +
 * nsub BS, ... of the piece's stride -- so a chunk's partials depend on its
 * contents and size alone, never on where it lies in this rank's vector */
/* the walk itself, once for the plain and the fused (blas_gpu_fused.cuh)
 * chunk reductions: visit(acc, site) for this thread's sites of its chunk
 * piece in that order, then the block's tree into partial[blockIdx.x] */
template <int K, class VISIT>
__device__ __forceinline__ void bl_chunk_walk(int64_t chunk_sites, int nsub, double *partial, const VISIT &visit)
{
    __shared__ double sh[K][GPU_RED_BS];
    double acc[K];
    for (int k = 0; k < K; k++) acc[k] = 0;
    const int64_t first = (int64_t)(blockIdx.x / nsub) * chunk_sites;
    const int64_t step = (int64_t)nsub * GPU_RED_BS;
    for (int64_t i = (int64_t)(blockIdx.x % nsub) * GPU_RED_BS + threadIdx.x; i < chunk_sites; i += step) visit(acc, first + i);
    red_block_sum<K>(sh, acc, partial + (size_t)blockIdx.x * K);
}

/* the plain reduction's site: add x, y of site s */
template <class X, class Y, int K> struct bl_sum_site {
    const X *x;
    const float *xnorm;
    const Y *y;
    const float *ynorm;
    int ncomp;
    __device__ __forceinline__ void operator()(double *acc, int64_t s) const
    {
        bl_site_accumulate<X, Y, K>(acc, x, xnorm, y, ynorm, s, ncomp);
    }
};

template <class X, class Y, int K>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_red_chunk(const X *x, const float *xnorm, const Y *y, const float *ynorm,
                                                             int64_t chunk_sites, int nsub, int ncomp, double *partial)
{
    bl_chunk_walk<K>(chunk_sites, nsub, partial, bl_sum_site<X, Y, K>{x, xnorm, y, ynorm, ncomp});
}

/* the pieces (blocks) of a chunk of chunk_sites sites: fixed by its size
 * alone (so any R gives the same sums), 2 sites a thread and at most 64
 * pieces -- enough blocks for a GPU that holds a few timeslices: lat-hmc
 * 32^3x8 on two H100 (8 chunks of 16384 sites a rank) has 256 blocks
 * instead of 128 with 4 sites a thread and a trajectory 8 % faster
 * (7.22 s against 7.84), one GPU 1.4 % slower (9.83 s against 9.69;
 * session 20, docs/PERFORMANCE.md) */
static int bl_chunk_pieces(int64_t chunk_sites)
{
    int64_t n = (chunk_sites + 2 * GPU_RED_BS - 1) / (2 * GPU_RED_BS);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

/* a vector's chunk grid under the layout: its chunks, their sites and
 * pieces, the blocks of a launch, the global slots */
struct bl_chunk_grid {
    int64_t chunk_sites;   /* sites per chunk */
    size_t nchunk, per_part; /* this rank's chunks, per part */
    int nsub, ncomp;       /* pieces (blocks) per chunk; stored reals per site */
    size_t nb, nslot;      /* blocks of the launch; global slots */
};

/* the grid of x under c's layout (dies when x does not fit it), with the
 * partials' and slots' buffers grown to it for K sums */
template <int K> static bl_chunk_grid bl_chunk_prepare(struct bl_blas *c, const struct solver_vec *x)
{
    const struct solver_reduce_layout *l = &c->layout;
    const size_t m = x->site_reals, parts = l->parts > 1 ? l->parts : 1;
    if (l->chunk_reals % m || x->n % l->chunk_reals || (x->n / l->chunk_reals) % parts ||
        l->first_chunk + x->n / l->chunk_reals / parts > l->total_chunks)
        lat_die(1, "solver_blas_gpu", "internal error: a vector of %zu reals (blocks of %zu) does not fit the reduction "
                "layout (chunks of %zu reals, first %zu of %zu, %zu parts)", x->n, m, l->chunk_reals, l->first_chunk,
                l->total_chunks, parts);
    bl_chunk_grid g;
    g.chunk_sites = (int64_t)(l->chunk_reals / m);
    g.nchunk = x->n / l->chunk_reals;
    g.per_part = g.nchunk / parts;
    g.nsub = bl_chunk_pieces(g.chunk_sites);
    g.ncomp = gpu_spinor_ncomp((int)m);
    g.nb = g.nchunk * (size_t)g.nsub;
    g.nslot = parts * l->total_chunks;
    const size_t need = g.nb * K;
    if (need > c->chunk_cap) {
        gpu_free(c->chunk_dev);
        free(c->chunk_host);
        c->chunk_dev = (double *)blas_dev_alloc(need * sizeof(double));
        c->chunk_host = (double *)malloc(need * sizeof(double));
        if (!c->chunk_dev || !c->chunk_host)
            lat_die(1, "solver_blas_gpu", "out of memory for %zu reduction partials", need);
        c->chunk_cap = need;
    }
    if (g.nslot * K > c->slots_cap) {
        free(c->slots);
        c->slots = (double *)malloc(g.nslot * K * sizeof(double));
        if (!c->slots) lat_die(1, "solver_blas_gpu", "out of memory for %zu reduction slots", g.nslot);
        c->slots_cap = g.nslot * K;
    }
    return g;
}

/* chunk ci's sum k from the chunk partials of a launch: its pieces added
 * in order, into its global slot (blas_cpu.c's slot rule, parts included)
 * -- the host's bl_chunk_finish and the device's multi-shift loop
 * (blas_gpu_multishift.cuh, a thread per chunk sum) */
template <int K>
static __host__ __device__ void bl_chunk_slot(const double *chunk, const bl_chunk_grid &g, const struct solver_reduce_layout &l,
                                              size_t ci, int k, double *slots)
{
    const size_t slot = (ci / g.per_part) * l.total_chunks + l.first_chunk + ci % g.per_part;
    const double *piece = chunk + ci * (size_t)g.nsub * K + k;
    double sum = 0;
    for (int b0 = 0; b0 < g.nsub; b0 += 8) { /* 8 loads in flight (a GPU thread), added in order */
        double v[8];
        for (int j = 0; j < 8; j++) v[j] = b0 + j < g.nsub ? piece[(size_t)(b0 + j) * K] : 0;
        for (int j = 0; j < 8; j++)
            if (b0 + j < g.nsub) sum = bl_add(sum, v[j]);
    }
    slots[slot * K + k] = sum;
}

/* the host's part after a launch of g.nb blocks wrote c->chunk_dev (the
 * one copy of it: bl_reduce_chunks and the fused bl_axpy_reduce_chunks
 * call it): per chunk the pieces' partials added in order, the chunk sums
 * put into their global slots (blas_cpu.c's slot rule, parts included),
 * summed over ranks (comm_sum only adds zeros to a number) and added in
 * global order into out -- R ranks give the bits of one process */
template <int K> static void bl_chunk_finish(struct bl_blas *c, const bl_chunk_grid &g, double *out)
{
    gpu_download(c->chunk_host, c->chunk_dev, g.nb * K * sizeof(double));
    memset(c->slots, 0, g.nslot * K * sizeof(double));
    for (size_t ci = 0; ci < g.nchunk; ci++)
        for (int k = 0; k < K; k++) bl_chunk_slot<K>(c->chunk_host, g, c->layout, ci, k, c->slots);
    if (comm_size() > 1) comm_sum(c->slots, g.nslot * K);
    for (size_t sl = 0; sl < g.nslot; sl++)
        for (int k = 0; k < K; k++) out[k] += c->slots[sl * K + k];
}

/* with a layout: out[k] += the reduction of x (K = 1) or x with y (K = 2) */
template <int K> static void bl_reduce_chunks(struct bl_blas *c, const struct solver_vec *x, const struct solver_vec *y, double *out)
{
    const bl_chunk_grid g = bl_chunk_prepare<K>(c, x);
    bl_with_store(x->prec, [&](auto xt) {
        bl_with_store(y->prec, [&](auto yt) {
            using X = BL_T(xt);
            using Y = typename std::conditional<K == 1, X, BL_T(yt)>::type;
            if constexpr (K == 1 && !std::is_same<X, BL_T(yt)>::value) {
                return;
            } else {
                blas_launch(k_bl_red_chunk<X, Y, K>, (unsigned)g.nb, true, (const X *)x->data, (const float *)x->norm,
                            (const Y *)y->data, (const float *)y->norm, g.chunk_sites, g.nsub, g.ncomp, c->chunk_dev);
            }
        });
    });
    bl_chunk_finish<K>(c, g, out);
}

#endif
