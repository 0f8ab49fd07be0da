/* unit.h -- the smallest test harness: CHECK(cond, ...) counts failures,
 * CHECK_CLOSE(a, b, tol) compares numbers, and unit_done() prints
 * "NAME: N passed, M failed" and returns the exit status. */
#ifndef LAT_UNIT_H
#define LAT_UNIT_H
#include <math.h>
#include <stdio.h>

static int unit_pass, unit_fail;
#define CHECK(cond, ...) do { if (cond) unit_pass++; else { unit_fail++; \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_CLOSE(a, b, tol) do { double a_ = (a), b_ = (b); \
    CHECK(fabs(a_ - b_) <= (tol), "%s = %.17g, expected %.17g (tol %g)", #a, a_, b_, (double)(tol)); } while (0)
static inline int unit_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail);
    return unit_fail ? 1 : 0;
}
#endif
