/* hmc/staggered_monomial_gpu_kernel.cuh -- the device code of the staggered
 * monomial's device path (staggered_monomial_gpu.c): compiled by nvcc
 * (staggered_monomial_gpu_d.cu) and, whole, by g++ for the host emulation
 * (scripts/hmc-stag-emulation.cpp, scripts/cuda-on-host.h).  The includer
 * first includes (LAT_REAL double, STAG_MONO_NC_MAX and STAGGERED_NC_MAX 3)
 * hmc/staggered_monomial_site.h, dirac/staggered_site.h, gpu/spinor.h and
 * hmc/staggered_monomial_impl.h, then, inside its namespace,
 * gpu/accessor.cuh and this file.
 *
 * Vectors: gpu/spinor.h's layout, 6 reals a site (ncomp 8), double; an
 * even half field at sites 0..V/2-1, the normal view's [even | odd] vectors
 * with odd half index h at site V/2 + h (dirac/staggered_gpu.h).
 * Exported (U = gauge_accessor<double, 3, LINK_FULL>: the HMC's links,
 * momenta and forces, hmc/gpu.h):
 *   SMG_BLOCK                              threads per block
 *   k_smg_noise(g, out, nsites, seed, copy, traj)   thread j < nsites (V/2:
 *       the even half field; V: [even | odd]) writes vector site j, the
 *       site x of (parity j >= V/2, half index j mod V/2): stag_noise_site
 *       of the stream (seed, copy, site0 + x, traj, RNG_PSEUDOFERMION) --
 *       staggered_gaussian's numbers
 *   k_smg_lincomb(vh, out, a0, eta, poles)   out(s) = a0 eta(s) + sum_i
 *       a_i x_i(s) on the even sites s < vh (poles in order: the host
 *       loop's sum); padding reals untouched
 *   k_smg_force<U>(g, u, coeff, poles, out)   one thread per site (parity,
 *       half index), all four mu: out_mu(y) += coeff TA(W) of
 *       staggered_monomial.h, O = sum_i a_i v w^dag by stag_force_outer_add
 *       and the link by stag_force_link (the CPU loop's formula);
 *       X_i(y) = x_i[y/2] (y even), Y_i(y) = y_i[V/2 + y/2] (y odd), U' =
 *       eta_mu(y) (boundary sign) U_mu(y) (an exact sign flip) */
#define SMG_BLOCK 128
#define SMG_NCOMP 8 /* gpu_spinor_ncomp(6) */

__device__ __forceinline__ void smg_load(const double *v, int64_t s, lat_complex *c)
{
    for (int k = 0; k < 3; k++)
        c[k] = c_make(v[gpu_spinor_index(SMG_NCOMP, 2 * k, s)], v[gpu_spinor_index(SMG_NCOMP, 2 * k + 1, s)]);
}

__global__ void __launch_bounds__(SMG_BLOCK) k_smg_noise(kgeo g, double *__restrict__ out, int nsites, uint64_t seed,
                                                         uint32_t copy, uint32_t traj)
{
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= nsites) return;
    const int p = j >= g.Vh, h = j - p * g.Vh;
    int x[4];
    const int site = decode(g, p, h, x);
    double o[6];
    stag_noise_site(3, seed, copy, (uint64_t)(g.site0 + site), traj, RNG_PSEUDOFERMION, o);
    for (int c = 0; c < 6; c++) out[gpu_spinor_index(SMG_NCOMP, c, j)] = o[c];
}

__global__ void __launch_bounds__(SMG_BLOCK) k_smg_lincomb(int vh, double *__restrict__ out, double a0,
                                                           const double *__restrict__ eta, stag_mono_poles poles)
{
    const int s = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (s >= vh) return;
    for (int c = 0; c < 6; c++) {
        const size_t k = gpu_spinor_index(SMG_NCOMP, c, s);
        double v = a0 * eta[k];
        for (int i = 0; i < poles.order; i++) v += poles.a[i] * poles.x[i][k];
        out[k] = v;
    }
}

template <class U>
__global__ void __launch_bounds__(SMG_BLOCK) k_smg_force(kgeo g, const double *__restrict__ u, double coeff,
                                                         stag_mono_poles poles, double *__restrict__ out)
{
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= 2 * g.Vh) return;
    const int p = j >= g.Vh, h = j - p * g.Vh, even = p == 0;
    int x[4];
    const int site = decode(g, p, h, x);
    for (int mu = 0; mu < 4; mu++) {
        const int t = neighbour(g, site, x, mu, +1) >> 1;
        /* v = Y(y+mu), w = X(y) (y even) or v = Y(y), w = X(y+mu) */
        const int64_t vs = (int64_t)g.Vh + (even ? t : h), ws = even ? h : t;
        lat_complex o[9], v[3], w[3], ul[9], f[9];
        sun_zero(3, o);
        for (int i = 0; i < poles.order; i++) {
            smg_load(poles.y[i], vs, v);
            smg_load(poles.x[i], ws, w);
            stag_force_outer_add(3, poles.a[i], v, w, o);
        }
        U::load(U::at((double *)u, g, p, mu, h), ul);
        if (staggered_phase_coords(x, g.L, mu) < 0)
            for (int e = 0; e < 9; e++) ul[e] = c_make(-ul[e].re, -ul[e].im);
        U::load(U::at(out, g, p, mu, h), f);
        stag_force_link(3, even, coeff, ul, o, f);
        U::store(U::at(out, g, p, mu, h), f);
    }
}
