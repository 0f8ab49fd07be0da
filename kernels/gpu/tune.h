/* gpu/tune.h -- the GPU launcher's tuning cache: for each kernel, which of
 * the launch shapes its launch file compiles (the candidates) ran fastest
 * for this launch's volume on this device, measured once and kept in a
 * file, as QUDA's tunecache does.  It replaces the environment variables
 * that used to pick launch variants.
 *
 * Every candidate of one kernel runs the same kernel code with another
 * block size, launch bound or load path, so they compute the same bits and
 * a result never depends on the choice (tests/gpu/test_gpu_gaugefix.c and
 * test_gpu_heatbath.c check it by forcing each candidate).
 *
 * Exported:
 *   gpu_tune_choose(kernel, f, ncand, run, arg)   (CUDA builds: tune.cu)
 *       the candidate to launch the kernel named `kernel` (its template
 *       arguments spelled out) over f's launch range [h0, h1): 0 when
 *       ncand == 1 or LAT_TUNE=0; the forced one (gpu_tune_force); else the
 *       one the cache keeps for (device, kernel, extents, range, storage);
 *       else each candidate is timed by run(c, arg) -- which launches
 *       candidate c once -- on f's own links and transform, saved before
 *       and restored after every trial, so the field is left as it was; the
 *       fastest is kept and returned.  Without device memory for the copy
 *       it returns 0 and tunes nothing (one note).
 *   gpu_tune_force(c)    every kernel launches candidate c (0 where it has
 *                        fewer) from now on; -1: the cache decides again
 *   gpu_tune_forced()    the forced candidate, or -1
 *   gpu_tune_last()      the candidate gpu_tune_choose answered last (the
 *                        benchmark reports it); gpu_tune_note_last sets it
 *   tune_cache_path()    the cache file: $LAT_TUNE_CACHE, else
 *                        $XDG_CACHE_HOME/lat/tunecache.tsv, else
 *                        $HOME/.cache/lat/tunecache.tsv; NULL if none
 *   tune_cache_find(key, ncand)   the candidate kept for key (< ncand), or -1
 *   tune_cache_keep(key, cand, seconds)   kept in memory, and the file
 *                        rewritten whole (temporary file, then rename): a
 *                        cache that cannot be written costs one warning,
 *                        the run goes on with what it measured
 *   tune_cache_reset()   forget what was read (tests: the next find reads
 *                        the file again)
 * The file: a first line "# lat tunecache 1", then one line per kernel
 * launch: key TAB candidate TAB seconds.  The cache is a convenience, never
 * an input that can stop a run: a file of another format, lines that do not
 * parse, keys with control bytes or over 255 bytes are dropped (one
 * warning), a candidate past the kernel's count is tuned again. */
#ifndef LAT_GPU_TUNE_H
#define LAT_GPU_TUNE_H
#ifdef __cplusplus
extern "C" {
#endif

struct gpu_field;

int gpu_tune_choose(const char *kernel, const struct gpu_field *f, int ncand, void (*run)(int cand, void *arg),
                    void *arg);
void gpu_tune_force(int cand);
int gpu_tune_forced(void);
int gpu_tune_last(void);
void gpu_tune_note_last(int cand);

const char *tune_cache_path(void);
int tune_cache_find(const char *key, int ncand);
void tune_cache_keep(const char *key, int cand, double seconds);
void tune_cache_reset(void);

#ifdef __cplusplus
}
#endif
#endif
