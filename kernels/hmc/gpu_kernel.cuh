/* hmc/gpu_kernel.cuh -- the device code of the GPU HMC (hmc/gpu.h): the
 * kernels themselves, compiled whole by gpu_d.cu and by the host emulation
 * (scripts/hmc-gauge-emulation.cpp, with scripts/cuda-on-host.h).
 *
 * Exported (templates over the links accessor U = gauge_accessor<double, 3,
 * LINK_FULL> of gpu/accessor.cuh; momenta and forces use the same accessor:
 * full 3 x 3 matrices in link slots):
 *   HMC_BS                               threads per block of the site kernels
 *   k_hmc_draw<U>(g, p, seed, traj)      P_mu(x) = hmc_site_momentum of the
 *                                        stream (seed, mu, site0 + x, traj,
 *                                        RNG_MOMENTA) -- momenta.c's stream
 *   k_hmc_update<U>(g, u, p, eps)        U_mu(x) <- exp(eps P_mu(x)) U_mu(x)
 *   k_hmc_force<U>(g, u, c, f)           F_mu(x) += c TA(U_mu(x) A_mu(x)), A
 *                                        the staples of heatbath/link.h
 *                                        (hb_staple_nu, nu = 0..3 in order,
 *                                        as gauge.c) -- c = -coeff beta / 3
 *   k_hmc_add<U>(g, p, eps, f)           P += eps F, element by element
 *   k_hmc_kinetic<U>(g, t0, nsub, p, partials)   block b: the sum over its
 *                                        threads of 1/2 sum_mu |P_mu(x)|_F^2
 *                                        over piece b % nsub of local
 *                                        timeslice t0 + b / nsub
 *   k_hmc_plaquette<U>(g, t0, nsub, u, partials)  the same for the sum of
 *                                        Re tr U_P of the plaquettes at x
 *                                        (obs_site_plaquettes of
 *                                        lattice/observables_site.h)
 * The site kernels: one thread per site j = block * blockDim + thread of
 * the launch range, the half indices [g.h0, g.h1) of both parities (a
 * slab: its owned timeslices; else the whole lattice), j < 2 (h1 - h0) in
 * (parity, half index) order, all four mu; each writes only its own site's
 * matrices (the force reads U, writes F: never the same field).
 * The sums, per timeslice (so that R ranks give one process's bits): a
 * timeslice's 2 V3h sites in (parity, half index) order are cut into nsub
 * pieces (hmc_gpu_pieces: set by V3h alone); thread i of a piece adds the
 * sites i, i + nsub GPU_RED_BS, ... in order, red_block_sum's fixed tree
 * adds the threads; the host adds the pieces and the timeslices in order
 * (gpu.c).
 * Contract: included after gpu/accessor.cuh, gpu/reduce.cuh,
 * lattice/observables_site.h, heatbath/link.h, hmc/site.h and hmc/gpu.h;
 * includes nothing. */
#define HMC_BS 128

/* the site of thread j of a site kernel, or -1 past the end */
__device__ __forceinline__ int hmc_thread_site(const kgeo &g, int *p, int *h, int x[4])
{
    int j = (int)(blockIdx.x * blockDim.x + threadIdx.x), n = g.h1 - g.h0;
    if (j >= 2 * n) return -1;
    *p = j >= n;
    *h = g.h0 + j - *p * n;
    return decode(g, *p, *h, x);
}

template <class U>
__global__ void __launch_bounds__(HMC_BS) k_hmc_draw(kgeo g, double *__restrict__ p, uint64_t seed, uint32_t traj)
{
    int par, h, x[4];
    int site = hmc_thread_site(g, &par, &h, x);
    if (site < 0) return;
    for (int mu = 0; mu < 4; mu++) {
        struct lat_rng r;
        rng_init(&r, seed, (uint32_t)mu, (uint64_t)(g.site0 + site), traj, RNG_MOMENTA);
        lat_complex m[9];
        hmc_site_momentum(3, &r, m);
        U::store(U::at(p, g, par, mu, h), m);
    }
}

template <class U>
__global__ void __launch_bounds__(HMC_BS) k_hmc_update(kgeo g, double *__restrict__ u, const double *__restrict__ p, double eps)
{
    int par, h, x[4];
    if (hmc_thread_site(g, &par, &h, x) < 0) return;
    for (int mu = 0; mu < 4; mu++) {
        lat_complex pm[9], l[9];
        U::load(U::at((double *)p, g, par, mu, h), pm);
        U::load(U::at(u, g, par, mu, h), l);
        hmc_site_link_update(3, eps, pm, l);
        U::store(U::at(u, g, par, mu, h), l);
    }
}

template <class U>
__global__ void __launch_bounds__(HMC_BS) k_hmc_force(kgeo g, const double *__restrict__ u, double c, double *__restrict__ f)
{
    int par, h, x[4];
    int site = hmc_thread_site(g, &par, &h, x);
    if (site < 0) return;
    double *ul = (double *)u;
    for (int mu = 0; mu < 4; mu++) {
        int xpm = neighbour(g, site, x, mu, +1);
        int y[4] = {x[0], x[1], x[2], x[3]}; /* coordinates of x + mu */
        y[mu] = (y[mu] + 1) % g.L[mu];
        lat_complex A[9], l[6][9];
        sun_zero(3, A);
        for (int nu = 0; nu < 4; nu++) {
            if (nu == mu) continue;
            int xpn = neighbour(g, site, x, nu, +1), xmn = neighbour(g, site, x, nu, -1);
            int xpmmn = neighbour(g, xpm, y, nu, -1);
            /* x +- nu and x + mu are of the other parity, x + mu - nu of this one */
            U::load(U::at(ul, g, 1 - par, nu, xpm >> 1), l[0]);
            U::load(U::at(ul, g, 1 - par, mu, xpn >> 1), l[1]);
            U::load(U::at(ul, g, par, nu, h), l[2]);
            U::load(U::at(ul, g, par, nu, xpmmn >> 1), l[3]);
            U::load(U::at(ul, g, 1 - par, mu, xmn >> 1), l[4]);
            U::load(U::at(ul, g, 1 - par, nu, xmn >> 1), l[5]);
            hb_staple_nu(3, A, l[0], l[1], l[2], l[3], l[4], l[5]);
        }
        lat_complex um[9], fm[9];
        U::load(U::at(ul, g, par, mu, h), um);
        U::load(U::at(f, g, par, mu, h), fm);
        hmc_site_gauge_force(3, c, um, A, fm);
        U::store(U::at(f, g, par, mu, h), fm);
    }
}

template <class U>
__global__ void __launch_bounds__(HMC_BS) k_hmc_add(kgeo g, double *__restrict__ p, double eps, const double *__restrict__ f)
{
    int par, h, x[4];
    if (hmc_thread_site(g, &par, &h, x) < 0) return;
    for (int mu = 0; mu < 4; mu++) {
        lat_complex pm[9], fm[9];
        U::load(U::at(p, g, par, mu, h), pm);
        U::load(U::at((double *)f, g, par, mu, h), fm);
        for (int i = 0; i < 9; i++) {
            pm[i].re += eps * fm[i].re;
            pm[i].im += eps * fm[i].im;
        }
        U::store(U::at(p, g, par, mu, h), pm);
    }
}

/* site i of piece `piece` of local timeslice t's sites in (parity, half
 * index) order, while inside the timeslice: its parity and half index */
__device__ __forceinline__ bool hmc_slice_site(const kgeo &g, int t, int i, int *p, int *h)
{
    if (i >= 2 * g.V3h) return false;
    *p = i >= g.V3h;
    *h = t * g.V3h + i - *p * g.V3h;
    return true;
}

template <class U>
__global__ void __launch_bounds__(GPU_RED_BS) k_hmc_kinetic(kgeo g, int t0, int nsub, const double *__restrict__ p,
                                                             double *partials)
{
    __shared__ double sh[1][GPU_RED_BS];
    double v[1] = {0};
    const int t = t0 + (int)blockIdx.x / nsub;
    int par, h;
    for (int i = ((int)blockIdx.x % nsub) * GPU_RED_BS + (int)threadIdx.x; hmc_slice_site(g, t, i, &par, &h);
         i += nsub * GPU_RED_BS) {
        for (int mu = 0; mu < 4; mu++) {
            lat_complex pm[9];
            U::load(U::at((double *)p, g, par, mu, h), pm);
            v[0] += hmc_site_kinetic(3, pm); /* hmc/site.h: the CPU's formula */
        }
    }
    red_block_sum<1>(sh, v, partials + blockIdx.x);
}

template <class U>
__global__ void __launch_bounds__(GPU_RED_BS) k_hmc_plaquette(kgeo g, int t0, int nsub, const double *__restrict__ u,
                                                               double *partials)
{
    __shared__ double sh[1][GPU_RED_BS];
    double v[1] = {0};
    const int t = t0 + (int)blockIdx.x / nsub;
    double *ul = (double *)u;
    int par, h;
    for (int i = ((int)blockIdx.x % nsub) * GPU_RED_BS + (int)threadIdx.x; hmc_slice_site(g, t, i, &par, &h);
         i += nsub * GPU_RED_BS) {
        int x[4];
        int site = decode(g, par, h, x);
        lat_complex l[4 * 9], nb[16 * 9]; /* nb + (4 mu + nu) 9: U_nu(x + mu) */
        const lat_complex *up[4], *fw[4][4];
        for (int mu = 0; mu < 4; mu++) {
            U::load(U::at(ul, g, par, mu, h), l + mu * 9);
            up[mu] = l + mu * 9;
        }
        for (int mu = 0; mu < 4; mu++) {
            int hm = neighbour(g, site, x, mu, +1) >> 1; /* the other parity */
            for (int nu = 0; nu < 4; nu++) {
                fw[mu][nu] = nb + (4 * mu + nu) * 9;
                if (nu != mu) U::load(U::at(ul, g, 1 - par, nu, hm), nb + (4 * mu + nu) * 9);
            }
        }
        double ps, pt;
        obs_site_plaquettes(3, up, fw, &ps, &pt);
        v[0] += ps + pt; /* spatial + temporal plaquettes */
    }
    red_block_sum<1>(sh, v, partials + blockIdx.x);
}
