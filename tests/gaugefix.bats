#!/usr/bin/env bats
# gaugefix.bats -- lat-randomize-orbit, lat-anneal, lat-overrelax and the
# pipelines lat-gaugefix and lat-gribov-scan as programs: chains through
# pipes, convergence of every gauge (our inputs and the real files of
# ../shared/data), gauge invariance of plaquette and Polyakov loop, the
# tracked transformation (checked with an independent awk computation),
# history entries, reproducibility by seed and thread count, exit codes, and
# bad parameters or inputs (one line, exit 2 or 1, nothing written, an
# existing output untouched).

bats_require_minimum_version 1.5.0
source "$BATS_TEST_DIRNAME/common.bash"
source "$BATS_TEST_DIRNAME/lime.bash"

setup_file() {
    lat_test_paths lat-randomize-orbit lat-anneal lat-overrelax lat-measure lat-heatbath || return 1
    # one thread (a test that is about threads sets its own)
    export OMP_NUM_THREADS=1
    local d="$BATS_FILE_TMPDIR"
    # non-trivial inputs: short heatbath runs at beta = 6 (double files)
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 4 --start hot --therm 30 --sweeps 0 --seed 3 -o "$d/c4.lime"
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 4x4x4x8 --start hot --therm 30 --sweeps 0 --seed 4 -o "$d/c48.lime"
    "$BIN/lat-heatbath" -q --beta 6.0 --lattice 8 --start hot --therm 10 --sweeps 0 --seed 5 -o "$d/c8.lime"
    "$BIN/lat-heatbath" -q --sweeps 0 --start cold --lattice 4 -o "$d/unit.lime"
}

setup() {
    lat_test_dirs
    cd "$W"
}


@test "help and version of every program and pipeline" {
    for p in "$BIN/lat-randomize-orbit" "$BIN/lat-anneal" "$BIN/lat-overrelax" "$PIPE/lat-gaugefix" "$PIPE/lat-gribov-scan"; do
        has_help_and_version "$p"
    done
    for m in lat-randomize-orbit lat-anneal lat-overrelax lat-gaugefix lat-gribov-scan; do
        [ -f "$ROOT/man/man1/$m.1" ]
        man -l "$ROOT/man/man1/$m.1" > /dev/null 2>&1 || [ "$?" -ne 0 -a ! -x "$(command -v man)" ]
    done
}

@test "chain through pipes: randomize | anneal | overrelax, Landau to 1e-12, invariants kept" {
    "$BIN/lat-randomize-orbit" --seed 7 "$T/c4.lime" \
        | "$BIN/lat-anneal" -q --steps 50 --seed 7 \
        | "$BIN/lat-overrelax" -q --theta 1e-12 -o fixed.lime
    th=$(mval fixed.lime theta --gauge landau)
    less "$th" 1e-12
    for o in plaquette plaquette_spatial polyakov_re polyakov_im; do
        close "$(mval fixed.lime $o)" "$(mval "$T/c4.lime" $o)" 1e-12
    done
    # the gauge changed a lot: F went up from a random orbit point
    less 0.7 "$(mval fixed.lime F --gauge landau)"
}

@test "every gauge converges from a random orbit point (4^3x8), F and theta as lat-measure finds them" {
    for g in landau coulomb mag; do
        "$BIN/lat-randomize-orbit" --seed 2 --copy 1 "$T/c48.lime" | "$BIN/lat-overrelax" -q -g $g --theta 1e-12 -o $g.lime
        [ "$(mval $g.lime theta -g $g | awk '{ print ($1 < 1e-12) }')" = 1 ]
        res=$(last_results $g.lime)
        [[ "$res" == *"gauge=$g "*"converged=yes"* ]]
        F=$(echo "$res" | sed 's/.* F=\([^ ]*\) .*/\1/')
        close "$F" "$(mval $g.lime F -g $g)" 1e-14
        close "$(mval $g.lime plaquette)" "$(mval "$T/c48.lime" plaquette)" 1e-12
        close "$(mval $g.lime polyakov_re)" "$(mval "$T/c48.lime" polyakov_re)" 1e-12
    done
    # Coulomb: every timeslice below 1e-12
    "$BIN/lat-measure" --format tsv -g coulomb coulomb.lime \
        | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^theta_t[0-9]+$/) c[i] = 1; next }
                      { for (i in c) { n++; if ($i + 0 >= 1e-12) bad++ } } END { exit !(n == 8 && !bad) }'
}

@test "relaxation: F never decreases between checks, theta falls (log)" {
    "$BIN/lat-randomize-orbit" --seed 5 "$T/c4.lime" \
        | "$BIN/lat-overrelax" -q --omega 1 --theta 1e-14 --check-every 5 --log relax.tsv -o r.lime
    head -n 1 relax.tsv | grep -q $'^step\tfunctional\ttheta\tseconds$'
    [ "$(wc -l < relax.tsv)" -gt 5 ]
    awk -F'\t' 'NR == 2 { F0 = $2; t0 = $3 } NR > 2 && $2 < p - 1e-14 { bad++ } NR > 1 { p = $2; t = $3 }
                END { exit !(!bad && t < 1e-14 && t0 > 1e-3 && p > F0) }' relax.tsv
}

@test "microcanonical sweeps (--omega 2) keep F; no stopping criterion" {
    "$BIN/lat-randomize-orbit" --seed 5 "$T/c4.lime" > r.lime
    run "$BIN/lat-overrelax" -q --omega 2 --max-iter 20 -o m.lime r.lime
    [ "$status" -eq 0 ]
    close "$(mval m.lime F -g landau)" "$(mval r.lime F -g landau)" 1e-12
    run ! close "$(mval m.lime theta -g landau)" "$(mval r.lime theta -g landau)" 1e-6
    [[ "$(last_results m.lime)" == *"method=microcanonical"*"sweeps=20"* ]]
    [[ "$(last_results m.lime)" != *converged* ]]
}

@test "stochastic relaxation and all precisions converge; single and mixed F within 1e-5 / 1e-6 of double" {
    "$BIN/lat-randomize-orbit" --seed 8 "$T/c4.lime" > r.lime
    "$BIN/lat-overrelax" -q --stochastic 0.5 --seed 3 -o sr.lime r.lime
    [[ "$(last_results sr.lime)" == *"method=stochastic-relaxation p=0.5 seed=3"*"converged=yes"* ]]
    "$BIN/lat-overrelax" -q -o d.lime r.lime
    "$BIN/lat-overrelax" -q --precision single --theta 1e-10 -o s.lime r.lime
    "$BIN/lat-overrelax" -q --precision mixed --reunitarize-every 50 --theta 1e-11 -o m.lime r.lime
    Fd=$(mval d.lime F -g landau) Fs=$(mval s.lime F -g landau) Fm=$(mval m.lime F -g landau)
    close "$Fs" "$Fd" "$(awk -v f="$Fd" 'BEGIN { print 1e-5 * f }')"
    close "$Fm" "$Fd" "$(awk -v f="$Fd" 'BEGIN { print 1e-6 * f }')"
    [[ "$(last_results s.lime)" == *"precision=single"*"converged=yes"* ]]
}

@test "a pure gauge field is fixed to F = 1 (Landau)" {
    "$BIN/lat-randomize-orbit" --seed 4 "$T/unit.lime" > pure.lime
    less "$(mval pure.lime F -g landau)" 0.2
    "$BIN/lat-overrelax" -q --omega 1.5 --theta 1e-14 -o one.lime pure.lime
    close "$(mval one.lime F -g landau)" 1 1e-13
}

@test "not converged within --max-iter: exit 3, written, history converged=no" {
    "$BIN/lat-randomize-orbit" --seed 5 "$T/c4.lime" > r.lime
    run "$BIN/lat-overrelax" -q --max-iter 3 -o nc.lime r.lime
    [ "$status" -eq 3 ]
    [ -s nc.lime ]
    [[ "$(last_results nc.lime)" == *"iterations=3 "*"converged=no"* ]]
}

@test "history entries: randomize-orbit, anneal, overrelax with their parameters and results" {
    "$BIN/lat-randomize-orbit" --seed 7 --copy 2 "$T/c4.lime" | "$BIN/lat-anneal" -q -g mag --steps 10 --seed 7 --copy 2 \
        | "$BIN/lat-overrelax" -q -g mag -o h.lime
    "$BIN/lat-measure" --history --format tsv h.lime > hist
    grep -q $'\tlat-randomize-orbit [0-9.]*\t.*\tseed=7 copy=2$' hist
    grep -q $'\tlat-anneal [0-9.]*\t.*gauge=mag method=annealing steps=10 tmax=1 tmin=0.005 schedule=linear micro=3 seed=7 copy=2 precision=double F=' hist
    grep -q $'\tlat-overrelax [0-9.]*\t.*gauge=mag method=overrelaxation omega=1.8 precision=double F=[0-9.]* theta=[0-9.e-]* iterations=[0-9]* sweeps=[0-9]* converged=yes$' hist
}

@test "same seed: same bytes, with 1 and 2 threads (8^4); another --copy differs" {
    chain() { # COPY THREADS DIR (the output name is part of the history: same name each time)
        mkdir -p "$3"
        OMP_NUM_THREADS=$2 "$BIN/lat-randomize-orbit" --seed 9 --copy $1 "$T/c8.lime" \
            | OMP_NUM_THREADS=$2 "$BIN/lat-anneal" -q --steps 3 --seed 9 --copy $1 \
            | (cd "$3" && OMP_NUM_THREADS=$2 "$BIN/lat-overrelax" -q --stochastic 0.5 --max-iter 4 --seed 9 --copy $1 -o out.lime) || [ $? -eq 3 ]
    }
    chain 0 1 a
    chain 0 2 b
    chain 1 2 c
    cmp a/out.lime b/out.lime
    run ! cmp -s a/out.lime c/out.lime
    "$BIN/lat-randomize-orbit" --seed 9 --copy 0 "$T/c8.lime" > r0.lime
    "$BIN/lat-randomize-orbit" --seed 9 --copy 1 "$T/c8.lime" > r1.lime
    ! cmp -s r0.lime r1.lime || false
}

@test "the tracked transformation: extracted g(x) applied to the original gives the fixed field (1e-12)" {
    [ -x "$BIN/lat-convert" ] || skip "lat-convert is not built"
    "$BIN/lat-randomize-orbit" --seed 3 --track-transform "$T/c4.lime" \
        | "$BIN/lat-anneal" -q --steps 20 --seed 3 \
        | "$BIN/lat-overrelax" -q -g coulomb -o fixed.lime
    lime_list fixed.lime | grep -q ' lat-gauge-transform$'
    transform_reproduces "$T/c4.lime" fixed.lime 4
}

@test "bad parameters: exit 2, one line, nothing written, an existing output untouched" {
    echo keep > out.lime
    sum=$(cksum < out.lime)
    for args in "--omega 2.5" "--omega 0.9" "--theta 0" "--theta -1e-12" "--max-iter 0" "--check-every 0" \
        "--stochastic 1.5" "--stochastic 0.5 --omega 1.5" "--gauge axial" "--precision half" "--copy -1" \
        "--reunitarize-every -3" "--bogus" "--omega abc"; do
        expect_error 2 lat-overrelax -- "$BIN/lat-overrelax" $args -o out.lime "$T/c4.lime"
    done
    for args in "--tmin 5 --tmax 1" "--tmin 0" "--tmax -1" "--steps 0" "--micro -1" "--schedule cubic" "--seed -4"; do
        expect_error 2 lat-anneal -- "$BIN/lat-anneal" $args -o out.lime "$T/c4.lime"
    done
    expect_error 2 lat-randomize-orbit -- "$BIN/lat-randomize-orbit" --copy 99999999 -o out.lime "$T/c4.lime"
    expect_error 2 lat-overrelax -- "$BIN/lat-overrelax" -o out.lime "$T/c4.lime" "$T/c4.lime"
    [ "$(cksum < out.lime)" = "$sum" ]
    [ "$(ls -A)" = out.lime ]
}

@test "bad input: not SU(3) beyond the tolerance, empty, missing: exit 1, nothing written" {
    # a 2^4 ILDG file whose links are diag(1.1, 1, 1) (no checksum record)
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<ildgFormat><version>1.0</version><field>su3gauge</field><precision>64</precision><lx>2</lx><ly>2</ly><lz>2</lz><lt>2</lt></ildgFormat>\n' > fmt
    one='\x3f\xf0\x00\x00\x00\x00\x00\x00' big='\x3f\xf1\x99\x99\x99\x99\x99\x9a' zero='\x00\x00\x00\x00\x00\x00\x00\x00'
    : > link
    for k in $(seq 0 17); do
        case $k in 0) printf "$big" ;; 8|16) printf "$one" ;; *) printf "$zero" ;; esac >> link
    done
    for i in $(seq 64); do cat link; done > bin
    hdr() { printf '\x45\x67\x89\xab\x00\x01'; printf "\\x$3\\x00"; printf '%016x' "$2" | sed 's/../\\x&/g' | xargs -0 printf; printf '%s' "$1"; head -c $((128 - ${#1})) /dev/zero; }
    pad() { head -c $(((8 - $1 % 8) % 8)) /dev/zero; }
    { hdr ildg-format $(stat -c %s fmt) 80; cat fmt; pad $(stat -c %s fmt); hdr ildg-binary-data $(stat -c %s bin) 40; cat bin; } > bad.lime
    rm -f fmt link bin
    echo keep > out.lime
    for p in lat-overrelax lat-anneal lat-randomize-orbit; do
        expect_error 1 $p -- "$BIN/$p" -o out.lime bad.lime
        [[ "$stderr" == *"not in SU(3)"* ]]
        expect_error 1 $p -- "$BIN/$p" -o out.lime /dev/null
        expect_error 1 $p -- "$BIN/$p" -o out.lime missing.lime
    done
    # a larger tolerance lets it through
    run "$BIN/lat-randomize-orbit" --unitarity-tol 0.5 -o ok.lime bad.lime
    [ "$status" -eq 0 ]
    [ "$(cat out.lime)" = keep ]
    [ "$(ls -A | sort | tr '\n' ' ')" = "bad.lime ok.lime out.lime " ]
}

@test "no binary output to a terminal; --device gpu without a usable GPU is an error" {
    command -v script > /dev/null || skip "script(1) is not installed"
    run script -qec "$BIN/lat-overrelax $T/c4.lime" /dev/null
    [ "$status" -ne 0 ]
    [[ "$output" == *"refusing to write a binary configuration to a terminal"* ]]
    if ! "$BIN/lat-measure" -q --device gpu "$T/c4.lime" > /dev/null 2>&1; then
        expect_error 1 lat-overrelax -- "$BIN/lat-overrelax" --device gpu -o out.lime "$T/c4.lime"
        [ ! -e out.lime ]
    fi
}

@test "convergence log of annealing: schedule columns; --log removed when the run fails" {
    "$BIN/lat-anneal" -q --steps 20 --tmax 2 --tmin 0.02 --schedule geometric --check-every 5 --log sa.tsv -o a.lime "$T/c4.lime"
    head -n 1 sa.tsv | grep -q $'^step\tfunctional\ttheta\ttemperature\tseconds$'
    [ "$(wc -l < sa.tsv)" -eq 6 ]
    awk -F'\t' 'NR == 2 { if ($4 != 2) exit 1 } NR == 6 { if ($4 < 0.0199 || $4 > 0.0201) exit 1 }' sa.tsv
    run "$BIN/lat-anneal" -q --steps 2 --log sa2.tsv -o a.lime /dev/null
    [ "$status" -eq 1 ]
    [ ! -e sa2.tsv ]
}

@test "Coulomb in mixed precision: a slice a reprojection pushed back above --theta is updated again; converged means every theta_t < EPS" {
    "$BIN/lat-heatbath" -q -b 5.7 -L 8 --start hot --sweeps 60 --seed 31 -o b57.lime
    for s in 2 3; do
        "$BIN/lat-randomize-orbit" -q --seed $s b57.lime | "$BIN/lat-overrelax" -q -g coulomb --precision mixed -o c$s.lime
        h=$("$BIN/lat-measure" --history c$s.lime | grep -o 'theta_t_max=[^ ]*' | tail -1)
        [ -n "$h" ]
        # before the fix: 1.5e-12 and 1.3e-12 with converged=yes
        awk -v t="${h#theta_t_max=}" 'BEGIN { exit !(t < 1e-12) }' || { echo "seed $s: $h"; return 1; }
    done
}

@test "real configurations (../shared/data): Landau, Coulomb and MAG converge to 1e-12 from random orbit points" {
    [ -d "$DATA" ] || skip "../shared/data is absent: the real files of other programs cannot be tested"
    for f in milc-l4444.ildg simulateqcd-l6666.nersc cps-l4448.nersc tmlqcd-unit-l4444.lime; do
        for g in landau coulomb mag; do
            "$BIN/lat-randomize-orbit" --seed 1 "$DATA/$f" | "$BIN/lat-overrelax" -q -g $g --theta 1e-12 -o x.lime
            [[ "$(last_results x.lime)" == *converged=yes ]]
            # as written to a file of the input's precision, re-measured
            th=$(mval x.lime theta -g $g)
            if [[ $f == *.ildg || $f == simulateqcd* ]]; then less "$th" 1e-10; else less "$th" 1e-12; fi
            close "$(mval x.lime plaquette)" "$(mval "$DATA/$f" plaquette)" 1e-6
        done
    done
}

@test "lat-gaugefix: the default chain converges, every stage in the history; --dry-run shows it; skipping stages" {
    run "$PIPE/lat-gaugefix" --dry-run --randomize --seed 3 -g mag -o x.lime in.lime
    [ "$status" -eq 0 ]
    [[ "$output" == *lat-randomize-orbit*"-- in.lime"*"|"*lat-anneal*"--gauge mag"*"--tmax 1 --tmin 0.005"*"|"*lat-overrelax*"--stochastic 0.5"*"|"*lat-overrelax*"--omega 1.8"*"-o x.lime"* ]] || false
    "$PIPE/lat-gaugefix" -q --randomize --track-transform --seed 3 --sa-steps 30 --log L -o fix.lime "$T/c4.lime"
    [ -s L.sa.tsv ] && [ -s L.sr.tsv ] && [ -s L.or.tsv ]
    lime_list fix.lime | grep -q ' lat-gauge-transform$'
    "$BIN/lat-measure" --history --format tsv fix.lime | grep -q 'lat-randomize-orbit -q --seed 3 --track-transform'
    "$BIN/lat-measure" --history --format tsv fix.lime | cut -f 3 | tail -n 4 | tr '\n' ' ' > progs
    [[ "$(cat progs)" == "lat-randomize-orbit "*" lat-anneal "*" lat-overrelax "*" lat-overrelax "* ]] || false
    less "$(mval fix.lime theta -g landau)" 1e-12
    # OR only, from a pipe to a pipe
    "$PIPE/lat-gaugefix" -q --no-sa --no-sr -g coulomb < "$T/c4.lime" > c.lime
    # options after the operand, as the programs take them
    "$PIPE/lat-gaugefix" "$T/c4.lime" -q --no-sa --no-sr -g coulomb -o c2.lime
    # the same field (the history differs: it holds the command lines)
    cmp <("$BIN/lat-measure" --format tsv -g coulomb c.lime | cut -f2-) <("$BIN/lat-measure" --format tsv -g coulomb c2.lime | cut -f2-)
    [ "$("$BIN/lat-measure" --history --format tsv c.lime | tail -n 1 | cut -f 3 | cut -d ' ' -f 1)" = lat-overrelax ]
}

@test "lat-gaugefix: exit codes (3 not converged, 2 usage with nothing written, 1 bad input)" {
    run "$PIPE/lat-gaugefix" -q --no-sa --sr-iter 2 --max-iter 2 -o nc.lime "$T/c4.lime"
    [ "$status" -eq 3 ]
    [ -s nc.lime ]
    echo keep > out.lime
    for args in "--omega 3" "--theta 0" "--tmin 5" "--sr-p 2" "--gauge axial" "--bogus" "--no-sa --no-sr --no-or"; do
        run "$PIPE/lat-gaugefix" $args -o out.lime "$T/c4.lime"
        [ "$status" -eq 2 ]
    done
    run "$PIPE/lat-gaugefix" -q --sa-steps 2 -o out.lime missing.lime
    [ "$status" -eq 1 ]
    run "$PIPE/lat-gaugefix" -q --sa-steps 2 -o out.lime /dev/null
    [ "$status" -eq 1 ]
    # a bad input: the first stage's one line, not the later stages' echoes
    head -c 3000 "$T/c4.lime" > cut.lime
    run --separate-stderr "$PIPE/lat-gaugefix" -q --sa-steps 2 -o out.lime cut.lime
    [ "$status" -eq 1 ]
    [ "$(echo "$stderr" | grep -c .)" -eq 1 ]
    [[ "$stderr" == *"cut.lime: truncated"* ]]
    rm cut.lime
    [ "$(cat out.lime)" = keep ]
    [ "$(ls -A | sort | tr '\n' ' ')" = "nc.lime out.lime " ]
}

@test "lat-gribov-scan: table, best copy, histogram, --compare; the same with -j 2" {
    "$PIPE/lat-gribov-scan" -q -c 3 --seed 5 --sa-steps 20 -o best.lime --png h.png --tsv sa.tsv "$T/c4.lime"
    head -n 1 sa.tsv | grep -q $'^copy\tseed\tF\ttheta\titerations\tconverged\tF_rel$'
    [ "$(wc -l < sa.tsv)" -eq 4 ]
    awk -F'\t' 'NR > 1 && ($2 != 5 || $6 != "yes" || $4 >= 1e-12 || $5 < 80 || $1 != NR - 2) { bad++ } END { exit bad }' sa.tsv
    fmax=$(awk -F'\t' 'NR > 1 && $3 > m { m = $3 } END { print m }' sa.tsv)
    close "$(mval best.lime F -g landau)" "$fmax" 1e-13
    awk -F'\t' 'NR > 1 && $7 == 0 { z++ } END { exit !(z >= 1) }' sa.tsv
    if command -v gnuplot > /dev/null; then [ "$(head -c 4 h.png | od -An -tx1 | tr -d ' ')" = 89504e47 ]; fi
    # overrelaxation only, compared in one picture; table on stdout; parallel copies
    "$PIPE/lat-gribov-scan" -q -c 3 --seed 5 --no-sa --no-sr --compare sa.tsv --png both.png "$T/c4.lime" > or.tsv
    [ "$(wc -l < or.tsv)" -eq 4 ]
    "$PIPE/lat-gribov-scan" -q -j 2 -c 3 --seed 5 --no-sa --no-sr "$T/c4.lime" > or2.tsv
    cmp or.tsv or2.tsv
    run "$PIPE/lat-gribov-scan" -c 0 "$T/c4.lime"
    [ "$status" -eq 2 ]
}

@test "examples/gaugefix: the Makefile workflow runs in parallel (make -j2)" {
    [ -f "$ROOT/examples/gaugefix/Makefile" ] || skip "examples/gaugefix is absent"
    run make -s -C "$ROOT/examples/gaugefix" -j2 OUT="$W/ex" LAT_BIN="$(cd "$BIN" && pwd)" \
        LAT_PIPES="$(cd "$PIPE" && pwd)" LATTICE=4x4x4x4 NCONF=2 COPIES=2 THERM=10 SA_STEPS=10 GAUGES="landau mag"
    echo "$output"
    [ "$status" -eq 0 ]
    for g in landau mag; do
        [ "$(wc -l < "$W/ex/summary.$g.tsv")" -eq $((1 + 2 * 2)) ]
        [ -s "$W/ex/conf.2.$g.1.gt.lime" ]
    done
    [ "$(wc -l < "$W/ex/best.tsv")" -eq 5 ]
}
