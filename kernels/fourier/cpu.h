/* fourier/cpu.h -- private to the CPU backend of Fourier-accelerated gauge
 * fixing: its state and the per-precision entry points of fourier/cpu.c
 * (compiled three times: _d double, _s single, _m float links with double
 * arithmetic).  Links and g are stored like the gauge-fixing backend's
 * (gaugefix/cpu.h); the algebra fields (Delta, P Delta, its previous value,
 * s) and G hold lat_real of the variant, alg_dim(N) reals per site. */
#ifndef LAT_FOURIER_CPU_H
#define LAT_FOURIER_CPU_H

#include "fourier/backend.h"
#include "lattice/geometry.h"

struct lat_fft;

struct fa_state {
    struct lattice lat;          /* this rank's lattice (slab: with halo slices) */
    const struct geometry *dom;
    int nc, nd, nt, tb, te;      /* nd: directions of the functional; owned slices [tb, te) */
    char prec;
    enum gauge_kind gauge;
    int64_t v3;
    int32_t *fwd, *bwd;          /* 4 V neighbours */
    void *links, *transform;     /* storage type; transform may be NULL */
    void *grad, *pgrad, *pgrad_old, *dir, *G; /* lat_real */
    int have_pold;
    unsigned char *on;           /* nt: slices still iterating (Coulomb) */
    double *fcache;              /* 2 nt: a frozen slice's F and theta sums */
    struct lat_fft *fft;
    void *fftbuf, *weight;       /* ncomp x fft_count lat_complex; fft_kcount lat_real */
    int ncomp;
};

#define FA_CPU_DECLARE(sfx)                                                                                       \
    void fa_cpu_upload_##sfx(struct fa_state *s, const struct field *u, const double *transform);               \
    void fa_cpu_gradient_##sfx(struct fa_state *s, double *fsums, double *dphi);                                \
    void fa_cpu_precondition_##sfx(struct fa_state *s, double *dots);                                           \
    void fa_cpu_direction_##sfx(struct fa_state *s, const unsigned char *set, const double *beta, double *dphi); \
    void fa_cpu_curvature_##sfx(struct fa_state *s, double *d2);                                              \
    void fa_cpu_step_##sfx(struct fa_state *s, const double *alpha);                                            \
    void fa_cpu_orbit_##sfx(struct fa_state *s, const unsigned char *set, uint64_t seed, uint32_t copy, uint32_t k); \
    void fa_cpu_reunitarize_##sfx(struct fa_state *s);                                                           \
    void fa_cpu_freeze_##sfx(struct fa_state *s, const unsigned char *on);                                      \
    void fa_cpu_download_##sfx(struct fa_state *s, struct field *u, double *transform);                         \
    void fa_cpu_free_##sfx(struct fa_state *s);
FA_CPU_DECLARE(d)
FA_CPU_DECLARE(s)
FA_CPU_DECLARE(m)

#endif
