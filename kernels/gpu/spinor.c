/* gpu/spinor.c -- host side of gpu/spinor.h's layout (plain C; built with
 * CUDA only, LAT_HAVE_CUDA, like field.c): a host vector of site blocks
 * (nsites x site_reals doubles, site after site: the CPU's full and half
 * spinor fields) to and from device storage of the layout in double.
 *
 *   gpu_spinor_upload(dev, host, nsites, site_reals)   host -> device
 *        (dev: gpu_spinor_storage(nsites, site_reals) doubles; padding
 *        written as zeros)
 *   gpu_spinor_download(host, dev, nsites, site_reals) device -> host
 *   gpu_spinor_upload_work / gpu_spinor_download_work(..., work)  the same
 *        through the caller's buffer of gpu_spinor_storage(nsites,
 *        site_reals) doubles (a caller that copies column after column
 *        keeps it: its pages are not faulted in again each time)
 * All synchronise; a CUDA error ends the program with one line (util.cu). */
#ifdef LAT_HAVE_CUDA
#include "gpu/spinor.h"
#include "gpu/field.h"
#include "base/log.h" /* lat_malloc */
#include <stdlib.h>

/* The reordering runs on the OpenMP threads, every stored real written
 * once (padding reals and sites as zeros): at 32^3x64 a single-threaded
 * loop over a zeroed buffer took a large share of lat-propagator's
 * per-column host time. */
void gpu_spinor_upload_work(double *dev, const double *host, int64_t nsites, int site_reals, double *work)
{
    const int nc = gpu_spinor_ncomp(site_reals);
    const int64_t padded = gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < padded; s++)
        for (int c = 0; c < nc; c++)
            work[gpu_spinor_index(nc, c, s)] = s < nsites && c < site_reals ? host[(size_t)s * site_reals + c] : 0.0;
    gpu_upload(dev, work, gpu_spinor_storage(nsites, site_reals) * sizeof *work);
}

void gpu_spinor_download_work(double *host, const double *dev, int64_t nsites, int site_reals, double *work)
{
    const int nc = gpu_spinor_ncomp(site_reals);
    gpu_download(work, dev, gpu_spinor_storage(nsites, site_reals) * sizeof *work);
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < nsites; s++)
        for (int c = 0; c < site_reals; c++) host[(size_t)s * site_reals + c] = work[gpu_spinor_index(nc, c, s)];
}

void gpu_spinor_upload(double *dev, const double *host, int64_t nsites, int site_reals)
{
    double *t = lat_malloc(gpu_spinor_storage(nsites, site_reals) * sizeof *t);
    gpu_spinor_upload_work(dev, host, nsites, site_reals, t);
    free(t);
}

void gpu_spinor_download(double *host, const double *dev, int64_t nsites, int site_reals)
{
    double *t = lat_malloc(gpu_spinor_storage(nsites, site_reals) * sizeof *t);
    gpu_spinor_download_work(host, dev, nsites, site_reals, t);
    free(t);
}
#endif
