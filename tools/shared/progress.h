/* progress.h -- what a run shows the user while it works (SPEC §2): the
 * progress line on stderr and the --log TSV history, for every tool.  The
 * algorithm modules report through observers (gaugefix/driver.h,
 * heatbath/chain.h); this file is what turns their samples into text.
 *
 * Exported (progress.c):
 *   progress_init(p, label)        label: the line's prefix (the program);
 *                                  whether to draw the line is decided here
 *                                  (cli_show_progress: rank 0, a terminal or
 *                                  --progress)
 *   progress_log_open(p, path, m)  open --log on this rank (call on rank 0
 *                                  only); exit 1 when it cannot be opened.
 *                                  PROGRESS_LOG_GUARDED: a file this run
 *                                  creates is removed if the run dies (until
 *                                  progress_log_keep).  PROGRESS_LOG_STREAM:
 *                                  "-" is standard output, line-buffered for
 *                                  tail -f, kept whatever happens
 *   progress_log_close(p)          close it; exit 1 on a failed write
 *   progress_log_keep(p)           the output is complete: keep the log
 *   progress_gf_observer(p, g, h)  the gauge-fixing driver's observer:
 *                                  h = wants the history (a --log is open
 *                                  somewhere; measuring is collective, so
 *                                  every rank passes the same h)
 *   progress_hb_observer(p, h)     the heatbath chain's observer (h: as
 *                                  above)
 *
 * The texts (tests/gaugefix.bats and heatbath.bats read them):
 *   gauge fixing: "\r<label>: <gauge> step S/N  F <F>  theta <th>[  T <T>]
 *     <rate> Msite/s  ETA <eta>\033[K", the ETA from the sweep time since
 *     the last measurement and, for relaxation, theta's log-linear slope
 *     towards eps; log: step, functional, theta, [temperature,] seconds
 *     [, slices_left (Coulomb relaxation)].
 *   heatbath: "\r<label>: sweep S/N plaquette P  R link updates/s  ETA E s ";
 *     log: sweep, plaquette, spatial, temporal, polyakov_re, polyakov_im,
 *     seconds.
 * A write error on the log ends the run (exit 1). */
#ifndef LAT_PROGRESS_H
#define LAT_PROGRESS_H

#include "gaugefix/driver.h"
#include "heatbath/chain.h"
#include <stdio.h>

enum progress_log_mode { PROGRESS_LOG_GUARDED, PROGRESS_LOG_STREAM };

struct progress {
    const char *label;  /* progress-line prefix */
    int show;           /* draw the progress line */
    FILE *log;          /* --log on this rank, or NULL */
    const char *log_path;
    enum progress_log_mode log_mode;
    long log_rows;      /* rows written: the header goes before the first */
    enum gauge_kind gauge;
    /* the previous measurement: rate and ETA are over the interval since */
    double prev_seconds, prev_theta;
    long prev_sweeps;
};

void progress_init(struct progress *p, const char *label);
void progress_log_open(struct progress *p, const char *path, enum progress_log_mode mode);
void progress_log_close(struct progress *p);
void progress_log_keep(struct progress *p);
struct gf_observer progress_gf_observer(struct progress *p, enum gauge_kind g, int history);
struct hb_observer progress_hb_observer(struct progress *p, int history);

#endif
