/* run_report.h -- the end-of-run report of the programs that write a
 * configuration (lat-heatbath, lat-randomize-orbit, lat-anneal,
 * lat-overrelax, lat-fourier, lat-convert, lat-unitarity --reproject):
 * --format text|tsv|json, where the report goes, and the keys every such
 * program shares (lat(7), REPORTS).
 *
 *   RUN_REPORT_OPTION(fmt)           the --format entry of an option table
 *   struct report *r = run_report_begin(fmt, conf_name, &lat, nc, output);
 *       NULL for text: the program keeps its one summary line on stderr
 *       (lat_info, silenced by -q); else a report with file (the input's
 *       name; "-" for none), lattice, nc and output (the configuration's
 *       destination, "-" for standard output; output "" = no configuration
 *       written: no key, and the report goes to standard output)
 *   run_report_gf(r, gauge, method, &res)   gauge, method, F, theta,
 *       iterations, sweeps, converged (when the method has a criterion),
 *       seconds; Coulomb: the lists F_t and theta_t
 *   ...report_num(r, ...) for the program's own keys...
 *   run_report_end(r, fmt, output)   after the configuration is completely
 *       written: the report on standard output, or on standard error when
 *       standard output carries the configuration (output NULL or "-"); rank
 *       0 alone prints; a failed write to standard output is exit 1; frees r.
 *       Does nothing for r == NULL.
 *
 *   run_report_validate(fmt, output, log)   usage error (exit 2) when the
 *       tsv/json report and a --log - would share standard output
 *
 * A report asked for with --format json|tsv is printed under -q too (it is
 * the output asked for, not commentary).  Every function may be called on
 * every rank of an MPI run; those that measure (none here) would be
 * collective. */
#ifndef LAT_RUN_REPORT_H
#define LAT_RUN_REPORT_H

#include "base/cli.h"
#include "base/report.h"
#include "gaugefix/driver.h"
#include "lattice/sites.h"

#define RUN_REPORT_OPTION(fmt)                                                                                 \
    {"format", 0, CLI_CHOICE, &(fmt), "FMT",                                                                   \
     "end-of-run report: text (the summary line on stderr, if any), or tsv/json (on stdout; on stderr when "   \
     "stdout carries the configuration)",                                                                      \
     "text|tsv|json", 0}

/* Does the configuration go to standard output? (output NULL or "-") */
int run_report_to_stdout(const char *output);
void run_report_validate(const char *format, const char *output, const char *log_path);
struct report *run_report_begin(const char *format, const char *conf_name, const struct lattice *lat, int nc,
                                const char *output);
void run_report_gf(struct report *r, const char *gauge, const char *method, const struct gf_result *res);
/* The observables of a configuration under the keys lat-measure prints:
 * plaquette, plaquette_spatial, plaquette_temporal, link_trace,
 * polyakov_re, polyakov_im (lat-measure's report and lat-heatbath's). */
struct plaquette;
void run_report_observables(struct report *r, const struct plaquette *p, double link_trace, double poly_re,
                            double poly_im);
void run_report_end(struct report *r, const char *format, const char *output);

#endif
