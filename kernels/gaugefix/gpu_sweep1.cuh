/* gaugefix/gpu_sweep1.cuh -- device code: k_sweep, the gauge-fixing sweep
 * with one thread per site (the default of precision 's'; the emulated
 * kernel of scripts/gpu-slab-emulation.cpp).
 *   k_sweep<U, G, UPD, TRACK, BS, MINB><<<ceil((h1-h0)/BS), BS>>>(g, links,
 *       gt, active, p, omega, prob, temp, seed, copy, sweep)
 *     updates the sites of parity p with half index in [g.h0, g.h1) (those
 *     of active timeslices if active != NULL) by gf_site_update, the
 *     transform gt too if TRACK.  Every launch shape computes the same bits.
 * U: the links' gauge_accessor (gpu/accessor.cuh), U::transform the tracked g.
 * Contract: included after gaugefix/gpu_site.cuh, inside the namespace. */
template <class U, int G, int UPD, bool TRACK, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
k_sweep(kgeo g, typename U::store_type *__restrict__ links, typename U::store_type *__restrict__ gt, const unsigned char *__restrict__ active,
        int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep)
{
    int h = g.h0 + blockIdx.x * BS + threadIdx.x;
    if (h >= g.h1) return;
    int x[4];
    int site = decode(g, p, h, x);
    if (active && !active[x[3]]) return; /* a frozen timeslice (Coulomb) */
    typedef typename U::transform T;
    constexpr int NC = U::nc, NN = NC * NC, ND = GF_NDIRS(G);
    link_cx up[4 * NN], dn[4 * NN];
    int hb[4];
    load_site<U, ND>(links, g, p, h, site, x, up, dn, hb);
    const struct gf_params par = kernel_params<G, UPD>(omega, prob, temp);
    struct lat_rng r;
    rng_init(&r, seed, copy, (uint64_t)(site + g.site0), sweep, UPD == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC);
    if (TRACK) {
        link_cx gm[NN];
        typename T::store_type *gb = T::at(gt, g, p, h);
        T::load(gb, gm);
        site_update<NC>(up, dn, gm, &par, &r);
        T::store(gb, gm);
    } else {
        site_update<NC>(up, dn, (link_cx *)NULL, &par, &r);
    }
#pragma unroll
    for (int mu = 0; mu < ND; mu++) {
        U::store(U::at(links, g, p, mu, h), up + mu * NN);
        U::store(U::at(links, g, 1 - p, mu, hb[mu]), dn + mu * NN);
    }
}
