/* heatbath/gpu_link.cuh -- device code: the heatbath kernel.
 *   k_link<U, MU, HB, L1, BS, MINB><<<ceil((h1-h0)/BS), BS>>>(g, links, p, mu, beta_n, seed, k)
 *     updates U_mu(x) of every site x of parity p with half index in
 *     [g.h0, g.h1): heatbath (HB, stream rng_init(seed, 0, x, 4k+mu,
 *     RNG_HEATBATH)) or overrelaxation; L1: staple links through __ldg.
 *     mu = MU when MU >= 0 (a template constant: SU(2), SU(3), SU(4)), else
 *     the argument mu (generic N >= 5: one kernel for the four directions).
 *     BS threads per block, MINB blocks per SM asked of the register
 *     allocator (__launch_bounds__; 1: no cap below the hardware's).
 * U: the links' gauge_accessor (gpu/accessor.cuh), whose NC picks the
 * instantiation: N <= HB_UNROLL_MAX_NC (link.h) unrolls the loop over the
 * staple directions nu and the subgroup loop, larger N keeps both rolled
 * (N x N matrices of N >= 5 live in local memory; unrolling would only
 * grow the code and the compile time).
 * Memory traffic of one link update (what bench/heatbath_gpu.c counts):
 * 18 staple links loaded (6 per nu != mu) and the link itself loaded and
 * stored: 20 links of ncomp stored reals (12 for SU(3), 2N^2 otherwise,
 * rounded up to 16 bytes).
 * Contract: included inside a per-precision namespace after gpu/accessor.cuh
 * and heatbath/link.h.  No launches: the host emulation includes it whole. */
template <class U, int MU, bool HB, bool L1, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
k_link(kgeo g, typename U::store_type *__restrict__ links, int p, int mu_arg, double beta_n, uint64_t seed,
       uint32_t k)
{
    constexpr int NC = U::nc, NN = NC * NC;
    constexpr int NU_UNROLL = NC <= HB_UNROLL_MAX_NC ? 4 : 1; /* a macro is not expanded inside the pragma */
    const int mu = MU >= 0 ? MU : mu_arg;
    int h = g.h0 + blockIdx.x * BS + threadIdx.x;
    if (h >= g.h1) return;
    int x[4];
    int site = decode(g, p, h, x);
    int xpm = neighbour(g, site, x, mu, +1);
    lat_complex A[NN];
    sun_zero(NC, A);
#pragma unroll(NU_UNROLL)
    for (int nu = 0; nu < 4; nu++) {
        if (nu == mu) continue;
        int xpn = neighbour(g, site, x, nu, +1), xmn = neighbour(g, site, x, nu, -1);
        int xpmmn = neighbour(g, xpm, x, nu, -1); /* x+mu-nu: x and x+mu share coordinate nu */
        lat_complex un_xpm[NN], um_xpn[NN], un_x[NN], un_xpmmn[NN], um_xmn[NN], un_xmn[NN];
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, nu, xpm >> 1), un_xpm);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, mu, xpn >> 1), um_xpn);
        U::template load<lat_complex, L1>(U::at(links, g, p, nu, h), un_x);
        U::template load<lat_complex, L1>(U::at(links, g, p, nu, xpmmn >> 1), un_xpmmn);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, mu, xmn >> 1), um_xmn);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, nu, xmn >> 1), un_xmn);
        hb_staple_nu(NC, A, un_xpm, um_xpn, un_x, un_xpmmn, um_xmn, un_xmn);
    }
    typename U::store_type *ub = U::at(links, g, p, mu, h);
    lat_complex Ul[NN];
    U::template load<lat_complex, false>(ub, Ul); /* written below: not through L1 */
    if (HB) {
        struct lat_rng r;
        rng_init(&r, seed, 0, (uint64_t)(site + g.site0), 4 * k + (uint32_t)mu, RNG_HEATBATH);
        hb_link_heatbath(NC, Ul, A, beta_n, &r);
    } else {
        hb_link_overrelax(NC, Ul, A);
    }
    U::store(ub, Ul);
}
