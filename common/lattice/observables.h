/* observables.h -- gauge-invariant measurements of a double-precision host
 * field (SPEC §3 normalisations, SU(N) for any N).
 *
 * Plaquette P = 1/(6 Nc V) sum_{x,mu<nu} Re tr U_munu(x) (1 for the unit
 * field), with the spatial (mu,nu < 3) and temporal (nu = t) averages;
 * link trace = 1/(4 Nc V) sum Re tr U; Polyakov loop = 1/(Nc V3) sum_xvec tr
 * prod_t U_t(xvec,t); unitarity deviation per link ||U^dag U - 1||_F and
 * |det U - 1|.  Sums run in a fixed order (deterministic). */
#ifndef LAT_OBSERVABLES_H
#define LAT_OBSERVABLES_H

#include "lattice/field.h"

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

struct plaquette { double all, spatial, temporal; };
struct unitarity { double mean, max, det_mean, det_max; };

struct plaquette measure_plaquette(const struct field *u);
/* sum over all plaquettes of Re tr U_P, unnormalised (the Wilson action's
 * sum: lat-hmc), in the same fixed order; over every rank on a slab */
long double measure_plaquette_sum(const struct field *u);
double measure_link_trace(const struct field *u);
void measure_polyakov(const struct field *u, double *re, double *im);
struct unitarity measure_unitarity(const struct field *u);

#ifdef __cplusplus
}
#endif

#endif
