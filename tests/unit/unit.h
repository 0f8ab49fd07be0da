/* unit.h -- the smallest test harness: CHECK(cond, ...) counts failures,
 * CHECK_CLOSE(a, b, tol) compares numbers, unit_run_child() runs code in
 * a child process and captures its standard error, unit_scratch_make() and
 * unit_scratch_remove() give a test a folder for its files, and unit_done()
 * prints "NAME: N passed, M failed" and returns the exit status. */
#ifndef LAT_UNIT_H
#define LAT_UNIT_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int unit_pass, unit_fail;
#define CHECK(cond, ...) do { if (cond) unit_pass++; else { unit_fail++; \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define CHECK_CLOSE(a, b, tol) do { double a_ = (a), b_ = (b); \
    CHECK(fabs(a_ - b_) <= (tol), "%s = %.17g, expected %.17g (tol %g)", #a, a_, b_, (double)(tol)); } while (0)
/* Run child(arg) in a forked process with its standard error captured (the
 * "one line, exit 1" checks): returns its exit status (-1 if it did not
 * exit, e.g. killed by the alarm after `seconds`, which turns a hang into a
 * failure), its stderr in err[len] and the number of lines in *lines.  The
 * child must end the process itself (exit, _exit or exec). */
static inline int unit_run_child(void (*child)(void *), void *arg, unsigned seconds, char *err, size_t len, int *lines)
{
    fflush(stdout);
    fflush(stderr);
    int fd[2];
    err[0] = 0;
    *lines = 0;
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        alarm(seconds);
        child(arg);
        _exit(99); /* the child should not return */
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < len && (k = read(fd[0], err + n, len - 1 - n)) > 0) n += (size_t)k;
    err[n] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    for (size_t i = 0; i < n; i++) *lines += err[i] == '\n';
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh folder /tmp/lat-test-NAME.XXXXXX (mkdtemp) into dir[len]: 0, or
 * -1 with the reason on stderr.  unit_scratch_remove() deletes it and all
 * that the test left in it. */
static inline int unit_scratch_make(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "/tmp/lat-test-%s.XXXXXX", name);
    if (mkdtemp(dir)) return 0;
    perror("mkdtemp");
    return -1;
}

static inline void unit_scratch_remove(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static inline int unit_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, unit_pass, unit_fail);
    return unit_fail ? 1 : 0;
}
#endif
