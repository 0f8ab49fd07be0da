/* io.h (io/io.h) -- the public header of common/io: configurations, their
 * records and formats, and their distributed read and write.  Each header
 * below states its own contract. */
#ifndef LAT_IO_H
#define LAT_IO_H
#include "io/conf.h"
#include "io/dist.h"
#include "io/propagator.h"
#endif
