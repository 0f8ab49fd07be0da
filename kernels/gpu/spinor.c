/* gpu/spinor.c -- host side of gpu/spinor.h's layout (plain C; built with
 * CUDA only, LAT_HAVE_CUDA, like field.c): a host vector of site blocks
 * (nsites x site_reals doubles, site after site: the CPU's full and half
 * spinor fields) to and from device storage of the layout in double.
 *
 *   gpu_spinor_upload(dev, host, nsites, site_reals)   host -> device
 *        (dev: gpu_spinor_storage(nsites, site_reals) doubles; padding
 *        written as zeros)
 *   gpu_spinor_download(host, dev, nsites, site_reals) device -> host
 * Both synchronise; a CUDA error ends the program with one line (util.cu). */
#ifdef LAT_HAVE_CUDA
#include "gpu/spinor.h"
#include "gpu/field.h"
#include "base/log.h" /* lat_calloc */
#include <stdlib.h>

void gpu_spinor_upload(double *dev, const double *host, int64_t nsites, int site_reals)
{
    const int nc = gpu_spinor_ncomp(site_reals);
    const size_t total = gpu_spinor_storage(nsites, site_reals);
    double *t = lat_calloc(total, sizeof *t);
    for (int64_t s = 0; s < nsites; s++)
        for (int c = 0; c < site_reals; c++) t[gpu_spinor_index(nc, c, s)] = host[(size_t)s * site_reals + c];
    gpu_upload(dev, t, total * sizeof *t);
    free(t);
}

void gpu_spinor_download(double *host, const double *dev, int64_t nsites, int site_reals)
{
    const int nc = gpu_spinor_ncomp(site_reals);
    const size_t total = gpu_spinor_storage(nsites, site_reals);
    double *t = lat_calloc(total, sizeof *t);
    gpu_download(t, dev, total * sizeof *t);
    for (int64_t s = 0; s < nsites; s++)
        for (int c = 0; c < site_reals; c++) host[(size_t)s * site_reals + c] = t[gpu_spinor_index(nc, c, s)];
    free(t);
}
#endif
