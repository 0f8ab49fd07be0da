/* lattice.h (lattice/lattice.h) -- the public header of common/lattice:
 * sites, the geometry of a decomposition, the field type, the halo
 * exchange, observables, gauge transformations, reprojection.  Each header
 * below states its own contract. */
#ifndef LAT_LATTICE_PUBLIC_H
#define LAT_LATTICE_PUBLIC_H
#include "lattice/sites.h"
#include "lattice/geometry.h"
#include "lattice/field.h"
#include "lattice/halo.h"
#include "lattice/observables.h"
#include "lattice/gauge_transform.h"
#include "lattice/reproject.h"
#endif
