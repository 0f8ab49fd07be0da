/* heatbath_gpu.h -- the CUDA heatbath backend `hb_backend_gpu`
 * (heatbath_backend.h): what its host side (kernels/heatbath_gpu.cu) and
 * its per-precision kernels (kernels/heatbath_gpu_{d,s,m}.cu, built from
 * heatbath_gpu_impl.cuh) share, and the extras the benchmark uses.
 *
 * The field lives on the device in the GPU layer's layout (gpu/field.h,
 * struct gpu_field: parity-split, blocked structure of arrays, 12 reals per
 * SU(3) link, 2N^2 for SU(2)); upload, download, the slab step of MPI runs
 * and the deterministic plaquette and Polyakov-loop reductions are the GPU
 * layer's (gpu_field_*, gpu_slab_*, gpu_field_observables).  Kernels exist
 * for SU(2) and SU(3).  Every CUDA error ends the program with one line,
 * exit 1.
 * Exported: gpu_hb_sweep_{d,s,m}, HB_CANDIDATES, hb_gpu_candidate_name. */
#ifndef LAT_HEATBATH_GPU_H
#define LAT_HEATBATH_GPU_H

#include "gpu/field.h"
#include <stdint.h>

/* launch candidates of k_link (the tuner of gpu/tune.h picks one per
 * launch, the benchmark times each): 0 staple links through L1 (__ldg),
 * 128 threads per block; 1 through L2 only (__ldcg), 128 threads; 2
 * through L1, 256 threads; 3 through L1, 64 threads. */
#define HB_CANDIDATES 4

#ifdef __cplusplus
extern "C" {
#endif

/* One sweep in the order of heatbath_backend.h: heatbath (heatbath = 1,
 * streams (seed, site + f->site0, 4k+mu)) or overrelaxation (heatbath = 0);
 * parity >= 0: only the step (local parity, mu) over f->h0..h1 (slabs). */
void gpu_hb_sweep_d(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k, int parity,
                    int mu);
void gpu_hb_sweep_s(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k, int parity,
                    int mu);
void gpu_hb_sweep_m(const struct gpu_field *f, int heatbath, double beta, uint64_t seed, uint32_t k, int parity,
                    int mu);

/* the launch candidates of k_link (gpu/tune.h chooses; gpu_tune_force(c)
 * forces one): HB_CANDIDATES of them, named by hb_gpu_candidate_name(c)
 * (NULL past the last) */
const char *hb_gpu_candidate_name(int c);

#ifdef __cplusplus
}
#endif

#endif
