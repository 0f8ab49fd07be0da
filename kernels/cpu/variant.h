/* cpu/variant.h -- the storage and compute precision of a CPU kernel file,
 * the CPU side of what gpu/accessor.cuh is on the GPU.  A CPU kernel file
 * (kernels/<module>/cpu.c) is compiled once per precision variant (the
 * Makefile's build/%_{d,s,m}.o rules): -DLAT_VARIANT_D with LAT_REAL double
 * (double storage and arithmetic), -DLAT_VARIANT_S with LAT_REAL float, or
 * -DLAT_VARIANT_M with LAT_REAL double (float storage, double arithmetic).
 * It includes this header first and gets:
 *   cpu_store            the storage type (double, or float for s and m)
 *   CPU_VARIANT(name)    name_d, name_s or name_m: its entry points
 *   CPU_DIRECT           1 when storage and arithmetic share one layout
 *                        (the field can be read in place as lat_complex)
 *   CPU_INLINE           static inline, forced with GCC and clang
 *   cpu_load(n, m, p)    n complex numbers from storage p into m (widened)
 *   cpu_store_to(n, p, m)  n complex numbers of m into storage p (rounded)
 * The physics functions (math/, gaugefix/site.h, heatbath/link.h) compute
 * in lat_complex, the compute precision; only these two convert. */
#ifndef LAT_CPU_VARIANT_H
#define LAT_CPU_VARIANT_H

#include "math/sun.h"

#if defined(LAT_VARIANT_D)
typedef double cpu_store;
#define CPU_VARIANT(name) name##_d
#elif defined(LAT_VARIANT_S)
typedef float cpu_store;
#define CPU_VARIANT(name) name##_s
#elif defined(LAT_VARIANT_M)
typedef float cpu_store;
#define CPU_VARIANT(name) name##_m
#else
#error "a CPU kernel file is compiled with -DLAT_VARIANT_D, _S or _M (the Makefile's cpu.c rules)"
#endif

#define CPU_DIRECT (sizeof(cpu_store) == sizeof(lat_real))

#if defined(__GNUC__)
#define CPU_INLINE static inline __attribute__((always_inline))
#else
#define CPU_INLINE static inline
#endif

CPU_INLINE void cpu_load(int n, lat_complex *m, const cpu_store *p)
{
    for (int a = 0; a < n; a++) {
        m[a].re = (lat_real)p[2 * a];
        m[a].im = (lat_real)p[2 * a + 1];
    }
}

CPU_INLINE void cpu_store_to(int n, cpu_store *p, const lat_complex *m)
{
    for (int a = 0; a < n; a++) {
        p[2 * a] = (cpu_store)m[a].re;
        p[2 * a + 1] = (cpu_store)m[a].im;
    }
}

#endif
