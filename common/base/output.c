/* output.c -- atomic output files; see output.h for the contract. */
#define _POSIX_C_SOURCE 200809L
#include "base/output.h"
#include "base/comm.h"
#include "base/log.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_path[4096];
static char final_path[4096]; /* where the file goes: a symlink's target */
static char shown[4096];      /* the name as given, for messages */
static FILE *cur;
static int cur_is_stdout;

static const char *volatile guarded[OUT_GUARDS];

static void on_signal(int sig)
{
    /* unlink is async-signal-safe; the streams are left to the exit */
    for (int i = 0; i < OUT_GUARDS; i++)
        if (guarded[i] && *guarded[i]) unlink(guarded[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void out_guard(int slot, const char *path)
{
    static int installed;
    if (!installed) {
        const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            void (*old)(int) = signal(sigs[i], on_signal);
            if (old == SIG_IGN) signal(sigs[i], SIG_IGN); /* nohup: stay immune */
        }
        installed = 1;
    }
    if (slot >= 0 && slot < OUT_GUARDS) guarded[slot] = path;
}

static void cleanup(void)
{
    if (cur && !cur_is_stdout) {
        fclose(cur);
        unlink(tmp_path);
    }
    cur = NULL;
    out_guard(OUT_GUARD_OUTPUT, NULL);
}

/* Follow symlinks from path (also dangling ones: the file is created where
 * the link points, as sed -i --follow-symlinks does) into out; -1 if too
 * long or a loop. */
static int resolve(const char *path, char *out, size_t n)
{
    if (strlen(path) >= n) return -1;
    snprintf(out, n, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
        char target[4096];
        ssize_t k = readlink(out, target, sizeof target - 1);
        if (k < 0 || (size_t)k >= sizeof target - 1) return -1;
        target[k] = 0;
        if (target[0] == '/') {
            if ((size_t)k >= n) return -1;
            memcpy(out, target, (size_t)k + 1);
        } else {
            char *slash = strrchr(out, '/');
            size_t dl = slash ? (size_t)(slash - out) + 1 : 0;
            if (dl + (size_t)k >= n) return -1;
            memmove(out + dl, target, (size_t)k + 1);
        }
    }
    return -1;
}

FILE *out_open(const char *path, int binary)
{
    static int hooked;
    if (!hooked) { lat_on_die(cleanup); hooked = 1; }
    if (!path || strcmp(path, "-") == 0) {
        if (binary && comm_stdout_is_terminal())
            lat_die(1, "standard output", "refusing to write a binary configuration to a terminal (use -o FILE or a pipe)");
        snprintf(final_path, sizeof final_path, "standard output");
        snprintf(shown, sizeof shown, "standard output");
        cur = stdout;
        cur_is_stdout = 1;
        return cur;
    }
    /* a device or FIFO (/dev/null, a named pipe): write to it directly; a
     * rename would replace the device node with a regular file */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) lat_die(1, path, "is a directory");
        cur = fopen(path, "wb");
        if (!cur) lat_die(1, path, "cannot open: %s", strerror(errno));
        if (binary && isatty(fileno(cur)))
            lat_die(1, path, "refusing to write a binary configuration to a terminal");
        snprintf(final_path, sizeof final_path, "%s", path);
        snprintf(shown, sizeof shown, "%s", path);
        cur_is_stdout = 1; /* nothing to rename or remove */
        return cur;
    }
    if (strlen(path) + 16 > sizeof tmp_path) lat_die(1, path, "output path too long");
    /* a symlink stays a link: the file it points to is replaced */
    if (resolve(path, final_path, sizeof final_path - 16) < 0)
        lat_die(1, path, "cannot follow the symbolic link (a loop, or a path too long)");
    snprintf(shown, sizeof shown, "%s", path);
    if (snprintf(tmp_path, sizeof tmp_path, "%s.tmp.XXXXXX", final_path) >= (int)sizeof tmp_path)
        lat_die(1, path, "output path too long");
    /* no signal between creating the temporary file and guarding it */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    out_guard(OUT_GUARD_OUTPUT, NULL); /* installs the handlers */
    int fd = mkstemp(tmp_path);
    int e = errno;
    if (fd >= 0) out_guard(OUT_GUARD_OUTPUT, tmp_path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) lat_die(1, path, "cannot create a temporary file beside it: %s", strerror(e));
    cur = fdopen(fd, "wb");
    if (!cur) { close(fd); unlink(tmp_path); lat_die(1, path, "cannot open: %s", strerror(errno)); }
    cur_is_stdout = 0;
    return cur;
}

void out_commit(FILE *f)
{
    if (f != cur) lat_die(1, NULL, "internal error: out_commit on a stream not from out_open");
    if (fflush(f) != 0 || ferror(f)) lat_die(1, shown, "write failed: %s", strerror(errno));
    if (cur_is_stdout) {
        if (f != stdout && fclose(f) != 0) { cur = NULL; lat_die(1, shown, "close failed: %s", strerror(errno)); }
        cur = NULL;
        return;
    }
    if (fsync(fileno(f)) != 0 && errno != EINVAL) lat_die(1, shown, "fsync failed: %s", strerror(errno));
    /* the permissions of the file replaced (a private 0600 file stays
     * private; its owner and group kept where we may), else those a normal
     * create would give (mkstemp makes 0600) */
    struct stat st;
    if (stat(final_path, &st) == 0 && S_ISREG(st.st_mode)) {
        if (fchown(fileno(f), st.st_uid, st.st_gid) != 0) { /* not ours to give away: keep our own */ }
        fchmod(fileno(f), st.st_mode & 07777);
    } else {
        mode_t um = umask(0);
        umask(um);
        fchmod(fileno(f), 0666 & ~um);
    }
    if (fclose(f) != 0) { cur = NULL; unlink(tmp_path); lat_die(1, shown, "close failed: %s", strerror(errno)); }
    cur = NULL;
    if (rename(tmp_path, final_path) != 0) {
        int e = errno;
        unlink(tmp_path);
        lat_die(1, shown, "cannot rename the finished file into place: %s", strerror(e));
    }
    out_guard(OUT_GUARD_OUTPUT, NULL);
}

void out_abort(void) { cleanup(); }

const char *out_name(void) { return shown; }

const char *out_file_path(void) { return cur && !cur_is_stdout ? tmp_path : NULL; }
