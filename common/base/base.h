/* base.h -- the public header of common/base: errors and logging, the
 * option parser, the processes of a run, output files and reports.  Each
 * header below states its own contract. */
#ifndef LAT_BASE_H
#define LAT_BASE_H
#include "base/lat.h"
#include "base/log.h"
#include "base/cli.h"
#include "base/comm.h"
#include "base/output.h"
#include "base/report.h"
#include "base/clock.h"
#endif
