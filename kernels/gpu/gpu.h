/* gpu.h -- what the host code knows of the CUDA backend.
 *
 * GPU_MIN_NC, GPU_MAX_NC: the N of SU(N) every GPU kernel family handles.
 *
 * gpu_available() is 0 when the toolkit was built without CUDA (make CUDA=0)
 * or no device is usable; then every other gpu_* entry point must not be
 * called.  backend_choose() turns --device cpu|gpu|auto (and LAT_DEVICE)
 * into a decision.  When auto was asked for (option or LAT_DEVICE) and no GPU
 * is usable, a note says so on stderr; the unasked default falls back quietly. */
#ifndef LAT_GPU_H
#define LAT_GPU_H

#include "base/lat.h"

/* The SU(N) the CUDA kernels exist for -- the one place that says it.
 * Every GPU backend struct (gauge fixing, heatbath, lat-fourier, lat-measure's
 * observables) reads these; tools/shared/device_opt.c refuses any other N
 * with one message naming them.  Every N of the core (LAT_NC_MAX): full
 * N x N complex storage for N != 3, 12 or 8 reals for SU(3) (gpu/field.h). */
#define GPU_MIN_NC 2
#define GPU_MAX_NC LAT_NC_MAX

#ifdef __cplusplus
extern "C" { /* C declarations, also where CUDA or C++ code includes them (gpu/launch.cuh) */
#endif

int gpu_available(char *why, int whylen); /* 1 yes; 0 no, with a reason */

enum backend { BACKEND_CPU = 0, BACKEND_GPU = 1 };
/* device: "cpu", "gpu", "auto" or NULL (= LAT_DEVICE or auto).  "gpu"
 * without a usable GPU is an error (exit 1). */
enum backend backend_choose(const char *device);

/* Tests only (LAT_FAULT_AT, gaugefix_driver.c): make the current device
 * fail the way a broken kernel does -- a write to an invalid address,
 * reported by the next CUDA call -- so the error path of a run can be
 * tried on a real GPU.  No-op without CUDA. */
void gpu_inject_fault(void);

#ifdef __cplusplus
}
#endif

#endif
