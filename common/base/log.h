/* log.h -- messages on standard error, and dying cleanly.
 *
 * Every message is one line "PROG: WHERE: what went wrong", sanitised.  lat_die() runs
 * the cleanup hooks (output.c removes unfinished temporary files) and exits
 * with the given status, so a failing program never leaves a partial file. */
#ifndef LAT_LOG_H
#define LAT_LOG_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

extern const char *lat_progname; /* set by cli_parse (argv[0] basename) */
extern int lat_verbosity;        /* -1 quiet, 0 normal, 1 verbose */

#if defined(__GNUC__)
#define LAT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define LAT_NORETURN __attribute__((noreturn))
#else
#define LAT_PRINTF(a, b)
#define LAT_NORETURN
#endif

/* status 1 = data/runtime error, 2 = usage; where may be NULL */
LAT_NORETURN void lat_die(int status, const char *where, const char *fmt, ...) LAT_PRINTF(3, 4);
/* An error every rank of an MPI run meets alike (comm.h): only rank 0
 * prints it, every rank exits with status.  One process: lat_die. */
LAT_NORETURN void lat_die_all(int status, const char *where, const char *fmt, ...) LAT_PRINTF(3, 4);
/* set once lat_die/lat_die_all runs: its error is the one line (the
 * exit-time check of standard output stays silent then) */
extern int lat_dying;
void lat_warn(const char *where, const char *fmt, ...) LAT_PRINTF(2, 3); /* unless -q */
void lat_info(const char *fmt, ...) LAT_PRINTF(1, 2);    /* unless -q */
void lat_debug(const char *fmt, ...) LAT_PRINTF(1, 2);   /* only with -v */

/* Copy src into dst (n bytes with the NUL) made safe for a terminal:
 * printable ASCII and valid UTF-8 (no C1 controls, bidirectional overrides
 * or line separators) pass, every other byte becomes \xNN; cut at a whole
 * character.  Every message of lat_die/lat_warn/lat_info goes through it,
 * so bytes of a file can never become escape sequences or extra lines. */
size_t lat_sanitize(char *dst, size_t n, const char *src);

/* Register a function run by lat_die before exit (at most 8). */
void lat_on_die(void (*fn)(void));

/* Allocation that dies with a clear message instead of returning NULL:
 * the message names lat_alloc_where (the input being read, set by
 * conf_read; NULL otherwise) and the size asked for. */
extern const char *lat_alloc_where;
void *lat_malloc(size_t bytes);
void *lat_calloc(size_t n, size_t size);
void *lat_realloc(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
