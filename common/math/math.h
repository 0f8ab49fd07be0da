/* math.h (math/math.h) -- the public header of common/math: complex and
 * SU(N) algebra, su(N) and its exponential, the SU(2) heatbath draw, Philox
 * streams, Dirac spinors and gamma matrices; header only, C and CUDA.  Each header below states its own
 * contract. */
#ifndef LAT_MATH_H
#define LAT_MATH_H
#include "math/sun.h"
#include "math/rng.h"
#include "math/su2_heatbath.h"
#include "math/algebra.h"
#include "math/spinor.h"
#endif
