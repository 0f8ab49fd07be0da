/* report.c -- named values printed as text, TSV or JSON; see report.h. */
#include "base/report.h"
#include "base/log.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum rtype { R_STR, R_INT, R_NUM, R_LIST, R_BOOL };

struct entry {
    char *name;
    enum rtype type;
    char *s;
    long long i;
    double x;
    double *list;
    int n;
};

struct report {
    struct entry *e;
    int n, cap;
};

int report_format_parse(const char *s, enum report_format *f)
{
    if (!s || strcmp(s, "text") == 0) *f = REPORT_TEXT;
    else if (strcmp(s, "tsv") == 0) *f = REPORT_TSV;
    else if (strcmp(s, "json") == 0) *f = REPORT_JSON;
    else return -1;
    return 0;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = lat_malloc(n);
    memcpy(d, s, n);
    return d;
}

struct report *report_new(void)
{
    struct report *r = lat_calloc(1, sizeof *r);
    return r;
}

void report_free(struct report *r)
{
    if (!r) return;
    for (int k = 0; k < r->n; k++) {
        free(r->e[k].name);
        free(r->e[k].s);
        free(r->e[k].list);
    }
    free(r->e);
    free(r);
}

static struct entry *add(struct report *r, const char *name, enum rtype t)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        struct entry *e = realloc(r->e, (size_t)r->cap * sizeof *e);
        if (!e) lat_die(1, NULL, "out of memory");
        r->e = e;
    }
    struct entry *e = &r->e[r->n++];
    memset(e, 0, sizeof *e);
    e->name = dupstr(name);
    e->type = t;
    return e;
}

void report_str(struct report *r, const char *name, const char *value) { add(r, name, R_STR)->s = dupstr(value ? value : ""); }
void report_int(struct report *r, const char *name, long long value) { add(r, name, R_INT)->i = value; }
void report_num(struct report *r, const char *name, double value) { add(r, name, R_NUM)->x = value; }
void report_bool(struct report *r, const char *name, int value) { add(r, name, R_BOOL)->i = value != 0; }

void report_list(struct report *r, const char *name, const double *values, int n)
{
    struct entry *e = add(r, name, R_LIST);
    e->n = n;
    e->list = lat_malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (n > 0) memcpy(e->list, values, sizeof(double) * (size_t)n);
}

/* ---- writers -------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fputs("null", f);
}

/* text from a file (names, history) for a person or a table: escape
 * sequences and other control bytes never reach the terminal (lat_sanitize) */
static void safe_puts(FILE *f, const char *s)
{
    size_t n = 4 * strlen(s) + 1;
    char *b = lat_malloc(n), *t = lat_malloc(strlen(s) + 1);
    for (;;) { /* tabs are harmless: kept */
        size_t k = strcspn(s, "\t");
        memcpy(t, s, k);
        t[k] = 0;
        lat_sanitize(b, n, t);
        fputs(b, f);
        if (!s[k]) break;
        fputc('\t', f);
        s += k + 1;
    }
    free(t);
    free(b);
}

/* a TSV field: tabs and line breaks would break the table (blanks), other
 * control bytes are escaped */
static void tsv_string(FILE *f, const char *s)
{
    size_t n = strlen(s);
    char *t = lat_malloc(n + 1);
    for (size_t i = 0; i <= n; i++) t[i] = s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
    safe_puts(f, t);
    free(t);
}

static void print_text(const struct report *r, FILE *f)
{
    int w = 0;
    for (int k = 0; k < r->n; k++) {
        int l = (int)strlen(r->e[k].name);
        if (l > w) w = l;
    }
    for (int k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        fprintf(f, "%-*s  ", w, e->name);
        switch (e->type) {
        case R_STR: safe_puts(f, e->s); break;
        case R_INT: fprintf(f, "%lld", e->i); break;
        case R_NUM: fprintf(f, "%.15g", e->x); break;
        case R_BOOL: fputs(e->i ? "yes" : "no", f); break;
        case R_LIST:
            for (int j = 0; j < e->n; j++) fprintf(f, "%s%.15g", j ? " " : "", e->list[j]);
            break;
        }
        fputc('\n', f);
    }
}

static void print_tsv(const struct report *r, FILE *f)
{
    int col = 0;
    for (int k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        if (e->type == R_LIST)
            for (int j = 0; j < e->n; j++) fprintf(f, "%s%s%d", col++ ? "\t" : "", e->name, j);
        else {
            fprintf(f, "%s", col++ ? "\t" : "");
            tsv_string(f, e->name);
        }
    }
    fputc('\n', f);
    col = 0;
    for (int k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        if (e->type == R_LIST) {
            for (int j = 0; j < e->n; j++) fprintf(f, "%s%.17g", col++ ? "\t" : "", e->list[j]);
            continue;
        }
        if (col++) fputc('\t', f);
        switch (e->type) {
        case R_STR: tsv_string(f, e->s); break;
        case R_INT: fprintf(f, "%lld", e->i); break;
        case R_NUM: fprintf(f, "%.17g", e->x); break;
        case R_BOOL: fputs(e->i ? "yes" : "no", f); break;
        default: break;
        }
    }
    fputc('\n', f);
}

static void print_json(const struct report *r, FILE *f)
{
    fputc('{', f);
    for (int k = 0; k < r->n; k++) {
        const struct entry *e = &r->e[k];
        if (k) fputs(", ", f);
        json_string(f, e->name);
        fputs(": ", f);
        switch (e->type) {
        case R_STR: json_string(f, e->s); break;
        case R_INT: fprintf(f, "%lld", e->i); break;
        case R_NUM: json_num(f, e->x); break;
        case R_BOOL: fputs(e->i ? "true" : "false", f); break;
        case R_LIST:
            fputc('[', f);
            for (int j = 0; j < e->n; j++) {
                if (j) fputs(", ", f);
                json_num(f, e->list[j]);
            }
            fputc(']', f);
            break;
        }
    }
    fputs("}\n", f);
}

void report_print(const struct report *r, FILE *f, enum report_format fmt)
{
    if (fmt == REPORT_TSV) print_tsv(r, f);
    else if (fmt == REPORT_JSON) print_json(r, f);
    else print_text(r, f);
}

/* ---- history -------------------------------------------------------------- */

/* Split one history line (not NUL-terminated, len bytes) at its first three
 * tabs into time, program, command, results (missing fields are empty). */
struct hist_entry { char *field[4]; };

static void split_entry(const char *line, size_t len, struct hist_entry *h)
{
    size_t start = 0;
    for (int k = 0; k < 4; k++) {
        if (start > len) start = len;
        size_t end = start;
        if (k < 3)
            while (end < len && line[end] != '\t') end++;
        else
            end = len;
        size_t n = end - start;
        h->field[k] = lat_malloc(n + 1);
        memcpy(h->field[k], line + start, n);
        h->field[k][n] = 0;
        start = end + 1;
    }
}

void report_history(FILE *f, enum report_format fmt, const char *file, const char *history)
{
    static const char *names[4] = {"time", "program", "command", "results"};
    if (fmt == REPORT_TSV) fprintf(f, "entry\ttime\tprogram\tcommand\tresults\n");
    if (fmt == REPORT_JSON) {
        fputs("{\"file\": ", f);
        json_string(f, file ? file : "");
        fputs(", \"history\": [", f);
    }
    int count = 0;
    const char *p = history ? history : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && p[len - 1] == '\r') len--;
        if (len > 0) {
            struct hist_entry h;
            split_entry(p, len, &h);
            count++;
            if (fmt == REPORT_TEXT) {
                fprintf(f, "[%d] ", count);
                safe_puts(f, h.field[0]);
                fputs("  ", f);
                safe_puts(f, h.field[1]);
                fputc('\n', f);
                if (*h.field[2]) { fputs("    command: ", f); safe_puts(f, h.field[2]); fputc('\n', f); }
                if (*h.field[3]) { fputs("    results: ", f); safe_puts(f, h.field[3]); fputc('\n', f); }
            } else if (fmt == REPORT_TSV) {
                fprintf(f, "%d", count);
                for (int k = 0; k < 4; k++) {
                    fputc('\t', f);
                    tsv_string(f, h.field[k]);
                }
                fputc('\n', f);
            } else {
                fputs(count > 1 ? ", {" : "{", f);
                for (int k = 0; k < 4; k++) {
                    if (k) fputs(", ", f);
                    json_string(f, names[k]);
                    fputs(": ", f);
                    json_string(f, h.field[k]);
                }
                fputc('}', f);
            }
            for (int k = 0; k < 4; k++) free(h.field[k]);
        }
        p += nl ? (size_t)(nl - p) + 1 : strlen(p);
    }
    if (fmt == REPORT_JSON) fputs("]}\n", f);
}
