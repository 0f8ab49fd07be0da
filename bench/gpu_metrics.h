/* gpu_metrics.h (bench) -- hardware counters of the kernels a stretch of
 * host code launches, through CUPTI's range profiler (CUDA 13:
 * cupti_range_profiler.h, cupti_profiler_host.h); bench/dirac_gpu's
 * LAT_GPU_METRICS.  Built and linked (libcupti, libnvperf_host,
 * libnvperf_target) only into build/bench/dirac_gpu and only with CUDA=1;
 * without CUDA, or without CUPTI in the toolkit, both calls are stubs that
 * say so on stderr and return 1.
 *
 *   gpu_metrics_begin(metrics_csv)
 *       sets up one profiling session on the CUDA context current to the
 *       calling thread (the current device's primary context, made if it
 *       is not yet) for the
 *       comma-separated metric names (Nsight Compute's names, e.g.
 *       "sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum";
 *       spaces around the commas are ignored), with auto ranges (one range per
 *       kernel launch, launches serialised; at most GPU_METRICS_MAX_RANGES)
 *       and kernel replay (CUPTI runs each kernel as often as the metrics'
 *       passes need, saving and restoring device memory between runs: the
 *       results stay those of one launch).  A name the chip does not know is
 *       reported on stderr ("gpu_metrics: unknown metric NAME on CHIP:
 *       skipped") and left out; the others are collected.  Every kernel
 *       launched until gpu_metrics_end is profiled.  Returns 0 when the
 *       session runs; else 1 with one line on stderr saying why ("CUPTI
 *       profiling not permitted (...)" for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
 *       else the failing call and CUPTI's error string), everything it set
 *       up undone: the caller goes on without metrics.  One session at a
 *       time (a second begin before the end fails).
 *   gpu_metrics_end(out, label)
 *       ends the session begun (the launches' results are waited for),
 *       decodes and evaluates the counters and prints one line per range
 *       (kernel launch, in launch order) and metric to out:
 *           metrics LABEL RANGE METRIC VALUE
 *       RANGE the range's name (auto ranges: "0", "1", ... in launch
 *       order), VALUE as %.6g ("nan" where that metric could not be
 *       evaluated, with a line on stderr).  Notes on stderr: the number of
 *       replay passes, ranges dropped (more launches than the image holds),
 *       passes not all submitted.  Frees everything and ends CUPTI's
 *       profiler; returns 0 on success, 1 (a line on stderr) when no session
 *       was begun or decoding failed.
 *
 * GPU_METRICS_DEFAULT is the default list (bench/dirac_gpu with
 * LAT_GPU_METRICS=1): time, memory traffic and throughput, issue activity,
 * occupancy, the warp stall reasons per issued instruction and the
 * instructions per pipe, all Nsight Compute names of sm_90 (Hopper). */
#ifndef LAT_BENCH_GPU_METRICS_H
#define LAT_BENCH_GPU_METRICS_H

#include <stdio.h>

#define GPU_METRICS_MAX_RANGES 64

#define GPU_METRICS_DEFAULT                                                                                       \
    "gpu__time_duration.sum,"                                                                                     \
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,"                                                         \
    "lts__t_bytes.sum,"                                                                                           \
    "dram__bytes_read.sum,"                                                                                       \
    "dram__bytes_write.sum,"                                                                                      \
    "l1tex__t_bytes.sum,"                                                                                         \
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"                                                           \
    "smsp__issue_active.avg.pct_of_peak_sustained_active,"                                                        \
    "smsp__inst_executed.sum,"                                                                                    \
    "sm__warps_active.avg.pct_of_peak_sustained_active,"                                                          \
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,"                                   \
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,"                                  \
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,"                                       \
    "smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,"                                      \
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,"                                \
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,"                                              \
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,"                                      \
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,"                                      \
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,"                                           \
    "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,"                                    \
    "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,"                                    \
    "smsp__inst_executed_pipe_lsu.sum,"                                                                           \
    "smsp__inst_executed_pipe_alu.sum,"                                                                           \
    "smsp__inst_executed_pipe_fma.sum,"                                                                           \
    "smsp__inst_executed_pipe_fp64.sum,"                                                                          \
    "smsp__inst_executed_pipe_tex.sum"

int gpu_metrics_begin(const char *metrics_csv);
int gpu_metrics_end(FILE *out, const char *label);

#endif
