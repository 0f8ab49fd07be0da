/* gpu/launch.cuh -- the one launcher of the GPU kernels and the one
 * dispatch on N (host code; launch files include it, and so may the host
 * emulation, which has no <<<...>>>):
 *   tuned_launch(kernel, f, ncand, launch)
 *       launch(c) launches candidate c (0 <= c < ncand) of the kernel named
 *       `kernel`: a block shape, launch bound or load path of one kernel
 *       code.  Which c runs is gpu_tune_choose's answer (gpu/tune.h: the
 *       tuning cache, measured once per kernel, volume and device); then it
 *       runs once.  Candidate 0 is the shape used without tuning
 *       (LAT_TUNE=0), so list the best-known one first.
 *   with_nc(nc, f)
 *       f(std::integral_constant<int, NC>()) for NC == nc: the template
 *       instantiation of SU(NC), one per N of GPU_MIN_NC..GPU_MAX_NC
 *       (gpu/gpu.h, the one list of supported N); another nc is an internal
 *       error (the tools refuse it first, tools/shared/device_opt.c). */
#include "gpu/tune.h"
#include "gpu/gpu.h"
#include "base/log.h"
#include <type_traits>

template <class F>
static void tuned_launch(const char *kernel, const struct gpu_field *f, int ncand, const F &launch)
{
    struct thunk {
        static void run(int c, void *p) { (*(const F *)p)(c); }
    };
    launch(gpu_tune_choose(kernel, f, ncand, thunk::run, (void *)&launch));
}

template <int NC = GPU_MIN_NC, class F>
static void with_nc(int nc, const F &f)
{
    if constexpr (NC <= GPU_MAX_NC) {
        if (nc == NC) f(std::integral_constant<int, NC>());
        else with_nc<NC + 1>(nc, f);
    } else {
        lat_die(1, "GPU", "internal error: no kernels for SU(%d) (they exist for N = %d..%d, gpu/gpu.h)", nc, GPU_MIN_NC,
                GPU_MAX_NC);
    }
}
