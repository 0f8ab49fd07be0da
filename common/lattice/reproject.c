/* reproject.c -- every link of a host field back onto SU(N); see reproject.h. */
#include "lattice/reproject.h"
#include "base/log.h"
#include "math/sun.h"
#include <math.h>

static inline int64_t reproject_all(struct field *u, int n)
{
    int64_t bad = 0;
    for (int64_t s = 0; s < u->lat.V; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            lat_complex *m = (lat_complex *)field_link(u, s, mu);
            sun_reunitarize(n, m);
            int ok = 1;
            for (int k = 0; k < n * n; k++) ok &= isfinite(m[k].re) && isfinite(m[k].im);
            bad += !ok;
        }
    return bad;
}

int64_t field_reproject(struct field *u)
{
    if (u->prec != 64) lat_die(1, NULL, "internal error: field_reproject needs a double-precision field");
    if (u->nc < 1 || u->nc > LAT_NC_MAX) lat_die(1, NULL, "internal error: SU(%d) not supported", u->nc);
    return u->nc == 3 ? reproject_all(u, 3) : reproject_all(u, u->nc);
}
