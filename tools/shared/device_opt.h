/* device_opt.h -- the --device / --precision policy of every program that
 * computes on a backend (SPEC §2), written once.
 *
 * Exported (device_opt.c):
 *   device_opt_precision(word)   "double|single|mixed" -> 'd', 's', 'm'
 *   device_opt_choose(device)    --device cpu|gpu|auto (NULL: LAT_DEVICE,
 *                                else auto) -> a struct device_choice.
 *                                gpu without a usable GPU: exit 1
 *                                (backend_choose, gpu/gpu.h).  Under mpirun
 *                                only an explicit gpu (option or LAT_DEVICE)
 *                                gives the GPU; auto keeps the CPU there with
 *                                a note, since GPU slabs want one GPU per rank
 *                                and Lt/R even, which auto cannot know the
 *                                user meant (docs/PERFORMANCE.md)
 *   device_opt_fits(c, gpu, nc)  once N is known: may the GPU backend whose
 *                                capabilities are gpu run SU(nc)?  1 yes; 0 no: the CPU
 *                                then, with a note when auto chose; an
 *                                explicit gpu that cannot is an error
 *                                (exit 1) with the one refusal message,
 *                                built from the capabilities
 *
 * The backend families (gauge fixing, heatbath) keep their own backend
 * structs; they hand their GPU backend's capabilities here as a struct
 * device_caps, so the policy does not depend on either family.  The
 * per-family default of --reunitarize-every lives in the backend struct
 * (gaugefix/backend.h). */
#ifndef LAT_DEVICE_OPT_H
#define LAT_DEVICE_OPT_H

struct device_choice {
    int gpu;          /* 1: the GPU backend, 0: the CPU backend */
    int explicit_gpu; /* gpu was asked for (--device gpu or LAT_DEVICE=gpu) */
};

/* what the policy must know of a GPU backend */
struct device_caps {
    const char *what;   /* the family, for messages: "gauge-fixing", "heatbath" */
    int built;          /* 0: this build has no such backend */
    int min_nc, max_nc; /* SU(N) it has kernels for */
};

char device_opt_precision(const char *word);
struct device_choice device_opt_choose(const char *device);
int device_opt_fits(struct device_choice *c, const struct device_caps *gpu, int nc);

#endif
