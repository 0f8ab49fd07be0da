/* reproject.h -- projecting every link of a host field back onto SU(N).
 *
 * field_reproject() applies sun_reunitarize (sun.h: Gram-Schmidt on the
 * rows, then det = 1) to every link of a double-precision field, in place.
 * Returns the number of links that could not be projected (a zero or
 * non-finite row gives non-finite numbers); 0 means every link is now in
 * SU(N) to rounding. */
#ifndef LAT_REPROJECT_H
#define LAT_REPROJECT_H

#include "lattice/field.h"
#include <stdint.h>

int64_t field_reproject(struct field *u);

#endif
