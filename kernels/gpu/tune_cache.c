/* gpu/tune_cache.c -- the tuning cache file of gpu/tune.h (plain C, in
 * every build, so that the file handling is tested without a GPU):
 * tune_cache_path, tune_cache_find, tune_cache_keep, tune_cache_reset,
 * gpu_tune_force, gpu_tune_forced, gpu_tune_last, gpu_tune_note_last. */
#include "gpu/tune.h"
#include "base/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TUNE_HEADER "# lat tunecache 1"
#define TUNE_KEY_MAX 256

struct tune_entry {
    char key[TUNE_KEY_MAX];
    int cand;
    double seconds;
};

static struct tune_entry *entries;
static int nentries, capacity, loaded, forced = -1, warned;
static char path_buf[4096];

static int last_cand;
void gpu_tune_force(int cand) { forced = cand < 0 ? -1 : cand; }
int gpu_tune_forced(void) { return forced; }
int gpu_tune_last(void) { return last_cand; }
void gpu_tune_note_last(int cand) { last_cand = cand; }

const char *tune_cache_path(void)
{
    const char *e = getenv("LAT_TUNE_CACHE");
    if (e && *e) return e;
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int n;
    if (x && *x) n = snprintf(path_buf, sizeof path_buf, "%s/lat/tunecache.tsv", x);
    else if (h && *h) n = snprintf(path_buf, sizeof path_buf, "%s/.cache/lat/tunecache.tsv", h);
    else return NULL;
    return n > 0 && (size_t)n < sizeof path_buf ? path_buf : NULL;
}

static void warn_once(const char *fmt, const char *what)
{
    if (warned++) return;
    lat_warn("tuning cache", fmt, what);
}

/* a key is printable ASCII without tabs, at most TUNE_KEY_MAX-1 bytes */
static int key_ok(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n >= TUNE_KEY_MAX) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)k[i] < 0x20 || (unsigned char)k[i] > 0x7e) return 0;
    return 1;
}

static struct tune_entry *lookup(const char *key)
{
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i].key, key) == 0) return &entries[i];
    return NULL;
}

static void put(const char *key, int cand, double seconds)
{
    struct tune_entry *e = lookup(key);
    if (!e) {
        if (nentries == capacity) {
            capacity = capacity ? 2 * capacity : 32;
            entries = lat_realloc(entries, (size_t)capacity * sizeof *entries);
        }
        e = &entries[nentries++];
        snprintf(e->key, sizeof e->key, "%s", key);
    }
    e->cand = cand;
    e->seconds = seconds;
}

static void load(void)
{
    if (loaded) return;
    loaded = 1;
    const char *p = tune_cache_path();
    FILE *f = p ? fopen(p, "r") : NULL;
    if (!f) return;
    char line[TUNE_KEY_MAX + 64];
    int bad = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, TUNE_HEADER, strlen(TUNE_HEADER)) != 0 ||
        (line[strlen(TUNE_HEADER)] != '\n' && line[strlen(TUNE_HEADER)] != 0)) {
        warn_once("%s is not a lat tuning cache of this version: kernels are tuned again", p);
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') { /* over-long: skip to its end */
            int c;
            if (n == sizeof line - 1)
                while ((c = fgetc(f)) != EOF && c != '\n') {}
            bad++;
            continue;
        }
        line[n - 1] = 0;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *end;
        if (!t1 || !t2) { bad++; continue; }
        *t1 = *t2 = 0;
        errno = 0;
        long c = strtol(t1 + 1, &end, 10);
        if (*end || errno || c < 0 || c > 1000 || !key_ok(line)) { bad++; continue; }
        double s = strtod(t2 + 1, &end);
        if (*end || !(s >= 0)) { bad++; continue; }
        put(line, (int)c, s);
    }
    fclose(f);
    if (bad) warn_once("%s: lines that are not key, candidate, seconds were dropped", p);
}

int tune_cache_find(const char *key, int ncand)
{
    load();
    struct tune_entry *e = lookup(key);
    return e && e->cand < ncand ? e->cand : -1;
}

/* mkdir -p of the folder that holds path */
static void make_parent(const char *path)
{
    char d[sizeof path_buf];
    if (snprintf(d, sizeof d, "%s", path) >= (int)sizeof d) return;
    for (char *s = d + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        mkdir(d, 0777);
        *s = '/';
    }
}

void tune_cache_keep(const char *key, int cand, double seconds)
{
    load();
    if (!key_ok(key)) return;
    put(key, cand, seconds);
    const char *p = tune_cache_path();
    if (!p) return;
    make_parent(p);
    char tmp[sizeof path_buf + 16];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", p) >= (int)sizeof tmp) return;
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) { close(fd); unlink(tmp); }
        warn_once("cannot write %s: the tuning is kept for this run only", p);
        return;
    }
    fchmod(fd, 0644);
    fprintf(f, "%s\n", TUNE_HEADER);
    for (int i = 0; i < nentries; i++) fprintf(f, "%s\t%d\t%.6g\n", entries[i].key, entries[i].cand, entries[i].seconds);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, p) != 0) {
        unlink(tmp);
        warn_once("cannot write %s: the tuning is kept for this run only", p);
    }
}

void tune_cache_reset(void)
{
    free(entries);
    entries = NULL;
    nentries = capacity = loaded = warned = 0;
}
