/* report.h -- the reports of the measuring programs in the three formats of
 * SPEC §2 (--format text|tsv|json).
 *
 * A report is an ordered list of named values: strings, integers, numbers,
 * yes/no answers and lists of numbers.  Strings (names and history text come from files)
 * are written through lat_sanitize in text and TSV (control bytes become
 * \xNN), with \u escapes in JSON.  report_print writes it as
 *   text  "name  value" lines, names padded to one column, numbers %.15g,
 *         a list as its values separated by blanks on one line, a yes/no
 *         answer as yes or no (as in history entries and TSV tables);
 *   tsv   a header line of the names and one row of values, numbers %.17g
 *         (round-trip exact); a list of n numbers becomes n columns
 *         name0 .. name{n-1};
 *   json  one object on one line, numbers %.17g (non-finite ones as null),
 *         a list as an array, a yes/no answer as true or false, strings
 *         escaped.
 * report_history prints a lat-history payload (conf.h: one entry per line,
 * "time<TAB>program version<TAB>command line<TAB>results") in the same three
 * formats: text as numbered blocks, tsv as a table (entry, time, program,
 * command, results), json as {"file": ..., "history": [{...}, ...]}. */
#ifndef LAT_REPORT_H
#define LAT_REPORT_H

#include <stdio.h>

enum report_format { REPORT_TEXT = 0, REPORT_TSV = 1, REPORT_JSON = 2 };

/* "text", "tsv", "json" (NULL = text); 0 ok, -1 unknown */
int report_format_parse(const char *s, enum report_format *f);

struct report;
struct report *report_new(void);
void report_free(struct report *r);
void report_str(struct report *r, const char *name, const char *value);
void report_int(struct report *r, const char *name, long long value);
void report_num(struct report *r, const char *name, double value);
void report_bool(struct report *r, const char *name, int value); /* nonzero = yes */
void report_list(struct report *r, const char *name, const double *values, int n);
void report_print(const struct report *r, FILE *f, enum report_format fmt);

/* file: the configuration's name (for json); history may be NULL (no entries) */
void report_history(FILE *f, enum report_format fmt, const char *file, const char *history);

#endif
