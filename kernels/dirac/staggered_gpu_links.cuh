/* dirac/staggered_gpu_links.cuh -- device code of the GPU staggered
 * operator's link refresh from a device field
 * (staggered_gpu_set_links_device, dirac/staggered_gpu.h): one kernel,
 * compiled by nvcc (staggered_gpu_links.cu) and, whole, by g++ for the host
 * emulation (scripts/hmc-stag-emulation.cpp, scripts/cuda-on-host.h).  The
 * includer first includes math/sun.h (LAT_REAL double) and gpu/field.h,
 * then, inside its namespace, gpu/accessor.cuh and this file.
 *
 * Exported:
 *   SGL_BLOCK                            threads per block
 *   k_sg_links_copy<Src, Dst>(g, src, dst)   one thread per site j < 2 Vh
 *       ((parity, half index) order), all four mu: the link loaded through
 *       Src (the HMC's 18 doubles) in double and stored through Dst (the
 *       operator's storage and recon: rounded to float, rows 0-1 for 12
 *       reals, su3_pack8 in double for 8 -- what gpu_field_upload stores
 *       from the same double links on the host) */
#define SGL_BLOCK 128

template <class Src, class Dst>
__global__ void __launch_bounds__(SGL_BLOCK) k_sg_links_copy(kgeo g, const double *__restrict__ src,
                                                             typename Dst::store_type *__restrict__ dst)
{
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= 2 * g.Vh) return;
    const int p = j >= g.Vh, h = j - p * g.Vh;
    for (int mu = 0; mu < 4; mu++) {
        lat_complex m[9];
        Src::load(Src::at((double *)src, g, p, mu, h), m);
        Dst::store(Dst::at(dst, g, p, mu, h), m);
    }
}

/* f(gauge_accessor<S, 3, R>()) for the storage's recon 12, 18 or 8 */
template <typename S, class F> static void sgl_with_recon(int recon, const F &f)
{
    if (recon == GPU_RECON_12) f(gauge_accessor<S, 3, LINK_12>());
    else if (recon == GPU_RECON_FULL) f(gauge_accessor<S, 3, LINK_FULL>());
    else if (recon == GPU_RECON_8) f(gauge_accessor<S, 3, LINK_8>());
    else lat_die(1, "staggered GPU", "internal error: links stored in %d reals (12, 18 or 8 expected)", recon);
}
