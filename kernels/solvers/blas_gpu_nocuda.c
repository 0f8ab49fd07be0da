/* solvers/blas_gpu_nocuda.c -- solver_blas_gpu_open, _open_layout, _device_loop, _close (blas_gpu.h) in
 * a build without CUDA (make CUDA=0): there is no GPU table, open returns
 * NULL.  With CUDA this file is empty and blas_gpu.cu defines them. */
#ifndef LAT_HAVE_CUDA
#include "solvers/blas_gpu.h"
#include <stddef.h>

struct solver_blas *solver_blas_gpu_open(void) { return NULL; }
struct solver_blas *solver_blas_gpu_open_layout(const struct solver_reduce_layout *layout) { (void)layout; return NULL; }
void solver_blas_gpu_device_loop(struct solver_blas *blas, const struct geometry *d) { (void)blas, (void)d; }
void solver_blas_gpu_close(struct solver_blas *blas) { (void)blas; }
#else
typedef int blas_gpu_nocuda_unused; /* ISO C: no empty translation unit */
#endif
