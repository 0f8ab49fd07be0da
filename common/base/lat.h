/* lat.h -- what every file of the toolkit includes first.
 *
 * Offers the version string, the LAT_HD qualifier that makes a static inline
 * function usable both from C and from CUDA device code, and the exit codes
 * of SPEC §2 (0 ok, 1 data/runtime error, 2 usage error, 3 not converged). */
#ifndef LAT_LAT_H
#define LAT_LAT_H

#define LAT_VERSION "0.1.0"

#ifdef __CUDACC__
#define LAT_HD __host__ __device__ __forceinline__
#else
#define LAT_HD static inline
#endif

enum lat_exit { LAT_OK = 0, LAT_EDATA = 1, LAT_EUSAGE = 2, LAT_ENOCONV = 3 };

#define LAT_ND 4 /* space-time dimensions */
#define LAT_NC_MAX 8 /* largest N of SU(N) the host code handles */

#endif
