/* lat-convert -- convert a gauge configuration between file formats (ILDG,
 * NERSC, MILC, openQCD, SciDAC, HiRep) and between 32- and 64-bit precision
 * (--file-precision; --precision is its old
 * spelling), validate one (--check), or write out the gauge transformation
 * it carries (--extract-transform).  --format tsv|json: --check's summary,
 * or the conversion's report (shared/run_report.h).  The work is done by
 * common/conf.c; see lat-convert(1).  --strip-boundary-sign removes the
 * antiperiodic sign QUDA/SIMULATeQCD bake into the time links at t=LT-1
 * (only when conf_read found it: common/io/bsign.c). */
#include "base/cli.h"
#include "base/comm.h"
#include "io/conf.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "base/report.h"
#include "shared/run_report.h"
#include <stdio.h>
#include <errno.h>
#include <string.h>

static void check_report(const struct conf *c, enum report_format fmt)
{
    char lattice[64];
    const int *L = c->u.lat.L;
    snprintf(lattice, sizeof lattice, "%dx%dx%dx%d", L[0], L[1], L[2], L[3]);
    double plaq = measure_plaquette(&c->u).all, linktr = measure_link_trace(&c->u);
    struct unitarity un = measure_unitarity(&c->u);
    if (fmt == REPORT_TEXT) {
        const char *sign = c->check.boundary_sign > 0   ? ", time links at t=LT-1 carry the antiperiodic sign (det U = -1)"
                           : c->check.boundary_sign < 0 ? ", boundary sign undetectable (even N)"
                                                        : "";
        printf("%s: %s SU(%d) %s %d-bit, checksum %s%s, plaquette %.10f%s, link trace %.10f%s, unitarity max %.1e%s%s%s\n",
               c->name, c->check.detail, c->u.nc, lattice, c->file_prec,
               c->check.checksum[0] ? c->check.checksum : "none", c->check.checksum[0] ? " ok" : "", plaq, c->check.has_plaq ? " (matches file)" : "",
               linktr, c->check.has_linktr ? " (matches file)" : "", un.max,
               c->history ? ", history" : "", c->transform ? ", gauge transform" : "", sign);
        return;
    }
    struct report *r = report_new();
    report_str(r, "file", c->name);
    report_str(r, "format", c->check.detail);
    report_int(r, "nc", c->u.nc);
    report_str(r, "lattice", lattice);
    report_int(r, "precision", c->file_prec);
    report_str(r, "checksum", c->check.checksum[0] ? c->check.checksum : "none");
    report_num(r, "plaquette", plaq);
    if (c->check.has_plaq) report_num(r, "header_plaquette", c->check.plaq);
    report_num(r, "link_trace", linktr);
    if (c->check.has_linktr) report_num(r, "header_link_trace", c->check.linktr);
    report_num(r, "unitarity_max", un.max);
    report_str(r, "boundary_sign", conf_boundary_sign_word(c->check.boundary_sign));
    report_int(r, "records_carried", c->nkeep);
    long long nh = 0;
    for (const char *p = c->history; p && *p; p++) nh += *p == '\n';
    report_int(r, "history_entries", nh);
    report_int(r, "gauge_transform", c->transform != NULL);
    /* the keys lat-measure and lat-unitarity give the same quantities
     * (format and precision above are kept for the scripts that read them) */
    report_str(r, "file_format", conf_format_name(c->format));
    report_int(r, "file_precision", c->file_prec);
    report_print(r, stdout, fmt);
    report_free(r);
    if (fflush(stdout) != 0 || ferror(stdout)) lat_die(1, "standard output", "write failed: %s", strerror(errno ? errno : EIO));
}

int main(int argc, char **argv)
{
    const char *out = NULL, *to = "ildg", *prec = NULL, *extract = NULL, *format = "text";
    int nersc_3x3 = 0, check = 0, strip_sign = 0;
    long long nersc_seq = 0;
    const char *nersc_label = NULL;
    struct cli_opt opts[] = {
        {"output", 'o', CLI_STRING, &out, "FILE", "write the configuration here (default standard output)", NULL, 0},
        {"to", 0, CLI_CHOICE, &to, "FORMAT", "output format (default ildg)", CONF_FORMAT_CHOICES, 0},
        {"file-precision", 0, CLI_CHOICE, &prec, "BITS", "bits per real in the file written (default: the input's)", "32|64", 0},
        {"precision", 0, CLI_CHOICE, &prec, "BITS", "old spelling of --file-precision (lat-convert does no arithmetic)", "32|64", 0},
        {"3x3", 0, CLI_FLAG, &nersc_3x3, NULL, "NERSC: store all three rows (4D_SU3_GAUGE_3x3)", NULL, 0},
        {"sequence-number", 0, CLI_LONG, &nersc_seq, "N", "NERSC SEQUENCE_NUMBER, >= 1 (default: the history's sweep counter, else the input's, else 1)", NULL, 0},
        {"ensemble-label", 0, CLI_STRING, &nersc_label, "TEXT", "NERSC ENSEMBLE_LABEL (default: the input's, else lat)", NULL, 0},
        {"check", 0, CLI_FLAG, &check, NULL, "validate the input and print a summary; write nothing", NULL, 0},
        {"format", 0, CLI_CHOICE, &format, "FMT", "report: --check's summary, or what a conversion did (text: nothing; tsv/json on stdout, on stderr when stdout carries the configuration)", "text|tsv|json", 0},
        {"extract-transform", 0, CLI_STRING, &extract, "FILE", "write the tracked gauge transformation g(x) to FILE (a SciDAC ColorMatrix file)", NULL, 0},
        {"strip-boundary-sign", 0, CLI_FLAG, &strip_sign, NULL,
         "multiply the time links at t=LT-1 by -1 (only when they carry the antiperiodic sign, det U = -1)", NULL, 0},
        {0}};
    struct cli_info info = {"lat-convert", "[OPTIONS] [INPUT]",
                            "Convert a gauge configuration between file formats (ILDG, NERSC, MILC, openQCD, SciDAC, HiRep) and precisions, or validate it."};
    int first = cli_parse(&info, opts, argc, argv);
    comm_one_rank(); /* one process's work: under mpirun rank 0 does it */
    if (argc - first > 1) cli_usage_error("one INPUT at most, got %d", argc - first);
    const char *input = first < argc ? argv[first] : NULL;
    int to_nersc = strcmp(to, "nersc") == 0;
    if (nersc_3x3 && !to_nersc) cli_usage_error("--3x3 applies to --to nersc only");
    if (cli_given(opts, "sequence-number") && !to_nersc) cli_usage_error("--sequence-number applies to --to nersc only");
    if (nersc_label && !to_nersc) cli_usage_error("--ensemble-label applies to --to nersc only");
    if (cli_given(opts, "sequence-number") && nersc_seq < 1)
        cli_usage_error("--sequence-number must be >= 1 (NERSC sequence numbers count from 1), got %lld", nersc_seq);
    const char *why = nersc_label ? conf_nersc_label_problem(nersc_label) : NULL;
    if (why) cli_usage_error("--ensemble-label cannot be written into a NERSC header: %s", why);
    if (check && (out || extract || cli_given(opts, "to") || prec || nersc_3x3))
        cli_usage_error("--check writes nothing: it takes no -o, --to, --file-precision, --3x3 or --extract-transform");
    if (strip_sign && check) cli_usage_error("--check writes nothing: it does not combine with --strip-boundary-sign");
    if (strip_sign && extract && !out)
        cli_usage_error("--strip-boundary-sign changes the configuration written: with --extract-transform it needs -o");
    if (extract && out && strcmp(extract, out) == 0) cli_usage_error("--extract-transform and -o name the same file");

    struct conf c;
    conf_read(input, &c);
    if (check) {
        enum report_format rf;
        report_format_parse(format, &rf);
        check_report(&c, rf);
        conf_free(&c);
        return LAT_OK;
    }
    /* before anything is written: exit 1 unless the sign is there */
    long long stripped = strip_sign ? (long long)conf_strip_boundary_sign(&c) : -1;
    /* the conversion's report (--format tsv|json) describes the input as
     * read; the configuration written holds the same links at its precision */
    int writes_conf = out || !extract; /* --extract-transform alone writes no configuration */
    const char *dest = writes_conf ? out : ""; /* "": no output key */
    /* the report goes to stderr when the configuration or the transform
     * takes standard output */
    int stdout_busy = (writes_conf && run_report_to_stdout(out)) || (extract && run_report_to_stdout(extract));
    const char *report_to = stdout_busy ? NULL : "";
    struct report *rep = run_report_begin(format, c.name, &c.u.lat, c.u.nc, dest);
    if (rep) {
        report_str(rep, "from", conf_format_name(c.format));
        report_num(rep, "plaquette", measure_plaquette(&c.u).all);
        report_num(rep, "link_trace", measure_link_trace(&c.u));
    }
    if (extract) {
        conf_write_transform(extract, &c);
        if (rep) report_str(rep, "transform", run_report_to_stdout(extract) ? "-" : extract);
        if (!out) {
            conf_free(&c);
            run_report_end(rep, format, report_to);
            return LAT_OK;
        }
    }
    struct conf_write_opts wo = {conf_format_parse(to), prec ? (prec[0] == '3' ? 32 : 64) : 0, nersc_3x3, nersc_seq,
                                 nersc_label};
    if (wo.format == CONF_ILDG || wo.format == CONF_SCIDAC) { /* the LIME formats carry the history */
        char res[256];
        int n = snprintf(res, sizeof res, "from=%s to=%s precision=%d", conf_format_name(c.format), to,
                         wo.prec ? wo.prec : c.file_prec);
        if (stripped >= 0)
            snprintf(res + n, sizeof res - (size_t)n,
                     " boundary_sign=stripped (the %lld time links at t=LT-1 multiplied by -1)", stripped);
        conf_history_add(&c, res);
    }
    conf_write(out, &c, &wo);
    if (rep) {
        report_str(rep, "to", to);
        report_int(rep, "file_precision", wo.prec ? wo.prec : c.file_prec);
    }
    conf_free(&c);
    run_report_end(rep, format, report_to);
    return LAT_OK;
}
