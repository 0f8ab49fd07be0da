/* gpu.h -- what the host code knows of the CUDA backend.
 *
 * gpu_available() is 0 when the toolkit was built without CUDA (make CUDA=0)
 * or no device is usable; then every other gpu_* entry point must not be
 * called.  backend_choose() turns --device cpu|gpu|auto (and LAT_DEVICE)
 * into a decision.  When auto was asked for (option or LAT_DEVICE) and no GPU
 * is usable, a note says so on stderr; the unasked default falls back quietly. */
#ifndef LAT_GPU_H
#define LAT_GPU_H

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

#endif
