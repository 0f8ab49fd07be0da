/* gaugefix/gpu_reduce.cuh -- device code: the deterministic reductions and
 * the reprojection of the gauge-fixing backend.
 *   (the block sums are gpu/reduce.cuh's red_block_sum, one tree for every reduction)
 *   k_quality<U, G><<<(RED_NB, Lt), RED_BS>>>(g, links, partials)
 *       per timeslice and block: sum F and theta (gf_site_functional/_theta)
 *   k_reunitarize<U><<<(ceil(Vh/RED_BS), 8 or 10), RED_BS>>>(g, links, gt)
 *       every link (and the transform, if gt) projected onto SU(N)
 * U: the links' gauge_accessor (gpu/accessor.cuh).
 * Contract: included after gaugefix/gpu_site.cuh, inside the namespace. */
/* ---- deterministic reductions --------------------------------------------
 * RED_BS threads per block, a grid fixed by the lattice alone; each thread
 * sums its sites in a fixed order, the block adds its threads as a tree in
 * shared memory, the host adds the blocks in order. */
#define RED_BS GPU_RED_BS /* the GPU layer's reductions (gpu/reduce.cuh, included by the includer first) */
#define RED_NB 32 /* blocks per timeslice (quality) */

template <class U, int G>
__global__ void __launch_bounds__(RED_BS) k_quality(kgeo g, const typename U::store_type *__restrict__ links, double *partials)
{
    constexpr int NC = U::nc;
    __shared__ double sh[2][RED_BS];
    int t = blockIdx.y;
    double v[2] = {0, 0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < 2 * g.V3h; j += RED_NB * RED_BS) {
        int p = j >= g.V3h;
        int h = t * g.V3h + j - p * g.V3h;
        int x[4], hb[4];
        int site = decode(g, p, h, x);
        lat_complex up[4 * NC * NC], dn[4 * NC * NC];
        load_site<U, GF_NDIRS(G)>(links, g, p, h, site, x, up, dn, hb);
        v[0] += (double)gf_site_functional(NC, (enum gauge_kind)G, up);
        v[1] += (double)gf_site_theta(NC, (enum gauge_kind)G, up, dn);
    }
    red_block_sum<2>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x) * 2);
}

/* ---- reprojection onto SU(N) -------------------------------------------- */
template <class U>
__global__ void __launch_bounds__(RED_BS)
k_reunitarize(kgeo g, typename U::store_type *__restrict__ links, typename U::store_type *__restrict__ gt)
{
    typedef typename U::transform T;
    constexpr int NC = U::nc, NN = NC * NC;
    int h = blockIdx.x * RED_BS + threadIdx.x;
    if (h >= g.Vh) return;
    int p = blockIdx.y & 1, mu = blockIdx.y >> 1; /* mu = 4: the transform */
    lat_complex m[NN];
    if (mu < 4) {
        typename U::store_type *b = U::at(links, g, p, mu, h);
        U::load(b, m);
        sun_reunitarize(NC, m);
        U::store(b, m);
    } else if (gt) {
        typename U::store_type *b = T::at(gt, g, p, h);
        T::load(b, m);
        sun_reunitarize(NC, m);
        T::store(b, m);
    }
}
