#!/usr/bin/env bats
# solver-profile.bats -- bench/solver_gpu's bookkeeping, checked on the CPU
# (--cpu: the same wrappers of struct solver_op and struct solver_blas over
# the CPU operator and kernels; no GPU needed): one run on 8^4, 12
# iterations, every solver x precision, its TSV read back.  The call
# counts of whole solves are the solvers' own (bicgstab.c, cgne.c,
# core.c): N iterations plus the set-up, the reliable updates and the
# final true residual; the wrapped solve must give the unwrapped one's
# bits; usage errors exit 2 with one line and leave no TSV.

bats_require_minimum_version 1.5.0
load common

N=12

setup_file() {
    lat_test_paths
    export PROF="$ROOT/build/bench/solver_gpu"
    [ -x "$PROF" ] || { echo "build/bench/solver_gpu missing: run make first" >&2; return 1; }
    # one thread: the CPU kernels' parallel regions only cost on a small lattice
    OMP_NUM_THREADS=1 "$PROF" --cpu --lattice 8x8x8x8 --iters $N --tsv "$BATS_FILE_TMPDIR/p.tsv" >"$BATS_FILE_TMPDIR/p.out"
}

setup() { lat_test_dirs; }

# the calls of one (solver, sloppy, operation, precision) row; 0 when absent
calls() { # SOLVER SLOPPY OPERATION PRECISION
    awk -F'\t' -v s="$1" -v p="$2" -v o="$3" -v q="$4" \
        'NR > 1 && $1 == s && $2 == p && $3 == o && $4 == q { c += $5; n++ } END { print n ? c : 0 }' "$T/p.tsv"
}
# a column of the (solver, sloppy) summary row OPERATION
summary() { # SOLVER SLOPPY OPERATION COLUMN
    awk -F'\t' -v s="$1" -v p="$2" -v o="$3" -v k="$4" \
        'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $1 == s && $2 == p && $3 == o { print $col[k] }' "$T/p.tsv"
}
is() { [ "$1" = "$2" ] || { echo "$3: $1, expected $2"; return 1; }; }

# BiCGstab's vector work with the fused kernels (the CPU table has them):
# per iteration <r0, v>, s = r - alpha v, cdot_norm2 (<t, s>, |t|^2),
# caxpby2 (x += alpha p + omega s), caxpby_norm2_cdot (r = s - omega t,
# |r|^2, <r0, r>), caxpby2 (p = r + beta (p - omega v)): 6 calls, 3
# reductions (unfused: 6 caxpby, 3 cdot, 2 norm2: 11 calls, 5 reductions)
@test "solver_gpu --cpu: BiCGstab double, per iteration 2 Mhat, 1 caxpby, 2 caxpby2, 1 cdot, 1 cdot_norm2, 1 caxpby_norm2_cdot (exact totals with set-up and end)" {
    is "$(summary bicgstab double '(wrapped)' iterations)" $N iterations
    is "$(summary bicgstab double '(wrapped)' reliable_updates)" 2 "true residuals (start, end)"
    is "$(calls bicgstab double 'Mhat apply' d)" $((2 * N + 2)) "Mhat (2 a step, 2 true residuals)"
    is "$(calls bicgstab double caxpby d,d)" $N "caxpby (s)"
    is "$(calls bicgstab double caxpby2 d,d)" $((2 * N)) "caxpby2 (x, p)"
    is "$(calls bicgstab double cdot d,d)" $((N + 1)) "cdot (<r0, v> a step, rho_0)"
    is "$(calls bicgstab double cdot_norm2 d,d)" $N "cdot_norm2 (<t, s>, |t|^2)"
    is "$(calls bicgstab double caxpby_norm2_cdot d,d)" $N "caxpby_norm2_cdot (r, |r|^2, <r0, r>)"
    is "$(calls bicgstab double norm2 d)" 4 "norm2 (|b|, 2 true residuals, x accumulation)"
    # the host waits: 3 reductions an iteration (unfused 5)
    is $(($(calls bicgstab double cdot d,d) + $(calls bicgstab double cdot_norm2 d,d) + \
          $(calls bicgstab double caxpby_norm2_cdot d,d) + $(calls bicgstab double norm2 d))) $((3 * N + 5)) reductions
    is "$(calls bicgstab double copy 'd->d')" 5 copy
    is "$(calls bicgstab double axpy d,d)" 3 axpy
    is "$(calls bicgstab double zero d)" 1 zero
    is "$(calls bicgstab double alloc d)" "$(calls bicgstab double free d)" "alloc = free"
    is "$(calls bicgstab double alloc d)" 8 "work vectors (r, tmp, r, r0, p, v, t, x)"
}

@test "solver_gpu --cpu: CGNE double, per iteration Mhat + Mhat^dag, 3 norm2, 2 axpy, 1 xpay" {
    is "$(summary cgne double '(wrapped)' iterations)" $N iterations
    is "$(calls cgne double 'Mhat apply' d)" $((N + 2)) Mhat
    is "$(calls cgne double 'Mhat^dag apply_dag' d)" $((N + 1)) "Mhat^dag (z_0 and one a step)"
    is "$(calls cgne double norm2 d)" $((3 * N + 5)) norm2
    is "$(calls cgne double axpy d,d)" $((2 * N + 3)) axpy
    is "$(calls cgne double xpay d,d)" $N xpay
    # b -> r per true residual (2), then r_s = r and p = z at the start
    is "$(calls cgne double copy 'd->d')" $(($(summary cgne double '(wrapped)' reliable_updates) + 2)) "copy"
}

@test "solver_gpu --cpu: mixed precision, the reliable updates in their own rows (double Mhat per true residual, conversions)" {
    for s in bicgstab cgne; do
        for p in single half; do
            local ru
            ru=$(summary $s $p '(wrapped)' reliable_updates)
            [ "$ru" -ge 3 ] || { echo "$s $p: only $ru true residuals in $N iterations: no reliable update exercised"; return 1; }
            is "$(calls $s $p 'Mhat apply' d)" "$ru" "$s $p: double Mhat = true residuals"
            # r = b - A x in double, then rs = r: one d -> sloppy copy per update (and the first)
            is "$(calls $s $p copy "d->${p:0:1}")" $((ru - 1)) "$s $p: d->${p:0:1} copies"
        done
    done
    # BiCGstab's sloppy Mhat: 2 a step in single; in half each through single (copy h->s, apply_f, copy s->h)
    is "$(calls bicgstab single 'Mhat apply_f' s)" $((2 * N)) "bicgstab single apply_f"
    is "$(calls bicgstab half 'Mhat apply_f' s)" $((2 * N)) "bicgstab half apply_f"
    is "$(calls bicgstab half copy 'h->s')" $((2 * N)) "bicgstab half h->s"
    is "$(calls bicgstab half copy 's->h')" $((2 * N)) "bicgstab half s->h"
    # x accumulates in single for half: x_s += alpha p + omega s, one caxpby2 a step
    is "$(calls bicgstab half caxpby2 h,s)" $N "bicgstab half caxpby2 into x_s"
    is "$(calls bicgstab half caxpby2 h,h)" $N "bicgstab half caxpby2 (p)"
    is "$(calls bicgstab half caxpby h,h)" $N "bicgstab half caxpby (s)"
    is "$(calls bicgstab half caxpby_norm2_cdot h,h)" $N "bicgstab half caxpby_norm2_cdot (r)"
    is "$(calls bicgstab half caxpby h,s)" 0 "bicgstab half unfused caxpby into x_s"
}

@test "solver_gpu --cpu: the wrapped solves give the unwrapped bits; the rows add up to the callbacks' time" {
    local s p
    for s in bicgstab cgne; do
        for p in double single half; do
            is "$(summary $s $p '(wrapped)' true_residual)" "$(summary $s $p '(unwrapped)' true_residual)" "$s $p residual"
            is "$(summary $s $p '(unwrapped)' iterations)" $N "$s $p unwrapped iterations"
            awk -F'\t' -v s=$s -v p=$p '$1 == s && $2 == p && $3 !~ /^\(/ { sum += $9; share += $13 }
                $1 == s && $2 == p && $3 == "(callbacks)" { cb = $9 } $1 == s && $2 == p && $3 == "(wrapped)" { w = $9 }
                END { d = sum - cb; if (d < 0) d = -d
                      if (!(cb > 0) || d > 1e-5 * cb || cb > w * (1 + 1e-5) || share > 100.5) {
                          print s, p ": rows " sum " s, callbacks " cb " s, wrapped " w " s, shares " share "%"; exit 1 } }' "$T/p.tsv"
        done
    done
    grep -q 'the same bits' "$T/p.out"
    ! grep -q DIFFERENT "$T/p.out"
    [ "$(grep -c '^ms per iteration: callbacks' "$T/p.out")" -eq 6 ]
    # the program's own checks (it exits 1 on a FAIL: setup_file would fail)
    [ "$(grep -c '^check: PASS .*; PASS ' "$T/p.out")" -eq 6 ]
}

@test "solver_gpu: bad options exit 2 with one line and leave no TSV" {
    expect_error 2 solver_gpu 'even' -- "$PROF" --cpu --lattice 7x8x8x8 --tsv "$W/t.tsv"
    expect_error 2 solver_gpu 'gmres' -- "$PROF" --cpu --solvers gmres --tsv "$W/t.tsv"
    expect_error 2 solver_gpu 'twice' -- "$PROF" --precisions half,half
    expect_error 2 solver_gpu 'iters' -- "$PROF" --iters 0
    expect_error 2 solver_gpu 'links' -- "$PROF" --links 10
    expect_error 2 solver_gpu 'unknown option' -- "$PROF" --sizes 32
    [ ! -e "$W/t.tsv" ]
    [ -z "$(ls "$W")" ]
}

@test "solver_gpu without --cpu: a note and exit 0 without CUDA or a GPU (a short run with one)" {
    run "$PROF" --lattice 8x8x8x8 --iters 2 --solvers cgne --precisions double
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"nothing to measure"* ]] || [[ "$output" == *"ms per iteration"* ]]
}
