/* run_report.c -- the end-of-run report of the configuration-writing
 * programs: its destination and shared keys; run_report.h has the contract. */
#include "shared/run_report.h"
#include "lattice/observables.h"
#include "base/comm.h"
#include "base/log.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

int run_report_to_stdout(const char *output) { return !output || strcmp(output, "-") == 0; }

void run_report_validate(const char *format, const char *output, const char *log_path)
{
    enum report_format f;
    if (report_format_parse(format, &f) != 0 || f == REPORT_TEXT || !log_path) return;
    if (strcmp(log_path, "-") == 0 && !run_report_to_stdout(output))
        cli_usage_error("--log - and the --format %s report cannot both go to standard output", format);
}

struct report *run_report_begin(const char *format, const char *conf_name, const struct lattice *lat, int nc,
                                const char *output)
{
    enum report_format f;
    if (report_format_parse(format, &f) != 0 || f == REPORT_TEXT) return NULL;
    struct report *r = report_new();
    char ext[64];
    snprintf(ext, sizeof ext, "%dx%dx%dx%d", lat->L[0], lat->L[1], lat->L[2], lat->L[3]);
    report_str(r, "file", conf_name ? conf_name : "-");
    report_str(r, "lattice", ext);
    report_int(r, "nc", nc);
    if (!output || *output) report_str(r, "output", run_report_to_stdout(output) ? "-" : output);
    return r;
}

void run_report_gf(struct report *r, const char *gauge, const char *method, const struct gf_result *res)
{
    if (!r) return;
    report_str(r, "gauge", gauge);
    report_str(r, "method", method);
    report_num(r, "F", res->F);
    report_num(r, "theta", res->theta);
    report_int(r, "iterations", res->iterations);
    report_int(r, "sweeps", res->sweeps);
    if (res->converged >= 0) report_bool(r, "converged", res->converged);
    report_num(r, "seconds", res->seconds);
    if (res->nt > 0 && res->F_t && res->theta_t) { /* Coulomb: the keys lat-measure --gauge coulomb prints */
        report_list(r, "F_t", res->F_t, res->nt);
        report_list(r, "theta_t", res->theta_t, res->nt);
    }
}

void run_report_end(struct report *r, const char *format, const char *output)
{
    if (!r) return;
    enum report_format f;
    report_format_parse(format, &f);
    if (comm_is_root()) {
        int to_stderr = run_report_to_stdout(output); /* stdout carries the configuration */
        FILE *s = to_stderr ? stderr : stdout;
        report_print(r, s, f);
        if ((fflush(s) != 0 || ferror(s)) && !to_stderr)
            lat_die(1, "standard output", "write failed: %s", strerror(errno ? errno : EIO));
    }
    report_free(r);
}

void run_report_observables(struct report *r, const struct plaquette *p, double link_trace, double poly_re,
                            double poly_im)
{
    report_num(r, "plaquette", p->all);
    report_num(r, "plaquette_spatial", p->spatial);
    report_num(r, "plaquette_temporal", p->temporal);
    report_num(r, "link_trace", link_trace);
    report_num(r, "polyakov_re", poly_re);
    report_num(r, "polyakov_im", poly_im);
}
