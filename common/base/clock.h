/* clock.h -- wall time for the programs' timing splits and benchmarks.
 *
 *   lat_clock()   seconds on a monotonic clock (CLOCK_MONOTONIC): only
 *                 differences mean anything; never steps with the date. */
#ifndef LAT_BASE_CLOCK_H
#define LAT_BASE_CLOCK_H

double lat_clock(void);

#endif
