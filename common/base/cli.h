/* cli.h -- the option parser every program shares (SPEC §2).
 *
 * A program lists its options in a table of struct cli_opt ending with
 * {0}; cli_parse fills the destinations, handles the options every program
 * has (-h/--help, -V/--version, -q/--quiet, -v/--verbose,
 * --progress/--no-progress), and returns the index of the first operand.
 * Unknown options, missing or malformed values, and values outside a
 * choice list are usage errors: one line on stderr, exit 2.
 *
 *   static const char *out = NULL; static double omega = 1.0;
 *   struct cli_opt opts[] = {
 *       {"output", 'o', CLI_STRING, &out, "FILE", "write here (default stdout)"},
 *       {"omega", 0, CLI_DOUBLE, &omega, "W", "overrelaxation parameter"},
 *       {0}};
 *   int first = cli_parse(&info, opts, argc, argv);
 *
 * Option values may be given as --name=value or --name value. */
#ifndef LAT_CLI_H
#define LAT_CLI_H

enum cli_type {
    CLI_END = 0,
    CLI_FLAG,   /* int, set to 1 (or 0 for --no-NAME when the name begins "no-") */
    CLI_INT,    /* int */
    CLI_LONG,   /* long long */
    CLI_DOUBLE, /* double, finite */
    CLI_STRING, /* const char * */
    CLI_CHOICE  /* const char *, one of the words in .choices "a|b|c" */
};

struct cli_opt {
    const char *name;    /* long name without the dashes */
    char short_name;     /* 0 for none */
    enum cli_type type;
    void *dest;
    const char *metavar; /* for --help: "FILE", "N", ... */
    const char *help;
    const char *choices; /* CLI_CHOICE only */
    int seen;            /* set by cli_parse when given on the command line */
};

struct cli_info {
    const char *name;     /* program name, e.g. "lat-measure" */
    const char *synopsis; /* e.g. "[OPTIONS] [INPUT]" */
    const char *purpose;  /* one line */
};

extern int cli_progress; /* -1 auto (stderr is a terminal), 0 off, 1 on */

int cli_parse(const struct cli_info *info, struct cli_opt *opts, int argc, char **argv);

/* Usage error: one line, exit 2. */
void cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 1, 2)))
#endif
    ;

/* Was option NAME given on the command line? */
int cli_given(const struct cli_opt *opts, const char *name);

/* Parse "8x8x8x16" (or "8" for 8^4) into L[4]; returns 0 or -1. */
int cli_parse_extents(const char *s, int L[4]);

/* The whole command line as one string (for history records). */
const char *cli_command_line(void);

/* Should a progress line be drawn on stderr? */
int cli_show_progress(void);

#endif
