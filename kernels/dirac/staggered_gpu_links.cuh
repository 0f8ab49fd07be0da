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
 *   k_sg_links_copy<Src, Dst>(gs, gd, shift, src, dst)   one thread per
 *       destination site j < 2 gd.Vh ((parity, half index) order), all
 *       four mu: the link of the source site `shift` timeslices later
 *       (gs's lattice: a t-slab's HMC field starts with its halo slice,
 *       shift 1; one process, shift 0 and gs = gd) loaded through Src (the
 *       HMC's 18 doubles) in double and stored through Dst (the operator's
 *       storage and recon: rounded to float, rows 0-1 for 12 reals,
 *       su3_pack8 in double for 8 -- what gpu_field_upload stores from the
 *       same double links on the host).  The source site is site + shift
 *       V3 (V3 even: Lx even), so its half index is h + shift V3/2 and its
 *       parity p ^ (shift & 1). */
#define SGL_BLOCK 128

template <class Src, class Dst>
__global__ void __launch_bounds__(SGL_BLOCK) k_sg_links_copy(kgeo gs, kgeo gd, int shift, const double *__restrict__ src,
                                                             typename Dst::store_type *__restrict__ dst)
{
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= 2 * gd.Vh) return;
    const int p = j >= gd.Vh, h = j - p * gd.Vh;
    const int ps = p ^ (shift & 1), hs = h + shift * gs.V3h;
    for (int mu = 0; mu < 4; mu++) {
        lat_complex m[9];
        Src::load(Src::at((double *)src, gs, ps, mu, hs), m);
        Dst::store(Dst::at(dst, gd, p, mu, h), m);
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
