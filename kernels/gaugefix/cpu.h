/* gaugefix_cpu.h -- private to the CPU gauge-fixing backend: the state it
 * keeps and the per-precision entry points of kernels/gaugefix_cpu.c (which
 * is compiled three times, giving the suffixes _d, _s, _m).
 *
 * Storage: the links in ILDG order (site-major, mu = x,y,z,t, nc x nc
 * row-major complex), as double (variant d) or float (s and m); the tracked
 * transform, if any, V matrices in the same storage type.  The sites of each
 * parity are listed once (sites[p]); bwd[4*x + mu] is the site x - mu.
 * Variant m loads float links into double lat_complex registers, updates in
 * double and stores float (paper §4.5). */
#ifndef LAT_GAUGEFIX_CPU_H
#define LAT_GAUGEFIX_CPU_H

#include "gaugefix/backend.h"
#include "lattice/geometry.h"
#include <stdint.h>

struct gf_state {
    struct lattice lat;
    int nc;
    char prec;             /* 'd', 's' or 'm' */
    int64_t v3;            /* sites per timeslice */
    void *links;           /* double* (d) or float* (s, m) */
    void *transform;       /* same type as links, or NULL */
    int32_t *bwd;          /* 4 V backward neighbours */
    /* the owned sites of (global) parity p, ascending: first those of the
     * boundary slices, whose links other ranks need (nbound[p] of them;
     * all when the run has one rank), then the interior */
    int32_t *sites[2];
    int64_t nsites[2], nbound[2];
    const struct geometry *dom; /* NULL: the whole lattice */
    struct field scratch; /* s, m: double copy for measurements (lazily) */
};

/* shared set-up and tear-down (kernels/gaugefix_cpu_backend.c) */
void gf_cpu_state_init(struct gf_state *s, const struct field *u, char prec);
void gf_cpu_state_free(struct gf_state *s);

#define GF_CPU_DECLARE(sfx)                                                                               \
    void gf_cpu_upload_##sfx(struct gf_state *s, const struct field *u, const double *transform);  \
    void gf_cpu_sweep_##sfx(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy, \
                            uint32_t sweep_index, const unsigned char *active_t);                       \
    void gf_cpu_measure_##sfx(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q);           \
    void gf_cpu_reunitarize_##sfx(struct gf_state *s);                                                    \
    void gf_cpu_download_##sfx(struct gf_state *s, struct field *u, double *transform);
GF_CPU_DECLARE(d)
GF_CPU_DECLARE(s)
GF_CPU_DECLARE(m)

#endif
