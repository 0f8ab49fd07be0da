/* lat-measure -- observables of a gauge configuration (SPEC §1, §3).
 *
 * lat-measure [OPTIONS] [INPUT]: reads one configuration (file or standard
 * input) and prints plaquette (all, spatial, temporal), link trace, Polyakov
 * loop, unitarity deviation, lattice and N; --gauge adds the gauge functional
 * F and theta (Coulomb: per timeslice too); --history prints the lat-history
 * record instead.  Output as --format text|tsv|json on standard output.
 * --device gpu|auto (auto: the GPU when one is usable): plaquette, link
 * trace, Polyakov loop and unitarity on the GPU (gpu_field_observables,
 * double storage, every N of gpu/gpu.h, one process); F and theta of
 * --gauge and runs of several ranks are measured on the CPU.
 * boundary_sign says whether the time links at t=LT-1 carry the antiperiodic
 * sign QUDA/SIMULATeQCD bake in (common/io/bsign.c): reported, never refused
 * (dist_read_to_measure), so a producer's plaquette can always be checked.
 * Exit 0 ok, 1 unreadable input or no GPU for --device gpu, 2 usage.
 * See lat-measure(1). */
#include "base/cli.h"
#include "base/comm.h"
#include "io/dist.h"
#include "gaugefix/site.h"
#include "gpu/gpu.h"
#include "shared/device_opt.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#ifdef LAT_HAVE_CUDA
#include "gpu/field.h"
#endif
#include "base/report.h"
#include "shared/run_report.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *format = "text", *gauge = NULL, *convention = "paper", *device = NULL;
    int history = 0;
    struct cli_opt opts[] = {
        {"format", 0, CLI_CHOICE, &format, "FMT", "report format", "text|tsv|json", 0},
        {"gauge", 'g', CLI_CHOICE, &gauge, "GAUGE", "also report the gauge functional F and theta", "landau|coulomb|mag", 0},
        {"theta-convention", 0, CLI_CHOICE, &convention, "C", "theta as in the paper, or 4x as cuLGT/QUDA/GLU print it", "paper|culgt", 0},
        {"history", 0, CLI_FLAG, &history, NULL, "print the lat-history record of the input instead of measuring", NULL, 0},
        {"device", 0, CLI_CHOICE, &device, "DEV", "backend (default auto; LAT_DEVICE overrides auto)", "cpu|gpu|auto", 0},
        {0}};
    struct cli_info info = {"lat-measure", "[OPTIONS] [INPUT]",
                            "Measure plaquette, link trace, Polyakov loop, unitarity and gauge quality of a configuration."};
    int first = cli_parse(&info, opts, argc, argv);
    if (argc - first > 1) cli_usage_error("one INPUT at most (got %d)", argc - first);
    const char *input = first < argc ? argv[first] : NULL;
    if (history && gauge) cli_usage_error("--history prints only the history: it does not combine with --gauge");

    enum report_format fmt;
    report_format_parse(format, &fmt);
    enum gauge_kind gk = GAUGE_LANDAU;
    if (gauge && gauge_kind_parse(gauge, &gk) != 0) cli_usage_error("--gauge: unknown gauge '%s'", gauge);
    double theta_factor = convention[0] == 'c' ? 4.0 : 1.0;

    enum backend be = backend_choose(device);
    const char *asked = device && *device ? device : getenv("LAT_DEVICE");
    int gpu_asked = asked && strcmp(asked, "gpu") == 0;

    /* under mpirun rank 0 reads and reports, every rank measures its slab */
    struct dist x;
    dist_read_to_measure(&x, input, NULL, NULL); /* a boundary sign is reported, not refused */
    const struct conf *c = &x.c;
    if (history) {
        if (comm_is_root()) {
            if (!c->history) lat_info("note: %s has no lat-history record", c->name);
            report_history(stdout, fmt, c->name, c->history);
            if (fflush(stdout) != 0 || ferror(stdout)) lat_die(1, "standard output", "write failed");
        }
        dist_free(&x);
        return LAT_OK;
    }

    const struct field *u = x.u;
    struct plaquette p;
    struct unitarity un;
    double lt, pre, pim;
    int on_gpu = be == BACKEND_GPU && !u->dom;
    if (be == BACKEND_GPU && !on_gpu) lat_debug("the observables run on the CPU (several ranks)");
    if (on_gpu) { /* an N without GPU kernels: the one refusal (gpu asked) or the CPU (auto) */
        struct device_choice dc = {1, gpu_asked};
        struct device_caps caps = {"observables", 1, GPU_MIN_NC, GPU_MAX_NC};
        on_gpu = device_opt_fits(&dc, &caps, u->nc);
    }
#ifdef LAT_HAVE_CUDA
    if (on_gpu) {
        struct gpu_field f;
        struct gpu_observables o;
        gpu_field_create(&f, u, 'd', 0);
        gpu_field_upload(&f, u, NULL);
        gpu_field_observables(&f, &o);
        gpu_field_free(&f);
        p.all = o.plaq;
        p.spatial = o.plaq_s;
        p.temporal = o.plaq_t;
        lt = o.link_trace;
        pre = o.poly_re;
        pim = o.poly_im;
        un.mean = o.unit_mean;
        un.max = o.unit_max;
        un.det_mean = o.det_mean;
        un.det_max = o.det_max;
    } else
#endif
    {
        (void)on_gpu;
        p = measure_plaquette(u);
        lt = measure_link_trace(u);
        measure_polyakov(u, &pre, &pim);
        un = measure_unitarity(u);
    }

    struct report *r = report_new();
    char lattice[64];
    snprintf(lattice, sizeof lattice, "%dx%dx%dx%d", x.lat.L[0], x.lat.L[1], x.lat.L[2], x.lat.L[3]);
    report_str(r, "file", c->name);
    report_str(r, "file_format", conf_format_name(c->format));
    report_int(r, "file_precision", c->file_prec);
    report_str(r, "lattice", lattice);
    report_int(r, "nc", u->nc);
    run_report_observables(r, &p, lt, pre, pim);
    report_num(r, "polyakov_abs", hypot(pre, pim));
    report_num(r, "unitarity_mean", un.mean);
    report_num(r, "unitarity_max", un.max);
    report_num(r, "unitarity_det_mean", un.det_mean);
    report_num(r, "unitarity_det_max", un.det_max);
    report_str(r, "boundary_sign", conf_boundary_sign_word(c->check.boundary_sign));
    if (c->check.boundary_sign == 1 && comm_is_root())
        lat_info("note: %s: the time links at t=LT-1 carry the antiperiodic sign (det U = -1): the plaquette is the "
                 "same as without it, the link trace and Polyakov loop include it", c->name);
    if (gauge) {
        struct gauge_quality q;
        gauge_quality_measure(u, gk, &q);
        report_str(r, "gauge", gauge_kind_name(gk));
        report_str(r, "theta_convention", convention);
        report_num(r, "F", q.F);
        report_num(r, "theta", theta_factor * q.theta);
        if (q.nt > 0 && q.F_t && q.theta_t) {
            for (int t = 0; t < q.nt; t++) q.theta_t[t] *= theta_factor;
            report_list(r, "F_t", q.F_t, q.nt);
            report_list(r, "theta_t", q.theta_t, q.nt);
        }
        gauge_quality_free(&q);
    }
    if (comm_is_root()) {
        report_print(r, stdout, fmt);
        if (fflush(stdout) != 0 || ferror(stdout)) lat_die(1, "standard output", "write failed");
    }
    report_free(r);
    dist_free(&x);
    return LAT_OK;
}
