/* fft/fft.h -- discrete Fourier transforms of fields of complex numbers on
 * the lattice, for one rank or a t-slab decomposition (lattice/geometry.h);
 * the CPU side (FFTW3), built once per precision variant (cpu/variant.h:
 * the functions are fft_*_d, fft_*_s, fft_*_m, computing in lat_real --
 * FFTW's double or float library).
 *
 * A transform object is made for a global lattice, its decomposition (NULL:
 * one rank) and a number of components ncomp; it transforms in place a
 * buffer of ncomp x fft_count(f) lat_complex.  Layouts, per component
 * (component slowest):
 *   position space: the owned sites of this rank in ILDG order (x fastest),
 *     timeslice by timeslice (lt * V3 numbers; no halo slices);
 *   momentum space, dims 3: the same (each timeslice transformed on its
 *     own: k = (kx, ky, kz) per slice);
 *   momentum space, dims 4: [kt][k3] with kt = 0 .. Lt-1 slowest and k3 the
 *     spatial momenta of this rank's chunk [k3_begin, k3_end) of the V3
 *     (x fastest) -- after the transpose between t-slabs; one rank: all.
 * fft_momentum(f, j, k) gives the momentum components of entry j of a
 * component in momentum space.
 *
 * Both directions are unnormalised (forward e^{-2 pi i k.x/L}, backward
 * e^{+...}; backward(forward(a)) = N a with N = V3 or V).  The arithmetic
 * does not depend on the number of ranks or OpenMP threads: every 3-D
 * transform is one timeslice of one component and every 1-D transform one
 * line along t, each run by one thread through the same plan (FFTW_ESTIMATE
 * | FFTW_UNALIGNED: no timing, no alignment-dependent codelets) on a
 * contiguous copy; the transpose only moves numbers.  So the bits are the
 * same for any R and any thread count.
 *
 * Built without FFTW (make FFT=0) fft_create dies with one line. */
#ifndef LAT_FFT_H
#define LAT_FFT_H

#include "cpu/variant.h"
#include "lattice/geometry.h"
#include <stdint.h>

struct lat_fft;

struct lat_fft *CPU_VARIANT(fft_create)(const struct lattice *global, const struct geometry *dom, int dims, int ncomp);
void CPU_VARIANT(fft_destroy)(struct lat_fft *f);
/* numbers per component the buffer must hold: the larger of the two layouts */
int64_t CPU_VARIANT(fft_count)(const struct lat_fft *f);
/* numbers per component in momentum space on this rank */
int64_t CPU_VARIANT(fft_kcount)(const struct lat_fft *f);
void CPU_VARIANT(fft_forward)(struct lat_fft *f, lat_complex *buf);
void CPU_VARIANT(fft_backward)(struct lat_fft *f, lat_complex *buf);
/* dims 3: leave the timeslices t (global) with on[t] = 0 untransformed
 * from now on (their numbers in the buffer are left as they are); on is
 * kept, not copied; NULL: every slice */
void CPU_VARIANT(fft_skip)(struct lat_fft *f, const unsigned char *on);
/* k[0..3] of momentum-space entry j (0 <= j < fft_kcount); dims 3: k[3] is
 * the (global) timeslice */
void CPU_VARIANT(fft_momentum)(const struct lat_fft *f, int64_t j, int k[4]);

#endif
