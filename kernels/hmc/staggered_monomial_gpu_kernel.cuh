/* hmc/staggered_monomial_gpu_kernel.cuh -- the device code of the staggered
 * monomial's device path (staggered_monomial_gpu.c): compiled by nvcc
 * (staggered_monomial_gpu_d.cu) and, whole, by g++ for the host emulation
 * (scripts/hmc-stag-emulation.cpp, scripts/cuda-on-host.h).  The includer
 * first includes (LAT_REAL double, STAG_MONO_NC_MAX and STAGGERED_NC_MAX 3)
 * hmc/staggered_monomial_site.h, dirac/staggered_site.h, gpu/spinor.h and
 * hmc/staggered_monomial_impl.h, then, inside its namespace,
 * gpu/accessor.cuh and this file.
 *
 * Two geometries: gl, the HMC's link field (hmc/gpu.h: the whole lattice,
 * or on a t-slab the local lattice with one halo slice on each side, its
 * owned slices the launch range [h0, h1)), and go = smg_vector_geo(gl), the
 * vectors' lattice: the owned slices alone (dirac/staggered_gpu.h's slab
 * vectors: owned site s at half index s/2; t0 even, so the local parity of
 * go is the global parity), site0 the global site of its first site.
 * Vectors: gpu/spinor.h's layout, 6 reals a site (ncomp 8), double; an
 * even half field at sites 0..go.Vh-1, the normal view's [even | odd]
 * vectors with odd half index h at site go.Vh + h (dirac/staggered_gpu.h).
 * Exported (U = gauge_accessor<double, 3, LINK_FULL>: the HMC's links,
 * momenta and forces, hmc/gpu.h):
 *   SMG_BLOCK                              threads per block
 *   smg_vector_geo(gl)                     go (host function)
 *   k_smg_noise(go, out, nsites, seed, copy, traj)   thread j < nsites
 *       (go.Vh: the even half field; 2 go.Vh: [even | odd]) writes vector
 *       site j, the site x of (parity j >= go.Vh, half index j mod go.Vh):
 *       stag_noise_site of the stream (seed, copy, go.site0 + x, traj,
 *       RNG_PSEUDOFERMION) -- staggered_gaussian's numbers (global site)
 *   k_smg_lincomb(vh, out, a0, eta, poles)   out(s) = a0 eta(s) + sum_i
 *       a_i x_i(s) on the even sites s < vh (poles in order: the host
 *       loop's sum); padding reals untouched
 *   k_smg_face_pack(go, poles, face)   the forward face a slab sends to the
 *       previous rank: for its first owned slice, per pole i, X_i on the
 *       even sites and Y_i on the odd ones, plain [pole][X | Y][go.V3h
 *       sites][6 reals] (site: half index within the slice)
 *   k_smg_force<U>(gl, go, ltg, u, coeff, poles, out)   one thread per owned
 *       site (parity, half index of go), all four mu: out_mu(y) += coeff
 *       TA(W) of staggered_monomial.h, O = sum_i a_i v w^dag by
 *       stag_force_outer_add and the link by stag_force_link (the CPU
 *       loop's formula); X_i(y) = x_i[y/2] (y even), Y_i(y) = y_i[Vh + y/2]
 *       (y odd), U' = eta_mu(y) (boundary sign of the global t, ltg global
 *       slices) U_mu(y) (an exact sign flip); y + t of the last owned slice:
 *       from poles.face (the next rank's k_smg_face_pack) when it is set,
 *       else the periodic wrap (one process) */
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
        out[k] = rational_term_sum(a0, poles.a, poles.order, eta[k], poles.x, k); /* rational.h's sum, the CPU's */
    }
}

/* the vectors' geometry: gl's owned slices alone (host function) */
static kgeo smg_vector_geo(const kgeo &gl)
{
    kgeo go = gl;
    const int shift = gl.h0 / gl.V3h, lt = (gl.h1 - gl.h0) / gl.V3h;
    go.L[3] = lt;
    go.Vh = gl.V3h * lt;
    go.nblk = ((size_t)go.Vh + 31) / 32;
    go.h0 = 0;
    go.h1 = go.Vh;
    go.site0 = gl.site0 + (long long)shift * 2 * gl.V3h;
    return go;
}

__device__ __forceinline__ void smg_load_plain(const double *v, int64_t s, lat_complex *c)
{
    for (int k = 0; k < 3; k++) c[k] = c_make(v[6 * s + 2 * k], v[6 * s + 2 * k + 1]);
}

__global__ void __launch_bounds__(SMG_BLOCK) k_smg_face_pack(kgeo go, stag_mono_poles poles, double *__restrict__ face)
{
    const int h = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (h >= go.V3h) return;
    for (int i = 0; i < poles.order; i++) {
        double *fx = face + ((size_t)(2 * i) * go.V3h + h) * 6, *fy = face + ((size_t)(2 * i + 1) * go.V3h + h) * 6;
        for (int c = 0; c < 6; c++) {
            fx[c] = poles.x[i][gpu_spinor_index(SMG_NCOMP, c, h)];
            fy[c] = poles.y[i][gpu_spinor_index(SMG_NCOMP, c, (int64_t)go.Vh + h)];
        }
    }
}

template <class U>
__global__ void __launch_bounds__(SMG_BLOCK) k_smg_force(kgeo gl, kgeo go, int ltg, const double *__restrict__ u,
                                                         double coeff, stag_mono_poles poles, double *__restrict__ out)
{
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= 2 * go.Vh) return;
    const int p = j >= go.Vh, h = j - p * go.Vh, even = p == 0;
    /* the link field's parity and half index: shift halo slices below */
    const int shift = gl.h0 / gl.V3h, pl = (p + shift) & 1, hl = h + shift * gl.V3h;
    int x[4];
    const int site = decode(go, p, h, x);
    const int tg0 = (int)(go.site0 / (2 * (long long)go.V3h));
    const int xg[4] = {x[0], x[1], x[2], x[3] + tg0}, Lg[4] = {go.L[0], go.L[1], go.L[2], ltg};
    for (int mu = 0; mu < 4; mu++) {
        lat_complex o[9], v[3], w[3], ul[9], f[9];
        sun_zero(3, o);
        if (mu == 3 && x[3] == go.L[3] - 1 && poles.face) {
            /* y + t lies on the next rank: its first slice's X (even) and Y (odd) */
            const int64_t fh = h - (int64_t)(go.L[3] - 1) * go.V3h;
            for (int i = 0; i < poles.order; i++) {
                const double *fx = poles.face + (size_t)(2 * i) * go.V3h * 6;
                const double *fy = poles.face + (size_t)(2 * i + 1) * go.V3h * 6;
                if (even) {
                    smg_load_plain(fy, fh, v);
                    smg_load(poles.x[i], h, w);
                } else {
                    smg_load(poles.y[i], (int64_t)go.Vh + h, v);
                    smg_load_plain(fx, fh, w);
                }
                stag_force_outer_add(3, poles.a[i], v, w, o);
            }
        } else {
            const int t = neighbour(go, site, x, mu, +1) >> 1;
            /* v = Y(y+mu), w = X(y) (y even) or v = Y(y), w = X(y+mu) */
            const int64_t vs = (int64_t)go.Vh + (even ? t : h), ws = even ? h : t;
            for (int i = 0; i < poles.order; i++) {
                smg_load(poles.y[i], vs, v);
                smg_load(poles.x[i], ws, w);
                stag_force_outer_add(3, poles.a[i], v, w, o);
            }
        }
        U::load(U::at((double *)u, gl, pl, mu, hl), ul);
        if (staggered_phase_coords(xg, Lg, mu) < 0)
            for (int e = 0; e < 9; e++) ul[e] = c_make(-ul[e].re, -ul[e].im);
        U::load(U::at(out, gl, pl, mu, hl), f);
        stag_force_link(3, even, coeff, ul, o, f);
        U::store(U::at(out, gl, pl, mu, hl), f);
    }
}
