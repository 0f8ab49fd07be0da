/* gpu/spinor.h -- the device layout of vectors of site blocks (Dirac and
 * staggered spinor fields, the solvers' vectors on a GPU), for C, CUDA and
 * the host emulation.  One layout for every storage precision, so a real
 * has the same index in double, float and int16 (half) storage and the
 * vector kernels that do not need the site (axpy, dot, copy with
 * conversion) run flat over the reals.
 *
 * A vector of nsites site blocks of site_reals reals (site_reals even: re,
 * im pairs) is stored like gpu_field's links (gpu/field.h): blocks of 32
 * sites, and within a block the site's reals in groups of 4, the 32 sites'
 * group g side by side:
 *     index(c, s) = ((s/32) * ncomp + (c/4)*4) * 32 + (s%32) * 4 + c%4
 * ncomp = site_reals rounded up to a multiple of 4 (24 for a Wilson spinor
 * of SU(3), 8 for a staggered one: reals 6, 7 of each site are padding),
 * nblk = ceil(nsites/32).  Storage: nblk * 32 * ncomp reals (of the
 * storage type); padding reals and padding sites (s >= nsites) are zero and
 * every kernel keeps them zero, so flat sums over the storage are sums
 * over the vector.  A warp reading group g of its 32 sites reads 32 x 4
 * contiguous reals (512 bytes in float, 1024 in double, 256 in half).
 * Half storage (SOLVER_HALF, solvers.h's format): int16 reals in this
 * layout plus one float norm per site, norm[s] (nblk * 32 of them, padding
 * sites 0): real = q * norm[s] (the site's step, solvers/half.h).
 * Site order: the caller's (a half field of the Dirac operator: its half
 * index h = site/2 of dirac.h, the order of gpu_field's links).
 *
 *   gpu_spinor_ncomp(site_reals)          ncomp
 *   gpu_spinor_nblk(nsites)               nblk
 *   gpu_spinor_storage(nsites, site_reals) reals stored (nblk*32*ncomp)
 *   gpu_spinor_index(ncomp, c, s)         where real c of site s lives
 *   gpu_spinor_upload / _download (spinor.c, CUDA builds): a host vector
 *       (nsites x site_reals doubles, site after site) to and from device
 *       storage of this layout in double; synchronous
 *   gpu_spinor_upload_work / _download_work: the same through the caller's
 *       buffer of gpu_spinor_storage(nsites, site_reals) doubles */
#ifndef LAT_GPU_SPINOR_H
#define LAT_GPU_SPINOR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GPU_SPINOR_HD __host__ __device__
#else
#define GPU_SPINOR_HD
#endif

#define GPU_SPINOR_GROUP 4
#define GPU_SPINOR_LANES 32

static inline GPU_SPINOR_HD int gpu_spinor_ncomp(int site_reals)
{
    return (site_reals + GPU_SPINOR_GROUP - 1) / GPU_SPINOR_GROUP * GPU_SPINOR_GROUP;
}
static inline GPU_SPINOR_HD int64_t gpu_spinor_nblk(int64_t nsites)
{
    return (nsites + GPU_SPINOR_LANES - 1) / GPU_SPINOR_LANES;
}
static inline GPU_SPINOR_HD size_t gpu_spinor_storage(int64_t nsites, int site_reals)
{
    return (size_t)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES * (size_t)gpu_spinor_ncomp(site_reals);
}
static inline GPU_SPINOR_HD size_t gpu_spinor_index(int ncomp, int c, int64_t s)
{
    return ((size_t)(s / GPU_SPINOR_LANES) * (size_t)ncomp + (size_t)(c / GPU_SPINOR_GROUP * GPU_SPINOR_GROUP)) *
               GPU_SPINOR_LANES +
           (size_t)(s % GPU_SPINOR_LANES) * GPU_SPINOR_GROUP + (size_t)(c % GPU_SPINOR_GROUP);
}
#ifdef __cplusplus
extern "C" {
#endif
void gpu_spinor_upload(double *dev, const double *host, int64_t nsites, int site_reals);
void gpu_spinor_download(double *host, const double *dev, int64_t nsites, int site_reals);
void gpu_spinor_upload_work(double *dev, const double *host, int64_t nsites, int site_reals, double *work);
void gpu_spinor_download_work(double *host, const double *dev, int64_t nsites, int site_reals, double *work);
#ifdef __cplusplus
}
#endif
#endif
