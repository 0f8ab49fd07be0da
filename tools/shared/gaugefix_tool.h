/* gaugefix_tool.h -- the glue that lat-randomize-orbit, lat-overrelax and
 * lat-anneal share, so each main is a few dozen lines.
 *
 *   struct gf_tool t;  gf_tool_init(&t);
 *   struct cli_opt opts[] = { ...own options..., GF_TOOL_OPTIONS(t), {0} };
 *   int first = cli_parse(&info, opts, argc, argv);
 *   const char *in = gf_tool_operand(argc, argv, first);
 *   ...own usage checks (cli_usage_error, exit 2)...
 *   gf_tool_validate(&t, opts);       common usage checks, then (exit 1)
 *                                     a terminal as binary standard output
 *   gf_tool_read(&t, in);             dist_read (rank 0 reads, every MPI
 *                                     rank gets its slab), SU(N) check within the
 *                                     unitarity tolerance (exit 1), starts
 *                                     the transform on --track-transform
 *   gf_tool_backend(&t, gauge);       (gauge fixers) Coulomb needs an even
 *                                     Lt; backend chosen (--device,
 *                                     device_opt.h), default
 *                                     --reunitarize-every from it, state
 *                                     created, --log opened (progress.h)
 *   gf_tool_run(&t, gauge, &run);     a gf_run for the driver, its observer
 *                                     drawing the progress line and --log
 *   ... gf_relax / gf_anneal ...
 *   return gf_tool_finish(&t, results, status);   download (Coulomb: U_t
 *                                     transformed by the run's g, which is
 *                                     composed into a tracked transform),
 *                                     gather, history entry, atomic write;
 *                                     returns status
 *
 * Under mpirun (comm.h) every rank runs the same calls on its slab: t.x.u is
 * this rank's field; rank 0 alone reads, writes, logs and reports.
 *
 * Errors: usage -> exit 2 before anything is read or written; data -> exit
 * 1 before anything is written; a die removes unfinished output and the
 * log file this run created. */
#ifndef LAT_GAUGEFIX_TOOL_H
#define LAT_GAUGEFIX_TOOL_H

#include "base/cli.h"
#include "io/dist.h"
#include "gaugefix/driver.h"
#include "shared/device_opt.h"
#include "shared/progress.h"
#include "shared/run_report.h"

struct gf_tool {
    /* options */
    const char *output, *device, *precision, *log_path;
    const char *format;   /* --format: the end-of-run report (shared/run_report.h) */
    const char *links;    /* lat-overrelax --links: "12" (default) or "8" */
    long long seed;
    int copy, track, reunitarize_every, check_every;
    double unitarity_tol; /* 0: 1e-5 for 32-bit input files, 1e-10 for 64-bit */
    /* set by gf_tool_validate / gf_tool_read / gf_tool_backend */
    char prec;            /* 'd', 's', 'm' */
    struct dist x;        /* the configuration, spread over the ranks (dist.h) */
    const struct gf_backend *be;
    struct gf_state *st;
    double *time_g;       /* Coulomb: the run's own g(x) (gf_open) */
    struct progress progress; /* the progress line and --log (progress.h) */
};

/* the options every program of the family has (lat-randomize-orbit too) */
#define GF_TOOL_OPTIONS(t)                                                                                     \
    {"output", 'o', CLI_STRING, &(t).output, "FILE", "write the configuration here (default: standard output)", \
     NULL, 0},                                                                                                 \
    {"seed", 's', CLI_LONG, &(t).seed, "S", "seed of the random streams (default 1)", NULL, 0},                  \
    {"copy", 0, CLI_INT, &(t).copy, "K", "copy number, a second key of the random streams (default 0)", NULL, 0}, \
    {"track-transform", 0, CLI_FLAG, &(t).track, NULL,                                                          \
     "carry the accumulated g(x) in the output (lat-gauge-transform record)", NULL, 0},                         \
    {"unitarity-tol", 0, CLI_DOUBLE, &(t).unitarity_tol, "EPS",                                                 \
     "largest ||U^dag U - 1|| and |det U - 1| accepted (default 1e-5 for 32-bit files, 1e-10 for 64-bit)", NULL, 0}, \
    RUN_REPORT_OPTION((t).format)
#define GF_TOOL_FIX_OPTIONS(t)                                                                                 \
    {"device", 0, CLI_CHOICE, &(t).device, "DEV", "backend (default auto; LAT_DEVICE overrides auto)",          \
     "cpu|gpu|auto", 0},                                                                                       \
    {"precision", 0, CLI_CHOICE, &(t).precision, "P", "precision of the computation (default double)",         \
     "double|single|mixed", 0},                                                                                \
    {"reunitarize-every", 0, CLI_INT, &(t).reunitarize_every, "N",                                              \
     "project links onto SU(N) every N sweeps (default: GPU 10; CPU 100 single/mixed, 0 = never in double)", NULL, 0},       \
    {"log", 0, CLI_STRING, &(t).log_path, "FILE", "write the convergence history here as TSV", NULL, 0}

void gf_tool_init(struct gf_tool *t);
const char *gf_tool_operand(int argc, char **argv, int first);
void gf_tool_validate(struct gf_tool *t, const struct cli_opt *opts);
void gf_tool_read(struct gf_tool *t, const char *input);
void gf_tool_backend(struct gf_tool *t, enum gauge_kind gauge);
/* the progress line and --log alone (gf_tool_backend does it; lat-fourier,
 * which has backends of its own, calls it instead) */
void gf_tool_progress(struct gf_tool *t);
void gf_tool_run(struct gf_tool *t, enum gauge_kind gauge, struct gf_run *run);
/* "F=... theta=... iterations=... converged=yes|no" (+ Coulomb: theta_t_max)
 * appended to buf */
void gf_tool_describe(char *buf, size_t len, const struct gf_result *res);
/* one line on stderr (unless -q) */
void gf_tool_summary(const char *what, enum gauge_kind gauge, const struct gf_result *res);
/* the same with the unit of res->iterations named ("iterations") */
void gf_tool_summary_in(const char *what, const char *unit, enum gauge_kind gauge, const struct gf_result *res);
int gf_tool_finish(struct gf_tool *t, const char *results, int status);

#endif
