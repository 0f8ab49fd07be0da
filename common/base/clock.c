/* clock.c -- lat_clock (clock.h). */
#include "base/clock.h"
#include <time.h>

double lat_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
