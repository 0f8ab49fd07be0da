/* gpu_metrics.c (bench) -- gpu_metrics.h on CUPTI's range profiler (CUDA
 * 13), host C.  gpu_metrics_begin: the context current to the thread
 * (cuCtxGetCurrent, reached through the runtime's driver entry points: no
 * -lcuda), cuptiProfilerInitialize, the device's support
 * (cuptiProfilerDeviceSupported) and chip name (cuptiDeviceGetChipName),
 * the counter availability image, the profiler host object
 * (cuptiProfilerHostInitialize), the metric names checked one by one
 * (cuptiProfilerHostGetMetricProperties), the config image
 * (cuptiProfilerHostConfigAddMetrics, _GetConfigImageSize,
 * _GetConfigImage, _GetNumOfPasses), cuptiRangeProfilerEnable, the counter
 * data image (cuptiRangeProfilerGetCounterDataSize,
 * _CounterDataImageInitialize), cuptiRangeProfilerSetConfig (auto range,
 * kernel replay: CUPTI replays each kernel itself, so one Start/Stop
 * boundary collects every pass and Stop reports all passes submitted) and
 * cuptiRangeProfilerStart.  gpu_metrics_end: cuptiRangeProfilerStop,
 * _DecodeData (it synchronises the context), _GetCounterDataInfo, per
 * range _CounterDataGetRangeInfo and cuptiProfilerHostEvaluateToGpuValues,
 * then the teardown begin's failures also run: cuptiRangeProfilerDisable,
 * cuptiProfilerHostDeinitialize, cuptiProfilerDeInitialize, the buffers
 * freed.
 *
 * cupti_profiler_host.h includes C++'s <string> (and uses nothing of it):
 * the Makefile compiles this file with an empty `string` searched after
 * the system headers (-idirafter build/cupti-c).  LAT_HAVE_CUPTI comes from
 * the Makefile when the toolkit has CUPTI (CUDA=1); without it, stubs. */
#include "gpu_metrics.h"
#include <stdio.h>

#ifndef LAT_HAVE_CUPTI
int gpu_metrics_begin(const char *metrics_csv)
{
    (void)metrics_csv;
    fprintf(stderr, "gpu_metrics: built without CUDA's CUPTI: no hardware counters\n");
    return 1;
}

int gpu_metrics_end(FILE *out, const char *label)
{
    (void)out;
    (void)label;
    return 1;
}
#else
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the one session: what begin set up, for end and the teardown */
static struct {
    int active;      /* begun and not ended */
    int initialised; /* cuptiProfilerInitialize succeeded */
    CUcontext ctx;
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *rp;
    char chip[64];
    char *csv;          /* the copy of the list the names point into */
    const char **names; /* the metrics collected */
    size_t nnames;
    uint8_t *avail, *config, *data;
    size_t config_size, data_size, passes;
} S;

/* One line on stderr for a failed CUPTI call; 1, to return. */
static int cupti_fail(const char *call, CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        fprintf(stderr,
                "gpu_metrics: CUPTI profiling not permitted (%s: %s; the driver restricts the GPU counters to admin "
                "users: NVreg_RestrictProfilingToAdminUsers=0 or root): no hardware counters\n",
                call, s);
    else fprintf(stderr, "gpu_metrics: %s failed: %s (%d): no hardware counters\n", call, s, (int)r);
    return 1;
}

/* One line on stderr for a call that succeeded but gave nothing; 1. */
static int cupti_empty(const char *call, const char *what)
{
    fprintf(stderr, "gpu_metrics: %s gave no %s: no hardware counters\n", call, what);
    return 1;
}

/* 0 when call returned CUPTI_SUCCESS; else 1 after cupti_fail's line */
/* a CUPTI call's parameter struct p of type T: zeroed and its structSize
 * set, the type named once so the size always matches the struct */
#define CUPTI_PARAMS(T, p)       \
    T p;                         \
    memset(&p, 0, sizeof p);     \
    p.structSize = T##_STRUCT_SIZE
static int cupti_call(const char *call, CUptiResult r) { return r == CUPTI_SUCCESS ? 0 : cupti_fail(call, r); }

/* 0 when call returned r = CUPTI_SUCCESS and gave what it should (got);
 * else 1 after cupti_fail's or cupti_empty's line */
static int cupti_check(const char *call, CUptiResult r, int got, const char *what)
{
    if (r != CUPTI_SUCCESS) return cupti_fail(call, r);
    return got ? 0 : cupti_empty(call, what);
}

/* *buf = size zeroed bytes, *bufsize = size; 0, or 1 after a line */
static int alloc_image(size_t size, const char *what, uint8_t **buf, size_t *bufsize)
{
    *bufsize = size;
    if ((*buf = calloc(1, size))) return 0;
    fprintf(stderr, "gpu_metrics: out of memory (%s, %zu B)\n", what, size);
    return 1;
}

/* Undo whatever begin set up, in reverse; safe on a partial set-up. */
static void teardown(void)
{
    if (S.rp) {
        CUpti_RangeProfiler_Disable_Params p = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, S.rp};
        cupti_call("cuptiRangeProfilerDisable", cuptiRangeProfilerDisable(&p));
    }
    if (S.host) {
        CUpti_Profiler_Host_Deinitialize_Params p = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
                                                     S.host};
        cupti_call("cuptiProfilerHostDeinitialize", cuptiProfilerHostDeinitialize(&p));
    }
    if (S.initialised) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
        cupti_call("cuptiProfilerDeInitialize", cuptiProfilerDeInitialize(&p));
    }
    free(S.csv);
    free(S.names);
    free(S.avail);
    free(S.config);
    free(S.data);
    memset(&S, 0, sizeof S);
}

/* Split the list into S.names (pointers into S.csv); the count, 0 if none. */
static size_t split_metrics(const char *csv)
{
    size_t n = 1;
    for (const char *c = csv; *c; c++) n += *c == ',';
    S.csv = strdup(csv);
    S.names = calloc(n, sizeof *S.names);
    if (!S.csv || !S.names) return 0;
    S.nnames = 0;
    for (char *save = NULL, *t = strtok_r(S.csv, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ' || *t == '\t' || *t == '\n') t++;
        char *e = t + strlen(t);
        while (e > t && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n')) *--e = 0;
        if (*t) S.names[S.nnames++] = t;
    }
    return S.nnames;
}

/* The current context and its device, through the runtime's driver entry
 * points (cuCtxGetCurrent, cuCtxGetDevice); 0 on success. */
static int current_context(CUcontext *ctx, CUdevice *dev)
{
    int ordinal = 0;
    cudaError_t e = cudaGetDevice(&ordinal);
    if (e == cudaSuccess) e = cudaFree(NULL); /* the primary context made current, if it was not yet */
    if (e != cudaSuccess) {
        fprintf(stderr, "gpu_metrics: no CUDA device in use (%s): no hardware counters\n", cudaGetErrorString(e));
        return 1;
    }
    void *fget = NULL, *fdev = NULL;
    enum cudaDriverEntryPointQueryResult q1 = cudaDriverEntryPointSymbolNotFound, q2 = q1;
    cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fget, 4000, cudaEnableDefault, &q1);
    cudaGetDriverEntryPointByVersion("cuCtxGetDevice", &fdev, 4000, cudaEnableDefault, &q2);
    *ctx = NULL;
    *dev = (CUdevice)ordinal;
    if (!fget || q1 != cudaDriverEntryPointSuccess ||
        ((CUresult(CUDAAPI *)(CUcontext *))fget)(ctx) != CUDA_SUCCESS || !*ctx) {
        fprintf(stderr, "gpu_metrics: no current CUDA context (cuCtxGetCurrent): no hardware counters\n");
        return 1;
    }
    CUdevice d;
    if (fdev && q2 == cudaDriverEntryPointSuccess && ((CUresult(CUDAAPI *)(CUdevice *))fdev)(&d) == CUDA_SUCCESS)
        *dev = d;
    return 0;
}

/* Why the device cannot be profiled, from cuptiProfilerDeviceSupported; 0
 * when it can (or the query itself failed: the calls after it will say). */
static int device_unsupported(CUdevice dev)
{
    CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, p);
    p.cuDevice = dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUptiResult r = cuptiProfilerDeviceSupported(&p);
    if (r != CUPTI_SUCCESS || p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return 0;
    static const char *level[] = {"unknown", "unsupported", "disabled", "supported"};
    const struct {
        const char *what;
        CUpti_Profiler_Support_Level l;
    } f[] = {{"architecture", p.architecture}, {"SLI", p.sli}, {"vGPU", p.vGpu},
             {"confidential compute", p.confidentialCompute}, {"CMP", p.cmp}, {"WSL", p.wsl}};
    fprintf(stderr, "gpu_metrics: CUPTI range profiling not supported on this device (");
    const char *sep = "";
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (f[k].l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
            fprintf(stderr, "%s%s %s", sep, f[k].what, (unsigned)f[k].l < 4 ? level[f[k].l] : "?");
            sep = ", ";
        }
    fprintf(stderr, "): no hardware counters\n");
    return 1;
}

/* The counter availability image into S.avail (NULL when the query fails
 * for any reason but privileges: the host object then goes without); 0, or
 * 1 after saying that profiling is not permitted. */
static int counter_availability(void)
{
    CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, p);
    p.ctx = S.ctx;
    CUptiResult r = cuptiProfilerGetCounterAvailability(&p);
    if (r == CUPTI_SUCCESS && p.counterAvailabilityImageSize > 0) {
        S.avail = malloc(p.counterAvailabilityImageSize);
        if (!S.avail) return 0;
        p.pCounterAvailabilityImage = S.avail;
        r = cuptiProfilerGetCounterAvailability(&p);
    }
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) return cupti_fail("cuptiProfilerGetCounterAvailability", r);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        fprintf(stderr, "gpu_metrics: note: no counter availability image (%s): going on without\n",
                s ? s : "unknown CUPTI error");
        free(S.avail);
        S.avail = NULL;
    }
    return 0;
}

/* Keep only the names the chip knows (cuptiProfilerHostGetMetricProperties
 * accepts names with rollup and submetric); when it knows none, all are
 * kept and ConfigAddMetrics says what is wrong. */
static void check_metrics(void)
{
    size_t kept = 0;
    const char **ok = calloc(S.nnames, sizeof *ok);
    if (!ok) return;
    for (size_t k = 0; k < S.nnames; k++) {
        CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, p);
        p.pHostObject = S.host;
        p.pMetricName = S.names[k];
        CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
        if (r == CUPTI_SUCCESS) ok[kept++] = S.names[k];
        else {
            const char *s = NULL;
            cuptiGetResultString(r, &s);
            fprintf(stderr, "gpu_metrics: %s metric %s on %s (%s): skipped\n",
                    r == CUPTI_ERROR_INVALID_METRIC_NAME ? "unknown" : "unusable", S.names[k], S.chip,
                    s ? s : "unknown CUPTI error");
        }
    }
    if (kept > 0) {
        memcpy(S.names, ok, kept * sizeof *ok);
        S.nnames = kept;
    } else fprintf(stderr, "gpu_metrics: no metric passed the check: trying them all\n");
    free(ok);
}

int gpu_metrics_begin(const char *metrics_csv)
{
    CUptiResult r;
    if (S.active) {
        fprintf(stderr, "gpu_metrics: a session is already running (gpu_metrics_end first)\n");
        return 1;
    }
    memset(&S, 0, sizeof S);
    if (!metrics_csv || split_metrics(metrics_csv) == 0) {
        fprintf(stderr, "gpu_metrics: no metric names in \"%s\"\n", metrics_csv ? metrics_csv : "");
        teardown();
        return 1;
    }
    CUdevice dev;
    if (current_context(&S.ctx, &dev)) goto fail;
    {
        CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
        if (cupti_call("cuptiProfilerInitialize", cuptiProfilerInitialize(&p))) goto fail;
        S.initialised = 1;
    }
    if (device_unsupported(dev)) goto fail;
    {
        int ordinal = 0;
        cudaGetDevice(&ordinal);
        CUPTI_PARAMS(CUpti_Device_GetChipName_Params, p);
        p.deviceIndex = (size_t)ordinal;
        r = cuptiDeviceGetChipName(&p);
        if (cupti_check("cuptiDeviceGetChipName", r, p.pChipName != NULL, "name")) goto fail;
        snprintf(S.chip, sizeof S.chip, "%s", p.pChipName);
    }
    if (counter_availability()) goto fail;
    {
        CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, p);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = S.chip;
        p.pCounterAvailabilityImage = S.avail;
        r = cuptiProfilerHostInitialize(&p);
        if (cupti_check("cuptiProfilerHostInitialize", r, p.pHostObject != NULL, "host object")) goto fail;
        S.host = p.pHostObject;
    }
    check_metrics();
    {
        CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, p);
        p.pHostObject = S.host;
        p.ppMetricNames = S.names;
        p.numMetrics = S.nnames;
        if (cupti_call("cuptiProfilerHostConfigAddMetrics", cuptiProfilerHostConfigAddMetrics(&p))) goto fail;
    }
    {
        CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, p);
        p.pHostObject = S.host;
        r = cuptiProfilerHostGetConfigImageSize(&p);
        if (cupti_check("cuptiProfilerHostGetConfigImageSize", r, p.configImageSize > 0, "config image (size 0)"))
            goto fail;
        if (alloc_image(p.configImageSize, "config image", &S.config, &S.config_size)) goto fail;
    }
    {
        CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, p);
        p.pHostObject = S.host;
        p.configImageSize = S.config_size;
        p.pConfigImage = S.config;
        if (cupti_call("cuptiProfilerHostGetConfigImage", cuptiProfilerHostGetConfigImage(&p))) goto fail;
    }
    {
        CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, p);
        p.configImageSize = S.config_size;
        p.pConfigImage = S.config;
        S.passes = cuptiProfilerHostGetNumOfPasses(&p) == CUPTI_SUCCESS ? p.numOfPasses : 0;
    }
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, p);
        p.ctx = S.ctx;
        r = cuptiRangeProfilerEnable(&p);
        if (cupti_check("cuptiRangeProfilerEnable", r, p.pRangeProfilerObject != NULL, "range profiler object"))
            goto fail;
        S.rp = p.pRangeProfilerObject;
    }
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, p);
        p.pRangeProfilerObject = S.rp;
        p.pMetricNames = S.names;
        p.numMetrics = S.nnames;
        p.maxNumOfRanges = GPU_METRICS_MAX_RANGES;
        p.maxNumRangeTreeNodes = GPU_METRICS_MAX_RANGES;
        r = cuptiRangeProfilerGetCounterDataSize(&p);
        if (cupti_check("cuptiRangeProfilerGetCounterDataSize", r, p.counterDataSize > 0,
                        "counter data image (size 0)"))
            goto fail;
        if (alloc_image(p.counterDataSize, "counter data image", &S.data, &S.data_size)) goto fail;
    }
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, p);
        p.pRangeProfilerObject = S.rp;
        p.counterDataSize = S.data_size;
        p.pCounterData = S.data;
        r = cuptiRangeProfilerCounterDataImageInitialize(&p);
        if (cupti_call("cuptiRangeProfilerCounterDataImageInitialize", r)) goto fail;
    }
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, p);
        p.pRangeProfilerObject = S.rp;
        p.configSize = S.config_size;
        p.pConfig = S.config;
        p.counterDataImageSize = S.data_size;
        p.pCounterDataImage = S.data;
        p.range = CUPTI_AutoRange;
        p.replayMode = CUPTI_KernelReplay;
        p.maxRangesPerPass = GPU_METRICS_MAX_RANGES;
        p.numNestingLevels = 1; /* auto ranges: one level */
        p.minNestingLevel = 1;
        p.passIndex = 0;
        p.targetNestingLevel = 1;
        if (cupti_call("cuptiRangeProfilerSetConfig", cuptiRangeProfilerSetConfig(&p))) goto fail;
    }
    {
        CUpti_RangeProfiler_Start_Params p = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, S.rp};
        if (cupti_call("cuptiRangeProfilerStart", cuptiRangeProfilerStart(&p))) goto fail;
    }
    fprintf(stderr, "gpu_metrics: %zu metrics on %s, %zu replay passes a kernel\n", S.nnames, S.chip, S.passes);
    S.active = 1;
    return 0;
fail:
    teardown();
    return 1;
}

/* Evaluate every metric of range i into v; a metric that fails alone is NaN. */
static void evaluate(size_t i, double *v)
{
    CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, p);
    p.pHostObject = S.host;
    p.pCounterDataImage = S.data;
    p.counterDataImageSize = S.data_size;
    p.rangeIndex = i;
    p.ppMetricNames = S.names;
    p.numMetrics = S.nnames;
    p.pMetricValues = v;
    if (cuptiProfilerHostEvaluateToGpuValues(&p) == CUPTI_SUCCESS) return;
    for (size_t k = 0; k < S.nnames; k++) { /* one at a time: which one fails */
        p.ppMetricNames = &S.names[k];
        p.numMetrics = 1;
        p.pMetricValues = &v[k];
        CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
        if (r != CUPTI_SUCCESS) {
            const char *s = NULL;
            cuptiGetResultString(r, &s);
            fprintf(stderr, "gpu_metrics: range %zu, %s: %s\n", i, S.names[k], s ? s : "unknown CUPTI error");
            v[k] = NAN;
        }
    }
}

int gpu_metrics_end(FILE *out, const char *label)
{
    if (!S.active) {
        fprintf(stderr, "gpu_metrics: gpu_metrics_end without a session begun\n");
        return 1;
    }
    if (!out) out = stdout;
    if (!label) label = "-";
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, p);
        p.pRangeProfilerObject = S.rp;
        if (cupti_call("cuptiRangeProfilerStop", cuptiRangeProfilerStop(&p))) goto fail;
        if (!p.isAllPassSubmitted) /* kernel replay: not expected */
            fprintf(stderr, "gpu_metrics: %s: not all replay passes submitted (pass index %zu): values may be "
                    "partial\n", label, p.passIndex);
    }
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, p);
        p.pRangeProfilerObject = S.rp;
        if (cupti_call("cuptiRangeProfilerDecodeData", cuptiRangeProfilerDecodeData(&p))) goto fail;
        if (p.numOfRangeDropped)
            fprintf(stderr, "gpu_metrics: %s: %zu ranges dropped (over %d launches)\n", label, p.numOfRangeDropped,
                    GPU_METRICS_MAX_RANGES);
    }
    size_t nranges = 0;
    {
        CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, p);
        p.pCounterDataImage = S.data;
        p.counterDataImageSize = S.data_size;
        if (cupti_call("cuptiRangeProfilerGetCounterDataInfo", cuptiRangeProfilerGetCounterDataInfo(&p))) goto fail;
        nranges = p.numTotalRanges;
    }
    if (nranges == 0) fprintf(stderr, "gpu_metrics: %s: no range recorded (no kernel launched?)\n", label);
    double *v = malloc((S.nnames ? S.nnames : 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "gpu_metrics: out of memory\n");
        goto fail;
    }
    for (size_t i = 0; i < nranges; i++) {
        CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, p);
        p.pCounterDataImage = S.data;
        p.counterDataImageSize = S.data_size;
        p.rangeIndex = i;
        p.rangeDelimiter = "/";
        char idx[32];
        snprintf(idx, sizeof idx, "%zu", i);
        /* the name stays CUPTI's (the header says nothing of freeing it) */
        const char *name = cuptiRangeProfilerCounterDataGetRangeInfo(&p) == CUPTI_SUCCESS && p.rangeName && *p.rangeName
                               ? p.rangeName
                               : idx;
        evaluate(i, v);
        for (size_t k = 0; k < S.nnames; k++) fprintf(out, "metrics %s %s %s %.6g\n", label, name, S.names[k], v[k]);
    }
    fflush(out);
    free(v);
    teardown();
    return 0;
fail:
    teardown();
    return 1;
}
#endif
