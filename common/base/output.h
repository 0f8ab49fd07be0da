/* output.h -- "nothing is lost" output files (SPEC §2).
 *
 * out_open(path, binary) returns a stream to write to:
 *   - path NULL or "-": standard output; for binary output a terminal is
 *     refused with a one-line error (exit 1).
 *   - otherwise a temporary file "path.tmp.XXXXXX" in the same folder;
 *     out_commit() flushes, fsyncs and renames it over path, so -o may name
 *     the input and an existing file is replaced only by a complete one.
 *   - an existing path that is not a regular file (/dev/null, a FIFO) is
 *     written directly: renaming over it would replace the device node.
 *   - a symbolic link is followed (also a dangling one, as sed -i
 *     --follow-symlinks): the temporary file goes beside the target and
 *     replaces it, the link stays.
 *   - the new file gets the mode (and, where allowed, owner and group) of
 *     the file it replaces; a new file 0666 less the umask.  The temporary
 *     file is 0600 while it is written, and signals are blocked between its
 *     creation and its guard, so no signal leaves it behind.
 * If the program dies (lat_die) or calls out_abort(), the temporary file is
 * removed and path is untouched; so it is when a signal ends the program
 * (SIGTERM -- what mpirun sends every rank when one aborts --, SIGINT,
 * SIGHUP).  One output at a time per program.
 *
 * out_guard(slot, path) puts another file under that signal rule (slot
 * OUT_GUARD_LOG: a log the run created; path NULL or "" releases it): the
 * handler unlinks the guarded files and re-raises the signal.  path must
 * stay valid while guarded. */
#ifndef LAT_OUTPUT_H
#define LAT_OUTPUT_H

#include <stdio.h>

FILE *out_open(const char *path, int binary);
void out_commit(FILE *f);
void out_abort(void);
/* The name to use in error messages for the current output. */
const char *out_name(void);
/* The file being written now (the temporary file), or NULL when writing to
 * standard output or directly to a device: for writers that add to it from
 * other processes before out_commit (MPI-IO, dist.c). */
const char *out_file_path(void);

enum { OUT_GUARD_OUTPUT = 0, OUT_GUARD_LOG = 1, OUT_GUARDS = 2 };
void out_guard(int slot, const char *path);

#endif
