/* test_report.c -- common/report.c: the three report formats (alignment,
 * TSV header/row and list columns, JSON escaping and null for non-finite
 * numbers, round-trip digits, yes/no answers) and the history printer (tab splitting,
 * missing fields, blank lines). */
#include "base/report.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render(const struct report *r, enum report_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    report_print(r, m, f);
    fclose(m);
    return buf;
}

static char *render_history(enum report_format f, const char *file, const char *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    report_history(m, f, file, h);
    fclose(m);
    return buf;
}

#define CHECK_STR(got, want) CHECK(strcmp((got), (want)) == 0, "got\n[%s]\nwant\n[%s]", (got), (want))

int main(void)
{
    enum report_format f;
    CHECK(report_format_parse("json", &f) == 0 && f == REPORT_JSON, "parse json");
    CHECK(report_format_parse("tsv", &f) == 0 && f == REPORT_TSV, "parse tsv");
    CHECK(report_format_parse(NULL, &f) == 0 && f == REPORT_TEXT, "parse default");
    CHECK(report_format_parse("xml", &f) == -1, "parse xml");

    struct report *r = report_new();
    report_str(r, "file", "a\"b\\c\td");
    report_int(r, "nc", 3);
    report_num(r, "plaquette", 0.1);
    double l[3] = {1, 0.5, NAN};
    report_list(r, "F_t", l, 3);

    char *t = render(r, REPORT_TEXT);
    CHECK_STR(t, "file       a\"b\\c\td\n"
                 "nc         3\n"
                 "plaquette  0.1\n"
                 "F_t        1 0.5 nan\n");
    free(t);
    t = render(r, REPORT_TSV);
    CHECK_STR(t, "file\tnc\tplaquette\tF_t0\tF_t1\tF_t2\n"
                 "a\"b\\c d\t3\t0.10000000000000001\t1\t0.5\tnan\n");
    free(t);
    t = render(r, REPORT_JSON);
    CHECK_STR(t, "{\"file\": \"a\\\"b\\\\c\\td\", \"nc\": 3, \"plaquette\": 0.10000000000000001, \"F_t\": [1, 0.5, null]}\n");
    free(t);
    report_free(r);

    /* a yes/no answer: yes/no in text and TSV (as history entries and the
     * lat-gribov-scan table write it), true/false in JSON */
    r = report_new();
    report_bool(r, "converged", 1);
    report_bool(r, "ok", 0);
    t = render(r, REPORT_TEXT);
    CHECK_STR(t, "converged  yes\nok         no\n");
    free(t);
    t = render(r, REPORT_TSV);
    CHECK_STR(t, "converged\tok\nyes\tno\n");
    free(t);
    t = render(r, REPORT_JSON);
    CHECK_STR(t, "{\"converged\": true, \"ok\": false}\n");
    free(t);
    report_free(r);

    /* 17 digits read back to the same double */
    r = report_new();
    double x = 0.59485015890090812;
    report_num(r, "p", x);
    t = render(r, REPORT_TSV);
    CHECK(strtod(strchr(t, '\n') + 1, NULL) == x, "tsv round trip: %s", t);
    free(t);
    report_free(r);

    const char *h = "2026-01-01T00:00:00Z\tlat-heatbath 0.1.0\tlat-heatbath --beta 6\tplaquette=0.59\n"
                    "\n"
                    "2026-01-02T00:00:00Z\tlat-unitarity 0.1.0\n";
    t = render_history(REPORT_TSV, "c.lime", h);
    CHECK_STR(t, "entry\ttime\tprogram\tcommand\tresults\n"
                 "1\t2026-01-01T00:00:00Z\tlat-heatbath 0.1.0\tlat-heatbath --beta 6\tplaquette=0.59\n"
                 "2\t2026-01-02T00:00:00Z\tlat-unitarity 0.1.0\t\t\n");
    free(t);
    t = render_history(REPORT_JSON, "c\".lime", h);
    CHECK_STR(t, "{\"file\": \"c\\\".lime\", \"history\": [{\"time\": \"2026-01-01T00:00:00Z\", \"program\": \"lat-heatbath 0.1.0\", "
                 "\"command\": \"lat-heatbath --beta 6\", \"results\": \"plaquette=0.59\"}, {\"time\": \"2026-01-02T00:00:00Z\", "
                 "\"program\": \"lat-unitarity 0.1.0\", \"command\": \"\", \"results\": \"\"}]}\n");
    free(t);
    t = render_history(REPORT_TEXT, "c.lime", h);
    CHECK_STR(t, "[1] 2026-01-01T00:00:00Z  lat-heatbath 0.1.0\n"
                 "    command: lat-heatbath --beta 6\n"
                 "    results: plaquette=0.59\n"
                 "[2] 2026-01-02T00:00:00Z  lat-unitarity 0.1.0\n");
    free(t);
    t = render_history(REPORT_JSON, "x", NULL);
    CHECK_STR(t, "{\"file\": \"x\", \"history\": []}\n");
    free(t);
    return unit_done("test_report");
}
