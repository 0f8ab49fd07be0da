/* gpu/observables.cuh -- the per-thread work of the observables kernel
 * (observables.cu), apart so that the host emulation
 * (scripts/gpu-slab-emulation.cpp) runs the same text.
 *
 * Exported (templates, __device__; U a gauge_accessor of gpu/accessor.cuh):
 *   OBS_NB   blocks of the observables grid (fixed: 512)
 *   obs_thread<U>(g, links, j, v, m)  thread j (= block*GPU_RED_BS + lane)
 *       of the grid: sites 2*Vh in the order (parity, half index), j, j +
 *       OBS_NB*GPU_RED_BS, ...; per site the formulas of
 *       lattice/observables_site.h: v[0] += spatial plaquettes, v[1] +=
 *       temporal, v[2] += link trace, v[3] += sum ||U^dag U - 1||, v[4] +=
 *       sum |det U - 1|; m[0], m[1] the NaN-propagating maxima of the two.
 *   obs_poly_thread<U>(g, links, j, v)  the spatial sites s3 = j, j +
 *       OBS_NB*GPU_RED_BS, ...: v[0..1] += tr prod_t U_t(s3, t) (t in order).
 * Contract: included after gpu/accessor.cuh (kgeo, the accessors, decode,
 * neighbour), lattice/observables_site.h and gpu/reduce.cuh; includes
 * nothing. */
#define OBS_NB 512

template <class U>
__device__ __forceinline__ void obs_thread(const kgeo &g, const typename U::store_type *links, int j, double v[5], double m[2])
{
    typedef typename U::store_type S;
    constexpr int NC = U::nc, NN = NC * NC;
    for (; j < 2 * g.Vh; j += OBS_NB * GPU_RED_BS) {
        int p = j >= g.Vh;
        int h = j - p * g.Vh;
        int x[4];
        int site = decode(g, p, h, x);
        lat_complex u[4 * NN], nb[16 * NN]; /* nb + (4 mu + nu) NN: U_nu(x + mu) */
        const lat_complex *up[4], *fw[4][4];
#pragma unroll
        for (int mu = 0; mu < 4; mu++) {
            U::load(U::at((S *)links, g, p, mu, h), u + mu * NN);
            up[mu] = u + mu * NN;
        }
#pragma unroll
        for (int mu = 0; mu < 4; mu++) {
            int hm = neighbour(g, site, x, mu, +1) >> 1;
#pragma unroll
            for (int nu = 0; nu < 4; nu++) {
                fw[mu][nu] = nb + (4 * mu + nu) * NN;
                if (nu != mu) U::load(U::at((S *)links, g, 1 - p, nu, hm), nb + (4 * mu + nu) * NN);
            }
        }
        double ps, pt;
        obs_site_plaquettes(NC, up, fw, &ps, &pt);
        v[0] += ps;
        v[1] += pt;
        v[2] += obs_site_link_trace(NC, up);
        double us = 0, ds = 0;
#pragma unroll
        for (int mu = 0; mu < 4; mu++) {
            double du, dd;
            obs_link_unitarity(NC, up[mu], &du, &dd);
            m[0] = obs_max_nan(m[0], du);
            m[1] = obs_max_nan(m[1], dd);
            us += du;
            ds += dd;
        }
        v[3] += us;
        v[4] += ds;
    }
}

template <class U>
__device__ __forceinline__ void obs_poly_thread(const kgeo &g, const typename U::store_type *links, int j, double v[2])
{
    typedef typename U::store_type S;
    constexpr int NC = U::nc, NN = NC * NC;
    const int v3 = 2 * g.V3h;
    for (int s3 = j; s3 < v3; s3 += OBS_NB * GPU_RED_BS) {
        lat_complex pm[NN], u[NN];
        int q = s3 % g.L[0] + (s3 / g.s[1]) % g.L[1] + s3 / g.s[2]; /* x + y + z */
        for (int t = 0; t < g.L[3]; t++) {
            int site = s3 + t * g.s[3];
            U::load(U::at((S *)links, g, (q + t) & 1, 3, site >> 1), u);
            if (t == 0) obs_polyakov_start(NC, pm, u);
            else obs_polyakov_mul(NC, pm, u);
        }
        lat_complex tr = sun_trace(NC, pm);
        v[0] += (double)tr.re;
        v[1] += (double)tr.im;
    }
}
