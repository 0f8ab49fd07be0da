/* cli.c -- table-driven option parsing; see cli.h for the contract. */
#include "base/cli.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_progress = -1;
static char cmdline[4096];

void cli_usage_error(const char *fmt, ...)
{
    /* under mpirun every rank parsed the same command line: one message */
    if (comm_should_print_usage()) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s: ", lat_progname);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, " (try --help)\n");
        va_end(ap);
    }
    comm_exit(LAT_EUSAGE);
}

static void print_help(const struct cli_info *info, const struct cli_opt *opts)
{
    printf("Usage: %s %s\n%s\n\nOptions:\n", info->name, info->synopsis, info->purpose);
    for (const struct cli_opt *o = opts; o->type != CLI_END; o++) {
        char left[64];
        const char *mv = o->type == CLI_FLAG ? "" : (o->metavar ? o->metavar : "VALUE");
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, *mv ? " " : "", mv);
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, *mv ? " " : "", mv);
        printf("  %-30s %s", left, o->help ? o->help : "");
        if (o->type == CLI_CHOICE && o->choices) printf(" (%s)", o->choices);
        printf("\n");
    }
    printf("  %-30s %s\n", "-q, --quiet", "no warnings or notes on stderr: errors only");
    printf("  %-30s %s\n", "-v, --verbose", "print more detail on stderr");
    printf("  %-30s %s\n", "    --progress, --no-progress", "force the progress line on or off");
    printf("  %-30s %s\n", "-h, --help", "show this help");
    printf("  %-30s %s\n", "-V, --version", "show the version");
    printf("\nSee %s(1) and lat(7).\n", info->name);
}

static int choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    const char *p = choices;
    while (*p) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void set_value(struct cli_opt *o, const char *v)
{
    char *end;
    errno = 0;
    switch (o->type) {
    case CLI_INT: {
        long x = strtol(v, &end, 10);
        if (*v == 0 || *end || errno || x < -2147483647L || x > 2147483647L)
            cli_usage_error("--%s: '%s' is not an integer", o->name, v);
        *(int *)o->dest = (int)x;
        break;
    }
    case CLI_LONG: {
        long long x = strtoll(v, &end, 10);
        if (*v == 0 || *end || errno) cli_usage_error("--%s: '%s' is not an integer", o->name, v);
        *(long long *)o->dest = x;
        break;
    }
    case CLI_DOUBLE: {
        double x = strtod(v, &end);
        if (*v == 0 || *end || errno || !isfinite(x)) cli_usage_error("--%s: '%s' is not a number", o->name, v);
        *(double *)o->dest = x;
        break;
    }
    case CLI_STRING:
        *(const char **)o->dest = v;
        break;
    case CLI_CHOICE:
        if (!choice_ok(o->choices, v)) cli_usage_error("--%s: '%s' is not one of %s", o->name, v, o->choices);
        *(const char **)o->dest = v;
        break;
    default:
        break;
    }
}

/* At exit: whatever went to standard output (a report, a table) must have
 * arrived; a full disk, a closed or failed stdout turns a success into exit
 * status 1 with one line (GNU close_stdout).  A configuration on stdout is
 * already checked by out_commit. */
static void check_stdout(void)
{
    if (lat_dying) return;
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (!bad && fclose(stdout) != 0 && errno != EBADF) { bad = 1; e = errno; }
    if (!bad) return;
    fprintf(stderr, "%s: standard output: write failed: %s\n", lat_progname, strerror(e ? e : EIO));
    fflush(stderr);
    _exit(1);
}

int cli_parse(const struct cli_info *info, struct cli_opt *opts, int argc, char **argv)
{
    const char *slash = strrchr(info->name, '/');
    lat_progname = slash ? slash + 1 : info->name;
    static int hooked;
    if (!hooked) { atexit(check_stdout); hooked = 1; }
    comm_init(NULL, NULL); /* MPI ranks when started by mpirun (comm.h) */
    size_t used = 0;
    for (int i = 0; i < argc && used + 2 < sizeof cmdline; i++) {
        int n = snprintf(cmdline + used, sizeof cmdline - used, "%s%s", i ? " " : "", i ? argv[i] : lat_progname);
        if (n < 0) break;
        used += (size_t)n;
        if (used >= sizeof cmdline) { used = sizeof cmdline - 1; break; }
    }
    /* Operands may stand between options (GNU style): they are collected
     * and moved to the end of argv, whose index is returned. */
    char **operands = lat_malloc(sizeof(char *) * (size_t)(argc + 1));
    int nops = 0;
    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) { i++; break; }
        if (a[0] != '-' || a[1] == 0) { operands[nops++] = a; continue; } /* operand (or "-" = stdin) */
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { if (comm_is_root()) print_help(info, opts); comm_exit(0); }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) { if (comm_is_root()) printf("%s (lat) %s\n", lat_progname, LAT_VERSION); comm_exit(0); }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) { lat_verbosity = -1; continue; }
        if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) { lat_verbosity = 1; continue; }
        if (strcmp(a, "--progress") == 0) { cli_progress = 1; continue; }
        if (strcmp(a, "--no-progress") == 0) { cli_progress = 0; continue; }
        struct cli_opt *o = NULL;
        const char *val = NULL;
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            for (struct cli_opt *p = opts; p->type != CLI_END; p++)
                if (strlen(p->name) == len && strncmp(p->name, name, len) == 0) o = p;
            if (!o) cli_usage_error("unknown option '%.*s'", (int)(len + 2), a);
            if (eq) {
                if (o->type == CLI_FLAG) cli_usage_error("option '--%s' takes no value", o->name);
                val = eq + 1;
            }
        } else {
            for (struct cli_opt *p = opts; p->type != CLI_END; p++)
                if (p->short_name && p->short_name == a[1]) o = p;
            if (!o) cli_usage_error("unknown option '-%c'", a[1]);
            if (a[2]) {
                if (o->type == CLI_FLAG) cli_usage_error("option '-%c' takes no value", a[1]);
                val = a + 2;
            }
        }
        o->seen = 1;
        if (o->type == CLI_FLAG) { *(int *)o->dest = 1; continue; }
        if (!val) {
            if (i + 1 >= argc) cli_usage_error("option '--%s' needs a value", o->name);
            val = argv[++i];
        }
        set_value(o, val);
    }
    while (i < argc) operands[nops++] = argv[i++];
    int first = argc - nops;
    for (int k = 0; k < nops; k++) argv[first + k] = operands[k];
    free(operands);
    if (!comm_is_root()) lat_verbosity = -1; /* rank 0 speaks for the run */
    return first;
}

int cli_given(const struct cli_opt *opts, const char *name)
{
    for (const struct cli_opt *o = opts; o->type != CLI_END; o++)
        if (strcmp(o->name, name) == 0) return o->seen;
    return 0;
}

int cli_parse_extents(const char *s, int L[4])
{
    int n = 0;
    const char *p = s;
    while (n < 4) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v <= 0 || v > 1 << 20) return -1;
        L[n++] = (int)v;
        if (*end == 0) break;
        if (*end != 'x' && *end != 'X') return -1;
        p = end + 1;
    }
    if (*p && n == 4) {
        /* trailing junk after the fourth extent */
        const char *q = p;
        while (*q >= '0' && *q <= '9') q++;
        if (*q) return -1;
    }
    if (n == 1) { L[1] = L[2] = L[3] = L[0]; return 0; }
    return n == 4 ? 0 : -1;
}

const char *cli_command_line(void) { return cmdline; }

int cli_show_progress(void)
{
    if (!comm_is_root()) return 0;
    if (cli_progress >= 0) return cli_progress;
    return lat_verbosity >= 0 && isatty(2);
}
