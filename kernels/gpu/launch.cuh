/* gpu/launch.cuh -- the one launcher of the GPU kernels (host code, nvcc
 * only; launch files include it):
 *   tuned_launch(kernel, f, ncand, launch)
 *       launch(c) launches candidate c (0 <= c < ncand) of the kernel named
 *       `kernel`: a block shape, launch bound or load path of one kernel
 *       code.  Which c runs is gpu_tune_choose's answer (gpu/tune.h: the
 *       tuning cache, measured once per kernel, volume and device); then it
 *       runs once.  Candidate 0 is the shape used without tuning
 *       (LAT_TUNE=0), so list the best-known one first. */
#include "gpu/tune.h"

template <class F>
static void tuned_launch(const char *kernel, const struct gpu_field *f, int ncand, const F &launch)
{
    struct thunk {
        static void run(int c, void *p) { (*(const F *)p)(c); }
    };
    launch(gpu_tune_choose(kernel, f, ncand, thunk::run, (void *)&launch));
}
