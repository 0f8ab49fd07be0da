/* hmc/gpu_d.cu -- the launchers of the GPU HMC's kernels (hmc/gpu.h:
 * hmc_gpu_{draw,kinetic,update,force,add,plaquette,copy,sync}_d), SU(3) in double
 * with whole links (gauge_accessor<double, 3, LINK_FULL>); the kernels are
 * hmc/gpu_kernel.cuh.  One instantiation of each; the host side (checks,
 * sums, the integrator) is gpu.c.  A CUDA error ends the program (gpu/util.cu). */
#define LAT_REAL double
#include "lattice/observables_site.h"
#include "heatbath/link.h"
#include "hmc/site.h"
#include "hmc/gpu.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include "gpu/reduce.cuh"
#include "gpu/accessor.cuh"
#include "hmc/gpu_kernel.cuh"

typedef gauge_accessor<double, 3, LINK_FULL> hmc_links;

/* the blocks of a site kernel over the field's launch range h0..h1 (0: Vh) */
static unsigned site_blocks(const struct gpu_field *f)
{
    int64_t n = (f->h1 > 0 ? f->h1 : f->Vh) - f->h0;
    return (unsigned)((2 * n + HMC_BS - 1) / HMC_BS);
}

extern "C" void hmc_gpu_draw_d(const struct gpu_field *p, uint64_t seed, uint32_t trajectory)
{
    k_hmc_draw<hmc_links><<<site_blocks(p), HMC_BS>>>(make_geo(p), (double *)p->links, seed, trajectory);
    gpu_check("HMC momenta kernel launch");
}

extern "C" void hmc_gpu_kinetic_d(const struct gpu_field *p, int t0, int nt, int nsub, double *partials)
{
    k_hmc_kinetic<hmc_links><<<nt * nsub, GPU_RED_BS>>>(make_geo(p), t0, nsub, (const double *)p->links, partials);
    gpu_check("HMC kinetic energy kernel launch");
}

extern "C" void hmc_gpu_update_d(const struct gpu_field *u, const struct gpu_field *p, double eps)
{
    k_hmc_update<hmc_links><<<site_blocks(u), HMC_BS>>>(make_geo(u), (double *)u->links, (const double *)p->links, eps);
    gpu_check("HMC link update kernel launch");
}

extern "C" void hmc_gpu_force_d(const struct gpu_field *u, double c, const struct gpu_field *f)
{
    k_hmc_force<hmc_links><<<site_blocks(u), HMC_BS>>>(make_geo(u), (const double *)u->links, c, (double *)f->links);
    gpu_check("HMC gauge force kernel launch");
}

extern "C" void hmc_gpu_add_d(const struct gpu_field *p, double eps, const struct gpu_field *f)
{
    k_hmc_add<hmc_links><<<site_blocks(p), HMC_BS>>>(make_geo(p), (double *)p->links, eps, (const double *)f->links);
    gpu_check("HMC momentum update kernel launch");
}

extern "C" void hmc_gpu_plaquette_d(const struct gpu_field *u, int t0, int nt, int nsub, double *partials)
{
    k_hmc_plaquette<hmc_links><<<nt * nsub, GPU_RED_BS>>>(make_geo(u), t0, nsub, (const double *)u->links, partials);
    gpu_check("HMC plaquette kernel launch");
}

extern "C" void hmc_gpu_copy_d(const struct gpu_field *dst, const struct gpu_field *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst->links, src->links, bytes, cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) lat_die(1, "GPU HMC", "device-to-device copy of the links: %s", cudaGetErrorString(e));
}

extern "C" void hmc_gpu_sync_d(void) { gpu_sync("GPU HMC kernels"); }
