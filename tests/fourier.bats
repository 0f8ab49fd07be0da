#!/usr/bin/env bats
# fourier.bats -- lat-fourier (SPEC §7): Landau and Coulomb gauge by
# Fourier-accelerated CG and steepest descent on the CPU.  Checked against
# lat-measure (theta and F printed are those of the file written), gauge
# invariance (plaquette to 1e-12), a pure-gauge field (F = 1), SU(2) and
# SU(4), the precisions (single and mixed end within 1e-6 of double's F),
# the tracked g(x) (independent awk check), the same bits for 1 and 2
# threads and R = 1, 2, 4 ranks, and bad parameters (one line, exit 2,
# nothing written) and non-convergence (exit 3, written, converged=no).

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-fourier || return 1
    export OMP_NUM_THREADS=1
    local d="$BATS_FILE_TMPDIR"
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 8x8x8x4 --start hot --therm 30 --sweeps 0 --seed 5 -o "$d/c8.lime"
    "$BIN/lat-randomize-orbit" -q --seed 7 -o "$d/r8.lime" "$d/c8.lime"
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 4 --start hot --therm 30 --sweeps 0 --seed 3 -o "$d/c4.lime"
}

setup() {
    lat_test_dirs
    cd "$W"
}

# the number after KEY= in the last history entry
result_of() { last_results "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

@test "Landau, CG: theta < eps; F and theta in history are lat-measure's of the file; plaquette unchanged" {
    run --separate-stderr "$BIN/lat-fourier" --theta 1e-13 -o f.lime "$T/r8.lime"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"landau gauge, Fourier-accelerated CG: converged after"* ]]
    th=$(mval f.lime theta -g landau)
    less "$th" 1e-13
    [ "$(result_of f.lime theta)" = "$(awk -v x="$th" 'BEGIN { printf "%.6g", x }')" ]
    [ "$(result_of f.lime F)" = "$(awk -v x="$(mval f.lime F -g landau)" 'BEGIN { printf "%.15g", x }')" ]
    [[ "$(last_results f.lime)" == "gauge=landau method=fourier-cg alpha=0.08 precision=double "*"converged=yes"* ]]
    close "$(mval f.lime plaquette)" "$(mval "$T/r8.lime" plaquette)" 1e-12
    close "$(mval f.lime polyakov_re)" "$(mval "$T/r8.lime" polyakov_re)" 1e-12
}

@test "--cg-beta: pr is the default (same bytes); hs converges in other iterations, recorded in the history" {
    "$BIN/lat-fourier" -q --theta 1e-12 -o d.lime "$T/r8.lime"
    "$BIN/lat-fourier" -q --theta 1e-12 --cg-beta pr -o p.lime "$T/r8.lime"
    cmp <(lime_payload d.lime ildg-binary-data) <(lime_payload p.lime ildg-binary-data) # (the histories differ: the command line)
    run --separate-stderr "$BIN/lat-fourier" --theta 1e-12 --cg-beta hs -o h.lime "$T/r8.lime"
    [ "$status" -eq 0 ]
    less "$(mval h.lime theta -g landau)" 1e-12
    [[ "$(last_results h.lime)" == *" cg_beta=hs "* ]]
    [[ "$(last_results d.lime)" != *"cg_beta"* ]]
    [ "$(result_of h.lime iterations)" != "$(result_of d.lime iterations)" ]
}

@test "Coulomb, CG: every theta_t < eps; steepest descent reaches Landau gauge too" {
    "$BIN/lat-fourier" -q -g coulomb --theta 1e-13 -o c.lime "$T/r8.lime"
    for t in 0 1 2 3; do less "$(mval c.lime theta_t$t -g coulomb)" 1e-13; done
    close "$(mval c.lime plaquette)" "$(mval "$T/r8.lime" plaquette)" 1e-12
    "$BIN/lat-fourier" -q --method sd --theta 1e-12 -o s.lime "$T/r8.lime"
    less "$(mval s.lime theta -g landau)" 1e-12
    [[ "$(last_results s.lime)" == *"method=fourier-sd"* ]]
}

@test "a pure-gauge field (a random orbit point of the unit field) reaches F = 1" {
    "$BIN/lat-heatbath" -q --sweeps 0 --start cold --lattice 4x4x4x8 -o u.lime
    "$BIN/lat-randomize-orbit" -q --seed 2 u.lime | "$BIN/lat-fourier" -q --theta 1e-20 --max-iter 2000 -o f.lime
    close "$(mval f.lime F -g landau)" 1 1e-12
    "$BIN/lat-randomize-orbit" -q --seed 2 u.lime | "$BIN/lat-fourier" -q -g coulomb --theta 1e-20 -o c.lime
    close "$(mval c.lime F -g coulomb)" 1 1e-12
}

@test "SU(2) and SU(4) converge in both gauges" {
    for n in 2 4; do
        "$BIN/lat-heatbath" -q -N $n --beta $((n == 2 ? 2 : 11)) --lattice 4x4x4x8 --start hot --therm 20 --sweeps 0 -o h$n.lime
        "$BIN/lat-randomize-orbit" -q --seed 4 -o r$n.lime h$n.lime
        for g in landau coulomb; do
            "$BIN/lat-fourier" -q -g $g --theta 1e-13 -o f$n$g.lime r$n.lime
            less "$(mval f$n$g.lime theta -g $g)" 1e-13
            close "$(mval f$n$g.lime plaquette)" "$(mval h$n.lime plaquette)" 1e-12
        done
    done
}

@test "single and mixed precision end within 1e-6 of double's F" {
    "$BIN/lat-fourier" -q --theta 1e-12 -o d.lime "$T/r8.lime"
    for p in single mixed; do
        "$BIN/lat-fourier" -q --precision $p --theta 1e-10 -o $p.lime "$T/r8.lime"
        close "$(mval $p.lime F -g landau)" "$(mval d.lime F -g landau)" 1e-6
        [[ "$(last_results $p.lime)" == *"precision=$p"* ]]
    done
}

@test "the tracked transformation reproduces the fixed field (Landau and Coulomb)" {
    for g in landau coulomb; do
        "$BIN/lat-randomize-orbit" -q --seed 3 --track-transform "$T/c4.lime" \
            | "$BIN/lat-fourier" -q -g $g --theta 1e-13 -o fixed.lime
        transform_reproduces "$T/c4.lime" fixed.lime 4
    done
}

@test "the same bits for 1 and 2 threads" {
    mkdir a b
    (cd a && OMP_NUM_THREADS=1 "$BIN/lat-fourier" -q --theta 1e-12 -o f.lime "$T/r8.lime")
    (cd b && OMP_NUM_THREADS=2 "$BIN/lat-fourier" -q --theta 1e-12 -o f.lime "$T/r8.lime")
    cmp a/f.lime b/f.lime
}

@test "not converged within --max-iter: exit 3, written, history converged=no" {
    run "$BIN/lat-fourier" -q --max-iter 3 -o nc.lime "$T/r8.lime"
    [ "$status" -eq 3 ]
    [ -s nc.lime ]
    [[ "$(last_results nc.lime)" == *"iterations=3 "*"converged=no"* ]]
}

@test "a stalled run restarts from a fresh orbit point, recorded in the history" {
    run "$BIN/lat-fourier" -q --stall 2 --restarts 1 --max-iter 200 -o s.lime "$T/r8.lime"
    [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
    [[ "$(last_results s.lime)" == *"restarts=1 seed=1 copy=0"* ]]
}

@test "bad parameters: exit 2, one line, nothing written, an existing output untouched" {
    echo keep > out.lime
    sum=$(cksum < out.lime)
    for args in "--alpha 0" "--alpha -0.1" "--alpha 2" "--theta 0" "--theta -1" "--max-iter 0" "--gauge mag" \
        "--method newton" "--cg-beta fr" "--restarts -1" "--stall 0" "--precision half" "--bogus"; do
        expect_error 2 lat-fourier -- "$BIN/lat-fourier" $args -o out.lime "$T/c4.lime"
    done
    [ "$(cksum < out.lime)" = "$sum" ]
    [ "$(ls -A)" = out.lime ]
}

@test "lat-gaugefix --final fourier: annealing, then lat-fourier; MAG refused (exit 2)" {
    "$PIPE/lat-gaugefix" -q --final fourier --sa-steps 20 --theta 1e-12 -o fix.lime "$T/r8.lime"
    less "$(mval fix.lime theta -g landau)" 1e-12
    "$BIN/lat-measure" --history --format tsv fix.lime > h.tsv
    grep -q 'lat-anneal' h.tsv
    [[ "$(last_results fix.lime)" == *"method=fourier-cg"*"converged=yes"* ]]
    ! grep -q 'stochastic' h.tsv || false
    expect_error 2 lat-gaugefix -- "$PIPE/lat-gaugefix" --final fourier -g mag -o out.lime "$T/r8.lime"
    expect_error 2 lat-gaugefix -- "$PIPE/lat-gaugefix" --final newton -o out.lime "$T/r8.lime"
    [ ! -e out.lime ]
}
