/* heatbath_cpu.h -- the per-precision sweeps of the CPU heatbath backend
 * (kernels/heatbath_cpu.c, compiled as _d, _s, _m) and the geometry they
 * share (built once by kernels/heatbath_backend.c).
 *
 * links: the field in ILDG order (field.h), double for _d, float for _s
 * and _m.  Sweep order and random streams: heatbath_backend.h. */
#ifndef LAT_HEATBATH_CPU_H
#define LAT_HEATBATH_CPU_H

#include "lattice/geometry.h"
#include "lattice/sites.h"
#include <stdint.h>

struct hb_geom {
    struct lattice lat;
    uint32_t *nb;        /* nb[8*x + mu] = x + mu, nb[8*x + 4 + mu] = x - mu */
    /* the owned sites of (global) parity p, ascending; on a slab (dom) the
     * nbound[p] sites of the boundary slices come first */
    uint32_t *sites[2];
    int64_t nsites[2], nbound[2];
    const struct geometry *dom; /* NULL: the whole lattice (geometry.h) */
};

void hb_geom_init(struct hb_geom *g, const struct lattice *lat);
/* the same for this rank's slab (dom may be NULL) */
void hb_geom_init_dom(struct hb_geom *g, const struct lattice *lat, const struct geometry *dom);
void hb_geom_free(struct hb_geom *g);

void hb_cpu_heatbath_d(const struct hb_geom *g, int nc, void *links, double beta, uint64_t seed, uint32_t k);
void hb_cpu_heatbath_s(const struct hb_geom *g, int nc, void *links, double beta, uint64_t seed, uint32_t k);
void hb_cpu_heatbath_m(const struct hb_geom *g, int nc, void *links, double beta, uint64_t seed, uint32_t k);
void hb_cpu_overrelax_d(const struct hb_geom *g, int nc, void *links);
void hb_cpu_overrelax_s(const struct hb_geom *g, int nc, void *links);
void hb_cpu_overrelax_m(const struct hb_geom *g, int nc, void *links);

#endif
