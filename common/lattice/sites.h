/* lattice.h -- geometry of a periodic 4D lattice, header only (C and CUDA).
 *
 * Sites are numbered in ILDG order, x fastest then y, z, t:
 *     site = x + Lx*(y + Ly*(z + Lz*t)),
 * directions mu = 0,1,2,3 = x,y,z,t.  Parity of a site is (x+y+z+t) mod 2.
 * Extents must be even (checkerboard updates need it); lattice_init says so
 * in its error message. */
#ifndef LAT_LATTICE_H
#define LAT_LATTICE_H

#include "base/lat.h"
#include <stdint.h>

struct lattice {
    int L[LAT_ND];  /* extents Lx, Ly, Lz, Lt */
    int64_t V;      /* number of sites */
};

/* Fill lat from four extents; returns 0, or -1 with a reason in *why
 * (non-positive or odd extent, or a volume above 2^31 sites: checked before
 * every multiplication, so no extents overflow it). */
static inline int lattice_init(struct lattice *lat, const int L[LAT_ND], const char **why)
{
    lat->V = 1;
    for (int mu = 0; mu < LAT_ND; mu++) {
        if (L[mu] <= 0) { if (why) *why = "lattice extents must be positive"; return -1; }
        if (L[mu] % 2) { if (why) *why = "lattice extents must be even (checkerboard updates)"; return -1; }
        /* checked before each product: extents up to 2^24 would overflow
         * int64 after the loop (and could wrap to a small volume) */
        if (L[mu] > ((int64_t)1 << 31) / lat->V) { if (why) *why = "lattice volume above 2^31 sites"; return -1; }
        lat->L[mu] = L[mu];
        lat->V *= L[mu];
    }
    return 0;
}

LAT_HD void lattice_coords(const struct lattice *lat, int64_t site, int x[LAT_ND])
{
    for (int mu = 0; mu < LAT_ND; mu++) { x[mu] = (int)(site % lat->L[mu]); site /= lat->L[mu]; }
}

LAT_HD int64_t lattice_site(const struct lattice *lat, const int x[LAT_ND])
{
    return x[0] + (int64_t)lat->L[0] * (x[1] + (int64_t)lat->L[1] * (x[2] + (int64_t)lat->L[2] * x[3]));
}

LAT_HD int lattice_parity(const struct lattice *lat, int64_t site)
{
    int x[LAT_ND];
    lattice_coords(lat, site, x);
    return (x[0] + x[1] + x[2] + x[3]) & 1;
}

/* neighbour of site in direction mu, forward (dir=+1) or backward (dir=-1) */
LAT_HD int64_t lattice_neighbour(const struct lattice *lat, int64_t site, int mu, int dir)
{
    int64_t stride = 1;
    for (int nu = 0; nu < mu; nu++) stride *= lat->L[nu];
    int xm = (int)((site / stride) % lat->L[mu]);
    int xn = xm + dir;
    if (xn < 0) xn += lat->L[mu];
    if (xn >= lat->L[mu]) xn -= lat->L[mu];
    return site + (int64_t)(xn - xm) * stride;
}

#endif
