/* solvers/scalar_rn.h -- one IEEE double operation each, rounded to nearest
 * and never contracted into a fused multiply-add, for the scalar steps a
 * solver's host loop and a GPU's device loop both take (multishift_step.h,
 * bicgstab_step.h): the two loops then give the same bits.  The host build
 * is ISO C (no contraction); on the device nvcc would contract a * b + c,
 * so there the _rn intrinsics are used.
 *   RN_MUL(a, b), RN_ADD(a, b), RN_SUB(a, b), RN_DIV(a, b), RN_SQRT(a) */
#ifndef LAT_SOLVERS_SCALAR_RN_H
#define LAT_SOLVERS_SCALAR_RN_H

#include <math.h>

#ifdef __CUDA_ARCH__
#define RN_MUL(a, b) __dmul_rn(a, b)
#define RN_ADD(a, b) __dadd_rn(a, b)
#define RN_SUB(a, b) __dsub_rn(a, b)
#define RN_DIV(a, b) __ddiv_rn(a, b)
#define RN_SQRT(a) __dsqrt_rn(a)
#else
#define RN_MUL(a, b) ((a) * (b))
#define RN_ADD(a, b) ((a) + (b))
#define RN_SUB(a, b) ((a) - (b))
#define RN_DIV(a, b) ((a) / (b))
#define RN_SQRT(a) sqrt(a)
#endif

#endif
