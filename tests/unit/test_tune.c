/* test_tune.c -- the tuning cache file of kernels/gpu/tune.h (no GPU
 * needed): kept candidates survive a reload; the file is rewritten whole
 * (no temporary file left, header first); a cache file with garbage, an
 * over-long line, a wrong header or a candidate past the kernel's count
 * never stops a run and gives no candidate it should not; an unwritable
 * cache keeps the tuning in memory; gpu_tune_force is remembered. */
#include "gpu/tune.h"
#include "base/log.h"
#include "unit.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], path[128];

static int files_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    tune_cache_reset();
}

int main(void)
{
    lat_progname = "test_tune";
    if (unit_scratch_make(dir, sizeof dir, "tune") != 0) return 1;
    snprintf(path, sizeof path, "%s/sub/cache.tsv", dir);
    setenv("LAT_TUNE_CACHE", path, 1);
    CHECK(strcmp(tune_cache_path(), path) == 0, "LAT_TUNE_CACHE names the file");
    tune_cache_reset();
    CHECK(tune_cache_find("H100|k<1>|32x32x32x32|h0-100|s12", 4) == -1, "no file: nothing found");
    tune_cache_keep("H100|k<1>|32x32x32x32|h0-100|s12", 2, 1.5e-4);
    tune_cache_keep("H100|k<2>|8x8x8x8|h0-100|d18", 1, 2e-5);
    tune_cache_keep("H100|k<1>|32x32x32x32|h0-100|s12", 3, 1.2e-4); /* replaced, not added */
    CHECK(files_in_dir() == 1, "the folder was made and holds no temporary file");
    tune_cache_reset();
    CHECK(tune_cache_find("H100|k<1>|32x32x32x32|h0-100|s12", 4) == 3, "a kept candidate survives a reload");
    CHECK(tune_cache_find("H100|k<2>|8x8x8x8|h0-100|d18", 4) == 1, "the second key too");
    CHECK(tune_cache_find("H100|k<1>|32x32x32x32|h0-100|s12", 3) == -1, "a candidate past the kernel's count is not used");
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    CHECK(f && fgets(line, sizeof line, f) && strcmp(line, "# lat tunecache 1\n") == 0, "the header comes first");
    while (f && fgets(line, sizeof line, f)) n++;
    if (f) fclose(f);
    CHECK(n == 2, "one line per key: %d", n);

    /* hostile contents: dropped, never fatal, the good lines kept */
    char big[2000];
    memset(big, 'x', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = 0;
    char text[4096];
    snprintf(text, sizeof text, "# lat tunecache 1\nk1\t2\t0.1\nno tabs here\nk2\t-1\t0.1\nk3\t1\tnan\nk4\t99999\t1\n%sk5\t1\t0.5\nk\x1b[31m\t1\t1\n", big);
    write_file(text);
    CHECK(tune_cache_find("k1", 4) == 2 && tune_cache_find("k5", 4) == 1, "good lines around bad ones are read");
    CHECK(tune_cache_find("k2", 4) == -1 && tune_cache_find("k3", 4) == -1 && tune_cache_find("k4", 100000) == -1,
          "negative, NaN-timed and huge candidates are dropped");
    CHECK(tune_cache_find("k\x1b[31m", 4) == -1, "keys with control bytes are dropped");
    write_file("# lat tunecache 2\nk1\t2\t0.1\n");
    CHECK(tune_cache_find("k1", 4) == -1, "a file of another version is not read");
    write_file("");
    CHECK(tune_cache_find("k1", 4) == -1, "an empty file is no cache");

    /* a cache that cannot be written: kept in memory */
    snprintf(path, sizeof path, "%s/not-a-dir/cache.tsv", dir);
    char blocker[128];
    snprintf(blocker, sizeof blocker, "%s/not-a-dir", dir);
    FILE *b = fopen(blocker, "w");
    if (b) fclose(b);
    setenv("LAT_TUNE_CACHE", path, 1);
    tune_cache_reset();
    tune_cache_keep("kmem", 1, 1e-3);
    CHECK(tune_cache_find("kmem", 4) == 1, "an unwritable cache keeps the tuning for the run");

    gpu_tune_force(2);
    CHECK(gpu_tune_forced() == 2, "forced candidate remembered");
    gpu_tune_force(-5);
    CHECK(gpu_tune_forced() == -1, "a negative force means: tune");

    unsetenv("LAT_TUNE_CACHE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(strcmp(tune_cache_path(), "/xdg/lat/tunecache.tsv") == 0, "XDG_CACHE_HOME is used");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    CHECK(strcmp(tune_cache_path(), "/home/u/.cache/lat/tunecache.tsv") == 0, "else HOME/.cache");

    unit_scratch_remove(dir);
    return unit_done("test_tune");
}
