/* su2_heatbath.h -- drawing an SU(2) element from the heatbath distribution,
 * header only (C and CUDA), shared by simulated annealing (gauge fixing) and
 * lat-heatbath (link updates).
 *
 * su2_heatbath_x(r, a) returns a unit quaternion x distributed as
 *     dP(x) ~ exp(a x0) dHaar(x),   a >= 0,
 * i.e. x0 has density ~ sqrt(1 - x0^2) exp(a x0) on [-1,1] and the vector
 * part points in a uniformly random direction.  For a >= 2 the
 * Kennedy-Pendleton method is used (acceptance > 0.7 there), below it
 * Creutz's (which is exact and efficient for small a); a = 0 is Haar.
 * The number of random numbers drawn depends on the rejections, so the GPU
 * reproduces the CPU only by making the same calls on the same stream.
 * Bounded: returns after at most SU2_HB_MAX_TRIES trials, and at once with
 * x0 = NaN for a = NaN (see below). */
#ifndef LAT_SU2_HEATBATH_H
#define LAT_SU2_HEATBATH_H

#include "math/rng.h"
#include "math/sun.h"

/* Every rejection loop is bounded.  On finite a >= 0 the acceptance rate is
 * above 0.68 in every branch (measured: Creutz 0.69 at a = 1.99, 0.79 near
 * 0; Kennedy-Pendleton 0.76 at a = 2, -> 1 for large a; Haar 0.79), so
 * SU2_HB_MAX_TRIES rejections in a row have probability < 0.32^10000 =
 * 1e-4948: the bound never changes an accepted
 * result, it only turns "never ends" into an answer.  A non-finite a (NaN:
 * links that are NaN, or |k| = 0 at T = 0) would make every trial compare
 * false and the loop run forever -- the GPU anneal hang of
 * docs/PERFORMANCE.md -- so it returns NaN at once instead: the NaN reaches
 * the links and the driver's F/theta check stops the run with one line.
 * a = +inf (T = 0, k != 0) is the limit x0 = 1, which Kennedy-Pendleton
 * gives on its first trial. */
#define SU2_HB_MAX_TRIES 10000

LAT_HD lat_real su2_heatbath_x0(struct lat_rng *r, double a)
{
    if (a != a) return (lat_real)a; /* NaN in, NaN out */
    if (a >= 2.0) { /* Kennedy-Pendleton */
        for (int t = 0; t < SU2_HB_MAX_TRIES; t++) {
            double r1 = rng_uniform(r), r2 = rng_uniform(r), r3 = rng_uniform(r), r4 = rng_uniform(r);
            double c = cos(6.283185307179586 * r2);
            double l2 = -(log(r1) + c * c * log(r3)) / (2.0 * a);
            if (r4 * r4 <= 1.0 - l2) return (lat_real)(1.0 - 2.0 * l2);
        }
        return 1; /* the mode (unreachable in practice) */
    }
    if (a < 1e-12) { /* Haar: x0 density ~ sqrt(1-x0^2): accept-reject from uniform */
        for (int t = 0; t < SU2_HB_MAX_TRIES; t++) {
            double x0 = 2.0 * rng_uniform(r) - 1.0, u = rng_uniform(r);
            if (u * u <= 1.0 - x0 * x0) return (lat_real)x0;
        }
        return 0;
    }
    /* Creutz: x0 from exp(a x0) on [-1,1] by inversion, accept with sqrt(1-x0^2) */
    double e = exp(-2.0 * a);
    for (int t = 0; t < SU2_HB_MAX_TRIES; t++) {
        double y = e + (1.0 - e) * rng_uniform(r);
        double x0 = 1.0 + log(y) / a;
        double u = rng_uniform(r);
        if (x0 > -1.0 && u * u <= 1.0 - x0 * x0) return (lat_real)x0;
    }
    return 1;
}

/* a unit vector part of length sqrt(1 - x0^2) in a uniform direction */
LAT_HD lat_su2 su2_with_random_direction(struct lat_rng *r, lat_real x0)
{
    double ct = 2.0 * rng_uniform(r) - 1.0;
    double phi = 6.283185307179586 * rng_uniform(r);
    double st = sqrt(1.0 - ct * ct);
    double len = sqrt(1.0 - (double)x0 * x0 > 0 ? 1.0 - (double)x0 * x0 : 0);
    lat_su2 x;
    x.q[0] = x0;
    x.q[1] = (lat_real)(len * st * cos(phi));
    x.q[2] = (lat_real)(len * st * sin(phi));
    x.q[3] = (lat_real)(len * ct);
    return x;
}

LAT_HD lat_su2 su2_heatbath_x(struct lat_rng *r, double a)
{
    lat_real x0 = su2_heatbath_x0(r, a);
    return su2_with_random_direction(r, x0);
}

#endif
