/* heatbath/gpu.h -- the CUDA heatbath backend `hb_backend_gpu`
 * (heatbath/backend.h): what its host side (heatbath/gpu.cu) and its
 * per-precision kernels (heatbath/gpu_{d,s,m}.cu, built from
 * heatbath/gpu_sweep.cuh) share, and the extras the benchmark and the
 * tests use.
 *
 * The field lives on the device in the GPU layer's layout (gpu/field.h,
 * struct gpu_field: parity-split, blocked structure of arrays, 12 reals per
 * SU(3) link, all 2N^2 for every other N); upload, download, the slab step
 * of MPI runs and the deterministic plaquette and Polyakov-loop reductions
 * are the GPU layer's (gpu_field_*, gpu_slab_*, gpu_field_observables).
 * Kernels exist for SU(N), N = 2 .. GPU_MAX_NC (gpu/gpu.h).
 * Every CUDA error ends the program with one line, exit 1.
 * Exported: gpu_hb_sweep_{d,s,m}, HB_CANDIDATES, HB_GPU_NCAND,
 * hb_gpu_candidate_name. */
#ifndef LAT_HEATBATH_GPU_H
#define LAT_HEATBATH_GPU_H

#include "gpu/field.h"
#include <stdint.h>

/* launch candidates of k_link (the tuner of gpu/tune.h picks one per
 * launch, the benchmark times each), HB_GPU_NCAND(N) of them for SU(N):
 *   N = 2, 3, 4: 0 staple links through L1 (__ldg), 128 threads per block;
 *                1 through L2 only (__ldcg), 128 threads; 2 through L1,
 *                256 threads; 3 through L1, 64 threads;
 *   N = 4 also:  4, 5 through L1, 128 threads, at least 3 and 4 blocks per
 *                SM (register caps 168 and 128: the tuned SU(4));
 *   N >= 5:      0 through L1, 128 threads; 1 through L1, 64 threads.
 * HB_CANDIDATES: the most of any N. */
#define HB_CANDIDATES 6
#define HB_GPU_NCAND(nc) ((nc) == 4 ? 6 : (nc) <= 3 ? 4 : 2)

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

/* the launch candidates of k_link for SU(nc) (gpu/tune.h chooses;
 * gpu_tune_force(c) forces one, candidate 0 where c >= HB_GPU_NCAND(nc)):
 * named by hb_gpu_candidate_name(nc, c) (NULL past the last) */
const char *hb_gpu_candidate_name(int nc, int c);

#ifdef __cplusplus
}
#endif

#endif
