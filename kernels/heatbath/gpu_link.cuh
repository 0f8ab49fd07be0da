/* heatbath/gpu_link.cuh -- device code: the heatbath kernel.
 *   k_link<U, MU, HB, L1, BS><<<ceil((h1-h0)/BS), BS>>>(g, links, p, beta_n, seed, k)
 *     updates U_MU(x) of every site x of parity p with half index in
 *     [g.h0, g.h1): heatbath (HB, stream rng_init(seed, 0, x, 4k+MU,
 *     RNG_HEATBATH)) or overrelaxation; L1: staple links through __ldg.
 * U: the links' gauge_accessor (gpu/accessor.cuh).
 * Contract: included inside a per-precision namespace after gpu/accessor.cuh
 * and heatbath/link.h.  No launches: the host emulation includes it whole. */
/* update U_MU(x) for the site x of parity p at half index h */
template <class U, int MU, bool HB, bool L1, int BS>
__global__ void __launch_bounds__(BS)
k_link(kgeo g, typename U::store_type *__restrict__ links, int p, double beta_n, uint64_t seed, uint32_t k)
{
    constexpr int NC = U::nc, NN = NC * NC;
    int h = g.h0 + blockIdx.x * BS + threadIdx.x;
    if (h >= g.h1) return;
    int x[4];
    int site = decode(g, p, h, x);
    int xpm = neighbour(g, site, x, MU, +1);
    lat_complex A[NN];
    sun_zero(NC, A);
#pragma unroll
    for (int nu = 0; nu < 4; nu++) {
        if (nu == MU) continue;
        int xpn = neighbour(g, site, x, nu, +1), xmn = neighbour(g, site, x, nu, -1);
        int xpmmn = neighbour(g, xpm, x, nu, -1); /* x+mu-nu: x and x+mu share coordinate nu */
        lat_complex un_xpm[NN], um_xpn[NN], un_x[NN], un_xpmmn[NN], um_xmn[NN], un_xmn[NN];
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, nu, xpm >> 1), un_xpm);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, MU, xpn >> 1), um_xpn);
        U::template load<lat_complex, L1>(U::at(links, g, p, nu, h), un_x);
        U::template load<lat_complex, L1>(U::at(links, g, p, nu, xpmmn >> 1), un_xpmmn);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, MU, xmn >> 1), um_xmn);
        U::template load<lat_complex, L1>(U::at(links, g, 1 - p, nu, xmn >> 1), un_xmn);
        hb_staple_nu(NC, A, un_xpm, um_xpn, un_x, un_xpmmn, um_xmn, un_xmn);
    }
    typename U::store_type *ub = U::at(links, g, p, MU, h);
    lat_complex Ul[NN];
    U::template load<lat_complex, false>(ub, Ul); /* written below: not through L1 */
    if (HB) {
        struct lat_rng r;
        rng_init(&r, seed, 0, (uint64_t)(site + g.site0), 4 * k + (uint32_t)MU, RNG_HEATBATH);
        hb_link_heatbath(NC, Ul, A, beta_n, &r);
    } else {
        hb_link_overrelax(NC, Ul, A);
    }
    U::store(ub, Ul);
}
